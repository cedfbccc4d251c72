#include "cli/debezium.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/datetime.h"

namespace tributary::cli {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

std::vector<Field> OrdersFields() {
  return {
      {0, "id", DataType::BigInt().NotNull(), ""}, {1, "name", DataType::String(), ""},
      {2, "price", DataType::Decimal(10, 2), ""},  {3, "qty", DataType::Int(), ""},
      {4, "ok", DataType::Boolean(), ""},          {5, "day", DataType::Date(), ""},
      {6, "ts", DataType::Timestamp(6), ""},
  };
}

Value V(const std::string& json, const DataType& t, const ColumnEncoding& enc = {}) {
  auto r = JsonToValue(Json::parse(json), t, enc);
  EXPECT_TRUE(r.ok()) << json << ": " << r.status().ToString();
  return r.ok() ? *r : Value::Null();
}

std::string Err(const std::string& json, const DataType& t, const ColumnEncoding& enc = {}) {
  auto r = JsonToValue(Json::parse(json), t, enc);
  EXPECT_FALSE(r.ok()) << json;
  return r.ok() ? "" : r.status().message();
}

int64_t Days(const char* date) { return *ParseDate(date); }

TEST(JsonToValueTest, Integers) {
  EXPECT_EQ(V("42", DataType::BigInt()), Value::Int(42));
  EXPECT_EQ(V("-7", DataType::Int()), Value::Int(-7));
  EXPECT_EQ(V("\"15\"", DataType::Int()), Value::Int(15));
  EXPECT_EQ(V("3.0", DataType::Int()), Value::Int(3));
  EXPECT_EQ(V("9223372036854775807", DataType::BigInt()), Value::Int(INT64_MAX));
  EXPECT_THAT(Err("128", DataType::TinyInt()), HasSubstr("out of range for TINYINT"));
  EXPECT_THAT(Err("40000", DataType::SmallInt()), HasSubstr("out of range"));
  EXPECT_THAT(Err("3000000000", DataType::Int()), HasSubstr("out of range"));
  EXPECT_THAT(Err("18446744073709551615", DataType::BigInt()), HasSubstr("out of range"));
  EXPECT_THAT(Err("1.5", DataType::Int()), HasSubstr("expected an integer, got 1.5"));
  EXPECT_THAT(Err("\"abc\"", DataType::Int()), HasSubstr("expected an integer"));
  EXPECT_THAT(Err("true", DataType::Int()), HasSubstr("expected an integer"));
}

TEST(JsonToValueTest, NullsBooleansFloats) {
  EXPECT_TRUE(V("null", DataType::Int()).is_null());
  EXPECT_EQ(V("true", DataType::Boolean()), Value::Bool(true));
  EXPECT_EQ(V("0", DataType::Boolean()), Value::Bool(false));  // MySQL TINYINT(1)
  EXPECT_EQ(V("\"FALSE\"", DataType::Boolean()), Value::Bool(false));
  EXPECT_THAT(Err("2", DataType::Boolean()), HasSubstr("expected a boolean"));
  EXPECT_EQ(V("1.25", DataType::Double()), Value::Double(1.25));
  EXPECT_EQ(V("3", DataType::Double()), Value::Double(3.0));
  EXPECT_EQ(V("0.1", DataType::Float()), Value::Double(static_cast<float>(0.1)));
  EXPECT_EQ(V("\"2.5\"", DataType::Double()), Value::Double(2.5));
  EXPECT_THAT(Err("\"x\"", DataType::Double()), HasSubstr("expected a number"));
}

TEST(JsonToValueTest, Strings) {
  EXPECT_EQ(V("\"héllo\"", DataType::String()), Value::String("héllo"));
  EXPECT_EQ(V("12", DataType::String()), Value::String("12"));
  EXPECT_EQ(V("{\"a\":1}", DataType::String()), Value::String("{\"a\":1}"));
  EXPECT_EQ(V("\"AAEC/w==\"", DataType::Bytes()),
            Value::String(std::string("\x00\x01\x02\xff", 4)));
  EXPECT_THAT(Err("\"*\"", DataType::Bytes()), HasSubstr("base64"));
}

TEST(JsonToValueTest, Decimals) {
  const DataType t = DataType::Decimal(10, 2);
  EXPECT_EQ(V("\"12.34\"", t), Value::Dec({1234}));
  EXPECT_EQ(V("12.34", t), Value::Dec({1234}));
  EXPECT_EQ(V("7", t), Value::Dec({700}));
  EXPECT_EQ(V("-0.5", t), Value::Dec({-50}));
  EXPECT_EQ(V("1e3", t), Value::Dec({100000}));
  // Kafka Connect Decimal: base64 of the big-endian unscaled value (1234 = 0x04D2), scale 2.
  ColumnEncoding dec{"org.apache.kafka.connect.data.Decimal", 2};
  EXPECT_EQ(V("\"BNI=\"", t, dec), Value::Dec({1234}));
  EXPECT_EQ(V("\"/w==\"", t, dec), Value::Dec({-1}));  // 0xFF = -1 -> -0.01
  // Debezium VariableScaleDecimal.
  EXPECT_EQ(V("{\"scale\":1,\"value\":\"BNI=\"}", t), Value::Dec({12340}));
  EXPECT_THAT(Err("\"abc\"", t), HasSubstr("invalid DECIMAL"));
  EXPECT_THAT(Err("\"123456789.5\"", t), HasSubstr("does not fit"));
}

TEST(JsonToValueTest, DatesAndTimes) {
  EXPECT_EQ(V("19723", DataType::Date()), Value::Int(19723));
  EXPECT_EQ(V("\"2024-01-01\"", DataType::Date()), Value::Int(Days("2024-01-01")));
  EXPECT_THAT(Err("\"01/02/2024\"", DataType::Date()), HasSubstr("01/02/2024"));
  EXPECT_EQ(V("\"10:30:00\"", DataType::Time()), Value::Int(37800000));
  EXPECT_EQ(V("37800000", DataType::Time()), Value::Int(37800000));
  EXPECT_EQ(V("37800000000", DataType::Time()), Value::Int(37800000));  // micros
  EXPECT_EQ(V("1000", DataType::Time(), {"io.debezium.time.MicroTime", -1}), Value::Int(1));
}

TEST(JsonToValueTest, Timestamps) {
  const DataType ts6 = DataType::Timestamp(6);
  const int64_t base = Days("2024-01-01") * 86400000LL;                    // 1704067200000
  EXPECT_EQ(V("1704067200123", ts6), Value::Ts({base + 123, 0}));          // millis
  EXPECT_EQ(V("1704067200123456", ts6), Value::Ts({base + 123, 456000}));  // micros
  EXPECT_EQ(V("1704067200123456789", DataType::Timestamp(9)),
            Value::Ts({base + 123, 456789}));                                 // nanos
  EXPECT_EQ(V("1704067200123456789", ts6), Value::Ts({base + 123, 456000}));  // truncated
  EXPECT_EQ(V("1704067200123", DataType::Timestamp(0)), Value::Ts({base, 0}));
  // The schema's semantic name beats the magnitude guess.
  EXPECT_EQ(V("5000", ts6, {"io.debezium.time.MicroTimestamp", -1}), Value::Ts({5, 0}));
  EXPECT_EQ(V("-1", ts6, {"io.debezium.time.MicroTimestamp", -1}), Value::Ts({-1, 999000}));
  EXPECT_EQ(V("\"2024-01-01 00:00:00.5\"", ts6), Value::Ts({base + 500, 0}));
  EXPECT_EQ(V("\"2024-01-01T00:00:00Z\"", ts6), Value::Ts({base, 0}));
  EXPECT_EQ(V("\"2024-01-01T08:00:00+08:00\"", DataType::TimestampLtz(3)), Value::Ts({base, 0}));
  EXPECT_EQ(V("\"2023-12-31T19:00:00-0500\"", ts6), Value::Ts({base, 0}));
  EXPECT_THAT(Err("\"soon\"", ts6), HasSubstr("soon"));
  EXPECT_THAT(Err("true", ts6), HasSubstr("expected a timestamp"));
}

// Years 0000-9999 (datetime.h): the ends are read, a value outside is an error naming it.
TEST(JsonToValueTest, DatesAndTimestampsOutsideTheRange) {
  EXPECT_EQ(V("-719528", DataType::Date()), Value::Int(kMinDate));
  EXPECT_EQ(V("2932896", DataType::Date()), Value::Int(kMaxDate));
  EXPECT_EQ(V("\"9999-12-31\"", DataType::Date()), Value::Int(kMaxDate));
  // 4294967297 days would be stored as 32 bits: 1970-01-02.
  EXPECT_EQ(Err("4294967297", DataType::Date()),
            "date 4294967297 (days since 1970-01-01) is out of range (0000-01-01 to 9999-12-31)");
  EXPECT_THAT(Err("-719529", DataType::Date()), HasSubstr("out of range"));
  EXPECT_THAT(Err("\"99999999-01-01\"", DataType::Date()),
              HasSubstr("date '99999999-01-01' is out of range"));
  const DataType ts6 = DataType::Timestamp(6);
  const ColumnEncoding millis{"io.debezium.time.Timestamp", -1};
  const ColumnEncoding micros{"io.debezium.time.MicroTimestamp", -1};
  const ColumnEncoding nanos{"io.debezium.time.NanoTimestamp", -1};
  EXPECT_EQ(V("253402300799999", ts6, millis), Value::Ts({kMaxTimestampMillis, 0}));
  EXPECT_EQ(V("253402300799999999", ts6, micros), Value::Ts({kMaxTimestampMillis, 999000}));
  EXPECT_EQ(V("-62167219200000000", ts6, micros), Value::Ts({kMinTimestampMillis, 0}));
  EXPECT_EQ(Err("253402300800000", ts6, millis),
            "timestamp 253402300800000 (milliseconds since 1970-01-01) is out of range "
            "(0000-01-01 00:00:00 to 9999-12-31 23:59:59.999999999)");
  EXPECT_THAT(Err("9223372036854775807", ts6, micros),
              HasSubstr("timestamp 9223372036854775807 (microseconds since 1970-01-01) is out"));
  EXPECT_THAT(Err("-62167219200000001", ts6, micros), HasSubstr("out of range"));
  // Nanoseconds reach only 1677-2262: always in range.
  EXPECT_TRUE(V("-9223372036854775807", DataType::Timestamp(9), nanos).is_timestamp());
  EXPECT_THAT(Err("\"10000-01-01T00:00:00Z\"", ts6), HasSubstr("out of range"));
  // In range as written, outside it once the offset makes it UTC.
  EXPECT_THAT(Err("\"9999-12-31T23:00:00-05:00\"", DataType::TimestampLtz(3)),
              HasSubstr("(10000-01-01 04:00:00 UTC) is out of range"));
  EXPECT_EQ(V("\"9999-12-31T23:00:00+05:00\"", DataType::TimestampLtz(3)),
            Value::Ts({kMaxTimestampMillis - 5 * 3600000 - 3599999, 0}));
}

std::vector<RowChange> Decode(const std::string& line) {
  DebeziumDecoder d(OrdersFields());
  std::vector<RowChange> out;
  Status st = d.Decode(line, &out);
  EXPECT_TRUE(st.ok()) << line << ": " << st.ToString();
  return out;
}

std::string DecodeError(const std::string& line, bool strict = true) {
  DebeziumDecoder d(OrdersFields(), strict);
  std::vector<RowChange> out;
  Status st = d.Decode(line, &out);
  EXPECT_FALSE(st.ok()) << line;
  EXPECT_TRUE(out.empty());
  return st.message();
}

TEST(DebeziumDecoderTest, CreateAndSnapshotReadAreInserts) {
  for (const char* op : {"c", "r"}) {
    auto out = Decode(std::string(R"({"before":null,"after":{"id":1,"name":"apple"},"op":")") + op +
                      R"(","ts_ms":1})");
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].kind, RowKind::kInsert);
    ASSERT_EQ(out[0].row.size(), 7u);
    EXPECT_EQ(out[0].row[0], Value::Int(1));
    EXPECT_EQ(out[0].row[1], Value::String("apple"));
    for (int i = 2; i < 7; ++i) EXPECT_TRUE(out[0].row[i].is_null()) << i;  // missing -> NULL
  }
}

