#include "io/file_system.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <shared_mutex>

namespace tributary::io {
namespace {

Status Errno(const std::string& what, const std::string& path) {
  return Status::IOError(what + " '" + path + "': " + std::strerror(errno));
}

std::string TempName(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t seed = std::random_device{}();
  std::string dir = ParentPath(path);
  std::string base = path.substr(dir.empty() ? 0 : dir.size() + 1);
  return JoinPath(dir, "." + base + "." + std::to_string(getpid()) + "." +
                           std::to_string(seed % 100000) + "." + std::to_string(counter++) +
                           ".tmp");
}

// Writes go out in pieces of at most 1 MiB: on the virtual machines measured (bench/HISTORY.md,
// thirteenth session) one write(2) of tens of MiB copied into the page cache at 0.1-0.2 GB/s and
// pieces of 1 MiB at 3-4 GB/s; on other machines the extra calls cost nothing measurable.
constexpr size_t kWritePiece = size_t{1} << 20;

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, std::min(kWritePiece, data.size() - off));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno("cannot write", path);
    }
    off += static_cast<size_t>(n);
  }
  return Status::OK();
}

// Reads up to `n` bytes at `offset` into `buf`: fewer only where the file ends first. Returns
// how many were read.
Result<size_t> PreadUpTo(int fd, char* buf, size_t n, off_t offset, const std::string& path) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd, buf + got, n - got, offset + static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Errno("cannot read", path);
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return got;
}

