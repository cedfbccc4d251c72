#include "server/hot_tier_log.h"

#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "format/arrow/ipc.h"
#include "format/parquet/reader.h"
#include "io/file_system.h"
#include "options/option_keys.h"

namespace tributary::server {

namespace {

namespace fs = std::filesystem;

constexpr uint32_t kMagic = 0x474f4c54;        // "TLOG", little-endian
constexpr size_t kHeader = 4 + 8 + 8 + 4 + 4;  // magic, sequence, schema id, length, CRC-32
constexpr const char* kKindColumn = "_TRIBUTARY_ROW_KIND";
// Past any table column's id, which a column added later could take (Paimon's own system
// fields sit just under INT32_MAX).
constexpr int32_t kKindFieldId = 2147483000;

void Put(uint64_t v, int bytes, std::string* out) {
  for (int i = 0; i < bytes; i++) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint64_t Get(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

std::vector<Field> LogFields(const std::vector<Field>& table_fields) {
  std::vector<Field> fields = table_fields;
  Field kind;
  kind.id = kKindFieldId;
  kind.name = kKindColumn;
  kind.type = DataType::TinyInt();
  kind.type.nullable = false;
  fields.push_back(kind);
  return fields;
}

}  // namespace

EntryEncoder::EntryEncoder(std::vector<Field> fields,
                           const std::map<std::string, std::string>& table_options)
    : fields_(std::move(fields)) {
  using format::arrow::IpcCompression;
  // Checked when the table was created or altered; a value another tool wrote that does not
  // parse is the default, one naming a format not built refuses the table's writes.
  const auto format = options::Get(table_options, options::kTableLogFormat);
  if (format.ok() && *format != "ARROW") {
    refused_ = Status::NotSupported("'table.log.format' = '" + *format +
                                    "' is not supported yet: the hot tier's log is ARROW");
  }
  const auto name = options::Get(table_options, options::kTableLogArrowCompressionType);
  compression_ = static_cast<int>(!name.ok()             ? IpcCompression::kZstd
                                  : *name == "NONE"      ? IpcCompression::kNone
                                  : *name == "LZ4_FRAME" ? IpcCompression::kLz4Frame
                                                         : IpcCompression::kZstd);
  auto level = options::Get(table_options, options::kTableLogArrowCompressionZstdLevel);
  if (level.ok() && *level >= 1 && *level <= 22) zstd_level_ = static_cast<int>(*level);
}
EntryEncoder::~EntryEncoder() = default;

Status EntryEncoder::Add(RowKind kind, const Row& values) {
  static const Value kKinds[4] = {Value::Int(0), Value::Int(1), Value::Int(2), Value::Int(3)};
  if (!writer_) {
    TRIB_RETURN_NOT_OK(refused_);
    format::arrow::IpcWriteOptions options;
    options.compression = static_cast<format::arrow::IpcCompression>(compression_);
    options.zstd_level = zstd_level_;
    TRIB_ASSIGN_OR_RETURN(writer_,
                          format::arrow::IpcStreamWriter::Make(LogFields(fields_), options));
    cells_.resize(fields_.size() + 1);
  }
  for (size_t i = 0; i < values.size() && i < fields_.size(); i++) cells_[i] = &values[i];
  cells_[fields_.size()] = &kKinds[static_cast<int>(kind) & 3];
  return writer_->Append(cells_);
}

Result<std::string> EntryEncoder::Finish(int64_t seq, int64_t schema_id) {
  if (!writer_) return Status::Internal("hot tier: an entry of no rows");
  TRIB_ASSIGN_OR_RETURN(std::string payload, writer_->Finish());
  writer_.reset();
  if (payload.size() > UINT32_MAX) {
    return Status::NotSupported(
        "a statement of more than 4 GiB of rows is not supported yet by the hot tier's log: "
        "write it in parts");
  }
  std::string out;
  Put(kMagic, 4, &out);
  Put(static_cast<uint64_t>(seq), 8, &out);
  Put(static_cast<uint64_t>(schema_id), 8, &out);
  Put(payload.size(), 4, &out);
  const uLong crc =
      crc32(crc32(0L, reinterpret_cast<const Bytef*>(out.data() + 4), 20),
            reinterpret_cast<const Bytef*>(payload.data()), static_cast<uInt>(payload.size()));
  Put(crc, 4, &out);
  out += payload;
  return out;
}

void EntryEncoder::Reset() { writer_.reset(); }

Result<std::vector<LogEntry>> ReadEntries(const std::string& path) {
  TRIB_ASSIGN_OR_RETURN(std::string bytes, io::LocalFs().ReadFile(path));
  std::vector<LogEntry> out;
  size_t at = 0;
  while (at + kHeader <= bytes.size()) {
    const char* h = bytes.data() + at;
    if (Get(h, 4) != kMagic) break;
    const uint64_t length = Get(h + 20, 4);
    if (at + kHeader + length > bytes.size()) break;
    const uLong crc = crc32(crc32(0L, reinterpret_cast<const Bytef*>(h + 4), 20),
                            reinterpret_cast<const Bytef*>(h + kHeader), static_cast<uInt>(length));
    if (crc != Get(h + 24, 4)) break;
    LogEntry e;
    e.seq = static_cast<int64_t>(Get(h + 4, 8));
    e.schema_id = static_cast<int64_t>(Get(h + 12, 8));
    e.payload = bytes.substr(at + kHeader, length);
    out.push_back(std::move(e));
    at += kHeader + length;
  }
  return out;
}

namespace {

// An entry's rows, and the id and type of each of its columns.
struct EntryRows {
  std::vector<Row> rows;
  std::vector<std::pair<int32_t, std::optional<DataType>>> columns;
};

// Whether values stored as type `got` can be replayed into a column of type `want`: they are held
// alike (a length of CHAR, VARCHAR, BINARY or VARBINARY, a TIME's or timestamp's precision, a
// nested field's name or comment may have changed since, by ALTER TABLE; the writer checks each
// value again as it takes it). Also what a Parquet entry of the earlier log keeps: neither those
// lengths nor a TIME's precision, a timestamp's precision as 3, 6 or 9 (a TIMESTAMP_LTZ(7..9)
// as a TIMESTAMP(9)), a MULTISET as the MAP of its counts.
bool StoredAs(const DataType& want, const DataType& got) {
  if (want.IsString() || want.IsBinary()) {
    return want.IsString() ? got.IsString() : got.IsBinary();
  }
  if (want.IsTimestamp()) return got.IsTimestamp();
  if (want.id == TypeId::kMultiset && got.id == TypeId::kMap) {
    return StoredAs(want.element(), got.key()) && got.value().id == TypeId::kInt;
  }
  if (want.id != got.id) return false;
  switch (want.id) {
    case TypeId::kTime:
      return true;
    case TypeId::kArray:
    case TypeId::kMultiset:
      return StoredAs(want.element(), got.element());
    case TypeId::kMap:
      return StoredAs(want.key(), got.key()) && StoredAs(want.value(), got.value());
    case TypeId::kRow: {
      if (want.fields().size() != got.fields().size()) return false;
      for (size_t i = 0; i < want.fields().size(); i++) {
        if (!StoredAs(want.fields()[i].type, got.fields()[i].type)) return false;
      }
      return true;
    }
    default:
      return want.WithNullable(true) == got.WithNullable(true);
  }
}

Result<EntryRows> ReadEntryRows(const std::string& payload) {
  EntryRows out;
  if (format::arrow::LooksLikeIpcStream(payload)) {
    TRIB_ASSIGN_OR_RETURN(format::arrow::IpcStream stream, format::arrow::ReadIpcStream(payload));
    for (Field& f : stream.fields) out.columns.emplace_back(f.id, std::move(f.type));
    out.rows = std::move(stream.rows);
    return out;
  }
  // An entry of a log written before the Arrow format: a Parquet file.
  TRIB_ASSIGN_OR_RETURN(auto reader, format::parquet::ParquetReader::Open(payload));
  TRIB_ASSIGN_OR_RETURN(out.rows, reader->ReadRows());
  for (size_t c = 0; c < reader->schema().columns().size(); c++) {
    auto type = reader->ColumnType(static_cast<int>(c));
    out.columns.emplace_back(reader->schema().columns()[c].field_id.value_or(-1),
                             type ? std::optional<DataType>(*type) : std::nullopt);
  }
  return out;
}

}  // namespace

Result<Records> DecodeRecords(const LogEntry& e, const std::string& path,
                              const std::vector<Field>& fields) {
  auto read = ReadEntryRows(e.payload);
  if (!read.ok()) return read.status().WithContext("hot tier log '" + path + "'");
  std::vector<Row>* rows = &read->rows;
  auto column_of = [&](int32_t id) {
    for (size_t c = 0; c < read->columns.size(); c++) {
      if (read->columns[c].first == id) return static_cast<int>(c);
    }
    return -1;
  };
  const int kind_at = column_of(kKindFieldId);
  if (kind_at < 0) {
    return Status::Corruption("hot tier log '" + path + "': an entry without row kinds");
  }
  std::vector<int> source(fields.size(), -1);  // each field's column in the entry
  for (size_t f = 0; f < fields.size(); f++) {
    source[f] = column_of(fields[f].id);
    if (source[f] < 0) continue;
    const std::optional<DataType>& type = read->columns[source[f]].second;
    DataType want = fields[f].type;
    DataType got = type ? *type : DataType();
    want.nullable = got.nullable = true;
    if (!type || !StoredAs(want, got)) {
      return Status::Corruption("hot tier log '" + path + "': column '" + fields[f].name +
                                "' changed its type since the entry was written; it cannot be "
                                "replayed");
    }
  }
  Records out;
  for (Row& r : *rows) {
    if (static_cast<size_t>(kind_at) >= r.size() || !r[kind_at].is_int() ||
        r[kind_at].int_value() < 0 || r[kind_at].int_value() > 3) {
      return Status::Corruption("hot tier log '" + path + "': an entry without row kinds");
    }
    Row row(fields.size(), Value::Null());
    for (size_t f = 0; f < fields.size(); f++) {
      if (source[f] >= 0) row[f] = std::move(r[source[f]]);
    }
    out.emplace_back(static_cast<RowKind>(r[kind_at].int_value()), std::move(row));
  }
  return out;
}

std::vector<std::string> LogFiles(const std::string& dir) {
  std::vector<std::pair<int64_t, std::string>> found;
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(dir, ec)) {
    const std::string name = f.path().filename().string();
    if (name.size() > 4 && name.substr(name.size() - 4) == ".log") {
      found.emplace_back(std::atoll(name.c_str()), f.path().string());
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& [seq, path] : found) out.push_back(std::move(path));
  return out;
}

}  // namespace tributary::server
