#include "compact/full_changelog.h"

#include <algorithm>
#include <set>

#include "io/file_system.h"
#include "merge/key_value.h"
#include "meta/schema_manager.h"
#include "meta/snapshot_reader.h"
#include "options/core_options.h"
#include "options/option_keys.h"

namespace tributary::compact {

using merge::KeyValue;

std::set<std::string> ParseFieldList(const std::string& text) {
  std::set<std::string> out;
  std::string field;
  for (char ch : text + ",") {
    if (ch == ',') {
      while (!field.empty() && field.back() == ' ') field.pop_back();
      if (!field.empty()) out.insert(field);
      field.clear();
    } else if (ch != ' ' || !field.empty()) {
      field += ch;
    }
  }
  return out;
}

bool SameRowIgnoring(const Row& a, const Row& b, const std::vector<bool>& ignored) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (i < ignored.size() && ignored[i]) continue;
    if (!(a[i] == b[i])) return false;
  }
  return true;
}

Result<std::vector<meta::DataFileMeta>> WriteFullCompactionChangelog(
    const std::string& table_path, const TableSchema& schema, const std::string& bucket_dir,
    const std::vector<meta::DataFileMeta>& top_before, const std::vector<meta::DataFileMeta>& after,
    int32_t level, meta::FileNamer* namer) {
  const datafile::FileLayout layout = datafile::FileLayout::Of(schema);
  TRIB_ASSIGN_OR_RETURN(options::CoreOptions core, options::CoreOptions::From(schema));
  const bool row_deduplicate = options::GetOrDefault(schema, options::kChangelogRowDeduplicate);
  const std::set<std::string> ignore_fields =
      ParseFieldList(options::GetOrDefault(schema, options::kChangelogRowDeduplicateIgnoreFields));
  meta::FileSchemas file_schemas(table_path, schema.id);
  auto read_all =
      [&](const std::vector<meta::DataFileMeta>& files) -> Result<std::vector<KeyValue>> {
    std::vector<KeyValue> out;
    for (const auto& f : files) {
      TRIB_ASSIGN_OR_RETURN(const std::vector<Field>* file_fields,
                            file_schemas.FieldsOf(f.schema_id));
      const std::string path = f.external_path
                                   ? meta::ResolveExternalPath(table_path, *f.external_path)
                                   : io::JoinPath(bucket_dir, f.file_name);
      TRIB_ASSIGN_OR_RETURN(auto part, datafile::ReadDataFile({path, f.row_count}, layout, f.level,
                                                              f.write_cols, file_fields));
      for (auto& kv : part) out.push_back(std::move(kv));
    }
    merge::KeyComparator key_order(layout.key_columns);
    std::stable_sort(out.begin(), out.end(), [&](const KeyValue& a, const KeyValue& b) {
      return key_order.Compare(a.value, b.value) < 0;
    });
    return out;
  };
  // The top level is one sorted run: one record per key, in key order.
  TRIB_ASSIGN_OR_RETURN(std::vector<KeyValue> before, read_all(top_before));
  TRIB_ASSIGN_OR_RETURN(std::vector<KeyValue> now, read_all(after));
  std::vector<bool> ignored(layout.fields.size(), false);
  for (size_t i = 0; i < layout.fields.size(); i++) {
    ignored[i] = ignore_fields.count(layout.fields[i].name) > 0;
  }
  merge::KeyComparator key_order(layout.key_columns);
  datafile::DataFileWriter writer(layout, bucket_dir, namer, core.target_file_size, level,
                                  meta::FileSource::kCompact, core.changelog_format);
  auto emit = [&](RowKind kind, const KeyValue& kv) {
    KeyValue out = kv;
    out.kind = kind;
    out.level = level;
    out.write_mask = nullptr;
    return writer.Write(out);
  };
  Status st;
  size_t b = 0, a = 0;
  while (st.ok() && (b < before.size() || a < now.size())) {
    const int c = b == before.size() ? 1
                  : a == now.size()  ? -1
                                     : key_order.Compare(before[b].value, now[a].value);
    const KeyValue* old_kv = c <= 0 ? &before[b] : nullptr;
    const KeyValue* new_kv = c >= 0 ? &now[a] : nullptr;
    const bool had = old_kv && IsAdd(old_kv->kind);
    const bool has = new_kv && IsAdd(new_kv->kind);
    if (!had && has) {
      st = emit(RowKind::kInsert, *new_kv);
    } else if (had && !has) {
      st = emit(RowKind::kDelete, *old_kv);
    } else if (had && has &&
               !(row_deduplicate && SameRowIgnoring(old_kv->value, new_kv->value, ignored)) &&
               old_kv->sequence != new_kv->sequence) {
      // (The same record carried over unchanged keeps its sequence number: no change.)
      st = emit(RowKind::kUpdateBefore, *old_kv);
      if (st.ok()) st = emit(RowKind::kUpdateAfter, *new_kv);
    }
    if (c <= 0) b++;
    if (c >= 0) a++;
  }
  if (!st.ok()) {
    writer.Abort();
    return st;
  }
  return writer.Finish();
}

}  // namespace tributary::compact
