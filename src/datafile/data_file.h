// Data files of a table: the KeyValue layout of primary-key tables (`_KEY_<k>`,
// `_SEQUENCE_NUMBER`, `_VALUE_KIND`, then every column; PAIMON_FORMAT.md 1.7) and the plain
// layout of append tables, written as Parquet (the default) or Avro files with the DataFileMeta
// (key range, sequence range, column statistics) the manifests record, and read back as rows or
// column batches (whole, merged, or a slice at a time).
// Where each part lives: the layout and key ranges in file_layout.cc; writing in
// data_file_writer.cc; each file format's encoder and record reader behind one interface in
// file_format.h (Parquet, Avro, `.blob`); rows read in data_file_reader.cc; column batches
// of one file in column_file_reader.cc; a bucket's files merged on their keys column by column
// (merged reads, compactions) in merged_columns.cc; point lookups of sorted files in
// point_lookup.h; Parquet file opening and chunk caching in parquet_file.h. The column paths
// read the formats whose FileFormat::ReadsColumns() (Parquet); files of the others are read as
// records.
// Thread-safety: a writer is single-threaded; reading functions are thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "merge/column_merge.h"
#include "merge/key_value.h"
#include "meta/manifest.h"
#include "meta/paths.h"
#include "options/core_options.h"
#include "tributary/column_batch.h"
#include "tributary/result.h"
#include "tributary/schema.h"
#include "tributary/table.h"

namespace tributary::merge {
class RecordSource;
}  // namespace tributary::merge

namespace tributary {
class TimeZone;
}  // namespace tributary
namespace tributary::format {
struct ColumnValues;
}  // namespace tributary::format

namespace tributary::datafile {

// What a table's data files hold.
struct FileLayout {
  std::vector<Field> fields;     // table columns
  std::vector<int> key_columns;  // trimmed primary key (empty for append tables)
  bool primary_key = false;
  int64_t schema_id = 0;

  static FileLayout Of(const TableSchema& schema);
  std::vector<DataType> KeyTypes() const;
  std::vector<DataType> FieldTypes() const;
  // The physical columns of a data file, with Paimon's field ids: `_KEY_<k>`
  // (Integer.MAX_VALUE / 2 + id), `_SEQUENCE_NUMBER` (MAX - 1), `_VALUE_KIND` (MAX - 2), then the
  // table columns (primary-key tables), or the table columns alone (append tables).
  std::vector<Field> PhysicalFields() const;
};

// The key range of a data file (its `_MIN_KEY`/`_MAX_KEY`, decoded with the trimmed primary-key
// types), or nullopt when it cannot be decoded with them (e.g. a file of an older schema).
struct KeyRange {
  Row min, max;
  bool Contains(const Row& key) const;
  bool Overlaps(const KeyRange& o) const;
};
std::optional<KeyRange> DecodeKeyRange(const meta::DataFileMeta& f,
                                       const std::vector<DataType>& key_types);
// Lexicographic comparison of two keys.
int CompareKeys(const Row& a, const Row& b);

// Writes sorted records into data files in one bucket directory, rolling to a new file when the
// current one reaches `target_file_size` bytes.
class DataFileWriter {
 public:
  // `write_cols`: for files of a static partial-column write, the columns written (recorded as
  // the file's `_WRITE_COLS`).
  // `namer` names files without an extension; the writer appends ".<format>".
  DataFileWriter(FileLayout layout, std::string bucket_dir, meta::FileNamer* namer,
                 int64_t target_file_size, int32_t level, meta::FileSource source,
                 const options::FileFormatOptions& format,
                 std::optional<std::vector<std::string>> write_cols = std::nullopt);
  ~DataFileWriter();

