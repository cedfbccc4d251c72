// FaultInjectingFs: a FileSystem over another one whose n-th operation fails, the way disks and
// processes fail: an I/O error, a full disk, a failed fsync or a short write (the last two leave
// a partial temp file behind, as a real failed write does), or a crash (that operation and every
// later one fail, and a write in flight leaves its partial temp file: the process is gone; the
// test then drops its in-memory state and reopens the table with the real file system).
// Tests install it with SetFileSystemForTesting (src/table/fault_injection_test.cc).
// Thread-safety: thread-safe (operations are counted under a lock).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "io/file_system.h"

namespace tributary::io {

class FaultInjectingFs : public FileSystem {
 public:
  enum class Fault { kNone, kIoError, kNoSpace, kSyncError, kShortWrite, kCrash };
  static const char* FaultName(Fault f);

  explicit FaultInjectingFs(FileSystem* base) : base_(base) {}

  // Operation `op` (counted from 0 since the last Arm) fails with `fault`; kNone: none does.
  void Arm(int64_t op, Fault fault);
  // Operations since the last Arm, and whether the armed fault happened.
  int64_t ops() const;
  bool fired() const;

  Result<std::string> ReadFile(const std::string& path) override;
  Status WriteFile(const std::string& path, std::string_view data) override;
  Result<bool> WriteFileIfAbsent(const std::string& path, std::string_view data) override;
  Status WriteCopy(const std::string& from, const std::string& path,
                   const FileParts& data) override;
  Result<bool> Exists(const std::string& path) override;
  Result<std::optional<std::string>> Version(const std::string& path) override;
  Result<std::vector<FileInfo>> ListDir(const std::string& path) override;
  Status MakeDirs(const std::string& path) override;
  Status Remove(const std::string& path) override;
  Status RemoveAll(const std::string& path) override;
  Result<int64_t> FileSize(const std::string& path) override;
  Result<std::shared_ptr<const MappedFile>> MapFile(const std::string& path,
                                                    size_t read_below) override;

 private:
  // Counts one operation on `path`; the error to return instead of doing it, or OK. For a
  // write (`data` non-null) that fails mid-way, first leaves the partial temp file.
  Status Step(const char* what, const std::string& path, const std::string_view* data);

  FileSystem* base_;
  mutable std::mutex mu_;
  int64_t ops_ = 0;
  int64_t armed_op_ = -1;
  Fault fault_ = Fault::kNone;
  bool fired_ = false;
  bool crashed_ = false;
};

}  // namespace tributary::io
