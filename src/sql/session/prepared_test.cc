#include "sql/session/prepared.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "sql/exec/operators.h"
#include "sql/session/session.h"

namespace tributary::sql {
namespace {

class PreparedStatementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tributary-prepared-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto session = Session::Open(dir_ + "/warehouse");
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    session_ = std::move(*session);
    Run("CREATE TABLE t (id BIGINT, name STRING, v INT, PRIMARY KEY (id) NOT ENFORCED) "
        "WITH ('bucket' = '2')");
    Run("INSERT INTO t VALUES (1, 'one', 10), (2, 'two', 20), (3, 'it''s', NULL)");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Run(const std::string& sql) {
    auto r = session_->ExecuteText(sql, Pos{});
    ASSERT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
    if (r->cursor) {
      ASSERT_TRUE(CollectRows(*r->cursor).ok());
    }
  }
  // A result's columns and rows as text ("name:TYPE,...|row|row"), rows read from its cursor
  // when it has one.
  std::string Text(Result<StatementResult> r) {
    if (!r.ok()) return "error: " + r.status().ToString();
    std::string out;
    for (const Field& f : r->rows.fields) out += f.name + ":" + f.type.ToString() + ",";
    std::vector<Row> rows = r->rows.rows;
    if (r->cursor) {
      auto read = CollectRows(*r->cursor);
      if (!read.ok()) return "error: " + read.status().ToString();
      rows = std::move(*read);
    }
    for (const Row& row : rows) {
      out += "|";
      for (const Value& v : row) out += DebugString(v) + ",";
    }
    return out;
  }
  std::unique_ptr<PreparedStatement> Prepared(const std::string& sql) {
    auto p = Prepare(session_.get(), sql);
    EXPECT_TRUE(p.ok()) << sql << ": " << p.status().ToString();
    return p.ok() ? std::move(*p) : nullptr;
  }
  // The prepared statement's result equals the statement with the values written in.
  void ExpectSameAs(PreparedStatement* p, const std::vector<Value>& params,
                    const std::string& literal_sql) {
    SCOPED_TRACE(literal_sql);
    const std::string want = Text(session_->ExecuteText(literal_sql, Pos{}));
    EXPECT_EQ(Text(p->Execute(params)), want);
  }

  std::string dir_;
  std::unique_ptr<Session> session_;
};

TEST_F(PreparedStatementTest, AWholeKeyLookupIsPlannedOnceAndAnswersAsTheStatement) {
  auto p = Prepared("SELECT * FROM t WHERE id = ?");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->parameter_count(), 1u);
  EXPECT_EQ(p->Describe(), "a point lookup of default.t by (id)");
  for (int64_t id : {1, 2, 3, 4, -1}) {
    ExpectSameAs(p.get(), {Value::Int(id)}, "SELECT * FROM t WHERE id = " + std::to_string(id));
  }
  EXPECT_NE(Text(p->Execute({Value::Int(2)})).find("|2,'two',20,"), std::string::npos);
  // Values the key column does not hold go to the statement: NULL, another type.
  ExpectSameAs(p.get(), {Value::Null()}, "SELECT * FROM t WHERE id = NULL");
  ExpectSameAs(p.get(), {Value::String("2")}, "SELECT * FROM t WHERE id = '2'");
  // The number of values is checked.
  EXPECT_NE(Text(p->Execute({})).find("takes 1 parameter, 0 given"), std::string::npos);

  // Columns by name, qualified by an alias, in another order; the key the other way round.
  auto q = Prepared("SELECT x.v, name FROM t AS x WHERE ? = x.id");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->Describe(), "a point lookup of default.t by (id)");
  ExpectSameAs(q.get(), {Value::Int(1)}, "SELECT x.v, name FROM t AS x WHERE 1 = x.id");
  ExpectSameAs(q.get(), {Value::Int(3)}, "SELECT x.v, name FROM t AS x WHERE 3 = x.id");
}

// Each run reads the latest snapshot: commits after the statement was prepared are seen, and a
// schema change plans it again.
TEST_F(PreparedStatementTest, APointLookupFollowsUse) {
  // Planned in one database, run after USE of another: the name is the other's table.
  auto p = Prepared("SELECT name FROM t WHERE id = ?");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Describe(), "a point lookup of default.t by (id)");
  EXPECT_EQ(Text(p->Execute({Value::Int(1)})), "name:STRING,|'one',");
  Run("CREATE DATABASE other");
  Run("USE other");
  Run("CREATE TABLE t (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)");
  Run("INSERT INTO t VALUES (1, 'other one')");
  EXPECT_EQ(Text(p->Execute({Value::Int(1)})), "name:STRING,|'other one',");
  EXPECT_EQ(p->Describe(), "a point lookup of other.t by (id)");
}

