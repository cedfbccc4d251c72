// Writer -> reader round trips: every type with nulls, every codec, dictionary and plain,
// every fallback value encoding, data pages v1 and v2, several row groups and pages;
// statistics, row-group skipping, projection and writer errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <tuple>

#include "format/parquet/parquet_test_util.h"
#include "format/parquet/reader.h"
#include "format/parquet/writer.h"

namespace tributary::format::parquet {
namespace {

using testing::AllTypesSchema;
using testing::RandomRows;

std::string WriteFile(const std::vector<Field>& schema, const std::vector<Row>& rows,
                      const ParquetWriterOptions& options) {
  auto w = ParquetWriter::Make(schema, options);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  if (!w.ok()) return "";
  for (const Row& r : rows) {
    Status st = (*w)->Append(r);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  EXPECT_EQ((*w)->num_rows(), static_cast<int64_t>(rows.size()));
  auto file = (*w)->Finish();
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  return file.ok() ? *file : "";
}

std::unique_ptr<ParquetReader> OpenFile(std::string bytes) {
  auto r = ParquetReader::Open(std::move(bytes));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : nullptr;
}

using Params = std::tuple<CompressionCodec, bool /*dictionary*/, int /*page version*/,
                          ValueEncoding, int /*cardinality*/>;

class ParquetRoundTripTest : public ::testing::TestWithParam<Params> {};

TEST_P(ParquetRoundTripTest, AllTypesWithNulls) {
  auto [codec, dictionary, version, encoding, cardinality] = GetParam();
  ParquetWriterOptions o;
  o.compression = codec;
  o.dictionary = dictionary;
  o.data_page_version = version;
  o.value_encoding = encoding;
  o.page_size = 2048;
  o.page_row_limit = 300;
  o.row_group_size = 16 * 1024;
  std::vector<Field> schema = AllTypesSchema();
  std::vector<Row> rows = RandomRows(schema, 2500, 42, cardinality);
  std::string file = WriteFile(schema, rows, o);
  auto r = OpenFile(file);
  ASSERT_NE(r, nullptr);
  EXPECT_GT(r->num_row_groups(), 1);
  EXPECT_EQ(r->num_rows(), 2500);
  EXPECT_EQ(r->schema().root_name(), "paimon_schema");
  ASSERT_EQ(r->schema().columns().size(), schema.size());
  for (size_t c = 0; c < schema.size(); ++c) {
    EXPECT_EQ(r->schema().columns()[c].field_id, schema[c].id);
    EXPECT_EQ(r->schema().columns()[c].name, schema[c].name);
  }
  auto got = r->ReadRows();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t c = 0; c < schema.size(); ++c) {
      ASSERT_EQ((*got)[i][c], rows[i][c]) << "row " << i << " column " << schema[c].name << ": got "
                                          << FormatValue((*got)[i][c], schema[c].type) << ", wrote "
                                          << FormatValue(rows[i][c], schema[c].type);
    }
  }
  // Every chunk records the codec, and dictionaries appear where they pay off.
  bool any_dictionary = false;
  for (const RowGroup& g : r->metadata().row_groups) {
    for (const ColumnChunk& c : g.columns) {
      any_dictionary |= c.meta_data->dictionary_page_offset.has_value();
    }
  }
  if (!dictionary) {
    EXPECT_FALSE(any_dictionary);
  } else if (cardinality > 0) {
    EXPECT_TRUE(any_dictionary);
  }
}

INSTANTIATE_TEST_SUITE_P(
    ParquetCodecs, ParquetRoundTripTest,
    ::testing::Combine(::testing::Values(CompressionCodec::kNone, CompressionCodec::kSnappy,
                                         CompressionCodec::kGzip, CompressionCodec::kZstd,
                                         CompressionCodec::kLz4Raw),
                       ::testing::Bool(), ::testing::Values(1, 2),
                       ::testing::Values(ValueEncoding::kPlain), ::testing::Values(0, 20)));

INSTANTIATE_TEST_SUITE_P(ParquetEncodings, ParquetRoundTripTest,
                         ::testing::Combine(::testing::Values(CompressionCodec::kZstd),
                                            ::testing::Bool(), ::testing::Values(1, 2),
                                            ::testing::Values(ValueEncoding::kDelta,
                                                              ValueEncoding::kDeltaLength,
                                                              ValueEncoding::kByteStreamSplit),
                                            ::testing::Values(0, 20)));

TEST(ParquetWriterTest, TypesAsPaimonWritesThem) {
  std::string file = WriteFile(AllTypesSchema(), {}, {});
  auto r = OpenFile(file);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->num_row_groups(), 0);
  const auto& e = r->metadata().schema;
  auto el = [&](const std::string& name) -> const SchemaElement& {
    for (const SchemaElement& s : e) {
      if (s.name == name) return s;
    }
    return e[0];
  };
  EXPECT_EQ(el("id").repetition_type, Repetition::kRequired);
  EXPECT_EQ(el("b").repetition_type, Repetition::kOptional);
  EXPECT_EQ(el("t").type, PhysicalType::kInt32);
  EXPECT_EQ(el("t").converted_type, ConvertedType::kInt8);
  EXPECT_EQ(el("s").logical_type->bit_width, 16);
  EXPECT_EQ(el("i").type, PhysicalType::kInt32);
  EXPECT_FALSE(el("i").logical_type.has_value());
  EXPECT_EQ(el("dec5").type, PhysicalType::kInt32);
  EXPECT_EQ(el("dec15").type, PhysicalType::kInt64);
  EXPECT_EQ(el("dec23").type, PhysicalType::kFixedLenByteArray);
  EXPECT_EQ(el("dec23").type_length, 10);
  EXPECT_EQ(el("dec38").type_length, 16);
  EXPECT_EQ(el("dec23").precision, 23);
  EXPECT_EQ(el("dec23").scale, 5);
  EXPECT_EQ(el("str").type, PhysicalType::kByteArray);
  EXPECT_EQ(el("str").converted_type, ConvertedType::kUtf8);
  EXPECT_EQ(el("str").logical_type->kind, LogicalType::kString);
  EXPECT_EQ(el("bin").type, PhysicalType::kByteArray);
  EXPECT_FALSE(el("bin").logical_type.has_value());
  EXPECT_EQ(el("date").logical_type->kind, LogicalType::kDate);
  EXPECT_EQ(el("time").converted_type, ConvertedType::kTimeMillis);
  EXPECT_EQ(el("ts0").type, PhysicalType::kInt64);
  EXPECT_EQ(el("ts0").logical_type->unit, TimeUnit::kMillis);
  EXPECT_FALSE(el("ts0").logical_type->is_adjusted_to_utc);
  EXPECT_EQ(el("ts6").logical_type->unit, TimeUnit::kMicros);
  EXPECT_EQ(el("ts9").type, PhysicalType::kInt96);
  EXPECT_TRUE(el("ltz3").logical_type->is_adjusted_to_utc);
  EXPECT_EQ(el("ltz6").converted_type, ConvertedType::kTimestampMicros);
  EXPECT_EQ(el("ltz9").type, PhysicalType::kInt96);
  EXPECT_EQ(r->created_by(), kCreatedBy);

