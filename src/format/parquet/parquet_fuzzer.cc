// libFuzzer target for the Parquet reader: any byte string is opened and, when it parses,
// every read the table layer does is run on it (statistics, page index, every column of every
// row group, whole and with page skipping, every leaf chunk). A malformed file must give an
// error Status: a crash, a sanitizer report or an allocation past libFuzzer's -malloc_limit_mb
// is a bug. Built only with -DTRIBUTARY_FUZZ=ON and clang (tests/fuzz/run_fuzzers.sh).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "format/parquet/reader.h"

using tributary::format::parquet::ParquetReader;
using tributary::format::parquet::RowRanges;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto reader = ParquetReader::Open(std::string(reinterpret_cast<const char*>(data), size));
  if (!reader.ok()) return 0;
  const ParquetReader& r = **reader;
  const int columns = static_cast<int>(r.schema().columns().size());
  for (int rg = 0; rg < r.num_row_groups(); ++rg) {
    (void)r.RowGroupStatistics(rg);
    std::vector<int> all;
    for (int c = 0; c < columns; ++c) {
      (void)r.PageStatistics(rg, c);
      if (r.ColumnType(c)) all.push_back(c);
    }
    for (size_t leaf = 0; leaf < r.schema().leaves().size(); ++leaf) {
      (void)r.ReadPageIndex(rg, static_cast<int>(leaf));
      (void)r.ReadLeafChunk(rg, static_cast<int>(leaf));
    }
    (void)r.ReadRowGroupColumns(rg, all);
    const RowRanges some = {{1, 2}, {100, 300}};
    (void)r.ReadRowGroupColumns(rg, all, &some);
    (void)r.ReadRowGroupVectors(rg, all);  // column batches
  }
  (void)r.ReadRows();
  return 0;
}
