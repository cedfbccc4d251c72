#include "table/point_lookup.h"

#include <algorithm>

#include "table/file_cache.h"

namespace tributary::table {

Result<std::shared_ptr<const std::vector<merge::KeyValue>>> LoadSortedFile(
    const std::string& path, const FileLayout& layout, const meta::DataFileMeta& f,
    int64_t read_schema_id, const std::vector<Field>* file_fields) {
  using T = std::vector<merge::KeyValue>;
  return FileCache::Instance().GetOrLoad<T>(
      "data:" + path + "#" + std::to_string(read_schema_id),
      [&]() -> Result<std::pair<T, int64_t>> {
        TRIB_ASSIGN_OR_RETURN(T r, ReadDataFile(path, layout, f.level, f.write_cols, file_fields));
        return std::make_pair(std::move(r), f.file_size * 8 + 1024);
      });
}

void SearchSorted(const std::vector<merge::KeyValue>& records, const FileLayout& layout,
                  const Row& key, std::vector<merge::KeyValue>* found) {
  const auto& kc = layout.key_columns;
  auto less = [&](const merge::KeyValue& kv, const Row& k) {
    for (size_t i = 0; i < kc.size(); i++) {
      int c = merge::FastCompare(kv.value[kc[i]], k[i]);
      if (c != 0) return c < 0;
    }
    return false;
  };
  for (auto it = std::lower_bound(records.begin(), records.end(), key, less);
       it != records.end(); ++it) {
    for (size_t i = 0; i < kc.size(); i++) {
      if (merge::FastCompare(it->value[kc[i]], key[i]) != 0) return;
    }
    found->push_back(*it);
  }
}

Status FindKeyInFile(const std::string& path, const FileLayout& layout,
                     const meta::DataFileMeta& f, int64_t read_schema_id,
                     const std::vector<Field>* file_fields, const Row& key,
                     std::vector<merge::KeyValue>* found) {
  if (f.schema_id == read_schema_id) {
    auto range = DecodeKeyRange(f, layout.KeyTypes());
    if (range && !range->Contains(key)) return Status::OK();
  }
  TRIB_ASSIGN_OR_RETURN(auto records, LoadSortedFile(path, layout, f, read_schema_id, file_fields));
  SearchSorted(*records, layout, key, found);
  return Status::OK();
}

Result<std::optional<Row>> MergeFound(std::vector<merge::KeyValue> found,
                                      const std::shared_ptr<const merge::MergeConfig>& config,
                                      merge::MergeFunction* fn) {
  if (found.empty()) return std::optional<Row>();
  merge::SequenceOrder order(config);
  std::stable_sort(found.begin(), found.end(),
                   [&](const auto& a, const auto& b) { return order.Compare(a, b) < 0; });
  fn->Reset();
  for (const auto& kv : found) TRIB_RETURN_NOT_OK(fn->Add(kv));
  auto r = fn->Result();
  if (!r || IsRetract(r->kind)) return std::optional<Row>();
  return std::optional<Row>(std::move(r->value));
}

}  // namespace tributary::table
