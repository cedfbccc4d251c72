// Paimon's `.blob` files: the values of one BLOB column of an append table, one record per row
// (a 4-byte magic, the value, the record's total length as 8 bytes little-endian and a CRC32 of
// what precedes it), then an index footer. Records are found by their length fields.
// Thread-safety: stateless functions.
#pragma once

#include <string_view>
#include <vector>

#include "tributary/result.h"

namespace tributary::format {

// The values of a blob file's records, in order (views into `bytes`). A record whose length or
// CRC does not check out is an error giving its offset.
Result<std::vector<std::string_view>> ReadBlobValues(std::string_view bytes);

}  // namespace tributary::format
