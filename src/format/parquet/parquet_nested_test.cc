// Nested columns (ARRAY, MAP, MULTISET, ROW): the golden files Java Paimon wrote (rows the
// golden README lists), the schema elements and synthetic field ids Paimon writes, and
// writer -> reader round trips of random nested values over every page layout.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "format/golden_test_util.h"
#include "format/parquet/parquet_test_util.h"
#include "format/parquet/reader.h"
#include "format/parquet/writer.h"

namespace tributary::format::parquet {
namespace {

namespace fs = std::filesystem;

using tributary::testing::kGolden;
std::string ReadFile(const fs::path& path) { return tributary::testing::ReadGoldenFile(path); }

std::vector<fs::path> Files(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".parquet") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::unique_ptr<ParquetReader> Open(std::string bytes) {
  auto r = ParquetReader::Open(std::move(bytes));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : nullptr;
}

// Rows of the named columns printed with FormatValue, ", "-separated.
std::vector<std::string> Formatted(const ParquetReader& r, const std::vector<std::string>& names) {
  std::vector<int> projection;
  for (const std::string& n : names) projection.push_back(r.schema().FindColumn(n));
  ParquetReadOptions o;
  o.projection = projection;
  auto rows = r.ReadRows(o);
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  std::vector<std::string> out;
  if (!rows.ok()) return out;
  for (const Row& row : *rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      std::optional<DataType> t = r.ColumnType(projection[i]);
      EXPECT_TRUE(t.has_value());
      if (i > 0) line += " | ";
      line += FormatValue(row[i], t ? *t : DataType::String());
    }
    out.push_back(line);
  }
  return out;
}

fs::path Table(const std::string& name) { return kGolden / "parquet" / (name + ".db") / name; }

TEST(ParquetNestedGoldenTest, AppendComplexBuildInFieldId) {
  auto files = Files(Table("append_complex_build_in_fieldid") / "bucket-0");
  ASSERT_EQ(files.size(), 1u);
  auto r = Open(ReadFile(files[0]));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->ColumnType(0)->ToString(), "MAP<TINYINT NOT NULL, SMALLINT>");
  EXPECT_EQ(r->ColumnType(1)->ToString(), "ARRAY<FLOAT>");
  EXPECT_EQ(r->ColumnType(2)->ToString(), "ROW<f0 BOOLEAN, f1 BIGINT>");
  EXPECT_EQ(r->ColumnType(2)->fields()[0].id, 3);
  EXPECT_EQ(r->ColumnType(2)->fields()[1].id, 4);
  EXPECT_EQ(Formatted(*r, {"f1", "f2", "f3", "f6"}),
            (std::vector<std::string>{
                "{0=0} | [0.1, 0.2] | (true, 2) | 0.22",
                "{127=32767, -128=-32768} | [1.1, 1.2] | (false, 2222) | 0.12",
                "{1=64, 2=32} | [2.2, 3.2] | (true, 2) | NULL",
            }));
}

TEST(ParquetNestedGoldenTest, MapWithArrayKeysAndRowValues) {
  // parquet_append_table: f10 MAP<ARRAY<FLOAT>, ROW<f0 BOOLEAN, f1 BIGINT>> (ORC manifests, so
  // only its data files are read here).
  auto files = Files(Table("parquet_append_table") / "bucket-0");
  ASSERT_EQ(files.size(), 2u);
  std::vector<std::string> all;
  for (const auto& f : files) {
    auto r = Open(ReadFile(f));
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->ColumnType(9)->ToString(),
              "MAP<ARRAY<FLOAT> NOT NULL, ROW<f0 BOOLEAN, f1 BIGINT>>");
    for (auto& line : Formatted(*r, {"f4", "f10"})) all.push_back(line);
  }
  EXPECT_EQ(all, (std::vector<std::string>{
                     "300001 | {[5.11, 5.21]=(true, 61)}",
                     "300002 | {[5.12, 5.22]=(false, 62)}",
                     "300003 | NULL",
                     "300004 | {[5.141, 5.241]=(false, 641), [5.14, 5.24]=(false, 64)}",
                     "300005 | {[5.15, 5.25]=(true, 65)}",
                     "300006 | {[5.16, 5.26]=NULL}",
                     "300007 | {[5.17, 5.27, 5.37]=(true, 67)}",
                     "300008 | {[5.18, 5.28]=(false, 68)}",
                     "300009 | {[5.19, 5.29]=(true, 69)}",
                 }));
}

