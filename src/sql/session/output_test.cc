#include "sql/session/output.h"

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
  r.rows.push_back(
      {Value::Int(-2), Value::String(""), Value::Null(), Value::Null(), Value::Null()});
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
  r.rows.push_back({Value::Null(), Value::String("y")});
  // Numbers and a numeric column's NULL to the right, text and its NULL to the left.
  EXPECT_EQ(FormatResult(r, OutputFormat::kTable),
            "+------+------+\n"
            "| n    | text |\n"
            "+------+------+\n"
            "|  100 | x    |\n"
            "|    2 | NULL |\n"
            "| NULL | y    |\n"
            "+------+------+\n");
}

TEST(OutputTest, TableMeasuresWideCharactersByTheirColumns) {
  // CJK characters take two terminal columns each; combining accents none.
  QueryResult r;
  r.fields = {Field{0, "s", DataType::String(), ""}};
  r.rows.push_back({Value::String("\xe4\xb8\xad\xe6\x96\x87")});  // 中文: 4 columns
  r.rows.push_back({Value::String("e\xcc\x81")});                 // é as e + U+0301: 1
  EXPECT_EQ(FormatResult(r, OutputFormat::kTable),
            "+------+\n"
            "| s    |\n"
            "+------+\n"
            "| \xe4\xb8\xad\xe6\x96\x87 |\n"
            "| e\xcc\x81    |\n"
            "+------+\n");
}

TEST(OutputTest, TableShowsEveryFractionDigitOfATimestampsPrecision) {
  QueryResult r;
  r.fields = {Field{0, "t3", DataType::Timestamp(3), ""},
              Field{1, "t0", DataType::Timestamp(0), ""}};
  r.rows.push_back({Value::Ts(Timestamp{500, 0}), Value::Ts(Timestamp{0, 0})});
  r.rows.push_back({Value::Null(), Value::Null()});
  EXPECT_EQ(FormatResult(r, OutputFormat::kTable),
            "+-------------------------+---------------------+\n"
            "| t3                      | t0                  |\n"
            "+-------------------------+---------------------+\n"
            "| 1970-01-01 00:00:00.500 | 1970-01-01 00:00:00 |\n"
            "| NULL                    | NULL                |\n"
            "+-------------------------+---------------------+\n");
  // CSV and JSON keep the shortest form.
  EXPECT_EQ(FormatResult(r, OutputFormat::kCsv),
            "t3,t0\r\n1970-01-01 00:00:00.5,1970-01-01 00:00:00\r\n,\r\n");
}

TEST(OutputTest, TableShowsAtMostMaxRowsAndCountsTheRest) {
  QueryResult r;
  r.fields = {Field{0, "n", DataType::Int(), ""}};
  for (int i = 1; i <= 5; i++) r.rows.push_back({Value::Int(i)});
  std::string out;
  ResultPrinter printer(r.fields, OutputFormat::kTable, [&](std::string_view t) { out += t; });
  printer.set_max_rows(2);
  printer.Add({r.rows[0], r.rows[1], r.rows[2]});
  printer.Add({r.rows[3], r.rows[4]});
  printer.Finish();
  EXPECT_EQ(printer.rows(), 5);
  EXPECT_EQ(out,
            "+---+\n"
            "| n |\n"
            "+---+\n"
            "| 1 |\n"
            "| 2 |\n"
            "+---+\n"
            "3 more rows not shown ('sql-client.display.max-rows' = 2)\n");
}

// The shell's default cut (the terminal's height) says so, and how to print more.
TEST(OutputTest, TerminalCutSaysHowToPrintMore) {
  std::string out;
  ResultPrinter printer({Field{0, "n", DataType::BigInt(), ""}}, OutputFormat::kTable,
                        [&](std::string_view s) { out += s; });
  printer.set_max_rows(1);
  printer.set_rows_cut_by_terminal(true);
  printer.Add({Row{Value::Int(1)}, Row{Value::Int(2)}});
  printer.Finish();
  EXPECT_NE(out.find("1 more row not shown (the first 1 fit the terminal; SET "
                     "'sql-client.display.max-rows' = 'n' to print n)"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace tributary::sql
