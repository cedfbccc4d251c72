// Logical column types, the Paimon type system (flat and nested types), and table fields.
// Thread-safety: value types; the children of a nested type are immutable and shared.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/result.h"

namespace tributary {

enum class TypeId : uint8_t {
  kBoolean,
  kTinyInt,
  kSmallInt,
  kInt,
  kBigInt,
  kFloat,
  kDouble,
  kDecimal,       // precision 1..38, scale 0..precision
  kChar,          // length = n
  kVarChar,       // length = n; STRING is VARCHAR(2147483647)
  kBinary,        // length = n
  kVarBinary,     // length = n; BYTES is VARBINARY(2147483647)
  kDate,          // days since 1970-01-01
  kTime,          // precision 0..9; stored as milliseconds of the day
  kTimestamp,     // precision 0..9, no time zone
  kTimestampLtz,  // precision 0..9, an instant (WITH LOCAL TIME ZONE)
  // Nested types (their children: DataType::element(), key(), value(), fields()).
  kArray,     // ARRAY<element>
  kMultiset,  // MULTISET<element>: stored as MAP<element, INT NOT NULL> (element -> count)
  kMap,       // MAP<key, value>
  kRow,       // ROW<name type, ...>; each field has a Paimon field id
};

struct Field;
struct NestedChildren;

constexpr int32_t kMaxVarLength = 2147483647;

struct DataType {
  TypeId id = TypeId::kInt;
  bool nullable = true;
  int32_t length = 0;     // CHAR, VARCHAR, BINARY, VARBINARY
  int32_t precision = 0;  // DECIMAL, TIME, TIMESTAMP, TIMESTAMP_LTZ
  int32_t scale = 0;      // DECIMAL
  // ARRAY/MULTISET: [element]; MAP: [key, value]; ROW: the fields. Null for flat types.
  std::shared_ptr<const NestedChildren> children = nullptr;

  static DataType Boolean() { return {TypeId::kBoolean}; }
  static DataType TinyInt() { return {TypeId::kTinyInt}; }
  static DataType SmallInt() { return {TypeId::kSmallInt}; }
  static DataType Int() { return {TypeId::kInt}; }
  static DataType BigInt() { return {TypeId::kBigInt}; }
  static DataType Float() { return {TypeId::kFloat}; }
  static DataType Double() { return {TypeId::kDouble}; }
  static DataType String() { return {TypeId::kVarChar, true, kMaxVarLength}; }
  static DataType Bytes() { return {TypeId::kVarBinary, true, kMaxVarLength}; }
  static DataType Decimal(int32_t p, int32_t s) { return {TypeId::kDecimal, true, 0, p, s}; }
  static DataType Date() { return {TypeId::kDate}; }
  static DataType Time(int32_t p = 0) { return {TypeId::kTime, true, 0, p}; }
  static DataType Timestamp(int32_t p = 6) { return {TypeId::kTimestamp, true, 0, p}; }
  static DataType TimestampLtz(int32_t p = 6) { return {TypeId::kTimestampLtz, true, 0, p}; }
  static DataType Array(DataType element);
  static DataType Multiset(DataType element);
  // Map keys are never null in data files, whatever the key type's nullability says.
  static DataType Map(DataType key, DataType value);
  // Field ids of nested fields are assigned by the catalog when a table is created (0 here).
  static DataType Row(std::vector<Field> fields);

  DataType NotNull() const {
    DataType t = *this;
    t.nullable = false;
    return t;
  }
  DataType WithNullable(bool n) const {
    DataType t = *this;
    t.nullable = n;
    return t;
  }

  bool IsInteger() const {
    return id == TypeId::kTinyInt || id == TypeId::kSmallInt || id == TypeId::kInt ||
           id == TypeId::kBigInt;
  }
  bool IsFloating() const { return id == TypeId::kFloat || id == TypeId::kDouble; }
  bool IsNumeric() const { return IsInteger() || IsFloating() || id == TypeId::kDecimal; }
  bool IsString() const { return id == TypeId::kChar || id == TypeId::kVarChar; }
  bool IsBinary() const { return id == TypeId::kBinary || id == TypeId::kVarBinary; }
  bool IsTimestamp() const { return id == TypeId::kTimestamp || id == TypeId::kTimestampLtz; }
  bool IsNested() const {
    return id == TypeId::kArray || id == TypeId::kMultiset || id == TypeId::kMap ||
           id == TypeId::kRow;
  }
  // REQUIRES for the accessors: the matching id (ARRAY/MULTISET: element; MAP: key, value;
  // ROW: fields). For MULTISET, key() is the element and value() is INT NOT NULL.
  const DataType& element() const;
  const DataType& key() const;
  const DataType& value() const;
  const std::vector<Field>& fields() const;

  // Paimon's type string: "INT NOT NULL", "STRING", "DECIMAL(10, 2)",
  // "TIMESTAMP(3) WITH LOCAL TIME ZONE", "ARRAY<INT>", "MAP<STRING, INT NOT NULL>",
  // "ROW<a INT, b STRING>" (field names are quoted with backticks when they are not plain words).
  std::string ToString() const;
  // SQL spelling for SHOW CREATE TABLE / DESCRIBE ("TIMESTAMP_LTZ(3)" is written as Paimon does).
  std::string ToSqlString() const { return ToString(); }
  // Parses Paimon and Flink SQL type strings (both are accepted: STRING, BYTES, TIMESTAMP_LTZ(3),
  // INTEGER, DEC/NUMERIC, ARRAY<T>, MAP<K, V>, MULTISET<T>, ROW<a T, ...>, ROW(a T, ...)).
  static Result<DataType> Parse(std::string_view text);

  // Deep equality (children, field names and ids included).
  bool operator==(const DataType& o) const;
  // Same type ignoring nullability.
  bool SameKind(const DataType& o) const { return WithNullable(true) == o.WithNullable(true); }
};

// A column of a table schema. `id` is Paimon's field id (stable across renames).
struct Field {
  int32_t id = 0;
  std::string name;
  DataType type;
  std::string description;
  bool operator==(const Field&) const = default;
};

// The children of a nested type (see DataType::children). Immutable once built.
struct NestedChildren {
  std::vector<DataType> types;  // ARRAY/MULTISET: element; MAP: key, value
  std::vector<Field> fields;    // ROW
};

}  // namespace tributary
