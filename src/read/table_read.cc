// The read path as a TableScan: a scan plan (scan_plan.h: snapshot -> manifests -> splits pruned
// by partition, bucket and statistics), its splits read by a SplitRead (split_read.h: merged
// rows or column batches, filtered and projected) on every core, handed out in split order, a
// slice at a time when the batch size is bounded; then the partitions a fallback branch adds.
#include "read/table_read.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/parallel.h"
#include "common/path_names.h"
#include "common/timezone.h"
#include "datafile/data_file.h"
#include "meta/paths.h"
#include "meta/schema_manager.h"
#include "meta/snapshot.h"
#include "meta/snapshot_reader.h"
#include "options/core_options.h"
#include "options/option_keys.h"
#include "read/scan_plan.h"
#include "read/split_read.h"
#include "tributary/table_scan.h"

namespace tributary::read {

using datafile::ColumnFileReader;
using meta::ReadLiveEntriesShared;
using meta::ReadSnapshotCached;
using options::CoreOptions;

namespace {

// Rows of a split above which a scan without a bound on its batches (an aggregate's) reads it a
// slice of kLargeSplitSlice rows at a time rather than whole: about 50 MiB of decoded columns
// of a few values each, held by each of the threads reading ahead.
constexpr int64_t kWholeReadRows = int64_t{1} << 19;
constexpr size_t kLargeSplitSlice = 65536;

class FileStoreScan : public TableScan {
 public:
  // `meta_path`: where schema/ and snapshot/ are (the table itself, or a branch's folder
  // `<table>/branch/branch-<name>`, whose manifests and data files live in the table's folders).
  FileStoreScan(std::string path, std::string meta_path, std::shared_ptr<const TableSchema> schema,
                ScanOptions options, CoreOptions core)
      : path_(std::move(path)),
        meta_path_(std::move(meta_path)),
        schema_(std::move(schema)),
        options_(std::move(options)),
        core_(std::move(core)) {
    if (options_.projection) {
      projection_ = *options_.projection;
    } else {
      for (size_t i = 0; i < schema_->fields.size(); i++)
        projection_.push_back(static_cast<int>(i));
    }
    if (options_.row_tracking && !options_.projection) {
      projection_.push_back(static_cast<int>(schema_->fields.size()));
      projection_.push_back(static_cast<int>(schema_->fields.size()) + 1);
    }
    for (int i : projection_) {
      output_fields_.push_back(static_cast<size_t>(i) < schema_->fields.size()
                                   ? schema_->fields[i]
                                   : RowTrackingFields()[i - schema_->fields.size()]);
    }
  }

  const std::vector<Field>& output_fields() const override { return output_fields_; }

