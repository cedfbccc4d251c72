#include "sql/operators.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sql/parser.h"
#include "sql/vector_eval.h"

namespace tributary::sql {
namespace {

// Columns i BIGINT, d DOUBLE, s STRING, b BOOLEAN over rows that hit every edge a vector loop
// could get wrong: NULLs, NaN, negative zero, empty and prefix strings.
std::vector<Field> Fields() {
  return {Field{0, "i", DataType::BigInt(), ""}, Field{1, "d", DataType::Double(), ""},
          Field{2, "s", DataType::String(), ""}, Field{3, "b", DataType::Boolean(), ""}};
}

std::vector<Row> Rows() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return {
      {Value::Int(1), Value::Double(1.5), Value::String("abc"), Value::Bool(true)},
      {Value::Int(-7), Value::Double(nan), Value::String(""), Value::Bool(false)},
      {Value::Null(), Value::Double(-0.0), Value::String("ab"), Value::Null()},
      {Value::Int(5), Value::Null(), Value::Null(), Value::Bool(true)},
      {Value::Int(5), Value::Double(0.0), Value::String("abd"), Value::Bool(false)},
      {Value::Int(INT64_MIN), Value::Double(-1e300), Value::String("b"), Value::Bool(true)},
  };
}

// The batch of Rows() as a scan hands it out: typed vectors for typed columns.
ColumnBatch TypedBatch() {
  ColumnBatch b;
  b.num_rows = Rows().size();
  for (const Field& f : Fields()) {
    ColumnVector c;
    c.type = f.type;
    c.rep = ColumnVector::RepOf(f.type);
    b.columns.push_back(std::move(c));
  }
  for (const Row& r : Rows()) {
    for (size_t c = 0; c < r.size(); c++) b.columns[c].Append(r[c]);
  }
  return b;
}

BoundExprPtr Bind(const std::string& sql) {
  Scope scope;
  for (const Field& f : Fields()) scope.columns.push_back({f.name, "t", f.type});
  auto e = ParseExpression(sql);
  EXPECT_TRUE(e.ok()) << sql;
  Binder binder(&scope);
  auto b = binder.Bind(**e);
  EXPECT_TRUE(b.ok()) << sql << ": " << b.status().ToString();
  return std::move(*b);
}

// Vector loops (column op constant, IS NULL) and the row fallback agree with Evaluate on every
// row, for every comparison and both operand orders.
TEST(VectorEvalTest, SelectRowsAgreesWithEvaluate) {
  const ColumnBatch batch = TypedBatch();
  const std::vector<Row> rows = Rows();
  for (const char* pred :
       {"i = 5", "i <> 5", "i < 5", "i <= 5", "i > -7", "i >= 1", "5 > i", "-7 = i",
        "d < 1.0", "d > 0.0", "d = 0.0", "d <> 1.5", "1.0 >= d", "d >= -1e300",
        "s = 'ab'", "s < 'abc'", "s > ''", "'abd' <= s", "s <> 'b'",
        "b = TRUE", "b <> FALSE", "i IS NULL", "d IS NOT NULL", "s IS NULL",
        "i = NULL", "i + 1 > 2", "s LIKE 'ab%'", "i > 0 AND d > 0.0", "i > 0 OR s = 'b'",
        "d = CAST('NaN' AS DOUBLE)", "d > CAST('NaN' AS DOUBLE)"}) {
    std::vector<BoundExprPtr> preds;
    preds.push_back(Bind(pred));
    auto got = SelectRows(preds, batch);
    ASSERT_TRUE(got.ok()) << pred << ": " << got.status().ToString();
    std::vector<uint32_t> want;
    for (size_t r = 0; r < rows.size(); r++) {
      auto keep = EvaluatePredicate(*preds[0], rows[r]);
      ASSERT_TRUE(keep.ok()) << pred;
      if (*keep) want.push_back(static_cast<uint32_t>(r));
    }
    EXPECT_EQ(*got, want) << pred;
  }
}

TEST(VectorEvalTest, EvaluateBatchAgreesWithEvaluate) {
  const ColumnBatch batch = TypedBatch();
  const std::vector<Row> rows = Rows();
  for (const char* expr : {"i", "s", "i * 2", "UPPER(s)", "d + 1", "42", "b"}) {
    BoundExprPtr e = Bind(expr);
    auto col = EvaluateBatch(*e, batch);
    std::vector<Value> want;
    Status failed;
    for (size_t r = 0; r < rows.size() && failed.ok(); r++) {
      auto v = Evaluate(*e, rows[r]);
      if (v.ok()) {
        want.push_back(*v);
      } else {
        failed = v.status();
      }
    }
    if (!failed.ok()) {  // e.g. i * 2 overflows BIGINT on one row: the batch fails the same way
      ASSERT_FALSE(col.ok()) << expr;
      EXPECT_EQ(col.status().message(), failed.message());
      continue;
    }
    ASSERT_TRUE(col.ok()) << expr << ": " << col.status().ToString();
    ASSERT_EQ(col->size(), rows.size());
    for (size_t r = 0; r < rows.size(); r++) {
      EXPECT_EQ(DebugString(col->Get(r)), DebugString(want[r])) << expr << " row " << r;
    }
  }
}

// Operators over several batches: a limit and an offset cross batch boundaries, a stable sort
// keeps arrival order among ties, its top-N prunes without changing the answer, DISTINCT spans
// batches.
TEST(OperatorsTest, LimitSortDistinctAcrossBatches) {
  std::vector<Field> fields = {Field{0, "k", DataType::BigInt(), ""},
                               Field{1, "seq", DataType::BigInt(), ""}};
  std::vector<Row> rows;
  for (int64_t i = 0; i < 10000; i++) rows.push_back({Value::Int(i % 7), Value::Int(i)});
  auto collect = [](OperatorPtr op) {
    auto r = CollectRows(*op);
    EXPECT_TRUE(r.ok());
    return *r;
  };
  auto limited = collect(MakeLimit(MakeRows(fields, rows, "r"), 4095, 3000));
  ASSERT_EQ(limited.size(), 3000u);
  EXPECT_EQ(limited.front()[1].int_value(), 4095);
  EXPECT_EQ(limited.back()[1].int_value(), 7094);

  SortOptions sort;
  sort.keys = {SortKeySpec{0, /*descending=*/true, true}};
  sort.output_columns = 2;
  sort.memory_limit = int64_t{1} << 30;
  sort.memory_limit_key = "sql.sort.memory-limit";
  auto sorted = collect(MakeSort(MakeRows(fields, rows, "r"), sort));
  ASSERT_EQ(sorted.size(), rows.size());
  for (size_t i = 1; i < sorted.size(); i++) {
    const int64_t k0 = sorted[i - 1][0].int_value(), k1 = sorted[i][0].int_value();
    ASSERT_GE(k0, k1);
    if (k0 == k1) {
      ASSERT_LT(sorted[i - 1][1].int_value(), sorted[i][1].int_value());  // stable
    }
  }
  sort.limit = 25;  // holds about 2 x 25 rows, answers the same first 25
  auto top = collect(MakeSort(MakeRows(fields, rows, "r"), sort));
  ASSERT_EQ(top.size(), 25u);
  for (size_t i = 0; i < top.size(); i++) EXPECT_EQ(DebugString(top[i][1]), DebugString(sorted[i][1]));

  sort.limit.reset();
  sort.memory_limit = 1000;
  auto too_big = CollectRows(*MakeSort(MakeRows(fields, rows, "r"), sort));
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.status().message().find("sql.sort.memory-limit"), std::string::npos);

  std::vector<Field> one = {fields[0]};
  std::vector<Row> keys;
  for (const Row& r : rows) keys.push_back({r[0]});
  auto distinct = collect(MakeDistinct(MakeRows(one, keys, "r")));
  ASSERT_EQ(distinct.size(), 7u);
  for (int64_t i = 0; i < 7; i++) EXPECT_EQ(distinct[i][0].int_value(), i);  // first seen first
}

}  // namespace
}  // namespace tributary::sql