TEST(ParquetNestedGoldenTest, PrimaryKeyTableNestedType) {
  // pk_table_nested_type snapshot 1: row i = (1000+i, ..., row(str-i, 100i, [i, null, i+1]),
  // map{i -> i, 100+i -> 100+i}) across the two buckets' first files.
  fs::path dir = Table("pk_table_nested_type") / "dt=2025-04-14" / "hr=10";
  std::vector<std::string> all;
  for (const char* bucket : {"bucket-0", "bucket-1"}) {
    for (const auto& f : Files(dir / bucket)) {
      if (f.filename().string().find("-0.parquet") == std::string::npos) continue;
      auto r = Open(ReadFile(f));
      ASSERT_NE(r, nullptr);
      EXPECT_EQ(r->ColumnType(7)->ToString(), "ROW<f0 STRING, f1 INT, f2 ARRAY<INT>>");
      for (auto& line : Formatted(*r, {"shopId", "col1", "col2"})) all.push_back(line);
    }
  }
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    std::string want = std::to_string(1000 + i) + " | (str-" + std::to_string(i) + ", " +
                       std::to_string(100 * i) + ", [" + std::to_string(i) + ", NULL, " +
                       std::to_string(i + 1) + "]) | {" + std::to_string(i) + "=" +
                       std::to_string(i) + ", " + std::to_string(100 + i) + "=" +
                       std::to_string(100 + i) + "}";
    EXPECT_EQ(all[i], want);
  }
}

TEST(ParquetNestedGoldenTest, PypaimonVectorIsAListOfFloat) {
  fs::path dir = kGolden / "pypaimon" / "default.db" / "test_pk_vector_golden" / "bucket-0";
  std::vector<std::string> all;
  for (const auto& f : Files(dir)) {
    auto r = Open(ReadFile(f));
    ASSERT_NE(r, nullptr);
    for (auto& line : Formatted(*r, {"id", "embedding"})) all.push_back(line);
  }
  std::sort(all.begin(), all.end());
  // Snapshot 1's level-0 file and snapshot 2's compacted file hold the same four rows.
  ASSERT_EQ(all.size(), 8u);
  EXPECT_EQ(all[0], "1 | [1.0, 0.0, 0.0, 0.0]");
  EXPECT_EQ(all[2], "2 | [0.9, 0.1, 0.0, 0.0]");
  EXPECT_EQ(all[6], "4 | [0.0, 0.0, 1.0, 0.0]");
}

// The schema elements we write for the columns of append_complex_build_in_fieldid are the ones
// Java Paimon wrote (names, repetitions, annotations, synthetic field ids).
TEST(ParquetNestedWriterTest, SchemaAsPaimonWritesIt) {
  auto files = Files(Table("append_complex_build_in_fieldid") / "bucket-0");
  ASSERT_EQ(files.size(), 1u);
  auto golden = Open(ReadFile(files[0]));
  ASSERT_NE(golden, nullptr);
  std::vector<Field> schema = {
      {0, "f1", DataType::Map(DataType::TinyInt(), DataType::SmallInt()), ""},
      {1, "f2", DataType::Array(DataType::Float()), ""},
      {2, "f3",
       DataType::Row({{3, "f0", DataType::Boolean(), ""}, {4, "f1", DataType::BigInt(), ""}}), ""},
  };
  auto w = ParquetWriter::Make(schema);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->Finish().ok());
  // Re-create to read back the written footer.
  auto w2 = ParquetWriter::Make(schema);
  ASSERT_TRUE(w2.ok());
  auto bytes = (*w2)->Finish();
  ASSERT_TRUE(bytes.ok());
  auto mine = Open(*bytes);
  ASSERT_NE(mine, nullptr);
  const auto& want = golden->metadata().schema;
  const auto& got = mine->metadata().schema;
  ASSERT_GE(want.size(), 11u);
  ASSERT_EQ(got.size(), 11u);
  for (size_t i = 1; i < got.size(); ++i) {
    EXPECT_EQ(got[i].name, want[i].name) << i;
    EXPECT_EQ(got[i].field_id, want[i].field_id) << i;
    EXPECT_EQ(got[i].repetition_type, want[i].repetition_type) << i;
    EXPECT_EQ(got[i].num_children, want[i].num_children) << i;
    EXPECT_EQ(got[i].converted_type, want[i].converted_type) << i;
    EXPECT_EQ(got[i].type, want[i].type) << i;
  }
}

