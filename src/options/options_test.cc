#include "tributary/options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "options/core_options.h"
#include "options/option_keys.h"
#include "tributary/schema.h"

namespace tributary {
namespace {

using ::testing::HasSubstr;

constexpr OptionScope kTable = OptionScope::kTable;
constexpr OptionScope kSession = OptionScope::kSession;
constexpr OptionScope kCatalog = OptionScope::kCatalog;

std::string ErrorOf(OptionScope scope, std::string_view key, std::string_view value,
                    const std::vector<std::string>& columns = {}) {
  auto r = CheckOption(scope, key, value, columns);
  EXPECT_FALSE(r.ok()) << key << " = " << value;
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  return r.status().message();
}

std::string Canonical(OptionScope scope, std::string_view key, std::string_view value,
                      const std::vector<std::string>& columns = {}) {
  auto r = CheckOption(scope, key, value, columns);
  EXPECT_TRUE(r.ok()) << key << " = " << value << ": " << r.status().ToString();
  return r.ok() ? *r : "";
}

TEST(OptionTableTest, KeysAreUniquePerScopeAndWellFormed) {
  std::set<std::pair<int, std::string>> seen;
  for (const OptionDef& def : AllOptions()) {
    EXPECT_FALSE(def.description.empty()) << def.key;
    EXPECT_TRUE(seen.insert({static_cast<int>(def.scope), def.key}).second) << def.key;
    for (const std::string& alias : def.aliases) {
      EXPECT_TRUE(seen.insert({static_cast<int>(def.scope), alias}).second) << alias;
    }
    if (def.type == OptionType::kEnum) {
      EXPECT_FALSE(def.allowed.empty()) << def.key;
    } else {
      EXPECT_TRUE(def.allowed.empty()) << def.key;
    }
    // Every default is itself a valid value.
    if (!def.default_value.empty() && def.key.find("<col>") == std::string::npos) {
      auto r = CheckOption(def.scope, def.key, def.default_value);
      EXPECT_TRUE(r.ok()) << def.key << ": " << r.status().ToString();
    }
  }
}

// Every typed key code reads (option_keys.h) is a canonical key of the option table, of a type its
// C++ type reads, with a default (when it has one) that parses.
TEST(TableOptionKeys, MatchTheTable) {
  int n = 0;
#define TRIBUTARY_CHECK_TABLE_OPTION(name, type, key)       \
  {                                                         \
    std::string t = #type;                                  \
    if (t == "std::string") t = "string";                   \
    Status st = options::CheckTableOption(key, t.c_str());  \
    EXPECT_TRUE(st.ok()) << #name << ": " << st.ToString(); \
    n++;                                                    \
  }
  TRIBUTARY_TABLE_OPTIONS(TRIBUTARY_CHECK_TABLE_OPTION)
#undef TRIBUTARY_CHECK_TABLE_OPTION
  EXPECT_GT(n, 30);
  // And a check that fails: a key not in the table, a type that does not read it.
  EXPECT_FALSE(options::CheckTableOption("no-such.option", "bool").ok());
  EXPECT_FALSE(options::CheckTableOption("bucket", "bool").ok());
  EXPECT_FALSE(options::CheckTableOption("bucket.num", "int64_t").ok());  // an alias
}

TEST(TableOptionKeys, TypedValuesAndDefaults) {
  using options::Get;
  std::map<std::string, std::string> none;
  EXPECT_EQ(*Get(none, options::kMaxPartitionNum), 1000);
  EXPECT_EQ(*Get(none, options::kSnapshotTimeRetained), 3600 * 1000);
  EXPECT_EQ(*Get(none, options::kLookupCacheMaxMemorySize), int64_t{256} << 20);
  EXPECT_EQ(*Get(none, options::kMergeEngine), options::MergeEngine::kDeduplicate);
  EXPECT_EQ(*Get(none, options::kChangelogProducer), options::ChangelogProducer::kNone);
  EXPECT_TRUE(*Get(none, options::kFileIndexReadEnabled));
  EXPECT_EQ(*Get(none, options::kPartitionDefaultName), "__DEFAULT_PARTITION__");
  EXPECT_FALSE(options::IsSet(none, options::kScanSnapshotId));
  EXPECT_FALSE(Get(none, options::kScanSnapshotId).ok());  // unset, no default
  std::map<std::string, std::string> set{{"merge-engine", "first_row"},
                                         {"changelog-producer", "lookup"},
                                         {"commit.max-retries", "x"},
                                         {"consumer.expiration-time", "2 min"}};
  EXPECT_EQ(*Get(set, options::kMergeEngine), options::MergeEngine::kFirstRow);
  EXPECT_EQ(*Get(set, options::kChangelogProducer), options::ChangelogProducer::kLookup);
  EXPECT_EQ(*Get(set, options::kConsumerExpirationTime), 120000);
  auto bad = Get(set, options::kCommitMaxRetries);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), ::testing::HasSubstr("'commit.max-retries' = 'x'"));
}

