// BucketWriter: the buffered records and new level-0 files of one partition-bucket of a table
// writer (Paimon's MergeTreeWriter without its compaction, which table_write.cc schedules): the
// write buffer (rows, or typed columns), flushes sorted and merged by key, and the sequence
// numbering that keeps concurrent commits ordered. Internal to write/.
// Thread-safety: single-threaded (a flush may run on another thread than the writes, never at
// the same time).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "datafile/data_file.h"
#include "merge/key_value.h"
#include "merge/merge_config.h"
#include "meta/manifest.h"
#include "meta/paths.h"
#include "options/core_options.h"
#include "write/column_buffer.h"

namespace tributary::datafile {
class SpillFile;
}  // namespace tributary::datafile
namespace tributary::merge {
class RecordSource;
}  // namespace tributary::merge

namespace tributary::write {

class LookupValueCache;

// An estimate of the memory a buffered row holds.
inline int64_t EstimateBytes(const Row& r) {
  int64_t n = 48 + 40 * static_cast<int64_t>(r.size());
  for (const auto& v : r) {
    if (v.is_string()) n += static_cast<int64_t>(v.string_value().size());
  }
  return n;
}

// What every bucket writer of one table writer shares. Immutable while writing.
struct WriteContext {
  const TableSchema* schema = nullptr;
  datafile::FileLayout layout;
  std::shared_ptr<const merge::MergeConfig> merge_config;  // primary-key tables only
  std::optional<std::vector<std::string>> write_cols;      // static partial-column writes
  std::shared_ptr<const std::vector<bool>> write_mask;
  options::FileFormatOptions format;
  // Buckets buffer their records column by column (ColumnWriteBuffer): tables whose merge a
  // ColumnMergePlan runs (MergeConfig::IsPlain*), with flat columns, full-row writes and Parquet
  // level-0 files.
  bool column_buffer = false;
  // 'changelog-producer' = 'input': every flush also writes the buffered records, unmerged and
  // with their row kinds, to changelog files named with this prefix ('changelog-file.prefix').
  std::optional<std::string> input_changelog_prefix;
  options::FileFormatOptions changelog_format;  // of changelog files (input and lookup)
  // 'changelog-producer' = 'lookup': each commit writes the exact changes of its keys to
  // changelog files named with this prefix (lookup_changelog.h).
  std::optional<std::string> lookup_changelog_prefix;
  bool row_deduplicate = false;                  // 'changelog-producer.row-deduplicate'
  std::set<std::string> row_deduplicate_ignore;  // '...row-deduplicate-ignore-fields'
  // Which table the writer opened (meta::TableIncarnation): its commits go into that table only.
  std::string table_incarnation;
};

class BucketWriter {
 public:
  BucketWriter(const WriteContext& ctx, std::string dir, int64_t next_seq)
      : ctx_(ctx),
        schema_(*ctx.schema),
        layout_(ctx.layout),
        dir_(std::move(dir)),
        next_seq_(next_seq),
        namer_("data-", "") {
    if (ctx.column_buffer) columns_ = std::make_unique<ColumnWriteBuffer>(layout_.fields);
  }
  ~BucketWriter();
  // 'changelog-producer' = 'lookup': the values this writer's commits left (null: none kept).
  LookupValueCache* lookup_cache() { return lookup_cache_.get(); }
  void set_lookup_cache(std::unique_ptr<LookupValueCache> cache);

