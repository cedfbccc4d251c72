// The C++ half of tests/crosscheck/parquet_duckdb.sh (slow tier): writes Parquet files of
// every column type with every codec and encoding variant for DuckDB to read, with the rows
// expected, and reads back the files DuckDB rewrote from them. Disabled in normal runs; the
// script sets TRIBUTARY_PARQUET_CROSSCHECK_DIR.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "format/parquet/parquet_test_util.h"
#include "format/parquet/reader.h"
#include "format/parquet/writer.h"

namespace tributary::format::parquet {
namespace {

constexpr int kRows = 3000;
constexpr uint64_t kSeed = 11;

struct Variant {
  const char* name;
  CompressionCodec codec;
  bool dictionary;
  int page_version;
  ValueEncoding encoding;
  int cardinality;
};

// Mirrored by the file list in tests/crosscheck/parquet_duckdb.js (it reads <name>.json).
const Variant kVariants[] = {
    {"none-v1-plain", CompressionCodec::kNone, false, 1, ValueEncoding::kPlain, 0},
    {"snappy-v1-dict", CompressionCodec::kSnappy, true, 1, ValueEncoding::kPlain, 50},
    {"gzip-v2-dict", CompressionCodec::kGzip, true, 2, ValueEncoding::kPlain, 50},
    {"zstd-v1-dict", CompressionCodec::kZstd, true, 1, ValueEncoding::kPlain, 0},
    {"lz4_raw-v2-plain", CompressionCodec::kLz4Raw, false, 2, ValueEncoding::kPlain, 0},
    {"zstd-v2-delta", CompressionCodec::kZstd, false, 2, ValueEncoding::kDelta, 0},
    {"snappy-v2-delta-length", CompressionCodec::kSnappy, false, 2, ValueEncoding::kDeltaLength, 0},
    {"zstd-v1-byte-stream-split", CompressionCodec::kZstd, false, 1,
     ValueEncoding::kByteStreamSplit, 0},
};

const char* CrossCheckDir() { return std::getenv("TRIBUTARY_PARQUET_CROSSCHECK_DIR"); }

std::string Hex(std::string_view bytes) {
  static const char* kDigits = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::string Int128String(__int128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u =
      neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  while (u > 0) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return neg ? "-" + s : s;
}

// The form parquet_duckdb.js compares: see its comments.
const char* Kind(const DataType& t) {
  switch (t.id) {
    case TypeId::kBoolean:
      return "bool";
    case TypeId::kFloat:
    case TypeId::kDouble:
      return "float";
    case TypeId::kDecimal:
      return "decimal";
    case TypeId::kChar:
    case TypeId::kVarChar:
      return "string";
    case TypeId::kBinary:
    case TypeId::kVarBinary:
      return "bytes";
    case TypeId::kDate:
      return "date";
    case TypeId::kTime:
      return "time";
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz:
      return "timestamp";
    default:
      return "int";
  }
}

nlohmann::json Expected(const Value& v, const DataType& t) {
  if (v.is_null()) return nullptr;
  std::string kind = Kind(t);
  if (kind == "bool") return v.bool_value() ? "true" : "false";
  if (kind == "float") {
    uint64_t bits;
    double d = v.double_value();
    std::memcpy(&bits, &d, 8);
    char buf[17];
    std::snprintf(buf, sizeof(buf), "%016llX", static_cast<unsigned long long>(bits));
    return buf;
  }
  if (kind == "decimal") return FormatValue(v, t);
  if (kind == "string") return v.string_value();
  if (kind == "bytes") return Hex(v.string_value());
  if (kind == "timestamp") {
    Timestamp ts = v.timestamp_value();
    return Int128String(static_cast<__int128>(ts.millis) * 1000000 + ts.nanos_of_milli);
  }
  return std::to_string(v.int_value());  // int, date (days), time (millis of day)
}

TEST(ParquetCrossCheck, DISABLED_WriteFilesForDuckDB) {
  ASSERT_NE(CrossCheckDir(), nullptr) << "set TRIBUTARY_PARQUET_CROSSCHECK_DIR";
  std::vector<Field> schema = testing::AllTypesSchema();
  for (const Variant& v : kVariants) {
    ParquetWriterOptions o;
    o.compression = v.codec;
    o.dictionary = v.dictionary;
    o.data_page_version = v.page_version;
    o.value_encoding = v.encoding;
    o.page_size = 4096;
    o.row_group_size = 64 * 1024;
    auto w = ParquetWriter::Make(schema, o);
    ASSERT_TRUE(w.ok());
    std::vector<Row> rows = testing::RandomRows(schema, kRows, kSeed, v.cardinality);
    nlohmann::json expected;
    expected["codec"] = CompressionCodecName(v.codec);
    for (const Field& f : schema) {
      expected["columns"].push_back({{"name", f.name}, {"kind", Kind(f.type)}, {"id", f.id}});
    }
    for (const Row& row : rows) {
      ASSERT_TRUE((*w)->Append(row).ok());
      nlohmann::json r = nlohmann::json::array();
      for (size_t c = 0; c < row.size(); ++c) r.push_back(Expected(row[c], schema[c].type));
      expected["rows"].push_back(std::move(r));
    }
    std::string base = std::string(CrossCheckDir()) + "/" + v.name;
    std::ofstream(base + ".parquet", std::ios::binary) << *(*w)->Finish();
    std::ofstream(base + ".json") << expected.dump();
  }
}

// DuckDB rewrote each file (its own writer, data page v2, RLE_DICTIONARY and DELTA encodings,
// TIMESTAMP/TIME in micro- or nanoseconds); the values must come back, at the precision DuckDB
// kept.
TEST(ParquetCrossCheck, DISABLED_ReadFilesWrittenByDuckDB) {
  ASSERT_NE(CrossCheckDir(), nullptr) << "set TRIBUTARY_PARQUET_CROSSCHECK_DIR";
  std::vector<Field> schema = testing::AllTypesSchema();
  for (const Variant& v : kVariants) {
    std::string path = std::string(CrossCheckDir()) + "/duckdb-" + v.name + ".parquet";
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in.good()) << path;
    std::stringstream ss;
    ss << in.rdbuf();
    auto r = ParquetReader::Open(ss.str());
    ASSERT_TRUE(r.ok()) << path << ": " << r.status().ToString();
    std::vector<int> projection;
    for (const Field& f : schema) {
      int c = (*r)->schema().FindColumn(f.name);
      ASSERT_GE(c, 0) << path << " lacks " << f.name;
      projection.push_back(c);
    }
    ParquetReadOptions o;
    o.projection = projection;
    auto got = (*r)->ReadRows(o);
    ASSERT_TRUE(got.ok()) << path << ": " << got.status().ToString();
    std::vector<Row> rows = testing::RandomRows(schema, kRows, kSeed, v.cardinality);
    ASSERT_EQ(got->size(), rows.size()) << path;
    for (size_t c = 0; c < schema.size(); ++c) {
      const DataType& read_type = *(*r)->schema().columns()[projection[c]].type;
      for (size_t i = 0; i < rows.size(); ++i) {
        Value want = rows[i][c];
        if (want.is_timestamp() && read_type.IsTimestamp() && read_type.precision < 9) {
          // DuckDB keeps microseconds at most for some timestamp kinds.
          Timestamp ts = want.timestamp_value();
          int32_t unit = read_type.precision <= 3 ? 1000000 : 1000;
          want = Value::Ts(Timestamp{ts.millis, ts.nanos_of_milli / unit * unit});
        }
        ASSERT_EQ((*got)[i][c], want) << path << " row " << i << " column " << schema[c].name
                                      << " read as " << read_type.ToString();
      }
    }
  }
}

}  // namespace
}  // namespace tributary::format::parquet
