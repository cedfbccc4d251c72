#include "meta/manifest.h"

#include <map>
#include <unordered_map>
#include <unordered_set>

#include "format/avro.h"
#include "meta/paths.h"

namespace tributary::meta {

using avro::Datum;
using avro::DatumList;
using avro::Schema;

namespace {

// The schemas current Java Paimon writes (copied field by field from Java-written files).
constexpr const char* kStatsFields =
    R"([{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},)"
    R"({"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}])";

std::string ManifestEntrySchemaJson() {
  return std::string(
             R"({"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[)"
             R"({"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},)"
             R"({"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},)"
             R"({"name":"_TOTAL_BUCKETS","type":"int"},)"
             R"({"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[)"
             R"({"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},)"
             R"({"name":"_ROW_COUNT","type":"long"},{"name":"_MIN_KEY","type":"bytes"},)"
             R"({"name":"_MAX_KEY","type":"bytes"},)"
             R"({"name":"_KEY_STATS","type":{"type":"record","name":"record__FILE__KEY_STATS","fields":)") +
         kStatsFields +
         R"(}},{"name":"_VALUE_STATS","type":{"type":"record","name":"record__FILE__VALUE_STATS","fields":)" +
         kStatsFields +
         R"(}},{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},)"
         R"({"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},)"
         R"({"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},)"
         R"({"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},)"
         R"({"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null},)"
         R"({"name":"_EMBEDDED_FILE_INDEX","type":["null","bytes"],"default":null},)"
         R"({"name":"_FILE_SOURCE","type":["null","int"],"default":null},)"
         R"({"name":"_VALUE_STATS_COLS","type":["null",{"type":"array","items":"string"}],"default":null},)"
         R"({"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},)"
         R"({"name":"_FIRST_ROW_ID","type":["null","long"],"default":null},)"
         R"({"name":"_WRITE_COLS","type":["null",{"type":"array","items":"string"}],"default":null}]}}]})";
}

std::string ManifestListSchemaJson() {
  return std::string(
             R"({"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[)"
             R"({"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},)"
             R"({"name":"_FILE_SIZE","type":"long"},{"name":"_NUM_ADDED_FILES","type":"long"},)"
             R"({"name":"_NUM_DELETED_FILES","type":"long"},)"
             R"({"name":"_PARTITION_STATS","type":{"type":"record","name":"record__PARTITION_STATS","fields":)") +
         kStatsFields +
         R"(}},{"name":"_SCHEMA_ID","type":"long"},)"
         R"({"name":"_MIN_BUCKET","type":["null","int"],"default":null},)"
         R"({"name":"_MAX_BUCKET","type":["null","int"],"default":null},)"
         R"({"name":"_MIN_LEVEL","type":["null","int"],"default":null},)"
         R"({"name":"_MAX_LEVEL","type":["null","int"],"default":null},)"
         R"({"name":"_MIN_ROW_ID","type":["null","long"],"default":null},)"
         R"({"name":"_MAX_ROW_ID","type":["null","long"],"default":null}]})";
}

std::string IndexManifestSchemaJson() {
  return R"({"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[)"
         R"({"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},)"
         R"({"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},)"
         R"({"name":"_INDEX_TYPE","type":"string"},{"name":"_FILE_NAME","type":"string"},)"
         R"({"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},)"
         R"({"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",)"
         R"({"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[)"
         R"({"name":"f0","type":"string"},{"name":"f1","type":"int"},{"name":"f2","type":"int"},)"
         R"({"name":"_CARDINALITY","type":["null","long"],"default":null}]}]}],"default":null},)"
         R"({"name":"_EXTERNAL_PATH","type":["null","string"],"default":null}]})";
}

const avro::SchemaPtr& IndexSchema() {
  static avro::SchemaPtr s = *avro::ParseSchema(IndexManifestSchemaJson());
  return s;
}

const avro::SchemaPtr& EntrySchema() {
  static avro::SchemaPtr s = *avro::ParseSchema(ManifestEntrySchemaJson());
  return s;
}
const avro::SchemaPtr& ListSchema() {
  static avro::SchemaPtr s = *avro::ParseSchema(ManifestListSchemaJson());
  return s;
}

