// The oracle cases of PAIMON_FORMAT.md 2.2 (from Paimon's own tests), run on the merge engines.
#include <gtest/gtest.h>

#include <map>

#include "merge/merge_function.h"

namespace tributary::merge {
namespace {

// A table (f0 INT primary key, f1..fn INT) with options; feeds records in order.
class Engine {
 public:
  Engine(int arity, std::map<std::string, std::string> options, std::vector<DataType> types = {}) {
    for (int i = 0; i < arity; i++) {
      DataType t = i < static_cast<int>(types.size()) ? types[i] : DataType::Int();
      if (i == 0) t = t.NotNull();
      schema_.fields.push_back({i, "f" + std::to_string(i), t, ""});
    }
    schema_.primary_keys = {"f0"};
    schema_.options = std::move(options);
    auto c = MergeConfig::Make(schema_);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    config_ = *c;
    auto f = MakeMergeFunction(config_, schema_);
    EXPECT_TRUE(f.ok()) << f.status().ToString();
    fn_ = std::move(*f);
    fn_->Reset();
  }
  Status Add(RowKind kind, std::vector<std::optional<int64_t>> v) {
    KeyValue kv;
    kv.sequence = seq_++;
    kv.kind = kind;
    for (auto& x : v) kv.value.push_back(x ? Value::Int(*x) : Value());
    fn_->PrepareInput(&kv);
    return fn_->Add(kv);
  }
  Status Add(std::vector<std::optional<int64_t>> v) { return Add(RowKind::kInsert, std::move(v)); }
  Row Result() {
    EXPECT_TRUE(fn_->Complete().ok());
    auto r = fn_->Result();
    EXPECT_TRUE(r.has_value());
    return r ? r->value : Row{};
  }
  RowKind Kind() { return fn_->Result()->kind; }
  static Row R(std::vector<std::optional<int64_t>> v) {
    Row r;
    for (auto& x : v) r.push_back(x ? Value::Int(*x) : Value());
    return r;
  }

  TableSchema schema_;
  std::shared_ptr<const MergeConfig> config_;
  std::unique_ptr<MergeFunction> fn_;
  int64_t seq_ = 0;
};

constexpr std::nullopt_t N = std::nullopt;
const RowKind D = RowKind::kDelete;

TEST(PartialUpdateOracle, Case1UpdateNonNull) {
  Engine e(7, {{"merge-engine", "partial-update"}});
  ASSERT_TRUE(e.Add({1, 1, 1, 1, 1, 1, 1}).ok());
  ASSERT_TRUE(e.Add({1, 2, 2, 2, 2, 2, N}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 2, 2, 2, 2, 2, 1}));
}

std::map<std::string, std::string> GroupOpts() {
  return {{"merge-engine", "partial-update"},
          {"fields.f3.sequence-group", "f1,f2"},
          {"fields.f6.sequence-group", "f4,f5"}};
}

TEST(PartialUpdateOracle, Case2SequenceGroup) {
  Engine e(7, GroupOpts());
  ASSERT_TRUE(e.Add({1, 1, 1, 1, 1, 1, 1}).ok());
  ASSERT_TRUE(e.Add({1, 2, 2, 2, 2, 2, N}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 2, 2, 2, 1, 1, 1}));
  ASSERT_TRUE(e.Add({1, 3, 3, 1, 3, 3, 3}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 2, 2, 2, 3, 3, 3}));
  ASSERT_TRUE(e.Add(D, {1, 1, 1, 3, 1, 1, N}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, N, N, 3, 3, 3, 3}));
  ASSERT_TRUE(e.Add(D, {1, 1, 1, 3, 1, 1, 4}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, N, N, 3, N, N, 4}));
  ASSERT_TRUE(e.Add({1, 4, 4, 4, 5, 5, 5}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 4, 4, 4, 5, 5, 5}));
  ASSERT_TRUE(e.Add(D, {1, 1, 1, 6, 1, 1, 6}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, N, N, 6, N, N, 6}));
}

