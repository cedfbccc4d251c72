// Manifest metadata of a table (PAIMON_FORMAT.md 1.4): data file metas, manifest entries (ADD or
// DELETE of one file), manifest files and manifest lists, read and written as Paimon's Avro files.
// Plain value types; the readers resolve fields by name so files from other Paimon versions work.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tributary/result.h"

namespace tributary::meta {

// Column statistics: min and max values as serialized BinaryRows, null counts per column.
struct SimpleStats {
  std::string min_values;
  std::string max_values;
  std::vector<std::optional<int64_t>> null_counts;
  bool has_null_counts = true;
};

enum class FileSource { kAppend = 0, kCompact = 1 };

struct DataFileMeta {
  std::string file_name;
  int64_t file_size = 0;
  int64_t row_count = 0;
  std::string min_key;  // serialized BinaryRow of the trimmed primary key
  std::string max_key;
  SimpleStats key_stats;
  SimpleStats value_stats;
  int64_t min_sequence_number = 0;
  int64_t max_sequence_number = 0;
  int64_t schema_id = 0;
  int32_t level = 0;
  std::vector<std::string> extra_files;
  std::optional<int64_t> creation_time_millis;
  std::optional<int64_t> delete_row_count;
  std::optional<std::string> embedded_file_index;
  std::optional<FileSource> file_source;
  std::optional<std::vector<std::string>> value_stats_cols;
  std::optional<std::string> external_path;
  std::optional<int64_t> first_row_id;
  std::optional<std::vector<std::string>> write_cols;
};

enum class FileKind { kAdd = 0, kDelete = 1 };

struct ManifestEntry {
  FileKind kind = FileKind::kAdd;
  std::string partition;  // serialized BinaryRow
  int32_t bucket = 0;
  int32_t total_buckets = 0;
  DataFileMeta file;

  // What identifies a file across ADD/DELETE entries.
  std::string Identifier() const;
};

struct ManifestFileMeta {
  std::string file_name;
  int64_t file_size = 0;
  int64_t num_added_files = 0;
  int64_t num_deleted_files = 0;
  SimpleStats partition_stats;
  int64_t schema_id = 0;
  std::optional<int32_t> min_bucket, max_bucket, min_level, max_level;
  std::optional<int64_t> min_row_id, max_row_id;
};

// One deletion vector inside an index file: the data file it applies to, and where its bytes are.
struct DeletionVectorRange {
  std::string data_file;
  int32_t offset = 0;  // of the 4-byte length that precedes the vector
  int32_t length = 0;
  std::optional<int64_t> cardinality;
};

// An entry of the index manifest (`indexManifest` of a snapshot): one index file of one bucket.
struct IndexManifestEntry {
  FileKind kind = FileKind::kAdd;
  std::string partition;  // serialized BinaryRow
  int32_t bucket = 0;
  std::string index_type;  // "HASH", "DELETION_VECTORS", global index types
  std::string file_name;
  int64_t file_size = 0;
  int64_t row_count = 0;
  std::vector<DeletionVectorRange> dv_ranges;
  std::optional<std::string> external_path;
};

Result<std::vector<IndexManifestEntry>> DecodeIndexManifest(std::string file,
                                                            const std::string& what);
Result<std::string> EncodeIndexManifest(const std::vector<IndexManifestEntry>& entries,
                                        const std::string& codec);

// Encodes a manifest file (Avro, `codec` = "zstandard" etc.).
Result<std::string> EncodeManifest(const std::vector<ManifestEntry>& entries,
                                   const std::string& codec);
Result<std::vector<ManifestEntry>> DecodeManifest(std::string file, const std::string& what);
Result<std::string> EncodeManifestList(const std::vector<ManifestFileMeta>& metas,
                                       const std::string& codec);
Result<std::vector<ManifestFileMeta>> DecodeManifestList(std::string file, const std::string& what);

// Applies ADD/DELETE entries in order: a DELETE cancels the earlier ADD of the same file.
// Returns the live ADD entries (order of first appearance).
std::vector<ManifestEntry> MergeEntries(const std::vector<ManifestEntry>& entries);
// The same, moving the live entries out of `entries` (no second copy of their strings).
std::vector<ManifestEntry> MergeEntries(std::vector<ManifestEntry>&& entries);
// MergeEntries fed a manifest at a time: an entry deleted later is freed as soon as its DELETE
// is seen, so reading a snapshot's manifests holds about its live entries, not every entry of
// its manifests at once.
class LiveEntryMerger {
 public:
  void Add(ManifestEntry&& e);
  std::vector<ManifestEntry> Finish() &&;
  size_t entries_seen() const { return seen_; }

 private:
  std::vector<ManifestEntry> live_;
  std::vector<bool> alive_;
  std::unordered_map<std::string, size_t> index_;
  size_t seen_ = 0;
};
// The live entries `live` with `delta` applied in order: exactly what LiveEntryMerger gives for
// `live` then `delta` (a DELETE removes the latest entry added under its identifier while it is
// indexed; ADDs append), computing the identifiers of `live` only when `delta` deletes something.
std::vector<ManifestEntry> ApplyEntries(const std::vector<ManifestEntry>& live,
                                        std::vector<ManifestEntry> delta);
// About how many bytes of memory `e` takes (its strings and vectors included): what a cache of
// entries charges against its budget.
int64_t ApproxBytes(const ManifestEntry& e);

}  // namespace tributary::meta