// Reads fields of a record datum by name, following the writer's schema.
class RecordView {
 public:
  RecordView(const Schema& schema, const Datum& d, const std::string& what)
      : schema_(schema.NonNull()), d_(d), what_(what) {}

  const Datum* Get(const char* name) const {
    int i = schema_.FieldIndex(name);
    if (i < 0 || d_.is_null()) return nullptr;
    const auto& l = d_.as_list();
    if (static_cast<size_t>(i) >= l.size()) return nullptr;
    return &l[i];
  }
  const Schema* FieldSchema(const char* name) const {
    int i = schema_.FieldIndex(name);
    return i < 0 ? nullptr : &schema_.fields[i].schema->NonNull();
  }
  Status Missing(const char* name) const {
    return Status::Corruption(what_ + ": record has no field " + name);
  }
  Result<int64_t> Long(const char* name) const {
    const Datum* v = Get(name);
    if (!v || v->is_null()) return Missing(name);
    if (std::holds_alternative<int64_t>(v->rep)) return v->as_long();
    if (std::holds_alternative<int32_t>(v->rep)) return static_cast<int64_t>(v->as_int());
    return Status::Corruption(what_ + ": field " + name + " is not an integer");
  }
  std::optional<int64_t> OptLong(const char* name) const {
    const Datum* v = Get(name);
    if (!v || v->is_null()) return std::nullopt;
    if (std::holds_alternative<int64_t>(v->rep)) return v->as_long();
    if (std::holds_alternative<int32_t>(v->rep)) return v->as_int();
    return std::nullopt;
  }
  Result<std::string> Str(const char* name) const {
    const Datum* v = Get(name);
    if (!v || !std::holds_alternative<std::string>(v->rep)) return Missing(name);
    return v->as_string();
  }
  std::optional<std::string> OptStr(const char* name) const {
    const Datum* v = Get(name);
    if (!v || !std::holds_alternative<std::string>(v->rep)) return std::nullopt;
    return v->as_string();
  }
  std::optional<std::vector<std::string>> OptStrList(const char* name) const {
    const Datum* v = Get(name);
    if (!v || !std::holds_alternative<DatumList>(v->rep)) return std::nullopt;
    std::vector<std::string> out;
    for (const auto& e : v->as_list()) {
      if (std::holds_alternative<std::string>(e.rep)) out.push_back(e.as_string());
    }
    return out;
  }

 private:
  const Schema& schema_;
  const Datum& d_;
  const std::string& what_;
};

Result<SimpleStats> ReadStats(const RecordView& parent, const char* name, const std::string& what) {
  const Datum* d = parent.Get(name);
  const Schema* s = parent.FieldSchema(name);
  if (!d || !s) return parent.Missing(name);
  RecordView v(*s, *d, what);
  SimpleStats st;
  TRIB_ASSIGN_OR_RETURN(st.min_values, v.Str("_MIN_VALUES"));
  TRIB_ASSIGN_OR_RETURN(st.max_values, v.Str("_MAX_VALUES"));
  const Datum* nc = v.Get("_NULL_COUNTS");
  if (nc && std::holds_alternative<DatumList>(nc->rep)) {
    for (const auto& e : nc->as_list()) {
      if (std::holds_alternative<int64_t>(e.rep))
        st.null_counts.push_back(e.as_long());
      else
        st.null_counts.push_back(std::nullopt);
    }
  } else {
    st.has_null_counts = false;
  }
  return st;
}

Datum StatsDatum(const SimpleStats& s) {
  Datum nulls;
  if (s.has_null_counts) {
    DatumList l;
    for (const auto& c : s.null_counts) l.push_back(c ? Datum(*c) : Datum());
    nulls = Datum(std::move(l));
  }
  return Datum(DatumList{Datum(s.min_values), Datum(s.max_values), std::move(nulls)});
}

template <typename T>
Datum Opt(const std::optional<T>& v) {
  return v ? Datum(*v) : Datum();
}

Datum StrList(const std::vector<std::string>& v) {
  DatumList l;
  for (const auto& s : v) l.push_back(Datum(s));
  return Datum(std::move(l));
}