TEST(PartialUpdateOracle, Case3SequenceGroupPartialDelete) {
  auto opts = GroupOpts();
  opts["partial-update.remove-record-on-sequence-group"] = "f6";
  Engine e(7, opts);
  ASSERT_TRUE(e.Add({1, 1, 1, 1, 1, 1, 1}).ok());
  ASSERT_TRUE(e.Add({1, 2, 2, 2, 2, 2, N}).ok());
  ASSERT_TRUE(e.Add({1, 3, 3, 1, 3, 3, 3}).ok());
  ASSERT_TRUE(e.Add(D, {1, 1, 1, 3, 1, 1, N}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, N, N, 3, 3, 3, 3}));
  ASSERT_TRUE(e.Add(D, {1, 1, 1, 3, 1, 1, 4}).ok());
  EXPECT_EQ(e.Kind(), RowKind::kDelete);
  EXPECT_EQ(e.Result(), Engine::R({1, 1, 1, 3, 1, 1, 4}));
  ASSERT_TRUE(e.Add({1, 4, 4, 4, 5, 5, 5}).ok());
  EXPECT_EQ(e.Kind(), RowKind::kInsert);
  EXPECT_EQ(e.Result(), Engine::R({1, 4, 4, 4, 5, 5, 5}));
  ASSERT_TRUE(e.Add(D, {1, 1, 1, 6, 1, 1, 6}).ok());
  EXPECT_EQ(e.Kind(), RowKind::kDelete);
}

TEST(PartialUpdateOracle, Case4MultiSequenceFields) {
  Engine e(9, {{"merge-engine", "partial-update"},
               {"fields.f3,f4.sequence-group", "f1,f2"},
               {"fields.f7,f8.sequence-group", "f5,f6"}});
  ASSERT_TRUE(e.Add({1, N, N, N, N, 1, 1, 1, 3}).ok());
  ASSERT_TRUE(e.Add({1, 2, 2, N, N, 2, 2, 1, 3}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, N, N, N, N, 2, 2, 1, 3}));
}

TEST(PartialUpdateOracle, Case5FirstValueInGroup) {
  Engine e(4, {{"merge-engine", "partial-update"},
               {"fields.f1.sequence-group", "f2,f3"},
               {"fields.f2.aggregate-function", "first_value"},
               {"fields.f3.aggregate-function", "last_value"}});
  ASSERT_TRUE(e.Add({1, 1, 1, 1}).ok());
  ASSERT_TRUE(e.Add({1, 2, 2, 2}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 2, 1, 2}));
  ASSERT_TRUE(e.Add({1, 0, 3, 3}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 2, 3, 2}));
}

TEST(PartialUpdateOracle, Case6And7RemoveRecordOnDelete) {
  Engine e(
      5, {{"merge-engine", "partial-update"}, {"partial-update.remove-record-on-delete", "true"}});
  ASSERT_TRUE(e.Add({1, 1, 1, 1, 1}).ok());
  ASSERT_TRUE(e.Add(D, {1, 1, 1, 1, 1}).ok());
  EXPECT_EQ(e.Kind(), RowKind::kDelete);
  EXPECT_EQ(e.fn_->Result()->sequence, 1);
  Engine e7(
      4, {{"merge-engine", "partial-update"}, {"partial-update.remove-record-on-delete", "true"}});
  ASSERT_TRUE(e7.Add({1, 3, 5, 7}).ok());
  ASSERT_TRUE(e7.Add(D, {1, 2, 2, N}).ok());
  EXPECT_EQ(e7.Result(), Engine::R({1, 2, 2, N}));
}

TEST(PartialUpdateOracle, Case8DeleteRejectedByDefault) {
  Engine e(3, {{"merge-engine", "partial-update"}});
  ASSERT_TRUE(e.Add({1, 1, 1}).ok());
  Status st = e.Add(D, {1, 1, 1});
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("ignore-delete"), std::string::npos);
}