  // REQUIRES (primary-key layout): records sorted by key, at most one per key per file.
  // Borrows the record: its values are encoded in place and left as they were (so the caller
  // decides where its memory is freed).
  Status Write(const merge::KeyValue& kv);
  // Whether WriteColumns can write this writer's files: Parquet files with flat columns.
  bool CanWriteColumns() const;
  // Writes `n` records given column by column (REQUIRES: CanWriteColumns(), and Write's order):
  // record k holds row `rows[k]` of `columns` (one per table column; a column with its own
  // `rows` takes its row k from those instead), sequence number `sequences[k]` and row kind
  // `kinds[k]`. The files, statistics and rolling are those Write gives the same records.
  Status WriteColumns(const std::vector<format::ColumnValues>& columns, const uint32_t* rows,
                      const int64_t* sequences, const int64_t* kinds, size_t n);
  // Writes merged records (ColumnMergeOutput): `sources` (one per table column) read through
  // the merge's rows, per-column rows and computed columns.
  Status WriteMerged(std::vector<format::ColumnValues> sources,
                     const merge::ColumnMergeOutput& merged);
  // Publishes every file this writer finishes under a second name from `namer` too: the same
  // bytes, a second file (FileSystem::WriteCopy: a hard link where it can), as the input
  // changelog of a flush whose records are exactly its data file's. Their metas, which differ from
  // the files' only in the name, come from TakeCopies.
  void CopyFilesTo(meta::FileNamer* namer) { copy_namer_ = namer; }
  // Closes the open file. Returns the metas of every file written.
  Result<std::vector<meta::DataFileMeta>> Finish();
  // The metas of the copies (CopyFilesTo), in the order of the files, after Finish.
  std::vector<meta::DataFileMeta> TakeCopies() { return std::move(copies_); }
  // Deletes every file written so far (on failure).
  void Abort();

 private:
  struct OpenFile;
  Status Open();
  Status Roll();
  FileLayout layout_;
  std::string dir_;
  meta::FileNamer* namer_;
  int64_t target_file_size_;
  int32_t level_;
  meta::FileSource source_;
  options::FileFormatOptions format_;
  std::optional<std::vector<std::string>> write_cols_;
  std::unique_ptr<OpenFile> file_;
  std::vector<meta::DataFileMeta> done_;
  meta::FileNamer* copy_namer_ = nullptr;
  std::vector<meta::DataFileMeta> copies_;
  std::vector<const Value*> cells_;  // reused physical row of Parquet files
  Value seq_value_, kind_value_;
};

// A data file to read: its path and, when known, the row count its manifest entry records
// (-1: unknown). A file holding another number of rows is Corruption naming the file.
// `delete_rows`: its retraction records (-U, -D) as its manifest entry records them (-1:
// unknown); a column read of a file known to hold none does not decode its kinds.
struct DataFileRef {
  DataFileRef(std::string p, int64_t rows = -1, int64_t deletes = -1)
      : path(std::move(p)), row_count(rows), delete_rows(deletes) {}
  DataFileRef(const char* p) : path(p) {}
  std::string path;
  int64_t row_count = -1;
  int64_t delete_rows = -1;
};

// Reads every record of one data file. Columns are matched to `layout.fields` by name (the
// file's own Avro schema says what it holds); columns missing from the file read as NULL.
// `write_cols` (the file's `_WRITE_COLS`) marks records as partial-column writes.
// `file_fields`: the columns of the schema the file was written with, when it differs from the
// read schema; columns are then matched by field id and cast to the read type.
// `pushdown`: what a scan pushes into the decoding (see ReadPushdown).
struct ReadPushdown {
  // Columns to decode (others read NULL); null: every column.
  const std::vector<bool>* needed = nullptr;
  // Predicates whose column statistics may rule out whole Parquet row groups (only those for
  // which skipping rows is safe for the caller).
  const std::vector<Predicate>* skip_filters = nullptr;
  // Predicates applied to each row while decoding (late materialization: the other columns are
  // decoded only for rows that pass). Only for callers that do not merge the file's records.
  const std::vector<Predicate>* row_filters = nullptr;
  // Session time zone for casts of evolved columns between TIMESTAMP_LTZ and wall-clock types;
  // null: UTC.
  const TimeZone* time_zone = nullptr;
};
Result<std::vector<merge::KeyValue>> ReadDataFile(
    const DataFileRef& file, const FileLayout& layout, int32_t level,
    const std::optional<std::vector<std::string>>& write_cols = std::nullopt,
    const std::vector<Field>* file_fields = nullptr, const ReadPushdown& pushdown = {});

// Reads the table columns `columns` (in that order) of a Parquet data file written with the
// read schema (no `_WRITE_COLS`, no evolution) as column batches, one per row group kept: row
// groups are skipped by `skip_filters` statistics, rows failing `row_filters` are dropped, and
// so are the retraction records of primary-key files (the caller reads files whose records need
// no merge). Filter columns are decoded first, the others only for row groups with a match.
// Returns nullopt when the file holds something this path does not read (the caller then reads
// rows with ReadDataFile).
// The same, a batch at a time: slices of at most `max_rows` rows (0: whole row groups), so a
// reader holds one slice's columns, not the file's.
// Thread-safety: one thread at a time.
class ColumnFileReader {
 public:
  // nullptr when the file holds something this path does not read.
  // REQUIRES: `layout` outlives the reader.
  // `deleted`: row positions of the file to drop (a deletion vector's, ascending), counted
  // over the whole file whatever row groups are skipped; must outlive the reader.
  // `with_kinds` (primary-key files): retractions are kept, and each batch has one more column
  // after `columns`: the rows' kinds (_VALUE_KIND, 0..3 as RowKind numbers them).
  static Result<std::unique_ptr<ColumnFileReader>> Open(
      const DataFileRef& file, const FileLayout& layout, const std::vector<int>& columns,
      const std::vector<Predicate>* skip_filters, const std::vector<Predicate>* row_filters,
      const std::vector<int64_t>* deleted = nullptr, bool with_kinds = false);
  ~ColumnFileReader();
  // The next batch with at least one row; false at the end of the file.
  Result<bool> Next(size_t max_rows, ColumnBatch* out);

