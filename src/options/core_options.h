// CoreOptions: the typed view of a table's options that the storage code reads (defaults as in
// Paimon). Built once per table or writer from the schema plus dynamic options.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "options/table_option.h"
#include "tributary/result.h"
#include "tributary/schema.h"

namespace tributary::options {

// How data files are encoded: 'file.format' (avro or parquet), 'file.compression', and the
// Parquet page and row-group sizes.
struct FileFormatOptions {
  std::string format = "parquet";
  std::string compression = "zstd";
  int zstd_level = 1;  // 'file.compression.zstd-level'
  int64_t parquet_page_size = 1 << 20;
  int64_t parquet_row_group_size = int64_t{128} << 20;
  bool parquet_dictionary = true;
  // 'file.format.per.level': level -> format.
  std::map<int32_t, std::string> per_level;
  // Paimon's file index: a bloom filter of each of these columns' values per data file
  // ('file-index.bloom-filter.columns', '.<col>.items', '.<col>.fpp'), kept in the manifest entry
  // up to 'file-index.in-manifest-threshold' bytes, else in '<data file>.index'. Data files only:
  // changelog files have none (as Paimon).
  struct BloomFilterColumn {
    std::string column;
    int64_t items = 1000000;
    double fpp = 0.1;
    bool operator==(const BloomFilterColumn&) const = default;
  };
  std::vector<BloomFilterColumn> bloom_filter_columns;
  int64_t file_index_in_manifest_threshold = 500;
  std::string FormatForLevel(int32_t level) const {
    auto it = per_level.find(level);
    return it == per_level.end() ? format : it->second;
  }
  bool operator==(const FileFormatOptions&) const = default;
};

// The initial values restate the option table's defaults (so that a CoreOptions{} is a table's
// with no options set); options_test's CoreOptionsTest.DefaultsAreTheOptionTables checks that they
// equal what From reads for a table without options.
struct CoreOptions {
  int32_t bucket = -1;
  int64_t target_file_size = 128LL << 20;
  int64_t write_buffer_size = 256LL << 20;
  // 'write-buffer-spillable' (unset: the writer decides by where the table is) and
  // 'write-buffer-spill.max-disk-size'.
  std::optional<bool> write_buffer_spillable;
  int64_t write_buffer_spill_max_disk = INT64_MAX;
  std::string spill_compression = "lz4";  // 'spill-compression' (a codec name)
  int32_t sorted_run_trigger = 5;
  int32_t num_levels = 6;               // trigger + 1
  int32_t sorted_run_stop_trigger = 8;  // trigger + 3: asynchronous compaction waits here
  // 'sort-spill-threshold': a merge of more sorted runs spills some first (stop trigger + 1).
  int32_t sort_spill_threshold = 9;
  bool sort_spill_threshold_set = false;  // given (unset: only large merges spill)
  // 'sort-spill-buffer-size': what such a merge's spill segments (written and read back) hold.
  int64_t sort_spill_buffer_size = 64LL << 20;
  int32_t max_size_amp_percent = 200;
  int32_t size_ratio = 1;
  std::string file_format = "parquet";
  FileFormatOptions format;
  std::string partition_default_name = "__DEFAULT_PARTITION__";
  int64_t dynamic_bucket_target_rows = 2000000;
  int32_t dynamic_bucket_initial_buckets = 0;  // 0: unset
  int32_t dynamic_bucket_max_buckets = -1;     // -1: no limit
  MergeEngine merge_engine = MergeEngine::kDeduplicate;
  ChangelogProducer changelog_producer = ChangelogProducer::kNone;
  std::string changelog_file_prefix = "changelog-";
  // How changelog files are encoded: `format` with 'changelog-file.format' and
  // 'changelog-file.compression' applied (one format for every level).
  FileFormatOptions changelog_format;
  bool file_index_read = true;  // 'file-index.read.enabled'
  bool write_only = false;

  // Reads the options of `schema`, overridden by `dynamic` (hints).
  static Result<CoreOptions> From(const TableSchema& schema,
                                  const std::map<std::string, std::string>& dynamic = {});
};

// Paimon's 'scan.mode' as the start of a read, in the words of Fluss's 'scan.startup.mode' that
// the readers implement ("full", "latest", "timestamp", "from-snapshot", and the Paimon-only
// "from-snapshot-full" and "compacted-full"); nullopt for 'default' (the start the other
// options imply). Checks what the mode needs and what it excludes, as Paimon does:
// 'from-snapshot' and 'from-snapshot-full' need 'scan.snapshot-id', 'from-timestamp' a
// timestamp, and the others take neither. 'incremental' and 'from-file-creation-time' are
// refused as not supported yet. docs/streaming.md has the table.
Result<std::optional<std::string>> StartupModeOfScanMode(const std::string& scan_mode,
                                                         bool has_snapshot_id, bool has_timestamp);

// A Flink table definition's 'connector' (`value`), answered before its other options (a Kafka
// table's 'topic' is no unknown Paimon option, it belongs to a connector Tributary does not
// have): always an error saying what to do instead.
Status CheckConnector(std::string_view value);

// Options that fix how a table's stored data is laid out or merged: set at CREATE TABLE, never
// changed by ALTER TABLE SET (Paimon's immutable options plus its bucket rules).
bool FixedAfterCreate(const std::string& key);

// The table as one statement sees it (Paimon's table.copy(dynamicOptions)): `schema` with its
// options overlaid by the statement's hint options, so every reader of the schema's options
// (writers, scans, limits, producers) sees the hints. A hint that would change a fixed option
// ('bucket', 'merge-engine', 'primary-key', ...) to another value is refused: a statement
// cannot read or write the stored data as if it were laid out differently.
Result<std::shared_ptr<const TableSchema>> WithDynamicOptions(
    std::shared_ptr<const TableSchema> schema, const std::map<std::string, std::string>& dynamic);

}  // namespace tributary::options
