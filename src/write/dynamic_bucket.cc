#include "write/dynamic_bucket.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "format/compression.h"
#include "io/file_system.h"
#include "meta/paths.h"
#include "meta/snapshot.h"

namespace tributary::write {
namespace {

// HASH index files Tributary writes carry the CRC-32 of their bytes at the end of their name
// ("index-<uuid>-<n>-c<8 hex digits>"): Paimon's readers take the name from the index manifest
// and never parse it, and a damaged file is found before it sends a key to a second bucket.
// Files written elsewhere have no such name and are checked by their size alone.
constexpr std::string_view kCrcTag = "-c";
std::string HashIndexFileName(const std::string& base, std::string_view bytes) {
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", format::Crc32(bytes));
  return base + std::string(kCrcTag) + hex;
}

Status CheckHashIndexFile(const std::string& path, const meta::IndexManifestEntry& e,
                          std::string_view bytes) {
  auto damaged = [&](const std::string& why) {
    return Status::Corruption("HASH index file '" + path + "' is damaged (" + why +
                              "); the "
                              "bucket of keys cannot be told, so nothing is written. Restore the "
                              "file, or rewrite the table (INSERT OVERWRITE) to index it anew");
  };
  if (bytes.size() % 4 != 0) return damaged("not a sequence of 4-byte ints");
  if (e.row_count >= 0 && static_cast<int64_t>(bytes.size()) != e.row_count * 4) {
    return damaged(std::to_string(bytes.size()) + " bytes for " + std::to_string(e.row_count) +
                   " keys");
  }
  const std::string& name = e.file_name;
  const size_t tag = name.size() >= 10 ? name.size() - 10 : std::string::npos;
  if (tag != std::string::npos && name.compare(tag, 2, kCrcTag) == 0 &&
      std::all_of(name.begin() + static_cast<std::ptrdiff_t>(tag) + 2, name.end(),
                  [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; })) {
    const uint32_t stored = static_cast<uint32_t>(std::stoul(name.substr(tag + 2), nullptr, 16));
    if (stored != format::Crc32(bytes)) return damaged("its checksum does not match its bytes");
  }
  return Status::OK();
}

// The lock files live in the table's directory, which is never made again here: a writer of a
// table dropped under it fails instead of leaving a directory behind.
Status RequireTableDir(const std::string& table_path) {
  // (On object storage the lock files live on this machine's disk: nothing is made again.)
  if (io::IsObjectStoreUri(table_path)) return Status::OK();
  TRIB_ASSIGN_OR_RETURN(bool exists, io::LocalFs().Exists(table_path));
  if (exists) return Status::OK();
  return Status::NotFound("the table at '" + table_path + "' no longer exists (dropped)");
}

// Where a lock file of the table lives: in its directory on a local disk; for a table on object
// storage (which has no locks) in this machine's temporary directory, so that writers of one
// machine still take turns (writers on several machines are not serialised: one writer of a
// dynamic-bucket table at a time, as Paimon requires).
Result<std::string> LockPath(const std::string& table_path, const char* name) {
  if (!io::IsObjectStoreUri(table_path)) return io::JoinPath(table_path, name);
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = io::JoinPath(tmp != nullptr && *tmp ? tmp : "/tmp", "tributary-locks");
  TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(dir));
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(std::hash<std::string>{}(table_path)));
  return io::JoinPath(dir, std::string(hash) + name);
}
}  // namespace

Result<std::unique_ptr<BucketLayoutLock>> BucketLayoutLock::Take(const std::string& table_path,
                                                                 bool exclusive) {
  TRIB_RETURN_NOT_OK(RequireTableDir(table_path));
  TRIB_ASSIGN_OR_RETURN(const std::string path, LockPath(table_path, ".bucket-layout.lock"));
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError("cannot open '" + path + "': " + std::strerror(errno));
  const int kTimeoutMs = 120000;
  for (int waited = 0; ::flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0; waited += 5) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      ::close(fd);
      return Status::IOError("cannot lock '" + path + "': " + std::strerror(errno));
    }
    if (waited >= kTimeoutMs) {
      ::close(fd);
      return Status::Conflict("the bucket layout of table '" + table_path + "' stayed locked for " +
                              std::to_string(kTimeoutMs / 1000) +
                              " s (a rescale or writers "
                              "committing)");
    }
    ::usleep(5000);
  }
  return std::unique_ptr<BucketLayoutLock>(new BucketLayoutLock(fd));
}

BucketLayoutLock::~BucketLayoutLock() {
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
}

DynamicBucketAssigner::~DynamicBucketAssigner() { Release(false); }