// WriteAll of `parts` joined, without joining them: writev(2) of the parts in turn, each call at
// most kWritePiece bytes (a larger part is split), as WriteAll writes.
Status WriteAllParts(int fd, const FileParts& parts, const std::string& path) {
  std::vector<struct iovec> iov;
  size_t part = 0, off = 0;  // the next byte to write: parts.parts[part][off]
  while (part < parts.parts.size()) {
    iov.clear();
    size_t bytes = 0;
    for (size_t p = part, o = off;
         p < parts.parts.size() && bytes < kWritePiece && iov.size() < static_cast<size_t>(IOV_MAX);
         ++p, o = 0) {
      const std::string& s = parts.parts[p];
      const size_t n = std::min(s.size() - o, kWritePiece - bytes);
      if (n == 0) continue;
      iov.push_back({const_cast<char*>(s.data() + o), n});
      bytes += n;
    }
    if (iov.empty()) break;  // only empty parts left
    ssize_t n = ::writev(fd, iov.data(), static_cast<int>(iov.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno("cannot write", path);
    }
    // Step past what was written.
    size_t left = static_cast<size_t>(n);
    while (part < parts.parts.size()) {
      const size_t in_part = parts.parts[part].size() - off;
      if (left < in_part) {
        off += left;
        break;
      }
      left -= in_part;
      ++part;
      off = 0;
    }
  }
  return Status::OK();
}

Status SyncDir(const std::string& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return Errno("cannot open directory", dir);
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return Errno("cannot sync directory", dir);
  return Status::OK();
}

// Writes and fsyncs a temp file next to `path`; returns its name.
Result<std::string> WriteTemp(const std::string& path, std::string_view data) {
  std::string tmp = TempName(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot create", tmp);
  Status st = WriteAll(fd, data, tmp);
  if (st.ok() && ::fsync(fd) != 0) st = Errno("cannot sync", tmp);
  ::close(fd);
  if (!st.ok()) {
    ::unlink(tmp.c_str());
    return st;
  }
  return tmp;
}

// The files WriteNewFile wrote since the last publication, and their directories: made durable
// before the next WriteFileIfAbsent (a snapshot) can name them. A few files are fsynced one by
// one with their directories; from kSyncFsAt files on, one syncfs(2) per file system makes all
// of them durable (bytes and directory entries) at once: a commit over thousands of buckets
// writes thousands of small files, and on the machines measured each fsync cost a device flush
// of its own (bench/HISTORY.md, 2026-12-06, twenty-sixth session). syncfs reports write-back
// errors from Linux 5.8 on; on older kernels every file is fsynced.
// Publications wait for each other's syncs: one that finds the files written before it already
// taken by another publication's sync waits for that sync to end, and fails if it failed.
// A failed sync fails every later publication of the process: Linux reports a lost write-back
// once, so retrying the sync could succeed over lost bytes, and which snapshots would name the
// files is not known here (PostgreSQL stops on a failed fsync for the same reason). Restarting
// the process clears it; the files are then unreferenced and orphan cleanup removes them.
class PendingDirs {
 public:
  static constexpr size_t kSyncFsAt = 8;

  void Add(std::string dir, std::string file) {
    std::lock_guard<std::mutex> lock(mu_);
    dirs_.insert(std::move(dir));
    files_.push_back(std::move(file));
    ++added_;
  }
  Status SyncAll() {
    uint64_t mine;  // the files written before this call
    {
      std::lock_guard<std::mutex> lock(mu_);
      mine = added_;
    }
    std::lock_guard<std::mutex> syncing(sync_mu_);
    if (!failed_.ok()) return failed_;
    if (synced_ >= mine) return Status::OK();
    std::set<std::string> dirs;
    std::vector<std::string> files;
    uint64_t taken;
    {
      std::lock_guard<std::mutex> lock(mu_);
      dirs.swap(dirs_);
      files.swap(files_);
      taken = added_;
    }
    Status st = files.size() >= kSyncFsAt && SyncFsReportsErrors() ? SyncFileSystems(dirs)
                                                                   : SyncEach(files, dirs);
    if (!st.ok()) {
      failed_ = Status::IOError("new files may not be on disk (" + st.message() +
                                "): this process publishes no snapshot any more; restart it");
      return failed_;
    }
    synced_ = taken;
    return Status::OK();
  }

 private:
  // A file or directory deleted since (a dropped table's, an aborted writer's) holds nothing to
  // make durable: it is no longer pending. (Kept pending, it failed every later publication in
  // the process, of any table.)
  static bool Gone(const std::string& path) {
    return ::access(path.c_str(), F_OK) != 0 && errno == ENOENT;
  }
  static Status SyncEach(const std::vector<std::string>& files, const std::set<std::string>& dirs) {
    for (const std::string& f : files) {
      int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        if (errno == ENOENT) continue;
        return Errno("cannot open", f);
      }
      const int rc = ::fsync(fd);
      ::close(fd);
      if (rc != 0) return Errno("cannot sync", f);
    }
    for (const std::string& d : dirs) {
      if (Status st = SyncDir(d); !st.ok() && !Gone(d)) return st;
    }
    return Status::OK();
  }
  // One syncfs(2) for each file system the directories are on.
  static Status SyncFileSystems(const std::set<std::string>& dirs) {
    std::set<dev_t> synced;
    for (const std::string& d : dirs) {
      int fd = ::open(d.empty() ? "." : d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0) {
        if (errno == ENOENT) continue;
        return Errno("cannot open directory", d);
      }
      struct stat st;
      int rc = ::fstat(fd, &st);
      if (rc == 0 && synced.insert(st.st_dev).second) {
        rc = ::syncfs(fd);
        if (rc != 0) synced.erase(st.st_dev);
      }
      const int err = errno;
      ::close(fd);
      if (rc != 0) {
        errno = err;
        return Errno("cannot sync the file system of", d);
      }
    }
    return Status::OK();
  }

  // Whether syncfs(2) reports write-back errors: Linux 5.8 and later.
  static bool SyncFsReportsErrors() {
    static const bool reports = [] {
      struct utsname u;
      int major = 0, minor = 0;
      return ::uname(&u) == 0 && std::sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
             (major > 5 || (major == 5 && minor >= 8));
    }();
    return reports;
  }

  std::mutex mu_;  // dirs_, files_, added_
  std::set<std::string> dirs_;
  std::vector<std::string> files_;
  uint64_t added_ = 0;   // files ever added
  std::mutex sync_mu_;   // one sync at a time; synced_, failed_
  uint64_t synced_ = 0;  // files ever added that are durable
  Status failed_;        // a sync that failed, for good
};

PendingDirs& Pending() {
  static PendingDirs pending;
  return pending;
}

class LocalFileSystem : public FileSystem {
 public:
  Result<std::string> ReadFile(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) return Status::NotFound("file '" + path + "' does not exist");
      return Errno("cannot open", path);
    }
    std::string out;
    struct stat st;
    if (::fstat(fd, &st) == 0 && st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
    char buf[1 << 16];
    while (true) {
      ssize_t n = ::read(fd, buf, sizeof(buf));
      if (n < 0) {
        if (errno == EINTR) continue;
        Status s = Errno("cannot read", path);
        ::close(fd);
        return s;
      }
      if (n == 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return out;
  }

  Status WriteFile(const std::string& path, std::string_view data) override {
    TRIB_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(path, data));
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      Status s = Errno("cannot rename to", path);
      ::unlink(tmp.c_str());
      return s;
    }
    return SyncDir(ParentPath(path));
  }

  Status WriteNewFile(const std::string& path, std::string_view data) override {
    return CreateNew(path, [&](int fd) { return WriteAll(fd, data, path); });
  }

  Status WriteNewFileParts(const std::string& path, FileParts* parts) override {
    return CreateNew(path, [&](int fd) { return WriteAllParts(fd, *parts, path); });
  }

  Result<bool> WriteFileIfAbsent(const std::string& path, std::string_view data) override {
    // What the published file may name is durable first.
    TRIB_RETURN_NOT_OK(Pending().SyncAll());
    TRIB_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(path, data));
    // link(2) fails with EEXIST instead of replacing: an atomic create-if-absent.
    int rc = ::link(tmp.c_str(), path.c_str());
    int err = errno;
    ::unlink(tmp.c_str());
    if (rc != 0) {
      if (err == EEXIST) return false;
      errno = err;
      return Errno("cannot publish", path);
    }
    // Published: whatever happens next, the file is there and the caller must treat it as such
    // (a failed directory fsync must not make a commit clean up what it published).
    (void)SyncDir(ParentPath(path));
    return true;
  }

  Status WriteCopy(const std::string& from, const std::string& path,
                   const FileParts& data) override {
    if (::link(from.c_str(), path.c_str()) == 0) return SyncDir(ParentPath(path));
    // No links here (EPERM, EXDEV, EMLINK, ...) or a file in the way: write the bytes.
    if (data.parts.size() == 1) return WriteFile(path, data.parts[0]);
    return WriteFile(path, data.Joined());
  }

  Result<bool> Exists(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return Errno("cannot stat", path);
  }

  Result<std::optional<std::string>> Version(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return std::optional<std::string>();
      return Errno("cannot stat", path);
    }
    return std::optional<std::string>(std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) +
                                      ":" + std::to_string(st.st_size) + ":" +
                                      std::to_string(st.st_mtim.tv_sec) + "." +
                                      std::to_string(st.st_mtim.tv_nsec));
  }

  Result<std::vector<FileInfo>> ListDir(const std::string& path) override {
    DIR* d = ::opendir(path.c_str());
    if (!d) {
      if (errno == ENOENT) return Status::NotFound("directory '" + path + "' does not exist");
      return Errno("cannot list", path);
    }
    std::vector<FileInfo> out;
    while (struct dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      FileInfo fi;
      fi.name = name;
      struct stat st;
      if (::stat(JoinPath(path, name).c_str(), &st) == 0) {
        fi.is_dir = S_ISDIR(st.st_mode);
        fi.size = st.st_size;
        fi.mtime_millis =
            static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
      }
      out.push_back(std::move(fi));
    }
    ::closedir(d);
    return out;
  }

  Status MakeDirs(const std::string& path) override {
    if (path.empty()) return Status::OK();
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) return Status::OK();
      return Status::IOError("'" + path + "' exists and is not a directory");
    }
    TRIB_RETURN_NOT_OK(MakeDirs(ParentPath(path)));
    if (::mkdir(path.c_str(), 0755) != 0) {
      if (errno == EEXIST) return Status::OK();
      return Errno("cannot create directory", path);
    }
    // A new directory survives a power loss only once its parent's entry is synced.
    return SyncDir(ParentPath(path));
  }

  Status Remove(const std::string& path) override {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return Errno("cannot remove", path);
    return Status::OK();
  }

  Result<bool> RemoveDirIfEmpty(const std::string& path) override {
    if (::rmdir(path.c_str()) == 0 || errno == ENOENT) return true;
    if (errno == ENOTEMPTY || errno == EEXIST) return false;
    return Errno("cannot remove", path);
  }

  Status RemoveAll(const std::string& path) override {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) return Status::OK();
      return Errno("cannot stat", path);
    }
    if (S_ISDIR(st.st_mode)) {
      TRIB_ASSIGN_OR_RETURN(auto entries, ListDir(path));
      for (const auto& e : entries) TRIB_RETURN_NOT_OK(RemoveAll(JoinPath(path, e.name)));
      if (::rmdir(path.c_str()) != 0 && errno != ENOENT) return Errno("cannot remove", path);
      return Status::OK();
    }
    return Remove(path);
  }

  Result<int64_t> FileSize(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return Errno("cannot stat", path);
    return static_cast<int64_t>(st.st_size);
  }

 private:
  // Creates `path`, which must not exist, writes it with `write(fd)` and queues it for the next
  // publication's sync (WriteNewFile); a failed write removes it.
  template <typename Write>
  static Status CreateNew(const std::string& path, Write&& write) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return Errno("cannot create", path);
    Status st = write(fd);
    if (::close(fd) != 0 && st.ok()) st = Errno("cannot write", path);
    if (!st.ok()) {
      ::unlink(path.c_str());
      return st;
    }
    Pending().Add(ParentPath(path), path);
    return Status::OK();
  }
};

}  // namespace

