// Deletion vectors: which row positions of a data file are deleted (PAIMON_FORMAT.md 1.10).
// Stored in index files (a version byte 1, then the vectors back to back; DeletionVectorIndex
// builds one) as <4-byte BE length, magic + serialized RoaringBitmap, 4-byte CRC>;
// the checksum verified, the bitmap decoded strictly (damaged input is an error, never other
// positions). Immutable after decoding; thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/result.h"

namespace tributary::format {

class DeletionVector {
 public:
  bool IsDeleted(int64_t position) const {
    return std::binary_search(deleted_.begin(), deleted_.end(), position);
  }
  size_t cardinality() const { return deleted_.size(); }
  // The deleted positions, ascending, each once.
  std::vector<int64_t> Positions() const { return deleted_; }
  const std::vector<int64_t>& positions() const { return deleted_; }

  // One vector as Paimon writes it into an index file: the 4-byte big-endian length of what
  // follows up to the checksum, the magic and the bitmap (run containers where they are smaller,
  // as Paimon's runOptimize / runLengthEncode leaves it), then the big-endian CRC-32 of magic and
  // bitmap. 32-bit form (Paimon's BitmapDeletionVector, positions below 2^31, else Invalid) or,
  // with `bitmap64` ('deletion-vectors.bitmap64'), the 64-bit one (Bitmap64DeletionVector). The
  // index manifest records the offset of the length field and the length's value
  // (EncodedLength). Positions may repeat and come in any order.
  static Result<std::string> Encode(std::vector<int64_t> positions, bool bitmap64);
  // The length field's value of an encoded vector (what the index manifest records).
  static int64_t EncodedLength(const std::string& encoded) {
    return static_cast<int64_t>(encoded.size()) - 8;
  }

  // Decodes the vector whose 4-byte length field starts at `offset` of an index file
  // (`length` = the value of that field, as the index manifest records it). 32-bit
  // (magic 1581511376) and 64-bit (magic 0xD1D33964) bitmaps are supported.
  static Result<DeletionVector> Decode(std::string_view index_file, int64_t offset, int64_t length,
                                       const std::string& what);

 private:
  std::vector<int64_t> deleted_;  // ascending, each once
};

// A deletion-vector index file being built: version byte 1, then each vector added, as Paimon's
// DeletionVectorsIndexFile writes one; each Add says where its vector lies, for the index
// manifest.
class DeletionVectorIndex {
 public:
  struct Range {
    int64_t offset = 0;  // of the vector's length field
    int64_t length = 0;  // the length field's value
    int64_t cardinality = 0;
  };
  Result<Range> Add(const std::vector<int64_t>& positions, bool bitmap64);
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_ = std::string(1, '\x01');
};

}  // namespace tributary::format