Status DynamicBucketAssigner::Lock() {
  if (lock_fd_ >= 0) return Status::OK();
  TRIB_RETURN_NOT_OK(RequireTableDir(table_path_));
  TRIB_ASSIGN_OR_RETURN(const std::string path, LockPath(table_path_, ".dynamic-bucket.lock"));
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError("cannot open '" + path + "': " + std::strerror(errno));
  // Wait for the writer that holds the table, but not forever (two writers of one process on
  // one table would otherwise wait for each other).
  const int kTimeoutMs = 120000;
  for (int waited = 0; ::flock(fd, LOCK_EX | LOCK_NB) != 0; waited += 10) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      ::close(fd);
      return Status::IOError("cannot lock '" + path + "': " + std::strerror(errno));
    }
    if (waited >= kTimeoutMs) {
      ::close(fd);
      return Status::Conflict("another writer has held dynamic-bucket table '" + table_path_ +
                              "' for " + std::to_string(kTimeoutMs / 1000) +
                              " s; dynamic bucket mode allows one writer per table at a time");
    }
    ::usleep(10000);
  }
  lock_fd_ = fd;
  return Status::OK();
}

Status DynamicBucketAssigner::Revalidate() {
  TRIB_RETURN_NOT_OK(Lock());
  meta::SnapshotManager snapshots(table_path_);
  TRIB_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
  std::optional<std::string> current;
  if (latest) {
    TRIB_ASSIGN_OR_RETURN(auto snap, snapshots.Read(*latest));
    current = snap->index_manifest;
  }
  if (current != *retained_) {
    partitions_.clear();  // another writer changed the index: read it again
    last_ = nullptr;
  }
  retained_.reset();
  return Status::OK();
}

Status DynamicBucketAssigner::Hold() {
  if (retained_) return Revalidate();
  return Lock();
}

Result<DynamicBucketAssigner::PartitionIndex*> DynamicBucketAssigner::Load(
    const std::string& partition, bool overwrite) {
  if (retained_) TRIB_RETURN_NOT_OK(Revalidate());
  // Rows mostly come partition after partition: the last one is looked up without the map.
  if (last_ && last_partition_ == partition) return last_;
  auto it = partitions_.find(partition);
  if (it != partitions_.end()) {
    last_partition_ = partition;
    last_ = &it->second;
    return last_;
  }
  TRIB_RETURN_NOT_OK(Lock());
  if (!loaded_manifest_) {
    // Under the lock: the latest snapshot's index is the one no other writer is changing.
    meta::SnapshotManager snapshots(table_path_);
    TRIB_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
    if (latest) {
      TRIB_ASSIGN_OR_RETURN(auto snap, snapshots.Read(*latest));
      if (snap->index_manifest) {
        std::string path = meta::ManifestPath(table_path_, *snap->index_manifest);
        TRIB_ASSIGN_OR_RETURN(std::string bytes, io::LocalFs().ReadFile(path));
        TRIB_ASSIGN_OR_RETURN(auto entries, meta::DecodeIndexManifest(
                                                std::move(bytes), "index manifest '" + path + "'"));
        for (auto& e : entries) {
          if (e.index_type != "HASH") continue;
          if (e.kind == meta::FileKind::kDelete) {
            std::erase_if(latest_, [&](const auto& l) { return l.file_name == e.file_name; });
          } else {
            latest_.push_back(std::move(e));
          }
        }
      }
    }
    loaded_manifest_ = true;
  }
  PartitionIndex& p = partitions_[partition];
  p.overwritten = overwrite;
  for (const auto& e : latest_) {
    if (e.partition != partition) continue;
    p.files[e.bucket] = e.file_name;
    if (overwrite) continue;  // old assignments do not survive a rewrite of the partition
    std::string path = meta::IndexPath(table_path_, e.file_name);
    TRIB_ASSIGN_OR_RETURN(std::string bytes, io::LocalFs().ReadFile(path));
    TRIB_RETURN_NOT_OK(CheckHashIndexFile(path, e, bytes));
    auto& hashes = p.hashes[e.bucket];
    for (size_t i = 0; i < bytes.size(); i += 4) {
      int32_t h =
          static_cast<int32_t>((static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << 24) |
                               (static_cast<uint32_t>(static_cast<uint8_t>(bytes[i + 1])) << 16) |
                               (static_cast<uint32_t>(static_cast<uint8_t>(bytes[i + 2])) << 8) |
                               static_cast<uint32_t>(static_cast<uint8_t>(bytes[i + 3])));
      p.bucket_of[h] = e.bucket;
      hashes.push_back(h);
    }
  }
  return &p;
}

