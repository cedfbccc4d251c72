// Status: the one error model of Tributary. Every fallible call returns a Status or a
// Result<T> (result.h); nothing throws across a module boundary.
// Thread-safety: a Status is a value; copies are independent.
#pragma once

#include <string>
#include <utility>

namespace tributary {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad input from the user: SQL, options, values
  kNotFound,         // a database, table, column, snapshot or file that does not exist
  kAlreadyExists,
  kIOError,       // the file system failed
  kCorruption,    // a file exists but its contents are damaged
  kNotSupported,  // valid input that this build cannot handle yet
  kConflict,      // a concurrent commit won; the caller may retry
  kInternal,      // a bug
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status OK() { return Status(); }
  static Status Invalid(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status IOError(std::string m) { return {StatusCode::kIOError, std::move(m)}; }
  static Status Corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status NotSupported(std::string m) { return {StatusCode::kNotSupported, std::move(m)}; }
  static Status Conflict(std::string m) { return {StatusCode::kConflict, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  bool IsNotFound() const { return code_ == StatusCode::kNotFound; }
  bool IsConflict() const { return code_ == StatusCode::kConflict; }

  // "prefix: message", keeping the code. Used to name the file or statement that failed.
  Status WithContext(const std::string& prefix) const {
    if (ok()) return *this;
    return Status(code_, prefix + ": " + message_);
  }
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

const char* StatusCodeName(StatusCode code);

inline std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(StatusCodeName(code_)) + ": " + message_;
}

inline const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalidArgument:
      return "Invalid argument";
    case StatusCode::kNotFound:
      return "Not found";
    case StatusCode::kAlreadyExists:
      return "Already exists";
    case StatusCode::kIOError:
      return "IO error";
    case StatusCode::kCorruption:
      return "Corruption";
    case StatusCode::kNotSupported:
      return "Not supported";
    case StatusCode::kConflict:
      return "Conflict";
    case StatusCode::kInternal:
      return "Internal error";
  }
  return "Unknown";
}

}  // namespace tributary

#define TRIB_CONCAT_IMPL(a, b) a##b
#define TRIB_CONCAT(a, b) TRIB_CONCAT_IMPL(a, b)

// Returns from the enclosing function when `expr` (a Status) is not OK.
#define TRIB_RETURN_NOT_OK(expr)           \
  do {                                     \
    ::tributary::Status _trib_st = (expr); \
    if (!_trib_st.ok()) return _trib_st;   \
  } while (0)