TEST(DebeziumDecoderTest, UpdateIsBeforeAndAfter) {
  auto out = Decode(
      R"({"before":{"id":1,"price":"2.00"},"after":{"id":1,"price":"4.50","ok":true},"op":"u"})");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].kind, RowKind::kUpdateBefore);
  EXPECT_EQ(out[0].row[2], Value::Dec({200}));
  EXPECT_EQ(out[1].kind, RowKind::kUpdateAfter);
  EXPECT_EQ(out[1].row[2], Value::Dec({450}));
  EXPECT_EQ(out[1].row[4], Value::Bool(true));
  // Without a before image (PostgreSQL REPLICA IDENTITY DEFAULT): only the after image.
  out = Decode(R"({"before":null,"after":{"id":1},"op":"u"})");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, RowKind::kUpdateAfter);
}

TEST(DebeziumDecoderTest, DeleteUsesBefore) {
  auto out = Decode(R"({"before":{"id":3,"day":"2024-01-01"},"after":null,"op":"d"})");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, RowKind::kDelete);
  EXPECT_EQ(out[0].row[0], Value::Int(3));
  EXPECT_EQ(out[0].row[5], Value::Int(Days("2024-01-01")));
}

TEST(DebeziumDecoderTest, PayloadEnvelopes) {
  auto out = Decode(R"({"payload":{"before":null,"after":{"id":5},"op":"c"}})");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].row[0], Value::Int(5));
  // With a Kafka Connect schema: its semantic names decide how numbers are read.
  out = Decode(R"({"schema":{"type":"struct","fields":[
      {"type":"struct","field":"before","optional":true,"fields":[]},
      {"type":"struct","field":"after","optional":true,"fields":[
        {"type":"int64","optional":false,"field":"id"},
        {"type":"int64","optional":true,"name":"io.debezium.time.MicroTimestamp","field":"ts"},
        {"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal",
         "parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"price"},
        {"type":"int32","optional":true,"name":"io.debezium.time.Date","field":"day"}]},
      {"type":"string","optional":false,"field":"op"}]},
    "payload":{"before":null,"after":{"id":6,"ts":5000,"price":"BNI=","day":1},"op":"r"}})");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].row[0], Value::Int(6));
  EXPECT_EQ(out[0].row[6], Value::Ts({5, 0}));
  EXPECT_EQ(out[0].row[2], Value::Dec({1234}));
  EXPECT_EQ(out[0].row[5], Value::Int(1));
}

