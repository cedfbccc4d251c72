// ColumnValues: a view of one flat column's values for the column writers of the data file
// formats (FormatWriter::AppendColumns; Parquet's ColumnChunkWriter): format-neutral, so the
// write path hands columns to any format without naming one.
// Thread-safety: a plain view; the viewed storage must outlive it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tributary/value.h"

namespace tributary::format {

// The values of one flat column for a format writer's AppendColumns, in one typed form: `ints`
// (integer columns; 0/1 for BOOLEAN), `doubles` (FLOAT/DOUBLE), `chars` + `offsets` (BYTE_ARRAY
// columns, as a StringVector holds them: value i is chars[offsets[i], offsets[i + 1])), or
// `values` (any flat type). Row k of an append reads source row `rows[k]` (row k itself
// when `rows` is null); `nulls[r]` != 0 marks a NULL.
struct ColumnValues {
  const int64_t* ints = nullptr;
  const double* doubles = nullptr;
  const char* chars = nullptr;
  const uint64_t* offsets = nullptr;
  const Value* values = nullptr;
  const uint8_t* nulls = nullptr;
  const uint32_t* rows = nullptr;
  size_t SourceRow(size_t k) const { return rows ? rows[k] : k; }
  bool HasBytes() const { return chars != nullptr; }
  // Source row r as the Value a row holds for a column of `type` (BOOLEAN ints become booleans).
  Value Get(size_t r, const DataType& type) const {
    if (nulls != nullptr && nulls[r]) return Value::Null();
    if (ints != nullptr) {
      return type.id == TypeId::kBoolean ? Value::Bool(ints[r] != 0) : Value::Int(ints[r]);
    }
    if (doubles != nullptr) return Value::Double(doubles[r]);
    if (HasBytes()) return Value::String(std::string(Bytes(r)));
    return values[r];
  }
  // Value r of a BYTE_ARRAY column (REQUIRES: HasBytes()).
  std::string_view Bytes(size_t r) const {
    return std::string_view(chars + offsets[r], offsets[r + 1] - offsets[r]);
  }
};

}  // namespace tributary::format