  Result<bool> Next(RowBatch* batch) override {
    batch->Clear();
    if (!planned_) {
      TRIB_RETURN_NOT_OK(Plan());
      planned_ = true;
    }
    if (options_.max_batch_rows > 0 && ColumnPath()) {
      // Bounded batches: the column slices, as rows.
      ColumnBatch columns;
      TRIB_ASSIGN_OR_RETURN(bool more, NextSlice(&columns, options_.max_batch_rows));
      if (!more) return false;
      ColumnsToRows(columns, batch);
      return true;
    }
    while (true) {
      // A split of more than kWholeReadRows rows, a slice at a time as NextColumns reads it (a
      // file a slice at a time, a merged bucket a chunk of keys at a time), handed out as rows:
      // whole, its rows would take several times the memory of its columns.
      if (slice_until_ != SIZE_MAX) {
        ColumnBatch columns;
        TRIB_ASSIGN_OR_RETURN(bool more, NextSlice(&columns, kLargeSplitSlice));
        if (more) {
          ColumnsToRows(columns, batch);
          emitted_ += static_cast<int64_t>(batch->rows.size());
          return true;
        }
        slice_until_ = SIZE_MAX;
      }
      while (next_ready_ < ready_.size()) {
        RowBatch& b = ready_[next_ready_++];
        if (b.rows.empty()) continue;
        std::swap(*batch, b);
        b = RowBatch();
        return true;
      }
      if (next_split_ >= splits_.size()) break;
      if (options_.limit && emitted_ >= *options_.limit) return false;
      // (ColumnPath: no LIMIT or per-row bookkeeping needs the rows of a split at once.)
      const bool slices = ColumnPath();
      if (slices && LargeSplit(splits_[next_split_])) {
        slice_until_ = next_split_ + 1;
        continue;
      }
      if (Parallel()) {
        // (ReadAhead takes at most a split per thread: no need to look further.)
        const size_t most = next_split_ + static_cast<size_t>(DefaultParallelism());
        size_t end = next_split_;
        while (end < splits_.size() && end < most && !(slices && LargeSplit(splits_[end]))) end++;
        // Splits are independent: read the next few on every core, hand them out in order.
        TRIB_ASSIGN_OR_RETURN(bool more, ReadAhead(
                                             &ready_, /*per_thread=*/1,
                                             [&](const DataSplit& s, std::vector<RowBatch>* out) {
                                               out->emplace_back();
                                               return read_->ReadSplit(s, &out->back());
                                             },
                                             end));
        if (!more) break;
        continue;
      }
      const DataSplit& split = splits_[next_split_++];
      read_->set_emitted(emitted_);
      TRIB_RETURN_NOT_OK(read_->ReadSplit(split, batch));
      emitted_ += static_cast<int64_t>(batch->rows.size());
      if (!batch->rows.empty()) return true;
    }
    // Then the partitions this table lacks, from its fallback branch.
    while (fallback_) {
      if (options_.limit && emitted_ >= *options_.limit) return false;
      TRIB_ASSIGN_OR_RETURN(bool more, fallback_->Next(batch));
      if (!more) {
        fallback_.reset();
        break;
      }
      emitted_ += static_cast<int64_t>(batch->rows.size());
      if (!batch->rows.empty()) return true;
    }
    return false;
  }

  Result<bool> NextColumns(ColumnBatch* batch) override {
    batch->Clear();
    if (!planned_) {
      TRIB_RETURN_NOT_OK(Plan());
      planned_ = true;
    }
    if (!ColumnPath()) return TableScan::NextColumns(batch);
    if (options_.max_batch_rows > 0) return NextSlice(batch, options_.max_batch_rows);
    while (true) {
      // A large split being sliced first: NextSlice hands out what it reads whole (a merge that
      // does not run by columns, a file read as rows) from ready_columns_ a slice at a time, so
      // TakeReadyColumns must not take those batches (it would hand out a batch already partly
      // handed out). Read-ahead batches are all taken before a large split starts, and NextSlice
      // leaves ready_columns_ empty when it is done.
      if (slice_until_ != SIZE_MAX) {
        TRIB_ASSIGN_OR_RETURN(bool more, NextSlice(batch, kLargeSplitSlice));
        if (more) return true;
        slice_until_ = SIZE_MAX;
      }
      if (TakeReadyColumns(batch)) return true;
      if (next_split_ >= splits_.size()) return false;
      // Whole splits are read ahead on every core, up to the next large one; a large one (a
      // file of many rows, which whole would take its decoded columns' memory at once, in every
      // thread) is read a slice at a time.
      if (LargeSplit(splits_[next_split_])) {
        slice_until_ = next_split_ + 1;
        continue;
      }
      // (ReadAhead takes at most a few splits per thread: no need to look further.)
      const size_t most = next_split_ + 2 * static_cast<size_t>(DefaultParallelism());
      size_t end = next_split_;
      while (end < splits_.size() && end < most && !LargeSplit(splits_[end])) end++;
      TRIB_ASSIGN_OR_RETURN(
          bool more,
          ReadAhead(
              &ready_columns_, /*per_thread=*/2,
              [&](const DataSplit& s, auto* out) { return read_->ReadSplitColumns(s, out); }, end));
      if (!more) return false;
    }
  }