TEST(PartialUpdateOracle, Case9DocsExample) {
  Engine e(4, {{"merge-engine", "partial-update"}});
  ASSERT_TRUE(e.Add({1, 23, 10, N}).ok());
  ASSERT_TRUE(e.Add({1, N, N, 7}).ok());
  ASSERT_TRUE(e.Add({1, 25, N, N}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 25, 10, 7}));
}

TEST(PartialUpdateOracle, Case10AggregatesInGroups) {
  Engine e(5, {{"merge-engine", "partial-update"},
               {"fields.f1.sequence-group", "f2"},
               {"fields.f2.aggregate-function", "first_value"},
               {"fields.f3.sequence-group", "f4"},
               {"fields.f4.aggregate-function", "sum"}});
  ASSERT_TRUE(e.Add({1, 1, 1, N, N}).ok());
  ASSERT_TRUE(e.Add({1, N, N, 1, 1}).ok());
  ASSERT_TRUE(e.Add({1, 2, 2, N, N}).ok());
  ASSERT_TRUE(e.Add({1, N, N, 2, 2}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 2, 1, 2, 3}));
}

TEST(PartialUpdateOracle, Case11OlderSequenceStillSummed) {
  // Paimon docs: (k, a, b, g_1, c, g_2, g_3), a sum; fields.g_1,g_3.sequence-group = a;
  // fields.g_2.sequence-group = c.
  Engine e(7, {{"merge-engine", "partial-update"},
               {"fields.f3,f6.sequence-group", "f1"},
               {"fields.f1.aggregate-function", "sum"},
               {"fields.f5.sequence-group", "f4"}});
  ASSERT_TRUE(e.Add({1, 1, 1, 1, 1, 1, 1}).ok());
  ASSERT_TRUE(e.Add({1, 2, 2, 2, 2, N, 2}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 3, 2, 2, 1, 1, 2}));
  ASSERT_TRUE(e.Add({1, 3, 3, 2, 3, 3, 1}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 6, 3, 2, 3, 3, 2}));
}

TEST(PartialUpdateOracle, Case12SumAndLastNonNullInOneGroup) {
  Engine e(4, {{"merge-engine", "partial-update"},
               {"fields.f3.sequence-group", "f1,f2"},
               {"fields.f1.aggregate-function", "sum"},
               {"fields.f2.aggregate-function", "last_non_null_value"}});
  ASSERT_TRUE(e.Add({1, 1, 1, 1}).ok());
  ASSERT_TRUE(e.Add({1, 2, 2, 2}).ok());
  ASSERT_TRUE(e.Add({1, 3, 3, 1}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 6, 2, 2}));
}

TEST(PartialUpdateOracle, Case13RemoveRecordOnDeleteWithSequenceGroup) {
  // (k, a, seq_a, b, seq_b) with seq_a -> a, seq_b -> b, remove on seq_a.
  Engine e(5, {{"merge-engine", "partial-update"},
               {"fields.f2.sequence-group", "f1"},
               {"fields.f4.sequence-group", "f3"},
               {"partial-update.remove-record-on-sequence-group", "f2"}});
  ASSERT_TRUE(e.Add({1, 100, 2, 10, 1}).ok());
  ASSERT_TRUE(e.Add({1, 200, 1, 20, 2}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 100, 2, 20, 2}));
  ASSERT_TRUE(e.Add(D, {1, N, N, 20, 2}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 100, 2, N, 2}));
  ASSERT_TRUE(e.Add(D, {1, 100, 2, N, N}).ok());
  EXPECT_EQ(e.Kind(), RowKind::kDelete);
}

