#include "table/system_tables.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "common/datetime.h"
#include "common/json.h"
#include "format/binary_row.h"
#include "io/file_system.h"
#include "meta/branches.h"
#include "meta/consumer.h"
#include "meta/partition_marker.h"
#include "meta/paths.h"
#include "meta/schema_manager.h"
#include "meta/snapshot.h"
#include "meta/snapshot_reader.h"
#include "meta/tags.h"
#include "options/core_options.h"
#include "options/option_keys.h"
#include "options/option_values.h"
#include "read/stream_scan.h"
#include "read/table_read.h"
#include "table/file_store_table.h"
#include "tributary/stream_scan.h"
#include "tributary/table_scan.h"
#include "write/table_write.h"

namespace tributary::table {

using meta::ReadLiveEntries;
using read::NewFileStoreScan;
namespace {

Field F(const char* name, DataType t) { return Field{0, name, t, ""}; }
Value S(std::string s) { return Value::String(std::move(s)); }
Value I(int64_t v) { return Value::Int(v); }
Value OptI(const std::optional<int64_t>& v) { return v ? Value::Int(*v) : Value(); }
Value Millis(int64_t ms) { return Value::Ts({ms, 0}); }

// "[v1, v2]": how Paimon's system tables print a row of values.
std::string RowString(const Row& r, const std::vector<DataType>& types) {
  std::string s = "[";
  for (size_t i = 0; i < r.size(); i++) {
    if (i) s += ", ";
    s += r[i].is_null() ? "null" : FormatValue(r[i], types[i]);
  }
  return s + "]";
}

// "{a=1, b=2}" for per-column statistics.
std::string StatsString(const Row& r, const std::vector<Field>& fields) {
  std::string s = "{";
  for (size_t i = 0; i < r.size() && i < fields.size(); i++) {
    if (i) s += ", ";
    s += fields[i].name + "=" + (r[i].is_null() ? "null" : FormatValue(r[i], fields[i].type));
  }
  return s + "}";
}

Result<SystemTableData> Snapshots(const std::string& path) {
  SystemTableData d;
  d.fields = {F("snapshot_id", DataType::BigInt().NotNull()),
              F("schema_id", DataType::BigInt().NotNull()),
              F("commit_user", DataType::String()),
              F("commit_identifier", DataType::BigInt()),
              F("commit_kind", DataType::String()),
              F("commit_time", DataType::Timestamp(3)),
              F("base_manifest_list", DataType::String()),
              F("delta_manifest_list", DataType::String()),
              F("changelog_manifest_list", DataType::String()),
              F("total_record_count", DataType::BigInt()),
              F("delta_record_count", DataType::BigInt()),
              F("changelog_record_count", DataType::BigInt()),
              F("watermark", DataType::BigInt())};
  meta::SnapshotManager sm(path);
  TRIB_ASSIGN_OR_RETURN(auto ids, sm.ListIds());
  for (int64_t id : ids) {
    TRIB_ASSIGN_OR_RETURN(auto s, sm.Read(id));
    d.rows.push_back({I(s->id), I(s->schema_id), S(s->commit_user), I(s->commit_identifier),
                      S(meta::CommitKindName(s->commit_kind)), Millis(s->time_millis),
                      S(s->base_manifest_list), S(s->delta_manifest_list),
                      s->changelog_manifest_list ? S(*s->changelog_manifest_list) : Value(),
                      OptI(s->total_record_count), OptI(s->delta_record_count),
                      OptI(s->changelog_record_count), OptI(s->watermark)});
  }
  return d;
}

// $tags: one row per tag (Paimon's TagsTable columns).
Result<SystemTableData> Tags(const std::string& path) {
  SystemTableData d;
  d.fields = {F("tag_name", DataType::String().NotNull()),
              F("snapshot_id", DataType::BigInt().NotNull()),
              F("schema_id", DataType::BigInt().NotNull()),
              F("commit_time", DataType::Timestamp(3).NotNull()),
              F("record_count", DataType::BigInt()),
              F("create_time", DataType::Timestamp(3)),
              F("time_retained", DataType::String())};
  TRIB_ASSIGN_OR_RETURN(auto names, meta::ListTags(path));
  for (const auto& name : names) {
    std::string created;
    TRIB_ASSIGN_OR_RETURN(auto s, meta::ReadTag(path, name, &created));
    Value create_time;
    if (auto ts = ParseTimestamp(created, 3); ts.ok() && !created.empty()) {
      create_time = Value::Ts(*ts);
    }
    d.rows.push_back({S(name), I(s->id), I(s->schema_id), Millis(s->time_millis),
                      OptI(s->total_record_count), std::move(create_time), Value()});
  }
  return d;
}

// $consumers: one row per consumer (Paimon's ConsumersTable columns): a named streaming reader's
// or a streaming job's next snapshot, which expiration keeps.
Result<SystemTableData> Consumers(const std::string& path) {
  SystemTableData d;
  d.fields = {F("consumer_id", DataType::String().NotNull()),
              F("next_snapshot_id", DataType::BigInt().NotNull())};
  TRIB_ASSIGN_OR_RETURN(auto consumers, meta::ListConsumers(path));
  for (auto& [id, next] : consumers) d.rows.push_back({S(id), I(next)});
  return d;
}

struct PartitionInfo {
  std::vector<Field> fields;
  std::vector<DataType> types;
};

PartitionInfo PartitionOf(const TableSchema& s) {
  PartitionInfo p;
  for (const auto& k : s.partition_keys) {
    int i = s.FieldIndex(k);
    if (i < 0) continue;
    p.fields.push_back(s.fields[i]);
    p.types.push_back(s.fields[i].type);
  }
  return p;
}

Result<std::vector<meta::ManifestEntry>> LatestEntries(const std::string& path) {
  meta::SnapshotManager sm(path);
  TRIB_ASSIGN_OR_RETURN(auto latest, sm.LatestId());
  if (!latest) return std::vector<meta::ManifestEntry>{};
  TRIB_ASSIGN_OR_RETURN(auto snap, sm.Read(*latest));
  return ReadLiveEntries(path, *snap);
}

// $manifests: the manifest files of the latest snapshot (its base and delta lists), Paimon's
// ManifestsTable columns.
Result<SystemTableData> Manifests(const std::string& path, const TableSchema& schema) {
  SystemTableData d;
  d.fields = {F("file_name", DataType::String().NotNull()),
              F("file_size", DataType::BigInt().NotNull()),
              F("num_added_files", DataType::BigInt().NotNull()),
              F("num_deleted_files", DataType::BigInt().NotNull()),
              F("schema_id", DataType::BigInt().NotNull()),
              F("min_partition_stats", DataType::String()),
              F("max_partition_stats", DataType::String()),
              F("min_row_id", DataType::BigInt()),
              F("max_row_id", DataType::BigInt())};
  meta::SnapshotManager sm(path);
  TRIB_ASSIGN_OR_RETURN(auto latest, sm.LatestId());
  if (!latest) return d;
  TRIB_ASSIGN_OR_RETURN(auto snap, sm.Read(*latest));
  PartitionInfo pi = PartitionOf(schema);
  for (const std::string* list : {&snap->base_manifest_list, &snap->delta_manifest_list}) {
    TRIB_ASSIGN_OR_RETURN(auto metas, meta::ReadManifestList(path, *list));
    for (const auto& m : metas) {
      Value min_p, max_p;
      auto mn = format::DeserializeBinaryRow(m.partition_stats.min_values, pi.types);
      auto mx = format::DeserializeBinaryRow(m.partition_stats.max_values, pi.types);
      if (mn.ok() && mx.ok()) {
        min_p = S(RowString(*mn, pi.types));
        max_p = S(RowString(*mx, pi.types));
      }
      d.rows.push_back({S(m.file_name), I(m.file_size), I(m.num_added_files),
                        I(m.num_deleted_files), I(m.schema_id), std::move(min_p), std::move(max_p),
                        OptI(m.min_row_id), OptI(m.max_row_id)});
    }
  }
  return d;
}

// $table_indexes (Paimon's): the index files the latest snapshot lists (dynamic-bucket HASH
// indexes, deletion vectors), with where each data file's deletion vector lies in its file.
Result<SystemTableData> TableIndexes(const std::string& path, const TableSchema& schema) {
  SystemTableData d;
  d.fields = {
      F("partition", DataType::String()),
      F("bucket", DataType::Int().NotNull()),
      F("index_type", DataType::String().NotNull()),
      F("file_name", DataType::String().NotNull()),
      F("file_size", DataType::BigInt().NotNull()),
      F("row_count", DataType::BigInt().NotNull()),
      F("dv_ranges",
        DataType::Array(DataType::Row({F("f0", DataType::String()), F("f1", DataType::Int()),
                                       F("f2", DataType::Int()), F("f3", DataType::BigInt())})))};
  meta::SnapshotManager sm(path);
  TRIB_ASSIGN_OR_RETURN(auto latest, sm.LatestId());
  if (!latest) return d;
  TRIB_ASSIGN_OR_RETURN(auto snap, sm.Read(*latest));
  PartitionInfo pi = PartitionOf(schema);
  for (const char* type : {"HASH", "DELETION_VECTORS"}) {
    TRIB_ASSIGN_OR_RETURN(auto entries, meta::ReadLiveIndexEntries(path, *snap, type));
    for (const auto& e : entries) {
      TRIB_ASSIGN_OR_RETURN(Row part, format::DeserializeBinaryRow(e.partition, pi.types));
      Value ranges;
      if (e.index_type == "DELETION_VECTORS") {
        std::vector<Value> items;
        for (const auto& r : e.dv_ranges) {
          items.push_back(Value::Struct({S(r.data_file), I(r.offset), I(r.length),
                                         r.cardinality ? I(*r.cardinality) : Value()}));
        }
        ranges = Value::Array(std::move(items));
      }
      d.rows.push_back({S(RowString(part, pi.types)), I(e.bucket), S(e.index_type), S(e.file_name),
                        I(e.file_size), I(e.row_count), std::move(ranges)});
    }
  }
  return d;
}

Result<SystemTableData> Files(const std::string& path, const TableSchema& schema) {
  SystemTableData d;
  d.fields = {F("partition", DataType::String()),
              F("bucket", DataType::Int()),
              F("file_path", DataType::String()),
              F("file_format", DataType::String()),
              F("schema_id", DataType::BigInt()),
              F("level", DataType::Int()),
              F("record_count", DataType::BigInt()),
              F("file_size_in_bytes", DataType::BigInt()),
              F("min_key", DataType::String()),
              F("max_key", DataType::String()),
              F("null_value_counts", DataType::String()),
              F("min_value_stats", DataType::String()),
              F("max_value_stats", DataType::String()),
              F("min_sequence_number", DataType::BigInt()),
              F("max_sequence_number", DataType::BigInt()),
              F("creation_time", DataType::Timestamp(3))};
  TRIB_ASSIGN_OR_RETURN(auto entries, LatestEntries(path));
  PartitionInfo pi = PartitionOf(schema);
  std::vector<DataType> key_types;
  for (const auto& k : schema.TrimmedPrimaryKeys())
    key_types.push_back(schema.fields[schema.FieldIndex(k)].type);
  std::vector<DataType> value_types;
  for (const auto& f : schema.fields) value_types.push_back(f.type);
  TRIB_ASSIGN_OR_RETURN(std::string default_name,
                        options::Get(schema, options::kPartitionDefaultName));
  for (const auto& e : entries) {
    TRIB_ASSIGN_OR_RETURN(Row part, format::DeserializeBinaryRow(e.partition, pi.types));
    std::string dir =
        meta::BucketDir(path, meta::PartitionPath(pi.fields, part, default_name), e.bucket);
    std::string file_path =
        e.file.external_path ? *e.file.external_path : io::JoinPath(dir, e.file.file_name);
    std::string fmt = e.file.file_name.substr(e.file.file_name.rfind('.') + 1);
    auto min_key = format::DeserializeBinaryRow(e.file.min_key, key_types);
    auto max_key = format::DeserializeBinaryRow(e.file.max_key, key_types);
    Value min_v, max_v, nulls;
    if (!e.file.value_stats_cols && e.file.schema_id == schema.id) {
      auto mn = format::DeserializeBinaryRow(e.file.value_stats.min_values, value_types);
      auto mx = format::DeserializeBinaryRow(e.file.value_stats.max_values, value_types);
      if (mn.ok() && mx.ok()) {
        min_v = S(StatsString(*mn, schema.fields));
        max_v = S(StatsString(*mx, schema.fields));
      }
      if (e.file.value_stats.has_null_counts) {
        std::string s = "{";
        for (size_t i = 0; i < e.file.value_stats.null_counts.size() && i < schema.fields.size();
             i++) {
          if (i) s += ", ";
          const auto& n = e.file.value_stats.null_counts[i];
          s += schema.fields[i].name + "=" + (n ? std::to_string(*n) : "null");
        }
        nulls = S(s + "}");
      }
    }
    d.rows.push_back(
        {S(RowString(part, pi.types)), I(e.bucket), S(file_path), S(fmt), I(e.file.schema_id),
         I(e.file.level), I(e.file.row_count), I(e.file.file_size),
         min_key.ok() && !key_types.empty() ? S(RowString(*min_key, key_types)) : Value(),
         max_key.ok() && !key_types.empty() ? S(RowString(*max_key, key_types)) : Value(), nulls,
         min_v, max_v, I(e.file.min_sequence_number), I(e.file.max_sequence_number),
         e.file.creation_time_millis ? Millis(*e.file.creation_time_millis) : Value()});
  }
  return d;
}

Result<SystemTableData> Partitions(const std::string& path, const TableSchema& schema) {
  SystemTableData d;
  d.fields = {F("partition", DataType::String()), F("record_count", DataType::BigInt()),
              F("file_size_in_bytes", DataType::BigInt()), F("file_count", DataType::BigInt()),
              F("last_update_time", DataType::Timestamp(3))};
  TRIB_ASSIGN_OR_RETURN(auto entries, LatestEntries(path));
  PartitionInfo pi = PartitionOf(schema);
  struct Agg {
    Row part;
    int64_t records = 0, bytes = 0, files = 0, updated = 0;
  };
  std::map<std::string, Agg> parts;  // ordered by the "k=v/..." path
  for (const auto& e : entries) {
    TRIB_ASSIGN_OR_RETURN(Row part, format::DeserializeBinaryRow(e.partition, pi.types));
    std::string name = meta::PartitionPath(pi.fields, part);
    Agg& a = parts[name];
    a.part = part;
    a.records += e.file.row_count;
    a.bytes += e.file.file_size;
    a.files++;
    a.updated = std::max(a.updated, e.file.creation_time_millis.value_or(0));
  }
  for (const auto& [name, a] : parts) {
    d.rows.push_back({S(name), I(a.records), I(a.bytes), I(a.files), Millis(a.updated)});
  }
  // Partitions added (ALTER TABLE ... ADD PARTITION) and not written yet: empty.
  TRIB_ASSIGN_OR_RETURN(auto marked, meta::ListMarkedPartitions(path, schema.partition_keys));
  bool added = false;
  for (const std::string& name : marked) {
    if (parts.count(name)) continue;
    d.rows.push_back({S(name), I(0), I(0), I(0), Value::Null()});
    added = true;
  }
  if (added) {
    std::sort(d.rows.begin(), d.rows.end(),
              [](const Row& a, const Row& b) { return a[0].string_value() < b[0].string_value(); });
  }
  return d;
}

Result<SystemTableData> Options(const TableSchema& schema) {
  SystemTableData d;
  d.fields = {F("key", DataType::String().NotNull()), F("value", DataType::String())};
  for (const auto& [k, v] : schema.options) d.rows.push_back({S(k), S(v)});
  return d;
}

Result<SystemTableData> Schemas(const std::string& path) {
  SystemTableData d;
  d.fields = {F("schema_id", DataType::BigInt().NotNull()),
              F("fields", DataType::String()),
              F("partition_keys", DataType::String()),
              F("primary_keys", DataType::String()),
              F("options", DataType::String()),
              F("comment", DataType::String()),
              F("update_time", DataType::Timestamp(3))};
  meta::SchemaManager sm(path);
  TRIB_ASSIGN_OR_RETURN(auto latest, sm.LatestId());
  for (int64_t id = 0; latest && id <= *latest; id++) {
    auto s = sm.Read(id);
    if (!s.ok()) {
      if (s.status().IsNotFound()) continue;
      return s.status();
    }
    Json fields = Json::array();
    for (const auto& f : (*s)->fields) {
      Json jf = Json::object();
      jf["id"] = f.id;
      jf["name"] = f.name;
      jf["type"] = f.type.ToString();
      fields.push_back(jf);
    }
    Json opts = Json::object();
    for (const auto& [k, v] : (*s)->options) opts[k] = v;
    d.rows.push_back({I((*s)->id), S(fields.dump()), S(Json((*s)->partition_keys).dump()),
                      S(Json((*s)->primary_keys).dump()), S(opts.dump()),
                      (*s)->comment.empty() ? Value() : S((*s)->comment),
                      Millis((*s)->time_millis)});
  }
  return d;
}

// Every row of a scan, with its output columns.
Result<SystemTableData> ScanAll(TableScan& scan) {
  SystemTableData d;
  d.fields = scan.output_fields();
  RowBatch batch;
  while (true) {
    TRIB_ASSIGN_OR_RETURN(bool more, scan.Next(&batch));
    for (auto& r : batch.rows) d.rows.push_back(std::move(r));
    batch.Clear();
    if (!more) break;
  }
  return d;
}

// t$branches: the table's branches and when each was created (its folder's time, as Paimon).
Result<SystemTableData> Branches(const std::string& path) {
  SystemTableData d;
  d.fields = {F("branch_name", DataType::String().NotNull()),
              F("create_time", DataType::Timestamp(3).NotNull())};
  TRIB_ASSIGN_OR_RETURN(auto names, meta::ListBranches(path));
  for (const auto& name : names) {
    TRIB_ASSIGN_OR_RETURN(int64_t created, meta::BranchCreateTime(path, name));
    d.rows.push_back({S(name), Millis(created)});
  }
  return d;
}

// t$row_tracking: the rows of a row-tracking append table with their `_ROW_ID` and
// `_SEQUENCE_NUMBER`.
Result<SystemTableData> RowTracking(const std::string& path,
                                    const std::shared_ptr<const TableSchema>& table) {
  const TableSchema& schema = *table;
  TRIB_ASSIGN_OR_RETURN(bool row_tracking, options::Get(schema, options::kRowTrackingEnabled));
  TRIB_ASSIGN_OR_RETURN(bool evolution, options::Get(schema, options::kDataEvolutionEnabled));
  if (!row_tracking) {
    return Status::Invalid("$row_tracking needs a table with 'row-tracking.enabled' = 'true'");
  }
  if (evolution) {
    return Status::NotSupported("$row_tracking of a data-evolution table is not supported yet");
  }
  for (const auto& f : schema.fields) {
    if (f.name == "_ROW_ID" || f.name == "_SEQUENCE_NUMBER") {
      return Status::Invalid("$row_tracking: the table has its own column '" + f.name + "'");
    }
  }
  ScanOptions options;
  options.row_tracking = true;
  TRIB_ASSIGN_OR_RETURN(auto scan, NewFileStoreScan(path, table, options));
  return ScanAll(*scan);
}

// t$audit_log read as a batch: the table's rows, each led by its row kind (+I), as Paimon's
// AuditLogTable reads a snapshot.
Result<SystemTableData> AuditLog(const std::string& path,
                                 const std::shared_ptr<const TableSchema>& table,
                                 const std::map<std::string, std::string>& hints) {
  ScanOptions options;
  options.dynamic_options = hints;  // time travel, as a read of the table itself
  TRIB_ASSIGN_OR_RETURN(auto scan, NewFileStoreScan(path, table, options));
  TRIB_ASSIGN_OR_RETURN(SystemTableData rows, ScanAll(*scan));
  SystemTableData d;
  d.fields = ChangeTableFields("audit_log", *table);
  for (Row& r : rows.rows) {
    Row out;
    out.reserve(r.size() + 1);
    out.push_back(Value::String("+I"));
    for (Value& v : r) out.push_back(std::move(v));
    d.rows.push_back(std::move(out));
  }
  return d;
}

// t$changelog and t$binlog read as a batch: every retained change, from the oldest snapshot.
Result<SystemTableData> Changes(const std::string& path,
                                const std::shared_ptr<const TableSchema>& table,
                                const std::string& name,
                                const std::map<std::string, std::string>& hints) {
  StreamOptions o;
  o.startup_mode = "earliest";
  o.with_change_metadata = true;
  // Where the changes start, as a streaming read's hints say it (default: the oldest).
  auto hint = [&](const char* key) -> std::optional<std::string> {
    auto it = hints.find(key);
    return it == hints.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  if (auto id = hint("scan.snapshot-id")) {
    TRIB_ASSIGN_OR_RETURN(int64_t v, options::ParseInt64(*id));
    o.startup_snapshot_id = v;
    o.startup_mode = "from-snapshot";
  }
  if (auto ms = hint("scan.timestamp-millis")) {
    TRIB_ASSIGN_OR_RETURN(int64_t v, options::ParseInt64(*ms));
    o.startup_timestamp_millis = v;
    o.startup_mode = "timestamp";
  }
  for (const char* key : {"scan.mode", "scan.startup.mode"}) {
    auto mode = hint(key);
    if (!mode) continue;
    std::optional<std::string> as_mode = *mode;
    if (*mode != "earliest" && *mode != "timestamp") {
      TRIB_ASSIGN_OR_RETURN(as_mode,
                            options::StartupModeOfScanMode(*mode, o.startup_snapshot_id.has_value(),
                                                           o.startup_timestamp_millis.has_value()));
    }
    if (as_mode &&
        (*as_mode == "full" || *as_mode == "from-snapshot-full" || *as_mode == "compacted-full")) {
      return Status::NotSupported("'" + std::string(key) + "' = '" + *mode + "' on t$" + name +
                                  " (changes, not a snapshot's rows) is not supported");
    }
    if (as_mode) o.startup_mode = *as_mode;
  }
  TRIB_ASSIGN_OR_RETURN(auto stream, read::NewFileStoreStreamScan(path, table, o));
  SystemTableData d;
  d.fields = ChangeTableFields(name, *table);
  RowBatch batch;
  while (true) {
    TRIB_ASSIGN_OR_RETURN(bool more, stream->Next(&batch, std::chrono::milliseconds(0)));
    if (!more) break;
    TRIB_RETURN_NOT_OK(ToChangeTableRows(name, *table, &batch, &d.rows));
  }
  return d;
}

}  // namespace

bool IsChangeTable(const std::string& name) {
  return name == "changelog" || name == "binlog" || name == "audit_log";
}

std::vector<Field> ChangeTableFields(const std::string& name, const TableSchema& schema) {
  std::vector<Field> out;
  auto add = [&](const char* n, DataType t) {
    out.push_back(Field{static_cast<int32_t>(out.size()), n, std::move(t), ""});
  };
  if (name == "audit_log") {
    add("rowkind", DataType::String().NotNull());
  } else {
    add("_change_type", DataType::String().NotNull());
    add("_log_offset", DataType::BigInt());
    add("_commit_timestamp", DataType::TimestampLtz(3).NotNull());
  }
  if (name == "binlog") {
    std::vector<Field> columns = schema.fields;
    for (auto& f : columns) f.type = f.type.WithNullable(true);
    add("before", DataType::Row(columns));
    add("after", DataType::Row(columns));
    return out;
  }
  for (const Field& f : schema.fields) {
    out.push_back(Field{static_cast<int32_t>(out.size()), f.name, f.type, f.description});
  }
  return out;
}

Status ToChangeTableRows(const std::string& name, const TableSchema& schema, RowBatch* batch,
                         std::vector<Row>* out) {
  const size_t n = schema.fields.size();
  for (size_t i = 0; i < batch->rows.size(); i++) {
    Row& r = batch->rows[i];
    if (r.size() != n + 3) return Status::Internal("change rows without their metadata");
    const RowKind kind = batch->kinds[i];
    Value offset = std::move(r[n]), committed = std::move(r[n + 1]);
    r.resize(n);
    if (name == "audit_log") {
      Row row;
      row.push_back(Value::String(std::string(RowKindShortString(kind))));
      for (Value& v : r) row.push_back(std::move(v));
      out->push_back(std::move(row));
      continue;
    }
    if (name == "changelog") {
      const char* type = kind == RowKind::kInsert         ? "insert"
                         : kind == RowKind::kUpdateBefore ? "update_before"
                         : kind == RowKind::kUpdateAfter  ? "update_after"
                                                          : "delete";
      Row row = {Value::String(type), std::move(offset), std::move(committed)};
      for (Value& v : r) row.push_back(std::move(v));
      out->push_back(std::move(row));
      continue;
    }
    // binlog: an update's before (-U) and after (+U) rows become one row; an after without its
    // before is an update whose before is NULL, a before without its after a delete.
    Row row;
    auto same_key = [&](const Row& a, const Row& b) {
      for (const auto& k : schema.primary_keys) {
        const int c = schema.FieldIndex(k);
        if (!(a[c] == b[c])) return false;
      }
      return !schema.primary_keys.empty();
    };
    if (kind == RowKind::kUpdateBefore && i + 1 < batch->rows.size() &&
        batch->kinds[i + 1] == RowKind::kUpdateAfter && same_key(r, batch->rows[i + 1])) {
      Row& after = batch->rows[i + 1];
      after.resize(n);
      row = {Value::String("update"), std::move(offset), std::move(committed),
             Value::Struct(std::move(r)), Value::Struct(std::move(after))};
      i++;
    } else if (kind == RowKind::kInsert) {
      row = {Value::String("insert"), std::move(offset), std::move(committed), Value::Null(),
             Value::Struct(std::move(r))};
    } else if (kind == RowKind::kUpdateAfter) {
      row = {Value::String("update"), std::move(offset), std::move(committed), Value::Null(),
             Value::Struct(std::move(r))};
    } else {
      row = {Value::String("delete"), std::move(offset), std::move(committed),
             Value::Struct(std::move(r)), Value::Null()};
    }
    out->push_back(std::move(row));
  }
  return Status::OK();
}

Result<SystemTableData> ReadSystemTable(const std::string& path, const std::string& name,
                                        const std::map<std::string, std::string>& options) {
  static const std::vector<std::string> kNames = {
      "snapshots", "files",  "options", "schemas",  "partitions", "row_tracking",  "audit_log",
      "changelog", "binlog", "tags",    "branches", "manifests",  "table_indexes", "consumers"};
  // A hint must do what it says: each is refused by name where it means nothing.
  static const std::set<std::string> kTravel = {"scan.snapshot-id", "scan.timestamp-millis",
                                                "scan.tag-name", "scan.watermark", "scan.mode"};
  static const std::set<std::string> kStart = {"scan.startup.mode", "scan.mode", "scan.snapshot-id",
                                               "scan.timestamp-millis"};
  const std::set<std::string>* allowed = name == "audit_log"                       ? &kTravel
                                         : name == "changelog" || name == "binlog" ? &kStart
                                                                                   : nullptr;
  for (const auto& [key, value] : options) {
    if (!allowed || !allowed->count(key)) {
      return Status::NotSupported("option '" + key + "' is not supported on system table $" + name +
                                  (allowed ? "" : " (it takes no options)"));
    }
  }
  if (name == "branches") return Branches(path);
  if (name == "snapshots") return Snapshots(path);
  if (name == "schemas") return Schemas(path);
  if (name == "tags") return Tags(path);
  if (name == "consumers") return Consumers(path);
  meta::SchemaManager sm(path);
  TRIB_ASSIGN_OR_RETURN(auto schema, sm.Latest());
  if (name == "files") return Files(path, *schema);
  if (name == "manifests") return Manifests(path, *schema);
  if (name == "table_indexes") return TableIndexes(path, *schema);
  if (name == "options") return Options(*schema);
  if (name == "partitions") return Partitions(path, *schema);
  if (name == "row_tracking") return RowTracking(path, schema);
  if (name == "audit_log") return AuditLog(path, schema, options);
  if (name == "changelog" || name == "binlog") return Changes(path, schema, name, options);
  std::string hint = options::DidYouMean(name, kNames);
  std::string known;
  for (const auto& n : kNames) known += (known.empty() ? "" : ", ") + n;
  return Status::NotFound("unknown system table '$" + name + "'" +
                          (hint.empty() ? "" : "; did you mean '$" + hint + "'?") +
                          " (known: " + known + ")");
}

}  // namespace tributary::table