// An enum option reads as the option table spells it, whatever spelling another tool stored
// (Java Paimon writes values as its users typed them): no reader compares cases by hand.
TEST(TableOptionKeys, EnumValuesReadInTheTablesSpelling) {
  using options::Get;
  std::map<std::string, std::string> set{
      {"table.log.arrow.compression.type", "lz4-frame"},
      {"manifest.compression", "ZSTD"},
      {"sequence.field.sort-order", "Descending"},
      {"sequence.auto-padding", "Row_Kind_Flag , millis-to-micro"},
      {"table.log.format", "zstd"}};
  EXPECT_EQ(*Get(set, options::kTableLogArrowCompressionType), "LZ4_FRAME");
  EXPECT_EQ(*Get(set, options::kManifestCompression), "zstd");
  EXPECT_EQ(*Get(set, options::kSequenceFieldSortOrder), "descending");
  EXPECT_EQ(*Get(set, options::kSequenceAutoPadding), "row-kind-flag,millis-to-micro");
  auto bad = Get(set, options::kTableLogFormat);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), ::testing::HasSubstr("'table.log.format' = 'zstd'"));
  std::map<std::string, std::string> none;
  EXPECT_EQ(*Get(none, options::kTableLogArrowCompressionType), "ZSTD");
  EXPECT_EQ(*Get(none, options::kSequenceAutoPadding), "");  // unset, no default
}

// CoreOptions' initial values restate the option table's defaults: they must equal what From
// reads for a table that sets no option.
TEST(CoreOptionsTest, DefaultsAreTheOptionTables) {
  TableSchema schema;
  Field id;
  id.name = "id";
  id.type = DataType::Int();
  id.type.nullable = false;
  schema.fields = {id};
  schema.primary_keys = {"id"};
  auto read = options::CoreOptions::From(schema);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  const options::CoreOptions initial;
  EXPECT_EQ(initial.bucket, read->bucket);
  EXPECT_EQ(initial.target_file_size, read->target_file_size);  // a primary-key table's
  EXPECT_EQ(initial.write_buffer_size, read->write_buffer_size);
  EXPECT_EQ(initial.sorted_run_trigger, read->sorted_run_trigger);
  EXPECT_EQ(initial.num_levels, read->num_levels);
  EXPECT_EQ(initial.sorted_run_stop_trigger, read->sorted_run_stop_trigger);
  EXPECT_EQ(initial.max_size_amp_percent, read->max_size_amp_percent);
  EXPECT_EQ(initial.size_ratio, read->size_ratio);
  EXPECT_EQ(initial.file_format, read->file_format);
  EXPECT_TRUE(initial.format == read->format);
  EXPECT_EQ(initial.partition_default_name, read->partition_default_name);
  EXPECT_EQ(initial.dynamic_bucket_target_rows, read->dynamic_bucket_target_rows);
  EXPECT_EQ(initial.dynamic_bucket_initial_buckets, read->dynamic_bucket_initial_buckets);
  EXPECT_EQ(initial.dynamic_bucket_max_buckets, read->dynamic_bucket_max_buckets);
  EXPECT_EQ(initial.merge_engine, read->merge_engine);
  EXPECT_EQ(initial.changelog_producer, read->changelog_producer);
  EXPECT_EQ(initial.changelog_file_prefix, read->changelog_file_prefix);
  EXPECT_EQ(initial.file_index_read, read->file_index_read);
  EXPECT_EQ(initial.write_only, read->write_only);
}