Result<std::string> WriteAll(const avro::SchemaPtr& schema, const std::vector<Datum>& records,
                             const std::string& codec) {
  TRIB_ASSIGN_OR_RETURN(avro::Codec c, avro::CodecFromName(codec));
  TRIB_ASSIGN_OR_RETURN(auto writer, avro::FileWriter::Make(schema, c));
  for (const auto& r : records) TRIB_RETURN_NOT_OK(writer->Append(r));
  return writer->Finish();
}

// Calls `fn(RecordView)` for every record of an Avro file; errors name `what`.
template <typename Fn>
Status ForEachRecord(std::string file, const std::string& what, Fn&& fn) {
  auto reader = avro::FileReader::Open(std::move(file));
  if (!reader.ok()) return reader.status().WithContext(what);
  const Schema& schema = *(*reader)->schema();
  Datum d;
  while (true) {
    auto more = (*reader)->Next(&d);
    if (!more.ok()) return more.status().WithContext(what);
    if (!*more) return Status::OK();
    TRIB_RETURN_NOT_OK(fn(RecordView(schema, d, what)));
  }
}

}  // namespace

std::string ManifestEntry::Identifier() const {
  std::string id = partition;
  id += '\0' + std::to_string(bucket) + '\0' + std::to_string(file.level) + '\0' + file.file_name;
  for (const auto& e : file.extra_files) id += '\0' + e;
  if (file.external_path) id += '\0' + *file.external_path;
  return id;
}

Result<std::string> EncodeManifest(const std::vector<ManifestEntry>& entries,
                                   const std::string& codec) {
  std::vector<Datum> records;
  records.reserve(entries.size());
  for (const auto& e : entries) {
    const DataFileMeta& f = e.file;
    Datum file(DatumList{Datum(f.file_name),
                         Datum(f.file_size),
                         Datum(f.row_count),
                         Datum(f.min_key),
                         Datum(f.max_key),
                         StatsDatum(f.key_stats),
                         StatsDatum(f.value_stats),
                         Datum(f.min_sequence_number),
                         Datum(f.max_sequence_number),
                         Datum(f.schema_id),
                         Datum(f.level),
                         StrList(f.extra_files),
                         Opt(f.creation_time_millis),
                         Opt(f.delete_row_count),
                         Opt(f.embedded_file_index),
                         f.file_source ? Datum(static_cast<int32_t>(*f.file_source)) : Datum(),
                         f.value_stats_cols ? StrList(*f.value_stats_cols) : Datum(),
                         Opt(f.external_path),
                         Opt(f.first_row_id),
                         f.write_cols ? StrList(*f.write_cols) : Datum()});
    records.push_back(
        Datum(DatumList{Datum(int32_t{2}), Datum(static_cast<int32_t>(e.kind)), Datum(e.partition),
                        Datum(e.bucket), Datum(e.total_buckets), std::move(file)}));
  }
  return WriteAll(EntrySchema(), records, codec);
}