Status WriteHintFile(const std::string& path, std::string_view data) {
  if (IsObjectStoreUri(path)) return LocalFs().WriteFile(path, data);  // a plain PUT
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot open", path);
  Status st = WriteAll(fd, data, path);
  ::close(fd);
  return st;
}

Result<std::shared_ptr<const MappedFile>> MappedFile::Open(const std::string& path,
                                                           size_t read_below) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open", path);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    Status s = Errno("cannot stat", path);
    ::close(fd);
    return s;
  }
  std::shared_ptr<MappedFile> m(new MappedFile());
  m->size_ = static_cast<size_t>(st.st_size);
  if (m->size_ > 0 && m->size_ < read_below) {
    // A small file (a level-0 file of one of many buckets, a compaction's input): read. Its
    // bytes are what the file held when it was opened (files read so are never rewritten).
    m->read_.reset(new char[m->size_]);
    Result<size_t> got = PreadUpTo(fd, m->read_.get(), m->size_, 0, path);
    if (!got.ok()) {
      ::close(fd);
      return got.status();
    }
    m->size_ = *got;  // (shorter than its size a moment ago: what it holds now)
    m->addr_ = m->read_.get();
  } else if (m->size_ > 0) {
    void* addr = ::mmap(nullptr, m->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (addr == MAP_FAILED) {
      Status s = Errno("cannot map", path);
      ::close(fd);
      return s;
    }
    m->addr_ = addr;
    m->mapped_ = true;
  }
  ::close(fd);
  return std::shared_ptr<const MappedFile>(std::move(m));
}

