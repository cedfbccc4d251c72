// The option table: every option Tributary knows, in one place. Validation, did-you-mean errors,
// SHOW CREATE TABLE, t$options and docs/options.md are all driven by it. Defaults follow Apache
// Paimon (table options) and Apache Fluss / Flink (the streaming dialect and session options).
// To add an option, add a row here and regenerate the docs (see options_doc_test.cc).
#include <cctype>
#include <string>
#include <vector>

#include "common/path_names.h"
#include "options/option_values.h"
#include "tributary/options.h"

namespace tributary {
namespace {

constexpr OptionType kString = OptionType::kString;
constexpr OptionType kInt = OptionType::kInt;
constexpr OptionType kLong = OptionType::kLong;
constexpr OptionType kBool = OptionType::kBool;
constexpr OptionType kDuration = OptionType::kDuration;
constexpr OptionType kMemory = OptionType::kMemorySize;
constexpr OptionType kEnum = OptionType::kEnum;
constexpr OptionType kDouble = OptionType::kDouble;

// Fluent construction of one row of the table.
class Def {
 public:
  Def(std::string key, OptionType type, std::string default_value, std::string description) {
    d_.key = std::move(key);
    d_.type = type;
    d_.default_value = std::move(default_value);
    d_.description = std::move(description);
    if (type == kInt) {
      d_.min_value = std::numeric_limits<int32_t>::min();
      d_.max_value = std::numeric_limits<int32_t>::max();
    }
  }
  Def& Allowed(std::vector<std::string> values) {
    d_.allowed = std::move(values);
    return *this;
  }
  Def& Alias(std::string alias) {
    d_.aliases.push_back(std::move(alias));
    return *this;
  }
  Def& Scope(OptionScope scope) {
    d_.scope = scope;
    return *this;
  }
  Def& Session() { return Scope(OptionScope::kSession); }
  Def& Catalog() { return Scope(OptionScope::kCatalog); }
  // A query hint (/*+ OPTIONS(...) */) only, refused as a table option.
  Def& HintOnly() {
    d_.hint_only = true;
    return *this;
  }
  // Recognized, documented, but not implemented yet.
  Def& Unsupported() {
    d_.supported = false;
    return *this;
  }
  Def& Min(int64_t v) {
    d_.min_value = v;
    return *this;
  }
  Def& Max(int64_t v) {
    d_.max_value = v;
    return *this;
  }
  Def& List() {
    d_.list = true;
    return *this;
  }
  Def& Columns() {
    d_.column_list = true;
    return *this;
  }
  Def& Validate(Status (*fn)(std::string_view)) {
    d_.validate = fn;
    return *this;
  }
  operator OptionDef() const { return d_; }  // NOLINT: implicit by design

