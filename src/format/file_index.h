// Paimon's data-file index (PAIMON: FileIndexFormat, BloomFilterFileIndex, BloomFilter64,
// FastHash; docs/research/paimon-file-index.md): per data file, per column, a bloom filter of the
// column's values, kept in the manifest entry (`_EMBEDDED_FILE_INDEX`) when small, else in a
// `<data file>.index` file beside it. A reader that looks for a value (a point lookup, an
// equality filter) skips a file whose filter says the value is not there, without reading it.
// Byte-identical to what Paimon writes, so either side reads the other's indexes.
// Thread-safety: values; a BloomFilter64 is not safe to add to from several threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tributary/result.h"
#include "tributary/types.h"
#include "tributary/value.h"

namespace tributary::format {

// The index type name of bloom filters in the container.
inline constexpr const char* kBloomFilterIndexType = "bloom-filter";

// Whether a column of `type` can have a bloom filter (integers, floating point, dates, times,
// timestamps, strings, binary; not BOOLEAN, DECIMAL or nested types, as Paimon).
bool BloomFilterSupports(const DataType& type);

// The 64-bit hash Paimon's bloom filter takes of a value of `type` (XXH64 of the bytes of strings
// and binary; Thomas Wang's mix of the integer form of the others), or nullopt for NULL and for
// a value not of the column's representation.
// REQUIRES: BloomFilterSupports(type).
std::optional<uint64_t> BloomFilterHash(const Value& v, const DataType& type);
// The same for an integer column's stored form (dates, times, integers) and for bytes.
uint64_t BloomFilterHashInt(int64_t v);
uint64_t BloomFilterHashBytes(std::string_view bytes);

class BloomFilter64 {
 public:
  // A filter sized for `items` values at false-positive probability `fpp` (Paimon's formulas).
  BloomFilter64(int64_t items, double fpp);
  // Reads a serialized filter (its hash function count, then its bits).
  static Result<BloomFilter64> Parse(std::string_view bytes);

  void AddHash(uint64_t hash);
  // False: no value with this hash was added.
  bool MightContainHash(uint64_t hash) const;
  // The serialized form: hash function count (int32, big-endian), then the bit array.
  std::string Serialize() const;
  int64_t num_bits() const { return static_cast<int64_t>(bits_.size()) * 8; }
  int32_t num_hash_functions() const { return k_; }

 private:
  BloomFilter64() = default;
  // fn(position) for each of the hash's k bit positions (Paimon's: h1 + i * h2 in 32-bit
  // arithmetic, complemented when negative, modulo the bit count) while fn returns true.
  template <typename Fn>
  bool ForEachBit(uint64_t hash, Fn&& fn) const {
    const uint32_t h1 = static_cast<uint32_t>(hash), h2 = static_cast<uint32_t>(hash >> 32);
    const int64_t bits = num_bits();
    for (int32_t i = 1; i <= k_; i++) {
      int32_t c = static_cast<int32_t>(h1 + static_cast<uint32_t>(i) * h2);
      if (c < 0) c = ~c;
      if (!fn(c % bits)) return false;
    }
    return true;
  }
  int32_t k_ = 1;
  std::string bits_;
};

// The indexes of one data file: per column, per index type, the index's bytes.
struct FileIndexColumn {
  std::string column;
  std::vector<std::pair<std::string, std::string>> indexes;  // (type, bytes)
};

// The container's bytes. Columns are written in the order Java's HashMap iterates their names
// (Paimon's writer builds one), so the bytes equal Paimon's for the same indexes.
// With `checksum`, the container's redundant bytes (which Paimon's readers skip) carry a CRC-32
// of the rest (docs/format/file-index.md), so a damaged index is found, not believed.
std::string SerializeFileIndex(std::vector<FileIndexColumn> columns, bool checksum = false);
// Reads a container; errors name `what` (the file or manifest entry) and what is wrong. A
// checksum in the redundant bytes is verified (Corruption when it does not match).
Result<std::vector<FileIndexColumn>> ParseFileIndex(std::string_view bytes,
                                                    const std::string& what);

// The names in the order a java.util.HashMap<String, ...> filled in this order iterates them.
std::vector<std::string> JavaHashMapOrder(const std::vector<std::string>& names);

}  // namespace tributary::format