Result<int32_t> DynamicBucketAssigner::Assign(const std::string& partition, int32_t key_hash,
                                              bool overwrite) {
  TRIB_ASSIGN_OR_RETURN(PartitionIndex * p, Load(partition, overwrite));
  auto it = p->bucket_of.find(key_hash);
  if (it != p->bucket_of.end()) return it->second;
  auto has_room = [&](int32_t b) {
    auto h = p->hashes.find(b);
    return h == p->hashes.end() || static_cast<int64_t>(h->second.size()) < target_rows_;
  };
  int32_t bucket = -1;
  if (initial_buckets_ > 0) {
    int32_t b = key_hash % initial_buckets_;
    if (b < 0) b = -b;
    if (has_room(b)) bucket = b;
  }
  if (bucket < 0) {
    for (const auto& [b, hashes] : p->hashes) {
      if (static_cast<int64_t>(hashes.size()) < target_rows_) {
        bucket = b;
        break;
      }
    }
  }
  if (bucket < 0) {
    bucket = 0;
    while (p->hashes.count(bucket)) bucket++;  // the smallest unused bucket id
    if (max_buckets_ > 0 && bucket >= max_buckets_) {
      // 'dynamic-bucket.max-buckets' reached: one of the partition's buckets, by the key's hash
      // (Paimon picks one at random).
      std::vector<int32_t> ids;
      for (const auto& [b, hashes] : p->hashes) {
        if (b < max_buckets_) ids.push_back(b);
      }
      const uint32_t h = static_cast<uint32_t>(key_hash);
      bucket = ids.empty() ? 0 : ids[h % ids.size()];
    }
  }
  p->bucket_of[key_hash] = bucket;
  p->hashes[bucket].push_back(key_hash);
  p->dirty.insert(bucket);
  return bucket;
}

Result<std::vector<meta::IndexManifestEntry>> DynamicBucketAssigner::Flush() {
  std::vector<meta::IndexManifestEntry> changes;
  meta::FileNamer namer("index-", "");
  std::string dir = meta::IndexDir(table_path_);
  for (auto& [partition, p] : partitions_) {
    if (p.overwritten) {
      // The whole partition is rewritten: every old HASH file goes.
      for (const auto& [b, f] : p.files) {
        if (p.hashes.count(b)) continue;
        meta::IndexManifestEntry del;
        del.kind = meta::FileKind::kDelete;
        del.partition = partition;
        del.bucket = b;
        del.index_type = "HASH";
        del.file_name = f;
        changes.push_back(std::move(del));
      }
    }
    for (int32_t b : p.dirty) {
      const auto& hashes = p.hashes[b];
      std::string bytes;
      bytes.reserve(hashes.size() * 4);
      for (int32_t h : hashes) {
        uint32_t u = static_cast<uint32_t>(h);
        bytes += static_cast<char>(u >> 24);
        bytes += static_cast<char>(u >> 16);
        bytes += static_cast<char>(u >> 8);
        bytes += static_cast<char>(u);
      }
      std::string name = HashIndexFileName(namer.Next(), bytes);
      TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(dir));
      TRIB_RETURN_NOT_OK(io::LocalFs().WriteFile(io::JoinPath(dir, name), bytes));
      written_.push_back(name);
      flushed_.emplace_back(partition, b, name);
      if (auto old = p.files.find(b); old != p.files.end()) {
        meta::IndexManifestEntry del;
        del.kind = meta::FileKind::kDelete;
        del.partition = partition;
        del.bucket = b;
        del.index_type = "HASH";
        del.file_name = old->second;
        changes.push_back(std::move(del));
      }
      meta::IndexManifestEntry add;
      add.partition = partition;
      add.bucket = b;
      add.index_type = "HASH";
      add.file_name = name;
      add.file_size = static_cast<int64_t>(bytes.size());
      add.row_count = static_cast<int64_t>(hashes.size());
      changes.push_back(std::move(add));
    }
  }
  return changes;
}

void DynamicBucketAssigner::Unlock() {
  if (lock_fd_ < 0) return;
  ::flock(lock_fd_, LOCK_UN);
  ::close(lock_fd_);
  lock_fd_ = -1;
}

void DynamicBucketAssigner::Retain(const std::optional<std::string>& index_manifest) {
  if (lock_fd_ < 0) {
    // Nothing was assigned since the last Retain (the lock was never taken again): the commit
    // changed no index file, and the index manifest it lists may come from another writer, so
    // the one seen last stays the one to check against.
    return;
  }
  for (const auto& [partition, bucket, file] : flushed_)
    partitions_[partition].files[bucket] = file;
  flushed_.clear();
  for (auto it = partitions_.begin(); it != partitions_.end();) {
    it->second.dirty.clear();
    // A rewritten partition's old files are gone from the index: read it again next time.
    it = it->second.overwritten ? partitions_.erase(it) : std::next(it);
  }
  last_ = nullptr;
  written_.clear();
  latest_.clear();
  loaded_manifest_ = false;
  retained_ = index_manifest;
  Unlock();
}

void DynamicBucketAssigner::Release(bool delete_files) {
  flushed_.clear();
  retained_.reset();
  if (delete_files) {
    for (const auto& f : written_) {
      (void)io::LocalFs().Remove(meta::IndexPath(table_path_, f));
    }
  }
  written_.clear();
  partitions_.clear();
  last_ = nullptr;
  latest_.clear();
  loaded_manifest_ = false;
  Unlock();
}

}  // namespace tributary::write
