// The filesystem catalog: databases are `<name>.db` directories of the warehouse, tables are
// directories holding `schema/`.
#include "tributary/catalog.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <set>

#include "commit/snapshot_expire.h"
#include "common/clock.h"
#include "common/evolution_cast.h"
#include "common/path_names.h"
#include "common/strings.h"
#include "datafile/file_format.h"
#include "io/file_cache.h"
#include "io/file_system.h"
#include "io/s3_file_system.h"
#include "merge/merge_config.h"
#include "meta/branches.h"
#include "meta/external_paths.h"
#include "meta/paths.h"
#include "meta/schema_manager.h"
#include "options/core_options.h"
#include "options/option_keys.h"
#include "options/option_values.h"
#include "read/pending.h"
#include "table/auto_partition.h"
#include "table/catalog_internal.h"
#include "table/file_store_table.h"
#include "table/partition_expire.h"
#include "table/system_tables.h"
#include "tributary/options.h"
#include "tributary/table.h"

namespace tributary {
namespace catalog_internal {

constexpr const char* kDefaultDb = "default";

// The one check of database, table and column names. Database and table names become
// directory names under the warehouse, so none may leave it or hide in it: no path separator,
// no control character, not "." or "..", no leading "." (DROP TABLE's tombstones), no '$'
// (system tables).
Status CheckName(const std::string& kind, const std::string& name) {
  // Any name the file system holds can be reached (and dropped); new names are shorter
  // (CheckNewName).
  if (kind != "column") TRIB_RETURN_NOT_OK(CheckPathComponent(kind, name, /*max_bytes=*/255));
  if (name.empty()) return Status::Invalid(kind + " name must not be empty");
  for (char c : name) {
    if (c == '/' || c == '\\' || c == '$' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return Status::Invalid(kind + " name '" + name + "' contains an invalid character");
    }
  }
  if (name == "." || name == "..")
    return Status::Invalid("invalid " + kind + " name '" + name + "'");
  if (kind != "column" && name[0] == '.') {
    return Status::Invalid("invalid " + kind + " name '" + name + "': it must not start with '.'");
  }
  return Status::OK();
}

// A name given to a new database or table: also at most kMaxNameBytes long, so that DROP TABLE's
// hidden tombstone name (".<name>.dropped-<uuid>") still fits in the file system's 255 bytes.
Status CheckNewName(const std::string& kind, const std::string& name) {
  TRIB_RETURN_NOT_OK(CheckName(kind, name));
  return CheckPathComponent(kind, name);
}

int64_t NowMillis() { return WallClockMillis(); }

// The fields of `t`'s nested ROWs numbered from *next on, depth-first.
DataType AssignFieldIds(const DataType& t, int32_t* next) {
  switch (t.id) {
    case TypeId::kArray:
      return DataType::Array(AssignFieldIds(t.element(), next)).WithNullable(t.nullable);
    case TypeId::kMultiset:
      return DataType::Multiset(AssignFieldIds(t.element(), next)).WithNullable(t.nullable);
    case TypeId::kMap: {
      DataType k = AssignFieldIds(t.key(), next);
      return DataType::Map(k, AssignFieldIds(t.value(), next)).WithNullable(t.nullable);
    }
    case TypeId::kRow: {
      std::vector<Field> fields = t.fields();
      for (Field& f : fields) {
        f.id = (*next)++;
        f.type = AssignFieldIds(f.type, next);
      }
      return DataType::Row(std::move(fields)).WithNullable(t.nullable);
    }
    default:
      return t;
  }
}

// BuildSchema's checks of a table's options against each other and its columns: buckets and
// bucket keys, cross-partition updates, merge engines and changelog producers, retention,
// timestamp precision per file format.
Status CheckTableOptions(const TableSchema& s) {
  auto must_exist = [&](const std::string& what, const std::string& col) -> Status {
    if (s.FieldIndex(col) >= 0) return Status::OK();
    return Status::Invalid(what + " column '" + col + "' is not a column of the table");
  };
  // Nested columns cannot be keys: BinaryRows (partitions, keys, bucket hash) hold flat values.
  auto nested = [&](const std::string& name) {
    const int i = s.FieldIndex(name);
    return i >= 0 && s.fields[i].type.IsNested();
  };
  TRIB_ASSIGN_OR_RETURN(options::CoreOptions core, options::CoreOptions::From(s));
  bool pk = s.HasPrimaryKey();
  if (core.bucket == 0 || core.bucket < -1) {
    if (core.bucket == -2) {
      return Status::NotSupported("'bucket' = '-2' (postpone bucket mode) is not supported yet");
    }
    return Status::Invalid("option 'bucket' must be a positive bucket count or -1, got " +
                           std::to_string(core.bucket));
  }
  if (core.bucket > 0) {
    TRIB_ASSIGN_OR_RETURN(const int64_t max, options::Get(s, options::kMaxBucketNum));
    if (core.bucket > max) {
      return Status::Invalid("'bucket' = " + std::to_string(core.bucket) +
                             " is more than "
                             "'max.bucket.num' = " +
                             std::to_string(max));
    }
  }
  if (!pk && core.bucket > 0 && !options::IsSet(s, options::kBucketKey)) {
    for (const auto& f : s.fields) {
      if (f.type.IsNested()) {
        return Status::Invalid("an append table with 'bucket' > 0 and a nested column ('" + f.name +
                               "') needs 'bucket-key' naming flat columns");
      }
    }
  }
  if (auto bk = options::IsSet(s, options::kBucketKey)) {
    if (core.bucket <= 0) {
      return Status::Invalid("option 'bucket-key' needs a fixed bucket count ('bucket' > 0)");
    }
    for (const auto& k : SplitCommaList(*bk)) {
      TRIB_RETURN_NOT_OK(must_exist("bucket key", k));
      if (nested(k)) {
        return Status::Invalid("bucket key column '" + k +
                               "' has a nested type; bucket keys "
                               "must be flat (not ARRAY, MAP, MULTISET or ROW)");
      }
      if (std::find(s.partition_keys.begin(), s.partition_keys.end(), k) !=
          s.partition_keys.end()) {
        return Status::Invalid("bucket key column '" + k + "' must not be a partition key");
      }
      if (pk &&
          std::find(s.primary_keys.begin(), s.primary_keys.end(), k) == s.primary_keys.end()) {
        return Status::Invalid("bucket key column '" + k + "' must be part of the primary key");
      }
    }
  }
  // Cross-partition updates: a primary key without every partition key, whose rows move between
  // partitions (write/table_write.cc WriteCrossPartition).
  if (pk && s.TrimmedPrimaryKeys().size() + s.partition_keys.size() != s.primary_keys.size()) {
    if (core.bucket != -1) {
      return Status::Invalid(
          "a primary key without every partition key (cross-partition "
          "updates) needs dynamic buckets: set 'bucket' = '-1'");
    }
    TRIB_ASSIGN_OR_RETURN(const options::MergeEngine engine,
                          options::Get(s, options::kMergeEngine));
    if (engine == options::MergeEngine::kVersioned) {
      return Status::NotSupported("cross-partition updates with merge engine '" +
                                  std::string(options::MergeEngineName(engine)) +
                                  "' are not supported yet");
    }
    if (options::IsSet(s, options::kSequenceField)) {
      return Status::NotSupported(
          "cross-partition updates with a 'sequence.field' are not "
          "supported yet");
    }
    for (const char* k : {"ignore-delete", "deduplicate.ignore-delete"}) {
      const auto it = s.options.find(k);
      bool on = false;
      if (it != s.options.end()) options::ParseBool(it->second, &on);
      if (engine == options::MergeEngine::kDeduplicate && on) {
        return Status::NotSupported(std::string("cross-partition updates with '") + k +
                                    "' are not supported yet (a moved key's delete in its old "
                                    "partition would be ignored)");
      }
    }
  }
  if (!pk) {
    for (const char* k : {options::kMergeEngine.key, options::kSequenceField.key,
                          options::kVersionedVerColumn.key}) {
      if (s.options.count(k)) {
        return Status::Invalid(std::string("option '") + k + "' needs a primary key");
      }
    }
  } else {
    // Parses and checks every merge option (functions against column types, sequence groups).
    TRIB_ASSIGN_OR_RETURN(auto merge_config, merge::MergeConfig::Make(s, /*strict=*/true));
    (void)merge_config;
  }
  if (!s.HasPrimaryKey() && core.changelog_producer != options::ChangelogProducer::kNone) {
    return Status::Invalid("changelog-producer '" +
                           std::string(options::ChangelogProducerName(core.changelog_producer)) +
                           "' needs a primary "
                           "key: an append table's rows are its changelog (define a primary key, "
                           "or leave changelog-producer 'none')");
  }
  if (core.merge_engine == options::MergeEngine::kFirstRow &&
      core.changelog_producer != options::ChangelogProducer::kNone &&
      core.changelog_producer != options::ChangelogProducer::kLookup) {
    return Status::Invalid(
        "merge engine 'first-row' supports only changelog-producer 'none' or "
        "'lookup', not '" +
        std::string(options::ChangelogProducerName(core.changelog_producer)) + "'");
  }
  // Retention options that contradict each other fail here, not at the first commit.
  TRIB_RETURN_NOT_OK(commit::ExpireOptions::From(s).status());
  TRIB_ASSIGN_OR_RETURN(const bool lookup_wait, options::Get(s, options::kLookupWait));
  if (!lookup_wait && core.changelog_producer == options::ChangelogProducer::kLookup &&
      !options::GetOrDefault(s, options::kDeletionVectorsEnabled)) {
    return Status::NotSupported(
        "'lookup-wait' = 'false' with 'changelog-producer' = 'lookup' on a table without "
        "deletion vectors is not supported yet: the lookup changelog is always produced within "
        "the commit (and such tables compact in the background already)");
  }
  if (core.changelog_producer == options::ChangelogProducer::kLookup &&
      options::IsSet(s, options::kFullCompactionDeltaCommits)) {
    return Status::Invalid(
        "'full-compaction.delta-commits' is incompatible with "
        "'changelog-producer' = 'lookup': use 'changelog-producer' = "
        "'full-compaction' for a changelog at periodic full compactions");
  }
  if (core.bucket == -1 && options::GetOrDefault(s, options::kIndexFileInDataFileDir)) {
    return Status::NotSupported(
        "'index-file-in-data-file-dir' = 'true' on a dynamic-bucket table ('bucket' = '-1') is "
        "not supported yet: Tributary keeps its key index files in index/");
  }
  // 'data-file.external-paths': roots Tributary can write to, as the strategy picks them.
  TRIB_RETURN_NOT_OK(meta::ExternalPaths::Of(s).status());
  TRIB_ASSIGN_OR_RETURN(const bool deletion_vectors,
                        options::Get(s, options::kDeletionVectorsEnabled));
  if (deletion_vectors) {
    // Paimon's own refusals (SchemaValidation), with its reasons.
    if (core.changelog_producer == options::ChangelogProducer::kFullCompaction) {
      return Status::Invalid(
          "Deletion vectors mode is only supported for NONE/INPUT/LOOKUP changelog producer "
          "now (this table has changelog-producer 'full-compaction')");
    }
    if (core.merge_engine == options::MergeEngine::kFirstRow) {
      return Status::Invalid(
          "First row merge engine does not need deletion vectors because there is no deletion "
          "of old data in this merge engine.");
    }
    if (!pk) {
      return Status::NotSupported(
          "deletion vectors of an append table (no primary key) are not supported yet");
    }
  }
  // The finest timestamp every format the table writes in holds.
  int32_t max_precision = 9;
  std::string coarsest;
  std::vector<std::string> formats = {core.format.format};
  for (const auto& [level, f] : core.format.per_level) formats.push_back(f);
  for (const auto& name : formats) {
    const datafile::FileFormat* format = datafile::FindFileFormat(name);
    if (format != nullptr && format->MaxTimestampPrecision() < max_precision) {
      max_precision = format->MaxTimestampPrecision();
      coarsest = name;
      coarsest[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(coarsest[0])));
    }
  }
  for (const auto& f : s.fields) {
    if (f.type.IsTimestamp() && f.type.precision > max_precision) {
      return Status::NotSupported("column '" + f.name + "': " + f.type.ToString() +
                                  " needs Parquet data files; " + coarsest +
                                  " holds at most precision " + std::to_string(max_precision));
    }
  }
  return Status::OK();
}

// Checks a table definition and returns the schema to store.
Result<TableSchema> BuildSchema(const TableSpec& spec) {
  TableSchema s;
  if (auto it = spec.options.find("connector"); it != spec.options.end()) {
    TRIB_RETURN_NOT_OK(options::CheckConnector(it->second));
  }
  if (spec.columns.empty()) return Status::Invalid("a table needs at least one column");
  std::set<std::string> names;
  std::vector<std::string> column_names;
  // As deep as a schema file may nest a type (meta/schema_manager.cc reads no deeper).
  constexpr int kMaxTypeDepth = 64;
  struct Depth {
    static int Of(const DataType& t) {
      int below = 0;
      if (t.id == TypeId::kArray || t.id == TypeId::kMultiset) below = Of(t.element());
      if (t.id == TypeId::kMap) below = std::max(Of(t.key()), Of(t.value()));
      if (t.id == TypeId::kRow) {
        for (const Field& f : t.fields()) below = std::max(below, Of(f.type));
      }
      return 1 + below;
    }
  };
  for (const auto& c : spec.columns) {
    TRIB_RETURN_NOT_OK(CheckName("column", c.name));
    if (Depth::Of(c.type) > kMaxTypeDepth) {
      return Status::Invalid("column '" + c.name + "': type nested more than " +
                             std::to_string(kMaxTypeDepth) + " levels deep");
    }
    if (!names.insert(c.name).second) return Status::Invalid("duplicate column '" + c.name + "'");
    column_names.push_back(c.name);
  }
  auto must_exist = [&](const std::string& what, const std::string& col) -> Status {
    if (names.count(col)) return Status::OK();
    return Status::Invalid(what + " column '" + col + "' is not a column of the table");
  };
  std::set<std::string> seen;
  for (const auto& k : spec.primary_keys) {
    TRIB_RETURN_NOT_OK(must_exist("primary key", k));
    if (!seen.insert(k).second) return Status::Invalid("primary key lists '" + k + "' twice");
  }
  seen.clear();
  for (const auto& k : spec.partition_keys) {
    TRIB_RETURN_NOT_OK(must_exist("partition", k));
    if (!seen.insert(k).second) return Status::Invalid("PARTITIONED BY lists '" + k + "' twice");
  }
  // Nested columns cannot be keys: BinaryRows (partitions, keys, bucket hash) hold flat values.
  auto nested = [&](const std::string& name) {
    for (const auto& c : spec.columns) {
      if (c.name == name) return c.type.IsNested();
    }
    return false;
  };
  for (const auto& k : spec.primary_keys) {
    if (nested(k)) {
      return Status::Invalid("primary key column '" + k +
                             "' has a nested type; primary keys "
                             "must be flat (not ARRAY, MAP, MULTISET or ROW)");
    }
  }
  for (const auto& k : spec.partition_keys) {
    if (nested(k)) {
      return Status::Invalid("partition column '" + k +
                             "' has a nested type; partition keys "
                             "must be flat (not ARRAY, MAP, MULTISET or ROW)");
    }
  }
  // Field ids depth-first as Paimon assigns them: a column, then the fields of its nested ROWs.
  int32_t id = 0;
  for (const auto& c : spec.columns) {
    Field f = c;
    f.id = id++;
    f.type = AssignFieldIds(f.type, &id);
    bool pk = std::find(spec.primary_keys.begin(), spec.primary_keys.end(), c.name) !=
              spec.primary_keys.end();
    if (pk) f.type.nullable = false;  // primary key columns are NOT NULL, as in Flink and Paimon
    s.fields.push_back(std::move(f));
  }
  s.highest_field_id = id - 1;
  s.primary_keys = spec.primary_keys;
  s.partition_keys = spec.partition_keys;
  s.comment = spec.comment;
  s.time_millis = NowMillis();
  if (!s.primary_keys.empty() && s.TrimmedPrimaryKeys().empty()) {
    return Status::Invalid(
        "the primary key must contain at least one column that is not a "
        "partition key");
  }
  TRIB_ASSIGN_OR_RETURN(s.options,
                        NormalizeOptions(OptionScope::kTable, spec.options, column_names));
  for (const auto& [k, v] : s.options) {
    // FindOption matches per-column keys ('fields.<col>.default-value') too.
    const OptionDef* def = FindOption(OptionScope::kTable, k);
    if (def && !def->supported) {
      return Status::NotSupported("option '" + k + "' is recognised but not supported yet");
    }
    if (def && def->hint_only) {
      return Status::Invalid("option '" + k + "' is a query hint (/*+ OPTIONS('" + k +
                             "' = '...') */), not a table option");
    }
    if (k == "scan.timestamp") {
      // A time of the session's zone: only a query knows the session.
      return Status::NotSupported(
          "option 'scan.timestamp' as a table option is not supported "
          "yet; use it as a query hint, or set 'scan.timestamp-millis'");
    }
  }
  TRIB_RETURN_NOT_OK(CheckTableOptions(s));
  return s;
}

}  // namespace catalog_internal

