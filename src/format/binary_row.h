// BinaryRow: Paimon's compact row encoding, used for partition values, min/max keys and column
// statistics in manifests, and as the input of the bucket hash (PAIMON_FORMAT.md 1.5, 1.6).
// Layout: an 8-byte-aligned header (row kind byte + null bits), one 8-byte slot per field
// (little-endian), then a variable part for strings/bytes longer than 7 bytes, large decimals and
// high-precision timestamps.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/result.h"
#include "tributary/value.h"

namespace tributary::format {

// The row bytes (no arity prefix). Values must have the representation value.h gives each type.
std::string EncodeBinaryRow(const std::vector<DataType>& types, const Row& values,
                            RowKind kind = RowKind::kInsert);
// Decodes row bytes (no arity prefix).
Result<Row> DecodeBinaryRow(std::string_view bytes, const std::vector<DataType>& types);

// The form manifests store: 4-byte big-endian arity, then the row bytes.
std::string SerializeBinaryRow(const std::vector<DataType>& types, const Row& values);
// Inverse of SerializeBinaryRow. A row with fewer fields than `types` yields NULLs for the rest
// (as readers of evolved schemas expect); more fields is an error.
Result<Row> DeserializeBinaryRow(std::string_view bytes, const std::vector<DataType>& types);
// The arity stored in a serialized row.
Result<int32_t> SerializedArity(std::string_view bytes);

// MurmurHashUtils.hashBytesByWords(bytes, seed 42), as BinaryRow.hashCode().
int32_t HashBytesByWords(std::string_view bytes);
// The hash of the BinaryRow of `values` (what Paimon's bucket function uses).
int32_t HashRow(const std::vector<DataType>& types, const Row& values);
// Paimon's default bucket function: abs(hash % num_buckets) with Java's truncating %.
int32_t BucketOf(int32_t hash, int32_t num_buckets);

// DECIMAL unscaled values as minimal big-endian two's complement bytes (Java's
// BigInteger.toByteArray()), as BinaryRow, Avro and Parquet store large decimals.
std::string DecimalToBytes(__int128 unscaled);
__int128 DecimalFromBytes(std::string_view bytes);

}  // namespace tributary::format
