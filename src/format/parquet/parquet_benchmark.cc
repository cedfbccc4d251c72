// Micro-benchmarks of the Parquet codec, single thread: encoding and decoding 100,000 rows of a
// 10-column primary-key data file (BIGINT key, sequence number, row kind, BIGINT, DOUBLE, 20-byte
// string, INT, BOOLEAN, DATE, DECIMAL(12, 2)), zstd-compressed as Tributary writes them by
// default, from rows (Append) and from typed columns (AppendColumns). Reported as rows/s
// (items_per_second) and MB/s of Parquet file (bytes_per_second).
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
          {3, "s", DataType::String(), ""},
          {4, "i", DataType::Int(), ""},
          {5, "b", DataType::Boolean(), ""},
          {6, "dt", DataType::Date(), ""},
          {7, "amount", DataType::Decimal(12, 2), ""}};
}

std::vector<Row> Rows(int64_t n) {
  std::mt19937_64 rng(11);
  std::vector<Row> rows;
  rows.reserve(n);
  for (int64_t i = 0; i < n; i++) {
    rows.push_back({Value::Int(i), Value::Int(i), Value::Int(0), Value::Int(i),
                    Value::Int(static_cast<int64_t>(rng() % 1000000)),
                    Value::Double(static_cast<double>(rng() % 100000) / 7.0),
                    Value::String("str-" + std::to_string(rng() % 100000000000000ULL)),
                    Value::Int(static_cast<int64_t>(rng() % 5000)), Value::Bool(rng() % 2 == 0),
                    Value::Int(19000 + static_cast<int64_t>(rng() % 1000)),
                    Value::Dec({static_cast<__int128>(rng() % 10000000)})});
  }
  return rows;
}

Result<std::string> Encode(const std::vector<Row>& rows) {
  TRIB_ASSIGN_OR_RETURN(auto w, ParquetWriter::Make(Columns()));
  for (const Row& r : rows) TRIB_RETURN_NOT_OK(w->Append(r));
  return w->Finish();
}

// Times `encode()` (a whole file) per iteration, reporting rows/s and file MB/s.
template <typename Encoder>
void EncodeBenchmark(benchmark::State& state, const Encoder& encode) {
  int64_t bytes = 0;
  for (auto _ : state) {
    Result<std::string> file = encode();
    if (!file.ok()) state.SkipWithError(file.status().ToString().c_str());
    bytes = file.ok() ? static_cast<int64_t>(file->size()) : 0;
    benchmark::DoNotOptimize(bytes);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["file_bytes"] = static_cast<double>(bytes);
}

void BM_ParquetEncode(benchmark::State& state) {
  const auto rows = Rows(state.range(0));
  EncodeBenchmark(state, [&] { return Encode(rows); });
}
BENCHMARK(BM_ParquetEncode)->Arg(100000)->Unit(benchmark::kMillisecond);

// The same rows held column by column (as the column write buffer holds them: integers,
// doubles, strings in one arena, other types as Values) and written with AppendColumns.
struct TypedColumns {
  std::vector<std::vector<int64_t>> ints;
  std::vector<std::vector<double>> doubles;
  std::vector<std::string> chars;
  std::vector<std::vector<uint64_t>> offsets;
  std::vector<std::vector<Value>> values;
  std::vector<ColumnValues> columns;
};

TypedColumns Transpose(const std::vector<Row>& rows) {
  const std::vector<Field> cols = Columns();
  TypedColumns t;
  t.ints.resize(cols.size());
  t.doubles.resize(cols.size());
  t.chars.resize(cols.size());
  t.offsets.resize(cols.size());
  t.values.resize(cols.size());
  for (size_t c = 0; c < cols.size(); c++) {
    const TypeId id = cols[c].type.id;
    for (const Row& r : rows) {
      if (id == TypeId::kDouble) {
        t.doubles[c].push_back(r[c].double_value());
      } else if (id == TypeId::kVarChar) {
        if (t.offsets[c].empty()) t.offsets[c].push_back(0);
        t.chars[c] += r[c].string_value();
        t.offsets[c].push_back(t.chars[c].size());
      } else if (r[c].is_int()) {
        t.ints[c].push_back(r[c].int_value());
      } else {
        t.values[c].push_back(r[c]);
      }
    }
  }
  for (size_t c = 0; c < cols.size(); c++) {
    ColumnValues v;
    if (!t.ints[c].empty()) v.ints = t.ints[c].data();
    if (!t.doubles[c].empty()) v.doubles = t.doubles[c].data();
    if (!t.offsets[c].empty()) {
      v.chars = t.chars[c].data();
      v.offsets = t.offsets[c].data();
    }
    if (!t.values[c].empty()) v.values = t.values[c].data();
    t.columns.push_back(v);
  }
  return t;
}

void BM_ParquetEncodeColumns(benchmark::State& state) {
  const TypedColumns t = Transpose(Rows(state.range(0)));
  EncodeBenchmark(state, [&]() -> Result<std::string> {
    TRIB_ASSIGN_OR_RETURN(auto w, ParquetWriter::Make(Columns()));
    TRIB_RETURN_NOT_OK(w->AppendColumns(t.columns, static_cast<size_t>(state.range(0))));
    return w->Finish();
  });
}
BENCHMARK(BM_ParquetEncodeColumns)->Arg(100000)->Unit(benchmark::kMillisecond);

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
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(file->size()));
}
BENCHMARK(BM_ParquetDecode)->Arg(100000)->Unit(benchmark::kMillisecond);

// A key range of 1% of the rows, every column decoded: range(1) = 0 decodes the row group
// whole, 1 decodes only the pages the key column's page index says may hold the range (what a
// filtered scan of a single-run bucket does). Small pages (8 kb) so the row group has many.
void BM_ParquetDecodeKeyRange(benchmark::State& state) {
  const int64_t n = state.range(0);
  ParquetWriterOptions o;
  o.page_size = 8 * 1024;
  auto w = ParquetWriter::Make(Columns(), o);
  for (const Row& r : Rows(n)) (void)(*w)->Append(r);
  auto file = (*w)->Finish();
  if (!file.ok()) {
    state.SkipWithError(file.status().ToString().c_str());
    return;
  }
  const int64_t lo = n / 2, hi = n / 2 + n / 100;
  std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  int64_t matched = 0;
  for (auto _ : state) {
    auto reader = ParquetReader::Open(*file);
    matched = 0;
    for (int rg = 0; rg < (*reader)->num_row_groups(); rg++) {
      RowRanges wanted;
      int64_t start = 0;
      auto pages = (*reader)->PageStatistics(rg, 0);
      for (const auto& p : *pages) {
        if (p.max->int_value() >= lo && p.min->int_value() < hi)
          wanted.push_back({start, start + p.num_values});
        start += p.num_values;
      }
      auto cols = (*reader)->ReadRowGroupColumns(rg, all, state.range(1) ? &wanted : nullptr);
      if (!cols.ok()) state.SkipWithError(cols.status().ToString().c_str());
      for (const Value& k : (*cols)[0])
        matched += !k.is_null() && k.int_value() >= lo && k.int_value() < hi;
    }
    benchmark::DoNotOptimize(matched);
  }
  if (matched != hi - lo) state.SkipWithError("wrong match count");
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_ParquetDecodeKeyRange)
    ->Args({100000, 0})
    ->Args({100000, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tributary::format::parquet