using catalog_internal::AssignFieldIds;
using catalog_internal::BuildSchema;
using catalog_internal::CheckName;
using catalog_internal::CheckNewName;
using catalog_internal::kDefaultDb;
using catalog_internal::NowMillis;

namespace {
// The path of the warehouse a user names: a local path, a file:// URI (file:///w, file:/w,
// file://localhost/w) as its local path, or an s3:// (s3a://, s3n://) URI as "s3://bucket/prefix".
// Any other scheme is refused by name, so no URI ever becomes a local directory named after it
// ("hdfs:/nn/wh").
Result<std::string> WarehousePath(const std::string& warehouse) {
  size_t colon = warehouse.find(':');
  const bool has_scheme =
      colon != std::string::npos && colon > 0 && colon + 1 < warehouse.size() &&
      warehouse[colon + 1] == '/' && std::isalpha(static_cast<unsigned char>(warehouse[0])) &&
      std::all_of(
          warehouse.begin(), warehouse.begin() + static_cast<std::ptrdiff_t>(colon), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
          });
  if (!has_scheme) return warehouse;
  const std::string scheme = AsciiLower(warehouse.substr(0, colon));
  if (scheme == "s3" || scheme == "s3a" || scheme == "s3n") {
    // Object storage, as Paimon and Hadoop users write it: one spelling, s3://bucket/prefix.
    TRIB_ASSIGN_OR_RETURN(auto parts, io::SplitS3Uri(warehouse));
    return "s3://" + parts.first + (parts.second.empty() ? "" : "/" + parts.second);
  }
  if (scheme != "file") {
    return Status::NotSupported("warehouse '" + warehouse + "': the '" + scheme +
                                "' scheme is not supported yet (a warehouse is a local "
                                "directory or a file:// URI)");
  }
  std::string rest = warehouse.substr(colon + 1);  // "///w", "/w", "//localhost/w"
  if (rest.rfind("//", 0) == 0) {
    const size_t slash = rest.find('/', 2);
    const std::string host =
        rest.substr(2, slash == std::string::npos ? std::string::npos : slash - 2);
    if (!host.empty() && host != "localhost") {
      return Status::NotSupported("warehouse '" + warehouse + "': a file:// URI with a host ('" +
                                  host + "') is not supported");
    }
    rest = slash == std::string::npos ? "/" : rest.substr(slash);
  }
  return rest;
}
}  // namespace