  // Whether NextSlice reads `split` a file at a time, each file a slice at a time (else whole:
  // a merge, or files whose deletion vectors count positions).
  bool Sliceable(const DataSplit& split) const {
    return !read_->layout().primary_key || (split.files.size() == 1 && !read_->deletion_vectors());
  }
  // A split read whole only within the process's means: more rows than kWholeReadRows, which
  // NextColumns reads a slice at a time when it can: a file at a time, or a merged bucket a
  // chunk of keys at a time (NextSlice: SplitRead::OpenMergedSlices; whole when its merge does
  // not run by columns).
  bool LargeSplit(const DataSplit& split) const {
    const bool merged =
        read_->layout().primary_key && !read_->deletion_vectors() && split.files.size() > 1;
    if (!Sliceable(split) && !merged) return false;
    int64_t rows = 0;
    for (const auto& f : split.files) rows += f.row_count;
    return rows > kWholeReadRows;
  }

  // `columns` as rows (inserts) in *batch.
  static void ColumnsToRows(const ColumnBatch& columns, RowBatch* batch) {
    batch->rows.assign(columns.num_rows, Row(columns.columns.size()));
    for (size_t c = 0; c < columns.columns.size(); c++) {
      for (size_t r = 0; r < columns.num_rows; r++) batch->rows[r][c] = columns.columns[c].Get(r);
    }
    batch->kinds.assign(columns.num_rows, RowKind::kInsert);
  }

  // Moves the next non-empty batch read ahead into *batch; false when none is left.
  bool TakeReadyColumns(ColumnBatch* batch) {
    while (next_ready_ < ready_columns_.size()) {
      ColumnBatch& b = ready_columns_[next_ready_++];
      if (b.num_rows == 0) continue;
      std::swap(*batch, b);
      b = ColumnBatch();
      return true;
    }
    return false;
  }

  // NextColumns with a bound on the batch size: one split at a time, each file that needs no
  // merge a slice at a time; no split from slice_until_ on.
  Result<bool> NextSlice(ColumnBatch* batch, size_t max_rows) {
    while (true) {
      if (slice_reader_) {
        TRIB_ASSIGN_OR_RETURN(bool more, slice_reader_->Next(max_rows, batch));
        if (more) return true;
        slice_reader_.reset();
      }
      if (merged_slices_) {
        TRIB_ASSIGN_OR_RETURN(bool more, merged_slices_->Next(max_rows, batch));
        if (more) return true;
        merged_slices_.reset();
      }
      // A bucket read whole (a merge) is handed out a slice at a time too.
      while (next_ready_ < ready_columns_.size()) {
        ColumnBatch& b = ready_columns_[next_ready_];
        if (ready_offset_ == 0 && b.num_rows <= max_rows) {
          next_ready_++;
          if (b.num_rows == 0) continue;
          std::swap(*batch, b);
          b = ColumnBatch();
          return true;
        }
        const size_t end = std::min(b.num_rows, ready_offset_ + max_rows);
        batch->Clear();
        batch->num_rows = end - ready_offset_;
        for (const ColumnVector& c : b.columns) {
          ColumnVector part;
          part.type = c.type;
          part.rep = c.rep;
          part.Reserve(batch->num_rows);
          for (size_t r = ready_offset_; r < end; r++) part.AppendRow(c, r);
          batch->columns.push_back(std::move(part));
        }
        ready_offset_ = end;
        if (end == b.num_rows) {
          b = ColumnBatch();
          next_ready_++;
          ready_offset_ = 0;
        }
        return true;
      }
      ready_columns_.clear();
      next_ready_ = 0;
      if (slice_file_ < slice_split_.files.size()) {
        const meta::DataFileMeta& f = slice_split_.files[slice_file_++];
        TRIB_ASSIGN_OR_RETURN(slice_reader_, read_->OpenSlices(slice_split_, f));
        if (slice_reader_) continue;
        DataSplit one = slice_split_;
        one.files = {f};
        RowBatch rows;
        TRIB_RETURN_NOT_OK(read_->ReadSplit(one, &rows));
        ready_columns_.push_back(RowsToColumns(rows, output_fields_));
        continue;
      }
      if (next_split_ >= splits_.size() || next_split_ >= slice_until_) return false;
      const DataSplit& split = splits_[next_split_++];
      // (A deletion-vector table's files are read whole: their vectors count positions.)
      if (Sliceable(split)) {
        slice_split_ = split;  // its files, one after another
        slice_file_ = 0;
      } else {
        // A merge: a chunk of keys at a time where the merge runs by columns, else whole.
        TRIB_ASSIGN_OR_RETURN(merged_slices_, read_->OpenMergedSlices(split));
        if (!merged_slices_) TRIB_RETURN_NOT_OK(read_->ReadSplitColumns(split, &ready_columns_));
      }
    }
  }

