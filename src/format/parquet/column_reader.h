// Decoding of one column chunk: page headers, decompression, repetition/definition levels and
// values in every encoding the reader supports (see encodings.h), data pages v1 and v2.
// Thread-safety: stateless functions over immutable input.
#pragma once

#include <cstdint>
#include <mutex>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "format/parquet/encodings.h"
#include "format/parquet/parquet_metadata.h"
#include "format/parquet/parquet_schema.h"
#include "tributary/result.h"

namespace tributary::format::parquet {

// Rows [first, second) of a row group, sorted and disjoint.
using RowRanges = std::vector<std::pair<int64_t, int64_t>>;
// Whether rows [begin, end) meet `ranges`.
bool Overlaps(const RowRanges& ranges, int64_t begin, int64_t end);

// All levels and values of one column chunk.
struct ColumnChunkData {
  int64_t num_levels = 0;           // level entries (= rows for flat columns)
  std::vector<int16_t> def_levels;  // empty when the leaf's max definition level is 0
  std::vector<int16_t> rep_levels;  // empty when the leaf's max repetition level is 0
  PhysicalValues values;            // the present (non-null) leaf values, in order
  // Rows of data pages left undecoded because they are outside the requested rows (flat
  // leaves only): no values and no definition levels (def_levels holds those of the rows
  // decoded, in order: row r's is at r less the skipped rows before it).
  RowRanges skipped;
  // Set when rows were requested for a flat byte-array leaf: `values` then holds the present
  // values of the requested rows alone, in order (the others are never copied out of the pages).
  bool wanted_only = false;
};

// Upper bound on the level entries of one page, against hostile headers.
inline constexpr int64_t kMaxPageValues = int64_t{1} << 26;

// The pages of one immutable file whose checksums were verified (by the offset of their
// header): a reader checks each page once, not at every scan. Thread-safe.
class VerifiedPages {
 public:
  bool Contains(int64_t offset) const {
    std::lock_guard<std::mutex> lock(mu_);
    return offsets_.count(offset) > 0;
  }
  void Add(int64_t offset) {
    std::lock_guard<std::mutex> lock(mu_);
    offsets_.insert(offset);
  }

 private:
  mutable std::mutex mu_;
  std::unordered_set<int64_t> offsets_;
};

// Where the bytes of a column chunk lie in its file: [first, first + second), from its
// metadata (unchecked).
std::pair<int64_t, int64_t> ColumnChunkByteRange(const ColumnMetaData& m);

// Reads the column chunk `chunk` of leaf `leaf` from `file` (the whole file). `num_rows` is
// its row group's row count (the chunk of a flat column holds exactly that many levels).
// `rows`: when set, data pages of a flat leaf holding none of these rows are not decompressed
// or decoded (see ColumnChunkData::skipped), and byte-array values of rows not requested are not
// copied out of the pages decoded (see ColumnChunkData::wanted_only).
// `verified`: pages whose checksum is known good (their check is skipped; pages checked now
// are added), or null to check every page.
// `pages`: the chunk's offset index, if known: with `rows`, the data pages of a flat leaf that
// hold none of them are stepped over by their locations, their headers never read (a location
// that does not agree with the chunk is not used).
Result<ColumnChunkData> ReadColumnChunk(std::string_view file, const ColumnChunk& chunk,
                                        const LeafColumn& leaf, int64_t num_rows,
                                        const RowRanges* rows = nullptr,
                                        VerifiedPages* verified = nullptr,
                                        const OffsetIndex* pages = nullptr);

}  // namespace tributary::format::parquet