Result<std::unique_ptr<Catalog>> Catalog::Open(const std::string& warehouse_uri,
                                               const CatalogOptions& options) {
  if (warehouse_uri.empty()) return Status::Invalid("the warehouse path is empty");
  TRIB_ASSIGN_OR_RETURN(const std::string warehouse, WarehousePath(warehouse_uri));
  if (io::IsObjectStoreUri(warehouse)) {
    // The warehouse's store, configured by the catalog's options (else the environment), and
    // registered so every path under the warehouse goes to it.
    TRIB_ASSIGN_OR_RETURN(io::S3Config config, io::S3ConfigFrom(options.options));
    for (auto [key, field] : {std::pair{"s3.multipart.threshold", &config.multipart_threshold},
                              std::pair{"s3.multipart.size", &config.multipart_size}}) {
      auto it = options.options.find(key);
      if (it == options.options.end()) continue;
      auto bytes = options::ParseMemorySize(it->second);
      if (!bytes.ok() || *bytes <= 0) {
        return Status::Invalid("option '" + std::string(key) + "': '" + it->second +
                               "' is not a size (e.g. '16 mb')");
      }
      *field = *bytes;
    }
    if (config.multipart_size < (int64_t{5} << 20)) {
      return Status::Invalid("option 's3.multipart.size': parts are at least 5 mb (S3's minimum)");
    }
    auto fs = io::S3FileSystem::Make(warehouse, std::move(config));
    if (!fs.ok()) return fs.status().WithContext("warehouse '" + warehouse + "'");
    io::RegisterObjectStore(warehouse, std::move(*fs));
    // A bucket has no directories to make: the warehouse is there when the bucket answers.
    return std::unique_ptr<Catalog>(new Catalog(warehouse));
  }
  TRIB_ASSIGN_OR_RETURN(bool exists, io::LocalFs().Exists(warehouse));
  if (!exists) {
    if (!options.create_if_missing) {
      if (options.allow_missing) return std::unique_ptr<Catalog>(new Catalog(warehouse));
      return Status::NotFound("warehouse '" + warehouse + "' does not exist");
    }
    TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(warehouse));
    TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(meta::DatabasePath(warehouse, kDefaultDb)));
  }
  return std::unique_ptr<Catalog>(new Catalog(warehouse));
}

