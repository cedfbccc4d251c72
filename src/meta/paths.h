// Every file name of a table, in one place (leveldb's filename.h): the warehouse layout of
// PAIMON_FORMAT.md 1.1. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tributary/schema.h"
#include "tributary/status.h"
#include "tributary/value.h"

namespace tributary::meta {

// The folders of a table directory that hold metadata, not data (everything else is a partition
// or bucket directory), and the names inside them.
inline constexpr const char* kSchemaFolder = "schema";
inline constexpr const char* kSnapshotFolder = "snapshot";
inline constexpr const char* kManifestFolder = "manifest";
inline constexpr const char* kIndexFolder = "index";
inline constexpr const char* kTagFolder = "tag";
inline constexpr const char* kConsumerFolder = "consumer";
inline constexpr const char* kBranchFolder = "branch";
inline constexpr const char* kChangelogFolder = "changelog";
inline constexpr const char* kStatisticsFolder = "statistics";
const std::vector<std::string>& MetadataFolders();
inline constexpr const char* kSchemaPrefix = "schema-";        // schema/schema-<id>
inline constexpr const char* kSnapshotPrefix = "snapshot-";    // snapshot/snapshot-<id>
inline constexpr const char* kChangelogPrefix = "changelog-";  // changelog/changelog-<id>
inline constexpr const char* kTagPrefix = "tag-";              // tag/tag-<name>
inline constexpr const char* kConsumerPrefix = "consumer-";    // consumer/consumer-<id>
inline constexpr const char* kBucketPrefix = "bucket-";        // bucket-<n>
inline constexpr const char* kBranchNamePrefix = "branch-";    // branch/branch-<name>
// The hint files of a snapshot/ or changelog/ folder: the earliest and latest ids in it.
std::string EarliestHintPath(const std::string& dir);
std::string LatestHintPath(const std::string& dir);
bool IsHintFileName(const std::string& name);

std::string DatabasePath(const std::string& warehouse, const std::string& db);
std::string TablePath(const std::string& warehouse, const std::string& db,
                      const std::string& table);
// A branch's folder (`<table>/branch/branch-<name>`) is a table path too: its schema/, snapshot/,
// tag/, changelog/ and consumer/ folders are its own, while manifests, index files and data files
// live in the table's folders (Paimon's layout). DataRoot gives the folder those are in: the table
// for a branch, the path itself otherwise.
bool IsBranchPath(const std::string& table_path);
std::string DataRoot(const std::string& table_path);
std::string SchemaDir(const std::string& table_path);
std::string SchemaPath(const std::string& table_path, int64_t id);
std::string SnapshotDir(const std::string& table_path);
std::string SnapshotPath(const std::string& table_path, int64_t id);
std::string ManifestDir(const std::string& table_path);  // in DataRoot
std::string ManifestPath(const std::string& table_path, const std::string& file_name);
// Index files (dynamic-bucket HASH indexes, deletion vectors): `<table>/index/<file>` (DataRoot).
std::string IndexDir(const std::string& table_path);
std::string IndexPath(const std::string& table_path, const std::string& file_name);
// `<table>/branch/branch-<name>`: a branch's schema/ and snapshot/ folders.
std::string BranchDir(const std::string& table_path);
std::string BranchPath(const std::string& table_path, const std::string& branch);
// `<table>/changelog/changelog-<id>`: a snapshot's JSON kept as a changelog after the snapshot
// expired ('changelog.num-retained.*' beyond 'snapshot.num-retained.*').
std::string ChangelogDir(const std::string& table_path);
std::string LongLivedChangelogPath(const std::string& table_path, int64_t id);
// `<table>/tag/tag-<name>`, `<table>/consumer/consumer-<id>`.
std::string TagDir(const std::string& table_path);
std::string TagPath(const std::string& table_path, const std::string& name);
std::string ConsumerDir(const std::string& table_path);
std::string ConsumerPath(const std::string& table_path, const std::string& consumer_id);

// "k1=v1/k2=v2" with Hive escaping; null or empty values become `default_name`.
// Values are rendered as Paimon's legacy partition names (partition.legacy-name = true).
std::string PartitionPath(const std::vector<Field>& partition_fields, const Row& partition,
                          const std::string& default_name = "__DEFAULT_PARTITION__");
// The string a partition value is shown as (SHOW PARTITIONS, t$partitions, directory names).
std::string PartitionValueString(const Value& v, const DataType& t);
std::string EscapePathName(const std::string& s);
// "k=v/k2=v2" (PartitionPath's form) as (column, value) pairs, values unescaped (%XX).
std::vector<std::pair<std::string, std::string>> SplitPartitionPath(const std::string& path);
// `<DataRoot>/<partition path>/bucket-<n>`.
std::string BucketDir(const std::string& table_path, const std::string& partition_path,
                      int32_t bucket);

// A file name recorded in table metadata (a data, manifest, index or extra file) must be a plain
// name inside its directory: metadata never leads a read or a delete outside the table.
// Corruption naming `what` (the metadata file) otherwise.
Status CheckFileName(const std::string& name, const std::string& what);

// A random UUID (version 4), lower-case, with dashes.
std::string NewUuid();

// Names new files of one kind for one writer: "<prefix><uuid>-<n><suffix>", n counting from 0.
// Thread-safety: not thread-safe; one per writer.
class FileNamer {
 public:
  FileNamer(std::string prefix, std::string suffix)
      : prefix_(std::move(prefix)), uuid_(NewUuid()), suffix_(std::move(suffix)) {}
  std::string Next() { return prefix_ + uuid_ + "-" + std::to_string(counter_++) + suffix_; }

  // 'data-file.external-paths': the recorded form of the directory the named files go to
  // (meta/external_paths.h); each file's manifest entry records "<it>/<name>" as its path.
  const std::optional<std::string>& external_dir() const { return external_dir_; }
  void set_external_dir(std::optional<std::string> dir) { external_dir_ = std::move(dir); }

 private:
  std::optional<std::string> external_dir_;
  std::string prefix_;
  std::string uuid_;
  std::string suffix_;
  int64_t counter_ = 0;
};

}  // namespace tributary::meta