TEST(AggregationOracle, Case14DefaultFunction) {
  Engine e(5, {{"merge-engine", "aggregation"},
               {"fields.default-aggregate-function", "first_non_null_value"},
               {"fields.f2.aggregate-function", "sum"}});
  ASSERT_TRUE(e.Add({1, N, 1, 1, 1}).ok());
  ASSERT_TRUE(e.Add({1, 2, N, 2, 2}).ok());
  ASSERT_TRUE(e.Add({1, 3, 3, N, 3}).ok());
  ASSERT_TRUE(e.Add({1, 4, 4, 4, N}).ok());
  ASSERT_TRUE(e.Add({1, 5, 5, 5, 5}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 2, 13, 1, 1}));
}

TEST(AggregationOracle, Case15ListAggDelimiters) {
  for (std::string d : {",", "-", "/"}) {
    TableSchema s;
    s.fields = {{0, "k", DataType::Int().NotNull(), ""}, {1, "v", DataType::String(), ""}};
    s.primary_keys = {"k"};
    s.options = {{"merge-engine", "aggregation"}, {"fields.v.aggregate-function", "listagg"}};
    if (d != ",") s.options["fields.v.list-agg-delimiter"] = d;
    auto fn = MakeMergeFunction(s);
    ASSERT_TRUE(fn.ok()) << fn.status().ToString();
    (*fn)->Reset();
    for (int i = 1; i <= 5; i++) {
      ASSERT_TRUE((*fn)
                      ->Add({i,
                             RowKind::kInsert,
                             {Value::Int(1), Value::String(std::to_string(i))},
                             0,
                             nullptr})
                      .ok());
    }
    EXPECT_EQ((*fn)->Result()->value[1].string_value(),
              "1" + d + "2" + d + "3" + d + "4" + d + "5");
  }
}

TEST(AggregationOracle, Case16FieldLevelRetract) {
  Engine sum(2, {{"merge-engine", "aggregation"}, {"fields.f1.aggregate-function", "sum"}});
  ASSERT_TRUE(sum.Add({1, 10}).ok());
  ASSERT_TRUE(sum.Add(RowKind::kUpdateBefore, {1, 5}).ok());
  EXPECT_EQ(sum.Result(), Engine::R({1, 5}));
  Engine neg(2, {{"merge-engine", "aggregation"}, {"fields.f1.aggregate-function", "sum"}});
  ASSERT_TRUE(neg.Add(D, {1, 5}).ok());
  EXPECT_EQ(neg.Result(), Engine::R({1, -5}));
  Engine prod(2, {{"merge-engine", "aggregation"}, {"fields.f1.aggregate-function", "product"}});
  ASSERT_TRUE(prod.Add({1, 10}).ok());
  ASSERT_TRUE(prod.Add(D, {1, 5}).ok());
  EXPECT_EQ(prod.Result(), Engine::R({1, 2}));
  Engine last(2, {{"merge-engine", "aggregation"}, {"fields.f1.aggregate-function", "last_value"}});
  ASSERT_TRUE(last.Add({1, 1}).ok());
  ASSERT_TRUE(last.Add({1, N}).ok());
  EXPECT_EQ(last.Result(), Engine::R({1, N}));
  Engine lnn(2, {{"merge-engine", "aggregation"}});  // default last_non_null_value
  ASSERT_TRUE(lnn.Add({1, 1}).ok());
  ASSERT_TRUE(lnn.Add({1, N}).ok());
  EXPECT_EQ(lnn.Result(), Engine::R({1, 1}));
  ASSERT_TRUE(lnn.Add(D, {1, 7}).ok());
  EXPECT_EQ(lnn.Result(), Engine::R({1, N}));
  Engine first(2,
               {{"merge-engine", "aggregation"}, {"fields.f1.aggregate-function", "first_value"}});
  ASSERT_TRUE(first.Add({1, 1}).ok());
  ASSERT_TRUE(first.Add({1, 2}).ok());
  EXPECT_EQ(first.Result(), Engine::R({1, 1}));
  for (const char* fn : {"max", "min", "first_value"}) {
    Engine e(2, {{"merge-engine", "aggregation"}, {"fields.f1.aggregate-function", fn}});
    ASSERT_TRUE(e.Add({1, 1}).ok());
    EXPECT_FALSE(e.Add(D, {1, 1}).ok()) << fn;
  }
  Engine ignored(2, {{"merge-engine", "aggregation"},
                     {"fields.f1.aggregate-function", "max"},
                     {"fields.f1.ignore-retract", "true"}});
  ASSERT_TRUE(ignored.Add({1, 3}).ok());
  ASSERT_TRUE(ignored.Add(D, {1, 3}).ok());
  EXPECT_EQ(ignored.Result(), Engine::R({1, 3}));
  Engine overflow(2, {{"merge-engine", "aggregation"}, {"fields.f1.aggregate-function", "sum"}});
  ASSERT_TRUE(overflow.Add({1, 2147483647}).ok());
  EXPECT_FALSE(overflow.Add({1, 1}).ok());
}

