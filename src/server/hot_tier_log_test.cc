#include "server/hot_tier_log.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "format/arrow/ipc.h"
#include "format/parquet/writer.h"

namespace tributary::server {
namespace {

Field F(int32_t id, std::string name, DataType type) {
  Field f;
  f.id = id;
  f.name = std::move(name);
  f.type = std::move(type);
  return f;
}

const std::vector<Field> kFields = {F(0, "id", DataType::BigInt().NotNull()),
                                    F(1, "name", DataType{TypeId::kVarChar, true, 20}),
                                    F(2, "tags", DataType::Array(DataType::String()))};

Records SomeRecords(int n) {
  Records out;
  for (int i = 0; i < n; i++) {
    out.emplace_back(i % 2 ? RowKind::kUpdateAfter : RowKind::kInsert,
                     Row{Value::Int(i), Value::String("the same name"),
                         i % 3 ? Value::Array({Value::String("t")}) : Value::Null()});
  }
  return out;
}

LogEntry Encode(const Records& records, const std::map<std::string, std::string>& options) {
  EntryEncoder encoder(kFields, options);
  for (const auto& [kind, row] : records) EXPECT_TRUE(encoder.Add(kind, row).ok());
  auto framed = encoder.Finish(7, 3);
  EXPECT_TRUE(framed.ok()) << framed.status().ToString();
  char path[] = "/tmp/tributary-hot-log-XXXXXX";
  const int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, framed->data(), framed->size()), static_cast<ssize_t>(framed->size()));
  close(fd);
  auto entries = ReadEntries(path);
  unlink(path);
  EXPECT_TRUE(entries.ok() && entries->size() == 1u);
  return entries.ok() && !entries->empty() ? (*entries)[0] : LogEntry{};
}

// An entry is an Arrow IPC stream (what Arrow's tools read: the table's columns plus the row
// kind), compressed as the table says, and reads back as the statement's records.
TEST(HotTierLog, AnEntryIsAnArrowStreamCompressedAsTheTableSays) {
  const Records records = SomeRecords(500);
  const LogEntry zstd = Encode(records, {});
  EXPECT_EQ(zstd.seq, 7);
  EXPECT_EQ(zstd.schema_id, 3);
  ASSERT_TRUE(format::arrow::LooksLikeIpcStream(zstd.payload));
  auto stream = format::arrow::ReadIpcStream(zstd.payload);
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  ASSERT_EQ(stream->fields.size(), kFields.size() + 1);
  EXPECT_EQ(stream->fields[1].type, kFields[1].type);  // VARCHAR(20), not Arrow's plain Utf8
  EXPECT_EQ(stream->rows.size(), records.size());
  auto decoded = DecodeRecords(zstd, "log", kFields);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, records);

  const LogEntry plain = Encode(records, {{"table.log.arrow.compression.type", "NONE"}});
  const LogEntry lz4 = Encode(records, {{"table.log.arrow.compression.type", "lz4_frame"}});
  EXPECT_GT(plain.payload.size(), 3 * zstd.payload.size());
  EXPECT_GT(plain.payload.size(), 2 * lz4.payload.size());
  for (const LogEntry* e : {&plain, &lz4}) {
    auto back = DecodeRecords(*e, "log", kFields);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, records);
  }
}

// A table whose 'table.log.format' names a format not built (set by another tool: the option
// table refuses it) has its writes refused, not logged in another format.
TEST(HotTierLog, ALogFormatNotBuiltIsRefused) {
  EntryEncoder encoder(kFields, {{"table.log.format", "indexed"}});
  Status s = encoder.Add(RowKind::kInsert, SomeRecords(1)[0].second);
  EXPECT_NE(s.ToString().find("'table.log.format' = 'INDEXED' is not supported yet"),
            std::string::npos)
      << s.ToString();
  EntryEncoder arrow(kFields, {{"table.log.format", "arrow"}});
  EXPECT_TRUE(arrow.Add(RowKind::kInsert, SomeRecords(1)[0].second).ok());
}