  // Splits are independent: reads the next `per_thread` per core with read(split, &batches)
  // and replaces *ready by their batches, in split order. False when no split is left. Rows
  // take several times the memory of column batches, so row reads hold fewer splits at once.
  // Splits from `end` on are left.
  template <typename Batch, typename Read>
  Result<bool> ReadAhead(std::vector<Batch>* ready, size_t per_thread, const Read& read,
                         size_t end = SIZE_MAX) {
    end = std::min(end, splits_.size());
    if (next_split_ >= end) return false;
    const int threads = DefaultParallelism();
    const size_t k = std::min(end - next_split_, static_cast<size_t>(threads) * per_thread);
    std::vector<std::vector<Batch>> parts(k);
    const size_t first = next_split_;
    next_split_ += k;
    TRIB_RETURN_NOT_OK(
        ParallelFor(k, threads, [&](size_t i) { return read(splits_[first + i], &parts[i]); }));
    ready->clear();
    next_ready_ = 0;
    for (auto& p : parts) {
      for (auto& b : p) ready->push_back(std::move(b));
    }
    return true;
  }

  // Partitions (serialized) this scan must skip: those the main branch has, when this scan reads
  // a fallback branch.
  void ExcludePartitions(std::set<std::string> partitions) { excluded_ = std::move(partitions); }
  void ReadTopLevelOnly() { top_level_only_ = true; }
  void ReadPending(PendingHook pending) { pending_ = std::move(pending); }

 private:
  Status Plan() {
    if (!options_.time_zone.empty()) {
      TRIB_ASSIGN_OR_RETURN(TimeZone tz, TimeZone::Load(options_.time_zone));
      time_zone_ = std::move(tz);
    }
    ScanPlanRequest request;
    request.path = path_;
    request.meta_path = meta_path_;
    request.schema = schema_;
    request.core = &core_;
    request.options = &options_;
    request.excluded = &excluded_;
    request.top_level_only = top_level_only_;
    if (pending_) request.pending = &pending_;
    // A branch (a fallback read included) has no fallback of its own, as in Paimon: a branch
    // created from main carries main's option, which would name itself.
    const auto fb = options::IsSet(*schema_, options::kScanFallbackBranch);
    const bool fallback = fb && !fb->empty() && !meta::IsBranchPath(path_) &&
                          (meta_path_.empty() || meta_path_ == path_);
    request.every_partition = fallback;
    TRIB_ASSIGN_OR_RETURN(ScanPlan plan, PlanScan(request));
    if (!plan.snapshot_id) return Status::OK();  // nothing to read
    SplitRead::Config config;
    config.path = path_;
    config.meta_path = meta_path_;
    config.schema = schema_;
    config.options = &options_;
    config.projection = projection_;
    config.output_fields = output_fields_;
    config.time_zone = time_zone_ ? &*time_zone_ : nullptr;
    config.deletion_vectors = std::move(plan.deletion_vectors);
    TRIB_ASSIGN_OR_RETURN(read_, SplitRead::Make(std::move(config)));
    splits_ = std::move(plan.splits);
    if (fallback) TRIB_RETURN_NOT_OK(OpenFallback(*fb, std::move(plan.partitions)));
    return Status::OK();
  }