 private:
  OptionDef d_;
};

Status ValidateBucket(std::string_view value) {
  auto n = options::ParseInt64(value);
  if (n.ok() && (*n == -1 || *n == -2 || *n > 0)) return Status::OK();
  return Status::Invalid("bucket must be -1 (dynamic), -2 (postpone) or a positive bucket count");
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Epoch milliseconds, or "YYYY-MM-DD[ HH:MM[:SS[.fff]]]" (also with 'T').
Status ValidateTimestampText(std::string_view value) {
  std::string_view v = options::Trim(value);
  if (AllDigits(v)) return Status::OK();
  auto digits_at = [&v](size_t pos, size_t n) {
    return v.size() >= pos + n && AllDigits(v.substr(pos, n));
  };
  bool ok = digits_at(0, 4) && v.size() >= 10 && v[4] == '-' && digits_at(5, 2) && v[7] == '-' &&
            digits_at(8, 2);
  if (ok && v.size() > 10) {
    ok = (v[10] == ' ' || v[10] == 'T') && digits_at(11, 2) && v.size() >= 16 && v[13] == ':' &&
         digits_at(14, 2);
    if (ok && v.size() > 16) {
      ok = v[16] == ':' && digits_at(17, 2);
      if (ok && v.size() > 19) ok = v[19] == '.' && AllDigits(v.substr(20));
    }
  }
  if (ok) return Status::OK();
  return Status::Invalid("expected epoch milliseconds or 'YYYY-MM-DD HH:MM:SS'");
}

// Options that become parts of file names and paths (common/path_names.h; checked again where
// the path is made).
Status ValidateFileNamePrefix(std::string_view v) { return CheckFileNamePrefix("", v); }
Status ValidateDefaultPartitionName(std::string_view v) {
  // Escaped into the directory name as partition values are (Paimon's escapePathName).
  if (v.empty()) return Status::Invalid("the name of the default partition must not be empty");
  return Status::OK();
}
Status ValidateBranch(std::string_view v) {
  return v == "main" ? Status::OK() : CheckBranchName(v);
}
Status ValidateTagName(std::string_view v) { return v.empty() ? Status::OK() : CheckTagName(v); }
Status ValidateConsumerId(std::string_view v) {
  return v.empty() ? Status::OK() : CheckConsumerId(v);
}

// Every Tributary table is a lake (Paimon) table: 'true' is what it is.
Status ValidateDatalakeEnabled(std::string_view v) {
  if (v == "false") {
    return Status::NotSupported(
        "'table.datalake.enabled' = 'false' (a table kept in the server's hot tier alone, with "
        "a retention) is not supported yet: every table is a lake table");
  }
  return Status::OK();
}

// The hot tier's log of `tributary serve` is written as Arrow IPC batches; Fluss's row formats
// are not built.
Status ValidateLogFormat(std::string_view v) {
  std::string upper(v);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper == "INDEXED" || upper == "COMPACTED") {
    return Status::NotSupported("'table.log.format' = '" + std::string(v) +
                                "' is not supported yet: the hot tier's log is written as "
                                "ARROW batches");
  }
  return Status::OK();
}

Status ValidateScanMode(std::string_view v) {
  if (v == "incremental" || v == "from-file-creation-time") {
    return Status::NotSupported("'" + std::string(v) + "' is not supported yet");
  }
  return Status::OK();
}

// "0:avro,3:parquet": level:format pairs.
Status ValidateLevelMap(std::string_view value) {
  std::string_view rest = value;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view item = options::Trim(rest.substr(0, comma));
    size_t colon = item.find(':');
    if (colon == std::string_view::npos || !AllDigits(options::Trim(item.substr(0, colon))) ||
        options::Trim(item.substr(colon + 1)).empty()) {
      return Status::Invalid("expected level:value pairs such as '0:avro,3:parquet'");
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return Status::OK();
}

// "none", "counts", "full" or "truncate(<n>)".
Status ValidateStatsMode(std::string_view value) {
  std::string_view v = options::Trim(value);
  if (v == "none" || v == "counts" || v == "full") return Status::OK();
  if (v.size() > 10 && v.substr(0, 9) == "truncate(" && v.back() == ')' &&
      AllDigits(v.substr(9, v.size() - 10))) {
    return Status::OK();
  }
  return Status::Invalid("expected none, counts, full or truncate(<n>)");
}

const std::vector<std::string> kAggregateFunctions = {"sum",
                                                      "product",
                                                      "count",
                                                      "max",
                                                      "min",
                                                      "first_value",
                                                      "last_value",
                                                      "first_non_null_value",
                                                      "first_not_null_value",
                                                      "last_non_null_value",
                                                      "listagg",
                                                      "bool_and",
                                                      "bool_or"};

const std::vector<std::string> kCompressions = {"none", "zstd", "lz4", "snappy", "gzip", "deflate"};

std::vector<OptionDef> BuildTable() {
  return {
      // ---- Table kind and layout ----
      Def("type", kEnum, "table", "Kind of table. Only ordinary tables are implemented.")
          .Allowed({"table", "format-table", "materialized-table"}),
      Def("bucket", kInt, "-1",
          "Buckets per partition (or for an unpartitioned table). A positive number is fixed "
          "bucket mode (rows go to hash(bucket key) mod n); -1 is dynamic bucket mode for "
          "primary-key tables and scalable (unordered) mode for append tables; -2 is postpone "
          "mode.")
          .Alias("bucket.num")
          .Validate(ValidateBucket),
      Def("bucket-key", kString, "",
          "Columns hashed to pick a row's bucket, separated by commas. Defaults to the primary "
          "key (minus partition keys); for append tables, the whole row. Must be a subset of the "
          "primary key.")
          .Alias("bucket.key")
          .Columns(),
      Def("bucket-function.type", kEnum, "default",
          "How a bucket is computed from the bucket key: Paimon's hash, a modulus of a single "
          "integer key, or Hive's hash.")
          .Allowed({"default", "mod", "hive"})
          .Unsupported(),
      Def("row-tracking.enabled", kBool, "false",
          "Append tables: give every row a table-wide _ROW_ID and _SEQUENCE_NUMBER (the "
          "$row_tracking system table). Tables Paimon wrote with it are read; creating them is "
          "not supported yet.")
          .Unsupported(),
      Def("data-evolution.enabled", kBool, "false",
          "Row-tracking append tables whose files may each supply some columns of a row-id "
          "range. Tables Paimon wrote with it are read; creating them is not supported yet.")
          .Unsupported(),
      Def("bucket-append-ordered", kBool, "true",
          "Whether reads of a bucketed append table keep the write order within a bucket.")
          .Unsupported(),
      Def("path", kString, "", "File system path of the table (set by the catalog).").Unsupported(),
      Def("comment", kString, "", "Free-text comment of the table."),
      Def("primary-key", kString, "",
          "Primary key columns, as an alternative to PRIMARY KEY in CREATE TABLE.")
          .Columns(),
      Def("partition", kString, "",
          "Partition columns, as an alternative to PARTITIONED BY in CREATE TABLE.")
          .Columns(),
      Def("connector", kString, "",
          "Flink connector of a table definition. Tributary tables are always Paimon tables; "
          "other connectors (datagen, kafka, ...) are not available.")
          .Unsupported(),

      // ---- Merge engines ----
      Def("merge-engine", kEnum, "deduplicate",
          "How rows with the same primary key are merged: keep the last (deduplicate), keep the "
          "first (first-row), merge non-null columns (partial-update), aggregate each column "
          "(aggregation), or keep the highest version (versioned). The Fluss spelling "
          "'table.merge-engine' = 'first_row' is accepted.")
          .Allowed({"deduplicate", "partial-update", "aggregation", "first-row", "versioned"})
          .Alias("table.merge-engine"),
      Def("table.merge-engine.versioned.ver-column", kString, "",
          "Version column of the versioned merge engine (INT, BIGINT, TIMESTAMP or "
          "TIMESTAMP_LTZ): a row replaces the stored one only if its version is not lower.")
          .Columns(),
      Def("ignore-delete", kBool, "false",
          "Drop DELETE and UPDATE_BEFORE records instead of applying them (deduplicate) or "
          "failing (first-row, partial-update). Paimon's engine-specific spellings are the "
          "same option.")
          .Alias("first-row.ignore-delete")
          .Alias("partial-update.ignore-delete")
          .Alias("deduplicate.ignore-delete"),
      Def("partial-update.remove-record-on-delete", kBool, "false",
          "partial-update engine: a DELETE removes the whole row."),
      Def("partial-update.remove-record-on-sequence-group", kString, "",
          "partial-update engine: sequence-group fields whose DELETE (with a newer sequence) "
          "removes the whole row.")
          .Columns(),
      Def("aggregation.remove-record-on-delete", kBool, "false",
          "aggregation engine: a DELETE removes the whole row."),
      Def("ignore-update-before", kBool, "false", "Drop UPDATE_BEFORE records on write.")
          .Unsupported(),
      Def("fields.default-aggregate-function", kEnum, "",
          "aggregation engine: function of the columns without their own "
          "'fields.<col>.aggregate-function' (else last_non_null_value).")
          .Allowed(kAggregateFunctions),
      Def("fields.<col>.aggregate-function", kEnum, "",
          "aggregation engine (or a partial-update sequence group): how column <col> merges. "
          "sum, product and count accept retractions; first_not_null_value is another spelling "
          "of first_non_null_value; listagg joins strings.")
          .Allowed(kAggregateFunctions),
      Def("fields.<col>.ignore-retract", kBool, "false",
          "aggregation engine: ignore UPDATE_BEFORE / DELETE for column <col> instead of "
          "failing when its function cannot retract."),
      Def("fields.<col>.list-agg-delimiter", kString, ",",
          "listagg: the string put between joined values of column <col>."),
      Def("fields.<col>.distinct", kBool, "false",
          "listagg: skip values of column <col> already in the result.")
          .Unsupported(),
      Def("fields.<col>.sequence-group", kString, "",
          "partial-update engine: the columns (comma-separated) that are updated only when the "
          "sequence column <col> is not null and not smaller than the stored one. <col> may be "
          "several columns, 'fields.a,b.sequence-group'.")
          .Columns(),
      Def("fields.<col>.nested-key", kString, "",
          "nested_update aggregation: key fields of the nested rows of column <col>.")
          .Unsupported(),
      Def("fields.<col>.default-value", kString, "",
          "Value read for column <col> where it is null in the data.")
          .Unsupported(),

      // ---- Ordering of records ----
      Def("sequence.field", kString, "",
          "Columns (comma-separated; TINYINT..BIGINT, TIMESTAMP, TIMESTAMP_LTZ) that order "
          "records of one key instead of their arrival order: a record with a smaller value "
          "cannot overwrite a newer one. Nulls sort lowest.")
          .Columns(),
      Def("sequence.field.sort-order", kEnum, "ascending",
          "Order of sequence.field: with descending, the smallest value wins.")
          .Allowed({"ascending", "descending"}),
      Def("sequence.auto-padding", kEnum, "",
          "Padding of sequence.field values: row-kind-flag makes an UPDATE_BEFORE sort before "
          "the UPDATE_AFTER sharing its sequence value; second-to-micro and millis-to-micro "
          "widen coarse time values. Several may be combined with commas.")
          .Allowed({"row-kind-flag", "second-to-micro", "millis-to-micro"})
          .List(),
      Def("sequence.snapshot-ordering", kBool, "false",
          "Order records by the snapshot that wrote them (exclusive with sequence.field).")
          .Unsupported(),
      Def("write.sequence-number-init-mode", kEnum, "scan",
          "How a bucket writer restores its sequence number: from the existing files or the "
          "snapshot.")
          .Allowed({"scan", "snapshot"})
          .Unsupported(),

      // ---- Changelog ----
      Def("changelog-producer", kEnum, "none",
          "How a primary-key table produces its complete changelog for streaming readers: none "
          "(readers see merged deltas), input (the input records are the changelog), lookup "
          "(look up the previous value at commit and emit exact -U/+U), full-compaction (emit "
          "the changelog at full compactions).")
          .Allowed({"none", "input", "lookup", "full-compaction"}),
      Def("changelog-producer.row-deduplicate", kBool, "false",
          "lookup / full-compaction: drop -U/+U pairs whose before and after are equal."),
      Def("changelog-producer.row-deduplicate-ignore-fields", kString, "",
          "Columns ignored when comparing rows for changelog-producer.row-deduplicate.")
          .Columns(),
      Def("full-compaction.delta-commits", kInt, "",
          "Run a full compaction (and, with changelog-producer full-compaction, emit the "
          "changelog) after this many commits.")
          .Min(1),
      Def("lookup-wait", kBool, "true",
          "Whether a commit waits for the lookup compaction of what it writes. 'false' on a "
          "deletion-vector table: a long-lived writer's commits (ingest --commit-every, a "
          "streaming job) publish level-0 files at once and compact them in the background, "
          "batch reads seeing the rows once a later commit takes the compaction in; the end "
          "of an input waits (the lookup changelog is still produced within each commit). With "
          "changelog-producer 'lookup' on a table without deletion vectors, 'false' is not "
          "supported yet.")
          .Alias("changelog-producer.lookup-wait"),
      Def("force-lookup", kBool, "false",
          "Compact with lookups into the higher levels even without the lookup changelog "
          "producer (Paimon's option; Tributary reads tables that set it, and refuses setting "
          "it).")
          .Unsupported(),
      Def("changelog-file.prefix", kString, "changelog-", "File name prefix of changelog files.")
          .Validate(ValidateFileNamePrefix),
      Def("changelog-file.format", kEnum, "", "Format of changelog files (default: file.format).")
          .Allowed({"avro", "parquet", "orc"}),
      Def("changelog-file.compression", kEnum, "",
          "Compression of changelog files (default: file.compression).")
          .Allowed(kCompressions),
      Def("changelog.num-retained.min", kInt, "",
          "The changes of at least this many snapshots are kept (default: "
          "snapshot.num-retained.min); more than the snapshots keep makes expired snapshots' "
          "changes long-lived (changelog/).")
          .Min(1),
      Def("changelog.num-retained.max", kInt, "",
          "The changes of at most this many snapshots are kept (default: "
          "snapshot.num-retained.max).")
          .Min(1),
      Def("changelog.time-retained", kDuration, "",
          "Changes are kept at least this long (default: snapshot.time-retained)."),

      // ---- Files ----
      // Paimon writes Parquet by default, so the table shows "parquet"; this build writes data
      // files only as Avro. Which default a new table gets is decided by the core (table/).
      Def("file.format", kEnum, "parquet",
          "Format of data files: parquet (the default, as Paimon's) or avro; orc is refused (not "
          "supported yet).")
          .Allowed({"avro", "parquet", "orc"}),
      Def("file.format.per.level", kString, "",
          "Data file format per LSM level, e.g. '0:avro,3:parquet'; other levels use "
          "file.format.")
          .Validate(ValidateLevelMap),
      Def("file.compression", kEnum, "zstd", "Compression codec of data files.")
          .Allowed(kCompressions),
      Def("parquet.block.size", kMemory, "128 mb",
          "Parquet row group size: a row group is closed once it holds about this many bytes."),
      Def("parquet.page.size", kMemory, "1 mb", "Parquet data page size before compression."),
      Def("parquet.enable.dictionary", kBool, "true",
          "Dictionary-encode Parquet columns (falling back to plain for high-cardinality ones)."),
      Def("file.compression.per.level", kString, "",
          "Compression codec per LSM level, e.g. '0:lz4,1:zstd'.")
          .Validate(ValidateLevelMap)
          .Unsupported(),
      Def("file.compression.zstd-level", kInt, "1", "zstd level of data files.").Min(1).Max(22),
      Def("file-index.bloom-filter.columns", kString, "",
          "Columns whose values each data file keeps a bloom filter of (Paimon's file index), so "
          "point lookups and equality / IN filters skip files that cannot hold the value.")
          .Columns(),
      Def("file-index.bloom-filter.<col>.items", kLong, "1000000",
          "Values per data file the bloom filter of column <col> is sized for.")
          .Min(1),
      Def("file-index.bloom-filter.<col>.fpp", kDouble, "0.1",
          "False-positive probability of the bloom filter of column <col> at that many values."),
      Def("file-index.in-manifest-threshold", kMemory, "500 b",
          "A data file's index up to this size is kept in its manifest entry; a larger one in a "
          "'<data file>.index' file beside it."),
      Def("file-index.read.enabled", kBool, "true",
          "Reads use the data files' indexes to skip files."),
      Def("file-index.bitmap.columns", kString, "", "Columns with a bitmap file index.")
          .Columns()
          .Unsupported(),
      Def("file-index.bsi.columns", kString, "", "Columns with a bit-sliced file index.")
          .Columns()
          .Unsupported(),
      Def("file.suffix.include.compression", kBool, "false",
          "Put the compression codec into data file names ('.zstd.parquet').")
          .Unsupported(),
      Def("file.block-size", kMemory, "", "Row group (parquet) or stripe (orc) size of data files.")
          .Unsupported(),
      Def("data-file.external-paths", kString, "",
          "Roots (comma-separated URIs; file:///... only, yet) new data and changelog files go "
          "under, as <root>/<partition>/bucket-<n>/<file>, each file's full path recorded in its "
          "manifest entry; used only with a strategy other than 'none' (docs/external-paths.md)."),
      Def("data-file.external-paths.strategy", kEnum, "none",
          "How a root of 'data-file.external-paths' is picked: none (the table's own directory), "
          "round-robin (the roots in turn, one per bucket writer), specific-fs (in turn among "
          "the roots of the scheme 'data-file.external-paths.specific-fs' names).")
          .Allowed({"none", "round-robin", "specific-fs"}),
      Def("data-file.external-paths.specific-fs", kString, "",
          "The scheme ('file') whose roots the 'specific-fs' strategy takes."),
      Def("data-file.prefix", kString, "data-", "File name prefix of data files.")
          .Validate(ValidateFileNamePrefix)
          .Unsupported(),
      Def("data-file.thin-mode", kBool, "false",
          "Leave the _KEY_ columns out of primary-key data files (readers rebuild them).")
          .Unsupported(),
      Def("target-file-size", kMemory, "",
          "Size at which a data file is rolled over: 128 mb for primary-key tables, 256 mb for "
          "append tables when unset."),
      Def("write-buffer-size", kMemory, "256 mb",
          "Memory a bucket writer buffers (sorted and merged) before flushing a level-0 file."),
      Def("write-buffer-spillable", kBool, "",
          "Whether a primary-key table's writer, when 'write-buffer-size' or the process's "
          "memory budget is reached, spills bucket buffers to local disk ('io.tmp.dirs') as "
          "sorted runs instead of flushing them to level-0 files; a bucket's runs are merged "
          "into its level-0 files at the commit. Unset: on for tables on object storage, off "
          "on local disk."),
      Def("write-manifest-cache", kMemory, "0 b",
          "Paimon's cache of the manifests a writer reads to restore its buckets. A Tributary "
          "writer restores each partition it writes from the snapshot's manifests, read "
          "through the process's file cache (docs/memory.md): there is no cache of its own to "
          "size yet.")
          .Unsupported(),
      Def("write-buffer-spill.max-disk-size", kMemory, "",
          "Local disk a writer's spilled buffers may take; past it a full buffer is flushed to "
          "a level-0 file instead (unset: no limit)."),
      Def("spill-compression", kEnum, "lz4",
          "Compression of the segments a writer spills its buffers to ('write-buffer-spillable'): "
          "Paimon's default is zstd, Tributary's lz4 (spills are local and read back once).")
          .Allowed(kCompressions),
      Def("sort-spill-threshold", kInt, "",
          "A read or compaction of a bucket merging more sorted runs than this (each level-0 "
          "file a run, each other level one) first merges the consecutive runs of fewest bytes "
          "that bring it within this number into a local spill file (8 at a time, every record "
          "kept) and reads them back as one run, a segment at a time; at least 2. Unset: "
          "'num-sorted-run.stop-trigger' + 1, as Paimon, for merges of more rows than a "
          "sixteenth of the memory budget holds at 64 bytes a row (smaller merges stay in "
          "memory).")
          .Min(2)
          .Max(INT32_MAX),
      Def("sort-spill-buffer-size", kMemory, "64 mb",
          "Memory of the spill segments of a merge past 'sort-spill-threshold': the merge holds "
          "a segment of each of the (at most 8) runs it merges at once, plus the one it writes, "
          "each cut at a tenth of this size (and at 4,096 records).")
          .Min(1024),
      Def("page-size", kMemory, "64 kb", "Memory page size of the write buffer.").Unsupported(),
      Def("write-only", kBool, "false",
          "Writers skip compaction and snapshot expiration (a separate job does them).")
          .Alias("write.compaction-skip"),
      Def("metadata.stats-mode", kString, "truncate(16)",
          "Column statistics kept in manifests: none, counts, full or truncate(<n>) (min/max "
          "strings cut to n characters).")
          .Validate(ValidateStatsMode)
          .Unsupported(),
      Def("metadata.stats-dense-store", kBool, "true",
          "Store statistics only for the columns that have them.")
          .Unsupported(),
      Def("manifest.compression", kEnum, "zstd", "Compression codec of manifest files.")
          .Allowed(kCompressions),
      Def("manifest.target-file-size", kMemory, "8 mb", "Suggested size of a manifest file.")
          .Unsupported(),
      Def("manifest.merge-min-count", kInt, "30",
          "Manifest files are merged once there are at least this many.")
          .Min(1)
          .Unsupported(),
      Def("manifest.full-compaction-threshold-size", kMemory, "16 mb",
          "Manifests are fully compacted when the deleted entries reach this size.")
          .Unsupported(),
      Def("deletion-vectors.enabled", kBool, "false",
          "Merge-on-write for primary-key tables: each commit compacts its level-0 files up and "
          "marks the rows they replace in deletion vectors, so batch reads skip those rows and "
          "never merge (level-0 files are left out of batch reads until compacted). Fixed after "
          "CREATE TABLE; not with merge engine 'first-row' or changelog-producer "
          "'full-compaction'. See docs/deletion-vectors.md."),

      Def("deletion-vectors.merge-on-read", kBool, "false",
          "Batch reads and point lookups of a deletion-vector table merge its level-0 files into "
          "the rest (less the rows the vectors delete) instead of leaving them out until "
          "compacted: fresher, slower. A table option or a query hint; a streaming read's first "
          "plan always reads so."),
      Def("index-file-in-data-file-dir", kBool, "false",
          "Deletion-vector index files in the bucket's directory instead of index/, as Paimon "
          "writes them. Not supported yet for dynamic-bucket tables ('bucket' = '-1'), whose "
          "key index files Tributary keeps in index/."),
      Def("deletion-vectors.bitmap64", kBool, "false",
          "Deletion vectors in the 64-bit roaring form (Paimon's Roaring64 layout, for files of "
          "more than 2^31 rows) instead of the 32-bit one. Takes effect for vectors written from "
          "then on; both forms are read."),
      Def("deletion-vectors.modifiable", kBool, "false",
          "Whether ALTER TABLE may turn 'deletion-vectors.enabled' on or off. Tributary compacts "
          "the table fully (in the mode its files were written in) before the mode changes, so "
          "no row is duplicated or comes back; stop other writers first."),

      // ---- LSM compaction ----
      Def("num-sorted-run.compaction-trigger", kInt, "5",
          "Sorted runs (level-0 files plus non-empty levels) that trigger a compaction.")
          .Min(1),
      Def("num-sorted-run.stop-trigger", kInt, "",
          "Sorted runs at which writes stall until compaction catches up (default: "
          "compaction-trigger + 3).")
          .Min(1),
      Def("num-levels", kInt, "", "Number of LSM levels (default: compaction-trigger + 1).").Min(2),
      Def("compaction.max-size-amplification-percent", kInt, "200",
          "Full compaction when the size of the upper levels exceeds this percentage of the "
          "last level.")
          .Min(0),
      Def("compaction.size-ratio", kInt, "1",
          "Percentage of size difference under which sorted runs are compacted together.")
          .Min(0),
      Def("compaction.min.file-num", kInt, "5",
          "Append tables: a window of consecutive small files is compacted once it has this many "
          "files and reaches 'target-file-size'.")
          .Min(1),
      Def("compaction.max.file-num", kInt, "50",
          "Append tables: a window of consecutive small files this long is compacted whatever "
          "its size.")
          .Min(2),
      Def("compaction.force-up-level-0", kBool, "false",
          "Always compact level-0 files into a higher level.")
          .Unsupported(),
      Def("compaction.optimization-interval", kDuration, "",
          "Run a full compaction at least this often.")
          .Unsupported(),
      Def("commit.force-compact", kBool, "false", "Compact before every commit.").Unsupported(),
      Def("lookup-compact", kEnum, "radical",
          "How often the lookup changelog producer compacts level-0 files.")
          .Allowed({"radical", "gentle"})
          .Unsupported(),

      // ---- Commit and retention ----
      Def("commit.max-retries", kInt, "50",
          "Times a commit that lost a race with another writer is retried, each after a short "
          "random wait (1 to 5 ms more per lost race). Paimon's default is 10, with Flink's one "
          "committer per table; Tributary's writers are separate processes that race on one "
          "table, hence 50.")
          .Min(0),
      Def("commit.timeout", kDuration, "", "Give up retrying a commit after this long.")
          .Unsupported(),
      Def("commit.min-retry-wait", kDuration, "10 ms", "Shortest back-off between commit retries.")
          .Unsupported(),
      Def("commit.max-retry-wait", kDuration, "10 s", "Longest back-off between commit retries.")
          .Unsupported(),
      Def("commit.user-prefix", kString, "", "Prefix of the commitUser written into snapshots.")
          .Unsupported(),
      Def("snapshot.num-retained.min", kInt, "10", "Snapshots always kept by expiration.").Min(1),
      Def("snapshot.num-retained.max", kInt, "2147483647", "Snapshots kept at most by expiration.")
          .Min(1),
      Def("snapshot.time-retained", kDuration, "1 h",
          "Snapshots younger than this are kept by expiration."),
      Def("snapshot.expire.limit", kInt, "50", "Snapshots removed at most by one expiration.")
          .Min(1),
      Def("snapshot.clean-empty-directories", kBool, "false",
          "Remove partition and bucket directories left empty by expiration.")
          .Unsupported(),
      Def("partition.expiration-time", kDuration, "",
          "Partitions whose time (partition.expiration-strategy) is older than this are dropped."),
      Def("partition.expiration-check-interval", kDuration, "1 h",
          "How often a long-lived writer (tributary ingest) checks for expired partitions; 0: at "
          "every commit, SQL writes included."),
      Def("partition.expiration-strategy", kEnum, "values-time",
          "What a partition's time is: values-time (read from its values) or update-time (the "
          "creation of its newest file).")
          .Allowed({"values-time", "update-time"}),
      Def("partition.expiration-max-num", kInt, "100",
          "Partitions dropped at most by one expiration.")
          .Min(1),
      Def("end-input.check-partition-expire", kBool, "false",
          "A SQL write (a batch job) checks for expired partitions when it ends."),
      Def("partition.timestamp-formatter", kString, "",
          "Format of partition values for partition expiration, e.g. 'yyyyMMdd' (Java "
          "DateTimeFormatter letters y M d H m s S); default yyyy-MM-dd[ HH:mm:ss]."),
      Def("partition.timestamp-pattern", kString, "",
          "How partition columns form a time for partition expiration, e.g. '$dt $hour:00:00' "
          "(default: the first partition value)."),
      Def("tag.automatic-creation", kEnum, "none",
          "Create tags automatically from snapshot time, watermark or batch runs.")
          .Allowed({"none", "process-time", "watermark", "batch"})
          .Unsupported(),

      // ---- Partitions ----
      Def("partition.default-name", kString, "__DEFAULT_PARTITION__",
          "Directory name of the partition for null or blank partition values.")
          .Validate(ValidateDefaultPartitionName),
      Def("partition.legacy-name", kBool, "true",
          "Name partition directories from the internal value (a DATE as its day number) as "
          "Paimon always did; false formats values as SQL text.")
          .Unsupported(),
      Def("table.auto-partition.enabled", kBool, "false",
          "Create future partitions and drop old ones automatically, by time."),
      Def("table.auto-partition.time-unit", kEnum, "DAY",
          "Granularity of automatic partitions; values are yyyyMMddHH, yyyyMMdd, yyyyMM, yyyyQ "
          "or yyyy.")
          .Allowed({"HOUR", "DAY", "MONTH", "QUARTER", "YEAR"}),
      Def("table.auto-partition.num-precreate", kInt, "2",
          "Automatic partitions created ahead, the current one included (0 with several "
          "partition columns).")
          .Min(0),
      Def("table.auto-partition.num-retention", kInt, "7",
          "Older automatic partitions kept; older ones are dropped (negative: keep all).")
          .Min(-1),
      Def("table.auto-partition.time-zone", kString, "",
          "Time zone of automatic partition values (default: the machine's)."),
      Def("table.auto-partition.key", kString, "",
          "The time partition column when the table has several partition columns.")
          .Columns(),
      Def("client.writer.dynamic-create-partition.enabled", kBool, "true",
          "Writing into a missing partition creates it."),
      Def("max.partition.num", kInt, "1000", "Partitions a table may have at most.").Min(1),
      Def("max.bucket.num", kInt, "128000",
          "Buckets (partitions times buckets) a table may have at most.")
          .Min(1),
      Def("scan.plan-sort-partition", kBool, "false",
          "Queue append tables: read partitions in partition-value order instead of creation "
          "order."),

      // ---- Dynamic bucket ----
      Def("dynamic-bucket.target-row-num", kLong, "2000000",
          "Dynamic bucket mode: rows a bucket receives before a new bucket is opened.")
          .Min(1),
      Def("dynamic-bucket.initial-buckets", kInt, "",
          "Dynamic bucket mode: buckets a partition starts with (unset: one per writer thread, "
          "as Paimon's parallel bucket assigners; see TRIBUTARY_THREADS).")
          .Min(1),
      Def("dynamic-bucket.max-buckets", kInt, "-1",
          "Dynamic bucket mode: buckets a partition may have at most (-1: no limit); once "
          "reached, new keys go to the existing buckets.")
          .Min(-1),
      Def("cross-partition-upsert.index-ttl", kDuration, "",
          "Cross-partition updates: how long a key stays in the key-to-partition index.")
          .Unsupported(),

      // ---- Reading ----
      Def("scan.startup.mode", kEnum, "full",
          "Where a streaming read starts: full (a snapshot of all rows, then changes), earliest "
          "(all retained changes), latest (changes from now on), timestamp (changes committed "
          "at or after scan.startup.timestamp), from-snapshot (the changes of scan.snapshot-id "
          "on); also Paimon's values of scan.mode with their meanings (latest-full, "
          "from-timestamp, from-snapshot-full, compacted-full, default).")
          .Allowed({"full", "earliest", "latest", "timestamp", "from-snapshot", "default",
                    "latest-full", "from-timestamp", "from-snapshot-full", "compacted-full",
                    "incremental", "from-file-creation-time"})
          .Validate(ValidateScanMode),
      Def("scan.startup.timestamp", kString, "",
          "Start of a timestamp startup: epoch milliseconds or 'YYYY-MM-DD HH:MM:SS' in the "
          "session time zone.")
          .Validate(ValidateTimestampText),
      Def("scan.mode", kEnum, "default",
          "Paimon's key for where a read starts: latest-full (full; a streaming read: the latest "
          "snapshot, then its changes), latest (changes from now on), from-timestamp, "
          "from-snapshot (a streaming read: the changes of scan.snapshot-id on), "
          "from-snapshot-full (that snapshot whole, then its changes), compacted-full (the "
          "latest compacted snapshot, then changes), default (what the other options imply). "
          "Beside scan.startup.mode: a hint wins over a table option; both set at one level "
          "must agree. incremental and from-file-creation-time are not supported yet.")
          .Allowed({"default", "latest-full", "full", "latest", "compacted-full", "from-timestamp",
                    "from-snapshot", "from-snapshot-full", "incremental",
                    "from-file-creation-time"})
          .Alias("log.scan")
          .Validate(ValidateScanMode),
      Def("incremental-between", kString, "",
          "Paimon's incremental query: the changes between two snapshots or tags ('1,5', "
          "'tag1,tag2').")
          .Unsupported(),
      Def("incremental-between-timestamp", kString, "",
          "Paimon's incremental query between two times ('t1,t2', epoch milliseconds).")
          .Unsupported(),
      Def("incremental-between-scan-mode", kEnum, "auto",
          "What an incremental query reads: 'auto', 'delta', 'changelog' or 'diff'.")
          .Allowed({"auto", "delta", "changelog", "diff"})
          .Unsupported(),
      Def("scan.snapshot-id", kLong, "",
          "Read from this snapshot: a batch read reads it, a streaming read starts there.")
          .Min(1),
      Def("scan.timestamp-millis", kLong, "",
          "Read the snapshot current at this epoch time (batch) or the changes after it "
          "(streaming).")
          .Alias("log.scan.timestamp-millis")
          .Min(0),
      Def("scan.timestamp", kString, "",
          "Like scan.timestamp-millis, as 'YYYY-MM-DD HH:MM:SS' in the session time zone (a "
          "query hint).")
          .Validate(ValidateTimestampText),
      Def("branch", kString, "main", "The branch a query reads or writes (as t$branch_<name>).")
          .Validate(ValidateBranch)
          .HintOnly(),
      Def("scan.fallback-branch", kString, "",
          "A batch read of this table reads the partitions it lacks from this branch (each "
          "partition from the table when it has it, else from the branch; branches: CALL "
          "sys.create_branch)."),
      Def("scan.tag-name", kString, "",
          "Read the snapshot of this tag (a batch read; tags: CALL sys.create_tag).")
          .Validate(ValidateTagName),
      Def("scan.watermark", kLong, "",
          "Read the first snapshot whose watermark is at or after this value (epoch "
          "milliseconds; snapshots written by Flink jobs with watermarks carry one)."),
      Def("scan.bounded.watermark", kLong, "",
          "A streaming read ends at the first snapshot whose watermark passes this value.")
          .Unsupported(),
      Def("scan.parallelism", kInt, "", "Parallelism of reads.").Min(1).Unsupported(),
      Def("streaming-read-overwrite", kBool, "false",
          "Streaming reads also read the rows of INSERT OVERWRITE snapshots.")
          .Unsupported(),
      Def("consumer-id", kString, "",
          "Named consumer whose progress is stored with the table, so a streaming read resumes "
          "where it stopped and snapshot expiration keeps what it has not read.")
          .Validate(ValidateConsumerId),
      Def("consumer.expiration-time", kDuration, "",
          "A consumer not updated for this long is removed (checked after each commit), so it "
          "no longer keeps snapshots from expiring."),
      Def("consumer.ignore-progress", kBool, "false",
          "A streaming read with a consumer-id starts by its start-up mode instead of resuming "
          "from the stored position (which it then updates)."),
      Def("continuous.discovery-interval", kDuration, "50 ms",
          "How often a streaming read looks for a new snapshot when it found none: set, at most "
          "that often; unset, every 50 ms (a stat locally, one HEAD on object storage) and at "
          "once when the reader's own process publishes a snapshot of the table. Paimon's "
          "default is 10 s; Tributary's is lower, for latency."),
      Def("read.batch-size", kInt, "1024", "Rows per batch of a read.").Min(1).Unsupported(),
      Def("lookup.cache", kEnum, "AUTO",
          "Streaming lookup joins on this table: AUTO or NONE (each key looked up in the latest "
          "snapshot), PARTIAL (looked-up rows kept until they expire) or FULL (the whole table "
          "in memory, loaded again after each commit).")
          .Allowed({"AUTO", "FULL", "PARTIAL", "NONE"}),
      Def("lookup.partial-cache.expire-after-write", kDuration, "",
          "PARTIAL lookup cache: an entry expires this long after it was loaded."),
      Def("lookup.partial-cache.expire-after-access", kDuration, "",
          "PARTIAL lookup cache: an entry expires this long after it was last read."),
      Def("lookup.partial-cache.max-rows", kLong, "",
          "PARTIAL lookup cache: rows cached at most (least recently used first out).")
          .Min(1),
      Def("lookup.async", kBool, "false",
          "Streaming lookup joins look the keys of a batch up on several threads at once."),
      Def("lookup.async-thread-number", kInt, "16",
          "Threads of asynchronous lookups ('lookup.async').")
          .Min(1)
          .Max(1024),
      Def("lookup.cache-rows", kLong, "10000", "Rows cached by lookups in memory.")
          .Min(0)
          .Unsupported(),
      Def("lookup.cache-max-memory-size", kMemory, "256 mb",
          "Memory a writer with changelog-producer lookup keeps its keys' values in, so its next "
          "commits find their before-images without reading the files."),
      Def("lookup.cache-max-disk-size", kMemory, "",
          "Local disk used by lookup files at most (default: unlimited).")
          .Unsupported(),
      Def("lookup.cache-file-retention", kDuration, "1 h",
          "Local lookup files unused for this long are deleted.")
          .Unsupported(),
      Def("client.lookup.queue-size", kInt, "",
          "Fluss client: lookups into this table queued at most. Tributary's lookup joins and "
          "delta joins look up at most this many keys of a batch of changes at a time (default: "
          "the whole batch at once).")
          .Min(1),

      // ---- Writing ----
      Def("sink.parallelism", kInt, "", "Parallelism of writes.").Min(1).Unsupported(),
      Def("dynamic-partition-overwrite", kBool, "true",
          "INSERT OVERWRITE replaces only the partitions it writes to (false: the whole table, "
          "or the static partition)."),
      Def("local-merge-buffer-size", kMemory, "",
          "Merge rows of the same key in memory before they reach the bucket writer.")
          .Unsupported(),
      Def("record-level.expire-time", kDuration, "",
          "Rows whose record-level.time-field is older than this are dropped by compaction.")
          .Unsupported(),
      Def("record-level.time-field", kString, "", "Time column of record-level expiration.")
          .Columns()
          .Unsupported(),
      Def("rowkind.field", kString, "",
          "Column holding the row kind (+I, -U, +U, -D) of each input row.")
          .Columns()
          .Unsupported(),

      // ---- Fluss (streaming storage) table options ----
      Def("table.log.format", kEnum, "ARROW",
          "Format of the log of tributary serve's hot tier: ARROW (each statement's rows as an "
          "Arrow IPC stream of column batches); Fluss's row formats INDEXED and COMPACTED are "
          "not supported yet.")
          .Allowed({"ARROW", "INDEXED", "COMPACTED"})
          .Validate(ValidateLogFormat),
      Def("table.log.arrow.compression.type", kEnum, "ZSTD",
          "Compression of the hot tier's ARROW log batches (each buffer: NONE, LZ4_FRAME or "
          "ZSTD; a buffer that would not shrink is kept as it is).")
          .Allowed({"NONE", "LZ4_FRAME", "ZSTD"}),
      Def("table.log.arrow.compression.zstd.level", kInt, "3",
          "zstd level of the hot tier's ARROW log batches.")
          .Min(1)
          .Max(22),
      Def("table.log.ttl", kDuration, "7 d", "Change log older than this is deleted.")
          .Unsupported(),
      Def("table.kv.format", kEnum, "COMPACTED", "Row format of the key-value store.")
          .Allowed({"COMPACTED", "INDEXED"})
          .Unsupported(),
      Def("table.replication.factor", kInt, "", "Replicas of each bucket (server mode).")
          .Min(1)
          .Unsupported(),
      Def("table.datalake.enabled", kBool, "true",
          "Whether the table is tiered into lake (Paimon) files: every Tributary table is a "
          "lake table, which tributary serve's hot tier commits into (Fluss's default is "
          "'false', a table kept in Fluss alone: not supported yet).")
          .Validate(ValidateDatalakeEnabled),
      Def("table.datalake.freshness", kDuration, "",
          "How far the lake may lag behind the hot tier of tributary serve: the server commits "
          "the table's log at least this often (unset: the server's interval, "
          "TRIBUTARY_HOT_TIER_FRESHNESS_MS, 1 s by default; Fluss's default is 3 min). Writes "
          "made without the server go to the lake directly."),

      // ---- Session options (SET 'key' = 'value') ----
      Def("execution.runtime-mode", kEnum, "batch",
          "batch: a query reads a snapshot and ends. streaming: a query reads continuously and "
          "prints each change with its op (+I, -U, +U, -D).")
          .Allowed({"batch", "streaming"})
          .Session(),
      Def("table.local-time-zone", kString, "default",
          "Session time zone, as Flink's ('default': the machine's; unset: UTC, so results "
          "do not depend on the machine): TIMESTAMP_LTZ values (instants) are shown in it and "
          "cast through it to and from TIMESTAMP, DATE, TIME and strings; LOCALTIMESTAMP, "
          "CURRENT_DATE, UNIX_TIMESTAMP(s) and FROM_UNIXTIME use it; date-time strings such as "
          "scan.startup.timestamp and casts of evolved columns are read in it.")
          .Session(),
      Def("sql-client.execution.result-mode", kEnum, "table",
          "How the shell shows query results. The shell prints rows as they arrive, as Flink's "
          "'tableau' mode does: 'tableau' is accepted (the first line of many Flink scripts); "
          "'table' and 'changelog' (Flink's interactive result views) are refused as not "
          "supported yet.")
          .Allowed({"table", "changelog", "tableau"})
          .Session(),
      Def("sql-client.execution.max-table-result.rows", kInt, "1000000",
          "Rows a query result keeps at most in the shell.")
          .Min(1)
          .Session()
          .Unsupported(),
      Def("sql-client.display.max-rows", kInt, "",
          "Rows the table output format prints at most; a line then says how many more the "
          "result had (unset: every row, but the interactive shell on a terminal prints what fits "
          "the window; CSV and JSON always print every row).")
          .Min(1)
          .Session(),
      Def("sql-client.display.max-column-width", kInt, "",
          "Widest column of the table output format: longer cells are cut and end in '...' "
          "(unset: no limit; the Flink SQL client cuts at 30).")
          .Min(1)
          .Session(),
      Def("table.exec.sink.upsert-materialize", kEnum, "AUTO",
          "Flink planner setting; writes to primary-key tables are always merged by storage. "
          "Accepted for compatibility.")
          .Allowed({"NONE", "AUTO", "FORCE"})
          .Session()
          .Unsupported(),
      Def("table.dml-sync", kBool, "false",
          "Wait for INSERT to finish. Tributary statements always run to completion; accepted "
          "for compatibility.")
          .Session()
          .Unsupported(),
      Def("parallelism.default", kInt, "1", "Threads used by a statement.")
          .Min(1)
          .Session()
          .Unsupported(),
      Def("sql.sort.memory-limit", kMemory, "128 mb",
          "Memory an ORDER BY holds (Flink's table.exec.resource.sort.memory; unset: also at "
          "most a quarter of TRIBUTARY_MEMORY_MB): a larger input is sorted in runs of this "
          "size spilled to 'io.tmp.dirs' and merged. Also what a "
          "window function holds: past it, calls sharing one PARTITION BY sort their input "
          "by it the same way and compute whole partitions at a time (a larger partition, or "
          "calls partitioned differently, is an error naming this setting); ORDER BY ... LIMIT "
          "n holds about 2n rows, a top-N n rows per partition. Results without ORDER BY, "
          "GROUP BY, DISTINCT, set operations, joins or windows stream and hold one batch.")
          .Session(),
      Def("sql.join.memory-limit", kMemory, "1 gb",
          "Memory the build side of a hash join may hold (the input with fewer rows, when the "
          "tables' snapshots say so; else the right input); past it both inputs spill to "
          "'io.tmp.dirs' in partitions by key (rows keys cannot split are joined in chunks of "
          "this size), except for a join whose condition runs a subquery per row: an error "
          "naming this setting.")
          .Session(),
      Def("sql.aggregate.memory-limit", kMemory, "128 mb",
          "Memory a hash aggregation holds (Flink's table.exec.resource.hash-agg.memory; unset: "
          "also at most a quarter of TRIBUTARY_MEMORY_MB): past "
          "it a GROUP BY spills the rows of the groups it does not hold to 'io.tmp.dirs' and "
          "aggregates them afterwards, partition by partition; a SELECT DISTINCT or UNION "
          "spills the rows it has not seen and hands out their distinct rows afterwards; "
          "INTERSECT and EXCEPT spill the rows of the values they have not counted (both "
          "inputs', in pairs of partitions) and the distinct rows still to return. The "
          "DISTINCT values and LISTAGG "
          "text of an aggregate without GROUP BY (or of the groups held, beyond twice this) "
          "are bounded by it without spilling: more is an error naming this setting.")
          .Session(),
      Def("io.tmp.dirs", kString, "",
          "Local directories where ORDER BY, GROUP BY, SELECT DISTINCT, UNION, INTERSECT, "
          "EXCEPT, window functions, hash joins, reads merging more sorted runs than "
          "'sort-spill-threshold' and writers ('write-buffer-spillable') spill what "
          "outgrows their memory "
          "limits (Flink's key), separated by ',' or ':' and used in turn (unset: $TMPDIR, "
          "else /tmp). Spill files are deleted as they are made: they take space only while "
          "the query runs.")
          .Session(),
      Def("execution.checkpointing.interval", kDuration, "1 s",
          "How often a streaming INSERT (a job) commits its sink: each commit publishes the "
          "changes written since the last one with the sources' positions (docs/streaming.md).")
          .Session(),
      Def("execution.checkpointing.mode", kEnum, "EXACTLY_ONCE", "Checkpoint guarantee.")
          .Allowed({"EXACTLY_ONCE", "AT_LEAST_ONCE"})
          .Session()
          .Unsupported(),
      Def("pipeline.name", kString, "",
          "Name of a streaming INSERT's job: a restart of the job with the same name resumes "
          "where its last commit left its sources (unset: 'insert-into_<db>.<table>').")
          .Session(),
      Def("table.exec.state.ttl", kDuration, "0 ms", "Flink state retention of stateful operators.")
          .Session()
          .Unsupported(),
      Def("table.exec.resource.default-parallelism", kInt, "-1",
          "Default parallelism of operators (-1: parallelism.default).")
          .Min(-1)
          .Session()
          .Unsupported(),
      Def("table.exec.mini-batch.enabled", kBool, "false", "Buffer input rows in mini batches.")
          .Session()
          .Unsupported(),
      Def("table.exec.delta-join.cache-enabled", kBool, "true",
          "Delta join: keep the rows each side's lookups found, by join key, kept current with "
          "that side's changes.")
          .Session(),
      Def("table.exec.delta-join.left.cache-size", kLong, "10000",
          "Delta join: join keys of the left side's rows cached (least recently used dropped "
          "first); positive while the cache is enabled.")
          .Min(0)
          .Session(),
      Def("table.exec.delta-join.right.cache-size", kLong, "10000",
          "Delta join: join keys of the right side's rows cached (least recently used dropped "
          "first); positive while the cache is enabled.")
          .Min(0)
          .Session(),
      Def("table.exec.async-lookup.buffer-capacity", kInt, "",
          "Asynchronous lookups in flight at most: keys a delta join, or a lookup join with "
          "'lookup.async', looks up at a time (default: a whole batch of changes at once).")
          .Min(1)
          .Session(),
      Def("table.optimizer.delta-join.strategy", kEnum, "AUTO",
          "Delta join planning of a streaming INNER join of two primary-key tables: AUTO (when "
          "the requirements hold), FORCE (an error saying why otherwise) or NONE (no delta "
          "join; a regular streaming join is not supported yet).")
          .Allowed({"AUTO", "FORCE", "NONE"})
          .Session(),

      // ---- Catalog options (CREATE CATALOG c WITH (...)) ----
      Def("type", kEnum, "paimon",
          "Catalog kind: paimon (a Paimon warehouse) or fluss (the streaming-storage dialect; "
          "same local warehouse).")
          .Allowed({"paimon", "fluss"})
          .Catalog(),
      Def("warehouse", kString, "",
          "Warehouse of the catalog: a local directory, a file:// URI, or s3://bucket/prefix "
          "(also s3a://) on S3-compatible object storage. Other schemes (hdfs://, oss://, gs://) "
          "are not supported yet.")
          .Catalog(),
      Def("s3.endpoint", kString, "",
          "Object storage: the S3 endpoint (http://127.0.0.1:9000); default AWS_ENDPOINT_URL, "
          "else AWS's endpoint of the region. An IP address or localhost is addressed "
          "path-style.")
          .Catalog(),
      Def("s3.access-key", kString, "",
          "Object storage: the access key (default AWS_ACCESS_KEY_ID).")
          .Catalog(),
      Def("s3.secret-key", kString, "",
          "Object storage: the secret key (default AWS_SECRET_ACCESS_KEY); never shown.")
          .Catalog(),
      Def("s3.region", kString, "us-east-1",
          "Object storage: the region requests are signed for (default AWS_REGION, else "
          "AWS_DEFAULT_REGION, else us-east-1).")
          .Catalog(),
      Def("s3.path.style.access", kBool, "false",
          "Object storage: address the bucket path-style (endpoint/bucket/key), as MinIO and "
          "most local stores want.")
          .Catalog(),
      Def("s3.multipart.threshold", kMemory, "32 mb",
          "Object storage: a data file larger than this is uploaded in parts (S3's multipart "
          "upload), several at once.")
          .Catalog(),
      Def("s3.multipart.size", kMemory, "16 mb",
          "Object storage: the size of each part of a multipart upload (at least 5 mb, S3's "
          "minimum).")
          .Catalog(),
      Def("s3.single-writer", kBool, "false",
          "Object storage that ignores conditional writes (If-None-Match): commit there anyway, "
          "promising that only one writer ever writes these tables.")
          .Catalog(),
      Def("metastore", kEnum, "filesystem", "Where table metadata lives.")
          .Allowed({"filesystem", "hive", "jdbc", "rest"})
          .Catalog()
          .Unsupported(),
      Def("default-database", kString, "default", "Database used when none is named.").Catalog(),
      Def("bootstrap.servers", kString, "",
          "Fluss catalog: coordinator address of a Fluss cluster (not supported; Tributary "
          "stores tables locally).")
          .Catalog()
          .Unsupported(),
  };
}

}  // namespace

const std::vector<OptionDef>& AllOptions() {
  static const std::vector<OptionDef>* table = new std::vector<OptionDef>(BuildTable());
  return *table;
}

}  // namespace tributary
