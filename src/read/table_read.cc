// The read path: snapshot -> manifests -> splits pruned by partition and statistics -> merged
// rows of each split -> filters and projection.
#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include "common/parallel.h"
#include "common/timezone.h"
#include "format/binary_row.h"
#include "format/deletion_vector.h"
#include "meta/schema_manager.h"
#include "io/file_system.h"
#include "merge/merge_config.h"
#include "merge/sort_merge_reader.h"
#include "meta/paths.h"
#include "meta/snapshot.h"
#include "options/option_values.h"
#include "options/core_options.h"
#include "io/file_cache.h"
#include "read/point_lookup.h"
#include "datafile/data_file.h"
#include "common/check_value.h"
#include "read/table_read.h"
#include "common/predicate.h"
#include "meta/snapshot_reader.h"
#include "tributary/table_scan.h"

namespace tributary::read {

using datafile::ColumnFileReader;
using datafile::DataFileRef;
using datafile::DecodeKeyRange;
using datafile::FileLayout;
using datafile::MergeFilesByColumns;
using datafile::MergedColumns;
using datafile::OptionIsTrue;
using datafile::ReadDataFile;
using datafile::ReadDataFileColumns;
using datafile::ReadDeduplicatedColumns;
using datafile::ReadPushdown;
using merge::ColumnMergePlan;
using meta::ReadLiveEntriesShared;
using meta::ReadSnapshotCached;
using meta::ResolveExternalPath;
using options::CoreOptions;
namespace {

struct Split {
  std::string pbytes;  // serialized partition
  Row partition;
  int32_t bucket = 0;
  std::string dir;
  std::vector<meta::DataFileMeta> files;
};

ColumnBatch RowsToColumns(const RowBatch& rows, const std::vector<Field>& fields) {
  ColumnBatch out;
  out.num_rows = rows.rows.size();
  out.columns.resize(fields.size());
  for (size_t c = 0; c < fields.size(); c++) {
    out.columns[c].type = fields[c].type;
    out.columns[c].rep = ColumnVector::RepOf(fields[c].type);
  }
  for (const Row& r : rows.rows) {
    for (size_t c = 0; c < fields.size(); c++) out.columns[c].Append(r[c]);
  }
  return out;
}

class FileStoreScan : public TableScan {
 public:
  // `meta_path`: where schema/ and snapshot/ are (the table itself, or a branch's folder
  // `<table>/branch/branch-<name>`, whose manifests and data files live in the table's folders).
  FileStoreScan(std::string path, std::string meta_path, std::shared_ptr<const TableSchema> schema,
                ScanOptions options, CoreOptions core)
      : path_(std::move(path)), meta_path_(std::move(meta_path)), schema_(std::move(schema)),
        options_(std::move(options)), core_(std::move(core)), layout_(FileLayout::Of(*schema_)) {
    if (options_.projection) {
      projection_ = *options_.projection;
    } else {
      for (size_t i = 0; i < schema_->fields.size(); i++) projection_.push_back(static_cast<int>(i));
    }
    if (options_.row_tracking && !options_.projection) {
      projection_.push_back(static_cast<int>(schema_->fields.size()));
      projection_.push_back(static_cast<int>(schema_->fields.size()) + 1);
    }
    identity_projection_ = true;
    for (size_t i = 0; i < projection_.size(); i++) {
      identity_projection_ &= projection_[i] == static_cast<int>(i);
    }
    for (int i : projection_) {
      output_fields_.push_back(static_cast<size_t>(i) < schema_->fields.size()
                                   ? schema_->fields[i]
                                   : RowTrackingFields()[i - schema_->fields.size()]);
    }
  }