Result<std::vector<ManifestEntry>> DecodeManifest(std::string file, const std::string& what) {
  std::vector<ManifestEntry> out;
  TRIB_RETURN_NOT_OK(ForEachRecord(std::move(file), what, [&](const RecordView& r) -> Status {
    ManifestEntry e;
    TRIB_ASSIGN_OR_RETURN(int64_t version, r.Long("_VERSION"));
    if (version != 2) {
      return Status::NotSupported(what + ": manifest entry format version " +
                                  std::to_string(version) + " is not supported");
    }
    TRIB_ASSIGN_OR_RETURN(int64_t kind, r.Long("_KIND"));
    e.kind = kind == 1 ? FileKind::kDelete : FileKind::kAdd;
    TRIB_ASSIGN_OR_RETURN(e.partition, r.Str("_PARTITION"));
    TRIB_ASSIGN_OR_RETURN(int64_t bucket, r.Long("_BUCKET"));
    e.bucket = static_cast<int32_t>(bucket);
    e.total_buckets = static_cast<int32_t>(r.OptLong("_TOTAL_BUCKETS").value_or(0));
    const Datum* fd = r.Get("_FILE");
    const Schema* fs = r.FieldSchema("_FILE");
    if (!fd || !fs || fd->is_null()) return r.Missing("_FILE");
    RecordView f(*fs, *fd, what);
    DataFileMeta& m = e.file;
    TRIB_ASSIGN_OR_RETURN(m.file_name, f.Str("_FILE_NAME"));
    TRIB_RETURN_NOT_OK(CheckFileName(m.file_name, what));
    TRIB_ASSIGN_OR_RETURN(m.file_size, f.Long("_FILE_SIZE"));
    TRIB_ASSIGN_OR_RETURN(m.row_count, f.Long("_ROW_COUNT"));
    m.min_key = f.OptStr("_MIN_KEY").value_or("");
    m.max_key = f.OptStr("_MAX_KEY").value_or("");
    TRIB_ASSIGN_OR_RETURN(m.key_stats, ReadStats(f, "_KEY_STATS", what));
    TRIB_ASSIGN_OR_RETURN(m.value_stats, ReadStats(f, "_VALUE_STATS", what));
    TRIB_ASSIGN_OR_RETURN(m.min_sequence_number, f.Long("_MIN_SEQUENCE_NUMBER"));
    TRIB_ASSIGN_OR_RETURN(m.max_sequence_number, f.Long("_MAX_SEQUENCE_NUMBER"));
    TRIB_ASSIGN_OR_RETURN(m.schema_id, f.Long("_SCHEMA_ID"));
    TRIB_ASSIGN_OR_RETURN(int64_t level, f.Long("_LEVEL"));
    m.level = static_cast<int32_t>(level);
    m.extra_files = f.OptStrList("_EXTRA_FILES").value_or(std::vector<std::string>{});
    for (const auto& x : m.extra_files) TRIB_RETURN_NOT_OK(CheckFileName(x, what));
    m.creation_time_millis = f.OptLong("_CREATION_TIME");
    m.delete_row_count = f.OptLong("_DELETE_ROW_COUNT");
    m.embedded_file_index = f.OptStr("_EMBEDDED_FILE_INDEX");
    if (auto src = f.OptLong("_FILE_SOURCE")) m.file_source = static_cast<FileSource>(*src);
    m.value_stats_cols = f.OptStrList("_VALUE_STATS_COLS");
    m.external_path = f.OptStr("_EXTERNAL_PATH");
    m.first_row_id = f.OptLong("_FIRST_ROW_ID");
    m.write_cols = f.OptStrList("_WRITE_COLS");
    out.push_back(std::move(e));
    return Status::OK();
  }));
  return out;
}

Result<std::string> EncodeManifestList(const std::vector<ManifestFileMeta>& metas,
                                       const std::string& codec) {
  std::vector<Datum> records;
  for (const auto& m : metas) {
    records.push_back(Datum(DatumList{Datum(int32_t{2}), Datum(m.file_name), Datum(m.file_size),
                                      Datum(m.num_added_files), Datum(m.num_deleted_files),
                                      StatsDatum(m.partition_stats), Datum(m.schema_id),
                                      Opt(m.min_bucket), Opt(m.max_bucket), Opt(m.min_level),
                                      Opt(m.max_level), Opt(m.min_row_id), Opt(m.max_row_id)}));
  }
  return WriteAll(ListSchema(), records, codec);
}

Result<std::vector<ManifestFileMeta>> DecodeManifestList(std::string file,
                                                         const std::string& what) {
  std::vector<ManifestFileMeta> out;
  TRIB_RETURN_NOT_OK(ForEachRecord(std::move(file), what, [&](const RecordView& r) -> Status {
    ManifestFileMeta m;
    TRIB_ASSIGN_OR_RETURN(m.file_name, r.Str("_FILE_NAME"));
    TRIB_RETURN_NOT_OK(CheckFileName(m.file_name, what));
    TRIB_ASSIGN_OR_RETURN(m.file_size, r.Long("_FILE_SIZE"));
    TRIB_ASSIGN_OR_RETURN(m.num_added_files, r.Long("_NUM_ADDED_FILES"));
    TRIB_ASSIGN_OR_RETURN(m.num_deleted_files, r.Long("_NUM_DELETED_FILES"));
    TRIB_ASSIGN_OR_RETURN(m.partition_stats, ReadStats(r, "_PARTITION_STATS", what));
    TRIB_ASSIGN_OR_RETURN(m.schema_id, r.Long("_SCHEMA_ID"));
    auto opt_int = [&](const char* n) -> std::optional<int32_t> {
      auto v = r.OptLong(n);
      return v ? std::optional<int32_t>(static_cast<int32_t>(*v)) : std::nullopt;
    };
    m.min_bucket = opt_int("_MIN_BUCKET");
    m.max_bucket = opt_int("_MAX_BUCKET");
    m.min_level = opt_int("_MIN_LEVEL");
    m.max_level = opt_int("_MAX_LEVEL");
    m.min_row_id = r.OptLong("_MIN_ROW_ID");
    m.max_row_id = r.OptLong("_MAX_ROW_ID");
    out.push_back(std::move(m));
    return Status::OK();
  }));
  return out;
}

