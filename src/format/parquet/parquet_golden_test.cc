// Reads the Parquet data files that Java Paimon (parquet-mr 1.13-1.16) and paimon-cpp
// (parquet-cpp-arrow 18) wrote, under TRIBUTARY_GOLDEN_DIR (see golden/README.md), and checks
// the row values the README lists for them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "format/golden_test_util.h"
#include "format/parquet/reader.h"

namespace tributary::format::parquet {
namespace {

namespace fs = std::filesystem;

using tributary::testing::kGolden;
std::string ReadFile(const fs::path& path) { return tributary::testing::ReadGoldenFile(path); }

// The one file in `dir` whose name starts with `prefix`.
fs::path FindFile(const fs::path& dir, const std::string& prefix) {
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind(prefix, 0) == 0) return e.path();
  }
  ADD_FAILURE() << "no " << prefix << "* in " << dir;
  return dir / prefix;
}

std::unique_ptr<ParquetReader> Open(const fs::path& path) {
  auto r = ParquetReader::Open(ReadFile(path));
  EXPECT_TRUE(r.ok()) << path << ": " << r.status().ToString();
  return r.ok() ? std::move(r).value() : nullptr;
}

// Rows of the named columns, each value printed with FormatValue (strings and bytes raw).
std::vector<std::string> ReadFormatted(const ParquetReader& r,
                                       const std::vector<std::string>& names) {
  std::vector<int> projection;
  for (const std::string& n : names) {
    int c = r.schema().FindColumn(n);
    EXPECT_GE(c, 0) << n;
    projection.push_back(c);
  }
  ParquetReadOptions o;
  o.projection = projection;
  auto rows = r.ReadRows(o);
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  std::vector<std::string> out;
  if (!rows.ok()) return out;
  for (const Row& row : *rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      const DataType& t = *r.schema().columns()[projection[i]].type;
      if (i > 0) line += ", ";
      if (!row[i].is_null() && (t.IsString() || t.IsBinary())) {
        line += row[i].string_value();
      } else {
        line += row[i].is_null() ? "null" : FormatValue(row[i], t);
      }
    }
    out.push_back(line);
  }
  return out;
}

fs::path Table(const std::string& name) { return kGolden / "parquet" / (name + ".db") / name; }

TEST(ParquetGoldenTest, TimestampPrecisionsAndTimeZones) {
  // parquet-mr 1.15: TIMESTAMP(0)/(3) as TIMESTAMP_MILLIS, (6) as MICROS, (9) as INT96.
  auto r =
      Open(FindFile(Table("append_with_multiple_ts_precision_and_timezone") / "bucket-0", "data-"));
  ASSERT_NE(r, nullptr);
  const auto& cols = r->schema().columns();
  ASSERT_EQ(cols.size(), 8u);
  EXPECT_EQ(*cols[0].type, DataType::Timestamp(3));  // ts_sec: stored in milliseconds
  EXPECT_EQ(*cols[2].type, DataType::Timestamp(6));
  EXPECT_EQ(*cols[3].type, DataType::Timestamp(9));     // INT96
  EXPECT_EQ(*cols[4].type, DataType::TimestampLtz(3));  // isAdjustedToUTC
  EXPECT_EQ(*cols[6].type, DataType::TimestampLtz(6));
  EXPECT_EQ(cols[7].field_id, 7);
  EXPECT_EQ(ReadFormatted(*r, {"ts_sec", "ts_milli", "ts_micro", "ts_nano", "ts_tz_sec",
                               "ts_tz_milli", "ts_tz_micro", "ts_tz_nano"}),
            (std::vector<std::string>{
                "1970-01-01 00:00:01, 1970-01-01 00:00:00.001, 1970-01-01 00:00:00.000001, "
                "1970-01-01 00:00:00.000000001, 1970-01-01 00:00:02, 1970-01-01 00:00:00.002, "
                "1970-01-01 00:00:00.000002, 1970-01-01 00:00:00.000000002",
                "1970-01-01 00:00:03, 1970-01-01 00:00:00.003, null, "
                "1970-01-01 00:00:00.000000003, 1970-01-01 00:00:04, 1970-01-01 00:00:00.004, "
                "1970-01-01 00:00:00.000004, 1970-01-01 00:00:00.000000004",
                "1970-01-01 00:00:05, 1970-01-01 00:00:00.005, null, null, "
                "1970-01-01 00:00:06, null, 1970-01-01 00:00:00.000006, null",
            }));
  // Statistics of the INT64 timestamp columns decode; INT96 has none.
  RowGroupStats s = r->RowGroupStatistics(0);
  EXPECT_EQ(s.columns[0].min, Value::Ts({1000, 0}));
  EXPECT_EQ(s.columns[0].max, Value::Ts({5000, 0}));
  EXPECT_EQ(s.columns[2].null_count, 2);
  EXPECT_FALSE(s.columns[3].min.has_value());
  // parquet-mr wrote a page index: one page per column.
  auto pages = r->PageStatistics(0, 0);
  ASSERT_TRUE(pages.ok()) << pages.status().ToString();
  ASSERT_EQ(pages->size(), 1u);
  EXPECT_EQ((*pages)[0].max, Value::Ts({5000, 0}));
  EXPECT_EQ((*pages)[0].num_values, 3);
}