  // The reader maps them back to Tributary types.
  auto type_of = [&](const std::string& name) {
    return *r->schema().columns()[r->schema().FindColumn(name)].type;
  };
  EXPECT_EQ(type_of("id"), DataType::BigInt().NotNull());
  EXPECT_EQ(type_of("t"), DataType::TinyInt());
  EXPECT_EQ(type_of("s"), DataType::SmallInt());
  EXPECT_EQ(type_of("dec23"), DataType::Decimal(23, 5));
  EXPECT_EQ(type_of("str"), DataType::String());
  EXPECT_EQ(type_of("bin"), DataType::Bytes());
  EXPECT_EQ(type_of("date"), DataType::Date());
  EXPECT_EQ(type_of("time"), DataType::Time(3));
  EXPECT_EQ(type_of("ts0"), DataType::Timestamp(3));
  EXPECT_EQ(type_of("ts6"), DataType::Timestamp(6));
  EXPECT_EQ(type_of("ts9"), DataType::Timestamp(9));
  EXPECT_EQ(type_of("ltz3"), DataType::TimestampLtz(3));
  EXPECT_EQ(r->schema().FindColumnById(20), r->schema().FindColumn("ts9"));
}

TEST(ParquetWriterTest, StatisticsAndRowGroupSkipping) {
  std::vector<Field> schema = {{0, "k", DataType::Int(), ""},
                               {1, "s", DataType::String(), ""},
                               {2, "d", DataType::Double(), ""},
                               {3, "ts", DataType::Timestamp(9), ""}};
  ParquetWriterOptions o;
  o.row_group_size = 1;  // one row group per row
  std::vector<Row> rows = {
      {Value::Int(5), Value::String("pear"), Value::Double(0.0), Value::Ts({1, 0})},
      {Value::Int(-3), Value::Null(), Value::Double(std::nan("")), Value::Null()},
      {Value::Null(), Value::String("apple"), Value::Double(2.5), Value::Ts({2, 0})},
  };
  auto r = OpenFile(WriteFile(schema, rows, o));
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->num_row_groups(), 3);
  RowGroupStats g0 = r->RowGroupStatistics(0);
  EXPECT_EQ(g0.num_rows, 1);
  EXPECT_EQ(g0.columns[0].min, Value::Int(5));
  EXPECT_EQ(g0.columns[0].max, Value::Int(5));
  EXPECT_EQ(g0.columns[0].null_count, 0);
  EXPECT_EQ(g0.columns[1].min, Value::String("pear"));
  EXPECT_EQ(g0.columns[2].min->double_value(), 0.0);
  EXPECT_TRUE(std::signbit(g0.columns[2].min->double_value()));  // -0.0 as the spec asks
  EXPECT_FALSE(g0.columns[3].min.has_value());                   // INT96: no order
  RowGroupStats g1 = r->RowGroupStatistics(1);
  EXPECT_EQ(g1.columns[1].null_count, 1);
  EXPECT_FALSE(g1.columns[1].min.has_value());
  EXPECT_FALSE(g1.columns[2].min.has_value());  // NaN: no bounds
  // Deprecated fields as parquet-mr writes them: for byte arrays only when min == max.
  const auto& s_stats = *r->metadata().row_groups[2].columns[1].meta_data->statistics;
  EXPECT_EQ(s_stats.min, "apple");
  EXPECT_EQ(s_stats.min_value, "apple");
  const auto& k_stats = *r->metadata().row_groups[0].columns[0].meta_data->statistics;
  EXPECT_EQ(k_stats.min, std::string("\x05\x00\x00\x00", 4));

  // Skip row groups whose k range excludes k > 0.
  ParquetReadOptions ro;
  ro.projection = {1, 0};
  ro.row_group_filter = [](const RowGroupStats& g) {
    const ColumnStats& k = g.columns[0];
    return !k.max || k.max->int_value() > 0;
  };
  auto got = r->ReadRows(ro);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0], (Row{Value::String("pear"), Value::Int(5)}));
  EXPECT_EQ((*got)[1], (Row{Value::String("apple"), Value::Null()}));
}

