// Micro-benchmarks of the Avro codec on a record shaped like a primary-key data file row of the
// W1 table (_KEY_id, _SEQUENCE_NUMBER, _VALUE_KIND, then id, a, b, c, s1, s2, s3 with nullable
// unions), and of a whole zstd-compressed container file as DataFileWriter writes it.
#include <benchmark/benchmark.h>

#include "format/avro.h"

namespace tributary::avro {
namespace {

constexpr const char* kSchema = R"({"type": "record", "name": "record", "fields": [
  {"name": "_KEY_id", "type": "long"},
  {"name": "_SEQUENCE_NUMBER", "type": "long"},
  {"name": "_VALUE_KIND", "type": "int"},
  {"name": "id", "type": "long"},
  {"name": "a", "type": ["null", "long"]},
  {"name": "b", "type": ["null", "long"]},
  {"name": "c", "type": ["null", "double"]},
  {"name": "s1", "type": ["null", "string"]},
  {"name": "s2", "type": ["null", "string"]},
  {"name": "s3", "type": ["null", "string"]}]})";

Datum Record(int64_t i) {
  return Datum(DatumList{
      Datum(i * 2), Datum(i), Datum(int32_t{0}), Datum(i * 2), Datum(i % 1000000), Datum(i),
      Datum(i / 100.0), Datum(std::string("abcdefghijklmnopqr")),
      Datum(std::string("0123456789abcdefghijkl")), Datum(std::string("ABCDEFGHIJKLMNOPQRSTUV"))});
}

void BM_AvroEncodeRecord(benchmark::State& state) {
  SchemaPtr schema = *ParseSchema(kSchema);
  Datum rec = Record(12345);
  std::string out;
  for (auto _ : state) {
    out.clear();
    benchmark::DoNotOptimize(Encode(*schema, rec, &out));
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(out.size()));
}
BENCHMARK(BM_AvroEncodeRecord);

void BM_AvroDecodeRecord(benchmark::State& state) {
  SchemaPtr schema = *ParseSchema(kSchema);
  std::string bytes;
  (void)Encode(*schema, Record(12345), &bytes);
  for (auto _ : state) {
    size_t pos = 0;
    Datum d;
    benchmark::DoNotOptimize(Decode(*schema, bytes, &pos, &d));
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes.size()));
}
BENCHMARK(BM_AvroDecodeRecord);

// 100,000 records into a zstandard container file, then read back: per-record cost of writing
// and reading a data file, compression included.
void BM_AvroFileWrite(benchmark::State& state) {
  SchemaPtr schema = *ParseSchema(kSchema);
  std::vector<Datum> recs;
  for (int64_t i = 0; i < 100000; i++) recs.push_back(Record(i));
  for (auto _ : state) {
    auto w = FileWriter::Make(schema, Codec::kZstandard).value();
    for (const Datum& r : recs) (void)w->Append(r);
    benchmark::DoNotOptimize(w->Finish());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(recs.size()));
}
BENCHMARK(BM_AvroFileWrite)->Unit(benchmark::kMillisecond);

void BM_AvroFileRead(benchmark::State& state) {
  SchemaPtr schema = *ParseSchema(kSchema);
  auto w = FileWriter::Make(schema, Codec::kZstandard).value();
  for (int64_t i = 0; i < 100000; i++) (void)w->Append(Record(i));
  std::string file = *w->Finish();
  for (auto _ : state) {
    auto r = FileReader::Open(file).value();
    benchmark::DoNotOptimize(r->ReadAll());
  }
  state.SetItemsProcessed(state.iterations() * 100000);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(file.size()));
}
BENCHMARK(BM_AvroFileRead)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tributary::avro
