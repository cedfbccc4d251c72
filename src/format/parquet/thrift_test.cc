// Thrift compact protocol and parquet.thrift structures: round trips, skipping of unknown
// fields, and damaged input.
#include "format/parquet/thrift.h"

#include <gtest/gtest.h>

#include <limits>

#include "format/parquet/parquet_metadata.h"

namespace tributary::format::parquet {
namespace {

TEST(ThriftTest, PrimitiveFieldsRoundTrip) {
  ThriftWriter w;
  w.BeginStruct();
  w.FieldBool(1, true);
  w.FieldBool(2, false);
  w.FieldI8(3, -7);
  w.FieldI16(4, -300);
  w.FieldI32(20, std::numeric_limits<int32_t>::min());  // delta > 15: long form
  w.FieldI64(21, std::numeric_limits<int64_t>::max());
  w.FieldDouble(22, 3.25);
  w.FieldBinary(23, std::string("a\0b", 3));
  w.FieldI32(5, 42);  // going backwards also needs the long form
  w.EndStruct();

  ThriftReader r(w.data());
  bool b1 = false, b2 = true;
  int8_t i8 = 0;
  int16_t i16 = 0;
  int32_t i32 = 0, back = 0;
  int64_t i64 = 0;
  double d = 0;
  std::string s;
  ASSERT_TRUE(r.ReadStruct([&](int16_t id, ThriftType t) -> Status {
                 switch (id) {
                   case 1:
                     return r.ReadBool(t, &b1);
                   case 2:
                     return r.ReadBool(t, &b2);
                   case 3:
                     return r.ReadI8(t, &i8);
                   case 4:
                     return r.ReadI16(t, &i16);
                   case 20:
                     return r.ReadI32(t, &i32);
                   case 21:
                     return r.ReadI64(t, &i64);
                   case 22:
                     return r.ReadDouble(t, &d);
                   case 23:
                     return r.ReadBinary(t, &s);
                   case 5:
                     return r.ReadI32(t, &back);
                 }
                 return Status::Internal("unexpected field");
               }).ok());
  EXPECT_TRUE(b1);
  EXPECT_FALSE(b2);
  EXPECT_EQ(i8, -7);
  EXPECT_EQ(i16, -300);
  EXPECT_EQ(i32, std::numeric_limits<int32_t>::min());
  EXPECT_EQ(i64, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(d, 3.25);
  EXPECT_EQ(s, std::string("a\0b", 3));
  EXPECT_EQ(back, 42);
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(ThriftTest, KnownEncoding) {
  // Field 1 i32 = 1 (delta 1, type 5, zigzag 2), then STOP.
  ThriftWriter w;
  w.BeginStruct();
  w.FieldI32(1, 1);
  w.EndStruct();
  EXPECT_EQ(w.data(), std::string("\x15\x02\x00", 3));
}

TEST(ThriftTest, SkipsUnknownFieldsOfEveryType) {
  ThriftWriter w;
  w.BeginStruct();
  w.FieldI32(1, 7);
  w.FieldStructBegin(2);  // nested struct with a list of structs inside
  w.FieldListBegin(1, ThriftType::kStruct, 20);
  for (int i = 0; i < 20; ++i) {
    w.BeginStruct();
    w.FieldBinary(1, "x");
    w.FieldBool(2, i % 2 == 0);
    w.EndStruct();
  }
  w.FieldDouble(2, 1.5);
  w.EndStruct();
  w.FieldListBegin(3, ThriftType::kBoolTrue, 3);
  w.ListBool(true);
  w.ListBool(false);
  w.ListBool(true);
  w.FieldI64(4, -1);
  w.EndStruct();
  std::string bytes = w.data();

  ThriftReader r(bytes);
  int32_t v = 0;
  int64_t last = 0;
  ASSERT_TRUE(r.ReadStruct([&](int16_t id, ThriftType t) -> Status {
                 if (id == 1) return r.ReadI32(t, &v);
                 if (id == 4) return r.ReadI64(t, &last);
                 return r.Skip(t);
               }).ok());
  EXPECT_EQ(v, 7);
  EXPECT_EQ(last, -1);
  EXPECT_EQ(r.remaining(), 0u);

  // Every truncation is an error, never a crash.
  for (size_t n = 0; n < bytes.size(); ++n) {
    ThriftReader t(std::string_view(bytes).substr(0, n));
    EXPECT_FALSE(t.ReadStruct([&](int16_t, ThriftType ty) { return t.Skip(ty); }).ok()) << n;
  }
}

TEST(ThriftTest, TypeMismatchAndDeepNestingAreErrors) {
  ThriftWriter w;
  w.BeginStruct();
  w.FieldBinary(1, "abc");
  w.EndStruct();
  ThriftReader r(w.data());
  int32_t v;
  EXPECT_EQ(r.ReadStruct([&](int16_t, ThriftType t) { return r.ReadI32(t, &v); }).code(),
            StatusCode::kCorruption);

  std::string deep;
  for (int i = 0; i < 1000; ++i) deep.push_back(0x1c);  // field 1, struct, nested forever
  ThriftReader d(deep);
  EXPECT_EQ(d.ReadStruct([&](int16_t, ThriftType t) { return d.Skip(t); }).code(),
            StatusCode::kCorruption);

  // A list claiming more elements than bytes left.
  std::string huge = "\x19\xf5\xff\xff\xff\xff\x07";
  ThriftReader h(huge);
  EXPECT_FALSE(h.ReadStruct([&](int16_t, ThriftType t) { return h.Skip(t); }).ok());
}

FileMetaData SampleFileMetaData() {
  FileMetaData m;
  m.version = 2;
  SchemaElement root;
  root.name = "paimon_schema";
  root.num_children = 2;
  SchemaElement a;
  a.name = "a";
  a.type = PhysicalType::kFixedLenByteArray;
  a.type_length = 10;
  a.repetition_type = Repetition::kOptional;
  a.converted_type = ConvertedType::kDecimal;
  a.precision = 23;
  a.scale = 5;
  a.field_id = 17;
  LogicalType dec;
  dec.kind = LogicalType::kDecimal;
  dec.precision = 23;
  dec.scale = 5;
  a.logical_type = dec;
  SchemaElement b;
  b.name = "b";
  b.type = PhysicalType::kInt64;
  b.repetition_type = Repetition::kRequired;
  LogicalType ts;
  ts.kind = LogicalType::kTimestamp;
  ts.is_adjusted_to_utc = true;
  ts.unit = TimeUnit::kNanos;
  b.logical_type = ts;
  b.field_id = 2147483646;
  m.schema = {root, a, b};
  m.num_rows = 1234567890123;
  RowGroup g;
  for (int i = 0; i < 2; ++i) {
    ColumnChunk c;
    c.file_offset = 4 + i;
    ColumnMetaData md;
    md.type = i == 0 ? PhysicalType::kFixedLenByteArray : PhysicalType::kInt64;
    md.encodings = {Encoding::kRle, Encoding::kPlainDictionary, Encoding::kByteStreamSplit};
    md.path_in_schema = {i == 0 ? "a" : "b"};
    md.codec = Codec::kZstd;
    md.num_values = 99;
    md.total_uncompressed_size = 1000;
    md.total_compressed_size = 500;
    md.key_value_metadata = {{"k", "v"}, {"only_key", std::nullopt}};
    md.data_page_offset = 40;
    md.dictionary_page_offset = 4;
    Statistics s;
    s.min = "lo";
    s.max = "hi";
    s.null_count = 3;
    s.min_value = "lo";
    s.max_value = "hi";
    s.is_max_value_exact = true;
    md.statistics = s;
    c.meta_data = md;
    c.offset_index_offset = 777;
    c.offset_index_length = 12;
    c.column_index_offset = 700;
    c.column_index_length = 77;
    g.columns.push_back(c);
  }
  g.total_byte_size = 2000;
  g.num_rows = 99;
  g.file_offset = 4;
  g.total_compressed_size = 1000;
  g.ordinal = 0;
  m.row_groups = {g, g};
  m.key_value_metadata = {{"writer", "tributary"}};
  m.created_by = "tributary version 0.1.0";
  m.column_orders = {true, true};
  return m;
}

TEST(ThriftTest, FileMetaDataRoundTrip) {
  FileMetaData m = SampleFileMetaData();
  std::string bytes = EncodeFileMetaData(m);
  FileMetaData back;
  ASSERT_TRUE(DecodeFileMetaData(bytes, &back).ok());
  EXPECT_EQ(back, m);
  for (size_t n = 0; n < bytes.size(); ++n) {
    FileMetaData t;
    EXPECT_FALSE(DecodeFileMetaData(std::string_view(bytes).substr(0, n), &t).ok()) << n;
  }
}

TEST(ThriftTest, PageHeadersRoundTrip) {
  PageHeader v1;
  v1.type = PageType::kDataPage;
  v1.uncompressed_page_size = 100;
  v1.compressed_page_size = 50;
  v1.crc = -5;
  DataPageHeader d;
  d.num_values = 20000;
  d.encoding = Encoding::kRleDictionary;
  Statistics s;
  s.null_count = 0;
  d.statistics = s;
  v1.data_page_header = d;

  PageHeader v2;
  v2.type = PageType::kDataPageV2;
  v2.uncompressed_page_size = 7;
  v2.compressed_page_size = 7;
  DataPageHeaderV2 d2;
  d2.num_values = 5;
  d2.num_nulls = 2;
  d2.num_rows = 5;
  d2.encoding = Encoding::kDeltaBinaryPacked;
  d2.definition_levels_byte_length = 3;
  d2.is_compressed = false;
  v2.data_page_header_v2 = d2;

  PageHeader dict;
  dict.type = PageType::kDictionaryPage;
  dict.uncompressed_page_size = 1;
  dict.compressed_page_size = 1;
  DictionaryPageHeader dh;
  dh.num_values = 1;
  dh.is_sorted = false;
  dict.dictionary_page_header = dh;

  for (const PageHeader& h : {v1, v2, dict}) {
    std::string bytes = EncodePageHeader(h) + "trailing page data";
    PageHeader back;
    size_t consumed = 0;
    ASSERT_TRUE(DecodePageHeader(bytes, &back, &consumed).ok());
    EXPECT_EQ(back, h);
    EXPECT_EQ(consumed, bytes.size() - std::string("trailing page data").size());
  }
}

TEST(ThriftTest, PageIndexRoundTrip) {
  ColumnIndex ci;
  ci.null_pages = {false, true, false};
  ci.min_values = {"a", "", "c"};
  ci.max_values = {"b", "", "d"};
  ci.boundary_order = BoundaryOrder::kAscending;
  ci.null_counts = {0, 10, 1};
  ColumnIndex ci_back;
  ASSERT_TRUE(DecodeColumnIndex(EncodeColumnIndex(ci), &ci_back).ok());
  EXPECT_EQ(ci_back, ci);

  OffsetIndex oi;
  oi.page_locations = {{4, 100, 0}, {104, 90, 20000}};
  OffsetIndex oi_back;
  ASSERT_TRUE(DecodeOffsetIndex(EncodeOffsetIndex(oi), &oi_back).ok());
  EXPECT_EQ(oi_back, oi);
}

TEST(ThriftTest, MissingRequiredFieldsAreCorruption) {
  ThriftWriter w;
  w.BeginStruct();
  w.FieldI32(1, 1);  // version only
  w.EndStruct();
  FileMetaData m;
  EXPECT_EQ(DecodeFileMetaData(w.data(), &m).code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace tributary::format::parquet
