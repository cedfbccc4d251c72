#include "meta/partition_marker.h"

#include "io/file_system.h"
#include "meta/paths.h"

namespace tributary::meta {

namespace {

constexpr const char* kMarker = "_TRIBUTARY_PARTITION";

// The marked partitions under `rel` (a partition path prefix for keys[0, level)).
Status ListLevel(const std::string& table_path, const std::vector<std::string>& keys, size_t level,
                 const std::string& rel, std::set<std::string>* out) {
  const std::string dir = rel.empty() ? table_path : io::JoinPath(table_path, rel);
  if (level == keys.size()) {
    TRIB_ASSIGN_OR_RETURN(bool marked, io::LocalFs().Exists(io::JoinPath(dir, kMarker)));
    if (marked) out->insert(rel);
    return Status::OK();
  }
  auto entries = io::LocalFs().ListDir(dir);
  if (!entries.ok()) return entries.status().IsNotFound() ? Status::OK() : entries.status();
  const std::string prefix = EscapePathName(keys[level]) + "=";
  for (const auto& e : *entries) {
    if (!e.is_dir || e.name.compare(0, prefix.size(), prefix) != 0) continue;
    TRIB_RETURN_NOT_OK(ListLevel(table_path, keys, level + 1,
                                 rel.empty() ? e.name : io::JoinPath(rel, e.name), out));
  }
  return Status::OK();
}

}  // namespace

std::string PartitionMarkerPath(const std::string& table_path, const std::string& partition_path) {
  return io::JoinPath(io::JoinPath(table_path, partition_path), kMarker);
}

Result<std::set<std::string>> ListMarkedPartitions(const std::string& table_path,
                                                   const std::vector<std::string>& keys) {
  std::set<std::string> out;
  if (keys.empty()) return out;
  TRIB_RETURN_NOT_OK(ListLevel(table_path, keys, 0, "", &out));
  return out;
}

Status MarkPartition(const std::string& table_path, const std::string& partition_path) {
  TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(io::JoinPath(table_path, partition_path)));
  return io::LocalFs().WriteFile(PartitionMarkerPath(table_path, partition_path), "");
}

Status UnmarkPartition(const std::string& table_path, const std::string& partition_path) {
  return io::LocalFs().Remove(PartitionMarkerPath(table_path, partition_path));
}

}  // namespace tributary::meta
