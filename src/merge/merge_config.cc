#include "merge/merge_config.h"

#include <algorithm>

#include "common/strings.h"
#include "merge/field_aggregator.h"
#include "options/option_keys.h"
#include "options/option_values.h"

namespace tributary::merge {
namespace {

bool SequenceType(const DataType& t) {
  return t.id == TypeId::kTinyInt || t.id == TypeId::kSmallInt || t.id == TypeId::kInt ||
         t.id == TypeId::kBigInt || t.IsTimestamp();
}

// The versioned engine: a deduplicate merge ordered by its version column (the only sequence
// field; 'sequence.field' is refused with it).
Status VersionedAsDeduplicate(const TableSchema& s, MergeConfig* c) {
  auto ver = options::IsSet(s, options::kVersionedVerColumn);
  if (!ver || ver->empty()) {
    return Status::Invalid(
        "merge engine 'versioned' needs "
        "'table.merge-engine.versioned.ver-column'");
  }
  const int i = s.FieldIndex(*ver);
  if (i < 0) {
    return Status::Invalid("'table.merge-engine.versioned.ver-column' names unknown column '" +
                           *ver + "'");
  }
  const DataType& t = s.fields[i].type;
  if (t.id != TypeId::kInt && t.id != TypeId::kBigInt && !t.IsTimestamp()) {
    return Status::Invalid("version column '" + *ver +
                           "' must be INT, BIGINT, TIMESTAMP or "
                           "TIMESTAMP_LTZ, not " +
                           t.ToString());
  }
  if (options::IsSet(s, options::kSequenceField)) {
    return Status::Invalid(
        "merge engine 'versioned' orders by its version column; "
        "'sequence.field' cannot be set as well");
  }
  c->engine = "deduplicate";
  c->sequence_fields = {i};
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<const MergeConfig>> MergeConfig::Make(const TableSchema& s, bool strict) {
  auto c = std::make_shared<MergeConfig>();
  TRIB_ASSIGN_OR_RETURN(const options::MergeEngine engine, options::Get(s, options::kMergeEngine));
  c->engine = options::MergeEngineName(engine);
  const size_t n = s.fields.size();
  auto column = [&](const std::string& name, const std::string& what) -> Result<int> {
    int i = s.FieldIndex(name);
    if (i < 0) return Status::Invalid(what + " names unknown column '" + name + "'");
    return i;
  };
  for (const auto& k : s.primary_keys) {
    TRIB_ASSIGN_OR_RETURN(int i, column(k, "PRIMARY KEY"));
    c->primary_key.push_back(i);
  }
  auto is_key = [&](int i) {
    return std::find(c->primary_key.begin(), c->primary_key.end(), i) != c->primary_key.end();
  };
  if (c->engine == "versioned") TRIB_RETURN_NOT_OK(VersionedAsDeduplicate(s, c.get()));
  if (auto seq = options::IsSet(s, options::kSequenceField)) {
    if (c->engine == "first-row") {
      return Status::Invalid("merge engine 'first-row' does not support 'sequence.field'");
    }
    for (const auto& f : SplitCommaList(*seq)) {
      TRIB_ASSIGN_OR_RETURN(int i, column(f, "'sequence.field'"));
      if (strict && !SequenceType(s.fields[i].type)) {
        return Status::Invalid("'sequence.field' column '" + f +
                               "' must be TINYINT, SMALLINT, "
                               "INT, BIGINT, TIMESTAMP or TIMESTAMP_LTZ, not " +
                               s.fields[i].type.ToString());
      }
      c->sequence_fields.push_back(i);
    }
  }
  // (Checked at CREATE / ALTER TABLE; a value another tool wrote that does not parse is the
  // default, and a padding list's items are taken one by one, so such a table stays readable.)
  c->sequence_descending =
      options::GetOrDefault(s, options::kSequenceFieldSortOrder) == "descending";
  for (const auto& p :
       SplitCommaList(options::IsSet(s, options::kSequenceAutoPadding).value_or(""))) {
    if (options::MatchAllowed(p, {"row-kind-flag"}) == "row-kind-flag") c->pad_row_kind = true;
  }
  // Tributary normalizes the engine-specific spellings to 'ignore-delete' at CREATE TABLE;
  // tables written by Java Paimon may carry any of them.
  TRIB_ASSIGN_OR_RETURN(c->ignore_delete, options::Get(s, options::kIgnoreDelete));
  if (c->engine == "partial-update") {
    TRIB_ASSIGN_OR_RETURN(c->remove_record_on_delete,
                          options::Get(s, options::kPartialUpdateRemoveRecordOnDelete));
  } else if (c->engine == "aggregation") {
    TRIB_ASSIGN_OR_RETURN(c->remove_record_on_delete,
                          options::Get(s, options::kAggregationRemoveRecordOnDelete));
  }
  if (c->engine != "deduplicate" && c->engine != "first-row" && c->engine != "aggregation" &&
      c->engine != "partial-update") {
    return Status::Invalid("unknown merge engine '" + c->engine + "'");
  }

  // Per-column settings.
  c->aggregate.assign(n, "");
  c->ignore_retract.assign(n, false);
  c->list_delimiter.assign(n, ",");
  std::string default_agg =
      options::IsSet(s, options::kFieldsDefaultAggregateFunction).value_or("");
  std::set<int> grouped_seq;
  for (const auto& [key, value] : s.options) {
    if (key.rfind("fields.", 0) != 0) continue;
    size_t dot = key.rfind('.');
    std::string cols = key.substr(7, dot - 7);
    std::string suffix = key.substr(dot + 1);
    if (cols == "default-aggregate-function" || dot <= 7) continue;
    if (suffix == "sequence-group") {
      if (c->engine != "partial-update") {
        return Status::Invalid("'" + key + "' needs merge engine 'partial-update'");
      }
      SequenceGroup g;
      for (const auto& f : SplitCommaList(cols)) {
        TRIB_ASSIGN_OR_RETURN(int i, column(f, "'" + key + "'"));
        if (!SequenceType(s.fields[i].type)) {
          return Status::Invalid("sequence-group field '" + f +
                                 "' must be an integer or "
                                 "timestamp column, not " +
                                 s.fields[i].type.ToString());
        }
        g.sequence_fields.push_back(i);
        grouped_seq.insert(i);
      }
      for (const auto& f : SplitCommaList(value)) {
        TRIB_ASSIGN_OR_RETURN(int i, column(f, "'" + key + "'"));
        if (is_key(i)) {
          return Status::Invalid("sequence group '" + key +
                                 "' must not contain primary key "
                                 "column '" +
                                 f + "'");
        }
        g.value_fields.push_back(i);
      }
      c->groups.push_back(std::move(g));
      continue;
    }
    if (suffix != "aggregate-function" && suffix != "ignore-retract" &&
        suffix != "list-agg-delimiter") {
      continue;
    }
    TRIB_ASSIGN_OR_RETURN(int i, column(cols, "'" + key + "'"));
    if (suffix == "aggregate-function") {
      if (c->engine != "aggregation" && c->engine != "partial-update") {
        return Status::Invalid("'" + key +
                               "' needs merge engine 'aggregation' or "
                               "'partial-update'");
      }
      if (is_key(i)) {
        return Status::Invalid("primary key column '" + cols +
                               "' cannot have an aggregate "
                               "function");
      }
      c->aggregate[i] = value == "first_not_null_value" ? "first_non_null_value" : value;
    } else if (suffix == "ignore-retract") {
      c->ignore_retract[i] = value == "true";
    } else {
      c->list_delimiter[i] = value;
    }
  }
  std::set<int> in_groups;
  for (const auto& g : c->groups) {
    for (int f : g.value_fields) {
      if (grouped_seq.count(f)) {
        return Status::Invalid("column '" + s.fields[f].name +
                               "' is both a sequence field and a "
                               "member of a sequence group");
      }
      if (!in_groups.insert(f).second) {
        return Status::Invalid("column '" + s.fields[f].name + "' is in two sequence groups");
      }
    }
  }
  if (auto rm = options::IsSet(s, options::kPartialUpdateRemoveRecordOnSequenceGroup)) {
    for (const auto& f : SplitCommaList(*rm)) {
      TRIB_ASSIGN_OR_RETURN(int i, column(f, "'partial-update.remove-record-on-sequence-group'"));
      if (!grouped_seq.count(i)) {
        return Status::Invalid("'partial-update.remove-record-on-sequence-group' names '" + f +
                               "', which is not a sequence-group field");
      }
      c->remove_on_group.insert(i);
    }
  }
  if (c->engine == "aggregation") {
    std::set<int> seq(c->sequence_fields.begin(), c->sequence_fields.end());
    for (size_t i = 0; i < n; i++) {
      if (is_key(static_cast<int>(i))) continue;
      if (seq.count(static_cast<int>(i))) {
        c->aggregate[i] = "last_value";  // sequence fields keep the latest value
        continue;
      }
      if (c->aggregate[i].empty()) {
        c->aggregate[i] = default_agg.empty() ? "last_non_null_value" : default_agg;
      }
    }
  } else if (c->engine == "partial-update" && !default_agg.empty()) {
    for (size_t i = 0; i < n; i++) {
      if (!is_key(static_cast<int>(i)) && !grouped_seq.count(static_cast<int>(i)) &&
          c->aggregate[i].empty() && in_groups.count(static_cast<int>(i))) {
        c->aggregate[i] = default_agg;
      }
    }
  }
  for (size_t i = 0; i < n; i++) {
    if (c->aggregate[i].empty()) continue;
    // Validates the function against the column type.
    TRIB_ASSIGN_OR_RETURN(auto agg, FieldAggregator::Make(c->aggregate[i], s.fields[i].name,
                                                          s.fields[i].type, c->list_delimiter[i]));
    (void)agg;
    if (c->aggregate[i] == "count") c->count_fields.push_back(static_cast<int>(i));
  }
  if (c->engine == "partial-update") {
    for (size_t i = 0; i < n; i++) {
      if (!c->aggregate[i].empty() && !in_groups.count(static_cast<int>(i))) {
        return Status::Invalid("column '" + s.fields[i].name +
                               "': an aggregate function in a "
                               "partial-update table needs the column in a sequence group");
      }
    }
  }
  // Lookup tables keep each key's whole merged value in its newest record above level 0
  // (Paimon's needLookup, LookupMergeFunction); first-row is already right, and so is a plain
  // deduplicate merge, where the newest record wins whatever the levels.
  // ('force-lookup' = 'true', which Java Paimon tables may carry, reads the same way.)
  TRIB_ASSIGN_OR_RETURN(const options::ChangelogProducer producer,
                        options::Get(s, options::kChangelogProducer));
  TRIB_ASSIGN_OR_RETURN(const bool force_lookup, options::Get(s, options::kForceLookup));
  c->lookup_levels = (producer == options::ChangelogProducer::kLookup || force_lookup) &&
                     c->engine != "first-row" && !c->IsPlainDeduplicate();
  return std::shared_ptr<const MergeConfig>(std::move(c));
}

void SortWriteBuffer(std::vector<KeyValue>* records, const KeyComparator& key,
                     const SequenceOrder& order) {
  std::vector<KeyValue>& r = *records;
  // Fast path: one integer key column and arrival order as the sequence order (no
  // 'sequence.field'): records are in ascending sequence already, so sorting (key, position)
  // pairs, which are small and contiguous, gives the merge order.
  const auto& cols = key.key_columns();
  bool int_key = cols.size() == 1 && !order.HasSequenceFields();
  for (size_t i = 0; int_key && i < r.size(); i++) {
    int_key = r[i].value[cols[0]].is_int() && (i == 0 || r[i - 1].sequence < r[i].sequence);
  }
  if (int_key) {
    std::vector<std::pair<int64_t, uint32_t>> keys(r.size());
    for (uint32_t i = 0; i < keys.size(); i++) keys[i] = {r[i].value[cols[0]].int_value(), i};
    std::sort(keys.begin(), keys.end());
    std::vector<KeyValue> sorted;
    sorted.reserve(r.size());
    for (const auto& k : keys) sorted.push_back(std::move(r[k.second]));
    r = std::move(sorted);
    return;
  }
  std::stable_sort(r.begin(), r.end(), [&](const KeyValue& a, const KeyValue& b) {
    int c = key.Compare(a.value, b.value);
    return c != 0 ? c < 0 : order.Compare(a, b) < 0;
  });
}

int SequenceOrder::Compare(const KeyValue& a, const KeyValue& b) const {
  for (int f : config_->sequence_fields) {
    int c = FastCompare(a.value[f], b.value[f]);  // null sorts lowest
    if (c != 0) {
      if (config_->sequence_descending && !a.value[f].is_null() && !b.value[f].is_null()) c = -c;
      return c;
    }
  }
  if (config_->pad_row_kind && !config_->sequence_fields.empty()) {
    int ka = IsRetract(a.kind) ? 0 : 1, kb = IsRetract(b.kind) ? 0 : 1;
    if (ka != kb) return ka < kb ? -1 : 1;
  }
  if (a.sequence != b.sequence) return a.sequence < b.sequence ? -1 : 1;
  return 0;
}

}  // namespace tributary::merge
