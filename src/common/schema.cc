#include "tributary/schema.h"

#include <algorithm>

#include "common/strings.h"
#include "tributary/catalog.h"

namespace tributary {

int TableSchema::FieldIndex(const std::string& name) const {
  for (size_t i = 0; i < fields.size(); i++) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<std::string> TableSchema::TrimmedPrimaryKeys() const {
  std::vector<std::string> out;
  for (const auto& k : primary_keys) {
    if (std::find(partition_keys.begin(), partition_keys.end(), k) == partition_keys.end()) {
      out.push_back(k);
    }
  }
  return out;
}

std::vector<std::string> TableSchema::BucketKeys() const {
  auto it = options.find("bucket-key");
  if (it != options.end() && !it->second.empty()) {
    return SplitCommaList(it->second);
  }
  if (HasPrimaryKey()) return TrimmedPrimaryKeys();
  std::vector<std::string> out;
  for (const auto& f : fields) {
    if (std::find(partition_keys.begin(), partition_keys.end(), f.name) == partition_keys.end()) {
      out.push_back(f.name);
    }
  }
  return out;
}

std::optional<std::string> TableSchema::Option(const std::string& key) const {
  auto it = options.find(key);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

int32_t TableSchema::NumBuckets() const {
  auto v = Option("bucket");
  if (!v) return -1;
  try {
    return std::stoi(*v);
  } catch (...) {
    return -1;
  }
}

namespace {
// Splits on '.' outside backquotes; strips backquotes.
std::vector<std::string> SplitName(const std::string& s) {
  std::vector<std::string> parts;
  std::string cur;
  bool quoted = false;
  for (char c : s) {
    if (c == '`') {
      quoted = !quoted;
    } else if (c == '.' && !quoted) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}
}  // namespace

Result<Identifier> Identifier::Parse(const std::string& text, const std::string& default_db) {
  std::vector<std::string> parts = SplitName(text);
  if (parts.size() > 3 || parts.empty()) {
    return Status::Invalid("invalid table name '" + text + "'");
  }
  Identifier id;
  std::string table = parts.back();
  id.database = parts.size() >= 2 ? parts[parts.size() - 2] : default_db;
  size_t dollar = table.find('$');
  if (dollar != std::string::npos) {
    Status st = id.SetSuffix(table.substr(dollar + 1));
    if (!st.ok()) return Status::Invalid("invalid table name '" + text + "': " + st.message());
    table = table.substr(0, dollar);
  }
  id.table = table;
  if (id.table.empty() || id.database.empty()) {
    return Status::Invalid("invalid table name '" + text + "'");
  }
  return id;
}

Status Identifier::SetSuffix(const std::string& suffix) {
  constexpr std::string_view kBranch = "branch_";
  system_table = suffix;
  branch.clear();
  if (!suffix.starts_with(kBranch)) {
    if (suffix.empty()) return Status::Invalid("missing system table name after '$'");
    return Status::OK();
  }
  const size_t dollar = suffix.find('$');
  branch = suffix.substr(kBranch.size(),
                         dollar == std::string::npos ? std::string::npos : dollar - kBranch.size());
  system_table = dollar == std::string::npos ? "" : suffix.substr(dollar + 1);
  if (branch.empty()) return Status::Invalid("missing branch name after '$branch_'");
  if (dollar != std::string::npos && system_table.empty()) {
    return Status::Invalid("missing system table name after '$branch_" + branch + "$'");
  }
  return Status::OK();
}

std::string Identifier::ToString() const {
  std::string s = database + "." + table;
  if (!branch.empty()) s += "$branch_" + branch;
  if (!system_table.empty()) s += "$" + system_table;
  return s;
}

}  // namespace tributary
