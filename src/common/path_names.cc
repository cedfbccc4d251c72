#include "common/path_names.h"

#include <algorithm>

namespace tributary {
namespace {

std::string Quoted(std::string_view s) {
  std::string out = "'";
  out += s.size() > 80 ? std::string(s.substr(0, 77)) + "..." : std::string(s);
  return out + "'";
}

bool IsControl(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }
bool AsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool OnlyDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

Status CheckPathComponent(std::string_view kind, std::string_view name, size_t max_bytes) {
  const std::string k(kind);
  if (name.empty()) return Status::Invalid(k + " name must not be empty");
  for (char c : name) {
    if (c == '/' || c == '\\' || IsControl(c)) {
      return Status::Invalid(k + " name " + Quoted(name) + " contains an invalid character");
    }
  }
  if (name == "." || name == "..") return Status::Invalid("invalid " + k + " name " + Quoted(name));
  if (name.size() > max_bytes) {
    return Status::Invalid(k + " name " + Quoted(name) + " is " + std::to_string(name.size()) +
                           " bytes long; at most " + std::to_string(max_bytes) + " are allowed");
  }
  return Status::OK();
}

Status CheckFileNamePrefix(std::string_view option, std::string_view prefix) {
  const bool ok = prefix.size() <= 100 && (prefix.empty() || prefix[0] != '.') &&
                  std::none_of(prefix.begin(), prefix.end(),
                               [](char c) { return c == '/' || c == '\\' || IsControl(c); });
  if (ok) return Status::OK();
  const std::string why =
      "a file name prefix may not hold '/', '\\' or control characters, start "
      "with '.' or be longer than 100 bytes";
  if (option.empty()) return Status::Invalid(why);
  return Status::Invalid("option '" + std::string(option) + "' = " + Quoted(prefix) + ": " + why);
}

Status CheckTagName(std::string_view name) {
  const bool ok =
      !name.empty() && name.size() <= kMaxNameBytes &&
      std::all_of(name.begin(), name.end(),
                  [](char c) { return AsciiAlnum(c) || c == '-' || c == '_' || c == '.'; }) &&
      !OnlyDigits(name) && name != "." && name != "..";
  if (ok) return Status::OK();
  return Status::Invalid("tag name " + Quoted(name) +
                         " is not valid: use letters, digits, '-', "
                         "'_' and '.', not only digits");
}

Status CheckBranchName(std::string_view name) {
  if (name == "main") {
    return Status::Invalid("branch name 'main' is the default branch and cannot be used");
  }
  if (std::all_of(name.begin(), name.end(),
                  [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; })) {
    return Status::Invalid("branch name " + Quoted(name) + " is blank");
  }
  if (OnlyDigits(name)) {
    return Status::Invalid("branch name " + Quoted(name) +
                           " is only digits (it would read as a "
                           "snapshot id)");
  }
  // No '.' (a table name's parts are split at it) and no '$' (t$branch_b$snapshots).
  const bool ok = name.size() <= kMaxNameBytes && std::all_of(name.begin(), name.end(), [](char c) {
                    return AsciiAlnum(c) || c == '-' || c == '_';
                  });
  if (ok) return Status::OK();
  return Status::Invalid("branch name " + Quoted(name) +
                         " is not valid: use letters, digits, '-' "
                         "and '_'");
}

Status CheckConsumerId(std::string_view id) {
  const bool ok = !id.empty() && id[0] != '.' && id.size() <= kMaxNameBytes &&
                  std::all_of(id.begin(), id.end(), [](char c) {
                    return AsciiAlnum(c) || c == '_' || c == '-' || c == '.';
                  });
  if (ok) return Status::OK();
  return Status::Invalid("consumer id " + Quoted(id) +
                         " may hold only letters, digits, '_', '-' "
                         "and '.', may not start with '.' and is at most " +
                         std::to_string(kMaxNameBytes) + " bytes");
}

}  // namespace tributary