// Planned in one catalog, run after USE CATALOG of another: the name is the other catalog's
// table; and back.
TEST_F(PreparedStatementTest, APointLookupFollowsUseCatalog) {
  auto p = Prepared("SELECT name FROM t WHERE id = ?");
  ASSERT_TRUE(p);
  EXPECT_EQ(Text(p->Execute({Value::Int(1)})), "name:STRING,|'one',");
  Run("CREATE CATALOG second WITH ('type' = 'paimon', 'warehouse' = '" + dir_ + "/second')");
  Run("USE CATALOG second");
  Run("CREATE TABLE t (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)");
  Run("INSERT INTO t VALUES (1, 'second one')");
  EXPECT_EQ(Text(p->Execute({Value::Int(1)})), "name:STRING,|'second one',");
  Run("USE CATALOG " + std::string(Session::kDefaultCatalog));
  EXPECT_EQ(Text(p->Execute({Value::Int(1)})), "name:STRING,|'one',");
}

TEST_F(PreparedStatementTest, RunsSeeLaterCommitsAndSchemaChanges) {
  auto p = Prepared("SELECT * FROM t WHERE id = ?");
  ASSERT_TRUE(p);
  EXPECT_NE(Text(p->Execute({Value::Int(1)})).find("|1,'one',10,"), std::string::npos);
  Run("INSERT INTO t VALUES (1, 'uno', 11), (5, 'five', 50)");
  EXPECT_NE(Text(p->Execute({Value::Int(1)})).find("|1,'uno',11,"), std::string::npos);
  EXPECT_NE(Text(p->Execute({Value::Int(5)})).find("|5,'five',50,"), std::string::npos);
  Run("DELETE FROM t WHERE id = 5");
  ExpectSameAs(p.get(), {Value::Int(5)}, "SELECT * FROM t WHERE id = 5");
  EXPECT_EQ(Text(p->Execute({Value::Int(5)})).find("|"), std::string::npos);
  Run("ALTER TABLE t ADD w STRING");
  Run("INSERT INTO t VALUES (2, 'dos', 22, 'new')");
  ExpectSameAs(p.get(), {Value::Int(2)}, "SELECT * FROM t WHERE id = 2");
  EXPECT_NE(Text(p->Execute({Value::Int(2)})).find("w:"), std::string::npos);
  EXPECT_EQ(p->Describe(), "a point lookup of default.t by (id)");
  // An ALTER without a commit after it, and a DROP and CREATE of the name, are seen too.
  Run("ALTER TABLE t DROP v");
  ExpectSameAs(p.get(), {Value::Int(2)}, "SELECT * FROM t WHERE id = 2");
  EXPECT_EQ(Text(p->Execute({Value::Int(2)})).find("v:"), std::string::npos);
  Run("DROP TABLE t");
  Run("CREATE TABLE t (id BIGINT, x DOUBLE, PRIMARY KEY (id) NOT ENFORCED)");
  Run("INSERT INTO t VALUES (2, 2.5)");
  ExpectSameAs(p.get(), {Value::Int(2)}, "SELECT * FROM t WHERE id = 2");
  EXPECT_NE(Text(p->Execute({Value::Int(2)})).find("|2,2.5,"), std::string::npos);
}

TEST_F(PreparedStatementTest, CompositeKeysAndMergeEngines) {
  Run("CREATE TABLE c (a INT, b STRING, s BIGINT, PRIMARY KEY (a, b) NOT ENFORCED) "
      "WITH ('merge-engine' = 'aggregation', 'fields.s.aggregate-function' = 'sum')");
  Run("INSERT INTO c VALUES (1, 'x', 5), (1, 'y', 7)");
  Run("INSERT INTO c VALUES (1, 'x', 6)");
  auto p = Prepared("SELECT s FROM c WHERE b = ? AND a = ?");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->Describe(), "a point lookup of default.c by (a, b)");
  ExpectSameAs(p.get(), {Value::String("x"), Value::Int(1)},
               "SELECT s FROM c WHERE b = 'x' AND a = 1");
  EXPECT_NE(Text(p->Execute({Value::String("x"), Value::Int(1)})).find("|11,"), std::string::npos);
  // An INT key given a value beyond INT: no row, as the statement says.
  ExpectSameAs(p.get(), {Value::String("x"), Value::Int(int64_t{1} << 40)},
               "SELECT s FROM c WHERE b = 'x' AND a = 1099511627776");

  Run("CREATE TABLE pu (k INT, a STRING, b STRING, PRIMARY KEY (k) NOT ENFORCED) "
      "WITH ('merge-engine' = 'partial-update')");
  Run("INSERT INTO pu VALUES (1, 'a1', CAST(NULL AS STRING))");
  Run("INSERT INTO pu VALUES (1, CAST(NULL AS STRING), 'b1')");
  auto q = Prepared("SELECT * FROM pu WHERE k = ?");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->Describe(), "a point lookup of default.pu by (k)");
  ExpectSameAs(q.get(), {Value::Int(1)}, "SELECT * FROM pu WHERE k = 1");
}

