#include "sql/output.h"

#include <gtest/gtest.h>

namespace tributary::sql {
namespace {

QueryResult Sample() {
  QueryResult r;
  r.fields = {Field{0, "id", DataType::BigInt(), ""}, Field{1, "name", DataType::String(), ""},
              Field{2, "price", DataType::Decimal(10, 2), ""},
              Field{3, "ok", DataType::Boolean(), ""}, Field{4, "d", DataType::Date(), ""}};
  r.rows.push_back({Value::Int(1), Value::String("a,\"b\""), Value::Dec(Decimal{150}),
                    Value::Bool(true), Value::Int(19723)});
  r.rows.push_back({Value::Int(-2), Value::String(""), Value::Null(), Value::Null(), Value::Null()});
  return r;
}

TEST(OutputTest, Json) {
  EXPECT_EQ(FormatResult(Sample(), OutputFormat::kJson),
            "{\"id\": 1, \"name\": \"a,\\\"b\\\"\", \"price\": \"1.50\", \"ok\": true, "
            "\"d\": \"2024-01-01\"}\n"
            "{\"id\": -2, \"name\": \"\", \"price\": null, \"ok\": null, \"d\": null}\n");
}

TEST(OutputTest, JsonStaysValidForBytesThatAreNotUtf8) {
  EXPECT_EQ(JsonValue(Value::String("a\xff\xc3\xa9\xe2\x82"), DataType::String()),
            "\"a\\ufffd\xc3\xa9\\ufffd\\ufffd\"");
}

TEST(OutputTest, CsvQuotesAndNulls) {
  EXPECT_EQ(FormatResult(Sample(), OutputFormat::kCsv),
            "id,name,price,ok,d\r\n"
            "1,\"a,\"\"b\"\"\",1.50,true,2024-01-01\r\n"
            "-2,\"\",,,\r\n");
}

TEST(OutputTest, TableAligns) {
  QueryResult r;
  r.fields = {Field{0, "n", DataType::Int(), ""}, Field{1, "text", DataType::String(), ""}};
  r.rows.push_back({Value::Int(100), Value::String("x")});
  r.rows.push_back({Value::Int(2), Value::Null()});
  EXPECT_EQ(FormatResult(r, OutputFormat::kTable),
            "+-----+------+\n"
            "| n   | text |\n"
            "+-----+------+\n"
            "| 100 | x    |\n"
            "|   2 | NULL |\n"
            "+-----+------+\n");
}

}  // namespace
}  // namespace tributary::sql