TEST(ParquetGoldenTest, ComplexDataInt96Pre1900AndDecimal23) {
  fs::path t = Table("append_complex_data");
  auto r = Open(FindFile(t / "f1=10" / "bucket-0", "data-f8754699"));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(*r->schema().columns()[4].type, DataType::Decimal(23, 5));
  EXPECT_EQ(ReadFormatted(*r, {"f1", "f2", "f3", "f4", "f5", "f6"}),
            (std::vector<std::string>{
                "10, 1, 1973-05-19, 2033-05-18 03:33:20, 123456789987654321.45678, add",
                "10, 1, 2024-07-05, 2033-05-18 03:33:20.000001001, 12.30000, cat",
                "10, 1, 1970-01-01, 2008-12-28 00:00:00.000123456, null, dad",
                "10, 1, 1970-04-11, 2008-12-28 00:00:00.00012345, -123.45000, eat",
                "10, 1, null, 1899-01-01 00:59:20.001001001, 0.00000, fat",
                "10, 1, 2024-10-10, 2024-10-10 10:10:10.1001001, 1728551410100.10010, null",
            }));
  std::vector<std::string> p20;
  for (const char* bucket : {"bucket-0", "bucket-1"}) {
    for (const auto& e : fs::directory_iterator(t / "f1=20" / bucket)) {
      auto f = Open(e.path());
      ASSERT_NE(f, nullptr);
      for (const std::string& row : ReadFormatted(*f, {"f1", "f2", "f3", "f4", "f5", "f6"})) {
        p20.push_back(row);
      }
    }
  }
  std::sort(p20.begin(), p20.end());
  EXPECT_EQ(p20, (std::vector<std::string>{
                     "20, 0, 1969-09-23, null, 0.00000, get",
                     "20, 1, 1966-08-16, 1899-01-01 00:59:20.001001001, "
                     "-123456789987654321.45678, bad",
                 }));
  // DECIMAL(23,5) min/max statistics decode to 128-bit decimals.
  RowGroupStats s = r->RowGroupStatistics(0);
  ASSERT_TRUE(s.columns[4].min.has_value());
  EXPECT_EQ(FormatValue(*s.columns[4].min, DataType::Decimal(23, 5)), "-123.45000");
  EXPECT_EQ(FormatValue(*s.columns[4].max, DataType::Decimal(23, 5)), "123456789987654321.45678");
}

TEST(ParquetGoldenTest, PrimaryKeyFileLayoutOfPaimon09) {
  // KeyValue layout: _KEY_f0, _KEY_f2, _SEQUENCE_NUMBER, _VALUE_KIND, f0..f3 (no field ids in 0.9).
  auto r = Open(FindFile(Table("pk_09") / "f1=10" / "bucket-0",
                         "data-2b672a79-68bb-447c-8f8d-b4764e29b391-1"));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(*r->schema().columns()[3].type, DataType::TinyInt().NotNull());
  EXPECT_EQ(ReadFormatted(*r, {"_KEY_f0", "_KEY_f2", "_SEQUENCE_NUMBER", "_VALUE_KIND", "f0", "f1",
                               "f2", "f3"}),
            (std::vector<std::string>{
                "Alice, 1, 6, 2, Alice, 10, 1, 21.1",
                "Two roads diverged in a wood, and I took the one less traveled by, And that has "
                "made all the difference., 1, 0, 0, Two roads diverged in a wood, and I took the "
                "one less traveled by, And that has made all the difference., 10, 1, 11.0",
                "Whether I shall turn out to be the hero of my own life., 1, 2, 0, Whether I shall "
                "turn out to be the hero of my own life., 10, 1, 19.1",
            }));
  auto b1 = Open(FindFile(Table("pk_09") / "f1=10" / "bucket-1", "data-6d416200"));
  ASSERT_NE(b1, nullptr);
  EXPECT_EQ(ReadFormatted(*b1, {"f0", "f1", "f2", "f3"}),
            (std::vector<std::string>{"Alex, 10, 0, 16.1", "Bob, 10, 0, 12.1", "David, 10, 0, 17.1",
                                      "Emily, 10, 0, 13.1", "Tony, 10, 0, 14.1"}));
}