 private:
  struct State;
  ColumnFileReader();
  std::unique_ptr<State> state_;
};

Result<std::optional<std::vector<ColumnBatch>>> ReadDataFileColumns(
    const DataFileRef& file, const FileLayout& layout, const std::vector<int>& columns,
    const std::vector<Predicate>* skip_filters, const std::vector<Predicate>* row_filters,
    const std::vector<int64_t>* deleted = nullptr);

// One bucket of a deduplicate table whose newest record per key wins, read column by column:
// `paths` are its Parquet data files (written with the read schema, no `_WRITE_COLS`) in
// ascending max-sequence order (any flat trimmed primary key). The key,
// sequence and kind columns are merged (the highest sequence wins, a later file on ties; a
// winning retraction removes the key), then `row_filters` are applied to the winners and the
// `columns` gathered for those that pass, in key order (no column: a batch of no column whose
// num_rows counts them, from the cached merge alone). `skip_filters` (key columns only) may
// skip row groups. Returns nullopt when the files hold something this path does not read.
Result<std::optional<ColumnBatch>> ReadDeduplicatedColumns(
    const std::vector<DataFileRef>& paths, const FileLayout& layout,
    const std::vector<int>& columns, const std::vector<Predicate>* skip_filters,
    const std::vector<Predicate>* row_filters);

// The files of one bucket merged column by column with `plan` (for compactions and reads):
// every table column of every file concatenated (`columns`, plus a NULL row for
// partial-update), and the merged records, in key order, as rows of them (`merged`; see
// ColumnMergeOutput). `paths` as ReadDeduplicatedColumns takes them. `needed` (null: every
// column) marks the table columns to read; the others are left empty. `skip_filters` (key
// columns only) may skip row groups. Returns nullopt when the files hold something this path
// does not read, or a key needs the row merge (ColumnMergePlan::Merge): the caller merges rows.
struct MergedColumns {
  std::vector<ColumnVector> columns;
  merge::ColumnMergeOutput merged;
};
Result<std::optional<MergedColumns>> MergeFilesByColumns(
    const std::vector<DataFileRef>& paths, const FileLayout& layout, merge::ColumnMergePlan* plan,
    const std::vector<bool>* needed = nullptr,
    const std::vector<Predicate>* skip_filters = nullptr);

// Keys a merge by chunks takes at a time (reads): it holds the columns of their records (at most
// one record of each file per key) beside the files' key, sequence and kind columns.
inline constexpr size_t kMergeChunkKeys = 65536;
// The same for compactions, a quarter of it: buckets compact in parallel, and a chunk's range of
// each input's rows spans the chunk's keys in every input (W5's full compaction of 4 buckets:
// peak RSS 115 -> 107-110 MiB, as fast; bench/HISTORY.md).
inline constexpr size_t kCompactionChunkKeys = kMergeChunkKeys / 4;

// MergeFilesByColumns a chunk of keys at a time: fn(chunk) is given, in key order, the merged
// records of up to `chunk_keys` keys over the columns of the records those keys hold (then, for
// partial-update, a NULL row), so that the merge holds the files' key, sequence and kind
// columns and one chunk's columns, never every file's columns whole; that is charged to the
// process's memory budget (as an operator's) while it runs. fn returns whether to go on: false
// stops the merge after its chunk (a read that has its LIMIT), an error stops it and is
// returned. False, with fn never called, when the files need the row merge.
Result<bool> MergeFilesByColumnChunks(const std::vector<DataFileRef>& paths,
                                      const FileLayout& layout, merge::ColumnMergePlan* plan,
                                      const std::vector<bool>* needed,
                                      const std::vector<Predicate>* skip_filters, size_t chunk_keys,
                                      const std::function<Result<bool>(MergedColumns&)>& fn);

// MergeFilesByColumnChunks's chunks pulled one at a time: a read of a merged bucket that hands
// out each chunk before the next is merged holds one chunk's columns (and the files' key,
// sequence and kind columns), never the bucket's merged output; charged to the process's budget
// (as MergeFilesByColumnChunks) until the last chunk is read or the reader is destroyed.
// Thread-safety: one thread at a time.
class MergedChunkReader {
 public:
  // nullptr when the files need the row merge (MergeFilesByColumnChunks's false, known before
  // any chunk). `needed` as MergeFilesByColumnChunks takes it (nullopt: every column).
  // REQUIRES: `layout` and `skip_filters` outlive the reader.
  static Result<std::unique_ptr<MergedChunkReader>> Open(
      const std::vector<DataFileRef>& paths, const FileLayout& layout,
      std::unique_ptr<merge::ColumnMergePlan> plan, std::optional<std::vector<bool>> needed,
      const std::vector<Predicate>* skip_filters, size_t chunk_keys);
  ~MergedChunkReader();
  // The next chunk (valid until the next call); nullptr after the last.
  Result<MergedColumns*> Next();