TEST(OptionTableTest, PaimonDefaults) {
  auto dflt = [](std::string_view key) {
    const OptionDef* def = FindOption(kTable, key);
    EXPECT_NE(def, nullptr) << key;
    return def ? def->default_value : "";
  };
  EXPECT_EQ(dflt("bucket"), "-1");
  EXPECT_EQ(dflt("merge-engine"), "deduplicate");
  EXPECT_EQ(dflt("changelog-producer"), "none");
  EXPECT_EQ(dflt("file.format"), "parquet");
  EXPECT_EQ(dflt("file.compression"), "zstd");
  EXPECT_EQ(dflt("manifest.compression"), "zstd");
  EXPECT_EQ(dflt("num-sorted-run.compaction-trigger"), "5");
  EXPECT_EQ(dflt("compaction.max-size-amplification-percent"), "200");
  EXPECT_EQ(dflt("compaction.size-ratio"), "1");
  EXPECT_EQ(dflt("write-buffer-size"), "256 mb");
  EXPECT_EQ(dflt("snapshot.time-retained"), "1 h");
  EXPECT_EQ(dflt("snapshot.num-retained.min"), "10");
  EXPECT_EQ(dflt("commit.max-retries"), "50");  // Paimon: 10 (see the option table)
  EXPECT_EQ(dflt("dynamic-bucket.target-row-num"), "2000000");
  EXPECT_EQ(dflt("partition.default-name"), "__DEFAULT_PARTITION__");
  EXPECT_EQ(dflt("partition.legacy-name"), "true");
  EXPECT_EQ(dflt("data-file.prefix"), "data-");
  EXPECT_EQ(dflt("changelog-file.prefix"), "changelog-");
  EXPECT_EQ(dflt("metadata.stats-mode"), "truncate(16)");
  EXPECT_EQ(dflt("max.partition.num"), "1000");
  EXPECT_EQ(dflt("max.bucket.num"), "128000");
  EXPECT_EQ(dflt("table.auto-partition.num-precreate"), "2");
  EXPECT_EQ(dflt("table.auto-partition.num-retention"), "7");
  EXPECT_EQ(dflt("client.writer.dynamic-create-partition.enabled"), "true");
  EXPECT_EQ(dflt("table.log.format"), "ARROW");
  EXPECT_EQ(dflt("scan.startup.mode"), "full");
  EXPECT_EQ(FindOption(kSession, "execution.runtime-mode")->default_value, "batch");
}

// Every key/value pair the seed documents write (/work/shared/seeds), typos excluded.
TEST(OptionsTest, SeedOptionsAreAccepted) {
  const std::vector<std::pair<std::string, std::string>> table_options = {
      {"bucket", "-1"},
      {"bucket", "100"},
      {"bucket", "2"},
      {"bucket", "4"},
      {"bucket.num", "3"},
      {"bucket-key", "c1,c2"},
      {"bucket.key", "user_id, order_id"},
      {"merge-engine", "deduplicate"},
      {"merge-engine", "first-row"},
      {"merge-engine", "aggregation"},
      {"merge-engine", "partial-update"},
      {"table.merge-engine", "first_row"},
      {"table.merge-engine", "versioned"},
      {"table.merge-engine.versioned.ver-column", "update_version"},
      {"changelog-producer", "none"},
      {"changelog-producer", "input"},
      {"changelog-producer", "lookup"},
      {"changelog-producer", "full-compaction"},
      {"changelog-producer.row-deduplicate", "true"},
      {"full-compaction.delta-commits", "3"},
      {"fields.g_1.sequence-group", "a,b"},
      {"fields.g_2.sequence-group", "c,d"},
      {"fields.price.aggregate-function", "max"},
      {"fields.sales.aggregate-function", "sum"},
      {"fields.b.aggregate-function", "max"},
      {"fields.d.aggregate-function", "sum"},
      {"fields.<field-name>.ignore-retract", "true"},
      {"first-row.ignore-delete", "true"},
      {"partial-update.ignore-delete", "true"},
      {"sequence.field", "updated_at"},
      {"sequence.auto-padding", "row-kind-flag"},
      {"scan.snapshot-id", "1"},
      {"scan.startup.mode", "latest"},
      {"scan.startup.mode", "timestamp"},
      {"scan.startup.timestamp", "2025-01-01 00:00:00"},
      {"scan.plan-sort-partition", "true"},
      {"lookup.cache", "PARTIAL"},
      {"lookup.partial-cache.expire-after-write", "60s"},
      {"lookup.partial-cache.max-rows", "10000"},
      {"lookup.async", "false"},
      {"client.lookup.queue-size", "2560"},
      {"table.auto-partition.enabled", "true"},
      {"table.auto-partition.time-unit", "DAY"},
      {"table.auto-partition.num-precreate", "5"},
      {"table.auto-partition.num-retention", "30"},
      {"table.auto-partition.num-retention", "7"},
      {"table.auto-partition.time-zone", "Asia/Shanghai"},
      {"table.auto-partition.key", "event_date"},
  };
  for (const auto& [k, v] : table_options) Canonical(kTable, k, v);

  const std::vector<std::pair<std::string, std::string>> session_options = {
      {"execution.runtime-mode", "streaming"},
      {"execution.runtime-mode", "batch"},
      {"table.exec.sink.upsert-materialize", "NONE"},
      {"execution.checkpointing.interval", "10 s"},
      {"parallelism.default", "1"},
      {"sql-client.execution.result-mode", "changelog"},
      {"table.local-time-zone", "Asia/Shanghai"},
      {"table.dml-sync", "true"},
      {"table.exec.delta-join.cache-enabled", "true"},
      {"table.exec.async-lookup.buffer-capacity", "3000"},
      {"table.optimizer.delta-join.strategy", "FORCE"},
      {"table.exec.delta-join.left.cache-size", "100"},
      {"table.exec.delta-join.right.cache-size", "1000"},
  };
  for (const auto& [k, v] : session_options) Canonical(kSession, k, v);

  Canonical(kCatalog, "type", "paimon");
  Canonical(kCatalog, "type", "fluss");
  Canonical(kCatalog, "warehouse", "hdfs://hadoop03:50070/bigdata/lakehouse");
}

