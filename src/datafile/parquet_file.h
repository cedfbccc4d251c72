// Opened Parquet data files shared by the datafile/ readers (rows, column batches, merged
// columns): one mapping and parsed footer per file in the process-wide cache, and how table
// columns and scan filters map onto a file's columns. Internal to datafile/.
// Thread-safety: stateless functions; the cache is thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "datafile/data_file.h"
#include "format/parquet/reader.h"

namespace tributary::datafile {

using ParquetReaderPtr = std::shared_ptr<const format::parquet::ParquetReader>;

// The file column holding table field `f`: by field id (as Paimon matches across renames), else
// by name; -1 when the file lacks it.
int FileColumnOf(const format::parquet::FileSchema& schema, const Field& f);

// The Parquet data file `file` opened (mapped, footer parsed, checksum verified), from the cache;
// an error names the file, also when it holds another row count than its manifest entry.
Result<ParquetReaderPtr> OpenParquet(const DataFileRef& file);

// Row groups whose statistics rule out one of `skip_filters` are not decoded: the filter that
// says so, or an empty one.
format::parquet::RowGroupFilter RowGroupFilterFor(const format::parquet::FileSchema& schema,
                                                  const FileLayout& layout,
                                                  const std::vector<Field>* file_fields,
                                                  const std::vector<Predicate>* skip_filters);

}  // namespace tributary::datafile
