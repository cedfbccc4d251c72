// Parquet value and level encodings (https://parquet.apache.org/docs/file-format/data-pages/
// encodings/): PLAIN, the RLE/bit-packed hybrid (levels, dictionary indices, booleans),
// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT, both
// directions. Values travel in PhysicalValues, one vector per physical representation.
// Decoders bound every count by the input size, so damaged input gives Corruption.
// Thread-safety: value types and stateless functions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format/parquet/parquet_metadata.h"
#include "tributary/column_batch.h"
#include "tributary/result.h"

namespace tributary::format::parquet {

// Decoded values of one physical type. Exactly one vector is used:
//   BOOLEAN (0/1), INT32, INT64 -> ints; FLOAT, DOUBLE -> doubles;
//   BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY, INT96 (12 raw bytes) -> bytes.
// Room for `n` more elements in `v`, growing geometrically (page after page appends to the same
// vectors: an exact reserve each time would move every element again).
template <typename V>
void ReserveMore(V* v, size_t n) {
  const size_t want = v->size() + n;
  if (want > v->capacity()) v->reserve(std::max(want, 2 * v->capacity()));
}

struct PhysicalValues {
  std::vector<int64_t> ints;
  std::vector<double> doubles;
  StringVector bytes;

  size_t size() const { return ints.size() + doubles.size() + bytes.size(); }
  bool empty() const { return size() == 0; }
  void clear() {
    ints.clear();
    doubles.clear();
    bytes.clear();
  }
  // Appends values[i] of `from` (same physical type).
  void AppendFrom(const PhysicalValues& from, size_t i);
};

// Number of bits needed for `max_value` (0 for 0).
int BitWidth(uint64_t max_value);

// Bytes of one PLAIN value of a fixed-width physical type (FIXED_LEN_BYTE_ARRAY: `type_length`);
// 0 for BOOLEAN (bit-packed) and BYTE_ARRAY (length-prefixed).
int FixedWidth(PhysicalType type, int32_t type_length);

// ---- RLE / bit-packed hybrid

// Decodes a hybrid stream of unsigned values of `bit_width` (0..32) bits.
class RleBitPackedDecoder {
 public:
  RleBitPackedDecoder(std::string_view data, int bit_width) : data_(data), bit_width_(bit_width) {}
  // Appends exactly `n` values to `out`; fewer available is Corruption.
  Status Get(int64_t n, std::vector<uint32_t>* out);
  size_t position() const { return pos_; }

 private:
  Status NextRun();

  std::string_view data_;
  int bit_width_;
  size_t pos_ = 0;
  // Current run: an RLE run repeats rle_value_; a bit-packed run is read from packed_ at
  // packed_index_ (in values).
  bool rle_ = true;
  int64_t run_left_ = 0;
  uint32_t rle_value_ = 0;
  std::string_view packed_;
  int64_t packed_index_ = 0;
};

// Encodes values of `bit_width` bits (no length prefix).
std::string EncodeRleBitPacked(const std::vector<uint32_t>& values, int bit_width);

// ---- PLAIN

// Decodes `n` PLAIN values of `type` (`type_length` for FIXED_LEN_BYTE_ARRAY) from the front of
// `data`; `consumed` receives the bytes used.
Status DecodePlain(std::string_view data, PhysicalType type, int32_t type_length, int64_t n,
                   PhysicalValues* out, size_t* consumed = nullptr);
// Decodes `n` PLAIN byte arrays from the front of `data`, appending only value i with
// wanted[i] != 0. Every length is still checked against the page.
Status DecodePlainByteArraysWanted(std::string_view data, int64_t n, const uint8_t* wanted,
                                   StringVector* out);
// Appends the PLAIN encoding of all of `values`.
void EncodePlain(const PhysicalValues& values, PhysicalType type, std::string* out);
// PLAIN encoding of one value as statistics store it (no length prefix for byte arrays).
std::string EncodeStatValue(const PhysicalValues& values, size_t i, PhysicalType type);

// ---- DELTA_BINARY_PACKED (INT32 / INT64)

Status DecodeDeltaBinaryPacked(std::string_view data, int64_t max_values, bool is_int32,
                               std::vector<int64_t>* out, size_t* consumed);
// Block size 128, 4 miniblocks (as parquet-mr). For INT32 pass the values sign-extended and
// is_int32 = true, so deltas wrap in 32 bits as other writers expect.
std::string EncodeDeltaBinaryPacked(const std::vector<int64_t>& values, bool is_int32);

// ---- DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY (BYTE_ARRAY; DELTA_BYTE_ARRAY also FLBA)

Status DecodeDeltaLengthByteArray(std::string_view data, int64_t n, StringVector* out);
std::string EncodeDeltaLengthByteArray(const StringVector& values);
Status DecodeDeltaByteArray(std::string_view data, int64_t n, StringVector* out);
std::string EncodeDeltaByteArray(const StringVector& values);

// ---- BYTE_STREAM_SPLIT (FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY)

Status DecodeByteStreamSplit(std::string_view data, PhysicalType type, int32_t type_length,
                             int64_t n, PhysicalValues* out);
std::string EncodeByteStreamSplit(const PhysicalValues& values, PhysicalType type,
                                  int32_t type_length);

// ---- BOOLEAN as RLE (4-byte little-endian length, then a hybrid stream of width 1)

Status DecodeRleBooleans(std::string_view data, int64_t n, std::vector<int64_t>* out);
std::string EncodeRleBooleans(const std::vector<int64_t>& values);

}  // namespace tributary::format::parquet
