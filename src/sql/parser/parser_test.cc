#include "sql/parser/parser.h"

#include <gtest/gtest.h>

#include "sql/parser/lexer.h"

namespace tributary::sql {
namespace {

TEST(LexerTest, SplitsOnSemicolonsOutsideStringsAndComments) {
  auto r = SplitStatements("SELECT 'a;b'; -- c;d\nSELECT `x;y` /* ; */ FROM t;\n  ;  ");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].text, "SELECT 'a;b'");
  EXPECT_EQ((*r)[1].start.line, 1);
  EXPECT_EQ((*r)[1].start.column, 14);
}

TEST(LexerTest, KeepsAStatementSetTogether) {
  // Its INSERTs end with ';' too; the set ends at an END that closes no CASE.
  const char* script =
      "EXECUTE STATEMENT SET BEGIN\n"
      "INSERT INTO a SELECT CASE WHEN x THEN 1 END FROM t;\n"
      "INSERT INTO b VALUES ('end;');\n"
      "END;\n"
      "SELECT 1; select case when 1 then 2 end;";
  auto r = SplitStatements(script);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].text.substr((*r)[0].text.size() - 3), "END");
  EXPECT_EQ((*r)[1].text, "\nSELECT 1");
  EXPECT_FALSE(EndsWithTerminator("EXECUTE STATEMENT SET BEGIN INSERT INTO a VALUES (1);"));
  EXPECT_TRUE(EndsWithTerminator("EXECUTE STATEMENT SET BEGIN INSERT INTO a VALUES (1); END;"));
  EXPECT_TRUE(EndsWithTerminator("SELECT CASE WHEN 1 THEN 2 END;"));
}

// Double-quoted identifiers (PostgreSQL's, for the server's connections) only while a
// DoubleQuotedIdentifiers lives on the thread; "" is a double quote in one.
TEST(LexerTest, DoubleQuotedIdentifiersOnlyWhereAsked) {
  EXPECT_FALSE(Tokenize("SELECT \"a\" FROM t").ok());
  {
    DoubleQuotedIdentifiers dialect;
    auto tokens = Tokenize("SELECT \"the \"\"v\"\"\" FROM \"T\"");
    ASSERT_TRUE(tokens.ok()) << tokens.status().ToString();
    EXPECT_EQ((*tokens)[1].type, TokenType::kQuotedIdentifier);
    EXPECT_EQ((*tokens)[1].text, "the \"v\"");
    EXPECT_EQ((*tokens)[3].type, TokenType::kQuotedIdentifier);
    EXPECT_EQ((*tokens)[3].text, "T");
    EXPECT_FALSE(Tokenize("SELECT \"open").ok());
  }
  EXPECT_FALSE(Tokenize("SELECT \"a\" FROM t").ok());
}

TEST(LexerTest, UnterminatedStringNamesPosition) {
  auto r = SplitStatements("SELECT 1;\nSELECT 'abc");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "line 2, column 8: unterminated string literal");
}

TEST(LexerTest, TokensKeepScriptPositions) {
  auto r = Tokenize("a\n  'it''s' /*+ OPTIONS('k'='v') */ 1.5e3", Pos{3, 1});
  ASSERT_TRUE(r.ok());
  const auto& t = *r;
  EXPECT_EQ(t[0].text, "a");
  EXPECT_EQ(t[1].type, TokenType::kString);
  EXPECT_EQ(t[1].text, "it's");
  EXPECT_EQ(t[1].pos.line, 4);
  EXPECT_EQ(t[1].pos.column, 3);
  EXPECT_EQ(t[2].type, TokenType::kHintStart);
  EXPECT_EQ(t.back().type, TokenType::kEnd);
  EXPECT_EQ(t[t.size() - 2].type, TokenType::kFloat);
}

TEST(LexerTest, EndsWithTerminator) {
  EXPECT_TRUE(EndsWithTerminator("SELECT 1;  "));
  EXPECT_FALSE(EndsWithTerminator("SELECT ';'"));
  EXPECT_TRUE(EndsWithTerminator("SELECT 1; -- done"));
  EXPECT_FALSE(EndsWithTerminator("SELECT 1"));
}