std::shared_ptr<const MappedFile> MappedFile::FromBytes(std::string bytes) {
  std::shared_ptr<MappedFile> m(new MappedFile());
  m->owned_ = std::move(bytes);
  m->size_ = m->owned_.size();
  m->addr_ = m->owned_.empty() ? nullptr : m->owned_.data();
  return m;
}

void MappedFile::ReleasePages() const {
  // A private read-only mapping is never written: its pages come back from the file unchanged.
  // A small one keeps them: dropping a few pages costs a TLB flush on every core and saves
  // little (the data file reader reads such files rather than map them, unless its cache is
  // small; bench/HISTORY.md).
  if (mapped_ && size_ >= kReadBelow) (void)::madvise(addr_, size_, MADV_DONTNEED);
}

MappedFile::~MappedFile() {
  if (mapped_) ::munmap(addr_, size_);
}

Result<std::shared_ptr<const MappedFile>> FileSystem::MapFile(const std::string& path,
                                                              size_t read_below) {
  return MappedFile::Open(path, read_below);
}

Result<std::string> FileSystem::ReadRange(const std::string& path, int64_t offset, int64_t length) {
  if (offset < 0 || length < 0) return Status::Invalid("a negative range of '" + path + "'");
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status::NotFound("file '" + path + "' does not exist");
    return Errno("cannot open", path);
  }
  std::string out(static_cast<size_t>(length), '\0');
  Result<size_t> got = PreadUpTo(fd, out.data(), out.size(), static_cast<off_t>(offset), path);
  ::close(fd);
  if (!got.ok()) return got.status();
  out.resize(*got);
  return out;
}

