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

}  // namespace
}  // namespace tributary::sql
