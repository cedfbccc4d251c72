// The two steps of a point lookup, shared by TableLookup and by scans filtered on the whole
// primary key: find a key's records in one data file, then merge them.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "datafile/data_file.h"
#include "datafile/packed_records.h"
#include "merge/key_value.h"
#include "merge/merge_config.h"
#include "merge/merge_function.h"
#include "meta/schema_manager.h"

namespace tributary::datafile {

// Appends to `found` the records of `key` (values of the trimmed primary key) in data file `f`
// at `path`. Files whose key range excludes the key are skipped unread; others are decoded once
// into the process-wide file cache (they are immutable) and binary-searched.
// `read_schema_id`/`file_fields`: as ReadDataFile (file_fields set when `f` has an older schema).
Status FindKeyInFile(const std::string& path, const FileLayout& layout, const meta::DataFileMeta& f,
                     int64_t read_schema_id, const std::vector<Field>* file_fields, const Row& key,
                     std::vector<merge::KeyValue>* found);

// Whether a lookup of `key` in data file `f` reads the file by its page index
// (FindKeysByPages) instead of decoding it whole into the file cache: when, at 64 bytes a
// record, it would take more than an eighth of the cache (524,288 rows of the default 256 MiB),
// several such files would not stay in the cache together and every lookup would decode one
// whole again (issue 38), and its first key column is an integer, string or binary column.
bool SearchesByPages(const meta::DataFileMeta& f, const FileLayout& layout, int64_t read_schema_id,
                     const Row& key);
// The records of `key` in data file `f` at `path` by its page index, appended to `found` (their
// rows to `positions`, if given) unless a row of `deleted` (ascending); false, appending
// nothing, when the file has no usable page index.
Result<bool> FindKeyByPages(const std::string& path, const FileLayout& layout,
                            const meta::DataFileMeta& f, const Row& key,
                            std::vector<merge::KeyValue>* found,
                            const std::set<int64_t>* deleted = nullptr);

// The records of one data file sorted by key. When the trimmed primary key is a single integer
// column and no column is nested, the records are packed (PackedRecords: about the bytes their
// values take, a lookup walks at most a block of them) and decoded when found; otherwise they
// are rows, with their keys in one array when the key is one integer column.
struct SortedFile {
  std::vector<merge::KeyValue> records;  // unpacked records (empty when packed)
  std::vector<int64_t> int_keys;         // record i's key; empty when the key is not one integer
  std::optional<PackedRecords> packed;   // set when packed
  int32_t level = 0;
  std::shared_ptr<const std::vector<bool>> write_mask;
  int64_t bytes = 0;  // what the file cache charges it (about what it holds)

  size_t size() const { return packed ? packed->size() : records.size(); }
  // Record i (decoded when packed).
  Result<merge::KeyValue> Record(size_t i) const;
};

// Data file `f` as a SortedFile, from the process-wide file cache (decoded on first use; files
// are immutable).
Result<std::shared_ptr<const SortedFile>> LoadSortedFile(const std::string& path,
                                                         const FileLayout& layout,
                                                         const meta::DataFileMeta& f,
                                                         int64_t read_schema_id,
                                                         const std::vector<Field>* file_fields);

// Appends to `found` the records of `key` in `file` (sorted by key, one per key).
// `deleted` / `deleted_sorted` (ascending): row positions a deletion vector deletes, skipped.
Status SearchSorted(const SortedFile& file, const FileLayout& layout, const Row& key,
                    std::vector<merge::KeyValue>* found, const std::set<int64_t>* deleted = nullptr,
                    std::vector<int64_t>* positions = nullptr,
                    const std::vector<int64_t>* deleted_sorted = nullptr);

// A key's records in some committed files of one bucket: files whose key range excludes the
// key are skipped unread, the others decoded once (LoadSortedFile) and binary-searched.
// Thread-safety: single-threaded (the decoded files are shared through the process-wide cache).
class BucketFileSearch {
 public:
  // `schema`: the schema the records are read with (files of older schemas are cast to it).
  // `layout`, `schema` and `files` are borrowed and must outlive the search.
  BucketFileSearch(const std::string& table_path, const std::string& bucket_dir,
                   const FileLayout& layout, const TableSchema& schema,
                   const std::vector<meta::DataFileMeta>& files);
  // Appends the key's records in every file to `found`. `key`: values of the trimmed primary key.
  Status FindAll(const Row& key, std::vector<merge::KeyValue>* found);
  // The same for many keys (ascending, each once): (*found)[i] gets the records of keys[i]. In a
  // Parquet file of the read schema an integer key is found by the file's key columns alone and
  // only the found rows are decoded (FindIntKeysInFile); other files are searched key by key.
  Status FindAllSorted(const std::vector<Row>& keys,
                       std::vector<std::vector<merge::KeyValue>>* found);
  // The key's record in the lowest level holding it (REQUIRES: files above level 0, one sorted
  // run per level), or nullopt.
  Result<std::optional<merge::KeyValue>> FindNewest(const Row& key);
  // Deletion vectors: the deleted row positions of a file (by name), or null; the searches then
  // skip those rows, as a reader of a deletion-vector table does.
  void SetDeletionVectors(std::function<const std::set<int64_t>*(const std::string& file)> dvs) {
    deletion_vectors_ = std::move(dvs);
  }
  // FindNewest, with where the record is: its file and its row position there (what a
  // deletion vector marks when a newer record replaces it).
  struct Positioned {
    merge::KeyValue record;
    const meta::DataFileMeta* file = nullptr;
    int64_t position = 0;
  };
  Result<std::optional<Positioned>> FindNewestPositioned(const Row& key);

 private:
  struct File {
    const meta::DataFileMeta* meta;
    std::string path;
    std::optional<KeyRange> range;
    std::shared_ptr<const SortedFile> sorted;
  };
  // `positions`, if set, gets each found record's row position in the file.
  Status Search(File* f, const Row& key, std::vector<merge::KeyValue>* found,
                std::vector<int64_t>* positions = nullptr);

  const FileLayout& layout_;
  const TableSchema& schema_;
  meta::FileSchemas file_schemas_;
  std::vector<File> files_;  // by level, then as given
  std::function<const std::set<int64_t>*(const std::string&)> deletion_vectors_;
};

// Orders `found` by sequence and merges it with `fn`; the row if the key is live.
Result<std::optional<Row>> MergeFound(std::vector<merge::KeyValue> found,
                                      const std::shared_ptr<const merge::MergeConfig>& config,
                                      merge::MergeFunction* fn);

}  // namespace tributary::datafile
