// PackedRecords: the records of one data file sorted by an integer key, packed for point lookups
// in about the bytes their values take (issue 38): blocks of 16 records, each record's key as a
// delta from the one before it, its sequence number and row kind as varints, and its value
// without the key column, each field a 4-bit tag (null, false, true, integer, double, string,
// decimal, timestamp) and a varint or the bytes it needs. Only each block's first key and offset
// are held apart: a lookup binary-searches them and walks at most a block. Nested values are not
// packed (Append refuses them).
//
// What W1's rows (a BIGINT key, two BIGINTs, a DOUBLE, three strings of 16-24 bytes) take: about
// 86 bytes a record, against 161 as BinaryRows beside arrays of keys, offsets, sequence numbers
// and kinds (the form before the thirty-ninth session).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tributary/row_kind.h"
#include "tributary/value.h"

namespace tributary::datafile {

class PackedRecords {
 public:
  static constexpr size_t kBlockRecords = 16;

  // Records of `fields` columns whose key is column `key_column` (an integer in every record).
  PackedRecords(size_t fields, int key_column) : fields_(fields), key_column_(key_column) {}

  // Appends a record (keys ascending). False, appending nothing, when a value is nested or the
  // key is not an integer.
  bool Append(int64_t sequence, RowKind kind, const Row& value);
  // Gives back spare capacity once the last record is appended.
  void Shrink();

  size_t size() const { return count_; }
  // What the records take in memory.
  int64_t Bytes() const;

  // The records [first, last) whose key is `key`.
  std::pair<size_t, size_t> EqualRange(int64_t key) const;
  // Record i's sequence number, kind and value.
  void Get(size_t i, int64_t* sequence, RowKind* kind, Row* value) const;

 private:
  // The byte where record `slot` of block `b` begins, and its key.
  size_t Seek(size_t b, size_t slot, int64_t* key) const;

  size_t fields_;
  int key_column_;
  size_t count_ = 0;
  int64_t last_key_ = 0;
  std::string data_;
  std::vector<int64_t> block_keys_;      // the first key of each block
  std::vector<uint64_t> block_offsets_;  // where each block begins in data_
  std::string scratch_;                  // one record's value while it is encoded
};

}  // namespace tributary::datafile