  // Paimon's system fields of row-tracking tables (SpecialFields ids).
  static const std::vector<Field>& RowTrackingFields() {
    static const std::vector<Field> fields = {
        {2147483642, "_ROW_ID", DataType::BigInt().NotNull(), ""},
        {2147483646, "_SEQUENCE_NUMBER", DataType::BigInt().NotNull(), ""}};
    return fields;
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
      TRIB_ASSIGN_OR_RETURN(bool more, NextSlice(&columns));
      if (!more) return false;
      batch->rows.assign(columns.num_rows, Row(columns.columns.size()));
      for (size_t c = 0; c < columns.columns.size(); c++) {
        for (size_t r = 0; r < columns.num_rows; r++) batch->rows[r][c] = columns.columns[c].Get(r);
      }
      batch->kinds.assign(columns.num_rows, RowKind::kInsert);
      return true;
    }
    if (Parallel()) {
      // Splits are independent: read the next few on every core, hand them out in order.
      while (true) {
        while (next_ready_ < ready_.size()) {
          RowBatch& b = ready_[next_ready_++];
          if (b.rows.empty()) continue;
          std::swap(*batch, b);
          b = RowBatch();
          return true;
        }
        TRIB_ASSIGN_OR_RETURN(bool more,
                              ReadAhead(&ready_, /*per_thread=*/1,
                                        [&](const Split& s, std::vector<RowBatch>* out) {
                                          out->emplace_back();
                                          return ReadSplit(s, &out->back());
                                        }));
        if (!more) break;
      }
    }
    while (next_split_ < splits_.size()) {
      if (options_.limit && emitted_ >= *options_.limit) return false;
      const Split& split = splits_[next_split_++];
      TRIB_RETURN_NOT_OK(ReadSplit(split, batch));
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
    if (options_.max_batch_rows > 0) return NextSlice(batch);
    while (true) {
      if (TakeReadyColumns(batch)) return true;
      TRIB_ASSIGN_OR_RETURN(bool more,
                            ReadAhead(&ready_columns_, /*per_thread=*/2,
                                      [&](const Split& s, auto* out) {
                                        return ReadSplitColumns(s, out);
                                      }));
      if (!more) return false;
    }
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
  // merge a slice at a time.
  Result<bool> NextSlice(ColumnBatch* batch) {
    const size_t max_rows = options_.max_batch_rows;
    while (true) {
      if (slice_reader_) {
        TRIB_ASSIGN_OR_RETURN(bool more, slice_reader_->Next(max_rows, batch));
        if (more) return true;
        slice_reader_.reset();
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
        if (f.schema_id == schema_->id && !f.write_cols) {
          TRIB_ASSIGN_OR_RETURN(slice_reader_,
                                ColumnFileReader::Open({DataFilePath(slice_split_, f), f.row_count},
                                                       layout_, projection_, &skip_filters_,
                                                       &options_.filters));
          if (slice_reader_) continue;
        }
        Split one = slice_split_;
        one.files = {f};
        RowBatch rows;
        TRIB_RETURN_NOT_OK(ReadSplit(one, &rows));
        ready_columns_.push_back(RowsToColumns(rows, output_fields_));
        continue;
      }
      if (next_split_ >= splits_.size()) return false;
      const Split& split = splits_[next_split_++];
      if (!layout_.primary_key || split.files.size() == 1) {
        slice_split_ = split;  // its files, one after another
        slice_file_ = 0;
      } else {
        TRIB_RETURN_NOT_OK(ReadSplitColumns(split, &ready_columns_));  // a merge: whole
      }
    }
  }

  // Splits are independent: reads the next `per_thread` per core with read(split, &batches)
  // and replaces *ready by their batches, in split order. False when no split is left. Rows
  // take several times the memory of column batches, so row reads hold fewer splits at once.
  template <typename Batch, typename Read>
  Result<bool> ReadAhead(std::vector<Batch>* ready, size_t per_thread, const Read& read) {
    if (next_split_ >= splits_.size()) return false;
    const int threads = DefaultParallelism();
    const size_t k =
        std::min(splits_.size() - next_split_, static_cast<size_t>(threads) * per_thread);
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

 private:
  Status Plan() {
    if (!options_.time_zone.empty()) {
      TRIB_ASSIGN_OR_RETURN(TimeZone tz, TimeZone::Load(options_.time_zone));
      time_zone_ = std::move(tz);
    }
    meta::SnapshotManager snapshots(meta_path_);
    std::optional<int64_t> id = options_.snapshot_id;
    auto dyn = options_.dynamic_options.find("scan.snapshot-id");
    if (!id && dyn != options_.dynamic_options.end()) {
      TRIB_ASSIGN_OR_RETURN(int64_t v, options::ParseInt64(dyn->second));
      id = v;
    }
    auto ts = options_.dynamic_options.find("scan.timestamp-millis");
    if (!id && ts != options_.dynamic_options.end()) {
      // Time travel by time: the latest snapshot committed at or before the given epoch millis.
      TRIB_ASSIGN_OR_RETURN(int64_t millis, options::ParseInt64(ts->second));
      TRIB_ASSIGN_OR_RETURN(auto ids, snapshots.ListIds());
      for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
        TRIB_ASSIGN_OR_RETURN(auto s, snapshots.Read(*it));
        if (s->time_millis <= millis) {
          id = *it;
          break;
        }
      }
      if (!id) return Status::OK();  // nothing was committed by then: no rows
    }
    if (!id) {
      TRIB_ASSIGN_OR_RETURN(id, snapshots.LatestId());
      if (!id) return Status::OK();  // empty table
    }

    data_evolution_ = schema_->Option("data-evolution.enabled").value_or("false") == "true";
    if (data_evolution_ && layout_.primary_key) {
      return Status::NotSupported("data evolution on a primary-key table is not supported");
    }
    if (layout_.primary_key) {
      TRIB_ASSIGN_OR_RETURN(merge_config_, merge::MergeConfig::Make(*schema_));
      if (core_.bucket > 0) {
        for (const auto& k : schema_->BucketKeys()) bucket_key_.push_back(schema_->FieldIndex(k));
      }
    }
    ComputeNeededColumns(merge_config_.get());
    // Row groups may be skipped on any column of an append table, but only on key columns of a
    // primary-key table: a non-matching newer version must still shadow an older matching one.
    for (const auto& p : options_.filters) {
      bool key = std::find(layout_.key_columns.begin(), layout_.key_columns.end(), p.column) !=
                 layout_.key_columns.end();
      if (!layout_.primary_key || key) skip_filters_.push_back(p);
    }
    TRIB_ASSIGN_OR_RETURN(auto snap, ReadSnapshotCached(meta_path_, *id));
    TRIB_ASSIGN_OR_RETURN(auto live_shared, ReadLiveEntriesShared(path_, *snap));
    const std::vector<meta::ManifestEntry>& live = *live_shared;
    dv_enabled_ = OptionIsTrue(*schema_, "deletion-vectors.enabled");
    if (dv_enabled_ && snap->index_manifest) TRIB_RETURN_NOT_OK(LoadDeletionVectors(*snap));
    DetectPointLookup();
    std::vector<Field> pfields;
    std::vector<DataType> ptypes;
    std::vector<int> pidx;
    for (const auto& k : schema_->partition_keys) {
      int i = schema_->FieldIndex(k);
      pidx.push_back(i);
      pfields.push_back(schema_->fields[i]);
      ptypes.push_back(schema_->fields[i].type);
    }
    std::map<std::pair<std::string, int32_t>, size_t> index;
    std::set<std::string> partitions;
    for (const auto& e : live) {
      partitions.insert(e.partition);
      if (excluded_.count(e.partition)) continue;
      if (auto b = LookupBucket(e.total_buckets); b && *b != e.bucket) continue;
      auto key = std::make_pair(e.partition, e.bucket);
      auto it = index.find(key);
      if (it == index.end()) {
        auto part = format::DeserializeBinaryRow(e.partition, ptypes);
        if (!part.ok()) return part.status().WithContext("partition of file " + e.file.file_name);
        if (!PartitionMatches(*part, pidx)) {
          index[key] = SIZE_MAX;
          continue;
        }
        Split s;
        s.pbytes = e.partition;
        s.partition = *part;
        s.bucket = e.bucket;
        s.dir = meta::BucketDir(path_, meta::PartitionPath(pfields, *part,
                                                           core_.partition_default_name),
                                e.bucket);
        index[key] = splits_.size();
        splits_.push_back(std::move(s));
        it = index.find(key);
      }
      if (it->second == SIZE_MAX) continue;
      if (!FileMayMatch(e.file)) continue;
      splits_[it->second].files.push_back(e.file);
    }
    if (auto fb = schema_->Option("scan.fallback-branch"); fb && !fb->empty()) {
      TRIB_RETURN_NOT_OK(OpenFallback(*fb, std::move(partitions)));
    }
    return Status::OK();
  }

  // 'scan.fallback-branch': partitions missing from this table are read from the branch (with
  // the branch's own schema and merge rules). Columns and filters are mapped by field id.
  Status OpenFallback(const std::string& branch, std::set<std::string> have) {
    std::string branch_path = meta::BranchPath(path_, branch);
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

  bool PartitionMatches(const Row& partition, const std::vector<int>& pidx) const {
    for (const auto& p : options_.filters) {
      for (size_t i = 0; i < pidx.size(); i++) {
        if (p.column == pidx[i] && !EvalPredicate(p, partition[i])) return false;
      }
    }
    return true;
  }

  // Index manifest -> where each data file's deletion vector is.
  Status LoadDeletionVectors(const meta::Snapshot& snap) {
    std::string path = meta::ManifestPath(path_, *snap.index_manifest);
    TRIB_ASSIGN_OR_RETURN(std::string bytes, io::LocalFs().ReadFile(path));
    TRIB_ASSIGN_OR_RETURN(auto entries,
                          meta::DecodeIndexManifest(std::move(bytes), "index manifest '" + path + "'"));
    std::map<std::string, meta::IndexManifestEntry> live;  // by index file name
    for (auto& e : entries) {
      if (e.index_type != "DELETION_VECTORS") continue;
      if (e.kind == meta::FileKind::kDelete) live.erase(e.file_name);
      else live[e.file_name] = std::move(e);
    }
    for (auto& [name, e] : live) {
      for (const auto& r : e.dv_ranges) {
        dv_ranges_[{e.partition, e.bucket, r.data_file}] = DvLocation{e, r};
      }
    }
    return Status::OK();
  }

  std::string ResolveExternal(const std::string& recorded) const {
    return ResolveExternalPath(path_, recorded);
  }

  std::string DataFilePath(const Split& split, const meta::DataFileMeta& f) const {
    if (f.external_path) return ResolveExternal(*f.external_path);
    return io::JoinPath(split.dir, f.file_name);
  }

  Result<std::optional<format::DeletionVector>> DeletionVectorOf(const Split& split,
                                                                 const std::string& pbytes,
                                                                 const meta::DataFileMeta& f) {
    auto it = dv_ranges_.find({pbytes, split.bucket, f.file_name});
    if (it == dv_ranges_.end()) return std::optional<format::DeletionVector>();
    const DvLocation& loc = it->second;
    std::string file;
    if (loc.entry.external_path) {
      file = ResolveExternal(*loc.entry.external_path);
    } else {
      file = meta::IndexPath(path_, loc.entry.file_name);
      if (!io::LocalFs().Exists(file).ValueOr(false)) {
        file = io::JoinPath(split.dir, loc.entry.file_name);  // index-file-in-data-file-dir
      }
    }
    auto cached = dv_files_.find(file);
    if (cached == dv_files_.end()) {
      TRIB_ASSIGN_OR_RETURN(std::string bytes, io::LocalFs().ReadFile(file));
      cached = dv_files_.emplace(file, std::move(bytes)).first;
    }
    TRIB_ASSIGN_OR_RETURN(format::DeletionVector dv,
                          format::DeletionVector::Decode(cached->second, loc.range.offset,
                                                         loc.range.length,
                                                         "deletion vector file '" + file + "'"));
    return std::optional<format::DeletionVector>(std::move(dv));
  }

  // The columns of the schema `f` was written with, when it differs from the read schema.
  Result<const std::vector<Field>*> FileFields(const meta::DataFileMeta& f) {
    if (f.schema_id == schema_->id) return nullptr;
    std::lock_guard<std::mutex> lock(file_schemas_mu_);  // splits may be read in parallel
    auto it = file_schemas_.find(f.schema_id);
    if (it == file_schemas_.end()) {
      TRIB_ASSIGN_OR_RETURN(auto s, meta::SchemaManager(meta_path_).Read(f.schema_id));
      it = file_schemas_.emplace(f.schema_id, std::move(s)).first;
    }
    return &it->second->fields;
  }

  // `filter_rows`: the caller emits the records without merging them, so the scan's filters can
  // be applied while decoding.
  Result<std::vector<merge::KeyValue>> ReadFile(const Split& split, const meta::DataFileMeta& f,
                                                bool filter_rows = false) {
    TRIB_ASSIGN_OR_RETURN(const std::vector<Field>* file_fields, FileFields(f));
    ReadPushdown pushdown;
    pushdown.needed = needed_.empty() ? nullptr : &needed_;
    // Deletion vectors address file positions, data evolution aligns rows across files: every
    // row group and row must be read for them.
    bool positional = dv_enabled_ || data_evolution_;
    pushdown.skip_filters = positional ? nullptr : &skip_filters_;
    if (filter_rows && !positional) pushdown.row_filters = &options_.filters;
    pushdown.time_zone = time_zone_ ? &*time_zone_ : nullptr;
    return ReadDataFile({DataFilePath(split, f), f.row_count}, layout_, f.level, f.write_cols,
                        file_fields, pushdown);
  }

  // Which columns must be decoded: the projection and filter columns, plus what merging needs.
  // Engines whose result is one whole input record (deduplicate, first-row) need only the key and
  // sequence columns besides; the others combine every column.
  void ComputeNeededColumns(const merge::MergeConfig* config) {
    const size_t n = schema_->fields.size();
    if (layout_.primary_key &&
        (!config || (config->engine != "deduplicate" && config->engine != "first-row"))) {
      return;  // decode everything
    }
    needed_.assign(n, false);
    for (int i : projection_) needed_[i] = true;
    for (const auto& p : options_.filters) needed_[p.column] = true;
    if (layout_.primary_key) {
      for (int i : config->primary_key) needed_[i] = true;
      for (int i : config->sequence_fields) needed_[i] = true;
    }
  }

  // A point lookup: equality filters on every trimmed primary-key column (with the columns' exact
  // representation). Sets lookup_key_.
  void DetectPointLookup() {
    if (!layout_.primary_key || dv_enabled_ || layout_.key_columns.empty()) return;
    Row key;
    for (int c : layout_.key_columns) {
      const Value* lit = nullptr;
      for (const auto& p : options_.filters) {
        if (p.column == c && p.op == Predicate::Op::kEq && p.literals.size() == 1) {
          lit = &p.literals[0];
        }
      }
      if (!lit || lit->is_null() || !CheckValue(*lit, schema_->fields[c]).ok()) return;
      key.push_back(*lit);
    }
    lookup_key_ = std::move(key);
  }

  // Point lookup in one split: each file whose key range holds the key is decoded once into the
  // process-wide cache, sorted by key, and binary-searched; the found records are merged.
  Status LookupSplit(const Split& split, RowBatch* batch) {
    std::vector<merge::KeyValue> found;
    for (const auto& f : split.files) {
      TRIB_ASSIGN_OR_RETURN(const std::vector<Field>* file_fields, FileFields(f));
      TRIB_RETURN_NOT_OK(FindKeyInFile(DataFilePath(split, f), layout_, f, schema_->id,
                                       file_fields, *lookup_key_, &found));
    }
    if (found.empty()) return Status::OK();
    TRIB_ASSIGN_OR_RETURN(auto mf, merge::MakeMergeFunction(merge_config_, *schema_));
    TRIB_ASSIGN_OR_RETURN(auto row, MergeFound(std::move(found), merge_config_, mf.get()));
    if (row) Emit(std::move(*row), batch);
    return Status::OK();
  }

  // With an equality filter on every bucket-key column of a fixed-bucket table, only one bucket
  // per partition can hold matching rows (a point lookup): returns its bucket for `total_buckets`.
  std::optional<int32_t> LookupBucket(int32_t total_buckets) {
    if (total_buckets <= 0 || bucket_key_.empty()) return std::nullopt;
    auto it = lookup_bucket_.find(total_buckets);
    if (it != lookup_bucket_.end()) return it->second;
    Row key;
    std::vector<DataType> types;
    for (int c : bucket_key_) {
      const Value* lit = nullptr;
      for (const auto& p : options_.filters) {
        if (p.column == c && p.op == Predicate::Op::kEq && p.literals.size() == 1) {
          lit = &p.literals[0];
        }
      }
      // The literal must have the column's exact representation, or its hash would differ.
      if (!lit || lit->is_null() || !CheckValue(*lit, schema_->fields[c]).ok()) {
        lookup_bucket_[total_buckets] = std::nullopt;
        return std::nullopt;
      }
      key.push_back(*lit);
      types.push_back(schema_->fields[c].type);
    }
    int32_t b = format::BucketOf(format::HashRow(types, key), total_buckets);
    lookup_bucket_[total_buckets] = b;
    return b;
  }

  bool FileMayMatch(const meta::DataFileMeta& f) const {
    if (options_.filters.empty()) return true;
    // Rows of a data-evolution table are assembled from several files: pruning one file of a
    // row-id group would leave another file's stale values.
    if (data_evolution_) return true;
    if (f.schema_id != schema_->id) return true;  // statistics in an older schema's layout
    if (layout_.primary_key) {
      // Key range: the first trimmed key column bounds every record of the file.
      if (layout_.key_columns.empty()) return true;
      int first = layout_.key_columns[0];
      auto range = DecodeKeyRange(f, layout_.KeyTypes());
      if (!range) return true;
      for (const auto& p : options_.filters) {
        if (p.column == first && !MayMatchRange(p, range->min[0], range->max[0])) return false;
      }
      return true;
    }
    // Append tables: column statistics, when they cover every column in schema order.
    if (f.value_stats_cols || f.schema_id != schema_->id) return true;
    std::vector<DataType> types = layout_.FieldTypes();
    auto arity = format::SerializedArity(f.value_stats.min_values);
    if (!arity.ok() || *arity != static_cast<int32_t>(types.size())) return true;
    auto min = format::DeserializeBinaryRow(f.value_stats.min_values, types);
    auto max = format::DeserializeBinaryRow(f.value_stats.max_values, types);
    if (!min.ok() || !max.ok()) return true;
    for (const auto& p : options_.filters) {
      if (p.column < 0 || p.column >= static_cast<int>(types.size())) continue;
      if (!MayMatchRange(p, (*min)[p.column], (*max)[p.column])) return false;
    }
    return true;
  }

  bool RowMatches(const Row& r) const {
    for (const auto& p : options_.filters) {
      if (!EvalPredicate(p, r[p.column])) return false;
    }
    return true;
  }

  // Whether NextColumns reads files column by column: batch reads whose records need no
  // per-row bookkeeping (no LIMIT, deletion vectors, data evolution, row tracking, point
  // lookup or fallback branch).
  bool ColumnPath() const {
    return !options_.limit && !dv_enabled_ && !data_evolution_ && !options_.row_tracking &&
           !lookup_key_ && !fallback_;
  }

  // One split as column batches: files that need no merge (append files, a primary-key bucket
  // of one file) column by column when they are Parquet files of the read schema, everything
  // else through ReadSplit's rows.
  Status ReadSplitColumns(const Split& split, std::vector<ColumnBatch>* out) {
    if (!layout_.primary_key || split.files.size() == 1) {
      for (const auto& f : split.files) {
        std::optional<std::vector<ColumnBatch>> batches;
        if (f.schema_id == schema_->id && !f.write_cols) {
          TRIB_ASSIGN_OR_RETURN(batches,
                                ReadDataFileColumns({DataFilePath(split, f), f.row_count}, layout_, projection_,
                                                    &skip_filters_, &options_.filters));
        }
        if (batches) {
          for (auto& b : *batches) out->push_back(std::move(b));
          continue;
        }
        Split one = split;
        one.files = {f};
        RowBatch rows;
        TRIB_RETURN_NOT_OK(ReadSplit(one, &rows));
        out->push_back(RowsToColumns(rows, output_fields_));
      }
      return Status::OK();
    }
    if (DeduplicatesByColumns(split)) {
      // Merged on the key, sequence and kind columns; only the winners' values are gathered.
      std::vector<const meta::DataFileMeta*> files;
      for (const auto& f : split.files) files.push_back(&f);
      std::stable_sort(files.begin(), files.end(), [](const auto* a, const auto* b) {
        return a->max_sequence_number < b->max_sequence_number;
      });
      std::vector<DataFileRef> paths;
      for (const auto* f : files) paths.push_back({DataFilePath(split, *f), f->row_count});
      TRIB_ASSIGN_OR_RETURN(auto merged,
                            ReadDeduplicatedColumns(paths, layout_, projection_, &skip_filters_,
                                                    &options_.filters));
      if (merged) {
        out->push_back(std::move(*merged));
        return Status::OK();
      }
    }
    TRIB_ASSIGN_OR_RETURN(auto merged, MergeSplitByColumns(split));
    if (merged) {
      // The merged records passing the filters, their projected columns gathered.
      ColumnBatch batch;
      const auto& m = merged->merged;
      for (int c : projection_) {
        ColumnVector v;
        v.type = layout_.fields[c].type;
        v.rep = merged->columns[c].rep;
        batch.columns.push_back(std::move(v));
      }
      for (size_t k = 0; k < m.size(); k++) {
        bool keep = true;
        for (const auto& p : options_.filters) {
          keep = keep && EvalPredicate(p, MergedValue(*merged, p.column, k));
        }
        if (!keep) continue;
        for (size_t i = 0; i < projection_.size(); i++) {
          const int c = projection_[i];
          if (c < static_cast<int>(m.computed.size()) && m.computed[c]) {
            batch.columns[i].AppendRow(*m.computed[c], k);
          } else {
            batch.columns[i].AppendRow(merged->columns[c], m.SourceRow(c, k));
          }
        }
        batch.num_rows++;
      }
      out->push_back(std::move(batch));
      return Status::OK();
    }
    RowBatch rows;
    TRIB_RETURN_NOT_OK(ReadSplit(split, &rows));
    out->push_back(RowsToColumns(rows, output_fields_));
    return Status::OK();
  }

  // Value of column c of merged record k.
  static Value MergedValue(const MergedColumns& m, size_t c, size_t k) {
    if (c < m.merged.computed.size() && m.merged.computed[c]) return m.merged.computed[c]->Get(k);
    return m.columns[c].Get(m.merged.SourceRow(c, k));
  }

  // A merged bucket of a table whose merge runs column by column (ColumnMergePlan), reading
  // only the projected and filtered columns: the merged records without retractions. nullopt
  // when the bucket needs the row merge (files of another schema, of partial-column writes or of
  // another format, merge options or records the plan does not take).
  Result<std::optional<MergedColumns>> MergeSplitByColumns(const Split& split) {
    using Out = std::optional<MergedColumns>;
    if (!merge_config_ || dv_enabled_ || lookup_key_ || data_evolution_) return Out();
    TRIB_ASSIGN_OR_RETURN(auto plan, ColumnMergePlan::Make(*merge_config_, layout_.fields,
                                                           /*keep_retracts=*/false));
    if (!plan) return Out();
    std::vector<const meta::DataFileMeta*> files;
    for (const auto& f : split.files) {
      if (f.schema_id != schema_->id || f.write_cols) return Out();
      files.push_back(&f);
    }
    // Older files first: a later file wins equal sequence numbers, as in the row merge.
    std::stable_sort(files.begin(), files.end(), [](const auto* a, const auto* b) {
      return a->max_sequence_number < b->max_sequence_number;
    });
    std::vector<DataFileRef> paths;
    for (const auto* f : files) paths.push_back({DataFilePath(split, *f), f->row_count});
    std::vector<bool> needed(layout_.fields.size(), false);
    for (int i : projection_) needed[i] = true;
    for (const auto& p : options_.filters) needed[p.column] = true;
    for (int k : layout_.key_columns) needed[k] = true;
    // Aggregates fold every column, as the row merge does (an aggregate that fails fails the
    // read, whichever columns it returns).
    const bool all = plan->kind() == ColumnMergePlan::Kind::kAggregate;
    // No retraction comes out: deduplicate drops winning ones (keep_retracts false), the other
    // engines' results are never one.
    return MergeFilesByColumns(paths, layout_, &*plan, all ? nullptr : &needed, &skip_filters_);
  }

  // Whether a merged bucket can be read by ReadDeduplicatedColumns: the deduplicate engine
  // without sequence fields or delete options, every file of the read schema and whole rows.
  bool DeduplicatesByColumns(const Split& split) const {
    if (!merge_config_ || merge_config_->engine != "deduplicate" ||
        !merge_config_->sequence_fields.empty() || merge_config_->ignore_delete ||
        merge_config_->remove_record_on_delete) {
      return false;
    }
    return std::all_of(split.files.begin(), split.files.end(), [&](const auto& f) {
      return f.schema_id == schema_->id && !f.write_cols;
    });
  }

  // Whether splits are read on several threads: when nothing is shared between them (no LIMIT
  // to count toward, no deletion-vector file cache, no point lookup) and there are several.
  bool Parallel() const {
    return !options_.limit && !dv_enabled_ && !lookup_key_ && splits_.size() > 1 &&
           DefaultParallelism() > 1;
  }

  // Adds `r` to the batch when it passes the filters (and the LIMIT is not reached: the batch
  // holds the rows of the split being read, `emitted_` those of earlier splits).
  void Emit(Row&& r, RowBatch* batch) {
    if (options_.limit &&
        emitted_ + static_cast<int64_t>(batch->rows.size()) >= *options_.limit) {
      return;
    }
    if (!RowMatches(r)) return;
    if (identity_projection_ && r.size() == projection_.size()) {
      batch->rows.push_back(std::move(r));  // every column in order: the row itself
      batch->kinds.push_back(RowKind::kInsert);
      return;
    }
    Row out;
    out.reserve(projection_.size());
    for (int i : projection_) out.push_back(std::move(r[i]));
    batch->rows.push_back(std::move(out));
    batch->kinds.push_back(RowKind::kInsert);
  }

  // Data-evolution tables (row tracking + 'data-evolution.enabled'): each file covers a row-id
  // range and supplies the columns it wrote (`_WRITE_COLS`; `.blob` files one BLOB column, often
  // over a part of the range); for each row and column the newest file (highest sequence number)
  // covering the row and supplying the column wins.
  Status ReadDataEvolutionSplit(const Split& split, RowBatch* batch) {
    std::vector<const meta::DataFileMeta*> tracked, plain;
    for (const auto& f : split.files) (f.first_row_id ? tracked : plain).push_back(&f);
    for (const meta::DataFileMeta* f : plain) {
      TRIB_ASSIGN_OR_RETURN(auto records, ReadFile(split, *f));
      for (auto& kv : records) Emit(std::move(kv.value), batch);
    }
    // Clusters of overlapping row-id ranges, in row-id order.
    std::sort(tracked.begin(), tracked.end(),
              [](const auto* a, const auto* b) { return *a->first_row_id < *b->first_row_id; });
    const size_t n = schema_->fields.size();
    size_t i = 0;
    while (i < tracked.size()) {
      int64_t lo = *tracked[i]->first_row_id, hi = lo + tracked[i]->row_count;
      size_t j = i + 1;
      while (j < tracked.size() && *tracked[j]->first_row_id < hi) {
        hi = std::max(hi, *tracked[j]->first_row_id + tracked[j]->row_count);
        j++;
      }
      std::vector<const meta::DataFileMeta*> files(tracked.begin() + i, tracked.begin() + j);
      std::sort(files.begin(), files.end(), [](const auto* a, const auto* b) {
        return a->max_sequence_number > b->max_sequence_number;
      });
      // Which read-schema columns each file supplies.
      std::vector<std::vector<bool>> supplies(files.size(), std::vector<bool>(n, false));
      for (size_t fi = 0; fi < files.size(); fi++) {
        const meta::DataFileMeta& f = *files[fi];
        TRIB_ASSIGN_OR_RETURN(const std::vector<Field>* file_fields, FileFields(f));
        const std::vector<Field>& ff = file_fields ? *file_fields : schema_->fields;
        for (size_t c = 0; c < n; c++) {
          for (const auto& fld : ff) {
            if (fld.id != schema_->fields[c].id) continue;
            supplies[fi][c] = !f.write_cols ||
                              std::find(f.write_cols->begin(), f.write_cols->end(), fld.name) !=
                                  f.write_cols->end();
          }
        }
      }
      std::vector<std::vector<merge::KeyValue>> data(files.size());
      std::vector<bool> loaded(files.size(), false);
      const int64_t rows = hi - lo;
      std::vector<Row> out(static_cast<size_t>(rows), Row(n));
      for (size_t c = 0; c < n; c++) {
        std::vector<bool> done(static_cast<size_t>(rows), false);
        for (size_t fi = 0; fi < files.size(); fi++) {
          if (!supplies[fi][c]) continue;
          const meta::DataFileMeta& f = *files[fi];
          if (!loaded[fi]) {
            TRIB_ASSIGN_OR_RETURN(data[fi], ReadFile(split, f));
            loaded[fi] = true;
            if (static_cast<int64_t>(data[fi].size()) != f.row_count) {
              return Status::Corruption("data file '" + f.file_name + "' holds " +
                                        std::to_string(data[fi].size()) + " rows, its manifest " +
                                        "entry says " + std::to_string(f.row_count));
            }
          }
          int64_t start = *f.first_row_id - lo;
          for (int64_t r = 0; r < f.row_count; r++) {
            if (done[start + r]) continue;
            out[start + r][c] = data[fi][r].value[c];
            done[start + r] = true;
          }
        }
      }
      for (auto& row : out) Emit(std::move(row), batch);
      i = j;
    }
    return Status::OK();
  }

  Status ReadSplit(const Split& split, RowBatch* batch) {
    if (data_evolution_) return ReadDataEvolutionSplit(split, batch);
    if (!layout_.primary_key && options_.row_tracking) return ReadRowTrackingSplit(split, batch);
    if (!layout_.primary_key) {
      for (const auto& f : split.files) {
        TRIB_ASSIGN_OR_RETURN(auto records, ReadFile(split, f, /*filter_rows=*/true));
        for (auto& kv : records) Emit(std::move(kv.value), batch);
      }
      return Status::OK();
    }
    if (lookup_key_) return LookupSplit(split, batch);
    if (dv_enabled_) {
      // Deletion-vector tables (Paimon semantics): a batch read skips level-0 files and reads
      // every other file as is, minus the positions its deletion vector marks.
      for (const auto& f : split.files) {
        if (f.level == 0) continue;
        TRIB_ASSIGN_OR_RETURN(auto records, ReadFile(split, f));
        TRIB_ASSIGN_OR_RETURN(auto dv, DeletionVectorOf(split, split.pbytes, f));
        for (size_t i = 0; i < records.size(); i++) {
          if (dv && dv->IsDeleted(static_cast<int64_t>(i))) continue;
          if (IsRetract(records[i].kind)) continue;
          Emit(std::move(records[i].value), batch);
        }
      }
      return Status::OK();
    }
    if (split.files.size() == 1) {
      // One file holds each key once, already merged: no merge needed.
      TRIB_ASSIGN_OR_RETURN(auto records, ReadFile(split, split.files[0], /*filter_rows=*/true));
      for (auto& kv : records) {
        if (IsAdd(kv.kind)) Emit(std::move(kv.value), batch);
      }
      return Status::OK();
    }
    TRIB_ASSIGN_OR_RETURN(auto merged, MergeSplitByColumns(split));
    if (merged) {
      Row row;
      for (size_t k = 0; k < merged->merged.size(); k++) {
        row.assign(layout_.fields.size(), Value());
        for (size_t c = 0; c < row.size(); c++) {
          if (merged->columns[c].size() == 0) continue;  // not read
          row[c] = MergedValue(*merged, c, k);
        }
        Emit(std::move(row), batch);
      }
      return Status::OK();
    }
    std::vector<meta::DataFileMeta> files = split.files;
    std::stable_sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
      return a.max_sequence_number < b.max_sequence_number;
    });
    std::vector<std::unique_ptr<merge::RecordSource>> sources;
    for (const auto& f : files) {
      TRIB_ASSIGN_OR_RETURN(auto records, ReadFile(split, f));
      sources.push_back(std::make_unique<merge::VectorSource>(std::move(records)));
    }
    TRIB_ASSIGN_OR_RETURN(auto mf, merge::MakeMergeFunction(merge_config_, *schema_));
    const auto& config = merge_config_;
    merge::SortMergeReader reader(std::move(sources), merge::KeyComparator(layout_.key_columns),
                                  merge::SequenceOrder(config), mf.get());
    merge::KeyValue kv;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, reader.Next(&kv));
      if (!more) break;
      if (IsAdd(kv.kind)) Emit(std::move(kv.value), batch);
    }
    return Status::OK();
  }

