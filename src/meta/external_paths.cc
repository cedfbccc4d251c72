#include "meta/external_paths.h"

#include <cctype>
#include <random>

#include "io/file_system.h"
#include "meta/paths.h"
#include "tributary/schema.h"

namespace tributary::meta {

namespace {
std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The scheme of a normalized root ("FILE", "s3").
std::string SchemeOf(const std::string& root) { return root.substr(0, root.find(':')); }

std::string Option(const TableSchema& schema, const char* key) {
  auto it = schema.options.find(key);
  return it == schema.options.end() ? std::string() : it->second;
}
}  // namespace

Result<std::string> NormalizeExternalRoot(const std::string& root) {
  std::string s = root;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) b++;
  s = s.substr(b);
  const size_t colon = s.find(':');
  bool scheme_ok =
      colon != std::string::npos && colon > 0 && std::isalpha(static_cast<unsigned char>(s[0]));
  for (size_t i = 0; scheme_ok && i < colon; i++) {
    const char c = s[i];
    scheme_ok = std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
  }
  if (!scheme_ok) {
    return Status::Invalid("external path '" + root +
                           "' has no scheme ('data-file.external-paths' takes URIs such as "
                           "'file:///data/x' or 's3://bucket/x')");
  }
  std::string rest = s.substr(colon + 1);
  std::string authority;
  if (rest.rfind("//", 0) == 0) {
    const size_t slash = rest.find('/', 2);
    authority = rest.substr(2, slash == std::string::npos ? std::string::npos : slash - 2);
    rest = slash == std::string::npos ? "" : rest.substr(slash);
  }
  std::string path;
  for (char c : rest) {
    if (c == '/' && !path.empty() && path.back() == '/') continue;
    path.push_back(c);
  }
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return s.substr(0, colon) + ":" + (authority.empty() ? "" : "//" + authority) + path;
}

std::string ExternalPaths::LocalOf(const std::string& recorded) {
  const std::string scheme = Lower(SchemeOf(recorded));
  if (scheme == "file") return recorded.substr(recorded.find(':') + 1);
  return recorded;
}

Result<std::optional<ExternalPaths>> ExternalPaths::Of(const TableSchema& schema) {
  const std::string paths = Option(schema, "data-file.external-paths");
  std::string strategy = Option(schema, "data-file.external-paths.strategy");
  if (strategy.empty()) strategy = "none";
  if (strategy != "none" && strategy != "round-robin" && strategy != "specific-fs") {
    return Status::Invalid("'data-file.external-paths.strategy' = '" + strategy +
                           "' is not one of 'none', 'round-robin', 'specific-fs'");
  }
  if (paths.empty() || strategy == "none") return std::optional<ExternalPaths>();
  std::vector<std::string> roots;
  size_t at = 0;
  while (at <= paths.size()) {
    size_t comma = paths.find(',', at);
    if (comma == std::string::npos) comma = paths.size();
    const std::string piece = paths.substr(at, comma - at);
    at = comma + 1;
    if (piece.find_first_not_of(" \t") == std::string::npos) continue;
    TRIB_ASSIGN_OR_RETURN(std::string root, NormalizeExternalRoot(piece));
    const std::string scheme = Lower(SchemeOf(root));
    if (scheme != "file") {
      return Status::NotSupported("external path '" + piece + "': scheme '" + SchemeOf(root) +
                                  "' is not supported yet (file roots are)");
    }
    roots.push_back(std::move(root));
  }
  if (strategy == "specific-fs") {
    const std::string fs = Lower(Option(schema, "data-file.external-paths.specific-fs"));
    if (fs.empty()) {
      return Status::Invalid(
          "'data-file.external-paths.strategy' = 'specific-fs' needs "
          "'data-file.external-paths.specific-fs' (the scheme to write to, such as 's3')");
    }
    std::erase_if(roots, [&](const std::string& r) { return Lower(SchemeOf(r)) != fs; });
  }
  if (roots.empty()) {
    return Status::Invalid("'data-file.external-paths' names no root the strategy '" + strategy +
                           "' can write to");
  }
  return std::optional<ExternalPaths>(ExternalPaths(std::move(roots)));
}

ExternalPaths::ExternalPaths(std::vector<std::string> roots)
    : roots_(std::move(roots)),
      next_(std::make_shared<std::atomic<uint64_t>>(std::random_device{}() % roots_.size())) {}

ExternalPaths::Dir ExternalPaths::Next(const std::string& partition_path, int32_t bucket) {
  const std::string& root = roots_[next_->fetch_add(1) % roots_.size()];
  std::string relative = partition_path.empty() ? "" : partition_path + "/";
  relative += std::string(kBucketPrefix) + std::to_string(bucket);
  return Dir{io::JoinPath(LocalOf(root), relative), root + "/" + relative};
}

}  // namespace tributary::meta
