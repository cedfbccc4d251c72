// DynamicBucketAssigner: dynamic bucket mode ('bucket' = '-1' on a primary-key table). Each
// partition keeps an index from key hash (the trimmed primary key's BinaryRow hash) to bucket,
// persisted as Paimon's HASH index files (4-byte big-endian hashes, one file per bucket, listed in
// the index manifest). A key keeps the bucket it was first given; a new key goes to the first
// bucket holding fewer than 'dynamic-bucket.target-row-num' keys, else to a new bucket.
// One writer per table at a time, as in Paimon: the assigner holds an exclusive lock on the
// table (flock on <table>/.dynamic-bucket.lock) from its first assignment until Release().
// Not thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "meta/manifest.h"
#include "tributary/result.h"

namespace tributary::write {

// A hold of a table's bucket-layout lock (<table>/.bucket-layout.lock, flock): fixed-bucket
// writers hold it shared from checking their partitions' bucket counts to the end of their
// commit, a rescale (an OVERWRITE into another count) exclusively for its commit, so a rescale
// never lands between a writer's check and its commit. Released when destroyed.
class BucketLayoutLock {
 public:
  static Result<std::unique_ptr<BucketLayoutLock>> Take(const std::string& table_path,
                                                        bool exclusive);
  ~BucketLayoutLock();
  BucketLayoutLock(const BucketLayoutLock&) = delete;
  BucketLayoutLock& operator=(const BucketLayoutLock&) = delete;

 private:
  explicit BucketLayoutLock(int fd) : fd_(fd) {}
  int fd_;
};

class DynamicBucketAssigner {
 public:
  // `max_buckets` ('dynamic-bucket.max-buckets', -1: none): bucket ids stay below it, and once a
  // partition has that many, a new key goes to one of them (by its hash) whatever its size.
  DynamicBucketAssigner(std::string table_path, int64_t target_rows, int32_t initial_buckets,
                        int32_t max_buckets = -1)
      : table_path_(std::move(table_path)),
        target_rows_(target_rows),
        initial_buckets_(max_buckets > 0 ? std::min(initial_buckets, max_buckets)
                                         : initial_buckets),
        max_buckets_(max_buckets) {}
  ~DynamicBucketAssigner();

  // The bucket of a key in `partition` (serialized BinaryRow). `overwrite`: the partition is
  // being rewritten, so its old assignments are dropped.
  Result<int32_t> Assign(const std::string& partition, int32_t key_hash, bool overwrite);

  // Takes the table lock as the first assignment does (no other writer changes the table while
  // it is held): what a caller reads from the table now stays true until the next Retain or
  // Release.
  Status Hold();

  // Writes the HASH index files of every bucket that gained keys and returns the index manifest
  // changes (ADD new files, DELETE the files they replace). Written files are remembered for
  // Abort().
  Result<std::vector<meta::IndexManifestEntry>> Flush();

  // Forgets every assignment, deletes files Flush() wrote (on failure) when `delete_files`,
  // and releases the table lock.
  void Release(bool delete_files);

  // After a successful commit whose snapshot lists `index_manifest`: releases the table lock
  // but keeps the assignments in memory. The next assignment takes the lock again and keeps
  // them only if the latest snapshot still lists that index manifest (no other writer changed
  // the index meanwhile); otherwise they are read again from the index files.
  void Retain(const std::optional<std::string>& index_manifest);

 private:
  struct PartitionIndex {
    absl::flat_hash_map<int32_t, int32_t> bucket_of;  // open addressing: one probe, no node
    std::map<int32_t, std::vector<int32_t>> hashes;   // bucket -> hashes
    std::map<int32_t, std::string> files;             // bucket -> current HASH index file
    std::set<int32_t> dirty;
    bool overwritten = false;
  };
  Status Lock();
  void Unlock();
  // Takes the lock again after Retain, dropping the retained assignments if they are stale.
  Status Revalidate();
  Result<PartitionIndex*> Load(const std::string& partition, bool overwrite);

  std::string table_path_;
  int64_t target_rows_;
  int32_t initial_buckets_;
  int32_t max_buckets_;
  int lock_fd_ = -1;
  bool loaded_manifest_ = false;
  std::vector<meta::IndexManifestEntry> latest_;  // HASH entries of the latest snapshot
  std::map<std::string, PartitionIndex> partitions_;
  std::string last_partition_;  // Load's last hit (a map node: stable until Release)
  PartitionIndex* last_ = nullptr;
  std::vector<std::string> written_;
  // Flush's new index files (partition, bucket, file), applied to `files` by Retain.
  std::vector<std::tuple<std::string, int32_t, std::string>> flushed_;
  std::optional<std::optional<std::string>> retained_;  // the index manifest Retain saw
};

}  // namespace tributary::write