Result<std::pair<int64_t, std::string>> FileSystem::ReadTail(const std::string& path,
                                                             int64_t length) {
  TRIB_ASSIGN_OR_RETURN(int64_t size, FileSize(path));
  const int64_t from = std::max<int64_t>(0, size - length);
  TRIB_ASSIGN_OR_RETURN(std::string bytes, ReadRange(path, from, size - from));
  return std::make_pair(size, std::move(bytes));
}

Result<bool> FileSystem::RemoveDirIfEmpty(const std::string& path) {
  auto entries = ListDir(path);
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return true;
    return entries.status();
  }
  if (!entries->empty()) return false;
  TRIB_RETURN_NOT_OK(RemoveAll(path));
  return true;
}

Result<std::pair<std::string, std::optional<std::string>>> FileSystem::ReadFileVersioned(
    const std::string& path) {
  TRIB_ASSIGN_OR_RETURN(std::optional<std::string> before, Version(path));
  TRIB_ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  TRIB_ASSIGN_OR_RETURN(std::optional<std::string> after, Version(path));
  if (before != after) before.reset();  // replaced while it was read: which bytes is unknown
  return std::make_pair(std::move(bytes), std::move(before));
}

Result<bool> StillLatest(const std::string& path, const std::string& version,
                         const std::string& next) {
  FileSystem& fs = LocalFs();
  if (!fs.IsRemote() && !IsObjectStoreUri(path)) {
    TRIB_ASSIGN_OR_RETURN(std::optional<std::string> now, fs.Version(path));
    if (!now || *now != version) return false;
    TRIB_ASSIGN_OR_RETURN(bool successor, fs.FileExists(next));
    return !successor;
  }
  auto successor = std::async(std::launch::async, [&fs, &next] { return fs.FileExists(next); });
  Result<std::optional<std::string>> now = fs.Version(path);
  Result<bool> after = successor.get();
  TRIB_RETURN_NOT_OK(now.status());
  TRIB_RETURN_NOT_OK(after.status());
  return *now && **now == version && !*after;
}

Status FileSystem::RemoveFiles(const std::vector<std::string>& paths) {
  for (const std::string& p : paths) TRIB_RETURN_NOT_OK(Remove(p));
  return Status::OK();
}

Status FileSystem::RenameDir(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) return Errno("cannot rename '" + from + "' to", to);
  return Status::OK();
}

Status FileSystem::WriteCopy(const std::string& /*from*/, const std::string& path,
                             const FileParts& data) {
  if (data.parts.size() == 1) return WriteFile(path, data.parts[0]);
  return WriteFile(path, data.Joined());
}

Status FileSystem::WriteNewFileParts(const std::string& path, FileParts* parts) {
  if (parts->parts.size() != 1) {
    std::string joined = parts->TakeJoined();
    parts->Add(std::move(joined));
  }
  return WriteNewFile(path, parts->parts[0]);
}

Result<std::optional<std::string>> FileSystem::WriteIfTag(const std::string& path, std::string_view,
                                                          const std::optional<std::string>&) {
  return Status::NotSupported("conditional writes by entity tag are not supported for '" + path +
                              "'");
}

