#include "sql/binder/correlated.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "sql/exec/operators.h"
#include "sql/session/session.h"

namespace tributary::sql {
namespace {

class CorrelatedSubqueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tributary-correlated-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto session = Session::Open(dir_ + "/warehouse");
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    session_ = std::move(*session);
    Run("CREATE TABLE o (id INT, x INT)");
    Run("CREATE TABLE i (y INT)");
    Run("INSERT INTO o VALUES (1, 10), (2, 20)");
    Run("INSERT INTO i VALUES (15)");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  StatementResult Run(const std::string& sql) {
    auto r = session_->ExecuteText(sql, Pos{});
    EXPECT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
    return r.ok() ? std::move(*r) : StatementResult();
  }
  // The ids a query's cursor hands out.
  std::vector<int64_t> Ids(StatementResult result) {
    std::vector<int64_t> ids;
    if (!result.cursor) {
      ADD_FAILURE() << "no cursor";
      return ids;
    }
    auto rows = CollectRows(*result.cursor);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    if (rows.ok()) {
      for (const Row& r : *rows) ids.push_back(r[0].int_value());
    }
    return ids;
  }

  std::string dir_;
  std::unique_ptr<Session> session_;
};

// The subquery runs per row while the rows are read, after the statement was planned; a commit in
// between must not reach it: it reads the snapshot the statement was planned at.
TEST_F(CorrelatedSubqueryTest, ReadsTheSnapshotTheStatementWasPlannedAt) {
  const std::string query =
      "SELECT id FROM o WHERE EXISTS (SELECT 1 FROM i WHERE i.y > o.x) ORDER BY id";
  StatementResult planned = Run(query);
  Run("INSERT INTO i VALUES (25)");
  EXPECT_EQ(Ids(std::move(planned)), (std::vector<int64_t>{1}));
  // A statement planned now sees the commit.
  EXPECT_EQ(Ids(Run(query)), (std::vector<int64_t>{1, 2}));
}

// Each row gets the answer for its own outer value, rows that share a value (a cached run) too.
TEST_F(CorrelatedSubqueryTest, ScalarPerRow) {
  Run("INSERT INTO o VALUES (3, 10), (4, 30)");
  Run("INSERT INTO i VALUES (25), (31)");
  StatementResult r =
      Run("SELECT id, (SELECT COUNT(*) FROM i WHERE i.y > o.x) AS n FROM o ORDER BY id");
  ASSERT_TRUE(r.cursor);
  auto rows = CollectRows(*r.cursor);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  std::vector<std::pair<int64_t, int64_t>> got;
  for (const Row& row : *rows) got.emplace_back(row[0].int_value(), row[1].int_value());
  EXPECT_EQ(got, (std::vector<std::pair<int64_t, int64_t>>{{1, 3}, {2, 2}, {3, 3}, {4, 1}}));
}

// An uncorrelated subquery is planned with the statement and run when it runs: EXPLAIN shows it
// without running it (so a subquery that fails when run does not fail EXPLAIN)...
TEST_F(CorrelatedSubqueryTest, UncorrelatedRunsWhenTheQueryRunsNotWhenPlanned) {
  const std::string query = "SELECT id FROM o WHERE id = (SELECT id FROM o)";
  StatementResult explained = Run("EXPLAIN " + query);
  ASSERT_EQ(explained.rows.rows.size(), 1u);
  const std::string plan = explained.rows.rows[0][0].string_value();
  EXPECT_NE(plan.find("a subquery run once when the query starts"), std::string::npos) << plan;
  auto ran = session_->ExecuteText(query, Pos{});
  ASSERT_FALSE(ran.ok());
  EXPECT_NE(ran.status().message().find("a scalar subquery returned 2 rows"), std::string::npos)
      << ran.status().ToString();
}

// ... and once it has run, its value is a constant of the query: pushed into the table's scan.
TEST_F(CorrelatedSubqueryTest, UncorrelatedValueIsPushedIntoTheScan) {
  StatementResult r = Run("SELECT id FROM o WHERE id = (SELECT MAX(id) FROM o)");
  ASSERT_TRUE(r.cursor);
  const std::string tree = ExplainTree(*r.cursor);
  EXPECT_NE(tree.find("filters: id = 2"), std::string::npos) << tree;
  EXPECT_EQ(Ids(std::move(r)), (std::vector<int64_t>{2}));
}

}  // namespace
}  // namespace tributary::sql
