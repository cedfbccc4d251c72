// Deletion vectors: which row positions of a data file are deleted (PAIMON_FORMAT.md 1.10).
// Stored in index files as <4-byte BE length, magic + serialized RoaringBitmap, 4-byte CRC>;
// the checksum verified, the bitmap decoded strictly (damaged input is an error, never other
// positions). Immutable after decoding; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_set>

#include "tributary/result.h"

namespace tributary::format {

class DeletionVector {
 public:
  bool IsDeleted(int64_t position) const { return deleted_.count(position) > 0; }
  size_t cardinality() const { return deleted_.size(); }

  // Decodes the vector whose 4-byte length field starts at `offset` of an index file
  // (`length` = the value of that field, as the index manifest records it). 32-bit
  // (magic 1581511376) and 64-bit (magic 0xD1D33964) bitmaps are supported.
  static Result<DeletionVector> Decode(std::string_view index_file, int64_t offset, int64_t length,
                                       const std::string& what);

 private:
  std::unordered_set<int64_t> deleted_;
};

}  // namespace tributary::format
