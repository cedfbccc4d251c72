// FileSystem: the file operations storage needs, behind an interface so tests can inject faults
// (io/fault_injection.h). LocalFileSystem is the POSIX implementation. Thread-safety:
// implementations are thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/file_parts.h"
#include "tributary/result.h"

namespace tributary::io {

class MappedFile;

struct FileInfo {
  std::string name;  // base name
  bool is_dir = false;
  int64_t size = 0;
  int64_t mtime_millis = 0;  // last modification, milliseconds since the epoch
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  virtual Result<std::string> ReadFile(const std::string& path) = 0;
  // `length` bytes of the file at `offset` (fewer where the file ends first): a ranged GET on
  // object storage.
  virtual Result<std::string> ReadRange(const std::string& path, int64_t offset, int64_t length);
  // The file's size and its last `length` bytes (the whole file when it is shorter): one ranged
  // GET on object storage.
  virtual Result<std::pair<int64_t, std::string>> ReadTail(const std::string& path, int64_t length);
  // Writes a new file (or replaces it) durably: write to a temp file, fsync, rename, fsync dir.
  virtual Status WriteFile(const std::string& path, std::string_view data) = 0;
  // Writes a file under a name never used before and never replaced (a data file, a manifest,
  // an index file): on a local disk its bytes and directory entry are made durable by the next
  // WriteFileIfAbsent of this process (the commit that publishes a snapshot naming it), for all
  // such files at once: no temporary file, no rename, no fsync of its own. A crash before that
  // leaves at most an unreferenced (possibly partial) file under that name (orphan cleanup
  // removes it). WriteFile by default.
  virtual Status WriteNewFile(const std::string& path, std::string_view data) {
    return WriteFile(path, data);
  }
  // WriteNewFile of the file whose bytes are `*parts` joined: a local disk writes the parts as
  // they are (writev), never joining them in memory; by default (object storage signs and sends
  // one body) they are joined into one part, each released as it is copied, and written with
  // WriteNewFile. Either way *parts holds the file's bytes after.
  virtual Status WriteNewFileParts(const std::string& path, FileParts* parts);
  // Publishes `data` at `path` only if nothing exists there (link(2) of a synced temp file),
  // first making durable the files WriteNewFile wrote and their directories.
  // Returns false, writing nothing, if `path` already exists.
  virtual Result<bool> WriteFileIfAbsent(const std::string& path, std::string_view data) = 0;
  // Publishes at `path` a second file with the bytes of `from`, a file WriteFile wrote, which
  // are `data`: a hard link where the file system has them (no bytes written twice), else as
  // WriteFile. Either way `path` is durable and independent of `from` (removing one leaves
  // the other).
  virtual Status WriteCopy(const std::string& from, const std::string& path, const FileParts& data);
  virtual Result<bool> Exists(const std::string& path) = 0;
  // Whether a file (not a directory) exists at `path`: Exists by default; on object storage one
  // HEAD request, where Exists must also list to find a "directory" (a key prefix).
  virtual Result<bool> FileExists(const std::string& path) { return Exists(path); }
  // What identifies this version of the file (device, inode, size, modification time in ns), or
  // nullopt when it does not exist: a file replaced by rename, rewritten or re-created under the
  // same name gets another one. Lets caches of files whose names are reused (snapshot-N,
  // LATEST) check for the price of a stat.
  virtual Result<std::optional<std::string>> Version(const std::string& path) = 0;
  // The file's bytes and the Version they are (nullopt when that is not known, e.g. the file
  // changed while it was read): on object storage one GET, the version from its headers.
  virtual Result<std::pair<std::string, std::optional<std::string>>> ReadFileVersioned(
      const std::string& path);
  virtual Result<std::vector<FileInfo>> ListDir(const std::string& path) = 0;
  virtual Status MakeDirs(const std::string& path) = 0;
  // Makes a directory that must exist while empty (a database): MakeDirs by default; on object
  // storage, where a directory is a key prefix, a zero-byte object "<path>/" (the marker Hadoop's
  // S3A writes for an empty directory, so Paimon on Flink or Spark sees the database too).
  virtual Status MakeDirMarker(const std::string& path) { return MakeDirs(path); }
  // Removes a file; a missing file is not an error.
  virtual Status Remove(const std::string& path) = 0;
  // Removes the files at `paths`; missing ones are not an error. Remove for each by default; on
  // object storage batched, up to 1000 keys a request (DeleteObjects), for expiration and
  // orphan cleanup. No order among them: a caller that needs one removes one at a time.
  virtual Status RemoveFiles(const std::vector<std::string>& paths);
  // Removes a directory tree; a missing directory is not an error.
  virtual Status RemoveAll(const std::string& path) = 0;
  // Removes a directory if it is empty. True when it is gone (removed, or missing), false when
  // it holds something.
  virtual Result<bool> RemoveDirIfEmpty(const std::string& path);
  virtual Result<int64_t> FileSize(const std::string& path) = 0;
  // The whole file mapped read-only, or read when it is smaller than `read_below` bytes (data
  // files; MappedFile::Open by default).
  virtual Result<std::shared_ptr<const MappedFile>> MapFile(const std::string& path,
                                                            size_t read_below);
  // Moves the directory tree `from` to `to`, which must not exist (rename(2) locally: atomic;
  // object storage copies then deletes).
  virtual Status RenameDir(const std::string& from, const std::string& to);
  // Object storage, not a local disk: no directories, no locks, no rename.
  virtual bool IsRemote() const { return false; }
  // Object storage's compare-and-swap, for leases (a local disk has flock instead): writes
  // `data` at `path` only if no object is there (`expected_tag` nullopt: If-None-Match: *) or
  // only if the object's entity tag is still `expected_tag` (If-Match). Returns the entity tag
  // of what it wrote, or nullopt when the condition did not hold (nothing written).
  // NotSupported where the store has no such writes.
  virtual Result<std::optional<std::string>> WriteIfTag(
      const std::string& path, std::string_view data,
      const std::optional<std::string>& expected_tag);
  // The object's bytes and entity tag (for WriteIfTag); NotFound when there is none.
  virtual Result<std::pair<std::string, std::string>> ReadWithTag(const std::string& path);
};

// A whole local file mapped read-only into memory (data files are immutable once written, so
// the mapping never changes under a reader). An empty file maps to an empty view.
// Thread-safety: immutable.
class MappedFile {
 public:
  // The file mapped, or read into memory when it is smaller than `read_below` bytes.
  static Result<std::shared_ptr<const MappedFile>> Open(const std::string& path,
                                                        size_t read_below = 0);
  // A file's bytes read into memory (object storage), seen through the same interface.
  static std::shared_ptr<const MappedFile> FromBytes(std::string bytes);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view data() const { return {static_cast<const char*>(addr_), size_}; }
  // Drops the mapped pages from the process's resident memory (madvise MADV_DONTNEED); the
  // bytes stay readable, paged in again from the page cache when next touched. A file read into
  // memory (Open under `read_below`, or FromBytes) keeps its bytes.
  void ReleasePages() const;
  // The largest `read_below` worth asking for: under it mapping a file, faulting its pages in
  // and unmapping it (a TLB flush on every core) cost more than copying its bytes.
  static constexpr size_t kReadBelow = 1 << 20;
  // Whether the bytes are a mapping of the file (the kernel's page cache), not memory of the
  // process's own.
  bool mapped() const { return mapped_; }

