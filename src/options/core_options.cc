#include "options/core_options.h"

#include <cmath>
#include <set>

#include "common/path_names.h"
#include "common/strings.h"
#include "options/option_values.h"
#include "options/table_option.h"
#include "tributary/options.h"

namespace tributary::options {

Result<CoreOptions> CoreOptions::From(const TableSchema& schema,
                                      const std::map<std::string, std::string>& dynamic) {
  std::map<std::string, std::string> opts = schema.options;
  for (const auto& [k, v] : dynamic) opts[k] = v;
  CoreOptions o;
  if (schema.HasPrimaryKey())
    o.target_file_size = 128LL << 20;
  else
    o.target_file_size = 256LL << 20;
  auto get = [&](const char* k) -> const std::string* {
    auto it = opts.find(k);
    return it == opts.end() ? nullptr : &it->second;
  };
  // A number (a memory size in bytes) from the options, else the option table's default; an
  // option without default leaves *out as it is (a default derived from other options).
  auto int_opt = [&](const char* k, auto* out) -> Status {
    const OptionDef* def = FindOption(OptionScope::kTable, k);
    if (!get(k) && (def == nullptr || def->default_value.empty())) return Status::OK();
    TRIB_ASSIGN_OR_RETURN(int64_t v, Get(opts, TableOption<int64_t>{k}));
    *out = static_cast<std::remove_pointer_t<decltype(out)>>(v);
    return Status::OK();
  };
  auto mem_opt = int_opt;
  auto bool_opt = [&](const char* k, bool* out) -> Status {
    TRIB_ASSIGN_OR_RETURN(*out, Get(opts, TableOption<bool>{k}));
    return Status::OK();
  };
  auto string_opt = [&](const char* k, std::string* out) -> Status {
    TRIB_ASSIGN_OR_RETURN(*out, Get(opts, TableOption<std::string>{k}));
    return Status::OK();
  };
  TRIB_RETURN_NOT_OK(int_opt("bucket", &o.bucket));
  TRIB_RETURN_NOT_OK(mem_opt("target-file-size", &o.target_file_size));
  TRIB_RETURN_NOT_OK(mem_opt("write-buffer-size", &o.write_buffer_size));
  if (get("write-buffer-spillable")) {
    bool spillable = false;
    TRIB_RETURN_NOT_OK(bool_opt("write-buffer-spillable", &spillable));
    o.write_buffer_spillable = spillable;
  }
  TRIB_RETURN_NOT_OK(mem_opt("write-buffer-spill.max-disk-size", &o.write_buffer_spill_max_disk));
  TRIB_RETURN_NOT_OK(string_opt("spill-compression", &o.spill_compression));
  TRIB_RETURN_NOT_OK(int_opt("num-sorted-run.compaction-trigger", &o.sorted_run_trigger));
  o.num_levels = o.sorted_run_trigger + 1;
  TRIB_RETURN_NOT_OK(int_opt("num-levels", &o.num_levels));
  o.sorted_run_stop_trigger = o.sorted_run_trigger + 3;
  TRIB_RETURN_NOT_OK(int_opt("num-sorted-run.stop-trigger", &o.sorted_run_stop_trigger));
  o.sort_spill_threshold =
      o.sorted_run_stop_trigger < INT32_MAX ? o.sorted_run_stop_trigger + 1 : INT32_MAX;
  TRIB_RETURN_NOT_OK(int_opt("sort-spill-threshold", &o.sort_spill_threshold));
  o.sort_spill_threshold_set = get("sort-spill-threshold") != nullptr;
  TRIB_RETURN_NOT_OK(mem_opt("sort-spill-buffer-size", &o.sort_spill_buffer_size));
  if (o.sort_spill_threshold < 2) {
    return Status::Invalid("option 'sort-spill-threshold' must be at least 2, not " +
                           std::to_string(o.sort_spill_threshold));
  }
  TRIB_RETURN_NOT_OK(int_opt("compaction.max-size-amplification-percent", &o.max_size_amp_percent));
  TRIB_RETURN_NOT_OK(int_opt("compaction.size-ratio", &o.size_ratio));
  TRIB_RETURN_NOT_OK(int_opt("dynamic-bucket.target-row-num", &o.dynamic_bucket_target_rows));
  TRIB_RETURN_NOT_OK(int_opt("dynamic-bucket.initial-buckets", &o.dynamic_bucket_initial_buckets));
  if (o.dynamic_bucket_target_rows < 1) {
    return Status::Invalid("option 'dynamic-bucket.target-row-num' must be positive");
  }
  TRIB_RETURN_NOT_OK(int_opt("dynamic-bucket.max-buckets", &o.dynamic_bucket_max_buckets));
  if (o.dynamic_bucket_max_buckets == 0 || o.dynamic_bucket_max_buckets < -1) {
    return Status::Invalid(
        "option 'dynamic-bucket.max-buckets' must be -1 (no limit) or "
        "positive, not " +
        std::to_string(o.dynamic_bucket_max_buckets));
  }
  TRIB_RETURN_NOT_OK(string_opt("file.format", &o.file_format));
  o.format.format = o.file_format;
  TRIB_RETURN_NOT_OK(string_opt("file.compression", &o.format.compression));
  TRIB_RETURN_NOT_OK(int_opt("file.compression.zstd-level", &o.format.zstd_level));
  TRIB_RETURN_NOT_OK(mem_opt("parquet.page.size", &o.format.parquet_page_size));
  TRIB_RETURN_NOT_OK(mem_opt("parquet.block.size", &o.format.parquet_row_group_size));
  TRIB_RETURN_NOT_OK(bool_opt("parquet.enable.dictionary", &o.format.parquet_dictionary));
  if (const std::string* v = get("file.format.per.level")) {
    // "0:avro,1:parquet"
    size_t b = 0;
    while (b < v->size()) {
      size_t e = v->find(',', b);
      if (e == std::string::npos) e = v->size();
      std::string part(options::Trim(std::string_view(*v).substr(b, e - b)));
      size_t colon = part.find(':');
      auto level = colon == std::string::npos ? Result<int64_t>(Status::Invalid(""))
                                              : options::ParseInt64(part.substr(0, colon));
      if (!level.ok()) {
        return Status::Invalid(
            "option 'file.format.per.level': expected 'level:format' pairs "
            "such as '0:avro,1:parquet', got '" +
            part + "'");
      }
      o.format.per_level[static_cast<int32_t>(*level)] = part.substr(colon + 1);
      b = e + 1;
    }
  }
  for (const std::string& f : [&] {
         std::vector<std::string> all = {o.format.format};
         for (const auto& [l, f] : o.format.per_level) all.push_back(f);
         return all;
       }()) {
    if (f != "parquet" && f != "avro") {
      return Status::NotSupported("file.format '" + f +
                                  "' cannot be written; use 'parquet' or "
                                  "'avro'");
    }
  }
  TRIB_RETURN_NOT_OK(string_opt("partition.default-name", &o.partition_default_name));
  TRIB_ASSIGN_OR_RETURN(o.merge_engine, Get(opts, TableOption<MergeEngine>{"merge-engine"}));
  TRIB_ASSIGN_OR_RETURN(o.changelog_producer,
                        Get(opts, TableOption<ChangelogProducer>{"changelog-producer"}));
  TRIB_RETURN_NOT_OK(string_opt("changelog-file.prefix", &o.changelog_file_prefix));
  // Checked at CREATE and ALTER too; again here for schemas written elsewhere.
  TRIB_RETURN_NOT_OK(CheckFileNamePrefix("changelog-file.prefix", o.changelog_file_prefix));
  if (const std::string* v = get("data-file.prefix")) {
    TRIB_RETURN_NOT_OK(CheckFileNamePrefix("data-file.prefix", *v));
  }
  if (const std::string* v = get("file-index.bloom-filter.columns")) {
    for (const std::string& part : SplitCommaList(*v)) {
      FileFormatOptions::BloomFilterColumn b;
      b.column = part;
      const int f = schema.FieldIndex(b.column);
      if (f < 0) {
        return Status::Invalid("option 'file-index.bloom-filter.columns': no column '" + b.column +
                               "'");
      }
      const DataType& t = schema.fields[f].type;
      if (!(t.IsInteger() || t.IsFloating() || t.IsString() || t.IsBinary() || t.IsTimestamp() ||
            t.id == TypeId::kDate || t.id == TypeId::kTime)) {
        return Status::Invalid("option 'file-index.bloom-filter.columns': column '" + b.column +
                               "' is of type " + t.ToSqlString() +
                               ", which has no bloom filter "
                               "(BOOLEAN, DECIMAL and nested types have none, as in Paimon)");
      }
      const std::string prefix = "file-index.bloom-filter." + b.column;
      TRIB_RETURN_NOT_OK(int_opt((prefix + ".items").c_str(), &b.items));
      if (const std::string* fpp = get((prefix + ".fpp").c_str())) {
        char* end = nullptr;
        b.fpp = std::strtod(fpp->c_str(), &end);
        if (end == fpp->c_str() || *end != '\0' || !(b.fpp > 0 && b.fpp < 1)) {
          return Status::Invalid("option '" + prefix + ".fpp': '" + *fpp +
                                 "' is not a probability between 0 and 1");
        }
      }
      // Paimon's filter holds at most 2^31 bits (an int bit count).
      const double bits =
          -static_cast<double>(b.items) * std::log(b.fpp) / (std::log(2.0) * std::log(2.0));
      if (bits > 2147483639.0) {
        return Status::Invalid("options '" + prefix + ".items' and '.fpp': a bloom filter of " +
                               std::to_string(b.items) + " values at " + std::to_string(b.fpp) +
                               " would need more than 2^31 bits; lower the items or raise fpp");
      }
      bool listed = false;
      for (const auto& other : o.format.bloom_filter_columns)
        listed = listed || other.column == b.column;
      if (!listed) o.format.bloom_filter_columns.push_back(std::move(b));
    }
  }
  // Per-column settings of a column without a filter would do nothing: refused.
  for (const auto& [key, value] : opts) {
    if (!key.starts_with("file-index.bloom-filter.") || key == "file-index.bloom-filter.columns") {
      continue;
    }
    bool known = false;
    for (const auto& b : o.format.bloom_filter_columns) {
      known = known || key == "file-index.bloom-filter." + b.column + ".items" ||
              key == "file-index.bloom-filter." + b.column + ".fpp";
    }
    if (!known) {
      return Status::Invalid("option '" + key +
                             "' names a column that "
                             "'file-index.bloom-filter.columns' does not list");
    }
  }
  TRIB_RETURN_NOT_OK(
      mem_opt("file-index.in-manifest-threshold", &o.format.file_index_in_manifest_threshold));
  TRIB_RETURN_NOT_OK(bool_opt("file-index.read.enabled", &o.file_index_read));
  o.changelog_format = o.format;
  o.changelog_format.per_level.clear();
  o.changelog_format.bloom_filter_columns.clear();  // changelog files have no index
  if (const std::string* v = get("changelog-file.format"); v && !v->empty()) {
    if (*v != "parquet" && *v != "avro") {
      return Status::NotSupported("changelog-file.format '" + *v +
                                  "' cannot be written; use "
                                  "'parquet' or 'avro'");
    }
    o.changelog_format.format = *v;
  }
  if (const std::string* v = get("changelog-file.compression"); v && !v->empty()) {
    o.changelog_format.compression = *v;
  }
  TRIB_RETURN_NOT_OK(bool_opt("write-only", &o.write_only));
  if (o.num_levels < 2) return Status::Invalid("option 'num-levels' must be at least 2");
  if (o.sorted_run_trigger < 1) {
    return Status::Invalid("option 'num-sorted-run.compaction-trigger' must be at least 1");
  }
  if (o.target_file_size <= 0) return Status::Invalid("option 'target-file-size' must be positive");
  return o;
}

Result<std::optional<std::string>> StartupModeOfScanMode(const std::string& scan_mode,
                                                         bool has_snapshot_id, bool has_timestamp) {
  const std::string m(Trim(scan_mode));
  auto needs = [&](bool have, const char* what) -> Status {
    if (have) return Status::OK();
    return Status::Invalid("'scan.mode' = '" + m + "' needs " + what);
  };
  auto excludes = [&]() -> Status {
    if (!has_snapshot_id && !has_timestamp) return Status::OK();
    return Status::Invalid(
        std::string("'scan.mode' = '") + m + "' reads from " +
        (m == "compacted-full" ? "the latest compacted snapshot" : "the latest snapshot") +
        ", so " + (has_snapshot_id ? "'scan.snapshot-id'" : "a timestamp") +
        " must not be set with it (use 'from-snapshot' or 'from-timestamp')");
  };
  if (m == "default") return std::optional<std::string>();
  if (m == "latest-full" || m == "full") {
    TRIB_RETURN_NOT_OK(excludes());
    return std::optional<std::string>("full");
  }
  if (m == "latest") {
    TRIB_RETURN_NOT_OK(excludes());
    return std::optional<std::string>("latest");
  }
  if (m == "compacted-full") {
    TRIB_RETURN_NOT_OK(excludes());
    return std::optional<std::string>("compacted-full");
  }
  if (m == "from-timestamp") {
    TRIB_RETURN_NOT_OK(needs(has_timestamp, "'scan.timestamp-millis' or 'scan.timestamp'"));
    return std::optional<std::string>("timestamp");
  }
  if (m == "from-snapshot" || m == "from-snapshot-full") {
    TRIB_RETURN_NOT_OK(needs(has_snapshot_id, "'scan.snapshot-id'"));
    return std::optional<std::string>(m);
  }
  if (m == "incremental" || m == "from-file-creation-time") {
    return Status::NotSupported("'scan.mode' = '" + m + "' is not supported yet");
  }
  return Status::Invalid("unknown 'scan.mode' '" + m + "'");
}

Status CheckConnector(std::string_view value) {
  const std::string connector = AsciiLower(Trim(value));
  if (connector == "paimon" || connector == "fluss") {
    return Status::Invalid("'connector' = '" + std::string(value) +
                           "' is not needed: every "
                           "Tributary table is a Paimon table; leave the option out");
  }
  return Status::NotSupported("the '" + std::string(value) +
                              "' connector is not supported: a "
                              "Tributary table is always a Paimon table. To bring a stream's "
                              "changes in, write them as Debezium JSON to `tributary ingest`; "
                              "leave 'connector' and the connector's options out");
}

bool FixedAfterCreate(const std::string& key) {
  static const std::set<std::string> kFixed = {"merge-engine", "sequence.field", "bucket-key",
                                               "changelog-producer"};
  // Automatic partitioning is fixed at creation, as in Fluss.
  return kFixed.count(key) > 0 || key.rfind("table.auto-partition.", 0) == 0;
}

Result<std::shared_ptr<const TableSchema>> WithDynamicOptions(
    std::shared_ptr<const TableSchema> schema, const std::map<std::string, std::string>& dynamic) {
  if (dynamic.empty()) return schema;
  for (const auto& [k, v] : dynamic) {
    std::optional<std::string> had = schema->Option(k);
    if (!had) {
      const OptionDef* def = FindOption(OptionScope::kTable, k);
      if (def && !def->default_value.empty()) had = def->default_value;
    }
    if (had == std::optional<std::string>(v)) continue;
    if (FixedAfterCreate(k) || k == "bucket" || k == "primary-key" || k == "partition" ||
        k == "deletion-vectors.enabled") {
      return Status::NotSupported("option '" + k + "' cannot be set by a hint to '" + v +
                                  "': the table has " + (had ? "'" + *had + "'" : "no value") +
                                  " and its stored data is laid out by it");
    }
  }
  auto copy = std::make_shared<TableSchema>(*schema);
  for (const auto& [k, v] : dynamic) copy->options[k] = v;
  return std::shared_ptr<const TableSchema>(std::move(copy));
}

}  // namespace tributary::options
