// Micro-benchmarks of BinaryRow encoding and the bucket hash, the per-row work of routing a
// written row to its bucket (and of min/max keys and statistics).
#include <benchmark/benchmark.h>

#include "format/binary_row.h"

namespace tributary::format {
namespace {

std::vector<DataType> W1Types() {
  return {DataType::BigInt().NotNull(), DataType::BigInt(), DataType::BigInt(), DataType::Double(),
          DataType::String(),           DataType::String(), DataType::String()};
}

Row W1Row(int64_t i) {
  return {Value::Int(i * 2),
          Value::Int(i % 1000000),
          Value::Int(i),
          Value::Double(i / 100.0),
          Value::String("abcdefghijklmnopqr"),
          Value::String("0123456789abcdefghijkl"),
          Value::String("ABCDEFGHIJKLMNOPQRSTUV")};
}

// A whole W1 row (three out-of-line strings).
void BM_EncodeBinaryRow(benchmark::State& state) {
  auto types = W1Types();
  Row row = W1Row(12345);
  for (auto _ : state) benchmark::DoNotOptimize(EncodeBinaryRow(types, row));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EncodeBinaryRow);

void BM_DecodeBinaryRow(benchmark::State& state) {
  auto types = W1Types();
  std::string bytes = EncodeBinaryRow(types, W1Row(12345));
  for (auto _ : state) benchmark::DoNotOptimize(DecodeBinaryRow(bytes, types));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DecodeBinaryRow);

// What TableWriter::Write does per row of a fixed-bucket table: the key's BinaryRow, its
// Murmur hash, the bucket.
void BM_BucketOfBigIntKey(benchmark::State& state) {
  std::vector<DataType> types = {DataType::BigInt().NotNull()};
  int64_t i = 0;
  for (auto _ : state) {
    Row key = {Value::Int(i++)};
    benchmark::DoNotOptimize(BucketOf(HashRow(types, key), 4));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BucketOfBigIntKey);

// The hash alone, over an already encoded 16-byte row.
void BM_HashBytesByWords(benchmark::State& state) {
  std::string bytes = EncodeBinaryRow({DataType::BigInt().NotNull()}, {Value::Int(42)});
  for (auto _ : state) benchmark::DoNotOptimize(HashBytesByWords(bytes));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HashBytesByWords);

}  // namespace
}  // namespace tributary::format