Result<std::pair<std::string, std::string>> FileSystem::ReadWithTag(const std::string& path) {
  return Status::NotSupported("entity tags are not supported for '" + path + "'");
}

namespace {
FileSystem& PosixFs() {
  static LocalFileSystem fs;
  return fs;
}
std::atomic<FileSystem*> g_installed{nullptr};

// Sends each operation to the file system of the path it names.
class RoutingFileSystem : public FileSystem {
 public:
  void Register(const std::string& root, std::shared_ptr<FileSystem> fs) {
    std::unique_lock lock(mu_);
    std::string r = root;
    while (!r.empty() && r.back() == '/') r.pop_back();
    stores_[r] = std::move(fs);
  }
  Result<std::string> ReadFile(const std::string& p) override { return For(p).ReadFile(p); }
  Result<std::string> ReadRange(const std::string& p, int64_t offset, int64_t length) override {
    return For(p).ReadRange(p, offset, length);
  }
  Result<std::pair<int64_t, std::string>> ReadTail(const std::string& p, int64_t length) override {
    return For(p).ReadTail(p, length);
  }
  Status WriteFile(const std::string& p, std::string_view d) override {
    return For(p).WriteFile(p, d);
  }
  Status WriteNewFile(const std::string& p, std::string_view d) override {
    return For(p).WriteNewFile(p, d);
  }
  Result<bool> WriteFileIfAbsent(const std::string& p, std::string_view d) override {
    return For(p).WriteFileIfAbsent(p, d);
  }
  Result<std::optional<std::string>> WriteIfTag(const std::string& p, std::string_view d,
                                                const std::optional<std::string>& tag) override {
    return For(p).WriteIfTag(p, d, tag);
  }
  Result<std::pair<std::string, std::string>> ReadWithTag(const std::string& p) override {
    return For(p).ReadWithTag(p);
  }
  Status WriteCopy(const std::string& from, const std::string& p, const FileParts& d) override {
    return For(p).WriteCopy(from, p, d);
  }
  Status WriteNewFileParts(const std::string& p, FileParts* d) override {
    return For(p).WriteNewFileParts(p, d);
  }
  Result<bool> Exists(const std::string& p) override { return For(p).Exists(p); }
  Result<bool> FileExists(const std::string& p) override { return For(p).FileExists(p); }
  Result<std::optional<std::string>> Version(const std::string& p) override {
    return For(p).Version(p);
  }
  Result<std::pair<std::string, std::optional<std::string>>> ReadFileVersioned(
      const std::string& p) override {
    return For(p).ReadFileVersioned(p);
  }
  Result<std::vector<FileInfo>> ListDir(const std::string& p) override { return For(p).ListDir(p); }
  Status MakeDirs(const std::string& p) override { return For(p).MakeDirs(p); }
  Status MakeDirMarker(const std::string& p) override { return For(p).MakeDirMarker(p); }
  Status Remove(const std::string& p) override { return For(p).Remove(p); }
  Status RemoveAll(const std::string& p) override { return For(p).RemoveAll(p); }
  Status RemoveFiles(const std::vector<std::string>& paths) override {
    // One batch per store, in the order the stores first appear.
    std::vector<std::pair<FileSystem*, std::vector<std::string>>> batches;
    for (const std::string& p : paths) {
      FileSystem* fs = &For(p);
      auto it = std::find_if(batches.begin(), batches.end(),
                             [&](const auto& b) { return b.first == fs; });
      if (it == batches.end()) it = batches.insert(batches.end(), {fs, {}});
      it->second.push_back(p);
    }
    for (auto& [fs, batch] : batches) TRIB_RETURN_NOT_OK(fs->RemoveFiles(batch));
    return Status::OK();
  }
  Result<bool> RemoveDirIfEmpty(const std::string& p) override {
    return For(p).RemoveDirIfEmpty(p);
  }
  Result<int64_t> FileSize(const std::string& p) override { return For(p).FileSize(p); }
  Result<std::shared_ptr<const MappedFile>> MapFile(const std::string& p,
                                                    size_t read_below) override {
    return For(p).MapFile(p, read_below);
  }
  Status RenameDir(const std::string& from, const std::string& to) override {
    return For(from).RenameDir(from, to);
  }