// Statements that are not whole-key lookups run as their text with the values written in.
TEST_F(PreparedStatementTest, OtherStatementsRunWithTheValuesAsLiterals) {
  auto filter = Prepared("SELECT id FROM t WHERE v > ? OR name = ?");
  ASSERT_TRUE(filter);
  EXPECT_EQ(filter->Describe(), "a statement");
  ExpectSameAs(filter.get(), {Value::Int(15), Value::String("it's")},
               "SELECT id FROM t WHERE v > 15 OR name = 'it''s'");
  // Not the whole key: a key column and a parameter elsewhere.
  auto partial = Prepared("SELECT id FROM t WHERE id = ? AND v = ?");
  ASSERT_TRUE(partial);
  EXPECT_EQ(partial->Describe(), "a statement");
  ExpectSameAs(partial.get(), {Value::Int(1), Value::Int(10)},
               "SELECT id FROM t WHERE id = 1 AND v = 10");
  // A minus before a negative value stays an operator, not a comment.
  auto arith = Prepared("SELECT id, v -? FROM t WHERE id = 1");
  ASSERT_TRUE(arith);
  ExpectSameAs(arith.get(), {Value::Int(-5)}, "SELECT id, v - (-5) FROM t WHERE id = 1");
  ExpectSameAs(arith.get(), {Value::Double(-0.0)}, "SELECT id, v - (-0.0E0) FROM t WHERE id = 1");
  auto doubles = Prepared("SELECT id FROM t WHERE v < ?");
  ASSERT_TRUE(doubles);
  ExpectSameAs(doubles.get(), {Value::Double(15.5)}, "SELECT id FROM t WHERE v < 15.5E0");
  // INSERT with parameters; a '?' inside a string is text, not a marker.
  auto insert = Prepared("INSERT INTO t VALUES (?, '?', ?)");
  ASSERT_TRUE(insert);
  EXPECT_EQ(insert->parameter_count(), 2u);
  ASSERT_TRUE(insert->Execute({Value::Int(9), Value::Int(90)}).ok());
  EXPECT_NE(Text(session_->ExecuteText("SELECT * FROM t WHERE id = 9", Pos{})).find("|9,'?',90,"),
            std::string::npos);
  // Bytes flagged as such are binary literals: any byte, not only UTF-8 text.
  auto blob = Prepared("SELECT CAST(? AS BYTES) = X'00FF27', CAST(? AS BYTES) = X'FE01'");
  ASSERT_TRUE(blob);
  const std::vector<ParamForm> bytes = {ParamForm::kBytes, ParamForm::kBytes};
  auto got = blob->Execute(
      {Value::String(std::string("\0\xff'", 3)), Value::String(std::string("\xfe\x01", 2))},
      &bytes);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  const std::string text = Text(std::move(got));
  EXPECT_NE(text.find("|true,true,"), std::string::npos) << text;
  // Numbers flagged as such are exact numeric literals (an exponent written out), so an INSERT
  // into a DECIMAL column takes them (a string it would refuse); anything else is refused.
  Run("CREATE TABLE dec (k INT, p DECIMAL(12, 4), PRIMARY KEY (k) NOT ENFORCED)");
  auto put = Prepared("INSERT INTO dec VALUES (?, ?)");
  ASSERT_TRUE(put);
  const std::vector<ParamForm> numeric = {ParamForm::kString, ParamForm::kNumeric};
  int k = 0;
  for (const char* n : {"12.5", " -1.5E-3 ", "2e2", ".75", "-0.00012E+1", "+3."}) {
    auto r = put->Execute({Value::Int(++k), Value::String(n)}, &numeric);
    ASSERT_TRUE(r.ok()) << n << ": " << r.status().ToString();
  }
  EXPECT_EQ(Text(session_->ExecuteText("SELECT p FROM dec ORDER BY k", Pos{})),
            "p:DECIMAL(12, 4),|dec:125000,|dec:-15,|dec:2000000,|dec:7500,|dec:-12,|dec:30000,");
  for (const char* n : {"1.2.3", "abc", "1e", "-", "1 2", "NaN", "1e99999"}) {
    auto r = put->Execute({Value::Int(99), Value::String(n)}, &numeric);
    EXPECT_FALSE(r.ok()) << n;
  }
  EXPECT_EQ(Text(session_->ExecuteText("SELECT count(*) FROM dec", Pos{})),
            "EXPR$0:BIGINT NOT NULL,|6,");
  // Syntax errors fail at Prepare; other errors at Execute, naming the problem.
  EXPECT_FALSE(Prepare(session_.get(), "SELECT id FROM t WHERE id = = ?").ok());
  auto bad = Prepared("SELECT nope FROM t WHERE id = ?");
  ASSERT_TRUE(bad);
  auto run = bad->Execute({Value::Int(1)});
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().ToString().find("nope"), std::string::npos) << run.status().ToString();
}

}  // namespace
}  // namespace tributary::sql