TEST(ParserTest, ErrorNamesLineAndColumn) {
  auto r = ParseStatement("SELECT a\nFROM t WHERE (a = 1 FROM");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "line 2, column 21: expected ')' but found 'FROM'");
}

TEST(ParserTest, CreateTable) {
  auto r = ParseStatement(
      "CREATE TABLE IF NOT EXISTS `cat`.db.t (\n"
      "  id BIGINT NOT NULL COMMENT 'the key',\n"
      "  price DECIMAL(10, 2),\n"
      "  ts TIMESTAMP(3) WITH LOCAL TIME ZONE,\n"
      "  dt STRING,\n"
      "  PRIMARY KEY (id, dt) NOT ENFORCED\n"
      ") COMMENT 'orders' PARTITIONED BY (dt) WITH ('bucket' = '4', 'merge-engine' = "
      "'deduplicate')");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto* s = static_cast<CreateTableStmt*>(r->get());
  ASSERT_EQ(s->kind, StmtKind::kCreateTable);
  EXPECT_TRUE(s->if_not_exists);
  EXPECT_EQ(s->name.parts, (std::vector<std::string>{"cat", "db", "t"}));
  ASSERT_EQ(s->columns.size(), 4u);
  EXPECT_EQ(s->columns[0].type_text, "BIGINT");
  EXPECT_TRUE(s->columns[0].not_null);
  EXPECT_EQ(s->columns[0].comment, "the key");
  EXPECT_EQ(s->columns[1].type_text, "DECIMAL(10, 2)");
  EXPECT_EQ(s->columns[2].type_text, "TIMESTAMP(3) WITH LOCAL TIME ZONE");
  EXPECT_EQ(s->primary_key, (std::vector<std::string>{"id", "dt"}));
  EXPECT_EQ(s->partition_by, (std::vector<std::string>{"dt"}));
  ASSERT_EQ(s->options.size(), 2u);
  EXPECT_EQ(s->options[1].key, "merge-engine");
  EXPECT_EQ(s->comment, "orders");
}

TEST(ParserTest, ComputedColumns) {
  auto r =
      ParseStatement("CREATE TABLE t (a INT, pt AS PROCTIME(), d AS a * 2 COMMENT 'x', b INT)");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto* s = static_cast<const CreateTableStmt*>(r->get());
  ASSERT_EQ(s->columns.size(), 4u);
  EXPECT_TRUE(s->columns[1].computed);
  EXPECT_EQ(ExprToSql(*s->columns[1].expr), "PROCTIME()");
  EXPECT_EQ(ExprToSql(*s->columns[2].expr), "(`a` * 2)");
  EXPECT_EQ(s->columns[2].comment, "x");
  EXPECT_FALSE(s->columns[3].computed);
  // ALTER TABLE ADD of a computed column parses as one.
  auto alter = ParseStatement("ALTER TABLE t ADD pt AS PROCTIME() AFTER a");
  ASSERT_TRUE(alter.ok()) << alter.status().ToString();
  const auto& columns = static_cast<const AlterTableStmt&>(**alter).columns;
  ASSERT_EQ(columns.size(), 1u);
  EXPECT_TRUE(columns[0].def.computed);
  EXPECT_EQ(columns[0].after, "a");
}

