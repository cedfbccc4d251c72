// What the datafile/ readers share (rows, column batches, merged columns, the formats): opened
// Parquet data files (one mapping and parsed footer per file in the process-wide cache), how
// table columns and scan filters map onto a file's columns, and each format's record reader.
// Internal to datafile/.
// Thread-safety: stateless functions; the cache is thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "datafile/data_file.h"
#include "format/parquet/reader.h"

namespace tributary::datafile {

using ParquetReaderPtr = std::shared_ptr<const format::parquet::ParquetReader>;

// The file column holding table field `f`: by field id (as Paimon matches across renames), else
// by name; -1 when the file lacks it.
int FileColumnOf(const format::parquet::FileSchema& schema, const Field& f);

// The file columns a record is read from: _SEQUENCE_NUMBER, _VALUE_KIND, then each of `layout`'s
// fields; nullopt when one is missing or of another type (the caller reads otherwise).
std::optional<std::vector<int>> RecordColumns(const format::parquet::ParquetReader& reader,
                                              const FileLayout& layout);
// The record at row `row` of `columns` (as RecordColumns lists them, decoded), at `level`;
// Corruption naming `path` and the file row `position` when its sequence number or row kind is
// not valid.
Status RecordAt(const std::vector<ColumnVector>& columns, size_t row, const std::string& path,
                int64_t position, int32_t level, merge::KeyValue* out);

// The Parquet data file `file` opened (mapped, footer parsed, checksum verified), from the cache;
// an error names the file, also when it holds another row count than its manifest entry.
Result<ParquetReaderPtr> OpenParquet(const DataFileRef& file);

// Row groups whose statistics rule out one of `skip_filters` are not decoded: the filter that
// says so, or an empty one.
format::parquet::RowGroupFilter RowGroupFilterFor(const format::parquet::FileSchema& schema,
                                                  const FileLayout& layout,
                                                  const std::vector<Field>* file_fields,
                                                  const std::vector<Predicate>* skip_filters);

// The read-schema column `read` in a file written with an older schema: the file's field with the
// same id, or nullptr (the column was added later). Without `file_fields`, `read` itself.
const Field* SourceField(const Field& read, const std::vector<Field>* file_fields);
// An error when a file holds another row count than its manifest entry records.
Status CheckRowCount(const DataFileRef& file, int64_t rows);

// Column `col` of row group `rg` of the opened Parquet data file `path`, decoded whole. With
// `cache`, columns of a flat representation (integers, floating-point numbers, strings and
// bytes: ChunkCacheable) are kept in the process-wide file cache (the file is immutable), so a
// repeated scan neither decompresses nor decodes them; other columns are decoded every time.
Result<std::shared_ptr<const ColumnVector>> ReadWholeChunk(
    const format::parquet::ParquetReader& reader, const std::string& path, int rg, int col,
    bool cache = true);
// Whether ReadWholeChunk caches chunks that decode to `rep`.
inline bool ChunkCacheable(ColumnVector::Rep rep) { return rep != ColumnVector::Rep::kValue; }

// Clears keep[r] for the rows of `col` failing `p` (a comparison with NULL fails).
void FilterColumn(const Predicate& p, const ColumnVector& col, std::vector<uint8_t>* keep);

// `rows` (ascending row numbers, `offset` added) as sorted disjoint ranges.
format::parquet::RowRanges RangesOf(const std::vector<uint32_t>& rows, int64_t offset);

// The records of a data file in each format (FileFormat::Read); `mask`: the columns a partial
// write stored.
Result<std::vector<merge::KeyValue>> ReadParquetRecords(
    const DataFileRef& file, const FileLayout& layout, int32_t level,
    const std::shared_ptr<const std::vector<bool>>& mask, const std::vector<Field>* file_fields,
    const ReadPushdown& pushdown);
Result<std::vector<merge::KeyValue>> ReadAvroRecords(
    const DataFileRef& file, const FileLayout& layout, int32_t level,
    const std::shared_ptr<const std::vector<bool>>& mask, const std::vector<Field>* file_fields,
    const ReadPushdown& pushdown);
Result<std::vector<merge::KeyValue>> ReadBlobRecords(
    const DataFileRef& file, const FileLayout& layout, int32_t level,
    const std::optional<std::vector<std::string>>& write_cols,
    const std::vector<Field>* file_fields);

}  // namespace tributary::datafile
