#include "sql/exec/spill.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <random>

#include "common/memory_budget.h"
#include "sql/exec/aggregate_state.h"
#include "sql/exec/exec_test_util.h"
#include "sql/exec/operators.h"

namespace tributary::sql {
namespace {

// Columns of every representation a query row can have, NULLs in each: integers, floating
// point, strings, decimals and timestamps (Values), and nested values.
std::vector<Field> WideFields() {
  return {Field{0, "k", DataType::Int(), ""},
          Field{1, "i", DataType::BigInt(), ""},
          Field{2, "d", DataType::Double(), ""},
          Field{3, "s", DataType::String(), ""},
          Field{4, "b", DataType::Boolean(), ""},
          Field{5, "m", DataType::Decimal(20, 2), ""},
          Field{6, "t", DataType::Timestamp(9), ""},
          Field{7, "a", DataType::Array(DataType::String()), ""},
          Field{8, "f", DataType::Float(), ""},
          Field{9, "day", DataType::Date(), ""}};
}

Row WideRow(int64_t n, std::mt19937_64* rng) {
  auto maybe_null = [&](Value v) { return (*rng)() % 13 == 0 ? Value::Null() : v; };
  const int64_t r = static_cast<int64_t>((*rng)() % 1000000);
  return {maybe_null(Value::Int(r % 50)),
          Value::Int(n),
          maybe_null(Value::Double(static_cast<double>(r) / 7.0)),
          maybe_null(Value::String("s" + std::to_string(r) + std::string(r % 40, 'x'))),
          maybe_null(Value::Bool(r % 2 == 0)),
          maybe_null(Value::Dec(Decimal{static_cast<__int128>(r) * 1000003 - 500})),
          maybe_null(Value::Ts(Timestamp{r * 1000 - 7, static_cast<int32_t>(r % 999999)})),
          maybe_null(Value::Array({Value::String("e" + std::to_string(r % 5)), Value::Null()})),
          maybe_null(Value::Double(static_cast<double>(static_cast<float>(r) / 3.0f))),
          maybe_null(Value::Int(r % 30000))};
}

std::vector<Row> WideRows(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Row> rows;
  for (size_t i = 0; i < n; i++) rows.push_back(WideRow(static_cast<int64_t>(i), &rng));
  return rows;
}

Result<std::vector<Row>> Collect(OperatorPtr op) { return CollectRows(*op); }

// A spill file gives back every row it was given, in order, every type and NULL as it was,
// whichever representation the columns came in.
TEST(SpillFileTest, RoundTripsEveryColumnKind) {
  const std::vector<Field> fields = WideFields();
  const std::vector<Row> rows = WideRows(5000, 7);
  auto file = SpillFile::Create(fields, SpillOptions{}, 777);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  const int64_t files_before = SpillFilesTotal();
  // Batches of Value columns (as rows evaluated one by one make) and of typed columns.
  std::vector<Row> copy = rows;
  ColumnBatch first = RowsToBatch(fields, copy.begin(), copy.begin() + 2000);
  ASSERT_TRUE((*file)->Append(first, 0, first.num_rows).ok());
  auto typed_source = MakeRows(fields, std::vector<Row>(rows.begin() + 2000, rows.end()), "r");
  ColumnBatch b;
  while (true) {
    auto more = typed_source->Next(&b);
    ASSERT_TRUE(more.ok());
    if (!*more) break;
    std::vector<uint32_t> all(b.num_rows);
    for (uint32_t i = 0; i < b.num_rows; i++) all[i] = i;
    ASSERT_TRUE((*file)->AppendRows(b, all).ok());
  }
  ASSERT_TRUE((*file)->Finish().ok());
  EXPECT_EQ((*file)->rows(), 5000);
  EXPECT_EQ((*file)->segments(), 7u);  // 6 x 777 rows and the rest
  EXPECT_GT((*file)->bytes(), 0);
  EXPECT_GE(SpillFilesTotal(), files_before);
  std::vector<Row> back;
  for (size_t i = 0; i < (*file)->segments(); i++) {
    auto seg = (*file)->Read(i);
    ASSERT_TRUE(seg.ok()) << seg.status().ToString();
    for (size_t c = 0; c < fields.size(); c++) {
      EXPECT_EQ(seg->columns[c].rep, ColumnVector::RepOf(fields[c].type)) << c;
    }
    std::vector<Row> part = BatchRows(*seg);
    back.insert(back.end(), part.begin(), part.end());
  }
  ASSERT_EQ(back.size(), rows.size());
  for (size_t i = 0; i < rows.size(); i++) {
    for (size_t c = 0; c < fields.size(); c++) {
      ASSERT_EQ(DebugString(back[i][c]), DebugString(rows[i][c])) << "row " << i << " col " << c;
    }
  }
}

// A directory that cannot take spill files is an error naming it and the option.
TEST(SpillFileTest, UnwritableDirectoryIsAClearError) {
  auto file = SpillFile::Create(WideFields(), SpillOptions{{"/nonexistent/spill-here"}}, 100);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find("/nonexistent/spill-here"), std::string::npos);
  EXPECT_NE(file.status().message().find("io.tmp.dirs"), std::string::npos);
}

TEST(SpillFileTest, DirectoriesOfTheOption) {
  EXPECT_EQ(SpillDirs("/a, /b:/c"), (std::vector<std::string>{"/a", "/b", "/c"}));
  EXPECT_EQ(SpillDirs("").size(), 1u);
}

SortOptions SortBy(std::vector<SortKeySpec> keys, int64_t memory_limit) {
  SortOptions o;
  o.keys = std::move(keys);
  o.output_columns = WideFields().size();
  o.memory_limit = memory_limit;
  o.memory_limit_key = "sql.sort.memory-limit";
  return o;
}

// ORDER BY past its memory limit: the rows spilled in sorted runs and merged come out as the
// in-memory sort gives them (stable: ties in arrival order), ascending and descending, NULLs
// first and last, over more runs than one merge takes (merged in passes), with and without a
// LIMIT; and files were spilled.
TEST(SpillSortTest, SpilledSortEqualsTheInMemorySort) {
  const std::vector<Field> fields = WideFields();
  const std::vector<Row> rows = WideRows(36000, 11);  // 18 batches
  const std::vector<std::vector<SortKeySpec>> orders = {
      {SortKeySpec{0, false, true}},
      {SortKeySpec{3, true, false}},
      {SortKeySpec{5, false, false}, SortKeySpec{6, true, true}},
      {SortKeySpec{4, true, true}, SortKeySpec{2, false, true}},
      {SortKeySpec{9, false, true}, SortKeySpec{8, true, false}},
  };
  for (size_t o = 0; o < orders.size(); o++) {
    auto want = Collect(MakeSort(MakeRows(fields, rows, "r"), SortBy(orders[o], int64_t{1} << 30)));
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    // A run of several batches (one merge), and a run per batch (18: merged in two passes).
    for (int64_t limit : {int64_t{2} << 20, int64_t{32} << 10}) {
      const int64_t files_before = SpillFilesTotal();
      auto got = Collect(MakeSort(MakeRows(fields, rows, "r"), SortBy(orders[o], limit)));
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_GT(SpillFilesTotal() - files_before, limit < (int64_t{1} << 20) ? 16 : 1)
          << "order " << o;
      ASSERT_EQ(got->size(), want->size());
      for (size_t i = 0; i < want->size(); i++) {
        ASSERT_EQ((*got)[i][1], (*want)[i][1])
            << "order " << o << " limit " << limit << " row " << i;
      }
      SortOptions top = SortBy(orders[o], limit);
      top.limit = 15000;  // more than a run holds: its runs spill too
      auto first = Collect(MakeSort(MakeRows(fields, rows, "r"), top));
      ASSERT_TRUE(first.ok()) << first.status().ToString();
      ASSERT_EQ(first->size(), 15000u);
      for (size_t i = 0; i < first->size(); i++) ASSERT_EQ((*first)[i][1], (*want)[i][1]) << i;
    }
  }
}

// Spill files go to 'io.tmp.dirs' and are gone from it while the query still runs.
TEST(SpillSortTest, SpillFilesLeaveNothingInTheDirectory) {
  char tmpl[] = "/tmp/tributary-spill-test-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  SortOptions o = SortBy({SortKeySpec{1, true, true}}, 64 << 10);
  o.spill.dirs = {dir};
  auto sort = MakeSort(MakeRows(WideFields(), WideRows(20000, 3), "r"), o);
  ColumnBatch b;
  auto more = sort->Next(&b);  // the input read and spilled, the merge begun
  ASSERT_TRUE(more.ok() && *more) << more.status().ToString();
  EXPECT_EQ(b.columns[1].Get(0).int_value(), 19999);
  EXPECT_NE(sort->Describe().find("run(s) spilled"), std::string::npos) << sort->Describe();
  EXPECT_EQ(::rmdir(dir.c_str()), 0) << "spill files left in " << dir;
  auto bad = MakeSort(MakeRows(WideFields(), WideRows(20000, 3), "r"), o);  // dir gone now
  auto failed = bad->Next(&b);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find(dir), std::string::npos);
}