// Seed 002 misspells changelog-producer and fields.<col>.aggregate-function.
TEST(OptionsTest, SeedTyposAreRejectedWithDidYouMean) {
  EXPECT_EQ(ErrorOf(kTable, "changelog-produce", "none"),
            "unknown option 'changelog-produce'; did you mean 'changelog-producer'?");
  EXPECT_EQ(ErrorOf(kTable, "changelog-produce", "input"),
            "unknown option 'changelog-produce'; did you mean 'changelog-producer'?");
  EXPECT_EQ(ErrorOf(kTable, "fileds.salary.aggregation-function", "max"),
            "unknown option 'fileds.salary.aggregation-function'; did you mean "
            "'fields.salary.aggregate-function'?");
  EXPECT_EQ(ErrorOf(kTable, "fileds.age.aggregation-function", "sum"),
            "unknown option 'fileds.age.aggregation-function'; did you mean "
            "'fields.age.aggregate-function'?");
  EXPECT_EQ(ErrorOf(kTable, "fileds.x.aggregation-function", "sum"),
            "unknown option 'fileds.x.aggregation-function'; did you mean "
            "'fields.x.aggregate-function'?");
  // The seed also misspells the column (sun_cnt for sum_cnt); with the columns known, both the
  // key and the column are corrected.
  std::vector<std::string> columns = {"id", "name", "salary", "sum_cnt"};
  EXPECT_EQ(ErrorOf(kTable, "fileds.sun_cnt.aggregation-function", "sum", columns),
            "unknown option 'fileds.sun_cnt.aggregation-function'; did you mean "
            "'fields.sum_cnt.aggregate-function'?");
  // Spelled right except for the suffix.
  EXPECT_EQ(ErrorOf(kTable, "fields.x.aggregation-function", "sum"),
            "unknown option 'fields.x.aggregation-function'; did you mean "
            "'fields.x.aggregate-function'?");
}

TEST(OptionsTest, UnknownKeys) {
  EXPECT_EQ(ErrorOf(kTable, "merge-engin", "deduplicate"),
            "unknown option 'merge-engin'; did you mean 'merge-engine'?");
  EXPECT_EQ(ErrorOf(kTable, "BUCKET", "1"), "unknown option 'BUCKET'; did you mean 'bucket'?");
  EXPECT_EQ(ErrorOf(kTable, "bucket_key", "a"),
            "unknown option 'bucket_key'; did you mean 'bucket-key'?");
  EXPECT_EQ(ErrorOf(kTable, "sequence.feild", "a"),
            "unknown option 'sequence.feild'; did you mean 'sequence.field'?");
  EXPECT_EQ(ErrorOf(kTable, "snapshot.num-retained.mim", "3"),
            "unknown option 'snapshot.num-retained.mim'; did you mean "
            "'snapshot.num-retained.min'?");
  EXPECT_EQ(ErrorOf(kTable, "table.auto-partition.enable", "true"),
            "unknown option 'table.auto-partition.enable'; did you mean "
            "'table.auto-partition.enabled'?");
  // Nothing close: no suggestion.
  EXPECT_EQ(ErrorOf(kTable, "odps.project.name", "p"), "unknown option 'odps.project.name'");
  EXPECT_EQ(ErrorOf(kTable, "x", "1"), "unknown option 'x'");
  EXPECT_THAT(ErrorOf(kTable, "fields.x.foo", "1"),
              HasSubstr("per-column options are fields.<col>.aggregate-function"));
}

