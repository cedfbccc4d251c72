// Micro-benchmark of sorting a write buffer before a flush: 100,000 upserts (id BIGINT key with
// about half the keys repeated, a BIGINT and a 20-byte string) into key + sequence order.
#include <benchmark/benchmark.h>

#include <random>

#include "merge/merge_config.h"

namespace tributary::merge {
namespace {

std::vector<KeyValue> MakeBuffer(int64_t n) {
  std::mt19937_64 rng(7);
  std::vector<KeyValue> buf;
  buf.reserve(n);
  for (int64_t i = 0; i < n; i++) {
    KeyValue kv;
    kv.sequence = i;
    kv.value = {Value::Int(static_cast<int64_t>(rng() % (n / 2))), Value::Int(i),
                Value::String("payload-" + std::to_string(rng() % 1000000000000ULL))};
    buf.push_back(std::move(kv));
  }
  return buf;
}

void BM_SortWriteBuffer(benchmark::State& state) {
  TableSchema s;
  s.fields = {{0, "id", DataType::BigInt().NotNull(), ""},
              {1, "v", DataType::BigInt(), ""},
              {2, "s", DataType::String(), ""}};
  s.primary_keys = {"id"};
  auto config = *MergeConfig::Make(s);
  const std::vector<KeyValue> input = MakeBuffer(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<KeyValue> buf = input;
    state.ResumeTiming();
    SortWriteBuffer(&buf, KeyComparator({0}), SequenceOrder(config));
    benchmark::DoNotOptimize(buf.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_SortWriteBuffer)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tributary::merge