TEST(ParserTest, SelectWithEverything) {
  auto r = ParseStatement(
      "SELECT DISTINCT a, COUNT(DISTINCT b) AS n, x.c total FROM db.t$snapshots "
      "/*+ OPTIONS('scan.snapshot-id'='1') */ x WHERE a BETWEEN 1 AND 3 AND b NOT IN (1, 2) "
      "AND c LIKE 'a%' AND d IS NOT NULL GROUP BY a, c HAVING COUNT(*) > 1 "
      "ORDER BY n DESC NULLS LAST, 1 LIMIT 10");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto* s = static_cast<SelectStmt*>(r->get());
  EXPECT_TRUE(s->distinct);
  ASSERT_EQ(s->items.size(), 3u);
  EXPECT_EQ(s->items[1].alias, "n");
  EXPECT_EQ(s->items[2].alias, "total");
  ASSERT_TRUE(s->from.has_value());
  EXPECT_EQ(s->from->name.ToString(), "db.t$snapshots");
  EXPECT_EQ(s->from->alias, "x");
  ASSERT_EQ(s->from->hints.size(), 1u);
  EXPECT_EQ(s->from->hints[0].key, "scan.snapshot-id");
  EXPECT_EQ(s->group_by.size(), 2u);
  ASSERT_EQ(s->order_by.size(), 2u);
  EXPECT_TRUE(s->order_by[0].descending);
  EXPECT_EQ(s->order_by[0].nulls_first, false);
  EXPECT_EQ(s->limit, 10);
}

TEST(ParserTest, UnknownHintSuggestsOptions) {
  auto r = ParseStatement("SELECT * FROM t /*+ OPTION('a'='b') */");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("did you mean 'OPTIONS'"), std::string::npos);
}

TEST(ParserTest, InsertForms) {
  auto r = ParseStatement("INSERT INTO t (a, b) VALUES (1, 'x'), (-2, NULL)");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto* s = static_cast<InsertStmt*>(r->get());
  EXPECT_EQ(s->columns, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(s->source->values.size(), 2u);
  EXPECT_EQ(s->source->values[1][0]->text, "-2");

  r = ParseStatement("INSERT OVERWRITE t PARTITION (dt = '2024') SELECT a FROM s");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  s = static_cast<InsertStmt*>(r->get());
  EXPECT_TRUE(s->overwrite);
  ASSERT_EQ(s->partition.size(), 1u);
  EXPECT_EQ(s->partition[0].column, "dt");
  EXPECT_FALSE(s->source->items.empty());
}

TEST(ParserTest, OtherStatements) {
  const char* ok[] = {
      "CREATE DATABASE IF NOT EXISTS d",
      "DROP DATABASE IF EXISTS d CASCADE",
      "DROP TABLE IF EXISTS d.t",
      "CREATE CATALOG c WITH ('type' = 'paimon', 'warehouse' = '/tmp/w')",
      "USE CATALOG c",
      "USE d",
      "SHOW DATABASES",
      "SHOW TABLES",
      "SHOW CREATE TABLE t",
      "SHOW PARTITIONS t",
      "DESCRIBE t",
      "DESC t",
      "ALTER TABLE t SET ('bucket' = '2')",
      "ALTER TABLE t RESET ('bucket')",
      "DELETE FROM t WHERE id = 2",
      "UPDATE t SET v = v || 'x', w = 1 WHERE id = 2",
      "SET 'execution.runtime-mode' = 'batch'",
      "SET",
      "RESET",
      "RESET 'table.local-time-zone'",
      "CALL sys.compact('db.t')",
      "CALL sys.compact(`table` => 'db.t')",
      "EXPLAIN SELECT 1",
      "SELECT CAST(a AS DECIMAL(10, 2)), CASE WHEN a > 1 THEN 'x' ELSE 'y' END, "
      "SUBSTRING(s FROM 2 FOR 3), DATE '2024-01-01', TIMESTAMP '2024-01-01 00:00:00'",
      "SELECT * FROM (SELECT a FROM t) s",
      "VALUES (1, 2), (3, 4)",
  };
  for (const char* sql : ok) {
    auto r = ParseStatement(sql);
    EXPECT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
  }
}

TEST(ParserTest, Expressions) {
  auto r = ParseExpression("1 + 2 * 3 = 7 AND NOT a IS NULL OR b || 'x' LIKE 'y%'");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(ExprToString(**r), "((((1 + (2 * 3)) = 7) AND NOT a IS NULL) OR (b || 'x') LIKE 'y%')");
}

}  // namespace
}  // namespace tributary::sql