// A log written before the Arrow format (an LZ4 Parquet file per entry) is still replayed.
TEST(HotTierLog, AnEntryWrittenAsParquetBeforeArrowIsStillRead) {
  std::vector<Field> columns = kFields;
  columns.push_back(F(2147483000, "_TRIBUTARY_ROW_KIND", DataType::TinyInt().NotNull()));
  format::parquet::ParquetWriterOptions options;
  options.compression = format::CompressionCodec::kLz4Raw;
  auto writer = format::parquet::ParquetWriter::Make(columns, options);
  ASSERT_TRUE(writer.ok());
  const Records records = SomeRecords(20);
  for (const auto& [kind, row] : records) {
    Row r = row;
    r.push_back(Value::Int(static_cast<int>(kind)));
    ASSERT_TRUE((*writer)->Append(r).ok());
  }
  LogEntry e;
  e.payload = *(*writer)->Finish();
  auto back = DecodeRecords(e, "log", kFields);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, records);
}

// Types an entry of the Parquet log held as other precisions (TIME(0) as TIME(3), TIMESTAMP(2)
// as TIMESTAMP(3), TIMESTAMP_LTZ(9) as TIMESTAMP(9), MULTISET as the MAP of its counts) and a
// ROW whose field has a comment are replayed.
TEST(HotTierLog, ParquetEntriesOfEveryTypeAreReplayed) {
  Field commented = F(11, "a", DataType::Int());
  commented.description = "a comment";
  const std::vector<Field> fields = {
      F(0, "t", DataType::Time(0)), F(1, "ts", DataType::Timestamp(2)),
      F(2, "ltz", DataType::TimestampLtz(9)), F(3, "bag", DataType::Multiset(DataType::String())),
      F(4, "r", DataType::Row({commented}))};
  const Row row = {Value::Int(3723000), Value::Ts(Timestamp{1700000000120, 0}),
                   Value::Ts(Timestamp{1700000000123, 456789}),
                   Value::Map({Value::String("x")}, {Value::Int(2)}),
                   Value::Struct({Value::Int(5)})};
  std::vector<Field> columns = fields;
  columns.push_back(F(2147483000, "_TRIBUTARY_ROW_KIND", DataType::TinyInt().NotNull()));
  auto writer = format::parquet::ParquetWriter::Make(columns, {});
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  Row r = row;
  r.push_back(Value::Int(0));
  ASSERT_TRUE((*writer)->Append(r).ok());
  LogEntry legacy;
  legacy.payload = *(*writer)->Finish();
  auto back = DecodeRecords(legacy, "log", fields);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, (Records{{RowKind::kInsert, row}}));
  // And the same through today's Arrow entries.
  EntryEncoder encoder(fields, {});
  ASSERT_TRUE(encoder.Add(RowKind::kInsert, row).ok());
  LogEntry arrow;
  arrow.payload = encoder.Finish(1, 0)->substr(28);  // past the frame
  back = DecodeRecords(arrow, "log", fields);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, (Records{{RowKind::kInsert, row}}));
}

// A column whose type changed since the entry was written cannot be replayed (one whose length
// grew can); one added since reads as NULL, one dropped is left out.
TEST(HotTierLog, ColumnsAreMatchedByFieldId) {
  const LogEntry e = Encode(SomeRecords(3), {});
  std::vector<Field> now = {kFields[0], F(9, "added", DataType::Int()), kFields[2]};
  auto back = DecodeRecords(e, "log", now);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ((*back)[1].second,
            (Row{Value::Int(1), Value::Null(), Value::Array({Value::String("t")})}));
  // A VARCHAR widened since (ALTER TABLE ... MODIFY) holds its values alike: replayed.
  now = {kFields[0], F(1, "name", DataType{TypeId::kVarChar, true, 30}), kFields[2]};
  back = DecodeRecords(e, "log", now);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ((*back)[0].second[1], Value::String("the same name"));
  now = {kFields[0], F(1, "name", DataType::Int())};
  back = DecodeRecords(e, "log", now);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().ToString().find("column 'name' changed its type"), std::string::npos)
      << back.status().ToString();
}

}  // namespace
}  // namespace tributary::server
