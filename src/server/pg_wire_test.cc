// The PostgreSQL v3 messages of pg_wire.h, byte for byte as the protocol documents them.
#include "server/pg_wire.h"

#include <gtest/gtest.h>

#include <string>

#include "server/pg_binary.h"

namespace tributary::server::pg {
namespace {

std::string Int32(int32_t v) {
  const uint32_t u = static_cast<uint32_t>(v);
  return std::string{static_cast<char>(u >> 24), static_cast<char>(u >> 16),
                     static_cast<char>(u >> 8), static_cast<char>(u)};
}

TEST(PgWireTest, DecodesAStartupPacketAndItsParameters) {
  std::string body = Int32(196608) + std::string("user\0tributary\0database\0sales\0\0", 31);
  std::string packet = Int32(static_cast<int32_t>(body.size() + 4)) + body;
  auto p = ParseStartup(packet);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->kind, StartupPacket::Kind::kStartup);
  EXPECT_EQ(p->params.at("user"), "tributary");
  EXPECT_EQ(p->params.at("database"), "sales");
}

TEST(PgWireTest, RecognisesEncryptionAndCancelRequests) {
  auto ssl = ParseStartup(Int32(8) + Int32(80877103));
  ASSERT_TRUE(ssl.ok());
  EXPECT_EQ(ssl->kind, StartupPacket::Kind::kSslRequest);
  auto gss = ParseStartup(Int32(8) + Int32(80877104));
  ASSERT_TRUE(gss.ok());
  EXPECT_EQ(gss->kind, StartupPacket::Kind::kGssRequest);
  auto cancel = ParseStartup(Int32(16) + Int32(80877102) + Int32(1) + Int32(2));
  ASSERT_TRUE(cancel.ok());
  EXPECT_EQ(cancel->kind, StartupPacket::Kind::kCancel);
  EXPECT_EQ(cancel->cancel_pid, 1);
  EXPECT_EQ(cancel->cancel_secret, 2);
  // A cancel request is exactly its key.
  EXPECT_FALSE(ParseStartup(Int32(12) + Int32(80877102) + Int32(1)).ok());
}

TEST(PgWireTest, RefusesBadStartupPackets) {
  EXPECT_FALSE(StartupLength(Int32(4)).ok());                 // shorter than its own header
  EXPECT_FALSE(StartupLength(Int32(1 << 30)).ok());           // not a startup packet
  EXPECT_FALSE(ParseStartup(Int32(8) + Int32(131072)).ok());  // protocol 2.0
  std::string body = Int32(196608) + std::string("user\0tributary", 14);  // no terminator
  EXPECT_FALSE(ParseStartup(Int32(static_cast<int32_t>(body.size() + 4)) + body).ok());
  EXPECT_FALSE(MessageLength(std::string("Q") + Int32(2)).ok());
  auto len = MessageLength(std::string("Q") + Int32(9));
  ASSERT_TRUE(len.ok());
  EXPECT_EQ(*len, 10);  // the type byte and the length's 9
}

TEST(PgWireTest, EncodesTheServersMessages) {
  std::string out;
  AppendReadyForQuery('I', &out);
  EXPECT_EQ(out, std::string("Z") + Int32(5) + "I");
  out.clear();
  AppendCommandComplete("SELECT 2", &out);
  EXPECT_EQ(out, std::string("C") + Int32(13) + std::string("SELECT 2\0", 9));
  out.clear();
  AppendDataRow({std::string("1"), std::nullopt}, &out);
  EXPECT_EQ(out, std::string("D") + Int32(4 + 2 + 4 + 1 + 4) + std::string("\0\2", 2) + Int32(1) +
                     "1" + Int32(-1));
  out.clear();
  AppendRowDescription({ColumnOf("id", DataType::BigInt())}, &out);
  EXPECT_EQ(out, std::string("T") + Int32(4 + 2 + 3 + 18) + std::string("\0\1", 2) +
                     std::string("id\0", 3) + Int32(0) + std::string("\0\0", 2) + Int32(20) +
                     std::string("\0\x08", 2) + Int32(-1) + std::string("\0\0", 2));
  out.clear();
  AppendError("42P01", "no such table", &out);
  const std::string fields = std::string("SERROR\0VERROR\0C42P01\0Mno such table\0\0", 37);
  EXPECT_EQ(out, std::string("E") + Int32(static_cast<int32_t>(4 + fields.size())) + fields);
}

TEST(PgWireTest, DecodesTheExtendedProtocolsMessages) {
  auto parse = ParseParse(std::string("s1\0SELECT $1\0", 13) + std::string("\0\1", 2) + Int32(23));
  ASSERT_TRUE(parse.ok()) << parse.status().ToString();
  EXPECT_EQ(parse->statement, "s1");
  EXPECT_EQ(parse->query, "SELECT $1");
  EXPECT_EQ(parse->type_oids, std::vector<int32_t>{23});
  auto bind =
      ParseBind(std::string("p\0s1\0", 5) + std::string("\0\0", 2) + std::string("\0\2", 2) +
                Int32(2) + "42" + Int32(-1) + std::string("\0\0", 2));
  ASSERT_TRUE(bind.ok()) << bind.status().ToString();
  EXPECT_EQ(bind->portal, "p");
  ASSERT_EQ(bind->params.size(), 2u);
  EXPECT_EQ(bind->params[0], std::optional<std::string>("42"));
  EXPECT_EQ(bind->params[1], std::nullopt);
  // A parameter longer than the message, a count that cannot fit: errors, not reads past it.
  EXPECT_FALSE(
      ParseBind(std::string("p\0s1\0", 5) + std::string("\0\0\0\1", 4) + Int32(100) + "x").ok());
  EXPECT_FALSE(ParseParse(std::string("s\0q\0", 4) + std::string("\x7f\xff", 2)).ok());
  auto exec = ParseExecute(std::string("p\0", 2) + Int32(10));
  ASSERT_TRUE(exec.ok());
  EXPECT_EQ(exec->max_rows, 10);
  EXPECT_FALSE(ParseTarget("X\0").ok());
}

TEST(PgWireTest, DollarParametersBecomeMarkersOutsideStringsAndComments) {
  std::vector<int> order;
  int count = 0;
  EXPECT_EQ(DollarParamsToMarkers("SELECT $2, '$1', \"$1\", `$1` -- $1\n/* $1 */ + $1 + $2", &order,
                                  &count),
            "SELECT ?, '$1', \"$1\", `$1` -- $1\n/* $1 */ + ? + ?");
  EXPECT_EQ(order, (std::vector<int>{2, 1, 2}));
  EXPECT_EQ(count, 2);
  EXPECT_EQ(DollarParamsToMarkers("SELECT 'it''s $1'", &order, &count), "SELECT 'it''s $1'");
  EXPECT_TRUE(order.empty());
}

TEST(PgWireTest, ValuesInTheTextFormat) {
  EXPECT_EQ(TextOf(Value::Bool(true), DataType::Boolean()), "t");
  EXPECT_EQ(TextOf(Value::Bool(false), DataType::Boolean()), "f");
  EXPECT_EQ(TextOf(Value::String(std::string("\x01\xff", 2)), DataType::Bytes()), "\\x01ff");
  EXPECT_EQ(TextOf(Value::Int(42), DataType::Int()), "42");
  EXPECT_EQ(TextOf(Value::Null(), DataType::Int()), std::nullopt);
  EXPECT_EQ(ZoneOffsetText(0), "+00");
  EXPECT_EQ(ZoneOffsetText(-8 * 3600), "-08");
  EXPECT_EQ(ZoneOffsetText(5 * 3600 + 1800), "+05:30");
  EXPECT_EQ(ZoneOffsetText(-(9 * 60 + 21)), "-00:09:21");
  EXPECT_EQ(ColumnOf("s", DataType::String()).type_oid, 25);
  EXPECT_EQ(ColumnOf("ts", DataType::TimestampLtz(3)).type_oid, 1184);
}

// Date and timestamp parameters in the text format: a zone after a date or timestamp dropped
// (pgjdbc's setDate), the era read: 1 BC is DATE's year 0000, an earlier one out of DATE's range
// (an error naming the parameter), never a year AD.
TEST(PgWireTest, DateParametersInTheTextFormatKeepTheirEra) {
  auto text = [](const std::string& s, int32_t oid) {
    auto v = ParamValue(s, oid, /*binary=*/false, 1);
    return v.ok() ? (v->is_string() ? v->string_value() : "?") : "error: " + v.status().message();
  };
  EXPECT_EQ(text("2024-01-01 +00", 1082), "2024-01-01");
  EXPECT_EQ(text("2024-01-01 AD", 1082), "2024-01-01");
  EXPECT_EQ(text("0001-03-15 BC", 1082), "0000-03-15");
  EXPECT_EQ(text("0001-03-15 BC +00", 1082), "0000-03-15");
  EXPECT_EQ(text("0001-01-01 10:00:00 bc", 1114), "0000-01-01 10:00:00");
  EXPECT_EQ(text("0000000001-01-01 BC", 1082), "0000-01-01");
  for (const char* bc : {"0044-03-15 BC", "0044-03-15 BC +00", "0002-01-01 00:00:00 BC"}) {
    const std::string got = text(bc, 1082);
    EXPECT_NE(got.find("out of range"), std::string::npos) << bc << ": " << got;
    EXPECT_NE(got.find("$1"), std::string::npos) << got;
  }
  // What an unspecified parameter must be typed for before it is read (a date literal does not
  // take a zone or an era after the date).
  for (const char* yes : {"2024-01-02 +00", "2024-01-01 10:00:03.5+00", "0044-03-15 BC"}) {
    EXPECT_TRUE(IsDateWithSuffix(std::string(yes))) << yes;
  }
  for (const char* no : {"2024-01-02", "2024-01-01 10:00:00", "x2024-01-02 +00", "12", "a b"}) {
    EXPECT_FALSE(IsDateWithSuffix(std::string(no))) << no;
  }
}

}  // namespace
}  // namespace tributary::server::pg