  // 'scan.fallback-branch': partitions missing from this table are read from the branch (with
  // the branch's own schema and merge rules). Columns and filters are mapped by field id.
  Status OpenFallback(const std::string& branch, std::set<std::string> have) {
    TRIB_RETURN_NOT_OK(CheckBranchName(branch).WithContext("option 'scan.fallback-branch'"));
    std::string branch_path = meta::BranchPath(meta::DataRoot(path_), branch);
    TRIB_ASSIGN_OR_RETURN(auto branch_schema, meta::SchemaManager(branch_path).Latest());
    auto map = [&](int column) -> Result<int> {
      int32_t id = schema_->fields[column].id;
      for (size_t i = 0; i < branch_schema->fields.size(); i++) {
        if (branch_schema->fields[i].id == id) return static_cast<int>(i);
      }
      return Status::NotSupported("fallback branch '" + branch + "' lacks column '" +
                                  schema_->fields[column].name + "'");
    };
    ScanOptions o;
    o.projection = std::vector<int>{};
    for (int c : projection_) {
      TRIB_ASSIGN_OR_RETURN(int b, map(c));
      o.projection->push_back(b);
    }
    for (Predicate p : options_.filters) {
      TRIB_ASSIGN_OR_RETURN(p.column, map(p.column));
      o.filters.push_back(std::move(p));
    }
    if (options_.limit) o.limit = options_.limit;
    TRIB_ASSIGN_OR_RETURN(CoreOptions core, CoreOptions::From(*branch_schema));
    auto scan = std::make_unique<FileStoreScan>(path_, branch_path, branch_schema, std::move(o),
                                                std::move(core));
    scan->ExcludePartitions(std::move(have));
    fallback_ = std::move(scan);
    return Status::OK();
  }

  // Whether NextColumns reads files column by column (see SplitRead::ColumnPath).
  bool ColumnPath() const { return read_ && read_->ColumnPath() && !fallback_; }

  // Whether splits are read on several threads: when nothing is shared between them and there
  // are several.
  bool Parallel() const {
    return read_ && !read_->SharesState() && splits_.size() > 1 && DefaultParallelism() > 1;
  }

  std::string path_;
  std::string meta_path_;
  std::shared_ptr<const TableSchema> schema_;
  ScanOptions options_;
  std::set<std::string> excluded_;
  bool top_level_only_ = false;
  PendingHook pending_;
  std::unique_ptr<TableScan> fallback_;
  CoreOptions core_;
  std::vector<int> projection_;
  std::vector<Field> output_fields_;
  std::optional<TimeZone> time_zone_;  // options_.time_zone, loaded by Plan()
  std::unique_ptr<SplitRead> read_;    // set by Plan() when there is a snapshot to read
  std::vector<DataSplit> splits_;
  size_t next_split_ = 0;
  std::vector<RowBatch> ready_;  // splits read ahead in parallel, handed out from next_ready_
  std::vector<ColumnBatch> ready_columns_;  // the same for NextColumns
  // NextSlice: the split whose files are read a slice at a time, the next of them, the reader
  // of the current one.
  DataSplit slice_split_;
  size_t slice_file_ = 0;
  size_t ready_offset_ = 0;  // rows of ready_columns_[next_ready_] already handed out
  std::unique_ptr<ColumnFileReader> slice_reader_;
  std::unique_ptr<MergedSlices> merged_slices_;  // NextSlice's merged bucket, a chunk at a time
  // NextColumns without a bound: a large split being read by NextSlice, which stops before
  // this split (SIZE_MAX: none).
  size_t slice_until_ = SIZE_MAX;
  size_t next_ready_ = 0;
  bool planned_ = false;
  int64_t emitted_ = 0;
};

}  // namespace

}  // namespace tributary::read

namespace tributary {

Result<bool> TableScan::NextColumns(ColumnBatch* batch) {
  RowBatch rows;
  while (true) {
    TRIB_ASSIGN_OR_RETURN(bool more, Next(&rows));
    if (!more) {
      batch->Clear();
      return false;
    }
    if (rows.rows.empty()) continue;
    *batch = read::RowsToColumns(rows, output_fields());
    return true;
  }
}

}  // namespace tributary

