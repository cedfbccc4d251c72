// Micro-benchmarks of the column write buffer (the same 100,000 upserts as
// merge/write_buffer_benchmark.cc: id BIGINT key with about half the keys repeated, a BIGINT and a
// 20-byte string): appending rows, and the merge of a deduplicate and of a partial-update flush.
#include <benchmark/benchmark.h>

#include <random>

#include "merge/merge_config.h"
#include "write/column_buffer.h"

namespace tributary::write {

using merge::ColumnMergeOutput;
using merge::ColumnMergePlan;
namespace {

std::vector<Field> Fields() {
  return {{0, "id", DataType::BigInt().NotNull(), ""},
          {1, "v", DataType::BigInt(), ""},
          {2, "s", DataType::String(), ""}};
}

std::vector<Row> MakeRows(int64_t n) {
  std::mt19937_64 rng(7);
  std::vector<Row> rows;
  rows.reserve(n);
  for (int64_t i = 0; i < n; i++) {
    rows.push_back({Value::Int(static_cast<int64_t>(rng() % (n / 2))), Value::Int(i),
                    Value::String("payload-" + std::to_string(rng() % 1000000000000ULL))});
  }
  return rows;
}

void BM_ColumnWriteBufferAdd(benchmark::State& state) {
  const std::vector<Row> rows = MakeRows(state.range(0));
  ColumnWriteBuffer buffer(Fields());
  for (auto _ : state) {
    buffer.Clear();
    for (const Row& r : rows) buffer.Add(RowKind::kInsert, r);
    benchmark::DoNotOptimize(buffer.bytes());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ColumnWriteBufferAdd)->Arg(100000)->Unit(benchmark::kMillisecond);

// The merge of a flush for `engine`; partial-update appends a NULL record, so the buffer is
// refilled each time (not timed).
void MergeBenchmark(benchmark::State& state, const std::string& engine) {
  const std::vector<Row> rows = MakeRows(state.range(0));
  TableSchema schema;
  schema.fields = Fields();
  schema.primary_keys = {"id"};
  schema.options = {{"merge-engine", engine}};
  auto plan = ColumnMergePlan::Make(**merge::MergeConfig::Make(schema), schema.fields, true);
  ColumnWriteBuffer buffer(Fields());
  ColumnMergeOutput out;
  for (auto _ : state) {
    state.PauseTiming();
    buffer.Clear();
    for (const Row& r : rows) buffer.Add(RowKind::kInsert, r);
    state.ResumeTiming();
    auto merged = buffer.Merge({0}, 0, &**plan, &out);
    benchmark::DoNotOptimize(merged);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_ColumnWriteBufferMergeDeduplicate(benchmark::State& state) {
  MergeBenchmark(state, "deduplicate");
}
BENCHMARK(BM_ColumnWriteBufferMergeDeduplicate)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_ColumnWriteBufferMergePartialUpdate(benchmark::State& state) {
  MergeBenchmark(state, "partial-update");
}
BENCHMARK(BM_ColumnWriteBufferMergePartialUpdate)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tributary::write
