#include "write/lookup_changelog.h"

#include <algorithm>

#include "compact/full_changelog.h"
#include "absl/container/flat_hash_map.h"
#include "format/binary_row.h"
#include "format/parquet/writer.h"
#include "write/column_buffer.h"
#include "datafile/point_lookup.h"
#include "io/file_system.h"
#include "merge/merge_function.h"
#include "meta/schema_manager.h"
#include "meta/snapshot_reader.h"

namespace tributary::write {

using datafile::DataFileWriter;
using merge::KeyValue;

namespace {

// The merged record of `found` (a key's records in the committed files) in merge order, or
// nullopt when the key is absent or deleted.
Result<std::optional<KeyValue>> MergeCommitted(std::vector<KeyValue> found,
                                               const merge::SequenceOrder& order,
                                               merge::MergeFunction* fn) {
  if (found.empty()) return std::optional<KeyValue>();
  std::stable_sort(found.begin(), found.end(),
                   [&](const auto& a, const auto& b) { return order.Compare(a, b) < 0; });
  fn->Reset();
  int64_t max_seq = INT64_MIN;
  for (auto& kv : found) {
    max_seq = std::max(max_seq, kv.sequence);
    TRIB_RETURN_NOT_OK(fn->AddOwned(std::move(kv)));
  }
  TRIB_RETURN_NOT_OK(fn->Complete());
  auto r = fn->TakeResult();
  if (!r || IsRetract(r->kind)) return std::optional<KeyValue>();
  r->sequence = max_seq;
  r->level = 1;  // from the committed files: older than anything this commit wrote
  r->write_mask = nullptr;
  return r;
}

}  // namespace

struct LookupValueCache::Maps {
  absl::flat_hash_map<int64_t, Entry> ints;
  absl::flat_hash_map<std::string, Entry> bytes;
};

namespace {
int64_t EntryBytes(const LookupValueCache::Key& key, const LookupValueCache::Entry& e) {
  return static_cast<int64_t>(key.bytes.size() + (e.row ? e.row->size() + 32 : 0)) + 48;
}
}  // namespace

LookupValueCache::LookupValueCache(std::atomic<int64_t>* used, int64_t budget)
    : maps_(std::make_unique<Maps>()), used_(used), budget_(budget) {}

LookupValueCache::~LookupValueCache() { Clear(); }

const LookupValueCache::Entry* LookupValueCache::Find(const Key& key) const {
  if (key.is_int) {
    auto it = maps_->ints.find(key.int_key);
    return it == maps_->ints.end() ? nullptr : &it->second;
  }
  auto it = maps_->bytes.find(key.bytes);
  return it == maps_->bytes.end() ? nullptr : &it->second;
}

void LookupValueCache::Put(const Key& key, Entry e) {
  const int64_t size = EntryBytes(key, e);
  if (used_->load(std::memory_order_relaxed) + unsettled_ + size > budget_) {
    Clear();  // over the budget: this bucket starts again
    if (size > budget_) return;
  }
  Entry* slot;
  bool inserted;
  if (key.is_int) {
    auto [it, ins] = maps_->ints.try_emplace(key.int_key);
    slot = &it->second;
    inserted = ins;
  } else {
    auto [it, ins] = maps_->bytes.try_emplace(key.bytes);
    slot = &it->second;
    inserted = ins;
  }
  const int64_t old = inserted ? 0 : EntryBytes(key, *slot);
  *slot = std::move(e);
  bytes_ += size - old;
  unsettled_ += size - old;
}

void LookupValueCache::Settle() {
  used_->fetch_add(unsettled_, std::memory_order_relaxed);
  unsettled_ = 0;
}

void LookupValueCache::Clear() {
  used_->fetch_sub(bytes_ - unsettled_, std::memory_order_relaxed);
  bytes_ = unsettled_ = 0;
  maps_->ints.clear();
  maps_->bytes.clear();
}

Result<std::vector<meta::DataFileMeta>> WriteLookupChangelog(const LookupChangelogInput& in,
                                                             meta::FileNamer* namer) {
  const datafile::FileLayout& layout = *in.layout;
  // This commit's records of the bucket, in key order, then merge order.
  std::vector<KeyValue> records;
  for (const auto& f : *in.new_files) {
    TRIB_ASSIGN_OR_RETURN(auto part,
                          datafile::ReadDataFile({io::JoinPath(in.bucket_dir, f.file_name),
                                                  f.row_count},
                                                 layout, f.level, f.write_cols));
    for (auto& kv : part) records.push_back(std::move(kv));
  }
  if (records.empty()) return std::vector<meta::DataFileMeta>();
  merge::KeyComparator key_order(layout.key_columns);
  merge::SequenceOrder order(in.merge_config);
  merge::SortWriteBuffer(&records, key_order, order);
  TRIB_ASSIGN_OR_RETURN(auto fn, merge::MakeMergeFunction(in.merge_config, *in.schema));
  const bool first_row = in.merge_config->engine == "first-row";
  std::vector<bool> ignored(layout.fields.size(), false);
  for (size_t i = 0; i < layout.fields.size(); i++) {
    ignored[i] = in.ignore_fields.count(layout.fields[i].name) > 0;
  }
  // The committed files: each key's records found by key range, then binary search.
  datafile::BucketFileSearch committed(in.table_path, in.bucket_dir, layout, *in.schema,
                                       *in.committed);
  DataFileWriter writer(layout, in.bucket_dir, namer, in.target_file_size, 0,
                        meta::FileSource::kAppend, *in.format);
  // The changes come in key order: gathered column by column and written at the end when the
  // format takes columns (Parquet, flat columns), else written record by record.
  std::optional<ColumnWriteBuffer> changes;
  std::vector<int64_t> change_seqs, change_kinds;
  if (writer.CanWriteColumns() && ColumnWriteBuffer::Supports(layout.fields)) {
    changes.emplace(layout.fields);
  }
  auto emit = [&](RowKind kind, const Row& row, int64_t sequence) -> Status {
    if (changes) {
      changes->Add(kind, row);
      change_seqs.push_back(sequence);
      change_kinds.push_back(static_cast<int64_t>(kind));
      return Status::OK();
    }
    KeyValue kv;
    kv.kind = kind;
    kv.value = row;
    kv.sequence = sequence;
    return writer.Write(kv);
  };
  // The keys this commit wrote (each once, ascending) and where their records start.
  std::vector<Row> keys;
  std::vector<size_t> starts;
  for (size_t i = 0; i < records.size();) {
    size_t j = i + 1;
    while (j < records.size() && key_order.Compare(records[i].value, records[j].value) == 0) j++;
    Row key;
    for (int c : layout.key_columns) key.push_back(records[i].value[c]);
    keys.push_back(std::move(key));
    starts.push_back(i);
    i = j;
  }
  starts.push_back(records.size());
  // Before: each key's value as this writer's cache holds it, else from its records in the
  // committed files.
  const std::vector<DataType> types = layout.FieldTypes();
  const std::vector<DataType> key_types = layout.KeyTypes();
  LookupValueCache* cache =
      in.cache && std::none_of(types.begin(), types.end(),
                               [](const DataType& t) { return t.IsNested(); })
          ? in.cache
          : nullptr;
  std::vector<LookupValueCache::Key> cache_keys(cache ? keys.size() : 0);
  const bool int_key = key_types.size() == 1 && key_types[0].IsInteger();
  std::vector<std::optional<KeyValue>> befores(keys.size());
  std::vector<Row> search;
  std::vector<size_t> search_of;
  for (size_t g = 0; g < keys.size(); g++) {
    if (cache) {
      LookupValueCache::Key& ck = cache_keys[g];
      ck.is_int = int_key && keys[g][0].is_int();
      if (ck.is_int) {
        ck.int_key = keys[g][0].int_value();
      } else {
        ck.bytes = format::EncodeBinaryRow(key_types, keys[g]);
      }
      if (const LookupValueCache::Entry* e = cache->Find(cache_keys[g])) {
        if (e->row) {
          KeyValue kv;
          kv.sequence = e->sequence;
          kv.level = 1;  // older than anything this commit wrote
          TRIB_ASSIGN_OR_RETURN(kv.value, format::DecodeBinaryRow(*e->row, types));
          befores[g] = std::move(kv);
        }
        continue;
      }
    }
    search.push_back(keys[g]);
    search_of.push_back(g);
  }
  {
    std::vector<std::vector<KeyValue>> found;
    TRIB_RETURN_NOT_OK(committed.FindAllSorted(search, &found));
    for (size_t s = 0; s < search.size(); s++) {
      TRIB_ASSIGN_OR_RETURN(befores[search_of[s]],
                            MergeCommitted(std::move(found[s]), order, fn.get()));
    }
  }
  // What the key holds once this commit is in.
  auto remember = [&](size_t g, const Row* row, int64_t sequence) {
    if (!cache) return;
    LookupValueCache::Entry e;
    e.sequence = sequence;
    if (row) e.row = format::EncodeBinaryRow(types, *row);
    cache->Put(cache_keys[g], std::move(e));
  };
  Status st;
  for (size_t g = 0; st.ok() && g < keys.size(); g++) {
    const size_t i = starts[g], j = starts[g + 1];
    const std::optional<KeyValue>* before = &befores[g];
    int64_t seq = INT64_MIN;
    for (size_t k = i; k < j; k++) seq = std::max(seq, records[k].sequence);
    if (first_row) {
      // First-row keeps the first row ever written: only a key seen for the first time changes.
      if (!*before) {
        fn->Reset();
        for (size_t k = i; k < j && st.ok(); k++) st = fn->Add(records[k]);
        if (st.ok()) st = fn->Complete();
        if (!st.ok()) break;
        auto after = fn->TakeResult();
        const bool has = after && IsAdd(after->kind);
        if (has) st = emit(RowKind::kInsert, after->value, seq);
        remember(g, has ? &after->value : nullptr, seq);
      }
      continue;
    }
    // After: the before value merged with this commit's records, in merge order.
    std::vector<const KeyValue*> group;
    if (*before) group.push_back(&**before);
    for (size_t k = i; k < j; k++) group.push_back(&records[k]);
    std::stable_sort(group.begin(), group.end(),
                     [&](const KeyValue* a, const KeyValue* b) { return order.Compare(*a, *b) < 0; });
    fn->Reset();
    for (const KeyValue* kv : group) {
      st = fn->Add(*kv);
      if (!st.ok()) break;
    }
    if (st.ok()) st = fn->Complete();
    if (!st.ok()) break;
    auto after = fn->TakeResult();
    const bool had = before->has_value();
    const bool has = after && IsAdd(after->kind);
    remember(g, has ? &after->value : nullptr, seq);
    if (!had && has) {
      st = emit(RowKind::kInsert, after->value, seq);
    } else if (had && !has) {
      st = emit(RowKind::kDelete, (*before)->value, seq);
    } else if (had && has) {
      if (!(in.row_deduplicate && compact::SameRowIgnoring((*before)->value, after->value, ignored))) {
        st = emit(RowKind::kUpdateBefore, (*before)->value, seq);
        if (st.ok()) st = emit(RowKind::kUpdateAfter, after->value, seq);
      }
    }
  }
  if (cache) cache->Settle();
  if (st.ok() && changes && !changes->empty()) {
    std::vector<uint32_t> rows(changes->size());
    for (size_t k = 0; k < rows.size(); k++) rows[k] = static_cast<uint32_t>(k);
    st = writer.WriteColumns(changes->Columns(), rows.data(), change_seqs.data(),
                             change_kinds.data(), rows.size());
  }
  if (!st.ok()) {
    writer.Abort();
    return st;
  }
  return writer.Finish();
}

}  // namespace tributary::write
