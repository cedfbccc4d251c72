// Micro-benchmark of the loser-tree sort-merge reader: k sorted runs of (id, v) merged by the
// deduplicate engine, as a scan or a compaction of a bucket with k sorted runs does.
#include <benchmark/benchmark.h>

#include <random>
#include <set>

#include "merge/sort_merge_reader.h"

namespace tributary::merge {
namespace {

TableSchema Schema() {
  TableSchema s;
  s.fields = {{0, "id", DataType::BigInt().NotNull(), ""}, {1, "v", DataType::BigInt(), ""}};
  s.primary_keys = {"id"};
  return s;
}

// k sorted runs of about 100,000 records in all, keys drawn at random from a range half that
// size (at least a run's size), so about half the records are overwritten by a newer run.
std::vector<std::vector<KeyValue>> MakeRuns(int k) {
  const int64_t total = 100000, per_run = total / k;
  const int64_t keyspace = std::max(per_run, total / 2);
  std::mt19937_64 rng(42);
  std::vector<std::vector<KeyValue>> runs(k);
  int64_t seq = 0;
  for (auto& run : runs) {
    std::set<int64_t> keys;
    while (static_cast<int64_t>(keys.size()) < per_run) keys.insert(rng() % keyspace);
    for (int64_t key : keys) {
      KeyValue kv;
      kv.sequence = seq;
      kv.value = {Value::Int(key), Value::Int(seq)};
      run.push_back(std::move(kv));
      seq++;
    }
  }
  return runs;
}

void BM_SortMergeReader(benchmark::State& state) {
  int k = static_cast<int>(state.range(0));
  TableSchema schema = Schema();
  auto config = MergeConfig::Make(schema);
  auto runs = MakeRuns(k);
  int64_t records = 0;
  for (const auto& r : runs) records += static_cast<int64_t>(r.size());
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<std::unique_ptr<RecordSource>> sources;
    for (const auto& r : runs) sources.push_back(std::make_unique<VectorSource>(r));
    auto mf = MakeMergeFunction(*config, schema);
    state.ResumeTiming();
    SortMergeReader reader(std::move(sources), KeyComparator({0}), SequenceOrder(*config),
                           mf->get());
    KeyValue kv;
    int64_t n = 0;
    while (*reader.Next(&kv)) n++;
    benchmark::DoNotOptimize(n);
  }
  state.SetItemsProcessed(state.iterations() * records);
}
BENCHMARK(BM_SortMergeReader)->Arg(1)->Arg(2)->Arg(5)->Arg(10)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tributary::merge