namespace tributary::read {

Result<std::optional<int64_t>> CountFromMetadata(const std::string& path, const TableSchema& schema,
                                                 std::optional<int64_t> snapshot_id) {
  using R = std::optional<int64_t>;
  TRIB_ASSIGN_OR_RETURN(bool dv, options::Get(schema, options::kDeletionVectorsEnabled));
  TRIB_ASSIGN_OR_RETURN(bool evolution, options::Get(schema, options::kDataEvolutionEnabled));
  if (evolution || options::IsSet(schema, options::kScanFallbackBranch) ||
      (dv && (!schema.HasPrimaryKey() ||
              options::GetOrDefault(schema, options::kDeletionVectorsMergeOnRead)))) {
    return R();
  }
  std::shared_ptr<const meta::Snapshot> snap;
  if (snapshot_id) {
    TRIB_ASSIGN_OR_RETURN(snap, ReadSnapshotCached(path, *snapshot_id));
  } else {
    // The latest as a scan finds it (the hint, its successor's absence, the snapshot read).
    TRIB_ASSIGN_OR_RETURN(snap, meta::ReadLatestSnapshotCached(path));
    if (!snap) return R(0);
  }
  TRIB_ASSIGN_OR_RETURN(auto live, ReadLiveEntriesShared(path, *snap));
  int64_t total = 0;
  if (!schema.HasPrimaryKey()) {
    for (const auto& e : *live) total += e.file.row_count;
    return R(total);
  }
  if (dv) {
    // A batch read of a deletion-vector table: every file above level 0 holds each of its keys
    // once across the bucket, less the rows its vector deletes (known when the index manifest
    // records each vector's cardinality, and the file holds no retraction).
    std::set<std::string> files;
    for (const auto& e : *live) {
      if (e.file.level == 0) continue;
      if (!e.file.delete_row_count || *e.file.delete_row_count != 0 || e.file.write_cols) {
        return R();
      }
      total += e.file.row_count;
      files.insert(e.file.file_name);
    }
    TRIB_ASSIGN_OR_RETURN(auto vectors,
                          meta::ReadLiveIndexEntries(path, *snap, "DELETION_VECTORS"));
    for (const auto& v : vectors) {
      for (const auto& r : v.dv_ranges) {
        if (!files.count(r.data_file)) continue;
        if (!r.cardinality) return R();
        total -= *r.cardinality;
      }
    }
    return R(total);
  }
  // One file per bucket holds each key once; with no retraction in it, every record is a row.
  std::map<std::pair<std::string, int32_t>, std::vector<const meta::DataFileMeta*>> buckets;
  for (const auto& e : *live) buckets[{e.partition, e.bucket}].push_back(&e.file);
  for (const auto& [id, files] : buckets) {
    if (files.size() != 1) return R();
    const meta::DataFileMeta& f = *files[0];
    if (!f.delete_row_count || *f.delete_row_count != 0 || f.write_cols) return R();
    total += f.row_count;
  }
  return R(total);
}

Result<std::unique_ptr<TableScan>> NewFileStoreScan(
    const std::string& path, std::shared_ptr<const TableSchema> schema, const ScanOptions& options,
    const std::string& meta_path, bool top_level_only, const PendingHook& pending) {
  TRIB_ASSIGN_OR_RETURN(schema,
                        options::WithDynamicOptions(std::move(schema), options.dynamic_options));
  TRIB_ASSIGN_OR_RETURN(CoreOptions core, CoreOptions::From(*schema));
  if (options.projection) {
    for (int i : *options.projection) {
      if (i < 0 || i >= static_cast<int>(schema->fields.size())) {
        return Status::Invalid("projection index " + std::to_string(i) + " out of range");
      }
    }
  }
  for (const auto& p : options.filters) {
    if (p.column < 0 || p.column >= static_cast<int>(schema->fields.size())) {
      return Status::Invalid("filter column " + std::to_string(p.column) + " out of range");
    }
  }
  auto scan = std::make_unique<FileStoreScan>(path, meta_path.empty() ? path : meta_path,
                                              std::move(schema), options, std::move(core));
  if (top_level_only) scan->ReadTopLevelOnly();
  if (pending && (meta_path.empty() || meta_path == path)) scan->ReadPending(pending);
  return std::unique_ptr<TableScan>(std::move(scan));
}

}  // namespace tributary::read