TEST(DebeziumDecoderTest, BlankLinesAndTombstonesYieldNothing) {
  EXPECT_TRUE(Decode("").empty());
  EXPECT_TRUE(Decode("   \r").empty());
  EXPECT_TRUE(Decode("null").empty());
  EXPECT_TRUE(Decode(R"({"schema":null,"payload":null})").empty());
}

TEST(DebeziumDecoderTest, CaseInsensitiveColumnMatch) {
  auto out = Decode(R"({"after":{"ID":9,"Name":"x"},"op":"c"})");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].row[0], Value::Int(9));
  EXPECT_EQ(out[0].row[1], Value::String("x"));
}

TEST(DebeziumDecoderTest, FieldsTheTableLacksAreIgnoredUnlessStrict) {
  // As Flink's debezium-json: the table declares what it reads.
  auto out = Decode(R"({"after":{"id":1,"name":"x","colour":"red"},"op":"c"})");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].row[1], Value::String("x"));
}

TEST(DebeziumDecoderTest, Errors) {
  EXPECT_THAT(DecodeError("{\"op\":"), HasSubstr("not valid JSON at column 7: syntax error"));
  EXPECT_THAT(DecodeError(R"({"op":"c","after":{"id":1},})"),
              HasSubstr("not valid JSON at column 28: syntax error while parsing object key"));
  EXPECT_THAT(DecodeError(R"({"op":"c"} x)"), HasSubstr("not valid JSON at column 12"));
  EXPECT_THAT(DecodeError("[1,2]"), HasSubstr("expected a JSON object"));
  EXPECT_THAT(DecodeError(R"({"after":{"id":1}})"), HasSubstr("missing 'op'"));
  EXPECT_EQ(DecodeError(R"({"after":{"id":1},"op":"x"})"),
            "unknown op 'x' (expected c, r, u or d)");
  EXPECT_THAT(DecodeError(R"({"op":"t"})"), HasSubstr("truncate"));
  EXPECT_EQ(DecodeError(R"({"after":{"id":1,"colour":"red"},"op":"c"})"),
            "unknown column 'colour' in 'after' (the table has no such column)");
  EXPECT_EQ(DecodeError(R"({"after":{"id":1,"nam":"x"},"op":"c"})"),
            "unknown column 'nam' in 'after'; did you mean 'name'?");
  EXPECT_EQ(DecodeError(R"({"after":{"id":"one"},"op":"c"})"),
            "column 'id' (BIGINT NOT NULL): expected an integer, got \"one\"");
  EXPECT_EQ(DecodeError(R"({"after":{"name":"x"},"op":"c"})"),
            "column 'id' is NOT NULL but 'after' has no value for it");
  EXPECT_EQ(DecodeError(R"({"before":null,"after":null,"op":"d"})"), "op 'd' without 'before'");
  EXPECT_EQ(DecodeError(R"({"before":null,"op":"c"})"), "op 'c' without 'after'");
  EXPECT_THAT(DecodeError(R"({"after":[1],"op":"c"})"), HasSubstr("'after' must be an object"));
  // An update whose after image is bad produces neither half.
  EXPECT_THAT(DecodeError(R"({"before":{"id":1},"after":{"id":1,"qty":"many"},"op":"u"})"),
              HasSubstr("column 'qty'"));
}

}  // namespace
}  // namespace tributary::cli
