// Schema files with nested types: the JSON forms of Paimon's schema files read and written back
// byte for byte (golden warehouse), and round trips of every nested kind.
#include "meta/schema_manager.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tributary::meta {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const fs::path kGolden = TRIBUTARY_GOLDEN_DIR;

TEST(SchemaJsonTest, GoldenNestedSchemasRoundTripExactly) {
  for (const char* table :
       {"append_complex_build_in_fieldid", "parquet_append_table", "pk_table_nested_type"}) {
    fs::path p = kGolden / "parquet" / (std::string(table) + ".db") / table / "schema" / "schema-0";
    std::string text = ReadFile(p);
    ASSERT_FALSE(text.empty()) << p;
    auto s = SchemaFromJson(text, p.string());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    // Byte for byte up to the options (kept sorted by key, Java keeps insertion order).
    std::string out = SchemaToJson(*s);
    EXPECT_EQ(out.substr(0, out.find("\"options\"")), text.substr(0, text.find("\"options\"")))
        << table;
  }
  fs::path p = kGolden / "parquet" / "append_complex_build_in_fieldid.db" /
               "append_complex_build_in_fieldid" / "schema" / "schema-0";
  auto s = SchemaFromJson(ReadFile(p), "x");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->fields[0].type.ToString(), "MAP<TINYINT, SMALLINT>");
  EXPECT_EQ(s->fields[1].type.ToString(), "ARRAY<FLOAT>");
  ASSERT_EQ(s->fields[2].type.fields().size(), 2u);
  EXPECT_EQ(s->fields[2].type.fields()[0].id, 3);
  EXPECT_EQ(s->fields[2].type.fields()[1].id, 4);
  EXPECT_EQ(s->fields[2].type.fields()[1].type, DataType::BigInt());
}

TEST(SchemaJsonTest, NestedKindsRoundTrip) {
  TableSchema s;
  s.id = 3;
  s.fields.push_back({0, "a", DataType::Array(DataType::Int().NotNull()).NotNull(), ""});
  s.fields.push_back(
      {1, "m", DataType::Map(DataType::String().NotNull(), DataType::Array(DataType::Date())),
       "a map"});
  s.fields.push_back({2, "ms", DataType::Multiset(DataType::String()), ""});
  s.fields.push_back(
      {3, "r",
       DataType::Row({{4, "x", DataType::Int(), "doc"},
                      {5, "y", DataType::Row({{6, "z", DataType::Bytes().NotNull(), ""}}), ""}}),
       ""});
  s.highest_field_id = 6;
  std::string json = SchemaToJson(s);
  EXPECT_NE(json.find("\"type\" : \"ARRAY NOT NULL\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"element\" : \"INT NOT NULL\""), std::string::npos) << json;
  auto back = SchemaFromJson(json, "x");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->fields.size(), s.fields.size());
  for (size_t i = 0; i < s.fields.size(); ++i) EXPECT_EQ(back->fields[i], s.fields[i]) << i;
  EXPECT_EQ(SchemaToJson(*back), json);
}

TEST(SchemaJsonTest, VectorReadsAsArrayAndUnknownTypesAreNotSupported) {
  std::string text = R"({"version":3,"id":0,"fields":[{"id":0,"name":"v","type":
      {"type":"VECTOR","element":"FLOAT","length":4}}],"highestFieldId":0,"partitionKeys":[],
      "primaryKeys":[],"options":{},"timeMillis":0})";
  auto s = SchemaFromJson(text, "schema-0");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->fields[0].type.id, TypeId::kArray);
  EXPECT_EQ(s->fields[0].type.element().id, TypeId::kFloat);
  auto unknown = SchemaFromJson(R"({"version":3,"id":0,"fields":[{"id":0,"name":"v","type":
      {"type":"TENSOR","element":"FLOAT"}}],"options":{}})",
                                "schema-0");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotSupported);
  EXPECT_NE(unknown.status().message().find("TENSOR"), std::string::npos);
  auto bad = SchemaFromJson(R"({"version":3,"id":0,"fields":[{"id":0,"name":"v","type":
      {"type":"ARRAY"}}],"options":{}})",
                            "schema-0");
  EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace tributary::meta