  // Row-tracking append files: each row's `_ROW_ID` and `_SEQUENCE_NUMBER` are the values the
  // file stores (compacted files keep them as columns), else the file's first row id plus the
  // row's position and the file's max sequence number (its commit's snapshot id), as Paimon
  // reads them.
  Status ReadRowTrackingSplit(const Split& split, RowBatch* batch) {
    FileLayout sys;
    sys.fields = RowTrackingFields();
    for (auto& f : sys.fields) f.type = f.type.WithNullable(true);
    for (const auto& f : split.files) {
      TRIB_ASSIGN_OR_RETURN(auto records, ReadFile(split, f));
      std::vector<merge::KeyValue> stored;
      bool has_stored = f.write_cols && std::any_of(f.write_cols->begin(), f.write_cols->end(),
                                                    [](const std::string& c) {
                                                      return c == "_ROW_ID" ||
                                                             c == "_SEQUENCE_NUMBER";
                                                    });
      if (has_stored) {
        TRIB_ASSIGN_OR_RETURN(stored, ReadDataFile({DataFilePath(split, f), f.row_count}, sys, f.level));
        if (stored.size() != records.size()) {
          return Status::Corruption("data file '" + DataFilePath(split, f) +
                                    "': row-tracking columns and table columns differ in length");
        }
      }
      for (size_t i = 0; i < records.size(); i++) {
        Value row_id, seq;
        if (has_stored) {
          row_id = std::move(stored[i].value[0]);
          seq = std::move(stored[i].value[1]);
        }
        if (row_id.is_null() && f.first_row_id) {
          row_id = Value::Int(*f.first_row_id + static_cast<int64_t>(i));
        }
        if (seq.is_null()) seq = Value::Int(f.max_sequence_number);
        Row r = std::move(records[i].value);
        r.push_back(std::move(row_id));
        r.push_back(std::move(seq));
        Emit(std::move(r), batch);
      }
    }
    return Status::OK();
  }

