// COPY's statement forms and its text and CSV rows (server/copy.h), as PostgreSQL writes them.
#include "server/copy.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tributary::server {
namespace {

using Fields = std::vector<std::optional<std::string>>;

std::vector<Fields> Decode(const CopyFormat& format, const std::vector<std::string>& chunks) {
  CopyDecoder d(format);
  std::vector<CopyRow> rows;
  for (const std::string& c : chunks) EXPECT_TRUE(d.Feed(c, &rows).ok());
  EXPECT_TRUE(d.Finish(&rows).ok());
  std::vector<Fields> out;
  for (auto& r : rows) out.push_back(r.fields);
  return out;
}

TEST(CopyTest, ParsesTheStatementsForms) {
  auto a = ParseCopy("COPY db.t (a, b) FROM STDIN WITH (FORMAT csv, HEADER true, DELIMITER ';')");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_TRUE(a->from_stdin);
  EXPECT_EQ(a->table, "db.t");
  EXPECT_EQ(a->columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(a->format.csv);
  EXPECT_TRUE(a->format.header);
  EXPECT_EQ(a->format.delimiter, ';');
  auto b = ParseCopy("copy (SELECT x FROM t WHERE s = ')') to stdout csv header");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_FALSE(b->from_stdin);
  EXPECT_EQ(b->query, "SELECT x FROM t WHERE s = ')'");
  EXPECT_TRUE(b->format.csv);
  auto c = ParseCopy("COPY t FROM STDIN NULL AS 'nil' DELIMITER '|'");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->format.null_text, "nil");
  EXPECT_EQ(c->format.delimiter, '|');
  auto bin = ParseCopy("COPY t FROM STDIN (FORMAT binary)");
  ASSERT_TRUE(bin.ok()) << bin.status().ToString();
  EXPECT_TRUE(bin->format.binary);
  auto old_bin = ParseCopy("COPY t TO STDOUT BINARY");
  ASSERT_TRUE(old_bin.ok()) << old_bin.status().ToString();
  EXPECT_TRUE(old_bin->format.binary);
  EXPECT_FALSE(ParseCopy("COPY t FROM STDIN (FORMAT binary, DELIMITER ';')").ok());
  EXPECT_FALSE(ParseCopy("COPY t FROM STDIN (FORMAT binary, NULL 'x')").ok());
  // PostgreSQL's quoted names ("" a quote in one) become Tributary's; odd ones are refused.
  auto quoted = ParseCopy("COPY \"db\".\"My \"\"T\"\"\" (\"c 1\", `d`, e) FROM STDIN");
  ASSERT_TRUE(quoted.ok()) << quoted.status().ToString();
  EXPECT_EQ(quoted->table, "`db`.`My \"T\"`");
  EXPECT_EQ(quoted->columns, (std::vector<std::string>{"c 1", "d", "e"}));
  EXPECT_FALSE(ParseCopy("COPY \"open FROM STDIN").ok());
  EXPECT_FALSE(ParseCopy("COPY `a\"b FROM STDIN").ok());
  EXPECT_FALSE(ParseCopy("COPY t (\"open) FROM STDIN").ok());
  EXPECT_TRUE(ParseCopy("COPY t FROM '/tmp/x'").status().code() == StatusCode::kNotSupported);
  EXPECT_FALSE(ParseCopy("COPY t FROM STDIN (DELIMITER ';;')").ok());
  EXPECT_FALSE(ParseCopy("COPY t FROM STDIN HEADER").ok());  // HEADER is CSV's
  EXPECT_FALSE(ParseCopy("COPY t INTO STDIN").ok());
}

TEST(CopyTest, TextRowsWithEscapesAndNullsAcrossMessages) {
  CopyFormat text;
  EXPECT_EQ(Decode(text, {"1\ta\\tb\\\\c\\n\t\\N\n2\t\\101", "bc\t\n\\.\nignored\n"}),
            (std::vector<Fields>{{"1", "a\tb\\c\n", std::nullopt}, {"2", "Abc", ""}}));
}

TEST(CopyTest, CsvRecordsWithQuotesNewlinesAndNulls) {
  CopyFormat csv;
  csv.csv = true;
  csv.delimiter = ',';
  csv.null_text = "";
  csv.header = true;
  EXPECT_EQ(Decode(csv, {"id,name\n1,\"a, \"\"b\"\"\n", "c\"\n2,\n3,\"\"\r\n"}),
            (std::vector<Fields>{{"1", "a, \"b\"\nc"}, {"2", std::nullopt}, {"3", ""}}));
  CopyDecoder d(csv);
  std::vector<CopyRow> rows;
  EXPECT_TRUE(d.Feed("h\n1,\"open\n", &rows).ok());
  EXPECT_FALSE(d.Finish(&rows).ok());  // a quoted field that never closes
}

TEST(CopyTest, EncodesRowsTheWayItDecodesThem) {
  CopyFormat text, csv;
  csv.csv = true;
  csv.delimiter = ',';
  csv.null_text = "";
  const Fields row = {"a\tb\\c\nd", std::nullopt, "x,\"y\""};
  EXPECT_EQ(EncodeCopyRow(row, text), "a\\tb\\\\c\\nd\t\\N\tx,\"y\"\n");
  EXPECT_EQ(EncodeCopyRow(row, csv), "\"a\tb\\c\nd\",,\"x,\"\"y\"\"\"\n");
  EXPECT_EQ(Decode(text, {EncodeCopyRow(row, text)}), std::vector<Fields>{row});
  EXPECT_EQ(Decode(csv, {EncodeCopyRow(row, csv)}), std::vector<Fields>{row});
}

// The binary format as PostgreSQL's documentation lays it out: the signature, flags and header
// extension, tuples of a field count and each field's length (-1 NULL) and bytes, the trailer;
// split anywhere across messages.
TEST(CopyTest, BinaryTuplesAcrossMessagesAndTheirEncoding) {
  CopyFormat bin;
  bin.binary = true;
  const Fields a = {std::string("\0\0\0\x07", 4), std::nullopt, std::string("h\0i", 3)};
  const Fields b = {std::string(), std::string("x")};
  std::string data = CopyBinaryHeader();
  data.replace(15, 4, std::string("\0\0\0\x02", 4));  // a header extension of 2 bytes
  data.insert(19, "ee");
  data += EncodeCopyRow(a, bin) + EncodeCopyRow(b, bin) + CopyBinaryTrailer();
  EXPECT_EQ(data.substr(0, 11), std::string("PGCOPY\n\xff\r\n\0", 11));
  for (size_t cut = 1; cut < data.size(); cut += 3) {
    SCOPED_TRACE(cut);
    EXPECT_EQ(Decode(bin, {data.substr(0, cut), data.substr(cut)}), (std::vector<Fields>{a, b}));
  }
  std::vector<CopyRow> rows;
  CopyDecoder cut_short(bin);
  EXPECT_TRUE(cut_short.Feed(data.substr(0, data.size() - 4), &rows).ok());
  EXPECT_FALSE(cut_short.Finish(&rows).ok());  // within a tuple, no trailer
  // (A CopyDone between tuples ends the data without its trailer, as PostgreSQL takes it.)
  EXPECT_EQ(Decode(bin, {data.substr(0, data.size() - 2)}), (std::vector<Fields>{a, b}));
  std::string critical = data;
  critical[12] = '\x02';  // flag bit 17: critical, unknown
  CopyDecoder flagged(bin);
  EXPECT_FALSE(flagged.Feed(critical, &rows).ok());
  std::string huge = CopyBinaryHeader() + std::string("\0\x01\x7f\xff\xff\xff", 6);
  CopyDecoder too_long(bin);
  EXPECT_FALSE(too_long.Feed(huge, &rows).ok());  // a field longer than 1 GB
  CopyDecoder text_sent(bin);
  EXPECT_FALSE(text_sent.Feed("1\ta\n2\tb\n3\tc\n4\td\n", &rows).ok());  // no signature
  CopyDecoder after(bin);
  EXPECT_FALSE(after.Feed(data + "zz", &rows).ok());  // bytes after the trailer
}

}  // namespace
}  // namespace tributary::server
