#include "merge/sort_merge_reader.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace tributary::merge {
namespace {

KeyValue Kv(int64_t key, int64_t seq, RowKind kind, int64_t v) {
  return KeyValue{seq, kind, {Value::Int(key), Value::Int(v)}, 0, nullptr};
}

TableSchema Schema() {
  TableSchema s;
  s.fields = {{0, "k", DataType::BigInt().NotNull(), ""}, {1, "v", DataType::BigInt(), ""}};
  s.primary_keys = {"k"};
  return s;
}

SequenceOrder Order() { return SequenceOrder(*MergeConfig::Make(Schema())); }

std::unique_ptr<MergeFunction> Dedup() {
  TableSchema s;
  s.fields = {{0, "k", DataType::BigInt().NotNull(), ""}, {1, "v", DataType::BigInt(), ""}};
  s.primary_keys = {"k"};
  auto r = MakeMergeFunction(s);
  return std::move(r).value();
}

TEST(SortMergeReaderTest, LatestSequenceWinsAcrossRuns) {
  std::vector<std::unique_ptr<RecordSource>> runs;
  runs.push_back(std::make_unique<VectorSource>(
      std::vector<KeyValue>{Kv(1, 0, RowKind::kInsert, 10), Kv(2, 1, RowKind::kInsert, 20),
                            Kv(3, 2, RowKind::kInsert, 30)}));
  runs.push_back(std::make_unique<VectorSource>(
      std::vector<KeyValue>{Kv(2, 5, RowKind::kInsert, 21), Kv(3, 6, RowKind::kDelete, 30)}));
  auto mf = Dedup();
  SortMergeReader r(std::move(runs), KeyComparator({0}), Order(), mf.get());
  std::vector<std::pair<int64_t, int64_t>> live;
  KeyValue kv;
  while (*r.Next(&kv)) {
    if (IsAdd(kv.kind)) live.push_back({kv.value[0].int_value(), kv.value[1].int_value()});
  }
  EXPECT_EQ(live, (std::vector<std::pair<int64_t, int64_t>>{{1, 10}, {2, 21}}));
}

TEST(SortMergeReaderTest, RandomRunsMatchAModel) {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; round++) {
    int nruns = 1 + rng() % 9;
    std::map<int64_t, std::pair<int64_t, KeyValue>> model;  // key -> (seq, kv)
    std::vector<std::unique_ptr<RecordSource>> runs;
    int64_t seq = 0;
    for (int r = 0; r < nruns; r++) {
      std::map<int64_t, KeyValue> run;
      int n = rng() % 20;
      for (int i = 0; i < n; i++) {
        int64_t k = rng() % 15;
        KeyValue kv =
            Kv(k, seq++, rng() % 4 == 0 ? RowKind::kDelete : RowKind::kInsert, rng() % 100);
        run[k] = kv;
      }
      std::vector<KeyValue> sorted;
      for (auto& [k, kv] : run) {
        sorted.push_back(kv);
        auto it = model.find(k);
        if (it == model.end() || it->second.first < kv.sequence) model[k] = {kv.sequence, kv};
      }
      runs.push_back(std::make_unique<VectorSource>(std::move(sorted)));
    }
    auto mf = Dedup();
    SortMergeReader reader(std::move(runs), KeyComparator({0}), Order(), mf.get());
    std::vector<int64_t> got, want;
    KeyValue kv;
    while (*reader.Next(&kv)) {
      if (IsAdd(kv.kind)) got.push_back(kv.value[0].int_value() * 1000 + kv.value[1].int_value());
    }
    for (auto& [k, p] : model) {
      if (IsAdd(p.second.kind)) want.push_back(k * 1000 + p.second.value[1].int_value());
    }
    EXPECT_EQ(got, want) << "round " << round;
  }
}

}  // namespace
}  // namespace tributary::merge