  std::string path_;
  std::string meta_path_;
  std::shared_ptr<const TableSchema> schema_;
  ScanOptions options_;
  std::set<std::string> excluded_;
  std::unique_ptr<TableScan> fallback_;
  CoreOptions core_;
  FileLayout layout_;
  std::vector<int> projection_;
  bool identity_projection_ = false;  // projection_ is 0, 1, ..., every column in order
  std::vector<Field> output_fields_;
  std::vector<Split> splits_;
  size_t next_split_ = 0;
  struct DvLocation {
    meta::IndexManifestEntry entry;
    meta::DeletionVectorRange range;
  };
  bool dv_enabled_ = false;
  bool data_evolution_ = false;
  std::shared_ptr<const merge::MergeConfig> merge_config_;
  std::vector<bool> needed_;  // empty: decode every column
  std::optional<Row> lookup_key_;
  std::vector<Predicate> skip_filters_;
  std::optional<TimeZone> time_zone_;  // options_.time_zone, loaded by Plan()
  std::vector<int> bucket_key_;
  std::map<int32_t, std::optional<int32_t>> lookup_bucket_;
  std::map<std::tuple<std::string, int32_t, std::string>, DvLocation> dv_ranges_;
  std::map<std::string, std::string> dv_files_;  // index file path -> bytes
  std::mutex file_schemas_mu_;
  std::map<int64_t, std::shared_ptr<const TableSchema>> file_schemas_;
  std::vector<RowBatch> ready_;  // splits read ahead in parallel, handed out from next_ready_
  std::vector<ColumnBatch> ready_columns_;  // the same for NextColumns
  // NextSlice: the split whose files are read a slice at a time, the next of them, the reader
  // of the current one.
  Split slice_split_;
  size_t slice_file_ = 0;
  size_t ready_offset_ = 0;  // rows of ready_columns_[next_ready_] already handed out
  std::unique_ptr<ColumnFileReader> slice_reader_;
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
  auto opt = [&](const char* k) { return schema.Option(k).value_or("false") == "true"; };
  if (opt("deletion-vectors.enabled") || opt("data-evolution.enabled") ||
      schema.Option("scan.fallback-branch")) {
    return R();
  }
  if (!snapshot_id) {
    TRIB_ASSIGN_OR_RETURN(snapshot_id, meta::SnapshotManager(path).LatestId());
    if (!snapshot_id) return R(0);
  }
  TRIB_ASSIGN_OR_RETURN(auto snap, ReadSnapshotCached(path, *snapshot_id));
  TRIB_ASSIGN_OR_RETURN(auto live, ReadLiveEntriesShared(path, *snap));
  int64_t total = 0;
  if (!schema.HasPrimaryKey()) {
    for (const auto& e : *live) total += e.file.row_count;
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

Result<std::unique_ptr<TableScan>> NewFileStoreScan(const std::string& path,
                                                    std::shared_ptr<const TableSchema> schema,
                                                    const ScanOptions& options,
                                                    const std::string& meta_path) {
  TRIB_ASSIGN_OR_RETURN(CoreOptions core, CoreOptions::From(*schema, options.dynamic_options));
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
  return std::unique_ptr<TableScan>(
      new FileStoreScan(path, meta_path.empty() ? path : meta_path, std::move(schema), options,
                        std::move(core)));
}

}  // namespace tributary::read
