#include "sql/exec/operators.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "sql/binder/cast.h"
#include "sql/exec/aggregate_state.h"
#include "sql/exec/column_keys.h"
#include "sql/exec/exec_test_util.h"
#include "sql/exec/vector_eval.h"
#include "sql/parser/parser.h"

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

BoundExprPtr Bind(const std::string& sql) { return BindOver(Fields(), sql); }

// Vector loops (column op constant, IS NULL) and the row fallback agree with Evaluate on every
// row, for every comparison and both operand orders.
TEST(VectorEvalTest, SelectRowsAgreesWithEvaluate) {
  const ColumnBatch batch = TypedBatch();
  const std::vector<Row> rows = Rows();
  for (const char* pred : {"i = 5",
                           "i <> 5",
                           "i < 5",
                           "i <= 5",
                           "i > -7",
                           "i >= 1",
                           "5 > i",
                           "-7 = i",
                           "d < 1.0",
                           "d > 0.0",
                           "d = 0.0",
                           "d <> 1.5",
                           "1.0 >= d",
                           "d >= -1e300",
                           "s = 'ab'",
                           "s < 'abc'",
                           "s > ''",
                           "'abd' <= s",
                           "s <> 'b'",
                           "b = TRUE",
                           "b <> FALSE",
                           "i IS NULL",
                           "d IS NOT NULL",
                           "s IS NULL",
                           "i = NULL",
                           "i + 1 > 2",
                           "s LIKE 'ab%'",
                           "i > 0 AND d > 0.0",
                           "i > 0 OR s = 'b'",
                           "d = CAST('NaN' AS DOUBLE)",
                           "d > CAST('NaN' AS DOUBLE)",
                           "i % 2 = 1",
                           "i % 7 * 2 >= i",
                           "d + 1.0 < 2.0",
                           "CAST(i AS DOUBLE) > d",
                           "i % 5 - 1 <> i % 5 + 1",
                           "i + NULL > 1",
                           "d * 2 > d"}) {
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
  for (const char* expr :
       {"i", "s", "i * 2", "UPPER(s)", "d + 1", "42", "b", "i + 1", "-i", "i - 5", "i * i", "i / 0",
        "d / 0.0", "i % 3", "d * 2.5 - d", "CAST(i AS DOUBLE) + d", "CAST(i AS DOUBLE)", "i + NULL",
        "CAST(i AS FLOAT) * 3"}) {
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
  for (size_t i = 0; i < top.size(); i++)
    EXPECT_EQ(DebugString(top[i][1]), DebugString(sorted[i][1]));

  // Past its limit the sort spills runs and merges them: the same rows in the same order
  // (spill_test.cc has more).
  sort.limit.reset();
  sort.memory_limit = 1000;
  auto spilled = collect(MakeSort(MakeRows(fields, rows, "r"), sort));
  ASSERT_EQ(spilled.size(), sorted.size());
  for (size_t i = 0; i < sorted.size(); i++) ASSERT_EQ(spilled[i], sorted[i]) << i;

  std::vector<Field> one = {fields[0]};
  std::vector<Row> keys;
  for (const Row& r : rows) keys.push_back({r[0]});
  auto distinct = collect(
      MakeDistinct(MakeRows(one, keys, "r"), int64_t{1} << 30, "sql.aggregate.memory-limit"));
  ASSERT_EQ(distinct.size(), 7u);
  for (int64_t i = 0; i < 7; i++) EXPECT_EQ(distinct[i][0].int_value(), i);  // first seen first
}

// Hash aggregation holds at most its memory limit: the groups' keys, states and hash table are
// counted as they grow (at least sizeof(AggState) per aggregate and group), and so are the rows a
// DISTINCT has seen and a COUNT(DISTINCT)'s values; more groups spill, more of the others is an
// error naming the setting.
TEST(OperatorsTest, HashAggregationStaysWithinItsMemoryLimit) {
  constexpr const char* kKey = "sql.aggregate.memory-limit";
  const std::vector<Field> fields = {
      Field{0, "i", DataType::BigInt(), ""}, Field{1, "d", DataType::Double(), ""},
      Field{2, "s", DataType::String(), ""}, Field{3, "b", DataType::Boolean(), ""}};
  constexpr int kGroups = 20000;
  std::vector<Row> rows;
  for (int i = 0; i < kGroups; i++) {
    rows.push_back({Value::Int(i), Value::Double(i), Value::String("s" + std::to_string(i)),
                    Value::Bool(i % 2 == 0)});
  }
  auto grouped = [&](const std::string& key, const std::string& arg, bool distinct, int64_t limit) {
    AggregateBinding binding;
    if (!key.empty()) binding.keys.push_back(Bind(key));
    for (const char* f : {"COUNT", "MAX"}) {
      AggregateCall call;
      call.function = f;
      call.arg = Bind(arg);
      call.distinct = distinct;
      call.type = call.function == "COUNT" ? DataType::BigInt() : call.arg->type;
      binding.calls.push_back(std::move(call));
    }
    return CollectRows(
        *MakeAggregate(MakeRows(fields, rows, "r"), std::move(binding), limit, kKey));
  };
  const int64_t states = int64_t{kGroups} * 2 * static_cast<int64_t>(sizeof(AggState));
  for (const std::string key : {"i", "s"}) {
    auto fits = grouped(key, "d", false, int64_t{1} << 30);
    ASSERT_TRUE(fits.ok()) << fits.status().ToString();
    EXPECT_EQ(fits->size(), static_cast<size_t>(kGroups));
    // Past the limit the groups spill (spill_test.cc): every group still comes out once.
    auto spilled = grouped(key, "d", false, states);
    ASSERT_TRUE(spilled.ok()) << key << ": " << spilled.status().ToString();
    EXPECT_EQ(spilled->size(), static_cast<size_t>(kGroups));
  }
  // COUNT(DISTINCT s) without GROUP BY: one state, its set of values grows.
  auto distinct_fits = grouped("", "s", true, int64_t{1} << 30);
  ASSERT_TRUE(distinct_fits.ok()) << distinct_fits.status().ToString();
  EXPECT_EQ((*distinct_fits)[0][0].int_value(), kGroups);
  auto distinct_too_big = grouped("", "s", true, int64_t{kGroups} * 64);
  ASSERT_FALSE(distinct_too_big.ok());
  EXPECT_NE(distinct_too_big.status().message().find(kKey), std::string::npos);
  // SELECT DISTINCT past its limit (the rows seen take at least a hash table node each) spills
  // the rows it has not seen: every distinct row once, rows repeated after the rows held and
  // within the spilled partitions included.
  std::vector<Row> twice = rows;
  twice.insert(twice.end(), rows.begin(), rows.end());
  auto seen = CollectRows(*MakeDistinct(MakeRows(fields, twice, "r"), int64_t{kGroups} * 64, kKey));
  ASSERT_TRUE(seen.ok()) << seen.status().ToString();
  std::set<int64_t> ids;
  for (const Row& r : *seen) ids.insert(r[0].int_value());
  EXPECT_EQ(seen->size(), static_cast<size_t>(kGroups));
  EXPECT_EQ(ids.size(), static_cast<size_t>(kGroups));
  auto all_seen = CollectRows(*MakeDistinct(MakeRows(fields, rows, "r"), int64_t{1} << 30, kKey));
  ASSERT_TRUE(all_seen.ok());
  EXPECT_EQ(all_seen->size(), static_cast<size_t>(kGroups));
}

// A row's key and order read from the typed vectors are those of its Values (AppendKey,
// CompareSame), for every representation and for Value columns.
TEST(ColumnKeysTest, KeysAndOrderAgreeWithValues) {
  const ColumnBatch typed = TypedBatch();
  const std::vector<Row> rows = Rows();
  for (size_t c = 0; c < typed.columns.size(); c++) {
    const ColumnVector& col = typed.columns[c];
    ColumnVector values = ValueColumn(col.type);
    for (const Row& r : rows) values.Append(r[c]);
    const ColumnVector back = Canonical(ColumnVector(values));
    EXPECT_EQ(back.rep, col.rep);
    for (size_t i = 0; i < rows.size(); i++) {
      std::string want, got, from_values, from_back;
      AppendKey(rows[i][c], &want);
      AppendColumnKey(col, i, &got);
      AppendColumnKey(values, i, &from_values);
      AppendColumnKey(back, i, &from_back);
      EXPECT_EQ(got, want) << "column " << c << " row " << i;
      EXPECT_EQ(from_values, want);
      EXPECT_EQ(from_back, want);
      for (size_t j = 0; j < rows.size(); j++) {
        const int expected = CompareSame(rows[i][c], rows[j][c]);
        EXPECT_EQ(CompareColumnRows(col, i, col, j), expected) << c << ": " << i << " vs " << j;
        EXPECT_EQ(CompareColumnRows(values, i, values, j), expected);
      }
    }
  }
}

// GROUP BY over columns gives what folding each row's Values into its group gives, for keys
// with NULLs (one integer key, and an integer and a string key), in first-seen group order,
// across batches.
TEST(OperatorsTest, GroupedAggregateAgreesWithRowFolding) {
  const std::vector<Field> fields = Fields();
  std::vector<Row> rows;
  const std::vector<Row> base = Rows();
  for (int i = 0; i < 5000; i++) {
    Row r = base[static_cast<size_t>(i) % base.size()];
    if (!r[0].is_null() && i % 11 != 0) r[0] = Value::Int(r[0].int_value() % 1000 + i % 13);
    if (i > 100 && !r[0].is_null() && r[0].int_value() == INT64_MIN) r[0] = Value::Int(-808);
    if (i % 17 == 0) r[0] = Value::Null();
    if (!r[2].is_null() && i % 5 == 0) r[2] = Value::String(r[2].string_value() + "x");
    rows.push_back(std::move(r));
  }
  for (const std::vector<std::string>& key_texts :
       std::vector<std::vector<std::string>>{{"i"}, {"i", "s"}, {"b"}}) {
    AggregateBinding binding;
    for (const auto& k : key_texts) binding.keys.push_back(Bind(k));
    const std::vector<std::pair<std::string, std::string>> calls = {
        {"COUNT", ""}, {"SUM", "i"}, {"MIN", "i"}, {"MAX", "i"},   {"MAX", "s"},  {"MIN", "s"},
        {"AVG", "d"},  {"SUM", "d"}, {"MIN", "d"}, {"COUNT", "s"}, {"COUNT", "d"}};
    for (const auto& [f, arg] : calls) {
      AggregateCall call;
      call.function = f;
      call.star = arg.empty();
      if (!arg.empty()) call.arg = Bind(arg);
      call.type = f == "COUNT" ? DataType::BigInt()
                  : f == "AVG" ? DataType::Double()
                               : call.arg->type;
      binding.calls.push_back(std::move(call));
    }
    // Expected: each row's Values folded into its group's states.
    std::vector<std::string> order;
    std::map<std::string, std::pair<Row, std::vector<AggState>>> groups;
    for (const Row& r : rows) {
      std::string key;
      Row key_values;
      for (const auto& k : binding.keys) {
        auto v = Evaluate(*k, r);
        ASSERT_TRUE(v.ok());
        AppendKey(*v, &key);
        key_values.push_back(*v);
      }
      auto [it, inserted] = groups.try_emplace(key);
      if (inserted) {
        order.push_back(key);
        it->second.first = key_values;
        it->second.second.resize(binding.calls.size());
      }
      for (size_t i = 0; i < binding.calls.size(); i++) {
        AggState& st = it->second.second[i];
        if (binding.calls[i].star) {
          ++st.count;
        } else {
          auto v = Evaluate(*binding.calls[i].arg, r);
          ASSERT_TRUE(v.ok());
          ASSERT_TRUE(AccumulateValue(binding.calls[i], *v, &st).ok());
        }
      }
    }
    std::vector<Row> want;
    std::string error;  // SUM(i) overflows BIGINT where INT64_MIN rows share a group
    for (const std::string& key : order) {
      Row row = groups[key].first;
      for (size_t i = 0; i < binding.calls.size(); i++) {
        auto v = Finish(binding.calls[i], groups[key].second[i]);
        if (!v.ok() && error.empty()) error = v.status().message();
        row.push_back(v.ok() ? *v : Value::Null());
      }
      want.push_back(std::move(row));
    }
    auto got = CollectRows(*MakeAggregate(MakeRows(fields, rows, "r"), std::move(binding),
                                          int64_t{1} << 30, "sql.aggregate.memory-limit"));
    if (!error.empty()) {
      ASSERT_FALSE(got.ok());
      EXPECT_EQ(got.status().message(), error);
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), want.size()) << key_texts.size();
    for (size_t g = 0; g < want.size(); g++) {
      ASSERT_EQ(want[g].size(), (*got)[g].size());
      for (size_t c = 0; c < want[g].size(); c++) {
        EXPECT_EQ(DebugString((*got)[g][c]), DebugString(want[g][c]))
            << "keys " << key_texts.size() << " group " << g << " column " << c;
      }
    }
  }
}

}  // namespace
}  // namespace tributary::sql