TEST(ParquetGoldenTest, Parquet116PrimaryKeyFileWithFieldIds) {
  auto r = Open(
      FindFile(kGolden / "pypaimon" / "default.db" / "test_pk_global_index_golden" / "bucket-0",
               "data-1204a156"));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->schema().columns()[0].name, "_KEY_id");
  EXPECT_EQ(r->schema().columns()[0].field_id, 1073741823);  // Integer.MAX_VALUE / 2 + 0
  EXPECT_EQ(r->schema().columns()[1].field_id, 2147483646);
  EXPECT_EQ(r->schema().columns()[2].field_id, 2147483645);
  EXPECT_EQ(ReadFormatted(*r, {"id", "name", "category"}),
            (std::vector<std::string>{"1, name-1, odd", "2, name-2, even", "3, name-3, odd",
                                      "4, name-4, even"}));
}

TEST(ParquetGoldenTest, ParquetCppWriterDictionaryPages) {
  // paimon-cpp rewrote this table with parquet-cpp-arrow 18 (RLE_DICTIONARY pages).
  auto r =
      Open(FindFile(Table("pk_table_with_mor") / "p0=0" / "p1=0" / "bucket-0", "data-c80ccf0f"));
  ASSERT_NE(r, nullptr);
  EXPECT_NE(r->created_by().find("parquet-cpp-arrow"), std::string::npos);
  EXPECT_EQ(ReadFormatted(*r, {"k0", "k1", "p0", "p1", "s0", "s1", "v0", "v1"}),
            (std::vector<std::string>{
                "0, 0, 0, 0, apple, see, 10.0, true", "0, 1, 0, 0, banana, you, 11.1, false",
                "1, 0, 0, 0, car, later, 12.2, true", "1, 1, 0, 0, driver, !, 13.3, false"}));
}

