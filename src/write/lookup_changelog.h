// The 'lookup' changelog producer: at each commit, the records this commit wrote to a bucket are
// merged, key by key, with the key's current value (looked up in the bucket's committed files),
// and the exact change is written to changelog files: +I for a new key, -U(before) +U(after) for
// a changed one, -D(before) for a removed one (Paimon's LookupChangelogMergeFunctionWrapper;
// first-row emits +I for new keys only, FirstRowMergeFunctionWrapper).
// Thread-safety: stateless; buckets may be processed on several threads at once.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "datafile/data_file.h"
#include "merge/merge_config.h"
#include "meta/manifest.h"
#include "meta/paths.h"
#include "options/core_options.h"

namespace tributary::write {

// The values one writer's commits left for the keys of one bucket: the before-images of its next
// commit, found without searching the files, as long as nothing else commits to the table in
// between (the writer clears it otherwise). Entries are packed rows (flat columns only) or
// "absent"; all buckets of a writer share one memory budget ('lookup.cache-max-memory-size'),
// and a bucket whose entries would pass it forgets them all.
// Thread-safety: one thread per bucket at a time; the budget is shared atomically.
class LookupValueCache {
 public:
  struct Entry {
    int64_t sequence = 0;
    std::optional<std::string> row;  // packed (format::EncodeBinaryRow); nullopt: absent
  };
  // A key: one integer column as itself, any other as its packed BinaryRow.
  struct Key {
    int64_t int_key = 0;
    std::string bytes;
    bool is_int = false;
  };
  LookupValueCache(std::atomic<int64_t>* used, int64_t budget);
  ~LookupValueCache();
  // The packed face: Find and Put (UsePacked first: it clears the columnar face).
  void UsePacked();
  const Entry* Find(const Key& key) const;
  void Put(const Key& key, Entry e);
  // The columnar face (deduplicate tables with one integer key column and flat columns): each
  // key's value is a row of column vectors, or known absent (lookup_changelog.cc). Taking it
  // clears the packed face.
  struct ColumnFace;
  ColumnFace& UseColumns();
  // The columnar face now takes `bytes`: false, with the face cleared, past the budget.
  bool ResizeColumns(int64_t bytes);
  void Clear();
  // Publishes the bytes added since the last call to the shared budget (Put counts them
  // locally: one atomic update per commit, not per key).
  void Settle();

 private:
  struct Maps;
  std::unique_ptr<Maps> maps_;
  std::unique_ptr<ColumnFace> face_;
  std::atomic<int64_t>* used_;
  int64_t budget_;
  int64_t bytes_ = 0;      // held by this cache
  int64_t unsettled_ = 0;  // of bytes_, not yet added to *used_
};

struct LookupChangelogInput {
  std::string table_path;
  const TableSchema* schema = nullptr;
  const datafile::FileLayout* layout = nullptr;
  std::shared_ptr<const merge::MergeConfig> merge_config;
  const options::FileFormatOptions* format = nullptr;
  std::string bucket_dir;
  // The bucket's files as the latest snapshot has them (the "before" of every key).
  const std::vector<meta::DataFileMeta>* committed = nullptr;
  // A deletion-vector table's: the deleted rows of a committed file (by name), or null.
  std::function<const std::set<int64_t>*(const std::string& file)> deletion_vectors;
  // This commit's level-0 files of the bucket (their records, merged with the before values, give
  // the "after").
  const std::vector<meta::DataFileMeta>* new_files = nullptr;
  // When given, the records of every file in `new_files` as the flush that wrote them merged
  // them (deduplicate: the buffer's columns and their merge), read instead of the files.
  const std::vector<ColumnVector>* flushed_columns = nullptr;
  const merge::ColumnMergeOutput* flushed_merge = nullptr;
  // 'changelog-producer.row-deduplicate': no -U/+U pair whose rows are equal (ignoring
  // `ignore_fields`, 'changelog-producer.row-deduplicate-ignore-fields').
  bool row_deduplicate = false;
  std::set<std::string> ignore_fields;
  int64_t target_file_size = 0;
  // The writer's values of the bucket's keys (valid for `committed`), updated with this
  // commit's; null: none kept.
  LookupValueCache* cache = nullptr;
};

// Writes the bucket's changelog files (none when nothing changed) and returns their metas.
Result<std::vector<meta::DataFileMeta>> WriteLookupChangelog(const LookupChangelogInput& in,
                                                             meta::FileNamer* namer);

}  // namespace tributary::write