 private:
  MappedFile() = default;
  void* addr_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;           // addr_ is a mapping (else it points into owned_ or read_)
  std::string owned_;             // FromBytes: the bytes themselves
  std::unique_ptr<char[]> read_;  // Open of a small file: its bytes, read
};

// The process-wide file system every storage path uses: the local (POSIX) one for paths, and
// for "s3://bucket/..." URIs the object store a catalog registered for that bucket
// (RegisterObjectStore), unless a test installed another with SetFileSystemForTesting. Each
// path names its store, so two warehouses on two stores work in one process.
FileSystem& LocalFs();
// Routes paths under `root` ("s3://bucket[/prefix]") to `fs` from now on (the longest root that
// holds a path wins). A catalog opened on object storage registers its store.
void RegisterObjectStore(const std::string& root, std::shared_ptr<FileSystem> fs);
// Whether `path` is a URI of object storage ("s3://...").
bool IsObjectStoreUri(std::string_view path);
// Makes `fs` the process-wide file system (nullptr: the local one again) and returns the one it
// replaces. Tests only (fault injection): call it while no storage work runs.
FileSystem* SetFileSystemForTesting(FileSystem* fs);

// Whether the file at `path` still has `version` and nothing exists at `next` (its successor:
// snapshot-(N+1) of snapshot-N), both asked at once (on object storage two HEADs in flight:
// one round trip). Lets a process that found the latest snapshot or schema check that it still
// is without the hint and the listing.
Result<bool> StillLatest(const std::string& path, const std::string& version,
                         const std::string& next);

// Writes `data` over the file at `path` in place: no temporary file, no fsync, not atomic. For
// hint files only, whose readers verify what they say (a crash or a concurrent reader may see
// one empty, short or stale): a commit's LATEST hint then costs no new inode and no fsync.
Status WriteHintFile(const std::string& path, std::string_view data);
// "a/b" + "c" -> "a/b/c".
std::string JoinPath(std::string_view a, std::string_view b);
std::string ParentPath(std::string_view p);

// A named point in a critical path (e.g. "commit.after-manifests"). When the environment variable
// TRIBUTARY_CRASH_AT names this point, the process exits at once with status 86, as if killed:
// the crash tests use it to prove every such moment leaves the table readable.
void CrashPoint(const char* name);

}  // namespace tributary::io