TEST(AggregationOracle, Case17RemoveRecordOnDelete) {
  Engine e(4, {{"merge-engine", "aggregation"},
               {"aggregation.remove-record-on-delete", "true"},
               {"fields.default-aggregate-function", "sum"}});
  ASSERT_TRUE(e.Add({1, 0, 0, 5}).ok());
  ASSERT_TRUE(e.Add(D, {1, 2, 2, N}).ok());
  EXPECT_EQ(e.Kind(), RowKind::kDelete);
  EXPECT_EQ(e.Result(), Engine::R({1, 2, 2, N}));
}

TEST(AggregationOracle, CountCountsNonNullInputsAndRemerges) {
  Engine e(2, {{"merge-engine", "aggregation"}, {"fields.f1.aggregate-function", "count"}},
           {DataType::Int(), DataType::BigInt()});
  ASSERT_TRUE(e.Add({1, 42}).ok());
  ASSERT_TRUE(e.Add({1, N}).ok());
  ASSERT_TRUE(e.Add({1, 7}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 2}));
  // A stored count (already prepared) re-merged by compaction adds up.
  KeyValue stored{10, RowKind::kInsert, Engine::R({1, 2}), 0, nullptr};
  ASSERT_TRUE(e.fn_->Add(stored).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 4}));
}

TEST(FirstRowOracle, Case21And22) {
  Engine e(3, {{"merge-engine", "first-row"}});
  ASSERT_TRUE(e.Add({1, 1, 1}).ok());
  ASSERT_TRUE(e.Add({1, 3, 3}).ok());
  ASSERT_TRUE(e.Add({1, 4, 4}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 1, 1}));
  EXPECT_FALSE(e.Add(RowKind::kUpdateBefore, {1, 1, 1}).ok());
  Engine ig(3, {{"merge-engine", "first-row"}, {"ignore-delete", "true"}});
  ASSERT_TRUE(ig.Add({1, 1, 1}).ok());
  ASSERT_TRUE(ig.Add(RowKind::kUpdateBefore, {1, 1, 1}).ok());
  ASSERT_TRUE(ig.Add(RowKind::kUpdateAfter, {1, 2, 2}).ok());
  EXPECT_EQ(ig.Result(), Engine::R({1, 1, 1}));
  // first-row refuses sequence.field at CREATE.
  TableSchema s = e.schema_;
  s.options["sequence.field"] = "f1";
  EXPECT_FALSE(MergeConfig::Make(s).ok());
}

TEST(DeduplicateOracle, LatestWinsAndDeleteRemoves) {
  Engine e(2, {});
  ASSERT_TRUE(e.Add({1, 2}).ok());
  ASSERT_TRUE(e.Add({1, 4}).ok());
  ASSERT_TRUE(e.Add({1, 8}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 8}));
  ASSERT_TRUE(e.Add(D, {1, 8}).ok());
  EXPECT_EQ(e.Kind(), RowKind::kDelete);
}