TEST(ParquetWriterTest, DictionaryFallsBackToPlain) {
  std::vector<Field> schema = {{0, "s", DataType::String(), ""}};
  ParquetWriterOptions o;
  o.dictionary_page_size = 400;
  o.page_row_limit = 50;
  std::vector<Row> rows;
  for (int i = 0; i < 100; ++i)
    rows.push_back({Value::String(i < 60 ? "same" : "v" + std::to_string(i))});
  for (int i = 0; i < 400; ++i) rows.push_back({Value::String("distinct-" + std::to_string(i))});
  auto r = OpenFile(WriteFile(schema, rows, o));
  ASSERT_NE(r, nullptr);
  const ColumnMetaData& m = *r->metadata().row_groups[0].columns[0].meta_data;
  EXPECT_TRUE(m.dictionary_page_offset.has_value());
  auto has = [&](Encoding e) {
    return std::find(m.encodings.begin(), m.encodings.end(), e) != m.encodings.end();
  };
  EXPECT_TRUE(has(Encoding::kPlainDictionary));
  EXPECT_TRUE(has(Encoding::kPlain));
  auto got = r->ReadRows();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, rows);
  // Strings with different bounds get only the new min_value/max_value.
  EXPECT_FALSE(m.statistics->min.has_value());
  EXPECT_EQ(m.statistics->min_value, "distinct-0");
  EXPECT_EQ(m.statistics->max_value, "v99");
}

