#include "datafile/point_lookup.h"

#include <algorithm>
#include <set>

#include "io/file_cache.h"
#include "io/file_system.h"
#include "merge/sort_merge_reader.h"
#include "meta/snapshot_reader.h"

namespace tributary::datafile {

bool SearchesByPages(const meta::DataFileMeta& f, const FileLayout& layout, int64_t read_schema_id,
                     const Row& key) {
  const int64_t whole_bytes = f.row_count * 64;
  if (layout.key_columns.empty() || key.size() != layout.key_columns.size()) return false;
  const DataType& first = layout.fields[layout.key_columns[0]].type;
  const bool searchable = first.IsInteger()                      ? key[0].is_int()
                          : first.IsString() || first.IsBinary() ? key[0].is_string()
                                                                 : false;
  return whole_bytes > io::FileCache::Instance().Capacity() / 8 && f.schema_id == read_schema_id &&
         !f.write_cols && searchable;
}

Result<bool> FindKeyByPages(const std::string& path, const FileLayout& layout,
                            const meta::DataFileMeta& f, const Row& key,
                            std::vector<merge::KeyValue>* found, const std::set<int64_t>* deleted) {
  TRIB_ASSIGN_OR_RETURN(auto records, FindKeysByPages({path, f.row_count}, layout, f.level, {key}));
  if (!records) return false;
  for (KeyPosition& kp : *records) {
    if (deleted && deleted->count(kp.position)) continue;
    found->push_back(std::move(kp.record));
  }
  return true;
}

using io::FileCache;

Result<merge::KeyValue> SortedFile::Record(size_t i) const {
  if (!packed) return records[i];
  merge::KeyValue kv;
  kv.level = level;
  kv.write_mask = write_mask;
  packed->Get(i, &kv.sequence, &kv.kind, &kv.value);
  return kv;
}

namespace {

// Whether LoadSortedFile packs a file of `layout`: a key of one integer column, no nested column.
bool Packable(const FileLayout& layout) {
  const std::vector<DataType> types = layout.FieldTypes();
  return layout.key_columns.size() == 1 && layout.fields[layout.key_columns[0]].type.IsInteger() &&
         std::none_of(types.begin(), types.end(), [](const DataType& t) { return t.IsNested(); });
}

// The records of `records` (about `n`, of a file at `level`) packed (PackedRecords) instead of a
// heap row per record. nullopt when a key is not an integer or a value is nested (the caller keeps
// the records as rows) or there is no record; an error when keys do not ascend (the file at
// `path` is damaged: a binary search of it would answer wrongly).
Result<std::optional<SortedFile>> Pack(const FileLayout& layout, int32_t level, size_t n,
                                       merge::RecordSource* records, const std::string& path) {
  SortedFile sf;
  const int c = layout.key_columns[0];
  sf.packed.emplace(layout.fields.size(), c);
  sf.level = level;
  merge::KeyValue kv;
  int64_t last = 0;
  while (true) {
    TRIB_ASSIGN_OR_RETURN(bool more, records->Next(&kv));
    if (!more) break;
    if (sf.packed->size() == 0) sf.write_mask = kv.write_mask;
    if (kv.value.size() > static_cast<size_t>(c) && kv.value[c].is_int()) {
      const int64_t key = kv.value[c].int_value();
      if (sf.packed->size() > 0 && key < last) {
        return Status::Corruption("data file '" + path + "': keys out of order at record " +
                                  std::to_string(sf.packed->size()));
      }
      last = key;
    }
    if (!sf.packed->Append(kv.sequence, kv.kind, kv.value)) return std::optional<SortedFile>();
    if (sf.packed->size() == 4096) sf.packed->Reserve(n);
  }
  if (sf.packed->size() == 0) return std::optional<SortedFile>();
  sf.packed->Finish();
  sf.bytes = 1024 + sf.packed->Bytes();
  return std::optional<SortedFile>(std::move(sf));
}

}  // namespace

Result<std::shared_ptr<const SortedFile>> LoadSortedFile(const std::string& path,
                                                         const FileLayout& layout,
                                                         const meta::DataFileMeta& f,
                                                         int64_t read_schema_id,
                                                         const std::vector<Field>* file_fields) {
  return FileCache::Instance().GetOrLoad<SortedFile>(
      "data:" + path + "#" + std::to_string(read_schema_id),
      [&]() -> Result<std::pair<SortedFile, int64_t>> {
        // A file of the read schema, no partial-column writes, is packed a slice of rows at a
        // time (OpenSlicedRecords): its records are never held as rows all at once.
        const bool packable = Packable(layout);
        const auto n = static_cast<size_t>(std::max<int64_t>(0, f.row_count));
        if (packable && file_fields == nullptr && !f.write_cols) {
          TRIB_ASSIGN_OR_RETURN(auto sliced,
                                OpenSlicedRecords({path, f.row_count}, layout, f.level));
          if (sliced) {
            TRIB_ASSIGN_OR_RETURN(std::optional<SortedFile> packed,
                                  Pack(layout, f.level, n, sliced.get(), path));
            if (packed) {
              const int64_t size = packed->bytes;
              return std::make_pair(std::move(*packed), size);
            }
          }
        }
        SortedFile sf;
        TRIB_ASSIGN_OR_RETURN(sf.records, ReadDataFile({path, f.row_count}, layout, f.level,
                                                       f.write_cols, file_fields));
        const int c = layout.key_columns.empty() ? 0 : layout.key_columns[0];
        if (packable &&
            std::all_of(sf.records.begin(), sf.records.end(),
                        [c](const merge::KeyValue& kv) { return kv.value[c].is_int(); })) {
          merge::VectorSource source(std::move(sf.records));
          TRIB_ASSIGN_OR_RETURN(std::optional<SortedFile> packed,
                                Pack(layout, f.level, n, &source, path));
          if (packed) {
            const int64_t size = packed->bytes;
            return std::make_pair(std::move(*packed), size);
          }
          return std::make_pair(SortedFile(), int64_t{1024});  // no record
        }
        if (layout.key_columns.size() == 1 &&
            layout.fields[layout.key_columns[0]].type.IsInteger()) {
          sf.int_keys.reserve(sf.records.size());
          for (const auto& kv : sf.records) {
            if (!kv.value[c].is_int()) {
              sf.int_keys.clear();
              break;
            }
            sf.int_keys.push_back(kv.value[c].int_value());
          }
        }
        sf.bytes = f.file_size * 8 + 1024 + static_cast<int64_t>(sf.int_keys.size()) * 8;
        const int64_t size = sf.bytes;
        return std::make_pair(std::move(sf), size);
      });
}

Status SearchSorted(const SortedFile& file, const FileLayout& layout, const Row& key,
                    std::vector<merge::KeyValue>* found, const std::set<int64_t>* deleted,
                    std::vector<int64_t>* positions, const std::vector<int64_t>* deleted_sorted) {
  // Record i of a sorted file is its row i: a deletion vector's positions are these indexes.
  auto take = [&](size_t i, merge::KeyValue kv) {
    if (deleted && deleted->count(static_cast<int64_t>(i))) return;
    if (deleted_sorted && std::binary_search(deleted_sorted->begin(), deleted_sorted->end(),
                                             static_cast<int64_t>(i))) {
      return;
    }
    found->push_back(std::move(kv));
    if (positions) positions->push_back(static_cast<int64_t>(i));
  };
  const auto& records = file.records;
  if (file.packed && key.size() == 1 && key[0].is_int()) {
    const auto [first, last] = file.packed->EqualRange(key[0].int_value());
    for (size_t i = first; i < last; i++) {
      TRIB_ASSIGN_OR_RETURN(auto kv, file.Record(i));
      take(i, std::move(kv));
    }
    return Status::OK();
  }
  if (!file.int_keys.empty() && key.size() == 1 && key[0].is_int()) {
    const int64_t k = key[0].int_value();
    auto it = std::lower_bound(file.int_keys.begin(), file.int_keys.end(), k);
    for (; it != file.int_keys.end() && *it == k; ++it) {
      const size_t i = static_cast<size_t>(it - file.int_keys.begin());
      TRIB_ASSIGN_OR_RETURN(auto kv, file.Record(i));
      take(i, std::move(kv));
    }
    return Status::OK();
  }
  if (file.packed) {
    // Packed, but the key is not an integer literal: compare record by record.
    for (size_t i = 0; i < file.size(); i++) {
      TRIB_ASSIGN_OR_RETURN(auto kv, file.Record(i));
      bool same = true;
      for (size_t c = 0; c < layout.key_columns.size() && same; c++) {
        same = merge::FastCompare(kv.value[layout.key_columns[c]], key[c]) == 0;
      }
      if (same) take(i, std::move(kv));
    }
    return Status::OK();
  }
  const auto& kc = layout.key_columns;
  auto less = [&](const merge::KeyValue& kv, const Row& k) {
    for (size_t i = 0; i < kc.size(); i++) {
      int c = merge::FastCompare(kv.value[kc[i]], k[i]);
      if (c != 0) return c < 0;
    }
    return false;
  };
  for (auto it = std::lower_bound(records.begin(), records.end(), key, less); it != records.end();
       ++it) {
    for (size_t i = 0; i < kc.size(); i++) {
      if (merge::FastCompare(it->value[kc[i]], key[i]) != 0) return Status::OK();
    }
    take(static_cast<size_t>(it - records.begin()), *it);
  }
  return Status::OK();
}

BucketFileSearch::BucketFileSearch(const std::string& table_path, const std::string& bucket_dir,
                                   const FileLayout& layout, const TableSchema& schema,
                                   const std::vector<meta::DataFileMeta>& files)
    : layout_(layout), schema_(schema), file_schemas_(table_path, schema.id) {
  const std::vector<DataType> key_types = layout.KeyTypes();
  for (const auto& f : files) {
    File file{&f,
              f.external_path ? meta::ResolveExternalPath(table_path, *f.external_path)
                              : io::JoinPath(bucket_dir, f.file_name),
              std::nullopt, nullptr};
    if (f.schema_id == schema.id) file.range = DecodeKeyRange(f, key_types);
    files_.push_back(std::move(file));
  }
  std::stable_sort(files_.begin(), files_.end(),
                   [](const File& a, const File& b) { return a.meta->level < b.meta->level; });
}

Status BucketFileSearch::Search(File* f, const Row& key, std::vector<merge::KeyValue>* found,
                                std::vector<int64_t>* positions) {
  if (f->range && !f->range->Contains(key)) return Status::OK();
  if (!f->sorted) {
    TRIB_ASSIGN_OR_RETURN(const std::vector<Field>* fields,
                          file_schemas_.FieldsOf(f->meta->schema_id));
    TRIB_ASSIGN_OR_RETURN(f->sorted,
                          LoadSortedFile(f->path, layout_, *f->meta, schema_.id, fields));
  }
  const std::set<int64_t>* deleted =
      deletion_vectors_ ? deletion_vectors_(f->meta->file_name) : nullptr;
  return SearchSorted(*f->sorted, layout_, key, found, deleted, positions);
}

Result<std::optional<BucketFileSearch::Positioned>> BucketFileSearch::FindNewestPositioned(
    const Row& key) {
  for (File& f : files_) {
    std::vector<merge::KeyValue> found;
    std::vector<int64_t> positions;
    TRIB_RETURN_NOT_OK(Search(&f, key, &found, &positions));
    // Files come by level: the first found is in the lowest level holding the key.
    if (!found.empty()) {
      return std::optional<Positioned>(
          Positioned{std::move(found.back()), f.meta, positions.back()});
    }
  }
  return std::optional<Positioned>();
}

Status BucketFileSearch::FindAll(const Row& key, std::vector<merge::KeyValue>* found) {
  for (File& f : files_) {
    if (f.range && !f.range->Contains(key)) continue;
    if (SearchesByPages(*f.meta, layout_, schema_.id, key) && !deletion_vectors_) {
      TRIB_ASSIGN_OR_RETURN(bool searched, FindKeyByPages(f.path, layout_, *f.meta, key, found));
      if (searched) continue;
    }
    TRIB_RETURN_NOT_OK(Search(&f, key, found));
  }
  return Status::OK();
}

Status BucketFileSearch::FindAllSorted(const std::vector<Row>& keys,
                                       std::vector<std::vector<merge::KeyValue>>* found) {
  found->assign(keys.size(), {});
  const bool int_keys =
      layout_.key_columns.size() == 1 && layout_.fields[layout_.key_columns[0]].type.IsInteger() &&
      std::all_of(keys.begin(), keys.end(), [](const Row& k) { return k[0].is_int(); });
  const int key_column = layout_.key_columns.empty() ? 0 : layout_.key_columns[0];
  for (File& f : files_) {
    // The keys the file's key range may hold.
    std::vector<size_t> in_range;
    for (size_t i = 0; i < keys.size(); i++) {
      if (!f.range || f.range->Contains(keys[i])) in_range.push_back(i);
    }
    if (in_range.empty()) continue;
    // (Not with deletion vectors: the column search does not know row positions to skip.)
    if (int_keys && f.meta->schema_id == schema_.id && !f.meta->write_cols && !deletion_vectors_) {
      std::vector<int64_t> wanted;
      wanted.reserve(in_range.size());
      for (size_t i : in_range) wanted.push_back(keys[i][0].int_value());
      TRIB_ASSIGN_OR_RETURN(auto records, FindIntKeysInFile({f.path, f.meta->row_count}, layout_,
                                                            f.meta->level, wanted));
      if (records) {
        // In key order, each key at most once.
        size_t w = 0;
        for (auto& kv : *records) {
          const int64_t k = kv.value[key_column].int_value();
          while (w < wanted.size() && wanted[w] != k) w++;
          if (w == wanted.size())
            return Status::Corruption("data file '" + f.path + "': keys out of order");
          (*found)[in_range[w]].push_back(std::move(kv));
        }
        continue;
      }
    }
    for (size_t i : in_range) TRIB_RETURN_NOT_OK(Search(&f, keys[i], &(*found)[i]));
  }
  return Status::OK();
}

Result<std::optional<merge::KeyValue>> BucketFileSearch::FindNewest(const Row& key) {
  std::vector<merge::KeyValue> found;
  for (File& f : files_) {
    TRIB_RETURN_NOT_OK(Search(&f, key, &found));
    // Files come by level: the first found is in the lowest level holding the key.
    if (!found.empty()) return std::optional<merge::KeyValue>(std::move(found.back()));
  }
  return std::optional<merge::KeyValue>();
}

Status FindKeyInFile(const std::string& path, const FileLayout& layout, const meta::DataFileMeta& f,
                     int64_t read_schema_id, const std::vector<Field>* file_fields, const Row& key,
                     std::vector<merge::KeyValue>* found) {
  if (f.schema_id == read_schema_id) {
    auto range = DecodeKeyRange(f, layout.KeyTypes());
    if (range && !range->Contains(key)) return Status::OK();
  }
  if (SearchesByPages(f, layout, read_schema_id, key)) {
    TRIB_ASSIGN_OR_RETURN(bool searched, FindKeyByPages(path, layout, f, key, found));
    if (searched) return Status::OK();
  }
  TRIB_ASSIGN_OR_RETURN(auto records, LoadSortedFile(path, layout, f, read_schema_id, file_fields));
  return SearchSorted(*records, layout, key, found);
}

Result<std::optional<Row>> MergeFound(std::vector<merge::KeyValue> found,
                                      const std::shared_ptr<const merge::MergeConfig>& config,
                                      merge::MergeFunction* fn) {
  if (found.empty()) return std::optional<Row>();
  if (found.size() == 1 && !found[0].write_mask &&
      (config->engine == "deduplicate" || config->engine == "first-row")) {
    // One whole record: it is the result (or the key's deletion).
    if (IsRetract(found[0].kind)) return std::optional<Row>();
    return std::optional<Row>(std::move(found[0].value));
  }
  merge::SequenceOrder order(config);
  std::stable_sort(found.begin(), found.end(),
                   [&](const auto& a, const auto& b) { return order.Compare(a, b) < 0; });
  fn->Reset();
  for (const auto& kv : found) TRIB_RETURN_NOT_OK(fn->Add(kv));
  TRIB_RETURN_NOT_OK(fn->Complete());
  auto r = fn->Result();
  if (!r || IsRetract(r->kind)) return std::optional<Row>();
  return std::optional<Row>(std::move(r->value));
}

}  // namespace tributary::datafile