  void Add(merge::KeyValue kv) {
    if (kept_merge_) [[unlikely]]
      ReleaseFlushColumns();
    if (columns_) {
      // Sequence numbers of buffered records are consecutive from columns_first_seq_.
      if (columns_->empty()) columns_first_seq_ = next_seq_;
      next_seq_++;
      buffer_bytes_ -= columns_->bytes();
      columns_->Add(kv.kind, kv.value);
      buffer_bytes_ += columns_->bytes();
      return;
    }
    buffer_bytes_ += EstimateBytes(kv.value);
    kv.sequence = next_seq_++;
    kv.write_mask = ctx_.write_mask;
    buffer_.push_back(std::move(kv));
  }
  int64_t buffer_bytes() const { return buffer_bytes_; }
  // What buffer_bytes() would grow by if `kv` were added now by doubling a full vector of a
  // buffer held column by column (ColumnWriteBuffer::GrowthOf); 0 for a buffer of rows.
  int64_t GrowthOf(const merge::KeyValue& kv) const {
    return columns_ && !kept_merge_ ? columns_->GrowthOf(kv.value) : 0;
  }
  // Moves the buffered records out, in the order they were written, leaving the buffer empty
  // (a writer routing them again, to another bucket layout of their partition).
  void TakePending(std::vector<std::pair<RowKind, Row>>* out);
  int64_t next_seq() const { return next_seq_; }
  meta::FileNamer* namer() { return &namer_; }
  const std::string& dir() const { return dir_; }

  // 'write-buffer-spillable': whether this bucket's buffer can go to a spill file instead of a
  // level-0 file (a primary-key table written with whole rows).
  bool CanSpill() const { return layout_.primary_key && !ctx_.write_mask; }
  // Writes the buffer's records, sorted by key then merge order and not merged, to `file` as a
  // run of its own, and empties the buffer; past kMaxSpilledRuns runs they are merged into one
  // (every record kept). The next Flush merges every run and the buffer into level-0 files
  // (and, with 'changelog-producer' = 'input', writes all their records as the changelog).
  // `file` must outlive the runs (until that Flush, DeleteNewFiles or destruction).
  Status Spill(datafile::SpillFile* file);
  // The most runs a bucket keeps: the commit's merge reads a segment of each at once.
  static constexpr size_t kMaxSpilledRuns = 8;
  bool has_spilled() const { return !runs_.empty(); }
  // The columns of a spill file of `layout`'s records: the fields, then the sequence number and
  // the row kind.
  static std::vector<Field> SpillFields(const datafile::FileLayout& layout);

  // Sorts and merges the buffer into level-0 files. `keep_columns`: a flush of the column buffer
  // by a deduplicate merge keeps the buffer and its merge until ReleaseFlushColumns, so the
  // 'lookup' producer reads the commit's records from memory instead of from the new files.
  Status Flush(int64_t target_file_size, bool keep_columns = false);
  // The records of every file in new_files() as the last Flush merged them (its buffer's
  // columns and merge), or null when it did not keep them or new_files() holds earlier flushes.
  struct FlushedColumns {
    const std::vector<ColumnVector>* columns;
    const merge::ColumnMergeOutput* merged;
  };
  std::optional<FlushedColumns> flushed_columns() const;
  void ReleaseFlushColumns();

  std::vector<meta::DataFileMeta>& new_files() { return new_files_; }
  // Changelog files of this commit ('changelog-producer' = 'input' or 'lookup').
  std::vector<meta::DataFileMeta>& new_changelog_files() { return new_changelog_files_; }
  // Names changelog files (prefix: 'changelog-file.prefix').
  meta::FileNamer* changelog_namer(const std::string& prefix) {
    if (!changelog_namer_) {
      changelog_namer_.emplace(prefix, "");
      changelog_namer_->set_external_dir(namer_.external_dir());
    }
    return &*changelog_namer_;
  }
  // 'data-file.external-paths': dir() is under an external root, recorded as `recorded`; every
  // file this writer names records its full path.
  void set_external_dir(std::string recorded) { namer_.set_external_dir(std::move(recorded)); }
  void ReleaseFlushed() { flushed_.clear(); }
  // Gives back the memory an empty column buffer keeps for its next records (after a flush
  // because 'write-buffer-size' was reached: the capacity kept would count as full again at
  // the next record and flush a file per record).
  void ReleaseBufferMemory();
  const datafile::FileLayout& layout() const { return layout_; }
  const WriteContext& context() const { return ctx_; }
  void RaiseNextSeq(int64_t next) { next_seq_ = std::max(next_seq_, next); }
  // Sequence numbers must grow with commit order within a bucket. Before a commit, the buffered
  // records (numbered in write order) move above `live_max`, the highest number the bucket's
  // committed files hold, when other writers committed higher numbers meanwhile: in memory,
  // so the files need no renumbering later (see Renumber).
  void MoveBufferAbove(int64_t live_max);