TEST(ParquetGoldenTest, NestedColumnsDecodeAndAreProjected) {
  auto r = Open(FindFile(Table("append_complex_build_in_fieldid") / "bucket-0", "data-"));
  ASSERT_NE(r, nullptr);
  const FileSchema& s = r->schema();
  ASSERT_EQ(s.columns().size(), 6u);
  EXPECT_TRUE(s.columns()[0].nested);  // MAP<TINYINT, SMALLINT>
  EXPECT_EQ(s.columns()[0].num_leaves, 2);
  EXPECT_TRUE(s.columns()[1].nested);  // ARRAY<FLOAT>
  EXPECT_TRUE(s.columns()[2].nested);  // ROW<f0 BOOLEAN, f1 BIGINT>
  EXPECT_EQ(s.columns()[2].field_id, 2);
  // Synthetic field id of the list element, ids of the struct's fields.
  const LeafColumn& element = s.leaves()[s.columns()[1].first_leaf];
  EXPECT_EQ(element.field_id, 536871936);
  EXPECT_EQ(element.max_rep_level, 1);
  EXPECT_EQ(element.max_def_level, 3);
  EXPECT_EQ(s.leaves()[s.columns()[2].first_leaf + 1].field_id, 4);

  ParquetReadOptions o;
  o.projection = {1};
  EXPECT_TRUE(r->ReadRows(o).ok());  // assembled: see parquet_nested_test.cc
  EXPECT_EQ(ReadFormatted(*r, {"f4", "f5", "f6"}),
            (std::vector<std::string>{"1970-01-01 00:02:03.123123, 1976-09-22, 0.22",
                                      "1970-01-01 00:02:03.123123, 1970-09-03, 0.12",
                                      "1970-01-01 00:00:00, 1970-01-25, null"}));

  // The list leaf: [0.1, 0.2], [1.1, 1.2], [2.2, 3.2] -> rep levels 0,1 per row.
  auto list = r->ReadLeafChunk(0, s.columns()[1].first_leaf);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(list->rep_levels, (std::vector<int16_t>{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(list->def_levels, (std::vector<int16_t>{3, 3, 3, 3, 3, 3}));
  std::vector<double> expected = {0.1f, 0.2f, 1.1f, 1.2f, 2.2f, 3.2f};
  EXPECT_EQ(list->values.doubles, expected);
  // The map keys: {0}, {127, -128}, {1, 2}.
  auto keys = r->ReadLeafChunk(0, s.columns()[0].first_leaf);
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_EQ(keys->values.ints, (std::vector<int64_t>{0, 127, -128, 1, 2}));
  EXPECT_EQ(keys->rep_levels, (std::vector<int16_t>{0, 0, 1, 0, 1}));
}

TEST(ParquetGoldenTest, AllTypesTableWithNestedMapKeys) {
  // Two files: snapshot 1 (6 rows) and snapshot 2 (3 rows); f10 is a MAP with ARRAY keys.
  std::vector<std::string> rows;
  for (const char* suffix : {"-0.parquet", "-1.parquet"}) {
    auto r = Open(FindFile(Table("parquet_append_table") / "bucket-0",
                           std::string("data-9ea62f34-1dca-49c1-bf7a-d37303d8fb76") + suffix));
    ASSERT_NE(r, nullptr);
    for (const std::string& row : ReadFormatted(
             *r, {"f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f11", "f12", "f13"})) {
      rows.push_back(row);
    }
  }
  std::sort(rows.begin(), rows.end(), [](const std::string& a, const std::string& b) {
    return a.substr(a.find(", 30000")) < b.substr(b.find(", 30000"));
  });
  ASSERT_EQ(rows.size(), 9u);
  EXPECT_EQ(rows[0],
            "true, 31, null, 300001, 3000000001, 3.1, 300.000000001, s31, a31, "
            "1970-01-01 00:00:00.000071, 1970-03-23, 0.91");
  EXPECT_EQ(rows[3],
            "false, 34, 304, 300004, 3000000004, 3.4, 300.000000004, s34, a34, "
            "1970-01-01 00:00:00.000074, 1970-03-26, 0.94");
  EXPECT_EQ(rows[8],
            "true, 39, 309, 300009, 3000000009, 3.9, 300.000000009, s39, a39, "
            "1970-01-01 00:00:00.000079, 1970-03-31, 0.99");
}

// Every Parquet file in the golden warehouses opens, every flat column reads, and every nested
// leaf decodes to levels and values.
TEST(ParquetGoldenTest, EveryGoldenFileReads) {
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(kGolden)) {
    if (!e.is_regular_file() || e.path().extension() != ".parquet") continue;
    ++files;
    auto r = Open(e.path());
    ASSERT_NE(r, nullptr);
    std::vector<int> flat;
    for (size_t c = 0; c < r->schema().columns().size(); ++c) {
      if (r->schema().columns()[c].type) flat.push_back(static_cast<int>(c));
    }
    ParquetReadOptions o;
    o.projection = flat;
    if (!flat.empty()) {
      auto rows = r->ReadRows(o);
      EXPECT_TRUE(rows.ok()) << e.path() << ": " << rows.status().ToString();
      if (rows.ok()) {
        EXPECT_EQ(static_cast<int64_t>(rows->size()), r->num_rows()) << e.path();
      }
    }
    for (int g = 0; g < r->num_row_groups(); ++g) {
      for (size_t leaf = 0; leaf < r->schema().leaves().size(); ++leaf) {
        auto chunk = r->ReadLeafChunk(g, static_cast<int>(leaf));
        EXPECT_TRUE(chunk.ok()) << e.path() << " leaf " << leaf << ": "
                                << chunk.status().ToString();
        auto index = r->ReadPageIndex(g, static_cast<int>(leaf));
        EXPECT_TRUE(index.ok()) << e.path() << " leaf " << leaf << ": "
                                << index.status().ToString();
      }
      r->RowGroupStatistics(g);
    }
  }
  EXPECT_GT(files, 100);
}

// parquet-mr writes a CRC-32 in each page header by default: the golden files' first pages
// carry one, and reading them (EveryGoldenFileReads) checks our CRC against that independent
// writer's.
TEST(ParquetGoldenTest, JavaWrittenPagesCarryChecksumsThatVerify) {
  int with_crc = 0;
  for (const auto& e : fs::recursive_directory_iterator(kGolden)) {
    if (!e.is_regular_file() || e.path().extension() != ".parquet") continue;
    std::string bytes = ReadFile(e.path());
    auto r = Open(e.path());
    ASSERT_NE(r, nullptr);
    if (r->num_row_groups() == 0 || r->created_by().find("parquet-mr") == std::string::npos) {
      continue;
    }
    const ColumnMetaData& m = *r->metadata().row_groups[0].columns[0].meta_data;
    const int64_t first = m.dictionary_page_offset ? *m.dictionary_page_offset : m.data_page_offset;
    PageHeader h;
    size_t consumed = 0;
    ASSERT_TRUE(DecodePageHeader(std::string_view(bytes).substr(first), &h, &consumed).ok());
    if (!h.crc) continue;
    ++with_crc;
    // Flipping a byte of that page's body is caught by the checksum.
    bytes[first + consumed] = static_cast<char>(bytes[first + consumed] ^ 0x10);
    auto damaged = ParquetReader::Open(bytes);
    ASSERT_TRUE(damaged.ok());
    auto chunk = (*damaged)->ReadLeafChunk(0, 0);
    ASSERT_FALSE(chunk.ok()) << e.path();
    EXPECT_NE(chunk.status().message().find("checksum"), std::string::npos)
        << chunk.status().ToString();
  }
  EXPECT_GT(with_crc, 10);
}

}  // namespace
}  // namespace tributary::format::parquet