TEST(OptionsTest, OptionOfAnotherScope) {
  EXPECT_EQ(ErrorOf(kSession, "bucket", "4"),
            "'bucket' is a table option, not a session option; set it in CREATE TABLE ... WITH "
            "(...), ALTER TABLE ... SET (...) or an OPTIONS hint");
  EXPECT_THAT(ErrorOf(kTable, "execution.runtime-mode", "batch"), HasSubstr("is a session option"));
  EXPECT_EQ(ErrorOf(kSession, "execution.runtime-mod", "batch"),
            "unknown option 'execution.runtime-mod'; did you mean 'execution.runtime-mode'?");
  EXPECT_EQ(ErrorOf(kSession, "sql-client.execution.result-mod", "table"),
            "unknown option 'sql-client.execution.result-mod'; did you mean "
            "'sql-client.execution.result-mode'?");
}

TEST(OptionsTest, AliasesResolveToCanonicalKeys) {
  EXPECT_EQ(Canonical(kTable, "bucket.num", "3"), "bucket");
  EXPECT_EQ(Canonical(kTable, "bucket.key", "user_id, order_id"), "bucket-key");
  EXPECT_EQ(Canonical(kTable, "table.merge-engine", "first_row"), "merge-engine");
  EXPECT_EQ(Canonical(kTable, "table.merge-engine", "versioned"), "merge-engine");
  EXPECT_EQ(Canonical(kTable, "log.scan.timestamp-millis", "1"), "scan.timestamp-millis");
  EXPECT_EQ(Canonical(kTable, "merge-engine", "first-row"), "merge-engine");
  EXPECT_EQ(Canonical(kTable, "first-row.ignore-delete", "true"), "ignore-delete");
  EXPECT_EQ(Canonical(kTable, "partial-update.ignore-delete", "true"), "ignore-delete");
  EXPECT_EQ(FindOption(kTable, "bucket.num"), FindOption(kTable, "bucket"));
  EXPECT_EQ(FindOption(kTable, "nope"), nullptr);
  ASSERT_NE(FindOption(kTable, "fields.price.aggregate-function"), nullptr);
  EXPECT_EQ(FindOption(kTable, "fields.price.aggregate-function")->key,
            "fields.<col>.aggregate-function");
}

