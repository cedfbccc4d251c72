// ColumnBatch: rows stored column by column, as scans hand them out for analytic work
// (TableScan::NextColumns): integers, floating-point numbers and strings in plain typed vectors,
// every other type as Values.
// Thread-safety: value types.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tributary/types.h"
#include "tributary/value.h"

namespace tributary {

// One column of a batch. Exactly one of ints/doubles/strings/values is used, by `rep`:
//   kInt:    BOOLEAN (0/1), TINYINT..BIGINT, DATE (days), TIME (millis of day)
//   kDouble: FLOAT, DOUBLE
//   kString: CHAR, VARCHAR, BINARY, VARBINARY
//   kValue:  every other type (DECIMAL, TIMESTAMP, nested types)
// A NULL row holds a placeholder (0, 0.0, "" or a NULL Value) in the used vector.
struct ColumnVector {
  enum class Rep : uint8_t { kInt, kDouble, kString, kValue };
  static Rep RepOf(const DataType& type);

  DataType type;
  Rep rep = Rep::kValue;
  std::vector<int64_t> ints;
  std::vector<double> doubles;
  std::vector<std::string> strings;
  std::vector<Value> values;
  std::vector<uint8_t> nulls;  // empty: no NULLs; else one per row, 1 = NULL

  size_t size() const;
  bool IsNull(size_t i) const { return !nulls.empty() && nulls[i] != 0; }
  // Row i as a Value (as a row scan returns it).
  Value Get(size_t i) const;
  // Appends `v` (of this column's type, or NULL).
  void Append(const Value& v);
  // Appends row `r` of `from` (same type and rep).
  void AppendRow(const ColumnVector& from, size_t r);
  // Appends rows `rows` of `from` (same type and rep).
  void AppendRows(const ColumnVector& from, const std::vector<uint32_t>& rows);
  // Appends every row of `from` (same type and rep), moving its strings and Values.
  void AppendAll(ColumnVector&& from);
  // Room for `n` rows in the used vector.
  void Reserve(size_t n);
  void Clear();
};

struct ColumnBatch {
  std::vector<ColumnVector> columns;  // in the scan's output_fields() order
  size_t num_rows = 0;
  void Clear() {
    columns.clear();
    num_rows = 0;
  }
};

}  // namespace tributary