TEST(PartialUpdateOracle, IgnoreDeleteSkipsDeletes) {
  // As the pk_table_partial_update fixture (case 29) is read: deletes skipped, non-null wins.
  Engine e(4, {{"merge-engine", "partial-update"}, {"ignore-delete", "true"}});
  ASSERT_TRUE(e.Add({1, 0, N, 5}).ok());
  ASSERT_TRUE(e.Add(D, {1, 122, 0, N}).ok());
  ASSERT_TRUE(e.Add({1, N, 1, N}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 0, 1, 5}));
}

TEST(AggregationOracle, IgnoreDeleteSkipsRetractions) {
  // 'ignore-delete' drops DELETE and UPDATE_BEFORE records for every engine (Paimon's writer
  // drops them; its readers skip those of older files): a sum is not retracted.
  Engine e(2, {{"merge-engine", "aggregation"},
               {"fields.f1.aggregate-function", "sum"},
               {"ignore-delete", "true"}});
  ASSERT_TRUE(e.Add({1, 7}).ok());
  ASSERT_TRUE(e.Add(D, {1, 7}).ok());
  ASSERT_TRUE(e.Add({1, 3}).ok());
  EXPECT_EQ(e.Result(), Engine::R({1, 10}));
  EXPECT_EQ(e.Kind(), RowKind::kInsert);
}

TEST(SequenceFieldOracle, Case18NullSequenceSortsLowest) {
  // sequence.field = f2,f3 ; aggregation default (last_non_null_value).
  TableSchema s;
  s.fields = {{0, "f0", DataType::Int().NotNull(), ""},
              {1, "f1", DataType::String(), ""},
              {2, "f2", DataType::Int(), ""},
              {3, "f3", DataType::Int(), ""}};
  s.primary_keys = {"f0"};
  s.options = {{"merge-engine", "aggregation"}, {"sequence.field", "f2,f3"}};
  auto c = MergeConfig::Make(s);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  SequenceOrder order(*c);
  KeyValue a{0,
             RowKind::kInsert,
             {Value::Int(1), Value::String("A1"), Value(), Value::Int(1)},
             0,
             nullptr};
  KeyValue b{1,
             RowKind::kInsert,
             {Value::Int(1), Value::String("A2"), Value::Int(1), Value()},
             0,
             nullptr};
  KeyValue d{2,
             RowKind::kInsert,
             {Value::Int(1), Value::String("A3"), Value::Int(1), Value::Int(0)},
             0,
             nullptr};
  EXPECT_LT(order.Compare(a, b), 0);  // null f2 sorts lowest
  EXPECT_LT(order.Compare(b, d), 0);  // null f3 below 0
  auto fn = MakeMergeFunction(*c, s);
  ASSERT_TRUE(fn.ok());
  for (auto* kv : {&a, &b}) ASSERT_TRUE((*fn)->Add(*kv).ok());
  EXPECT_EQ((*fn)->Result()->value[1].string_value(), "A2");
  EXPECT_TRUE((*fn)->Result()->value[3].is_null());  // sequence fields keep the latest value
  ASSERT_TRUE((*fn)->Add(d).ok());
  EXPECT_EQ((*fn)->Result()->value[1].string_value(), "A3");
}