TEST(OptionsTest, NormalizeOptionsRewritesAliasesAndValues) {
  auto r = NormalizeOptions(kTable, {{"table.merge-engine", "first_row"},
                                     {"bucket.num", "3"},
                                     {"bucket.key", "user_id, order_id"},
                                     {"changelog-producer", "LOOKUP"},
                                     {"first-row.ignore-delete", "TRUE"},
                                     {"comment", " keep  blanks "}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::map<std::string, std::string> expected = {
      {"merge-engine", "first-row"},      {"bucket", "3"},
      {"bucket-key", "user_id,order_id"}, {"changelog-producer", "lookup"},
      {"ignore-delete", "true"},          {"comment", " keep  blanks "}};
  EXPECT_EQ(*r, expected);

  auto kv = NormalizeOption(kTable, "table.merge-engine", "first_row");
  ASSERT_TRUE(kv.ok());
  EXPECT_EQ(kv->first, "merge-engine");
  EXPECT_EQ(kv->second, "first-row");

  // An alias and its canonical key together are ambiguous.
  auto dup = NormalizeOptions(kTable, {{"bucket", "2"}, {"bucket.num", "3"}});
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().message(),
            "option 'bucket' is given twice, as 'bucket' and as "
            "'bucket.num'");
  // The first bad pair fails the whole map.
  auto bad = NormalizeOptions(kTable, {{"bucket", "2"}, {"changelog-produce", "input"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("did you mean 'changelog-producer'?"));
  auto session = NormalizeOptions(kSession, {{"execution.runtime-mode", "STREAMING"}});
  ASSERT_TRUE(session.ok());
  EXPECT_EQ(session->at("execution.runtime-mode"), "streaming");
}

TEST(OptionsTest, EnumValues) {
  EXPECT_EQ(ErrorOf(kTable, "merge-engine", "first-rows"),
            "invalid value 'first-rows' for option 'merge-engine'; did you mean 'first-row'? "
            "(allowed: deduplicate, partial-update, aggregation, first-row, versioned)");
  EXPECT_EQ(ErrorOf(kTable, "changelog-producer", "full"),
            "invalid value 'full' for option 'changelog-producer'; did you mean "
            "'full-compaction'? (allowed: none, input, lookup, full-compaction)");
  EXPECT_EQ(ErrorOf(kTable, "changelog-producer", "binlog"),
            "invalid value 'binlog' for option 'changelog-producer' (allowed: none, input, "
            "lookup, full-compaction)");
  EXPECT_THAT(ErrorOf(kTable, "changelog-producer", "lookups"), HasSubstr("did you mean 'lookup'"));
  EXPECT_THAT(ErrorOf(kTable, "file.format", "csv"), HasSubstr("allowed: avro, parquet, orc"));
  EXPECT_THAT(ErrorOf(kSession, "execution.runtime-mode", "stream"),
              HasSubstr("did you mean 'streaming'?"));
  EXPECT_THAT(ErrorOf(kTable, "table.auto-partition.time-unit", "WEEK"),
              HasSubstr("allowed: HOUR, DAY, MONTH, QUARTER, YEAR"));
  // Case-insensitive, '_' for '-'.
  auto kv = NormalizeOption(kTable, "table.auto-partition.time-unit", "day");
  ASSERT_TRUE(kv.ok());
  EXPECT_EQ(kv->second, "DAY");
  kv = NormalizeOption(kTable, "changelog-producer", "full_compaction");
  ASSERT_TRUE(kv.ok());
  EXPECT_EQ(kv->second, "full-compaction");
  // Lists of enum values.
  kv = NormalizeOption(kTable, "sequence.auto-padding", "row-kind-flag, millis-to-micro");
  ASSERT_TRUE(kv.ok()) << kv.status().ToString();
  EXPECT_EQ(kv->second, "row-kind-flag,millis-to-micro");
  EXPECT_THAT(ErrorOf(kTable, "sequence.auto-padding", "row-kind-flags"),
              HasSubstr("did you mean 'row-kind-flag'?"));
  EXPECT_FALSE(CheckOption(kTable, "merge-engine", "").ok());
}

TEST(OptionsTest, IntAndLongValues) {
  EXPECT_EQ(ErrorOf(kTable, "bucket", "many"),
            "invalid value 'many' for option 'bucket': expected an integer");
  EXPECT_EQ(ErrorOf(kTable, "bucket", "0"),
            "invalid value '0' for option 'bucket': bucket must be -1 (dynamic), -2 (postpone) "
            "or a positive bucket count");
  EXPECT_FALSE(CheckOption(kTable, "bucket", "-3").ok());
  EXPECT_TRUE(CheckOption(kTable, "bucket", "-2").ok());
  // Fluss's key: every table is a lake table ('true'); a table kept out of the lake is refused.
  EXPECT_TRUE(CheckOption(kTable, "table.datalake.enabled", "true").ok());
  EXPECT_NE(ErrorOf(kTable, "table.datalake.enabled", "false").find("not supported yet"),
            std::string::npos);
  EXPECT_FALSE(CheckOption(kTable, "bucket", "<num>").ok());
  // The server's hot tier writes its log as Arrow batches; Fluss's row formats are refused.
  EXPECT_TRUE(CheckOption(kTable, "table.log.format", "arrow").ok());
  EXPECT_NE(ErrorOf(kTable, "table.log.format", "INDEXED").find("not supported yet"),
            std::string::npos);
  EXPECT_TRUE(CheckOption(kTable, "table.log.arrow.compression.type", "lz4_frame").ok());
  EXPECT_NE(ErrorOf(kTable, "table.log.arrow.compression.type", "zstandard").find("ZSTD"),
            std::string::npos);
  EXPECT_FALSE(CheckOption(kTable, "table.log.arrow.compression.zstd.level", "23").ok());
  EXPECT_EQ(ErrorOf(kTable, "num-sorted-run.compaction-trigger", "0"),
            "invalid value '0' for option 'num-sorted-run.compaction-trigger': must be at least 1");
  EXPECT_EQ(ErrorOf(kTable, "commit.max-retries", "3000000000"),
            "invalid value '3000000000' for option 'commit.max-retries': must be at most "
            "2147483647");
  EXPECT_TRUE(CheckOption(kTable, "dynamic-bucket.target-row-num", "3000000000").ok());
  EXPECT_TRUE(CheckOption(kTable, "scan.snapshot-id", " 7 ").ok());
  EXPECT_FALSE(CheckOption(kTable, "scan.snapshot-id", "0").ok());
  EXPECT_FALSE(CheckOption(kTable, "full-compaction.delta-commits", "<num>").ok());
  auto kv = NormalizeOption(kTable, "bucket", " +4 ");
  ASSERT_TRUE(kv.ok());
  EXPECT_EQ(kv->second, "4");
}

TEST(OptionsTest, BoolValues) {
  EXPECT_TRUE(CheckOption(kTable, "deletion-vectors.enabled", "TRUE").ok());
  EXPECT_TRUE(CheckOption(kTable, "first-row.ignore-delete", "False").ok());
  EXPECT_EQ(ErrorOf(kTable, "first-row.ignore-delete", "yes"),
            "invalid value 'yes' for option 'first-row.ignore-delete': expected true or false");
}

TEST(OptionsTest, MemorySizeAndDurationValues) {
  EXPECT_TRUE(CheckOption(kTable, "write-buffer-size", "128 mb").ok());
  EXPECT_TRUE(CheckOption(kTable, "write-buffer-size", "256MB").ok());
  EXPECT_TRUE(CheckOption(kTable, "target-file-size", "1 gb").ok());
  EXPECT_THAT(ErrorOf(kTable, "write-buffer-size", "lots"),
              HasSubstr("option 'write-buffer-size': invalid memory size 'lots'"));
  EXPECT_THAT(ErrorOf(kTable, "write-buffer-size", "12 zb"), HasSubstr("unknown unit 'zb'"));
  EXPECT_TRUE(CheckOption(kTable, "snapshot.time-retained", "1 h").ok());
  EXPECT_TRUE(CheckOption(kTable, "snapshot.time-retained", "30 s").ok());
  EXPECT_TRUE(CheckOption(kSession, "execution.checkpointing.interval", "100ms").ok());
  EXPECT_THAT(ErrorOf(kTable, "snapshot.time-retained", "1 fortnight"),
              HasSubstr("option 'snapshot.time-retained': invalid duration"));
}

TEST(OptionsTest, OtherValueChecks) {
  EXPECT_TRUE(CheckOption(kTable, "scan.startup.timestamp", "1735689600000").ok());
  EXPECT_TRUE(CheckOption(kTable, "scan.startup.timestamp", "2025-01-01").ok());
  EXPECT_TRUE(CheckOption(kTable, "scan.startup.timestamp", "2025-01-01T08:30:00.123").ok());
  EXPECT_THAT(ErrorOf(kTable, "scan.startup.timestamp", "yesterday"),
              HasSubstr("expected epoch milliseconds or 'YYYY-MM-DD HH:MM:SS'"));
  EXPECT_TRUE(CheckOption(kTable, "metadata.stats-mode", "truncate(32)").ok());
  EXPECT_TRUE(CheckOption(kTable, "metadata.stats-mode", "full").ok());
  EXPECT_FALSE(CheckOption(kTable, "metadata.stats-mode", "truncate(x)").ok());
  EXPECT_TRUE(CheckOption(kTable, "file.format.per.level", "0:avro,3:parquet").ok());
  EXPECT_FALSE(CheckOption(kTable, "file.format.per.level", "avro").ok());
}

TEST(OptionsTest, ColumnListValues) {
  std::vector<std::string> columns = {"user_id", "order_id", "order_date", "amount"};
  EXPECT_TRUE(CheckOption(kTable, "bucket.key", "user_id, order_id", columns).ok());
  EXPECT_EQ(ErrorOf(kTable, "bucket-key", "user_id,ordr_id", columns),
            "invalid value 'user_id,ordr_id' for option 'bucket-key': unknown column 'ordr_id'; "
            "did you mean 'order_id'?");
  EXPECT_THAT(ErrorOf(kTable, "sequence.field", "updated_at", columns),
              HasSubstr("unknown column 'updated_at'"));
  EXPECT_THAT(ErrorOf(kTable, "bucket-key", "user_id,", columns),
              HasSubstr("expected column names separated by ','"));
  // Without columns, names are not checked.
  EXPECT_TRUE(CheckOption(kTable, "sequence.field", "updated_at").ok());
}

TEST(OptionsTest, PerColumnKeys) {
  std::vector<std::string> columns = {"k", "a", "b", "g_1", "c", "d", "g_2", "price"};
  EXPECT_EQ(Canonical(kTable, "fields.price.aggregate-function", "max", columns),
            "fields.price.aggregate-function");
  EXPECT_EQ(Canonical(kTable, "fields.g_1.sequence-group", "a,b", columns),
            "fields.g_1.sequence-group");
  EXPECT_EQ(Canonical(kTable, "fields.g_1,g_2.sequence-group", "a,b", columns),
            "fields.g_1,g_2.sequence-group");
  EXPECT_EQ(Canonical(kTable, "fields.g_1, g_2.sequence-group", "a,b", columns),
            "fields.g_1,g_2.sequence-group");
  EXPECT_TRUE(CheckOption(kTable, "fields.b.ignore-retract", "true", columns).ok());
  EXPECT_TRUE(CheckOption(kTable, "fields.b.list-agg-delimiter", "-", columns).ok());
  EXPECT_TRUE(CheckOption(kTable, "fields.default-aggregate-function", "sum", columns).ok());

  EXPECT_EQ(ErrorOf(kTable, "fields.prices.aggregate-function", "max", columns),
            "option 'fields.prices.aggregate-function' names unknown column 'prices'; did you "
            "mean 'price'?");
  EXPECT_EQ(ErrorOf(kTable, "fields.g_1,g_9.sequence-group", "a", columns),
            "option 'fields.g_1,g_9.sequence-group' names unknown column 'g_9'; did you mean "
            "'g_1'?");
  EXPECT_THAT(ErrorOf(kTable, "fields.a,b.aggregate-function", "sum", columns),
              HasSubstr("names several columns"));
  EXPECT_EQ(ErrorOf(kTable, "fields.g_1.sequence-group", "a,x", columns),
            "invalid value 'a,x' for option 'fields.g_1.sequence-group': unknown column 'x'");
  EXPECT_EQ(ErrorOf(kTable, "fields.price.aggregate-function", "maximum", columns),
            "invalid value 'maximum' for option 'fields.price.aggregate-function'; did you mean "
            "'max'? (allowed: sum, product, count, max, min, first_value, last_value, "
            "first_non_null_value, first_not_null_value, last_non_null_value, listagg, "
            "bool_and, bool_or)");
  EXPECT_THAT(ErrorOf(kTable, "fields.price.aggregate-function", "last_non_nul_value", columns),
              HasSubstr("did you mean 'last_non_null_value'?"));
  EXPECT_EQ(ErrorOf(kTable, "fields.price.sequence-groups", "a", columns),
            "unknown option 'fields.price.sequence-groups'; did you mean "
            "'fields.price.sequence-group'?");
  EXPECT_FALSE(CheckOption(kTable, "fields..aggregate-function", "sum").ok());
  // Every aggregate function of the feature list.
  for (const char* fn : {"sum", "product", "count", "max", "min", "first_value", "last_value",
                         "first_non_null_value", "first_not_null_value", "last_non_null_value",
                         "listagg", "bool_and", "bool_or"}) {
    EXPECT_TRUE(CheckOption(kTable, "fields.a.aggregate-function", fn, columns).ok()) << fn;
  }
}

// An option marked supported is read somewhere: its key (or, for per-column keys, the part before
// the column) appears in the sources outside the option table. A key nothing reads would be
// accepted and do nothing; such a key must be marked Unsupported (refused) until it works.
TEST(OptionTableTest, EverySupportedKeyIsReadSomewhere) {
  std::string sources;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(std::string(TRIBUTARY_SOURCE_DIR) + "/src")) {
    const std::string path = entry.path().string();
    const bool code = path.size() > 3 && (path.compare(path.size() - 3, 3, ".cc") == 0 ||
                                          path.compare(path.size() - 2, 2, ".h") == 0);
    if (!entry.is_regular_file() || !code) continue;
    if (path.find("options_table.cc") != std::string::npos ||
        path.find("_test.cc") != std::string::npos ||
        path.find("options_doc") != std::string::npos) {
      continue;
    }
    std::ifstream in(path);
    sources.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_GT(sources.size(), 100000u);
  std::vector<std::string> unread;
  for (const OptionDef& def : AllOptions()) {
    if (!def.supported) continue;
    std::string needle = def.key;
    const size_t col = needle.find("<col>");
    if (col != std::string::npos) {
      // fields.<col>.aggregate-function: read through the suffix after the column.
      needle = needle.substr(col + 6);  // after "<col>."
      if (sources.find("\"" + needle + "\"") != std::string::npos ||
          sources.find(needle + "\"") != std::string::npos) {
        continue;
      }
      unread.push_back(def.key);
      continue;
    }
    if (sources.find("\"" + needle + "\"") == std::string::npos) unread.push_back(def.key);
  }
  std::string list;
  for (const auto& k : unread) list += " " + k;
  EXPECT_TRUE(unread.empty()) << "supported options read nowhere (implement or mark "
                                 "Unsupported):"
                              << list;
}

TEST(OptionsTest, SupportedFlag) {
  EXPECT_TRUE(FindOption(kTable, "merge-engine")->supported);
  EXPECT_FALSE(FindOption(kTable, "data-evolution.enabled")->supported);
  // Unsupported options are still valid options; rejecting them is the caller's decision.
  EXPECT_TRUE(CheckOption(kTable, "data-evolution.enabled", "true").ok());
}

}  // namespace
}  // namespace tributary