Catalog::~Catalog() = default;

Result<std::vector<std::string>> Catalog::ListDatabases() const {
  auto listed = io::LocalFs().ListDir(warehouse_);
  // (A warehouse on object storage with nothing in it yet is no prefix at all.)
  if (!listed.ok() && !(listed.status().IsNotFound() && io::IsObjectStoreUri(warehouse_))) {
    return listed.status();
  }
  std::set<std::string> dbs = {kDefaultDb};
  for (const auto& e : listed.ok() ? *listed : std::vector<io::FileInfo>{}) {
    if (e.is_dir && e.name.size() > 3 && e.name.substr(e.name.size() - 3) == ".db") {
      dbs.insert(e.name.substr(0, e.name.size() - 3));
    }
  }
  return std::vector<std::string>(dbs.begin(), dbs.end());
}

Result<bool> Catalog::DatabaseExists(const std::string& db) const {
  TRIB_RETURN_NOT_OK(CheckName("database", db));
  if (db == kDefaultDb) return true;
  return io::LocalFs().Exists(meta::DatabasePath(warehouse_, db));
}

Status Catalog::CreateDatabase(const std::string& db, bool ignore_if_exists) {
  TRIB_RETURN_NOT_OK(CheckNewName("database", db));
  TRIB_ASSIGN_OR_RETURN(bool exists, io::LocalFs().Exists(meta::DatabasePath(warehouse_, db)));
  if (exists) {
    if (ignore_if_exists) return Status::OK();
    return Status::AlreadyExists("database '" + db + "' already exists");
  }
  return io::LocalFs().MakeDirMarker(meta::DatabasePath(warehouse_, db));
}