// Values repeated only right after themselves (a changelog's -U and +U of one key) are not
// repeats a dictionary gains from: such columns are written plain from the first page, while a
// column drawing on a few hundred values keeps its dictionary.
TEST(ParquetWriterTest, AdjacentPairsGiveUpTheDictionary) {
  std::vector<Field> schema = {{0, "k", DataType::BigInt(), ""},
                               {1, "few", DataType::BigInt(), ""},
                               {2, "s", DataType::String(), ""}};
  constexpr size_t kRows = 6000;
  std::vector<int64_t> k(kRows), few(kRows);
  std::string chars;
  std::vector<uint64_t> offsets = {0};
  for (size_t i = 0; i < kRows; i++) {
    k[i] = static_cast<int64_t>(i / 2) * 3;
    few[i] = static_cast<int64_t>(i * 7919 % 300);
    chars += "key-" + std::to_string(i / 2);
    offsets.push_back(chars.size());
  }
  std::vector<ColumnValues> columns(3);
  columns[0].ints = k.data();
  columns[1].ints = few.data();
  columns[2].chars = chars.data();
  columns[2].offsets = offsets.data();
  auto w = ParquetWriter::Make(schema, {});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->AppendColumns(columns, kRows).ok());
  auto file = (*w)->Finish();
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  auto r = OpenFile(*file);
  ASSERT_NE(r, nullptr);
  const auto& chunks = r->metadata().row_groups[0].columns;
  EXPECT_FALSE(chunks[0].meta_data->dictionary_page_offset.has_value());
  EXPECT_TRUE(chunks[1].meta_data->dictionary_page_offset.has_value());
  EXPECT_FALSE(chunks[2].meta_data->dictionary_page_offset.has_value());
  auto got = r->ReadRows();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), kRows);
  for (size_t i = 0; i < kRows; i += 997) {
    EXPECT_EQ((*got)[i], (Row{Value::Int(k[i]), Value::Int(few[i]),
                              Value::String("key-" + std::to_string(i / 2))}));
  }
}

TEST(ParquetWriterTest, PlainStringPagesKeepNullsAndPageStatistics) {
  // Distinct strings give up the dictionary on the first page and are then encoded straight
  // into the page; NULLs, empty strings and per-page min/max must survive.
  std::vector<Field> schema = {{0, "s", DataType::String(), ""}};
  ParquetWriterOptions o;
  o.page_row_limit = 300;
  std::vector<Row> rows;
  for (int i = 0; i < 1000; ++i) {
    rows.push_back({i % 7 == 3    ? Value::Null()
                    : i % 11 == 0 ? Value::String("")
                                  : Value::String("k" + std::to_string(100000 + i * 37 % 1000))});
  }
  auto r = OpenFile(WriteFile(schema, rows, o));
  ASSERT_NE(r, nullptr);
  auto got = r->ReadRows();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, rows);
  auto pages = r->PageStatistics(0, 0);
  ASSERT_TRUE(pages.ok()) << pages.status().ToString();
  ASSERT_EQ(pages->size(), 4u);
  for (size_t p = 0; p < pages->size(); p++) {
    std::optional<Value> lo, hi;
    int64_t nulls = 0;
    for (size_t i = p * 300; i < std::min<size_t>(rows.size(), (p + 1) * 300); i++) {
      const Value& v = rows[i][0];
      if (v.is_null()) {
        nulls++;
        continue;
      }
      if (!lo || CompareValues(v, *lo) < 0) lo = v;
      if (!hi || CompareValues(v, *hi) > 0) hi = v;
    }
    EXPECT_EQ((*pages)[p].min, lo) << "page " << p;
    EXPECT_EQ((*pages)[p].max, hi) << "page " << p;
    EXPECT_EQ((*pages)[p].null_count, nulls) << "page " << p;
  }
}

