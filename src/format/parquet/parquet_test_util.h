// Test helpers: a schema with every flat type and random rows for it.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "tributary/types.h"
#include "tributary/value.h"

namespace tributary::format::parquet::testing {

inline std::vector<Field> AllTypesSchema() {
  std::vector<Field> f;
  auto add = [&](const std::string& name, DataType t) {
    f.push_back(Field{static_cast<int32_t>(f.size()), name, t, ""});
  };
  add("id", DataType::BigInt().NotNull());
  add("b", DataType::Boolean());
  add("t", DataType::TinyInt());
  add("s", DataType::SmallInt());
  add("i", DataType::Int());
  add("l", DataType::BigInt());
  add("f", DataType::Float());
  add("d", DataType::Double());
  add("dec5", DataType::Decimal(5, 2));
  add("dec15", DataType::Decimal(15, 3));
  add("dec23", DataType::Decimal(23, 5));
  add("dec38", DataType::Decimal(38, 10));
  add("str", DataType::String());
  add("ch", DataType{TypeId::kChar, true, 3});
  add("bin", DataType::Bytes());
  add("date", DataType::Date());
  add("time", DataType::Time(3));
  add("ts0", DataType::Timestamp(0));
  add("ts3", DataType::Timestamp(3));
  add("ts6", DataType::Timestamp(6));
  add("ts9", DataType::Timestamp(9));
  add("ltz3", DataType::TimestampLtz(3));
  add("ltz6", DataType::TimestampLtz(6));
  add("ltz9", DataType::TimestampLtz(9));
  return f;
}

// A random non-null value of `t`. `cardinality` > 0 draws from that many distinct values
// (so dictionaries pay off); 0 draws freely.
inline Value RandomValue(const DataType& t, std::mt19937_64& rng, int cardinality) {
  uint64_t r = cardinality > 0 ? rng() % static_cast<uint64_t>(cardinality) : rng();
  std::mt19937_64 local(r);  // same r -> same value
  auto next = [&]() { return local(); };
  auto pow10 = [](int n) {
    __int128 v = 1;
    for (int i = 0; i < n; ++i) v *= 10;
    return v;
  };
  switch (t.id) {
    case TypeId::kBoolean:
      return Value::Bool(next() & 1);
    case TypeId::kTinyInt:
      return Value::Int(static_cast<int8_t>(next()));
    case TypeId::kSmallInt:
      return Value::Int(static_cast<int16_t>(next()));
    case TypeId::kInt:
      return Value::Int(static_cast<int32_t>(next()));
    case TypeId::kBigInt:
      return Value::Int(static_cast<int64_t>(next()) >> (next() % 64));
    case TypeId::kFloat:
      return Value::Double(static_cast<float>(static_cast<int64_t>(next() % 2000001) - 1000000) /
                           64.0f);
    case TypeId::kDouble:
      return Value::Double(static_cast<double>(static_cast<int64_t>(next())) / 1e6);
    case TypeId::kDecimal: {
      __int128 limit = pow10(t.precision);
      __int128 v = (static_cast<__int128>(next()) << 64 | next()) % limit;
      if (v < 0) v = -v;
      if (next() & 1) v = -v;
      return Value::Dec(Decimal{v});
    }
    case TypeId::kChar:
    case TypeId::kVarChar:
    case TypeId::kBinary:
    case TypeId::kVarBinary: {
      size_t len = next() % 16 == 0 ? 100 + next() % 200 : next() % 12;
      std::string s;
      for (size_t i = 0; i < len; ++i) {
        s.push_back(t.IsString() ? static_cast<char>('a' + next() % 26)
                                 : static_cast<char>(next() & 0xff));
      }
      return Value::String(s);
    }
    case TypeId::kDate:
      return Value::Int(static_cast<int64_t>(next() % 200000) - 100000);
    case TypeId::kTime:
      return Value::Int(static_cast<int64_t>(next() % 86400000));
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz: {
      // Roughly years 1700..2240, including instants before 1900 (INT96 with signed nanos).
      int64_t millis = static_cast<int64_t>(next() % 17000000000000ull) - 8500000000000;
      int32_t nanos = static_cast<int32_t>(next() % 1000000);
      if (t.precision == 0) return Value::Ts(Timestamp{millis / 1000 * 1000, 0});
      if (t.precision <= 3) return Value::Ts(Timestamp{millis, 0});
      if (t.precision <= 6) return Value::Ts(Timestamp{millis, nanos / 1000 * 1000});
      return Value::Ts(Timestamp{millis, nanos});
    }
    case TypeId::kArray:
    case TypeId::kMultiset:
    case TypeId::kMap: {
      // 0..4 entries; nullable elements/values are NULL ~1 in 4.
      size_t n = next() % 5;
      std::vector<Value> items, values;
      bool map = t.id != TypeId::kArray;
      const DataType& item_type = map ? t.key() : t.element();
      for (size_t i = 0; i < n; ++i) {
        std::mt19937_64 sub(next());
        // Map keys are never null (Parquet writes them REQUIRED).
        items.push_back(!map && item_type.nullable && next() % 4 == 0
                            ? Value::Null()
                            : RandomValue(item_type, sub, 0));
        if (map) {
          values.push_back(t.value().nullable && next() % 4 == 0 ? Value::Null()
                                                                 : RandomValue(t.value(), sub, 0));
        }
      }
      return map ? Value::Map(std::move(items), std::move(values)) : Value::Array(std::move(items));
    }
    case TypeId::kRow: {
      std::vector<Value> fields;
      for (const Field& f : t.fields()) {
        std::mt19937_64 sub(next());
        fields.push_back(f.type.nullable && next() % 4 == 0 ? Value::Null()
                                                            : RandomValue(f.type, sub, 0));
      }
      return Value::Struct(std::move(fields));
    }
  }
  return Value::Null();
}

// `n` rows of `schema`; column 0 is the row number, nullable columns are NULL ~1 in 5.
inline std::vector<Row> RandomRows(const std::vector<Field>& schema, int n, uint64_t seed,
                                   int cardinality = 0) {
  std::mt19937_64 rng(seed);
  std::vector<Row> rows;
  for (int r = 0; r < n; ++r) {
    Row row;
    for (size_t c = 0; c < schema.size(); ++c) {
      if (c == 0) {
        row.push_back(Value::Int(r));
      } else if (schema[c].type.nullable && rng() % 5 == 0) {
        row.push_back(Value::Null());
      } else {
        row.push_back(RandomValue(schema[c].type, rng, cardinality));
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace tributary::format::parquet::testing
