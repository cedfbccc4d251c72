// Decoding of Debezium JSON change events into row changes of a table.
// Accepts the plain envelope {"before", "after", "op", ...}, the same wrapped in {"payload": ...},
// and the envelope with its Kafka Connect schema ({"schema": ..., "payload": ...}), whose
// semantic type names (io.debezium.time.MicroTimestamp, ...Decimal) then decide how numbers and
// strings are read.
// Thread-safety: a DebeziumDecoder is immutable after construction; Decode may run concurrently.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/result.h"
#include "tributary/row_kind.h"
#include "tributary/types.h"
#include "tributary/value.h"

namespace tributary::cli {

// One row change to write: +I, -U, +U or -D with every column of the table, in schema order.
struct RowChange {
  RowKind kind = RowKind::kInsert;
  Row row;
};

// How the producer encoded one column, from the event's schema (both empty without one).
struct ColumnEncoding {
  std::string semantic;  // Kafka Connect "name", e.g. "io.debezium.time.MicroTimestamp"
  int32_t scale = -1;    // "parameters.scale" of org.apache.kafka.connect.data.Decimal
};

// Converts one JSON value to a value of column type `type` (value.h's representation).
// Numbers for DATE are days; for TIME and TIMESTAMP they are milliseconds, microseconds or
// nanoseconds as `encoding` says, else guessed from the magnitude. Strings are parsed as SQL
// literals ('2024-01-31', '2024-01-31T10:00:00Z', '12.50'); BINARY and VARBINARY are base64.
// Errors name neither the column nor the line; the caller adds them.
Result<Value> JsonToValue(const nlohmann::json& j, const DataType& type,
                          const ColumnEncoding& encoding = {});

class DebeziumDecoder {
 public:
  // `strict`: a column the table lacks is an error; otherwise it is ignored, as Flink's
  // debezium-json format ignores fields its table does not declare.
  explicit DebeziumDecoder(std::vector<Field> fields, bool strict = false);

  // Decodes one line: op c/r -> +I(after); u -> -U(before), +U(after) (only +U when the source
  // sends no before image); d -> -D(before). A blank line or a Kafka tombstone (`null`) yields
  // nothing. A column missing from the event is NULL; a column the table lacks is ignored (an
  // error when strict).
  Status Decode(std::string_view line, std::vector<RowChange>* out) const;

 private:
  Result<Row> ToRow(const nlohmann::json& image, std::string_view which,
                    const std::vector<ColumnEncoding>& encodings) const;
  int FindColumn(const std::string& name) const;

  std::vector<Field> fields_;
  bool strict_ = false;
};

}  // namespace tributary::cli
