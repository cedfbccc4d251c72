#include "write/lookup_changelog.h"

#include <algorithm>

#include "compact/full_changelog.h"
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
  auto emit = [&](RowKind kind, const Row& row, int64_t sequence) {
    KeyValue kv;
    kv.kind = kind;
    kv.value = row;
    kv.sequence = sequence;
    return writer.Write(kv);
  };
  Status st;
  size_t i = 0;
  while (st.ok() && i < records.size()) {
    size_t j = i + 1;
    while (j < records.size() && key_order.Compare(records[i].value, records[j].value) == 0) j++;
    // Before: the key's value in the committed files.
    Row key;
    for (int c : layout.key_columns) key.push_back(records[i].value[c]);
    std::vector<KeyValue> found;
    st = committed.FindAll(key, &found);
    if (!st.ok()) break;
    auto before = MergeCommitted(std::move(found), order, fn.get());
    if (!before.ok()) {
      st = before.status();
      break;
    }
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
        if (after && IsAdd(after->kind)) st = emit(RowKind::kInsert, after->value, seq);
      }
      i = j;
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
    i = j;
  }
  if (!st.ok()) {
    writer.Abort();
    return st;
  }
  return writer.Finish();
}

}  // namespace tributary::write
