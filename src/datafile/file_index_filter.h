// A data file's bloom filters (Paimon's file index, format/file_index.h), read from its manifest
// entry (`_EMBEDDED_FILE_INDEX`) or its `<data file>.index` file, so point lookups and scans with
// equality / IN filters skip a file that cannot hold the value without reading it.
// Thread-safety: a loaded index is immutable; Load is thread-safe (the process-wide file cache).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "format/file_index.h"
#include "meta/manifest.h"
#include "tributary/result.h"
#include "tributary/table.h"

namespace tributary::datafile {

class DataFileIndex {
 public:
  // The index of data file `f`: its embedded bytes, else its `.index` extra file in `dir` (the
  // data file's directory; empty: embedded indexes only, as a manifest-level filter reads them).
  // nullptr when it has none (or none of those). A damaged index is Corruption naming the file.
  static Result<std::shared_ptr<const DataFileIndex>> Load(const meta::DataFileMeta& f,
                                                           const std::string& dir);

  // False when the file's bloom filter of `column` shows no row holds `v` (true without one,
  // and for NULL).
  bool MightContain(const std::string& column, const Value& v, const DataType& type) const;
  // False when no row of the file can pass `p` (an equality or IN on a column with a filter).
  bool MayMatch(const Predicate& p, const std::string& column, const DataType& type) const;
  bool empty() const { return blooms_.empty(); }

 private:
  std::map<std::string, format::BloomFilter64> blooms_;  // by column name
};

}  // namespace tributary::datafile
