// PackedRecords: the records of one data file sorted by an integer key, packed for point lookups
// in about the bytes their values take (issue 38). Blocks of 16 records; a block begins with its
// records' keys (each an unsigned varint delta from the key before it) and then their lengths and
// kinds (varints), so that finding a key in a block reads a cache line or two, not the records;
// then each record's sequence number (a varint) and its value without the key column, each field a
// 4-bit tag (null, false, true, integer, double, string, decimal, timestamp) and a varint or the
// bytes it needs. Only each block's first key and offset are held apart: a lookup
// binary-searches them and reads one block. Nested values are not packed (Append refuses them).
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
  // Append them all, then Finish.
  PackedRecords(size_t fields, int key_column) : fields_(fields), key_column_(key_column) {}

  // Appends a record. False, appending nothing, when a value is nested, the key is not an
  // integer or it is below the last record's (keys ascend).
  bool Append(int64_t sequence, RowKind kind, const Row& value);
  // Room for `records` records in all, at the size of those appended so far (called once a few
  // thousand are in: the buffer then does not double past what the file needs, nor hold a
  // doubled buffer and its copy at once).
  void Reserve(size_t records);
  // Packs the last block and gives back spare capacity: after the last Append, before any read.
  void Finish();

  size_t size() const { return count_; }
  // What the records take in memory.
  int64_t Bytes() const;

  // The records [first, last) whose key is `key`.
  std::pair<size_t, size_t> EqualRange(int64_t key) const;
  // Record i's sequence number, kind and value.
  void Get(size_t i, int64_t* sequence, RowKind* kind, Row* value) const;

 private:
  // Packs the records of the block being filled into data_.
  void PackBlock();

  size_t fields_;
  int key_column_;
  size_t count_ = 0;
  int64_t last_key_ = 0;
  std::string data_;
  std::vector<int64_t> block_keys_;      // the first key of each block
  std::vector<uint64_t> block_offsets_;  // where each block begins in data_
  // The block being filled: its keys' deltas and lengths (varints), and its records.
  std::string keys_, lengths_, records_;
};

}  // namespace tributary::datafile