Result<std::vector<IndexManifestEntry>> DecodeIndexManifest(std::string file,
                                                            const std::string& what) {
  std::vector<IndexManifestEntry> out;
  TRIB_RETURN_NOT_OK(ForEachRecord(std::move(file), what, [&](const RecordView& r) -> Status {
    IndexManifestEntry e;
    TRIB_ASSIGN_OR_RETURN(int64_t kind, r.Long("_KIND"));
    e.kind = kind == 1 ? FileKind::kDelete : FileKind::kAdd;
    TRIB_ASSIGN_OR_RETURN(e.partition, r.Str("_PARTITION"));
    TRIB_ASSIGN_OR_RETURN(int64_t bucket, r.Long("_BUCKET"));
    e.bucket = static_cast<int32_t>(bucket);
    TRIB_ASSIGN_OR_RETURN(e.index_type, r.Str("_INDEX_TYPE"));
    TRIB_ASSIGN_OR_RETURN(e.file_name, r.Str("_FILE_NAME"));
    TRIB_RETURN_NOT_OK(CheckFileName(e.file_name, what));
    e.file_size = r.OptLong("_FILE_SIZE").value_or(0);
    e.row_count = r.OptLong("_ROW_COUNT").value_or(0);
    e.external_path = r.OptStr("_EXTERNAL_PATH");
    const Datum* ranges = r.Get("_DELETIONS_VECTORS_RANGES");
    const Schema* rs = r.FieldSchema("_DELETIONS_VECTORS_RANGES");
    if (ranges && rs && std::holds_alternative<DatumList>(ranges->rep) && rs->items) {
      for (const auto& item : ranges->as_list()) {
        if (item.is_null()) continue;
        RecordView v(*rs->items, item, what);
        DeletionVectorRange dv;
        TRIB_ASSIGN_OR_RETURN(dv.data_file, v.Str("f0"));
        TRIB_ASSIGN_OR_RETURN(int64_t off, v.Long("f1"));
        TRIB_ASSIGN_OR_RETURN(int64_t len, v.Long("f2"));
        dv.offset = static_cast<int32_t>(off);
        dv.length = static_cast<int32_t>(len);
        dv.cardinality = v.OptLong("_CARDINALITY");
        e.dv_ranges.push_back(std::move(dv));
      }
    }
    out.push_back(std::move(e));
    return Status::OK();
  }));
  return out;
}

Result<std::string> EncodeIndexManifest(const std::vector<IndexManifestEntry>& entries,
                                        const std::string& codec) {
  std::vector<Datum> records;
  for (const auto& e : entries) {
    // A deletion-vector entry always has its (maybe empty) array: Java's reader requires one.
    Datum ranges;
    if (!e.dv_ranges.empty() || e.index_type == "DELETION_VECTORS") {
      DatumList l;
      for (const auto& r : e.dv_ranges) {
        l.push_back(Datum(
            DatumList{Datum(r.data_file), Datum(r.offset), Datum(r.length), Opt(r.cardinality)}));
      }
      ranges = Datum(std::move(l));
    }
    records.push_back(Datum(DatumList{Datum(int32_t{1}), Datum(static_cast<int32_t>(e.kind)),
                                      Datum(e.partition), Datum(e.bucket), Datum(e.index_type),
                                      Datum(e.file_name), Datum(e.file_size), Datum(e.row_count),
                                      std::move(ranges), Opt(e.external_path)}));
  }
  return WriteAll(IndexSchema(), records, codec);
}

std::vector<ManifestEntry> MergeEntries(const std::vector<ManifestEntry>& entries) {
  std::vector<ManifestEntry> copy = entries;
  return MergeEntries(std::move(copy));
}