 private:
  struct State;
  MergedChunkReader();
  std::unique_ptr<State> state_;
};

// A compaction of the files of one bucket (`paths` as ReadDeduplicatedColumns takes them) by
// `plan`, written to `writer` without holding the files' values whole. Deduplicate and
// first-row: the files are merged on their key, sequence and kind columns, then the winners'
// columns are read and written `chunk_rows` merged records at a time. Partial-update and
// aggregation: the keys are merged `chunk_rows` keys at a time, over the columns of the records
// those keys hold. Within a chunk, each file's records are one range of its rows. False, with
// nothing written, when the files need another path.
Result<bool> CompactFilesByChunks(const std::vector<DataFileRef>& paths, const FileLayout& layout,
                                  merge::ColumnMergePlan* plan, size_t chunk_rows,
                                  DataFileWriter* writer);

// The records of integer keys `keys` (ascending, each once) in the Parquet data file `file` at
// `level` (written with the read schema, no `_WRITE_COLS`), in key order: the key, sequence and
// kind columns are read whole (kept in the process-wide cache: the file is immutable), the other
// columns only for the rows found. nullopt when the file holds something this path does not
// read (not Parquet, a key that is not one integer column, keys out of order): the caller then
// searches its rows.
Result<std::optional<std::vector<merge::KeyValue>>> FindIntKeysInFile(
    const DataFileRef& file, const FileLayout& layout, int32_t level,
    const std::vector<int64_t>& keys);

// A record found in a data file, and its row there.
struct KeyPosition {
  merge::KeyValue record;
  int64_t position = 0;
};
// The records of keys `keys` (rows of the key columns' values, ascending, each once) in the
// Parquet data file `file` at `level` (written with the read schema, no `_WRITE_COLS`), in file
// order, found through the first key column's page index (an integer, string or binary column):
// only the pages whose bounds may hold a key are decoded, of the key columns, and of the other
// columns only the pages holding the records found (datafile/paged_lookup.cc). Nothing of the
// file is kept but its footer and the first key column's page bounds. nullopt when the file has
// no usable page index or holds something this path does not read: the caller searches
// otherwise.
Result<std::optional<std::vector<KeyPosition>>> FindKeysByPages(const DataFileRef& file,
                                                                const FileLayout& layout,
                                                                int32_t level,
                                                                const std::vector<Row>& keys);

// The records of the Parquet data file `file` at `level` (written with the read schema, no
// `_WRITE_COLS`), in file order, decoded a slice of rows at a time (datafile/sliced_records.cc),
// those at the positions `deleted` holds (a deletion vector's, copied) left out: a compaction's
// merge holds a slice of each input instead of every input whole. Null when the file holds
// something this path does not read (another format, other column types): the caller reads
// the file whole.
Result<std::unique_ptr<merge::RecordSource>> OpenSlicedRecords(
    const DataFileRef& file, const FileLayout& layout, int32_t level,
    const std::set<int64_t>* deleted = nullptr);

// The key of every record (retractions included) of the Parquet data file `file`, in file
// order, when the key is one integer column (its key column kept in the process-wide cache);
// nullopt when the file holds something this path does not read.
Result<std::optional<std::vector<int64_t>>> ReadIntKeys(const DataFileRef& file,
                                                        const FileLayout& layout);
// The row position of each of integer keys `keys` (ascending, each once) in the data file
// `file` (sorted by key, each key once), or -1 where it has none; nullopt as ReadIntKeys.
Result<std::optional<std::vector<int64_t>>> FindIntKeyPositions(const DataFileRef& file,
                                                                const FileLayout& layout,
                                                                const std::vector<int64_t>& keys);

// Removes a data file that was written but not committed (a failed or dropped write, compaction
// or renumbering) with the files beside it that belong to it (its `.index` file). Missing files
// are not errors. The name-only form removes `<name>.index` too (the name this writer gives it).
// (A file with an external path ('data-file.external-paths') is removed there.)
void RemoveDataFile(const std::string& dir, const meta::DataFileMeta& f);
void RemoveDataFile(const std::string& dir, const std::string& file_name);
// Where a writer puts the files `namer` names: its external directory when it has one
// ('data-file.external-paths'), else `bucket_dir`.
std::string NewFileDir(const meta::FileNamer& namer, const std::string& bucket_dir);
// Where a file this process wrote lies: its external path, else `dir`/name.
std::string WrittenFilePath(const std::string& dir, const meta::DataFileMeta& f);

// The Parquet writer's view of a column vector.
format::ColumnValues ColumnValuesOf(const ColumnVector& c);

}  // namespace tributary::datafile
