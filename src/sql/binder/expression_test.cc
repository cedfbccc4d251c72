#include "sql/binder/expression.h"

#include <gtest/gtest.h>

#include "sql/parser/parser.h"

namespace tributary::sql {
namespace {

// Binds and evaluates `sql` over one row of columns a INT = 5, s STRING = 'abc', n INT = NULL.
Result<std::string> Eval(const std::string& sql) {
  Scope scope;
  scope.columns = {
      {"a", "t", DataType::Int()}, {"s", "t", DataType::String()}, {"n", "t", DataType::Int()}};
  Row row = {Value::Int(5), Value::String("abc"), Value::Null()};
  TRIB_ASSIGN_OR_RETURN(ExprPtr e, ParseExpression(sql));
  Binder binder(&scope);
  TRIB_ASSIGN_OR_RETURN(BoundExprPtr b, binder.Bind(*e));
  TRIB_ASSIGN_OR_RETURN(Value v, Evaluate(*b, row));
  if (v.is_bool()) return std::string(v.bool_value() ? "true" : "false");
  return FormatValue(v, b->type);
}

std::string E(const std::string& sql) {
  auto r = Eval(sql);
  return r.ok() ? *r : "ERROR " + r.status().message();
}

TEST(ExpressionTest, Arithmetic) {
  EXPECT_EQ(E("a + 2 * 3"), "11");
  EXPECT_EQ(E("a / 2"), "2");
  EXPECT_EQ(E("a % 3"), "2");
  EXPECT_EQ(E("-a"), "-5");
  EXPECT_EQ(E("a + 0.5"), "5.5");
  EXPECT_EQ(E("1.25 * 2"), "2.50");
  EXPECT_EQ(E("a * 1.5e0"), "7.5");
  EXPECT_EQ(E("n + 1"), "NULL");
  EXPECT_EQ(E("a / 0"), "ERROR line 1, column 3: division by zero");
}

TEST(ExpressionTest, ComparisonsAndLogic) {
  EXPECT_EQ(E("a > 3 AND s = 'abc'"), "true");
  EXPECT_EQ(E("n = 1 OR a = 5"), "true");
  EXPECT_EQ(E("n = 1 AND a = 5"), "NULL");
  EXPECT_EQ(E("a BETWEEN 1 AND 5"), "true");
  EXPECT_EQ(E("a IN (1, 2)"), "false");
  EXPECT_EQ(E("a NOT IN (1, NULL)"), "NULL");
  EXPECT_EQ(E("s LIKE 'a_c'"), "true");
  EXPECT_EQ(E("s LIKE '%b%'"), "true");
  EXPECT_EQ(E("s LIKE 'b%'"), "false");
  EXPECT_EQ(E("'a%c' LIKE 'a!%c' ESCAPE '!'"), "true");
  EXPECT_EQ(E("n IS NULL"), "true");
  EXPECT_EQ(E("a = '5'"), "true");
  EXPECT_EQ(E("DATE '2024-01-02' > '2024-01-01'"), "true");
}

TEST(ExpressionTest, FunctionsAndCasts) {
  EXPECT_EQ(E("UPPER(s) || LOWER('X')"), "ABCx");
  EXPECT_EQ(E("SUBSTRING(s, 2)"), "bc");
  EXPECT_EQ(E("LENGTH(s)"), "3");
  EXPECT_EQ(E("COALESCE(n, a)"), "5");
  EXPECT_EQ(E("CASE WHEN a > 3 THEN 'big' ELSE 'small' END"), "big");
  EXPECT_EQ(E("CAST(a AS DECIMAL(5, 2))"), "5.00");
  EXPECT_EQ(E("CAST('2024-03-01 10:00:00' AS TIMESTAMP(3))"), "2024-03-01 10:00:00");
  EXPECT_EQ(E("CAST(300 AS TINYINT)"),
            "ERROR line 1, column 6: value 300 is out of range for TINYINT");
}

TEST(ExpressionTest, BindErrors) {
  EXPECT_EQ(E("nope + 1"),
            "ERROR line 1, column 1: unknown column 'nope'; available columns: a, s, n");
  EXPECT_EQ(E("a + s"), "ERROR line 1, column 3: operator + cannot be applied to INT and STRING");
  EXPECT_EQ(E("UPPER(a)"),
            "ERROR line 1, column 7: function UPPER needs a string argument, not INT");
  EXPECT_EQ(E("COUNT(a)"), "ERROR line 1, column 1: aggregate function COUNT is not allowed here");
}

}  // namespace
}  // namespace tributary::sql
