#include "table/snapshot_reader.h"

#include "io/file_system.h"
#include "meta/paths.h"

namespace tributary::table {
namespace {
// Paimon before 1.3 could write manifests in ORC (`manifest.format` = 'orc').
Status CheckNotOrc(const std::string& bytes, const std::string& path) {
  if (bytes.compare(0, 3, "ORC") == 0) {
    return Status::NotSupported("'" + path +
                                "' is an ORC file: this table's manifests were written with "
                                "'manifest.format' = 'orc', which Tributary cannot read (it "
                                "reads Avro manifests, the format current Paimon writes)");
  }
  return Status::OK();
}
}  // namespace

Result<std::vector<meta::ManifestFileMeta>> ReadManifestList(const std::string& table_path,
                                                             const std::string& list_name) {
  std::string path = meta::ManifestPath(table_path, list_name);
  TRIB_ASSIGN_OR_RETURN(std::string bytes, io::LocalFs().ReadFile(path));
  TRIB_RETURN_NOT_OK(CheckNotOrc(bytes, path));
  return meta::DecodeManifestList(std::move(bytes), "manifest list '" + path + "'");
}

Result<std::vector<meta::ManifestEntry>> ReadManifest(const std::string& table_path,
                                                      const std::string& manifest_name) {
  std::string path = meta::ManifestPath(table_path, manifest_name);
  TRIB_ASSIGN_OR_RETURN(std::string bytes, io::LocalFs().ReadFile(path));
  TRIB_RETURN_NOT_OK(CheckNotOrc(bytes, path));
  return meta::DecodeManifest(std::move(bytes), "manifest '" + path + "'");
}

namespace {
Status AppendEntries(const std::string& table_path, const std::string& list,
                     std::vector<meta::ManifestEntry>* out) {
  TRIB_ASSIGN_OR_RETURN(auto metas, ReadManifestList(table_path, list));
  for (const auto& m : metas) {
    TRIB_ASSIGN_OR_RETURN(auto entries, ReadManifest(table_path, m.file_name));
    for (auto& e : entries) out->push_back(std::move(e));
  }
  return Status::OK();
}
}  // namespace

Result<std::vector<meta::ManifestEntry>> ReadLiveEntries(const std::string& table_path,
                                                         const meta::Snapshot& snapshot) {
  std::vector<meta::ManifestEntry> all;
  TRIB_RETURN_NOT_OK(AppendEntries(table_path, snapshot.base_manifest_list, &all));
  TRIB_RETURN_NOT_OK(AppendEntries(table_path, snapshot.delta_manifest_list, &all));
  return meta::MergeEntries(all);
}

Result<std::vector<meta::ManifestEntry>> ReadDeltaEntries(const std::string& table_path,
                                                          const meta::Snapshot& snapshot) {
  std::vector<meta::ManifestEntry> all;
  TRIB_RETURN_NOT_OK(AppendEntries(table_path, snapshot.delta_manifest_list, &all));
  return all;
}

}  // namespace tributary::table