BoundExprPtr BindWide(const std::string& sql) { return BindOver(WideFields(), sql); }

// GROUP BY `keys` with COUNT(*), SUM(i), MAX(s), COUNT(DISTINCT day), MIN(m), each group's row
// as text, sorted (the groups come out in another order once some spill).
Result<std::vector<std::string>> GroupBy(const std::vector<std::string>& keys, int64_t limit,
                                         const std::vector<Row>& rows, std::string* explain,
                                         bool with_distinct = true) {
  AggregateBinding binding;
  for (const std::string& k : keys) binding.keys.push_back(BindWide(k));
  struct Spec {
    const char* function;
    const char* arg;
    bool distinct;
  };
  for (Spec spec : {Spec{"COUNT", nullptr, false}, Spec{"SUM", "i", false}, Spec{"MAX", "s", false},
                    Spec{"COUNT", "day", true}, Spec{"MIN", "m", false}}) {
    if (spec.distinct && !with_distinct) continue;
    AggregateCall call;
    call.function = spec.function;
    call.distinct = spec.distinct;
    if (spec.arg == nullptr) {
      call.star = true;
      call.type = DataType::BigInt();
    } else {
      call.arg = BindWide(spec.arg);
      call.type = call.function == std::string("COUNT") ? DataType::BigInt() : call.arg->type;
    }
    binding.calls.push_back(std::move(call));
  }
  OperatorPtr op = MakeAggregate(MakeRows(WideFields(), rows, "r"), std::move(binding), limit,
                                 "sql.aggregate.memory-limit");
  TRIB_ASSIGN_OR_RETURN(std::vector<Row> got, CollectRows(*op));
  if (explain != nullptr) *explain = op->Describe();
  std::vector<std::string> out;
  for (const Row& r : got) {
    std::string line;
    for (const Value& v : r) line += DebugString(v) + "|";
    out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// GROUP BY past its memory limit: the groups held take their rows, the other rows spill by key
// and are grouped partition by partition (again partitioned when a partition does not fit):
// every group comes out once with the aggregates the in-memory GROUP BY gives, for integer,
// string, several and nullable keys.
TEST(SpillAggregateTest, SpilledGroupByEqualsTheInMemoryOne) {
  const std::vector<Row> rows = WideRows(30000, 5);
  const std::vector<std::vector<std::string>> key_sets = {
      {"i"}, {"s"}, {"k", "day"}, {"t"}, {"day"}};
  for (const auto& keys : key_sets) {
    for (int64_t limit : {int64_t{256} << 10, int64_t{64} << 10}) {
      // COUNT(DISTINCT) too where its sets' growth in the groups held (the NULL key's group
      // takes a twelfth of the rows) stays within the limit.
      const bool with_distinct = limit > (int64_t{64} << 10);
      auto want = GroupBy(keys, int64_t{1} << 30, rows, nullptr, with_distinct);
      ASSERT_TRUE(want.ok()) << want.status().ToString();
      std::string explain;
      const int64_t bytes_before = SpilledBytesTotal();
      auto got = GroupBy(keys, limit, rows, &explain, with_distinct);
      ASSERT_TRUE(got.ok()) << keys[0] << ": " << got.status().ToString();
      if (want->size() > 2000) {
        EXPECT_GT(SpilledBytesTotal(), bytes_before) << keys[0];
        EXPECT_NE(explain.find("spilled"), std::string::npos) << explain;
      }
      ASSERT_EQ(*got, *want) << keys[0] << " limit " << limit;
    }
  }
}

// A partition that does not fit either is partitioned again (by another hash): more is spilled
// than the input holds, and the result is still every group once.
TEST(SpillAggregateTest, PartitionsThatDoNotFitArePartitionedAgain) {
  const std::vector<Row> rows = WideRows(60000, 9);
  auto want = GroupBy({"i"}, int64_t{1} << 30, rows, nullptr, false);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  const int64_t bytes_before = SpilledBytesTotal();
  auto once = GroupBy({"i"}, int64_t{4} << 20, rows, nullptr, false);
  ASSERT_TRUE(once.ok()) << once.status().ToString();
  const int64_t spilled_once = SpilledBytesTotal() - bytes_before;
  EXPECT_GT(spilled_once, 0);
  auto again = GroupBy({"i"}, int64_t{16} << 10, rows, nullptr, false);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_GT(SpilledBytesTotal() - bytes_before - spilled_once, spilled_once);
  EXPECT_EQ(*once, *want);
  EXPECT_EQ(*again, *want);
}

// SELECT COUNT(DISTINCT s) of `rows` (one group), within `limit`.
Result<std::vector<Row>> CountDistinctS(const std::vector<Row>& rows, int64_t limit) {
  AggregateBinding binding;
  AggregateCall call;
  call.function = "COUNT";
  call.distinct = true;
  call.arg = BindWide("s");
  call.type = DataType::BigInt();
  binding.calls.push_back(std::move(call));
  return CollectRows(*MakeAggregate(MakeRows(WideFields(), rows, "r"), std::move(binding), limit,
                                    "sql.aggregate.memory-limit"));
}

// Without GROUP BY there is one group: what its state outgrows is an error naming the option.
TEST(SpillAggregateTest, OneGroupOverItsLimitIsAnError) {
  const std::vector<Row> rows = WideRows(30000, 5);
  auto got = CountDistinctS(rows, 64 << 10);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("sql.aggregate.memory-limit"), std::string::npos);
}

// The operators charge what they hold to the process's budget (common/memory_budget.h): while
// writers' buffers (here a charge standing for them) leave no room in it, an ORDER BY, a GROUP BY,
// a DISTINCT and a hash join spill well before their own limits (1 GiB here) and answer as in
// memory; an aggregate of one group, which cannot spill, keeps going up to its own limit; each
// operator's charge goes with it.
TEST(SpillBudgetTest, OperatorsSpillWhenTheProcessBudgetIsTaken) {
  MemoryBudget& budget = MemoryBudget::Instance();
  const int64_t saved_total = budget.total();
  const int64_t operators_before = budget.operators();
  const std::vector<Field> fields = WideFields();
  const std::vector<Row> rows = WideRows(60000, 13);
  constexpr int64_t kGiB = int64_t{1} << 30;
  const std::vector<SortKeySpec> order = {SortKeySpec{3, false, true}, SortKeySpec{1, false, true}};

  // Unpressed: in memory, the charge seen while the rows are held.
  auto sort = MakeSort(MakeRows(fields, rows, "r"), SortBy(order, kGiB));
  ColumnBatch first;
  ASSERT_TRUE(sort->Next(&first).ok());
  EXPECT_GT(budget.operators() - operators_before, MemoryCharge::kMinGrant);
  auto rest = CollectRows(*sort);
  ASSERT_TRUE(rest.ok()) << rest.status().ToString();
  EXPECT_EQ(first.num_rows + rest->size(), rows.size());
  EXPECT_EQ(budget.operators(), operators_before);  // handed out: released, the sort still alive
  // So do a GROUP BY's and a DISTINCT's once their rows are handed out.
  std::vector<OperatorPtr> holders;
  AggregateBinding by_i;
  by_i.keys.push_back(BindWide("i"));
  holders.push_back(MakeAggregate(MakeRows(fields, rows, "r"), std::move(by_i), kGiB,
                                  "sql.aggregate.memory-limit"));
  holders.push_back(MakeDistinct(MakeRows({fields[1]}, rows, "r"), kGiB, "k"));
  for (OperatorPtr& op : holders) {
    ASSERT_TRUE(op->Next(&first).ok());
    EXPECT_GT(budget.operators(), operators_before) << op->Describe();  // what it holds
    ASSERT_TRUE(CollectRows(*op).ok());
    EXPECT_EQ(budget.operators(), operators_before) << op->Describe();
  }
  int64_t files_before = SpillFilesTotal();
  auto want_sorted = Collect(MakeSort(MakeRows(fields, rows, "r"), SortBy(order, kGiB)));
  ASSERT_TRUE(want_sorted.ok());
  auto want_groups = GroupBy({"i"}, kGiB, rows, nullptr, false);
  ASSERT_TRUE(want_groups.ok());
  std::vector<Row> keys;
  for (const Row& r : rows) keys.push_back({r[3]});
  auto want_distinct = Collect(MakeDistinct(MakeRows({fields[3]}, keys, "r"), kGiB, "k"));
  ASSERT_TRUE(want_distinct.ok());
  EXPECT_EQ(SpillFilesTotal(), files_before);

  // Pressed: a 64 MiB process whose buffers' and operators' share (56 MiB) is all but taken.
  budget.SetTotalForTesting(64 << 20);
  const int64_t taken = budget.buffer_limit() - budget.buffered() - budget.operators() - (1 << 20);
  budget.ChargeBuffers(taken);
  files_before = SpillFilesTotal();
  auto sorted = Collect(MakeSort(MakeRows(fields, rows, "r"), SortBy(order, kGiB)));
  const int64_t sort_files = SpillFilesTotal() - files_before;
  int64_t bytes_before = SpilledBytesTotal();
  std::string explain;
  auto groups = GroupBy({"i"}, kGiB, rows, &explain, false);
  const int64_t group_bytes = SpilledBytesTotal() - bytes_before;
  bytes_before = SpilledBytesTotal();
  auto distinct = Collect(MakeDistinct(MakeRows({fields[3]}, keys, "r"), kGiB, "k"));
  const int64_t distinct_bytes = SpilledBytesTotal() - bytes_before;
  auto counted = CountDistinctS(rows, kGiB);
  HashJoinSpec join;
  join.left_keys.push_back(BindWide("i"));
  join.right_keys.push_back(BindWide("i"));
  join.memory_limit = kGiB;
  join.memory_limit_key = "sql.join.memory-limit";
  bytes_before = SpilledBytesTotal();
  auto joined = CollectRows(
      *MakeHashJoin(MakeRows(fields, rows, "l"), MakeRows(fields, rows, "r"), std::move(join)));
  const int64_t join_bytes = SpilledBytesTotal() - bytes_before;
  budget.ChargeBuffers(-taken);
  budget.SetTotalForTesting(saved_total);
  EXPECT_EQ(budget.operators(), operators_before);

  ASSERT_TRUE(sorted.ok()) << sorted.status().ToString();
  EXPECT_GT(sort_files, 1);
  ASSERT_EQ(sorted->size(), want_sorted->size());
  for (size_t i = 0; i < sorted->size(); i++) ASSERT_EQ((*sorted)[i][1], (*want_sorted)[i][1]) << i;
  ASSERT_TRUE(groups.ok()) << groups.status().ToString();
  EXPECT_GT(group_bytes, 0);
  EXPECT_NE(explain.find("spilled"), std::string::npos) << explain;
  EXPECT_EQ(*groups, *want_groups);
  ASSERT_TRUE(distinct.ok()) << distinct.status().ToString();
  EXPECT_GT(distinct_bytes, 0);
  auto sorted_text = [](std::vector<Row> v) {
    std::vector<std::string> out;
    for (const Row& r : v) out.push_back(DebugString(r[0]));
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(sorted_text(*distinct), sorted_text(*want_distinct));
  ASSERT_TRUE(counted.ok()) << counted.status().ToString();
  ASSERT_EQ(counted->size(), 1u);
  ASSERT_TRUE(joined.ok()) << joined.status().ToString();
  EXPECT_GT(join_bytes, 0);
  ASSERT_EQ(joined->size(), rows.size());  // i is unique: each row joins itself
  for (const Row& r : *joined) ASSERT_EQ(r[1], r[fields.size() + 1]);
}

}  // namespace
}  // namespace tributary::sql