 private:
  FileSystem& For(const std::string& path) {
    if (!IsObjectStoreUri(path)) return PosixFs();
    std::shared_lock lock(mu_);
    FileSystem* best = nullptr;
    size_t best_len = 0;
    for (const auto& [root, fs] : stores_) {
      if (path.compare(0, root.size(), root) == 0 &&
          (path.size() == root.size() || path[root.size()] == '/' || root.back() == '/') &&
          root.size() >= best_len) {
        best = fs.get();
        best_len = root.size();
      }
    }
    // A URI no catalog opened: every operation fails naming it (never a local directory).
    return best != nullptr ? *best : Unregistered();
  }
  FileSystem& Unregistered();

  std::shared_mutex mu_;
  std::map<std::string, std::shared_ptr<FileSystem>> stores_;
};

// Refuses every operation: an object store URI no catalog registered.
class UnregisteredStore : public FileSystem {
 public:
  static Status No(const std::string& p) {
    return Status::Invalid("'" + p +
                           "' is on object storage that no catalog of this process "
                           "opened");
  }
  Result<std::string> ReadFile(const std::string& p) override { return No(p); }
  Result<std::string> ReadRange(const std::string& p, int64_t, int64_t) override { return No(p); }
  Result<std::pair<int64_t, std::string>> ReadTail(const std::string& p, int64_t) override {
    return No(p);
  }
  Status WriteFile(const std::string& p, std::string_view) override { return No(p); }
  Result<bool> WriteFileIfAbsent(const std::string& p, std::string_view) override { return No(p); }
  Result<bool> Exists(const std::string& p) override { return No(p); }
  Result<std::optional<std::string>> Version(const std::string& p) override { return No(p); }
  Result<std::vector<FileInfo>> ListDir(const std::string& p) override { return No(p); }
  Status MakeDirs(const std::string& p) override { return No(p); }
  Status Remove(const std::string& p) override { return No(p); }
  Status RemoveAll(const std::string& p) override { return No(p); }
  Result<int64_t> FileSize(const std::string& p) override { return No(p); }
  Result<std::shared_ptr<const MappedFile>> MapFile(const std::string& p, size_t) override {
    return No(p);
  }
  bool IsRemote() const override { return true; }
};

FileSystem& RoutingFileSystem::Unregistered() {
  static UnregisteredStore none;
  return none;
}

RoutingFileSystem& Router() {
  static RoutingFileSystem fs;
  return fs;
}
}  // namespace

bool IsObjectStoreUri(std::string_view path) {
  return path.rfind("s3://", 0) == 0 || path.rfind("s3a://", 0) == 0 ||
         path.rfind("s3n://", 0) == 0;
}

void RegisterObjectStore(const std::string& root, std::shared_ptr<FileSystem> fs) {
  Router().Register(root, std::move(fs));
}

FileSystem& LocalFs() {
  FileSystem* fs = g_installed.load(std::memory_order_acquire);
  return fs != nullptr ? *fs : Router();
}

FileSystem* SetFileSystemForTesting(FileSystem* fs) {
  FileSystem* before = g_installed.exchange(fs, std::memory_order_acq_rel);
  return before != nullptr ? before : &PosixFs();
}

std::string JoinPath(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  std::string r(a);
  if (r.back() != '/') r += '/';
  r.append(b);
  return r;
}

std::string ParentPath(std::string_view p) {
  size_t i = p.find_last_of('/');
  if (i == std::string_view::npos) return "";
  if (i == 0) return "/";
  return std::string(p.substr(0, i));
}

void CrashPoint(const char* name) {
  static const char* target = std::getenv("TRIBUTARY_CRASH_AT");
  if (target && std::strcmp(target, name) == 0) _exit(86);
}

}  // namespace tributary::io