namespace tributary::sql {
namespace {

// Each marker's type as DescribeStatement gives it ("?" none), and the query's columns.
std::string Described(Session* session, const std::string& sql) {
  auto d = DescribeStatement(session, sql);
  if (!d.ok()) return "error: " + d.status().ToString();
  std::string out;
  for (const auto& t : d->parameters) out += (t ? t->ToString() : std::string("?")) + ",";
  if (d->columns) {
    out += "|";
    for (const Field& f : *d->columns) out += f.name + ":" + f.type.ToString() + ",";
  }
  return out;
}

TEST_F(PreparedStatementTest, ParametersAreTypedByTheirContextWithoutRunning) {
  Run("CREATE TABLE e (k INT, d DATE, ts TIMESTAMP(3), p DECIMAL(10, 2), b BYTES, c CHAR(3), "
      "f FLOAT, PRIMARY KEY (k) NOT ENFORCED)");
  Session* s = session_.get();
  // Compared with a column, the other operand of arithmetic, an IN list, BETWEEN, LIKE.
  EXPECT_EQ(Described(s, "SELECT name FROM t WHERE id = ? AND v > ? + 1"),
            "BIGINT,INT,|name:STRING,");
  EXPECT_EQ(Described(s,
                      "SELECT v * ? AS w FROM t WHERE v IN (?, ?) OR id BETWEEN ? AND ?\n"
                      "  OR name LIKE ?"),
            "INT,INT,INT,BIGINT,BIGINT,STRING,|w:INT,");
  EXPECT_EQ(Described(s, "SELECT * FROM e WHERE d >= ? AND ts < ? AND p = ? AND b = ? AND c = ?"),
            "DATE,TIMESTAMP(3),DECIMAL(10, 2),BYTES,CHAR(3),|k:INT NOT NULL,d:DATE,"
            "ts:TIMESTAMP(3),p:DECIMAL(10, 2),b:BYTES,c:CHAR(3),f:FLOAT,");
  // Nothing decides a value selected alone; counts are BIGINT.
  EXPECT_EQ(Described(s, "SELECT ?, name FROM t ORDER BY id LIMIT ? OFFSET ?"),
            "?,BIGINT,BIGINT,|EXPR$0:STRING,name:STRING,");
  // INSERT: the columns the values go to (listed, every column, or past a static partition);
  // UPDATE: the column set, and the condition's; DELETE: the condition's. None is a query.
  EXPECT_EQ(Described(s, "INSERT INTO t VALUES (?, ?, ?), (?, 'x', ? * 2)"),
            "BIGINT,STRING,INT,BIGINT,INT,");
  EXPECT_EQ(Described(s, "INSERT INTO e (f, k) VALUES (?, ?)"), "FLOAT,INT,");
  EXPECT_EQ(Described(s, "INSERT INTO t SELECT ?, name, ? FROM t WHERE v = ?"), "BIGINT,INT,INT,");
  EXPECT_EQ(Described(s, "UPDATE t SET name = ?, v = v + ? WHERE id = ?"), "STRING,INT,BIGINT,");
  EXPECT_EQ(Described(s, "DELETE FROM e WHERE k IN (SELECT v FROM t WHERE name = ?) OR d = ?"),
            "STRING,DATE,");
  // A marker after another on its line, across lines, in a subquery and a WITH.
  EXPECT_EQ(Described(s,
                      "WITH q AS (SELECT id FROM t WHERE v = ?)\n"
                      "SELECT count(*) AS n FROM q WHERE id = ? OR id = (SELECT max(k) FROM e "
                      "WHERE f > ?)"),
            "INT,BIGINT,FLOAT,|n:BIGINT NOT NULL,");
  // Planned, never run: nothing was written or deleted.
  EXPECT_EQ(Text(session_->ExecuteText("SELECT count(*) FROM t", Pos{})),
            "EXPR$0:BIGINT NOT NULL,|3,");
  // A statement that does not plan: no types, no columns, no error (its run says what is wrong).
  EXPECT_EQ(Described(s, "SELECT name FROM nope WHERE id = ?"), "?,");
}

}  // namespace
}  // namespace tributary::sql
