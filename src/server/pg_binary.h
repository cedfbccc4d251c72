// Values of the extended query protocol as PostgreSQL sends and receives them: the text format
// of parameters, and the binary format (each type's send/recv: big-endian integers and IEEE
// floats, dates as days and timestamps as microseconds since 2000-01-01, numeric in base-10000
// digits) of parameters and results, for the types `tributary serve` describes (pg_wire.h
// ColumnOf). Drivers such as pgjdbc ask for binary results once a statement is prepared.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tributary/result.h"
#include "tributary/types.h"
#include "tributary/value.h"

namespace tributary::server::pg {

// `v` (of a column of `type`) in PostgreSQL's binary format for the OID ColumnOf gives `type`;
// nullopt for NULL. TIMESTAMP_LTZ is the instant itself (timestamptz's binary form has no
// zone); nested values are their text (described as text).
std::optional<std::string> BinaryOf(const Value& v, const DataType& type);

// Parameter $n of a Bind (`data`, nullopt for NULL) in the text or binary format as the value
// its declared type `oid` says: bool, integers and floats become those values, bytea its bytes
// (a BYTES value: the caller flags it, see PreparedStatement::Execute); any other type,
// or an unspecified one (0), a string (a binary date, time, timestamp or numeric its text), which
// a comparison or an INSERT converts as it would a string literal. A binary parameter of an
// unspecified type is refused (its bytes cannot be read without one), as a malformed one is.
// Whether `text` is a date followed by something (a zone, an era: '2024-01-02 +00', '0044-03-15
// BC'), which a DATE literal does not take but ParamValue reads for a date or timestamp.
bool IsDateWithSuffix(const std::optional<std::string>& text);
Result<Value> ParamValue(const std::optional<std::string>& data, int32_t oid, bool binary,
                         size_t n);

// The type of the value ParamValue reads from a binary `oid` (BIGINT for the integers, DOUBLE
// for the floats, BYTES for bytea, TIMESTAMP(6), else STRING): what a cast to a column starts
// from. (`n` 0 in ParamValue: its errors name no parameter.)
DataType BinaryValueType(int32_t oid);

// The bytes of bytea's text format: `\x` then two hex digits a byte, or the escape format
// (`\\` a backslash, `\ooo` an octal byte); nullopt when malformed.
std::optional<std::string> ByteaFromText(std::string_view text);

// numeric's binary form of the decimal `unscaled` x 10^-scale, and the text of a binary
// numeric (exposed for tests).
std::string NumericBinary(__int128 unscaled, int32_t scale);
Result<std::string> NumericText(std::string_view binary);

}  // namespace tributary::server::pg
