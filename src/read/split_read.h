// SplitRead: reading one split (the files of one partition-bucket) of a planned scan as rows or
// column batches, the way the table's layout asks: append files as they are, a primary-key
// bucket merged by its merge engine (column by column where the engine allows, else by rows),
// deletion vectors applied, data-evolution files stitched by row id, row-tracking columns
// added, point lookups by binary search (Paimon's MergeFileSplitRead and RawFileSplitRead).
// Thread-safety: splits may be read on several threads at once when SharesState() is false.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "meta/manifest.h"
#include "tributary/column_batch.h"
#include "tributary/table_scan.h"

namespace tributary {
class TimeZone;
}  // namespace tributary
namespace tributary::datafile {
class ColumnFileReader;
struct FileLayout;
}  // namespace tributary::datafile

namespace tributary::read {

// The files of one partition-bucket that a scan reads (Paimon's DataSplit).
struct DataSplit {
  std::string pbytes;  // serialized partition
  Row partition;
  int32_t bucket = 0;
  std::string dir;
  std::vector<meta::DataFileMeta> files;
};

// Where a data file's deletion vector is: its index file and the range in it.
struct DvLocation {
  meta::IndexManifestEntry entry;
  meta::DeletionVectorRange range;
};
// By (serialized partition, bucket, data file name).
using DeletionVectorIndex = std::map<std::tuple<std::string, int32_t, std::string>, DvLocation>;

// Paimon's system fields of row-tracking tables (SpecialFields ids): _ROW_ID, _SEQUENCE_NUMBER.
const std::vector<Field>& RowTrackingFields();

// The values of `columns` that `filters` fix: an equality or IN filter on every one of them
// (the shortest, literals of the column's exact representation, not NULL), combined; nullopt
// when a column is not fixed or the combinations exceed `max_keys`. Point lookups (the primary
// key) and bucket pruning (the bucket key) use it.
// The filter that fixes each of `columns` (as KeysFixedByFilters picks them), in order; nullopt
// when one is not fixed or their combinations exceed `max_keys`.
std::optional<std::vector<const Predicate*>> FiltersFixing(const TableSchema& schema,
                                                           const std::vector<int>& columns,
                                                           const std::vector<Predicate>& filters,
                                                           size_t max_keys = 10000);
std::optional<std::vector<Row>> KeysFixedByFilters(const TableSchema& schema,
                                                   const std::vector<int>& columns,
                                                   const std::vector<Predicate>& filters,
                                                   size_t max_keys = 10000);

// Rows as one column batch of `fields`.
ColumnBatch RowsToColumns(const RowBatch& rows, const std::vector<Field>& fields);

// A merged bucket handed out a batch at a time (SplitRead::OpenMergedSlices).
class MergedSlices {
 public:
  virtual ~MergedSlices() = default;
  // The next batch of at least one and at most `max_rows` rows; false after the last.
  virtual Result<bool> Next(size_t max_rows, ColumnBatch* out) = 0;
};

class SplitRead {
 public:
  struct Config {
    std::string path;       // the table's folder (data files, manifests, index files)
    std::string meta_path;  // where schema/ is (the table, or a branch's folder)
    std::shared_ptr<const TableSchema> schema;
    const ScanOptions* options = nullptr;  // filters, limit, row tracking; outlives the reader
    std::vector<int> projection;           // output columns (past the schema: row tracking)
    std::vector<Field> output_fields;
    const TimeZone* time_zone = nullptr;   // for filters on TIMESTAMP WITH LOCAL TIME ZONE
    DeletionVectorIndex deletion_vectors;  // the snapshot's (deletion-vector tables)
  };
  // Settles what every split read needs: the merge engine, the columns to decode, the filters
  // that may skip row groups, a point lookup when the filters fix the whole primary key.
  static Result<std::unique_ptr<SplitRead>> Make(Config config);
  virtual ~SplitRead() = default;

  // The rows of `split` that pass the filters, projected, appended to *batch.
  virtual Status ReadSplit(const DataSplit& split, RowBatch* batch) = 0;
  // The same as column batches (ColumnPath() must hold).
  virtual Status ReadSplitColumns(const DataSplit& split, std::vector<ColumnBatch>* out) = 0;
  // A reader of file `f` of `split` a slice at a time, when it needs no merge and is a Parquet
  // file of the read schema; nullptr otherwise.
  virtual Result<std::unique_ptr<datafile::ColumnFileReader>> OpenSlices(
      const DataSplit& split, const meta::DataFileMeta& f) = 0;
  // A merged bucket (`split`) read a chunk of keys at a time, its batches handed out as each
  // chunk is merged: the reader holds one chunk's columns, not the bucket's merged output.
  // nullptr when the split is read otherwise (ReadSplitColumns: one file, no merge by columns,
  // past 'sort-spill-threshold'). ColumnPath() must hold.
  virtual Result<std::unique_ptr<MergedSlices>> OpenMergedSlices(const DataSplit& split) = 0;
  // Whether column batches come straight from the files: no LIMIT, data evolution, row
  // tracking or point lookup needs per-row bookkeeping.
  virtual bool ColumnPath() const = 0;
  // Whether reads of different splits share state (a LIMIT counted across them, a point
  // lookup): then splits are read one at a time.
  virtual bool SharesState() const = 0;
  // A primary-key table with deletion vectors: its files are read whole (ReadSplitColumns), the
  // vectors counting row positions.
  virtual bool deletion_vectors() const = 0;
  // Rows emitted by earlier splits, counted toward the LIMIT (sequential reads only).
  virtual void set_emitted(int64_t rows) = 0;
  virtual const datafile::FileLayout& layout() const = 0;
};

}  // namespace tributary::read