Status Catalog::DropDatabase(const std::string& db, bool ignore_if_not_exists, bool cascade) {
  TRIB_RETURN_NOT_OK(CheckName("database", db));
  TRIB_ASSIGN_OR_RETURN(bool exists, io::LocalFs().Exists(meta::DatabasePath(warehouse_, db)));
  if (!exists) {
    if (ignore_if_not_exists || db == kDefaultDb) return Status::OK();
    return Status::NotFound("database '" + db + "' does not exist");
  }
  TRIB_ASSIGN_OR_RETURN(auto tables, ListTables(db));
  if (!tables.empty() && !cascade) {
    return Status::Invalid("database '" + db + "' is not empty (" + std::to_string(tables.size()) +
                           " tables); use DROP DATABASE ... CASCADE");
  }
  io::FileCache::Instance().EraseUnder(meta::DatabasePath(warehouse_, db));
  return io::LocalFs().RemoveAll(meta::DatabasePath(warehouse_, db));
}

Result<std::vector<std::string>> Catalog::ListTables(const std::string& db) const {
  TRIB_ASSIGN_OR_RETURN(bool exists, DatabaseExists(db));
  if (!exists) return Status::NotFound("database '" + db + "' does not exist");
  auto entries = io::LocalFs().ListDir(meta::DatabasePath(warehouse_, db));
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return std::vector<std::string>{};
    return entries.status();
  }
  std::vector<std::string> out;
  for (const auto& e : *entries) {
    // Tombstones of DROP TABLE start with '.'; other names no statement could reach are skipped.
    if (!e.is_dir || !CheckName("table", e.name).ok()) continue;
    std::string p = meta::TablePath(warehouse_, db, e.name);
    TRIB_ASSIGN_OR_RETURN(auto id, meta::SchemaManager(p).LatestId());
    if (id) out.push_back(e.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::string> Catalog::TablePath(const Identifier& id) const {
  TRIB_RETURN_NOT_OK(CheckName("database", id.database));
  TRIB_RETURN_NOT_OK(CheckName("table", id.table));
  std::string path = meta::TablePath(warehouse_, id.database, id.table);
  if (id.branch.empty()) return path;
  TRIB_RETURN_NOT_OK(meta::CheckBranchName(id.branch));
  return meta::BranchPath(path, id.branch);
}

Result<bool> Catalog::TableExists(const Identifier& id) const {
  TRIB_ASSIGN_OR_RETURN(std::string path, TablePath(id));
  TRIB_ASSIGN_OR_RETURN(auto latest, meta::SchemaManager(path).LatestId());
  return latest.has_value();
}

Status Catalog::CreateTable(const Identifier& id, const TableSpec& spec, bool ignore_if_exists) {
  if (!id.system_table.empty()) {
    return Status::Invalid("cannot create a system table '" + id.ToString() + "'");
  }
  if (!id.branch.empty()) {
    return Status::Invalid("cannot create a branch '" + id.ToString() +
                           "' as a table; use "
                           "CALL sys.create_branch");
  }
  TRIB_ASSIGN_OR_RETURN(std::string path, TablePath(id));
  TRIB_ASSIGN_OR_RETURN(bool db_exists, DatabaseExists(id.database));
  if (!db_exists) return Status::NotFound("database '" + id.database + "' does not exist");
  TRIB_ASSIGN_OR_RETURN(bool exists, TableExists(id));
  if (exists) {
    if (ignore_if_exists) return Status::OK();
    return Status::AlreadyExists("table '" + id.ToString() + "' already exists");
  }
  TRIB_RETURN_NOT_OK(CheckNewName("table", id.table));
  TRIB_ASSIGN_OR_RETURN(TableSchema schema, BuildSchema(spec));
  schema.id = 0;
  TRIB_ASSIGN_OR_RETURN(auto auto_partition, table::AutoPartitionRuleOf(schema));
  TRIB_RETURN_NOT_OK(table::PartitionExpireRuleOf(schema).status());
  if (auto_partition) {
    // The zone is recorded, so that every client computes the same partitions.
    if (options::IsSet(schema, options::kTableAutoPartitionTimeZone).value_or("").empty()) {
      schema.options[options::kTableAutoPartitionTimeZone.key] = table::MachineTimeZone();
    }
    TRIB_ASSIGN_OR_RETURN(const int64_t max, options::Get(schema, options::kMaxPartitionNum));
    if (auto_partition->precreate > max) {
      return Status::Invalid(
          "'table.auto-partition.num-precreate' = " + std::to_string(auto_partition->precreate) +
          " is more than "
          "'max.partition.num' = " +
          std::to_string(max));
    }
  }
  TRIB_ASSIGN_OR_RETURN(bool created, meta::SchemaManager(path).Commit(schema));
  if (!created) {
    if (ignore_if_exists) return Status::OK();
    return Status::AlreadyExists("table '" + id.ToString() + "' already exists");
  }
  if (auto_partition) {
    // Automatic partitions are created ahead as the table is; the table stands without them
    // (its next write or CALL sys.maintain_partitions creates them).
    auto table = GetTable(id);
    Status st =
        table.ok() ? table::MaintainAutoPartitions(**table, NowMillis()).status() : table.status();
    if (!st.ok()) {
      return st.WithContext("table '" + id.ToString() +
                            "' was created, but not its automatic "
                            "partitions");
    }
  }
  return Status::OK();
}

Status Catalog::DropTable(const Identifier& id, bool ignore_if_not_exists) {
  if (!id.branch.empty()) {
    return Status::Invalid("cannot drop a branch '" + id.ToString() +
                           "' as a table; use "
                           "CALL sys.delete_branch");
  }
  TRIB_ASSIGN_OR_RETURN(std::string path, TablePath(id));
  TRIB_ASSIGN_OR_RETURN(bool exists, TableExists(id));
  if (!exists) {
    if (ignore_if_not_exists) return Status::OK();
    return TableNotFound(id);
  }
  // Atomically take the table away first (a crash during the removal then leaves only a
  // hidden tombstone directory, never a half-removed table that a later CREATE would adopt).
  // The table's name is in the tombstone's when it fits (a table named before names were limited
  // to kMaxNameBytes may be longer).
  if (io::IsObjectStoreUri(path)) {
    // Object storage has no rename: the schema files go first (the table no longer exists for
    // any reader, and a writer's commit fails: it checks the first schema file), then the rest.
    io::FileCache::Instance().EraseUnder(path);
    TRIB_RETURN_NOT_OK(io::LocalFs().RemoveAll(meta::SchemaDir(path)));
    return io::LocalFs().RemoveAll(path);
  }
  const std::string shown = id.table.size() <= kMaxNameBytes ? id.table : "";
  std::string tomb =
      io::JoinPath(io::ParentPath(path), "." + shown + ".dropped-" + meta::NewUuid());
  if (::rename(path.c_str(), tomb.c_str()) != 0) {
    return Status::IOError("cannot drop table '" + id.ToString() + "': rename failed");
  }
  io::FileCache::Instance().EraseUnder(path);
  return io::LocalFs().RemoveAll(tomb);
}

Status Catalog::AlterTableOptions(const Identifier& id,
                                  const std::map<std::string, std::string>& set,
                                  const std::vector<std::string>& reset) {
  TRIB_ASSIGN_OR_RETURN(std::string path, TablePath(id));
  meta::SchemaManager schemas(path);
  for (int attempt = 0; attempt < 10; attempt++) {
    TRIB_ASSIGN_OR_RETURN(auto latest_id, schemas.LatestId());
    if (!latest_id) return Status::NotFound("table '" + id.ToString() + "' does not exist");
    TRIB_ASSIGN_OR_RETURN(auto latest, schemas.Read(*latest_id));
    std::vector<std::string> columns;
    for (const auto& f : latest->fields) columns.push_back(f.name);
    TRIB_ASSIGN_OR_RETURN(auto normalized, NormalizeOptions(OptionScope::kTable, set, columns));
    TableSpec spec;
    spec.columns = latest->fields;
    spec.primary_keys = latest->primary_keys;
    spec.partition_keys = latest->partition_keys;
    spec.comment = latest->comment;
    spec.options = latest->options;
    for (const auto& [k, v] : normalized) spec.options[k] = v;
    for (const auto& k : reset) {
      const OptionDef* def = FindOption(OptionScope::kTable, k);
      if (!def) {
        // Unknown key: let the checker produce the did-you-mean error.
        TRIB_ASSIGN_OR_RETURN(std::string canon, CheckOption(OptionScope::kTable, k, "", columns));
        spec.options.erase(canon);
        continue;
      }
      spec.options.erase(def->key.find("<col>") == std::string::npos ? def->key : k);
    }
    {
      // Fixed and dynamic bucket layouts cannot turn into each other (keys would be found in
      // one bucket and written to another); a fixed count may change (then INSERT OVERWRITE).
      int64_t before = latest->NumBuckets();
      int64_t after = -1;
      auto it = spec.options.find("bucket");
      if (it != spec.options.end()) after = std::atoll(it->second.c_str());
      if (before != after && (before == -1 || after == -1)) {
        return Status::NotSupported("cannot change 'bucket' from " + std::to_string(before) +
                                    " to " + std::to_string(after) +
                                    ": a table cannot switch between dynamic buckets (-1) and a "
                                    "fixed bucket count");
      }
    }
    for (const auto& [k, v] : normalized) {
      if (options::FixedAfterCreate(k) && latest->Option(k) != std::optional<std::string>(v)) {
        return Status::NotSupported("option '" + k + "' cannot be changed after CREATE TABLE");
      }
    }
    TableSchema altered;
    altered.options = spec.options;
    const bool dv_flips = options::GetOrDefault(*latest, options::kDeletionVectorsEnabled) !=
                          options::GetOrDefault(altered, options::kDeletionVectorsEnabled);
    if (dv_flips && !options::GetOrDefault(*latest, options::kDeletionVectorsModifiable) &&
        !options::GetOrDefault(altered, options::kDeletionVectorsModifiable)) {
      // As Paimon without 'deletion-vectors.modifiable': the stored files are laid out for one
      // mode; switching would duplicate rows or bring deleted ones back.
      return Status::NotSupported(
          "'deletion-vectors.enabled' cannot be changed after CREATE TABLE: the table's files "
          "are laid out for one mode (set 'deletion-vectors.modifiable' = 'true' to allow it: "
          "the table is then compacted fully before the mode changes)");
    }
    TRIB_ASSIGN_OR_RETURN(TableSchema next, BuildSchema(spec));
    if (dv_flips) {
      // 'deletion-vectors.modifiable': Paimon lets the mode change and warns that rows may be
      // duplicated (or deleted ones come back) until a full compaction. Here the full compaction
      // runs first, in the mode the files were written in (vectors applied), so every bucket is
      // one run without vectors: right in either mode.
      TRIB_ASSIGN_OR_RETURN(auto table, GetTable(id));
      TRIB_ASSIGN_OR_RETURN(auto compacted, table->CompactFull());
      (void)compacted;
    }
    TRIB_RETURN_NOT_OK(table::PartitionExpireRuleOf(next).status());
    next.fields = latest->fields;  // keep field ids
    next.highest_field_id = latest->highest_field_id;
    next.id = latest->id + 1;
    TRIB_ASSIGN_OR_RETURN(bool ok, schemas.Commit(next));
    if (ok) return Status::OK();
  }
  return Status::Conflict("ALTER TABLE '" + id.ToString() + "' kept losing to concurrent changes");
}

Status Catalog::RenameTable(const Identifier& from, const Identifier& to) {
  if (!from.system_table.empty() || !to.system_table.empty()) {
    return Status::Invalid("cannot rename a system table");
  }
  if (!from.branch.empty() || !to.branch.empty()) {
    return Status::NotSupported("renaming a branch is not supported yet");
  }
  if (from.database != to.database) {
    return Status::NotSupported("renaming table '" + from.ToString() +
                                "' into another database ('" + to.database +
                                "') is not supported yet");
  }
  TRIB_ASSIGN_OR_RETURN(bool exists, TableExists(from));
  if (!exists) return TableNotFound(from);
  TRIB_ASSIGN_OR_RETURN(bool taken, TableExists(to));
  if (taken) return Status::AlreadyExists("table '" + to.ToString() + "' already exists");
  TRIB_RETURN_NOT_OK(CheckNewName("table", to.table));
  TRIB_ASSIGN_OR_RETURN(std::string from_path, TablePath(from));
  TRIB_ASSIGN_OR_RETURN(std::string to_path, TablePath(to));
  if (io::IsObjectStoreUri(from_path)) {
    return Status::NotSupported(
        "renaming a table on object storage is not supported yet (it "
        "has no rename: every file would be copied)");
  }
  if (::rename(from_path.c_str(), to_path.c_str()) != 0) {
    return Status::IOError("cannot rename table '" + from.ToString() + "' to '" + to.ToString() +
                           "': " + std::strerror(errno));
  }
  io::FileCache::Instance().EraseUnder(from_path);
  return Status::OK();
}

Status Catalog::TableNotFound(const Identifier& id) const {
  if (!id.branch.empty()) {
    Identifier main = id;
    main.branch.clear();
    main.system_table.clear();
    auto exists = TableExists(main);
    if (exists.ok() && *exists) {
      std::string message = "table '" + main.ToString() + "' has no branch '" + id.branch + "'";
      auto branches = meta::ListBranches(meta::TablePath(warehouse_, id.database, id.table));
      if (branches.ok()) {
        const std::string hint = options::DidYouMean(id.branch, *branches);
        if (!hint.empty()) message += "; did you mean '" + hint + "'?";
      }
      return Status::NotFound(message);
    }
  }
  std::string message = "table '" + id.ToString() + "' does not exist";
  auto tables = ListTables(id.database);
  if (tables.ok()) {
    const std::string hint = options::DidYouMean(id.table, *tables);
    if (!hint.empty()) message += "; did you mean '" + hint + "'?";
  }
  return Status::NotFound(message);
}

Result<std::unique_ptr<Table>> Catalog::GetTable(const Identifier& id) const {
  if (!id.system_table.empty()) {
    return Status::Invalid("'" + id.ToString() + "' is a system table; read it as a query");
  }
  TRIB_ASSIGN_OR_RETURN(std::string path, TablePath(id));
  auto table = table::OpenFileStoreTable(id, path, id.branch.empty() ? pending_ : nullptr);
  if (!table.ok() && table.status().IsNotFound() &&
      table.status().message().find("' does not exist") != std::string::npos) {
    TRIB_ASSIGN_OR_RETURN(bool exists, TableExists(id));
    if (!exists) return TableNotFound(id);
  }
  return table;
}

Result<SystemTableData> Catalog::ReadSystemTable(
    const Identifier& id, const std::map<std::string, std::string>& options) const {
  Identifier base = id;
  base.system_table.clear();
  TRIB_ASSIGN_OR_RETURN(bool exists, TableExists(base));
  if (!exists) return TableNotFound(base);
  if (!id.branch.empty() && id.system_table == "branches") {
    return Status::Invalid("'" + id.ToString() +
                           "': $branches is a system table of the main "
                           "branch ('" +
                           id.database + "." + id.table + "$branches')");
  }
  TRIB_ASSIGN_OR_RETURN(std::string path, TablePath(base));
  if (pending_ && id.branch.empty()) TRIB_RETURN_NOT_OK(pending_->Settle(base));
  return table::ReadSystemTable(path, id.system_table, options);
}

}  // namespace tributary
