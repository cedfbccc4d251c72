// Micro-benchmarks of the Parquet codec: encoding and decoding 100,000 rows shaped like a
// primary-key data file (BIGINT key, sequence number, row kind, BIGINT, DOUBLE, 20-byte string),
// zstd-compressed as Tributary writes them by default.
#include <benchmark/benchmark.h>

#include <random>

#include "format/parquet/reader.h"
#include "format/parquet/writer.h"

namespace tributary::format::parquet {
namespace {

std::vector<Field> Columns() {
  return {{1073741823, "_KEY_id", DataType::BigInt().NotNull(), ""},
          {2147483646, "_SEQUENCE_NUMBER", DataType::BigInt().NotNull(), ""},
          {2147483645, "_VALUE_KIND", DataType::TinyInt().NotNull(), ""},
          {0, "id", DataType::BigInt().NotNull(), ""},
          {1, "a", DataType::BigInt(), ""},
          {2, "c", DataType::Double(), ""},
          {3, "s", DataType::String(), ""}};
}

std::vector<Row> Rows(int64_t n) {
  std::mt19937_64 rng(11);
  std::vector<Row> rows;
  rows.reserve(n);
  for (int64_t i = 0; i < n; i++) {
    rows.push_back({Value::Int(i), Value::Int(i), Value::Int(0), Value::Int(i),
                    Value::Int(static_cast<int64_t>(rng() % 1000000)),
                    Value::Double(static_cast<double>(rng() % 100000) / 7.0),
                    Value::String("str-" + std::to_string(rng() % 100000000000000ULL))});
  }
  return rows;
}

Result<std::string> Encode(const std::vector<Row>& rows) {
  TRIB_ASSIGN_OR_RETURN(auto w, ParquetWriter::Make(Columns()));
  for (const Row& r : rows) TRIB_RETURN_NOT_OK(w->Append(r));
  return w->Finish();
}

void BM_ParquetEncode(benchmark::State& state) {
  const auto rows = Rows(state.range(0));
  int64_t bytes = 0;
  for (auto _ : state) {
    auto file = Encode(rows);
    if (!file.ok()) state.SkipWithError(file.status().ToString().c_str());
    bytes = file.ok() ? static_cast<int64_t>(file->size()) : 0;
    benchmark::DoNotOptimize(bytes);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["file_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_ParquetEncode)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_ParquetDecode(benchmark::State& state) {
  auto file = Encode(Rows(state.range(0)));
  if (!file.ok()) {
    state.SkipWithError(file.status().ToString().c_str());
    return;
  }
  for (auto _ : state) {
    auto reader = ParquetReader::Open(*file);
    auto rows = (*reader)->ReadRows();
    if (!rows.ok()) state.SkipWithError(rows.status().ToString().c_str());
    benchmark::DoNotOptimize(rows);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ParquetDecode)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tributary::format::parquet