std::vector<Field> NestedSchema() {
  std::vector<Field> f;
  int id = 0;
  auto add = [&](const std::string& name, DataType t) { f.push_back({id++, name, t, ""}); };
  add("id", DataType::BigInt().NotNull());
  add("ints", DataType::Array(DataType::Int()));
  add("strs", DataType::Array(DataType::String().NotNull()).NotNull());
  add("tags", DataType::Map(DataType::String(), DataType::BigInt()));
  add("dec", DataType::Map(DataType::Int(), DataType::Decimal(25, 3)));
  add("nested", DataType::Array(DataType::Array(DataType::Timestamp(9))));
  add("bag", DataType::Multiset(DataType::String()));
  add("rec", DataType::Row({{100, "a", DataType::Int(), ""},
                            {101, "b", DataType::Array(DataType::String()), ""},
                            {102, "c", DataType::Map(DataType::Date(), DataType::Bytes()), ""},
                            {103, "d", DataType::Row({{104, "x", DataType::Double(), ""}}), ""}}));
  add("recs", DataType::Array(DataType::Row({{105, "k", DataType::String().NotNull(), ""},
                                             {106, "v", DataType::Float(), ""}})));
  add("flat", DataType::String());
  return f;
}

class ParquetNestedRoundTripTest
    : public ::testing::TestWithParam<std::tuple<bool /*dictionary*/, int /*page version*/>> {};

TEST_P(ParquetNestedRoundTripTest, RandomValues) {
  auto [dictionary, version] = GetParam();
  ParquetWriterOptions o;
  o.dictionary = dictionary;
  o.data_page_version = version;
  o.page_size = 1024;
  o.page_row_limit = 50;
  o.row_group_size = 8 * 1024;
  std::vector<Field> schema = NestedSchema();
  std::vector<Row> rows = testing::RandomRows(schema, 700, 7, dictionary ? 20 : 0);
  // Edge cases: empty containers, null elements, null rows.
  rows[1][1] = Value::Array({});
  rows[1][2] = Value::Array({});
  rows[2][1] = Value::Array({Value::Null(), Value::Null()});
  rows[3][5] = Value::Array({Value::Array({}), Value::Null(), Value::Array({Value::Null()})});
  rows[4][7] = Value::Struct({Value::Null(), Value::Null(), Value::Null(), Value::Null()});
  rows[5][8] = Value::Array({Value::Null()});
  auto w = ParquetWriter::Make(schema, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (const Row& r : rows) ASSERT_TRUE((*w)->Append(r).ok()) << (*w)->Append(r).ToString();
  auto file = (*w)->Finish();
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  auto r = Open(*file);
  ASSERT_NE(r, nullptr);
  EXPECT_GT(r->num_row_groups(), 1);
  auto back = r->ReadRows();
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t c = 0; c < schema.size(); ++c) {
      ASSERT_EQ((*back)[i][c], rows[i][c])
          << "row " << i << " column " << schema[c].name << ": " << DebugString((*back)[i][c])
          << " vs " << DebugString(rows[i][c]);
    }
  }
  // Projection of one nested column alone.
  ParquetReadOptions p;
  p.projection = {7};
  auto only = r->ReadRows(p);
  ASSERT_TRUE(only.ok());
  EXPECT_EQ((*only)[4][0], rows[4][7]);
}

INSTANTIATE_TEST_SUITE_P(Layouts, ParquetNestedRoundTripTest,
                         ::testing::Combine(::testing::Bool(), ::testing::Values(1, 2)));

TEST(ParquetNestedWriterTest, RejectsBadNestedValues) {
  std::vector<Field> schema = {
      {0, "a", DataType::Array(DataType::Int().NotNull()), ""},
      {1, "r", DataType::Row({{2, "x", DataType::Int().NotNull(), ""}}).NotNull(), ""},
  };
  auto w = ParquetWriter::Make(schema);
  ASSERT_TRUE(w.ok());
  Value ok_row = Value::Struct({Value::Int(1)});
  EXPECT_FALSE((*w)->Append({Value::Array({Value::Null()}), ok_row}).ok());  // NOT NULL element
  EXPECT_FALSE((*w)->Append({Value::Array({Value::Int(1)}), Value::Null()}).ok());
  EXPECT_FALSE((*w)->Append({Value::Int(3), ok_row}).ok());                       // not an array
  EXPECT_FALSE((*w)->Append({Value::Array({Value::String("x")}), ok_row}).ok());  // bad element
  EXPECT_FALSE((*w)->Append({Value::Null(), Value::Struct({})}).ok());            // arity
  ASSERT_TRUE((*w)->Append({Value::Array({Value::Int(7)}), ok_row}).ok());
  EXPECT_EQ((*w)->num_rows(), 1);
  auto file = (*w)->Finish();
  ASSERT_TRUE(file.ok());
  auto r = Open(*file);
  auto rows = r->ReadRows();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0][0], Value::Array({Value::Int(7)}));
  EXPECT_EQ((*rows)[0][1], ok_row);
}

}  // namespace
}  // namespace tributary::format::parquet
