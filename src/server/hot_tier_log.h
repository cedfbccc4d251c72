// The hot tier's log format (server/hot_tier.h): a table's log files hold entries, one per
// statement: its rows as an Arrow IPC stream of one record batch of the table's columns and the
// row kind ('table.log.format' = 'ARROW', column-wise as Fluss's logs are; its buffers
// compressed as 'table.log.arrow.compression.type' says), framed with the entry's sequence
// number, the schema id it was written with, its length and a CRC-32 of all of them. Entries
// written before the Arrow format (a small LZ4 Parquet file each) are still read.
// Thread-safety: an EntryEncoder is one thread's; the functions are stateless.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tributary/result.h"
#include "tributary/schema.h"
#include "tributary/value.h"

namespace tributary::format::arrow {
class IpcStreamWriter;
}  // namespace tributary::format::arrow

namespace tributary::server {

using Records = std::vector<std::pair<RowKind, Row>>;

// A statement's records as an entry, encoded as the rows come.
class EntryEncoder {
 public:
  // `table_options`: the table's, for the compression of its batches.
  EntryEncoder(std::vector<Field> fields, const std::map<std::string, std::string>& table_options);
  ~EntryEncoder();
  Status Add(RowKind kind, const Row& values);
  // The whole entry, framed: magic, sequence, schema id, length, CRC-32, payload. The encoder
  // is done with.
  Result<std::string> Finish(int64_t seq, int64_t schema_id);
  void Reset();

 private:
  std::vector<Field> fields_;
  Status refused_;       // a 'table.log.format' not built
  int compression_ = 0;  // format::arrow::IpcCompression
  int zstd_level_ = 3;
  std::unique_ptr<format::arrow::IpcStreamWriter> writer_;
  std::vector<const Value*> cells_;
};

struct LogEntry {
  int64_t seq = 0;
  int64_t schema_id = 0;
  std::string payload;
};

// The whole entries of a log file, in order. A torn tail (an entry cut short or failing its
// check, from a crash while it was appended: never acknowledged) ends them.
Result<std::vector<LogEntry>> ReadEntries(const std::string& path);

// The records of entry `e` as rows of a table whose columns are now `fields`: columns are
// matched by field id (the entry may have been written before an ALTER TABLE by another
// program): a column added since is NULL, a dropped one is left out; a column whose values are
// held otherwise now (another type, not another length or precision) cannot be replayed
// (Corruption, naming it).
Result<Records> DecodeRecords(const LogEntry& e, const std::string& path,
                              const std::vector<Field>& fields);

// The log files of a table's directory, oldest first (named by their first sequence number).
std::vector<std::string> LogFiles(const std::string& dir);

}  // namespace tributary::server