  // Rewrites this commit's new files with every sequence number raised by `shift` (a concurrent
  // commit used the same numbers), replacing them in new_files().
  Result<std::vector<meta::DataFileMeta>> Renumber(int64_t shift, int64_t target_file_size);
  void DeleteNewFiles();

 private:
  // The sorted buffer is read in key order, not in the order its rows and strings were
  // allocated: the rows a few records ahead are fetched into the cache while this one is encoded.
  void Prefetch(size_t i) const;
  // From the column buffer, merged key by key as the table's merge engine says (a flush to
  // level 0 keeps retractions).
  Status WriteColumns(datafile::DataFileWriter* w, bool keep = false);
  // 'changelog-producer' = 'input' on a deduplicate table whose changelog files are written as
  // its data files: the data files of a flush hold the last record of each key as it was
  // written (row kind and sequence number too), so they are also the changelog of those
  // records, and their bytes are published a second time under changelog names instead of
  // encoding the same records twice. The records they leave out (a key's earlier records) go
  // to changelog files listed before those: a bucket's changelog files are read in the order
  // a snapshot lists them, so each key's changes keep their order. False, writing nothing,
  // when the table is not such a table.
  Result<bool> FlushSharingChangelog(int64_t target_file_size);
  Status WriteAll(datafile::DataFileWriter* w);
  Status WriteMerged(datafile::DataFileWriter* w);
  // 'changelog-producer' = 'input': the buffered records, unmerged, to changelog files (in key
  // order, then write order), except those FlushSharingChangelog writes.
  Status WriteInputChangelog(int64_t target_file_size);
  // The buffered records, sorted by key then merge order (SortWriteBuffer), moved out of the
  // row buffer or copied out of the column buffer.
  std::vector<merge::KeyValue> SortedRecords();
  // Flush with spilled runs: the runs and the buffer merged into level-0 files.
  Status FlushRuns(int64_t target_file_size);
  // A source of each spilled run's records, oldest first.
  std::vector<std::unique_ptr<merge::RecordSource>> RunSources() const;
  // The runs merged into one, appended to `file`.
  Status MergeRuns(datafile::SpillFile* file);
  void ClearBuffer();

  const WriteContext& ctx_;
  const TableSchema& schema_;
  const datafile::FileLayout& layout_;
  std::string dir_;
  int64_t next_seq_;
  meta::FileNamer namer_;
  std::vector<merge::KeyValue> buffer_;
  std::unique_ptr<ColumnWriteBuffer> columns_;  // instead of buffer_ when ctx_.column_buffer
  int64_t columns_first_seq_ = 0;
  std::vector<std::vector<merge::KeyValue>> flushed_;  // flushed buffers, freed by ReleaseFlushed
  int64_t buffer_bytes_ = 0;
  std::vector<meta::DataFileMeta> new_files_;
  std::optional<meta::FileNamer> changelog_namer_;  // with ctx_.input_changelog_prefix
  std::vector<meta::DataFileMeta> new_changelog_files_;
  std::unique_ptr<LookupValueCache> lookup_cache_;
  // Flush(keep_columns): the merge of the buffer kept, and where its files start in new_files_.
  std::unique_ptr<merge::ColumnMergeOutput> kept_merge_;
  size_t kept_first_file_ = 0;
  // Spilled runs, oldest first: segments [first, end) of `file` each.
  struct SpilledRun {
    datafile::SpillFile* file;
    size_t first, end;
  };
  std::vector<SpilledRun> runs_;
};

}  // namespace tributary::write
