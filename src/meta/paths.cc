#include "meta/paths.h"

#include <cctype>
#include <random>

#include "common/datetime.h"
#include "io/file_system.h"

namespace tributary::meta {

using io::JoinPath;

const std::vector<std::string>& MetadataFolders() {
  static const std::vector<std::string> kFolders = {
      kSchemaFolder,   kSnapshotFolder, kManifestFolder,  kIndexFolder,     kTagFolder,
      kConsumerFolder, kBranchFolder,   kChangelogFolder, kStatisticsFolder};
  return kFolders;
}
std::string EarliestHintPath(const std::string& dir) { return JoinPath(dir, "EARLIEST"); }
std::string LatestHintPath(const std::string& dir) { return JoinPath(dir, "LATEST"); }
bool IsHintFileName(const std::string& name) { return name == "EARLIEST" || name == "LATEST"; }

std::string DatabasePath(const std::string& warehouse, const std::string& db) {
  return JoinPath(warehouse, db + ".db");
}
std::string TablePath(const std::string& warehouse, const std::string& db,
                      const std::string& table) {
  return JoinPath(DatabasePath(warehouse, db), table);
}
std::string SchemaDir(const std::string& t) { return JoinPath(t, kSchemaFolder); }
std::string SchemaPath(const std::string& t, int64_t id) {
  return JoinPath(SchemaDir(t), kSchemaPrefix + std::to_string(id));
}
std::string SnapshotDir(const std::string& t) { return JoinPath(t, kSnapshotFolder); }
std::string SnapshotPath(const std::string& t, int64_t id) {
  return JoinPath(SnapshotDir(t), kSnapshotPrefix + std::to_string(id));
}
namespace {
std::string_view LastComponent(std::string_view p) {
  while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
  const size_t slash = p.rfind('/');
  return slash == std::string_view::npos ? p : p.substr(slash + 1);
}
}  // namespace

bool IsBranchPath(const std::string& t) {
  if (LastComponent(t).rfind(kBranchNamePrefix, 0) != 0) return false;
  return LastComponent(io::ParentPath(t)) == kBranchFolder;
}
std::string DataRoot(const std::string& t) {
  return IsBranchPath(t) ? io::ParentPath(io::ParentPath(t)) : t;
}
std::string ManifestDir(const std::string& t) { return JoinPath(DataRoot(t), kManifestFolder); }
std::string ManifestPath(const std::string& t, const std::string& f) {
  return JoinPath(ManifestDir(t), f);
}

Status CheckFileName(const std::string& name, const std::string& what) {
  bool bad = name.empty() || name == "." || name == ".." ||
             name.find_first_of(std::string("/\\\0", 3)) != std::string::npos;
  if (!bad) return Status::OK();
  return Status::Corruption(what + ": file name '" + name +
                            "' is not a plain name in its directory");
}

std::string IndexDir(const std::string& t) { return JoinPath(DataRoot(t), kIndexFolder); }
std::string IndexPath(const std::string& t, const std::string& f) {
  return JoinPath(IndexDir(t), f);
}
std::string BranchDir(const std::string& t) { return JoinPath(t, kBranchFolder); }
std::string BranchPath(const std::string& t, const std::string& branch) {
  return JoinPath(BranchDir(t), kBranchNamePrefix + branch);
}
std::string ChangelogDir(const std::string& t) { return JoinPath(t, kChangelogFolder); }
std::string LongLivedChangelogPath(const std::string& t, int64_t id) {
  return JoinPath(ChangelogDir(t), kChangelogPrefix + std::to_string(id));
}
std::string TagDir(const std::string& t) { return JoinPath(t, kTagFolder); }
std::string TagPath(const std::string& t, const std::string& name) {
  return JoinPath(TagDir(t), kTagPrefix + name);
}
std::string ConsumerDir(const std::string& t) { return JoinPath(t, kConsumerFolder); }
std::string ConsumerPath(const std::string& t, const std::string& id) {
  return JoinPath(ConsumerDir(t), kConsumerPrefix + id);
}

std::vector<std::pair<std::string, std::string>> SplitPartitionPath(const std::string& path) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t b = 0;
  while (b <= path.size()) {
    size_t e = path.find('/', b);
    if (e == std::string::npos) e = path.size();
    const std::string part = path.substr(b, e - b);
    const size_t eq = part.find('=');
    std::string value;
    const std::string raw = eq == std::string::npos ? "" : part.substr(eq + 1);
    auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
    for (size_t i = 0; i < raw.size(); i++) {
      if (raw[i] == '%' && i + 2 < raw.size() && hex(raw[i + 1]) && hex(raw[i + 2])) {
        value += static_cast<char>(std::stoi(raw.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else {
        value += raw[i];
      }
    }
    out.emplace_back(part.substr(0, eq), value);
    b = e + 1;
  }
  return out;
}

std::string EscapePathName(const std::string& s) {
  static const std::string kSpecial = "\"#%'*/:=?\\\x7f{}[]^";
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (c < 0x20 || kSpecial.find(static_cast<char>(c)) != std::string::npos) {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string PartitionValueString(const Value& v, const DataType& t) {
  if (v.is_null()) return "";
  switch (t.id) {
    case TypeId::kDate:
    case TypeId::kTime:
      return std::to_string(v.int_value());  // legacy names: the internal integer
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz: {
      // Java's Timestamp.toString(): ISO local date-time with 'T'.
      std::string s = FormatTimestamp(v.timestamp_value());
      s[10] = 'T';
      return s;
    }
    default:
      return FormatValue(v, t);
  }
}

std::string PartitionPath(const std::vector<Field>& fields, const Row& partition,
                          const std::string& default_name) {
  std::string out;
  for (size_t i = 0; i < fields.size(); i++) {
    std::string v = PartitionValueString(partition[i], fields[i].type);
    bool blank = v.find_first_not_of(" \t\r\n") == std::string::npos;
    if (!out.empty()) out += "/";
    // The default name is escaped as values are (as Paimon's escapePathName): whatever a schema
    // says, it stays one directory name.
    out += EscapePathName(fields[i].name) + "=" + EscapePathName(blank ? default_name : v);
  }
  return out;
}

std::string BucketDir(const std::string& table_path, const std::string& partition_path,
                      int32_t bucket) {
  std::string b = kBucketPrefix + std::to_string(bucket);
  const std::string root = DataRoot(table_path);
  return partition_path.empty() ? JoinPath(root, b) : JoinPath(JoinPath(root, partition_path), b);
}

std::string NewUuid() {
  static thread_local std::mt19937_64 rng{std::random_device{}() ^
                                          (static_cast<uint64_t>(std::random_device{}()) << 32)};
  uint64_t a = rng(), b = rng();
  a = (a & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;
  b = (b & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xFFFF), static_cast<unsigned>(a & 0xFFFF),
                static_cast<unsigned>(b >> 48),
                static_cast<unsigned long long>(b & 0xFFFFFFFFFFFFULL));
  return buf;
}

}  // namespace tributary::meta