int64_t ApproxBytes(const ManifestEntry& e) {
  auto str = [](const std::string& s) {
    return static_cast<int64_t>(s.capacity() > 15 ? s.capacity() + 1 : 0);
  };
  auto stats = [&](const SimpleStats& s) {
    return str(s.min_values) + str(s.max_values) +
           static_cast<int64_t>(s.null_counts.capacity() * sizeof(std::optional<int64_t>));
  };
  const DataFileMeta& f = e.file;
  int64_t n = static_cast<int64_t>(sizeof(ManifestEntry)) + str(e.partition) + str(f.file_name) +
              str(f.min_key) + str(f.max_key) + stats(f.key_stats) + stats(f.value_stats);
  for (const auto& x : f.extra_files) n += str(x) + static_cast<int64_t>(sizeof(std::string));
  if (f.embedded_file_index) n += str(*f.embedded_file_index);
  if (f.external_path) n += str(*f.external_path);
  for (const auto* list : {&f.value_stats_cols, &f.write_cols}) {
    if (!*list) continue;
    for (const auto& x : **list) n += str(x) + static_cast<int64_t>(sizeof(std::string));
  }
  return n;
}

std::vector<ManifestEntry> MergeEntries(std::vector<ManifestEntry>&& entries) {
  LiveEntryMerger merger;
  for (auto& e : entries) merger.Add(std::move(e));
  return std::move(merger).Finish();
}

void LiveEntryMerger::Add(ManifestEntry&& e) {
  seen_++;
  std::string id = e.Identifier();
  if (e.kind == FileKind::kAdd) {
    index_[std::move(id)] = live_.size();
    live_.push_back(std::move(e));
    alive_.push_back(true);
    return;
  }
  auto it = index_.find(id);
  if (it == index_.end()) return;
  alive_[it->second] = false;
  live_[it->second] = ManifestEntry{};  // its strings freed now
  index_.erase(it);
}

std::vector<ManifestEntry> LiveEntryMerger::Finish() && {
  std::vector<ManifestEntry> out;
  out.reserve(index_.size());
  for (size_t i = 0; i < live_.size(); i++) {
    if (alive_[i]) out.push_back(std::move(live_[i]));
  }
  return out;
}

std::vector<ManifestEntry> ApplyEntries(const std::vector<ManifestEntry>& live,
                                        std::vector<ManifestEntry> delta) {
  // LiveEntryMerger's rule over `live` then `delta`: a DELETE removes the latest entry added
  // under its identifier, if it is still indexed, and unindexes it. Only identifiers the delta
  // deletes can be removed, so only those are indexed. Positions: `live`'s, then the delta's.
  std::unordered_set<std::string> deleted_ids;
  std::vector<std::string> delta_ids(delta.size());
  for (size_t i = 0; i < delta.size(); i++) {
    delta_ids[i] = delta[i].Identifier();
    if (delta[i].kind != FileKind::kAdd) deleted_ids.insert(delta_ids[i]);
  }
  std::vector<bool> alive(live.size() + delta.size(), true);
  if (!deleted_ids.empty()) {
    std::unordered_map<std::string, size_t> index;
    for (size_t i = 0; i < live.size(); i++) {
      std::string id = live[i].Identifier();
      if (deleted_ids.count(id)) index[std::move(id)] = i;
    }
    for (size_t i = 0; i < delta.size(); i++) {
      const size_t at = live.size() + i;
      alive[at] = delta[i].kind == FileKind::kAdd;
      if (!deleted_ids.count(delta_ids[i])) continue;
      if (delta[i].kind == FileKind::kAdd) {
        index[delta_ids[i]] = at;
      } else if (auto it = index.find(delta_ids[i]); it != index.end()) {
        alive[it->second] = false;
        index.erase(it);
      }
    }
  }  // (else every entry of `delta` is an ADD)
  std::vector<ManifestEntry> out;
  out.reserve(live.size() + delta.size());
  for (size_t i = 0; i < live.size(); i++) {
    if (alive[i]) out.push_back(live[i]);
  }
  for (size_t i = 0; i < delta.size(); i++) {
    if (alive[live.size() + i]) out.push_back(std::move(delta[i]));
  }
  return out;
}

}  // namespace tributary::meta
