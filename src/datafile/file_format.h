// FileFormat: how a data file format encodes a table's records (Paimon's FileFormat factories,
// RocksDB's TableFactory). One object per format: Parquet (the default), Avro, and Paimon's
// `.blob` files (read only). A new format (ORC, Arrow IPC for changelogs) is one new class here,
// registered in file_format.cc: DataFileWriter and ReadDataFile choose by 'file.format' and by
// file name, and know no format by name.
// Thread-safety: the formats are immutable singletons; a FormatWriter is single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/file_parts.h"
#include "datafile/data_file.h"

namespace tributary::format {
struct ColumnValues;
}  // namespace tributary::format

namespace tributary::datafile {

// One data file being encoded in memory. Records go in as physical rows: the cells of
// FileLayout::PhysicalFields() (key columns, _SEQUENCE_NUMBER, _VALUE_KIND, then every column of
// a primary-key table; the columns of an append table).
class FormatWriter {
 public:
  virtual ~FormatWriter() = default;
  virtual Status Append(const std::vector<const Value*>& cells) = 0;
  // `n` physical rows column by column. REQUIRES: FileFormat::WritesColumns().
  virtual Status AppendColumns(const std::vector<format::ColumnValues>& columns, size_t n);
  // Bytes of the file so far (for rolling at the target file size).
  virtual int64_t EstimatedSize() const = 0;
  // The whole file.
  virtual Result<std::string> Finish() = 0;
  // The whole file as parts (a format whose writer holds it in pieces hands them over without
  // joining them; by default the one part Finish returns).
  virtual Result<FileParts> FinishParts();
};

class FileFormat {
 public:
  virtual ~FileFormat() = default;
  // The 'file.format' value ("parquet") and the data files' extension (".parquet").
  virtual std::string_view name() const = 0;
  virtual std::string_view extension() const = 0;
  // A writer of files whose records have `physical_fields`.
  virtual Result<std::unique_ptr<FormatWriter>> NewWriter(
      const std::vector<Field>& physical_fields, const options::FileFormatOptions& options) const;
  // Whether Tributary writes files in it (NewWriter succeeds; '.blob' files are read only).
  virtual bool Writable() const { return true; }
  // Whether its writers take flat columns (FormatWriter::AppendColumns).
  virtual bool WritesColumns() const { return false; }
  // Whether its files can be read column by column (ColumnFileReader, the merged column reads
  // and point lookups of datafile/merged_columns.cc); else only as records (Read).
  virtual bool ReadsColumns() const { return false; }
  // The finest TIMESTAMP precision its files hold.
  virtual int32_t MaxTimestampPrecision() const { return 9; }
  // The records of a data file in this format (as ReadDataFile; `mask`: the columns a partial
  // write stored).
  virtual Result<std::vector<merge::KeyValue>> Read(
      const DataFileRef& file, const FileLayout& layout, int32_t level,
      const std::optional<std::vector<std::string>>& write_cols,
      const std::shared_ptr<const std::vector<bool>>& mask, const std::vector<Field>* file_fields,
      const ReadPushdown& pushdown) const = 0;
};

// The format 'file.format' = `name` names; nullptr for a format Tributary does not know.
const FileFormat* FindFileFormat(std::string_view name);
// The format of a data file, by its name's extension; nullptr when no format has it.
const FileFormat* FileFormatOfPath(std::string_view path);
// Whether `path` is a data file in a format that reads column by column (FileFormat::ReadsColumns).
bool ReadsColumns(std::string_view path);
// The names of the formats data files can be written in ("parquet and avro"), for errors.
std::string WritableFormatNames();

}  // namespace tributary::datafile