// Oracle case 24 (LookupChangelogMergeFunctionWrapperTest, sum): in a lookup table the newest
// record above level 0 already holds the key's older records, so only it and level 0 merge.
TEST(LookupLevelsOracle, Case24OnlyTheNewestHighLevelRecordMergesWithLevel0) {
  TableSchema s;
  s.fields = {{0, "k", DataType::Int().NotNull(), ""}, {1, "v", DataType::Int(), ""}};
  s.primary_keys = {"k"};
  s.options = {{"merge-engine", "aggregation"},
               {"fields.v.aggregate-function", "sum"},
               {"changelog-producer", "lookup"}};
  auto c = MergeConfig::Make(s);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE((*c)->lookup_levels);
  auto kv = [](int64_t seq, int32_t level, int64_t v) {
    return KeyValue{seq, RowKind::kInsert, {Value::Int(1), Value::Int(v)}, level, nullptr};
  };
  auto fn = MakeMergeFunction(*c, s);
  ASSERT_TRUE(fn.ok());
  // [L3 1, L2 1, L1 2, L0 2] -> 4: L1's 2 and L0's 2.
  (*fn)->Reset();
  for (const KeyValue& r : {kv(0, 3, 1), kv(1, 2, 1), kv(2, 1, 2), kv(3, 0, 2)}) {
    ASSERT_TRUE((*fn)->Add(r).ok());
  }
  ASSERT_TRUE((*fn)->Complete().ok());
  EXPECT_EQ((*fn)->TakeResult()->value[1].int_value(), 4);
  // Without level 0 the newest high-level record is the value.
  (*fn)->Reset();
  for (const KeyValue& r : {kv(0, 3, 1), kv(1, 2, 5)}) ASSERT_TRUE((*fn)->Add(r).ok());
  ASSERT_TRUE((*fn)->Complete().ok());
  EXPECT_EQ((*fn)->TakeResult()->value[1].int_value(), 5);
  // Level 0 alone, with a lookup below the merged levels: the found record joins the merge.
  int lookups = 0;
  auto with_below =
      MakeMergeFunction(*c, s, [&](const Row& value) -> Result<std::optional<KeyValue>> {
        lookups++;
        EXPECT_EQ(value[0].int_value(), 1);
        return std::optional<KeyValue>(kv(0, 4, 10));
      });
  ASSERT_TRUE(with_below.ok());
  (*with_below)->Reset();
  for (const KeyValue& r : {kv(5, 0, 2), kv(6, 0, 3)}) ASSERT_TRUE((*with_below)->Add(r).ok());
  ASSERT_TRUE((*with_below)->Complete().ok());
  EXPECT_EQ((*with_below)->TakeResult()->value[1].int_value(), 15);
  // A record above level 0 among those merged: no lookup.
  (*with_below)->Reset();
  for (const KeyValue& r : {kv(4, 2, 7), kv(5, 0, 2)}) ASSERT_TRUE((*with_below)->Add(r).ok());
  ASSERT_TRUE((*with_below)->Complete().ok());
  EXPECT_EQ((*with_below)->TakeResult()->value[1].int_value(), 9);
  EXPECT_EQ(lookups, 1);
  // A plain deduplicate table needs none of this; first-row neither.
  s.options = {{"changelog-producer", "lookup"}};
  EXPECT_FALSE((*MergeConfig::Make(s))->lookup_levels);
  s.options = {{"changelog-producer", "lookup"}, {"merge-engine", "first-row"}};
  EXPECT_FALSE((*MergeConfig::Make(s))->lookup_levels);
}

TEST(ValidationTest, CreateErrorsNameTheProblem) {
  TableSchema s;
  s.fields = {{0, "k", DataType::Int().NotNull(), ""}, {1, "s", DataType::String(), ""}};
  s.primary_keys = {"k"};
  s.options = {{"merge-engine", "aggregation"}, {"fields.s.aggregate-function", "sum"}};
  auto c = MergeConfig::Make(s);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("'s'"), std::string::npos) << c.status().message();
  s.options = {{"merge-engine", "partial-update"}, {"fields.s.sequence-group", "k"}};
  EXPECT_FALSE(MergeConfig::Make(s).ok());
  s.options = {{"merge-engine", "versioned"}};
  EXPECT_FALSE(MergeConfig::Make(s).ok());
  s.options = {{"merge-engine", "versioned"}, {"table.merge-engine.versioned.ver-column", "s"}};
  EXPECT_FALSE(MergeConfig::Make(s).ok());
}

}  // namespace
}  // namespace tributary::merge