TEST(ParquetWriterTest, NullsOnlyAndRequiredColumns) {
  std::vector<Field> schema = {{7, "a", DataType::Int(), ""},
                               {8, "b", DataType::String().NotNull(), ""}};
  std::vector<Row> rows;
  for (int i = 0; i < 1000; ++i) rows.push_back({Value::Null(), Value::String("x")});
  for (int version : {1, 2}) {
    ParquetWriterOptions o;
    o.data_page_version = version;
    auto r = OpenFile(WriteFile(schema, rows, o));
    ASSERT_NE(r, nullptr);
    auto got = r->ReadRows();
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, rows);
    EXPECT_EQ(r->RowGroupStatistics(0).columns[0].null_count, 1000);
  }
}

TEST(ParquetWriterTest, RejectsBadInput) {
  std::vector<Field> schema = {{0, "a", DataType::Int().NotNull(), ""},
                               {1, "d", DataType::Decimal(3, 1), ""}};
  auto w = ParquetWriter::Make(schema);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ((*w)->Append({Value::Int(1)}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ((*w)->Append({Value::Null(), Value::Null()}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ((*w)->Append({Value::String("x"), Value::Null()}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ((*w)->Append({Value::Int(1), Value::Dec({1000})}).code(),
            StatusCode::kInvalidArgument);  // 100.0 does not fit DECIMAL(3, 1)
  ASSERT_TRUE((*w)->Append({Value::Int(1), Value::Dec({-999})}).ok());
  EXPECT_EQ((*w)->num_rows(), 1);
  EXPECT_GT((*w)->EstimatedSize(), 4);
  auto file = (*w)->Finish();
  ASSERT_TRUE(file.ok());
  EXPECT_FALSE((*w)->Finish().ok());
  auto r = OpenFile(*file);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(*r->ReadRows(), (std::vector<Row>{{Value::Int(1), Value::Dec({-999})}}));

  ParquetWriterOptions deflate;
  deflate.compression = CompressionCodec::kDeflate;
  EXPECT_FALSE(ParquetWriter::Make(schema, deflate).ok());
  ParquetWriterOptions v3;
  v3.data_page_version = 3;
  EXPECT_FALSE(ParquetWriter::Make(schema, v3).ok());
}

TEST(ParquetWriterTest, EstimatedSizeGrowsAndRowGroupsRoll) {
  std::vector<Field> schema = AllTypesSchema();
  ParquetWriterOptions o;
  o.row_group_size = 32 * 1024;
  auto w = ParquetWriter::Make(schema, o);
  ASSERT_TRUE(w.ok());
  int64_t last = (*w)->EstimatedSize();
  for (const Row& row : RandomRows(schema, 3000, 7)) {
    ASSERT_TRUE((*w)->Append(row).ok());
  }
  EXPECT_GT((*w)->EstimatedSize(), last);
  int64_t estimate = (*w)->EstimatedSize();
  auto file = (*w)->Finish();
  ASSERT_TRUE(file.ok());
  // The estimate is within a factor of the real size (compression only shrinks pages).
  EXPECT_GT(estimate, static_cast<int64_t>(file->size()) / 4);
  EXPECT_LT(estimate, static_cast<int64_t>(file->size()) * 4);
  auto r = OpenFile(*file);
  ASSERT_NE(r, nullptr);
  EXPECT_GT(r->num_row_groups(), 3);
}

TEST(ParquetWriterTest, PageIndex) {
  std::vector<Field> schema = {{0, "k", DataType::BigInt().NotNull(), ""},
                               {1, "s", DataType::String(), ""},
                               {2, "ts", DataType::Timestamp(9), ""}};
  ParquetWriterOptions o;
  o.page_row_limit = 100;
  std::vector<Row> rows;
  for (int i = 0; i < 1000; ++i) {
    rows.push_back(
        {Value::Int(i),
         i >= 100 && i < 200 ? Value::Null() : Value::String("s" + std::to_string(1000 + i)),
         Value::Ts({i, 0})});
  }
  auto r = OpenFile(WriteFile(schema, rows, o));
  ASSERT_NE(r, nullptr);
  auto index = r->ReadPageIndex(0, 0);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  ASSERT_TRUE(index->column_index.has_value());
  ASSERT_TRUE(index->offset_index.has_value());
  EXPECT_EQ(index->column_index->boundary_order, BoundaryOrder::kAscending);
  const auto& locations = index->offset_index->page_locations;
  ASSERT_EQ(locations.size(), 10u);
  EXPECT_EQ(locations[0].offset,
            r->metadata().row_groups[0].columns[0].meta_data->data_page_offset);
  for (size_t p = 0; p < locations.size(); ++p) {
    EXPECT_EQ(locations[p].first_row_index, static_cast<int64_t>(100 * p));
    if (p > 0) {
      EXPECT_EQ(locations[p].offset,
                locations[p - 1].offset + locations[p - 1].compressed_page_size);
    }
  }
  auto pages = r->PageStatistics(0, 0);
  ASSERT_TRUE(pages.ok());
  ASSERT_EQ(pages->size(), 10u);
  EXPECT_EQ((*pages)[3].min, Value::Int(300));
  EXPECT_EQ((*pages)[3].max, Value::Int(399));
  EXPECT_EQ((*pages)[3].num_values, 100);
  auto s_pages = r->PageStatistics(0, 1);
  ASSERT_TRUE(s_pages.ok());
  EXPECT_FALSE((*s_pages)[1].min.has_value());  // a page of nulls only
  EXPECT_EQ((*s_pages)[1].null_count, 100);
  EXPECT_EQ((*s_pages)[2].min, Value::String("s1200"));
  // INT96: an offset index but no column index.
  auto ts = r->ReadPageIndex(0, 2);
  ASSERT_TRUE(ts.ok());
  EXPECT_FALSE(ts->column_index.has_value());
  EXPECT_TRUE(ts->offset_index.has_value());
}

// Pages holding none of the wanted rows are not decoded, and exactly the wanted rows come back,
// for required and optional columns, dictionary or not, pages v1 and v2.
TEST(ParquetReaderTest, SkipsPagesOutsideWantedRows) {
  std::vector<Field> schema = {{0, "k", DataType::BigInt().NotNull(), ""},
                               {1, "s", DataType::String(), ""},
                               {2, "d", DataType::Double(), ""}};
  std::vector<Row> rows;
  for (int i = 0; i < 1000; ++i) {
    rows.push_back({Value::Int(i),
                    i % 7 == 0 ? Value::Null() : Value::String("v" + std::to_string(i % 13)),
                    i % 5 == 0 ? Value::Null() : Value::Double(i * 0.5)});
  }
  for (int version : {1, 2}) {
    for (int variant = 0; variant < 4; variant++) {
      // Dictionary pages, then each encoding of byte arrays (only PLAIN and dictionary ones
      // are decoded selectively; the others decoded whole, then narrowed to the wanted rows).
      const bool dictionary = variant == 0;
      ParquetWriterOptions o;
      o.page_row_limit = 100;
      o.data_page_version = version;
      o.dictionary = dictionary;
      o.value_encoding = variant == 2   ? ValueEncoding::kDelta
                         : variant == 3 ? ValueEncoding::kDeltaLength
                                        : ValueEncoding::kPlain;
      auto r = OpenFile(WriteFile(schema, rows, o));
      ASSERT_NE(r, nullptr);
      const RowRanges wanted = {{150, 160}, {420, 610}, {999, 1000}};
      auto cols = r->ReadRowGroupColumns(0, {0, 1, 2}, &wanted);
      ASSERT_TRUE(cols.ok()) << cols.status().ToString();
      for (size_t c = 0; c < 3; ++c) {
        std::vector<Value> want;
        for (const auto& [b, e] : wanted) {
          for (int64_t i = b; i < e; ++i) want.push_back(rows[i][c]);
        }
        EXPECT_EQ((*cols)[c], want)
            << "version " << version << " variant " << variant << " column " << c;
      }
      auto chunk = r->ReadLeafChunk(0, 0, &wanted);
      ASSERT_TRUE(chunk.ok());
      EXPECT_EQ(chunk->skipped, (RowRanges{{0, 100}, {200, 400}, {700, 900}}));
      EXPECT_EQ(chunk->values.size(), 500u);
      // Single rows here and there, NULLs among them: only they are copied out of the pages
      // decoded.
      const RowRanges sparse = {{3, 4}, {7, 8}, {101, 102}, {555, 557}, {998, 999}};
      auto vecs = r->ReadRowGroupVectors(0, {1}, &sparse);
      ASSERT_TRUE(vecs.ok()) << vecs.status().ToString();
      std::vector<Value> got, want;
      for (size_t i = 0; i < (*vecs)[0].size(); ++i) got.push_back((*vecs)[0].Get(i));
      for (const auto& [b, e] : sparse) {
        for (int64_t i = b; i < e; ++i) want.push_back(rows[i][1]);
      }
      EXPECT_EQ(got, want) << "version " << version << " variant " << variant;
      auto strings = r->ReadLeafChunk(0, 1, &sparse);
      ASSERT_TRUE(strings.ok());
      EXPECT_TRUE(strings->wanted_only);
      EXPECT_EQ(strings->values.bytes.size(), 5u)
          << "version " << version << " variant " << variant;
    }
  }
}

TEST(ParquetReaderTest, ProjectionAndColumnsApi) {
  std::vector<Field> schema = AllTypesSchema();
  std::vector<Row> rows = RandomRows(schema, 100, 9, 5);
  auto r = OpenFile(WriteFile(schema, rows, {}));
  ASSERT_NE(r, nullptr);
  auto cols = r->ReadRowGroupColumns(0, {20, 12});
  ASSERT_TRUE(cols.ok()) << cols.status().ToString();
  ASSERT_EQ(cols->size(), 2u);
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ((*cols)[0][i], rows[i][20]);
    EXPECT_EQ((*cols)[1][i], rows[i][12]);
  }
  EXPECT_EQ(r->ReadRowGroupColumns(0, {99}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r->ReadRowGroupColumns(5, {0}).status().code(), StatusCode::kInvalidArgument);
}

// A file read by range (object storage): the reader touches only bytes it asked for first, so a
// reader over a buffer that holds nothing but those bytes gives every value right, and a
// projection of one column of many asks for a fraction of the file.
TEST(ParquetRangedReadTest, ReadsOnlyTheRangesItEnsures) {
  ParquetWriterOptions o;
  o.row_group_size = 16 * 1024;
  o.page_size = 2048;
  std::vector<Field> schema = AllTypesSchema();
  std::vector<Row> rows = RandomRows(schema, 3000, 7, 1000);
  const std::string file = WriteFile(schema, rows, o);
  for (bool one_column : {false, true}) {
    // Zeros where the reader did not ask: a read of anything else would decode garbage.
    auto sparse = std::make_shared<std::string>(file.size(), '\0');
    int64_t asked = 0;
    auto ensure = [&](int64_t offset, int64_t length) -> Status {
      EXPECT_GE(offset, 0);
      EXPECT_LE(offset + length, static_cast<int64_t>(file.size()));
      std::memcpy(sparse->data() + offset, file.data() + offset, static_cast<size_t>(length));
      asked += length;
      return Status::OK();
    };
    std::string_view view = *sparse;
    auto r = ParquetReader::Open(sparse, view, nullptr, ensure);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_GT((*r)->num_row_groups(), 1);
    ParquetReadOptions ro;
    if (one_column) ro.projection = {1};
    auto got = (*r)->ReadRows(ro);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      if (one_column) {
        ASSERT_EQ((*got)[i][0], rows[i][1]) << "row " << i;
      } else {
        ASSERT_EQ((*got)[i], rows[i]) << "row " << i;
      }
    }
    if (one_column) {
      EXPECT_LT(asked * 4, static_cast<int64_t>(file.size()))
          << "one column of " << schema.size() << " fetched " << asked << " of " << file.size()
          << " bytes";
    }
  }
}

}  // namespace
}  // namespace tributary::format::parquet
