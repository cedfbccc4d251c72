#include "format/arrow/ipc.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "format/arrow/ipc_types.h"

namespace tributary::format::arrow {
namespace {

Field F(int32_t id, std::string name, DataType type) {
  Field f;
  f.id = id;
  f.name = std::move(name);
  f.type = std::move(type);
  return f;
}

std::vector<Field> EveryType() {
  Field inner_a = F(101, "a", DataType::Int());
  Field inner_b = F(102, "b", DataType::String());
  return {
      F(0, "id", DataType::BigInt().NotNull()),
      F(1, "flag", DataType::Boolean()),
      F(2, "tiny", DataType::TinyInt()),
      F(3, "small", DataType::SmallInt()),
      F(4, "i", DataType::Int()),
      F(5, "f", DataType::Float()),
      F(6, "d", DataType::Double()),
      F(7, "dec", DataType::Decimal(38, 4)),
      F(8, "c", DataType{TypeId::kChar, true, 3}),
      F(9, "vc", DataType{TypeId::kVarChar, true, 10}),
      F(10, "s", DataType::String()),
      F(11, "bin", DataType{TypeId::kBinary, true, 2}),
      F(12, "bytes", DataType::Bytes()),
      F(13, "day", DataType::Date()),
      F(14, "t", DataType::Time(3)),
      F(15, "ts0", DataType::Timestamp(0)),
      F(16, "ts6", DataType::Timestamp(6)),
      F(17, "ts9", DataType::Timestamp(9)),
      F(18, "ltz3", DataType::TimestampLtz(3)),
      F(19, "arr", DataType::Array(DataType::Int())),
      F(20, "m", DataType::Map(DataType::String(), DataType::Double())),
      F(21, "bag", DataType::Multiset(DataType::String())),
      F(22, "r", DataType::Row({inner_a, inner_b})),
      F(23, "nested", DataType::Array(DataType::Row({inner_a, inner_b}))),
      F(2147483000, "_KIND", DataType::TinyInt().NotNull()),
  };
}

Row FullRow(int64_t i) {
  return {
      Value::Int(i),
      Value::Bool(i % 2 == 0),
      Value::Int(-128 + i),
      Value::Int(-32768 + i),
      Value::Int(2147483647 - i),
      Value::Double(1.5f),
      Value::Double(-2.25e300),
      Value::Dec(Decimal{(static_cast<__int128>(1) << 100) + i}),
      Value::String("abc"),
      Value::String("héllo"),
      Value::String(std::string("with\0nul", 8)),
      Value::String("\x01\xff"),
      Value::String(std::string(300, 'x')),
      Value::Int(-719162 + i),  // 0001-01-01
      Value::Int(86399999),
      Value::Ts(Timestamp{-62135596800000, 0}),
      Value::Ts(Timestamp{1700000000123 + i, 456000}),
      Value::Ts(Timestamp{-1, 999999}),  // before the epoch: floor division
      Value::Ts(Timestamp{1700000000123, 0}),
      Value::Array({Value::Int(1), Value::Null(), Value::Int(3)}),
      Value::Map({Value::String("k"), Value::String("")}, {Value::Double(1), Value::Null()}),
      Value::Map({Value::String("x")}, {Value::Int(2)}),
      Value::Struct({Value::Int(7), Value::Null()}),
      Value::Array({Value::Struct({Value::Int(1), Value::String("one")}), Value::Null()}),
      Value::Int(i % 4),
  };
}

Row NullRow(int64_t i) {
  Row r(EveryType().size(), Value::Null());
  r[0] = Value::Int(i);
  r.back() = Value::Int(3);
  return r;
}

std::string Write(const std::vector<Field>& fields, const std::vector<Row>& rows,
                  IpcWriteOptions options = {}) {
  auto writer = IpcStreamWriter::Make(fields, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  for (const Row& r : rows) {
    std::vector<const Value*> cells;
    for (const Value& v : r) cells.push_back(&v);
    Status s = (*writer)->Append(cells);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  auto bytes = (*writer)->Finish();
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : std::string();
}

TEST(ArrowIpc, EveryTypeComesBackAsWrittenWithEachCompression) {
  std::vector<Row> rows;
  for (int64_t i = 0; i < 40; i++) rows.push_back(i % 3 == 1 ? NullRow(i) : FullRow(i));
  for (IpcCompression c :
       {IpcCompression::kNone, IpcCompression::kLz4Frame, IpcCompression::kZstd}) {
    SCOPED_TRACE(static_cast<int>(c));
    const std::string bytes = Write(EveryType(), rows, {c, 3});
    ASSERT_TRUE(LooksLikeIpcStream(bytes));
    auto stream = ReadIpcStream(bytes);
    ASSERT_TRUE(stream.ok()) << stream.status().ToString();
    ASSERT_EQ(stream->fields.size(), EveryType().size());
    for (size_t f = 0; f < EveryType().size(); f++) {
      EXPECT_EQ(stream->fields[f].name, EveryType()[f].name);
      EXPECT_EQ(stream->fields[f].id, EveryType()[f].id);
      EXPECT_EQ(stream->fields[f].type, EveryType()[f].type) << stream->fields[f].type.ToString();
    }
    ASSERT_EQ(stream->rows.size(), rows.size());
    for (size_t r = 0; r < rows.size(); r++) {
      for (size_t f = 0; f < rows[r].size(); f++) {
        EXPECT_EQ(stream->rows[r][f], rows[r][f]) << "row " << r << " column " << f;
      }
    }
  }
}

TEST(ArrowIpc, CompressionShrinksRepetitiveBuffersAndLeavesTinyOnesAsTheyAre) {
  std::vector<Field> fields = {F(1, "s", DataType::String())};
  std::vector<Row> rows(2000, Row{Value::String("the same text, again and again")});
  const std::string plain = Write(fields, rows, {IpcCompression::kNone, 3});
  const std::string zstd = Write(fields, rows, {IpcCompression::kZstd, 3});
  EXPECT_LT(zstd.size() * 10, plain.size());
  auto back = ReadIpcStream(zstd);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->rows, rows);
  // One short value: compressing it would grow it, so it is stored as it is (length -1).
  auto one =
      ReadIpcStream(Write(fields, {Row{Value::String("a")}}, {IpcCompression::kLz4Frame, 3}));
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->rows, std::vector<Row>{Row{Value::String("a")}});
}

// TIMESTAMP(7..9) is written in nanoseconds, which an int64 holds for the years 1677 to 2262
// only: a column with a value outside them is written as milliseconds and nanoseconds instead,
// and every value comes back exactly (also inside an ARRAY).
TEST(ArrowIpc, NanosecondTimestampsOutsideTheirRangeComeBackExactly) {
  const std::vector<Field> fields = {F(1, "ts", DataType::Timestamp(9)),
                                     F(2, "ltz", DataType::TimestampLtz(7)),
                                     F(3, "arr", DataType::Array(DataType::Timestamp(9)))};
  const Value far = Value::Ts(Timestamp{253402300799999, 999999});  // 9999-12-31 23:59:59...
  const Value early = Value::Ts(Timestamp{-62135596800000, 1});     // 0001-01-01
  const Value near = Value::Ts(Timestamp{1700000000123, 456789});
  const std::vector<Row> rows = {
      {far, near, Value::Array({near, early})},
      {Value::Null(), early, Value::Null()},
      {near, Value::Null(), Value::Array({Value::Null(), far})},
  };
  for (IpcCompression c : {IpcCompression::kNone, IpcCompression::kZstd}) {
    auto stream = ReadIpcStream(Write(fields, rows, {c, 3}));
    ASSERT_TRUE(stream.ok()) << stream.status().ToString();
    for (size_t f = 0; f < fields.size(); f++) EXPECT_EQ(stream->fields[f].type, fields[f].type);
    EXPECT_EQ(stream->rows, rows);
  }
  // In range, the column is Arrow's nanosecond timestamp (what other readers take).
  auto in_range = ReadIpcStream(Write({fields[0]}, {{near}}));
  ASSERT_TRUE(in_range.ok());
  EXPECT_EQ(in_range->rows, (std::vector<Row>{{near}}));
}

// Comments of a ROW's fields are part of its type: they come back too.
TEST(ArrowIpc, CommentsComeBack) {
  Field a = F(7, "a", DataType::Int());
  a.description = "the a";
  Field top = F(1, "r", DataType::Row({a}));
  top.description = "a row";
  auto stream = ReadIpcStream(Write({top}, {{Value::Struct({Value::Int(1)})}}));
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  EXPECT_EQ(stream->fields[0], top);
}

TEST(ArrowIpc, AStreamOfNoRowsHasItsSchema) {
  auto stream = ReadIpcStream(Write(EveryType(), {}));
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  EXPECT_EQ(stream->fields.size(), EveryType().size());
  EXPECT_TRUE(stream->rows.empty());
}

TEST(ArrowIpc, ValuesThatDoNotFitAreRefused) {
  auto write_one = [](const DataType& t, const Value& v) {
    auto w = IpcStreamWriter::Make({F(1, "c", t)});
    EXPECT_TRUE(w.ok());
    return (*w)->Append({&v});
  };
  Status s = write_one(DataType::Int().NotNull(), Value::Null());
  EXPECT_NE(s.ToString().find("NULL in a NOT NULL column"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("'c'"), std::string::npos) << s.ToString();
  s = write_one(DataType::TinyInt(), Value::Int(300));
  EXPECT_NE(s.ToString().find("does not fit"), std::string::npos) << s.ToString();
  // After a refused value the writer takes nothing more: the row may be in some columns only.
  auto w =
      IpcStreamWriter::Make({F(1, "a", DataType::Int()), F(2, "b", DataType::Int().NotNull())});
  ASSERT_TRUE(w.ok());
  const Value one = Value::Int(1), null = Value::Null();
  EXPECT_FALSE((*w)->Append({&one, &null}).ok());
  EXPECT_FALSE((*w)->Append({&one, &one}).ok());
  EXPECT_FALSE((*w)->Finish().ok());
  s = write_one(DataType::String(), Value::Int(1));
  EXPECT_NE(s.ToString().find("does not fit"), std::string::npos) << s.ToString();
  EXPECT_FALSE(IpcStreamWriter::Make({}, {IpcCompression::kZstd, 23}).ok());
}

// `stream` (of one schema and one compressed record batch) with every empty body buffer
// written as Arrow Java's codecs write it: its 8-byte uncompressed length 0, nothing after.
// `*empty` counts them.
std::string WithPrefixedEmptyBuffers(const std::string& stream, int* empty) {
  auto message_at = [&](size_t at, int32_t* meta_len) {
    std::memcpy(meta_len, stream.data() + at + 4, 4);
    return fb::GetMessage(stream.data() + at + 8);
  };
  int32_t schema_len = 0;
  const fb::Message* schema = message_at(0, &schema_len);
  const size_t batch_at =
      8 + static_cast<size_t>(schema_len) + static_cast<size_t>(schema->body_length());
  int32_t batch_len = 0;
  const fb::Message* message = message_at(batch_at, &batch_len);
  const fb::RecordBatch* batch = message->header_as_RecordBatch();
  const std::string_view body =
      std::string_view(stream).substr(batch_at + 8 + static_cast<size_t>(batch_len));
  std::string new_body;
  std::vector<fb::Buffer> buffers;
  *empty = 0;
  for (const fb::Buffer* b : *batch->buffers()) {
    const size_t at = new_body.size();
    if (b->length() == 0) {
      new_body.append(8, '\0');
      ++*empty;
    } else {
      new_body.append(
          body.substr(static_cast<size_t>(b->offset()), static_cast<size_t>(b->length())));
    }
    buffers.emplace_back(static_cast<int64_t>(at), static_cast<int64_t>(new_body.size() - at));
    new_body.append(((new_body.size() + 7) & ~size_t{7}) - new_body.size(), '\0');
  }
  std::vector<fb::FieldNode> nodes;
  for (const fb::FieldNode* n : *batch->nodes()) nodes.push_back(*n);
  flatbuffers::FlatBufferBuilder fbb;
  auto rb = fb::CreateRecordBatchDirect(fbb, batch->length(), &nodes, &buffers,
                                        fb::CreateBodyCompression(fbb, fb::CompressionType::ZSTD));
  fbb.Finish(fb::CreateMessage(fbb, fb::MetadataVersion::V5, fb::MessageHeader::RecordBatch,
                               rb.Union(), static_cast<int64_t>(new_body.size())));
  std::string out = stream.substr(0, batch_at);
  const size_t size = fbb.GetSize(), padded = (size + 7) & ~size_t{7};
  const uint32_t cont = 0xFFFFFFFFu;
  const int32_t len = static_cast<int32_t>(padded);
  out.append(reinterpret_cast<const char*>(&cont), 4);
  out.append(reinterpret_cast<const char*>(&len), 4);
  out.append(reinterpret_cast<const char*>(fbb.GetBufferPointer()), size);
  out.append(padded - size, '\0');
  out += new_body;
  out.append(reinterpret_cast<const char*>(&cont), 4);  // end of stream
  out.append(4, '\0');
  return out;
}

// Arrow Java writes an empty buffer of a compressed batch as its length 0 and nothing after it
// (Arrow C++ and this writer leave it empty): both read the same rows.
TEST(ArrowIpc, EmptyCompressedBuffersWrittenWithTheirLengthReadAsEmpty) {
  std::vector<Row> rows;
  for (int64_t i = 0; i < 3; i++) {
    Row r = NullRow(i);
    r[10] = Value::String("");  // a string column of empty values: an empty data buffer
    r[12] = Value::String("");
    rows.push_back(std::move(r));
  }
  const std::string plain = Write(EveryType(), rows, {IpcCompression::kZstd, 3});
  int empty = 0;
  const std::string java = WithPrefixedEmptyBuffers(plain, &empty);
  EXPECT_GE(empty, 5);  // validity bitmaps without NULLs, the empty strings' data
  auto want = ReadIpcStream(plain);
  auto got = ReadIpcStream(java);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->rows, rows);
  EXPECT_EQ(got->rows, want->rows);
}

// Every prefix of a stream, and every byte of it changed, reads as the rows or as an error:
// never a crash, never a read outside the input (the ASan build and the fuzzer check the same).
TEST(ArrowIpc, DamagedOrTruncatedStreamsAreErrors) {
  std::vector<Row> rows = {FullRow(1), NullRow(2), FullRow(3)};
  for (IpcCompression c : {IpcCompression::kNone, IpcCompression::kZstd}) {
    const std::string bytes = Write(EveryType(), rows, {c, 3});
    for (size_t cut = 0; cut + 8 < bytes.size(); cut++) {
      auto r = ReadIpcStream(std::string_view(bytes).substr(0, cut));
      if (r.ok()) {
        EXPECT_LE(r->rows.size(), rows.size());
      }
    }
    int errors = 0;
    for (size_t at = 0; at < bytes.size(); at++) {
      std::string bad = bytes;
      bad[at] = static_cast<char>(bad[at] ^ 0x5a);
      auto r = ReadIpcStream(bad);
      if (!r.ok()) {
        errors++;
        EXPECT_TRUE(r.status().code() == StatusCode::kCorruption ||
                    r.status().code() == StatusCode::kNotSupported)
            << r.status().ToString();
      }
    }
    EXPECT_GT(errors, 0);
  }
  auto r = ReadIpcStream("PAR1....");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("arrow IPC stream"), std::string::npos);
}

// ---- Cross-check with Apache Arrow's JavaScript implementation (tests/crosscheck/arrow_js.sh,
// `make test-slow`): these write streams for it and read the streams it writes. ----

const char* CrossCheckDir() { return std::getenv("TRIBUTARY_ARROW_CROSSCHECK_DIR"); }
constexpr int kCrossCheckRows = 300;

std::vector<Field> CrossCheckFields(bool as_written_by_js) {
  // Streams written by arrow-js carry no Tributary metadata: they read as the plain mapping
  // back, and their struct fields are numbered by position.
  Field a = F(as_written_by_js ? 0 : 41, "a", DataType::Int());
  Field b = F(as_written_by_js ? 1 : 42, "b", DataType::String());
  DataType key = DataType::String();
  if (as_written_by_js) key = key.NotNull();
  return {
      F(0, "id", DataType::BigInt().NotNull()),
      F(1, "flag", DataType::Boolean()),
      F(2, "i8", DataType::TinyInt()),
      F(3, "i16", DataType::SmallInt()),
      F(4, "i32", DataType::Int()),
      F(5, "f", DataType::Float()),
      F(6, "d", DataType::Double()),
      F(7, "dec", DataType::Decimal(20, 3)),
      F(8, "s", DataType::String()),
      F(9, "bin", DataType::Bytes()),
      F(10, "day", DataType::Date()),
      F(11, "t", DataType::Time(3)),
      F(12, "ts3", DataType::Timestamp(3)),
      F(13, "ts6", DataType::Timestamp(6)),
      F(14, "ts9", DataType::Timestamp(9)),
      F(15, "ltz", DataType::TimestampLtz(6)),
      F(16, "arr", DataType::Array(DataType::Int())),
      F(17, "m", DataType::Map(key, DataType::Double())),
      F(18, "r", DataType::Row({a, b})),
  };
}

// Mirrors expectedRow(i) in tests/crosscheck/arrow_js.js.
Row CrossCheckRow(int64_t i) {
  Row r(19, Value::Null());
  r[0] = Value::Int((i - 150) * 61000000000007);
  if (i % 7 == 3) return r;
  r[1] = Value::Bool(i % 2 == 0);
  r[2] = Value::Int(i % 256 - 128);
  r[3] = Value::Int(i * 100 - 15000);
  r[4] = Value::Int(i * 7919 - 1000000);
  r[5] = Value::Double(static_cast<double>(i) * 0.5);
  r[6] = Value::Double(static_cast<double>(i) / 8.0 - 3);
  r[7] = Value::Dec(Decimal{static_cast<__int128>(i) * 123456789012345 - 7});
  r[8] = Value::String("name-" + std::to_string(i) + "\xc3\xa9");
  r[9] = Value::String(std::string{static_cast<char>(i % 256), static_cast<char>((i * 7) % 256)});
  r[10] = Value::Int(i * 365 - 20000);
  r[11] = Value::Int(i * 1000 + 7);
  r[12] = Value::Ts(Timestamp{1700000000000 + i, 0});
  r[13] = Value::Ts(Timestamp{1700000000000 - 150 + i, static_cast<int32_t>((i * 1000) % 1000000)});
  r[14] = Value::Ts(Timestamp{-5 + i, static_cast<int32_t>(i * 17)});
  r[15] = Value::Ts(Timestamp{-86400000 + i * 3600000, static_cast<int32_t>(i * 1000)});
  std::vector<Value> items;
  for (int64_t j = 0; j < i % 4; j++)
    items.push_back(j == 1 ? Value::Null() : Value::Int(i * (j + 1)));
  r[16] = Value::Array(std::move(items));
  std::vector<Value> keys, values;
  for (int64_t j = 0; j < i % 3; j++) {
    keys.push_back(Value::String("k" + std::to_string(j)));
    values.push_back(Value::Double(static_cast<double>(j) * 1.5));
  }
  r[17] = Value::Map(std::move(keys), std::move(values));
  r[18] = Value::Struct(
      {Value::Int(i), i % 5 == 0 ? Value::Null() : Value::String("b" + std::to_string(i))});
  return r;
}

const std::pair<IpcCompression, const char*> kCrossCheckCodecs[] = {
    {IpcCompression::kNone, "none"},
    {IpcCompression::kLz4Frame, "lz4"},
    {IpcCompression::kZstd, "zstd"}};

TEST(ArrowCrossCheck, DISABLED_WriteStreamsForArrowJs) {
  ASSERT_NE(CrossCheckDir(), nullptr) << "set TRIBUTARY_ARROW_CROSSCHECK_DIR";
  std::vector<Row> rows;
  for (int64_t i = 0; i < kCrossCheckRows; i++) rows.push_back(CrossCheckRow(i));
  for (const auto& [codec, name] : kCrossCheckCodecs) {
    const std::string bytes = Write(CrossCheckFields(false), rows, {codec, 3});
    std::ofstream out(std::string(CrossCheckDir()) + "/tributary-" + name + ".arrows",
                      std::ios::binary);
    out << bytes;
    ASSERT_TRUE(out.good());
  }
}

TEST(ArrowCrossCheck, DISABLED_ReadStreamsWrittenByArrowJs) {
  ASSERT_NE(CrossCheckDir(), nullptr) << "set TRIBUTARY_ARROW_CROSSCHECK_DIR";
  // Its plain stream only: arrow-js writes the compressed length where the format wants a
  // compressed buffer's length once decompressed (tests/crosscheck/arrow_js.js).
  {
    const std::string path = std::string(CrossCheckDir()) + "/arrowjs-none.arrows";
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in.good()) << path;
    std::stringstream ss;
    ss << in.rdbuf();
    auto stream = ReadIpcStream(ss.str());
    ASSERT_TRUE(stream.ok()) << path << ": " << stream.status().ToString();
    const std::vector<Field> want = CrossCheckFields(true);
    ASSERT_EQ(stream->fields.size(), want.size()) << path;
    for (size_t f = 0; f < want.size(); f++) {
      EXPECT_EQ(stream->fields[f].name, want[f].name) << path;
      EXPECT_EQ(stream->fields[f].type, want[f].type)
          << path << " " << want[f].name << ": " << stream->fields[f].type.ToString();
    }
    ASSERT_EQ(stream->rows.size(), static_cast<size_t>(kCrossCheckRows)) << path;
    for (int64_t i = 0; i < kCrossCheckRows; i++) {
      const Row want_row = CrossCheckRow(i);
      for (size_t f = 0; f < want_row.size(); f++) {
        EXPECT_EQ(stream->rows[i][f], want_row[f]) << path << " row " << i << " " << want[f].name;
      }
    }
  }
}

// Writes the Arrow fuzzer's seeds (tests/fuzz/seeds/arrow/, committed): every type with each
// compression, and a stream of no rows.
TEST(ArrowIpc, DISABLED_WriteFuzzSeeds) {
  const char* dir = std::getenv("TRIBUTARY_ARROW_SEED_DIR");
  ASSERT_NE(dir, nullptr) << "set TRIBUTARY_ARROW_SEED_DIR";
  std::vector<Row> rows = {FullRow(1), NullRow(2), FullRow(3)};
  auto put = [&](const std::string& name, const std::string& bytes) {
    std::ofstream out(std::string(dir) + "/" + name, std::ios::binary);
    out << bytes;
    ASSERT_TRUE(out.good());
  };
  put("every-type-none.arrows", Write(EveryType(), rows, {IpcCompression::kNone, 3}));
  put("every-type-lz4.arrows", Write(EveryType(), rows, {IpcCompression::kLz4Frame, 3}));
  put("every-type-zstd.arrows", Write(EveryType(), rows, {IpcCompression::kZstd, 3}));
  put("no-rows.arrows", Write(EveryType(), {}));
}

}  // namespace
}  // namespace tributary::format::arrow
