#include "io/fault_injection.h"

namespace tributary::io {

const char* FaultInjectingFs::FaultName(Fault f) {
  switch (f) {
    case Fault::kNone:
      return "none";
    case Fault::kIoError:
      return "I/O error";
    case Fault::kNoSpace:
      return "no space left";
    case Fault::kSyncError:
      return "fsync error";
    case Fault::kShortWrite:
      return "short write";
    case Fault::kCrash:
      return "crash";
  }
  return "?";
}

void FaultInjectingFs::Arm(int64_t op, Fault fault) {
  std::lock_guard<std::mutex> lock(mu_);
  ops_ = 0;
  armed_op_ = fault == Fault::kNone ? -1 : op;
  fault_ = fault;
  fired_ = false;
  crashed_ = false;
}

int64_t FaultInjectingFs::ops() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ops_;
}

bool FaultInjectingFs::fired() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fired_;
}

Status FaultInjectingFs::Step(const char* what, const std::string& path,
                              const std::string_view* data) {
  Fault fault;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t op = ops_++;
    if (crashed_)
      return Status::IOError(std::string("injected crash: ") + what + " '" + path + "'");
    if (op != armed_op_) return Status::OK();
    fired_ = true;
    fault = fault_;
    if (fault == Fault::kCrash) crashed_ = true;
  }
  const bool partial = data != nullptr && (fault == Fault::kSyncError ||
                                           fault == Fault::kShortWrite || fault == Fault::kCrash);
  if (partial) {
    // What a failed write leaves: a temp file next to the target, holding part of the data.
    const std::string dir = ParentPath(path);
    const std::string base = path.substr(dir.empty() ? 0 : dir.size() + 1);
    (void)base_->WriteFile(JoinPath(dir, "." + base + ".fault.tmp"),
                           data->substr(0, data->size() / 2));
  }
  std::string reason;
  switch (fault) {
    case Fault::kNoSpace:
      reason = "No space left on device";
      break;
    case Fault::kSyncError:
      reason = "cannot sync: Input/output error";
      break;
    case Fault::kShortWrite:
      reason = "short write: Input/output error";
      break;
    case Fault::kCrash:
      reason = "injected crash";
      break;
    default:
      reason = "Input/output error";
      break;
  }
  return Status::IOError(std::string(what) + " '" + path + "': " + reason + " (injected)");
}

Result<std::string> FaultInjectingFs::ReadFile(const std::string& path) {
  TRIB_RETURN_NOT_OK(Step("cannot read", path, nullptr));
  return base_->ReadFile(path);
}

Status FaultInjectingFs::WriteFile(const std::string& path, std::string_view data) {
  TRIB_RETURN_NOT_OK(Step("cannot write", path, &data));
  return base_->WriteFile(path, data);
}

Result<bool> FaultInjectingFs::WriteFileIfAbsent(const std::string& path, std::string_view data) {
  TRIB_RETURN_NOT_OK(Step("cannot publish", path, &data));
  return base_->WriteFileIfAbsent(path, data);
}

Status FaultInjectingFs::WriteCopy(const std::string& from, const std::string& path,
                                   const FileParts& data) {
  const std::string joined = data.Joined();
  const std::string_view bytes = joined;
  TRIB_RETURN_NOT_OK(Step("cannot write", path, &bytes));
  return base_->WriteCopy(from, path, data);
}

Result<bool> FaultInjectingFs::Exists(const std::string& path) {
  TRIB_RETURN_NOT_OK(Step("cannot stat", path, nullptr));
  return base_->Exists(path);
}

Result<std::optional<std::string>> FaultInjectingFs::Version(const std::string& path) {
  TRIB_RETURN_NOT_OK(Step("cannot stat", path, nullptr));
  return base_->Version(path);
}

Result<std::vector<FileInfo>> FaultInjectingFs::ListDir(const std::string& path) {
  TRIB_RETURN_NOT_OK(Step("cannot list", path, nullptr));
  return base_->ListDir(path);
}

Status FaultInjectingFs::MakeDirs(const std::string& path) {
  TRIB_RETURN_NOT_OK(Step("cannot create directory", path, nullptr));
  return base_->MakeDirs(path);
}

Status FaultInjectingFs::Remove(const std::string& path) {
  TRIB_RETURN_NOT_OK(Step("cannot remove", path, nullptr));
  return base_->Remove(path);
}

Status FaultInjectingFs::RemoveAll(const std::string& path) {
  TRIB_RETURN_NOT_OK(Step("cannot remove", path, nullptr));
  return base_->RemoveAll(path);
}

Result<int64_t> FaultInjectingFs::FileSize(const std::string& path) {
  TRIB_RETURN_NOT_OK(Step("cannot stat", path, nullptr));
  return base_->FileSize(path);
}

Result<std::shared_ptr<const MappedFile>> FaultInjectingFs::MapFile(const std::string& path,
                                                                    size_t read_below) {
  TRIB_RETURN_NOT_OK(Step("cannot map", path, nullptr));
  return base_->MapFile(path, read_below);
}

}  // namespace tributary::io
