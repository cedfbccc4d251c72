#include "read/split_read.h"

#include <algorithm>
#include <functional>

#include "common/check_value.h"
#include "common/predicate.h"
#include "common/timezone.h"
#include "datafile/data_file.h"
#include "datafile/file_index_filter.h"
#include "datafile/point_lookup.h"
#include "datafile/run_spill.h"
#include "datafile/test_hooks.h"
#include "format/deletion_vector.h"
#include "io/file_cache.h"
#include "io/file_system.h"
#include "merge/merge_config.h"
#include "merge/merge_function.h"
#include "merge/sort_merge_reader.h"
#include "meta/paths.h"
#include "meta/schema_manager.h"
#include "meta/snapshot_reader.h"
#include "options/core_options.h"
#include "options/option_keys.h"
#include "options/option_values.h"

namespace tributary::read {

using datafile::ColumnFileReader;
using datafile::DataFileRef;
using datafile::FileLayout;
using datafile::FindKeyInFile;
using datafile::MergedColumns;
using datafile::MergeFilesByColumnChunks;
using datafile::MergeFound;
using datafile::ReadDataFile;
using datafile::ReadDataFileColumns;
using datafile::ReadDeduplicatedColumns;
using datafile::ReadPushdown;
using merge::ColumnMergePlan;
using meta::ResolveExternalPath;

// Keys a merge by columns merges at a time (datafile::kMergeChunkKeys, unless a test says).
size_t MergeChunkKeys() {
  const size_t hook = datafile::GetTestHooks().read_merge_chunk_keys;
  return hook > 0 ? hook : datafile::kMergeChunkKeys;
}

const std::vector<Field>& RowTrackingFields() {
  static const std::vector<Field> fields = {
      {2147483642, "_ROW_ID", DataType::BigInt().NotNull(), ""},
      {2147483646, "_SEQUENCE_NUMBER", DataType::BigInt().NotNull(), ""}};
  return fields;
}

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

std::optional<std::vector<const Predicate*>> FiltersFixing(const TableSchema& schema,
                                                           const std::vector<int>& columns,
                                                           const std::vector<Predicate>& filters,
                                                           size_t max_keys) {
  std::vector<const Predicate*> out;
  size_t combinations = 1;
  for (int c : columns) {
    const Predicate* best = nullptr;
    for (const auto& p : filters) {
      if (p.column != c) continue;
      if ((p.op == Predicate::Op::kEq && p.literals.size() == 1) ||
          (p.op == Predicate::Op::kIn && !p.literals.empty())) {
        if (!best || p.literals.size() < best->literals.size()) best = &p;
      }
    }
    if (!best || combinations * best->literals.size() > max_keys) return std::nullopt;
    for (const Value& v : best->literals) {
      if (v.is_null() || !CheckValue(v, schema.fields[c]).ok()) return std::nullopt;
    }
    combinations *= best->literals.size();
    out.push_back(best);
  }
  return out;
}

std::optional<std::vector<Row>> KeysFixedByFilters(const TableSchema& schema,
                                                   const std::vector<int>& columns,
                                                   const std::vector<Predicate>& filters,
                                                   size_t max_keys) {
  auto fixing = FiltersFixing(schema, columns, filters, max_keys);
  if (!fixing) return std::nullopt;
  std::vector<Row> keys = {Row{}};
  for (const Predicate* p : *fixing) {
    std::vector<Row> next;
    for (const Row& k : keys) {
      for (const Value& v : p->literals) {
        Row r = k;
        r.push_back(v);
        next.push_back(std::move(r));
      }
    }
    keys = std::move(next);
  }
  return keys;
}

namespace {

class SplitReadImpl : public SplitRead {
 public:
  explicit SplitReadImpl(Config c)
      : path_(std::move(c.path)),
        meta_path_(std::move(c.meta_path)),
        schema_(std::move(c.schema)),
        options_(*c.options),
        layout_(FileLayout::Of(*schema_)),
        projection_(std::move(c.projection)),
        output_fields_(std::move(c.output_fields)),
        time_zone_(c.time_zone),
        dv_ranges_(std::move(c.deletion_vectors)) {
    identity_projection_ = true;
    for (size_t i = 0; i < projection_.size(); i++) {
      identity_projection_ &= projection_[i] == static_cast<int>(i);
    }
  }

  Status Init() {
    TRIB_ASSIGN_OR_RETURN(data_evolution_, options::Get(*schema_, options::kDataEvolutionEnabled));
    // 'file-index.read.enabled' (hints are in the schema's options here): point lookups in a
    // split skip files whose bloom filters rule the key out.
    file_index_read_ = options::GetOrDefault(*schema_, options::kFileIndexReadEnabled);
    if (data_evolution_ && layout_.primary_key) {
      return Status::NotSupported("data evolution on a primary-key table is not supported");
    }
    if (layout_.primary_key) {
      TRIB_ASSIGN_OR_RETURN(merge_config_, merge::MergeConfig::Make(*schema_));
      TRIB_ASSIGN_OR_RETURN(auto core, options::CoreOptions::From(*schema_));
      sort_spill_ = datafile::SortSpill::Of(core, options_.spill_dirs);
    }
    ComputeNeededColumns(merge_config_.get());
    // Row groups may be skipped on any column of an append table, but only on key columns of a
    // primary-key table: a non-matching newer version must still shadow an older matching one.
    for (const auto& p : options_.filters) {
      bool key = std::find(layout_.key_columns.begin(), layout_.key_columns.end(), p.column) !=
                 layout_.key_columns.end();
      if (!layout_.primary_key || key) skip_filters_.push_back(p);
    }
    dv_enabled_ = options::GetOrDefault(*schema_, options::kDeletionVectorsEnabled);
    dv_merge_level0_ =
        dv_enabled_ && options::GetOrDefault(*schema_, options::kDeletionVectorsMergeOnRead);
    DetectPointLookup();
    return Status::OK();
  }

  std::string ResolveExternal(const std::string& recorded) const {
    return ResolveExternalPath(path_, recorded);
  }

  std::string DataFilePath(const DataSplit& split, const meta::DataFileMeta& f) const {
    if (f.external_path) return ResolveExternal(*f.external_path);
    return io::JoinPath(split.dir, f.file_name);
  }

  // The deletion vector of data file `f`, or null. Decoded once per process: index files are
  // immutable (named by UUID), so a vector is cached by its file and offset.
  Result<std::shared_ptr<const format::DeletionVector>> DeletionVectorOf(
      const DataSplit& split, const std::string& pbytes, const meta::DataFileMeta& f) {
    auto it = dv_ranges_.find({pbytes, split.bucket, f.file_name});
    if (it == dv_ranges_.end()) return std::shared_ptr<const format::DeletionVector>();
    const DvLocation& loc = it->second;
    const std::string key = "deletion-vector:" + path_ + "/" + loc.entry.file_name + "#" +
                            std::to_string(loc.range.offset);
    return io::FileCache::Instance().GetOrLoad<format::DeletionVector>(
        key, [&]() -> Result<std::pair<format::DeletionVector, int64_t>> {
          std::string file;
          if (loc.entry.external_path) {
            file = ResolveExternal(*loc.entry.external_path);
          } else {
            file = meta::IndexPath(path_, loc.entry.file_name);
            if (!io::LocalFs().FileExists(file).ValueOr(false)) {
              file = io::JoinPath(split.dir, loc.entry.file_name);  // index-file-in-data-file-dir
            }
          }
          TRIB_ASSIGN_OR_RETURN(std::string bytes, io::LocalFs().ReadFile(file));
          TRIB_ASSIGN_OR_RETURN(
              format::DeletionVector dv,
              format::DeletionVector::Decode(bytes, loc.range.offset, loc.range.length,
                                             "deletion vector file '" + file + "'"));
          const int64_t size = static_cast<int64_t>(dv.cardinality() * sizeof(int64_t)) + 64;
          return std::make_pair(std::move(dv), size);
        });
  }

  // The columns of the schema `f` was written with, when it differs from the read schema.
  Result<const std::vector<Field>*> FileFields(const meta::DataFileMeta& f) {
    return file_schemas_.FieldsOf(f.schema_id);
  }

  // `filter_rows`: the caller emits the records without merging them, so the scan's filters can
  // be applied while decoding.
  Result<std::vector<merge::KeyValue>> ReadFile(const DataSplit& split, const meta::DataFileMeta& f,
                                                bool filter_rows = false) {
    TRIB_ASSIGN_OR_RETURN(const std::vector<Field>* file_fields, FileFields(f));
    ReadPushdown pushdown;
    pushdown.needed = needed_.empty() ? nullptr : &needed_;
    // Deletion vectors address file positions, data evolution aligns rows across files: every
    // row group and row must be read for them.
    bool positional = dv_enabled_ || data_evolution_;
    pushdown.skip_filters = positional ? nullptr : &skip_filters_;
    if (filter_rows && !positional) pushdown.row_filters = &options_.filters;
    pushdown.time_zone = time_zone_;
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

  // Point lookups: an equality or IN filter on every trimmed primary-key column (literals with
  // the columns' exact representation) fixes the keys that can match, at most kMaxLookupKeys of
  // them. Sets lookup_keys_.
  static constexpr size_t kMaxLookupKeys = 10000;
  void DetectPointLookup() {
    if (!layout_.primary_key || dv_merge_level0_ || layout_.key_columns.empty()) return;
    auto fixed =
        KeysFixedByFilters(*schema_, layout_.key_columns, options_.filters, kMaxLookupKeys);
    if (!fixed) return;
    std::vector<Row> keys = std::move(*fixed);
    // Each key once, in key order (an IN list may repeat a value).
    std::sort(keys.begin(), keys.end(),
              [](const Row& a, const Row& b) { return datafile::CompareKeys(a, b) < 0; });
    keys.erase(
        std::unique(keys.begin(), keys.end(),
                    [](const Row& a, const Row& b) { return datafile::CompareKeys(a, b) == 0; }),
        keys.end());
    lookup_keys_ = std::move(keys);
    point_lookup_ = true;
  }

  // Point lookups in one split: for each key, each file whose key range holds it is decoded once
  // into the process-wide cache, sorted by key, and binary-searched; the found records are
  // merged.
  Status LookupSplit(const DataSplit& split, RowBatch* batch) {
    TRIB_ASSIGN_OR_RETURN(auto mf, merge::MakeMergeFunction(merge_config_, *schema_));
    // Each file's bloom filters (Paimon's file index), loaded once for every key: a file they
    // rule a key out of is not read for it. A missing or damaged index only loses the shortcut.
    std::vector<std::shared_ptr<const datafile::DataFileIndex>> indexes(split.files.size());
    for (size_t i = 0; file_index_read_ && i < split.files.size(); i++) {
      const auto& f = split.files[i];
      if (f.schema_id != schema_->id || (!f.embedded_file_index && f.extra_files.empty())) continue;
      const std::string path = DataFilePath(split, f);
      auto index = datafile::DataFileIndex::Load(f, path.substr(0, path.rfind('/')));
      if (index.ok()) indexes[i] = std::move(*index);
    }
    auto ruled_out = [&](size_t i, const Row& key) {
      if (!indexes[i]) return false;
      for (size_t k = 0; k < layout_.key_columns.size(); k++) {
        const Field& field = schema_->fields[layout_.key_columns[k]];
        if (!indexes[i]->MightContain(field.name, key[k], field.type)) return true;
      }
      return false;
    };
    // A deletion-vector table: files above level 0, less the rows their vectors delete.
    std::vector<std::shared_ptr<const format::DeletionVector>> vectors(split.files.size());
    for (size_t i = 0; dv_enabled_ && i < split.files.size(); i++) {
      TRIB_ASSIGN_OR_RETURN(vectors[i], DeletionVectorOf(split, split.pbytes, split.files[i]));
    }
    for (const Row& key : lookup_keys_) {
      std::vector<merge::KeyValue> found;
      for (size_t i = 0; i < split.files.size(); i++) {
        const auto& f = split.files[i];
        if ((dv_enabled_ && f.level == 0) || ruled_out(i, key)) continue;
        TRIB_ASSIGN_OR_RETURN(const std::vector<Field>* file_fields, FileFields(f));
        if (vectors[i]) {
          TRIB_ASSIGN_OR_RETURN(
              auto sorted, datafile::LoadSortedFile(DataFilePath(split, f), layout_, f, schema_->id,
                                                    file_fields));
          TRIB_RETURN_NOT_OK(datafile::SearchSorted(*sorted, layout_, key, &found, nullptr, nullptr,
                                                    &vectors[i]->positions()));
          continue;
        }
        TRIB_RETURN_NOT_OK(FindKeyInFile(DataFilePath(split, f), layout_, f, schema_->id,
                                         file_fields, key, &found));
      }
      if (found.empty()) continue;
      TRIB_ASSIGN_OR_RETURN(auto row, MergeFound(std::move(found), merge_config_, mf.get()));
      if (row) Emit(std::move(*row), batch);
    }
    return Status::OK();
  }
  // Whether a merge of the split's files has more sorted runs than 'sort-spill-threshold': it
  // then goes through the row merge, which spills (the column merges hold every file's columns).
  bool OverSpillThreshold(const DataSplit& split) const {
    std::vector<int32_t> levels;
    int64_t rows = 0;
    for (const auto& f : split.files) {
      levels.push_back(f.level);
      rows += f.row_count;
    }
    return sort_spill_.Spills(levels, rows);
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
  bool ColumnPath() const override {
    return !options_.limit && !data_evolution_ && !options_.row_tracking && !point_lookup_;
  }
  // A deletion-vector table's split as column batches: each file above level 0 read column by
  // column as an append file is (row groups skipped by statistics, filter columns decoded
  // first), its vector's positions dropped with the retractions and the rows failing the
  // filters; no merge, no key comparison. A file this path does not read (another schema,
  // partial columns, not Parquet) goes through ReadSplit's rows.
  Status ReadDeletionVectorSplitColumns(const DataSplit& split, std::vector<ColumnBatch>* out) {
    for (const auto& f : split.files) {
      if (f.level == 0) continue;
      std::optional<std::vector<ColumnBatch>> batches;
      TRIB_ASSIGN_OR_RETURN(auto dv, DeletionVectorOf(split, split.pbytes, f));
      if (f.schema_id == schema_->id && !f.write_cols) {
        TRIB_ASSIGN_OR_RETURN(
            batches,
            ReadDataFileColumns(
                {DataFilePath(split, f), f.row_count, f.delete_row_count.value_or(-1)}, layout_,
                projection_, &skip_filters_, &options_.filters, dv ? &dv->positions() : nullptr));
      }
      if (!batches) {
        DataSplit one = split;
        one.files = {f};
        RowBatch rows;
        TRIB_RETURN_NOT_OK(ReadSplit(one, &rows));
        out->push_back(RowsToColumns(rows, output_fields_));
        continue;
      }
      for (auto& batch : *batches) out->push_back(std::move(batch));
    }
    return Status::OK();
  }
  // One split as column batches: files that need no merge (append files, a primary-key bucket
  // of one file) column by column when they are Parquet files of the read schema, everything
  // else through ReadSplit's rows.
  Status ReadSplitColumns(const DataSplit& split, std::vector<ColumnBatch>* out) override {
    if (dv_enabled_ && layout_.primary_key) {
      if (!dv_merge_level0_ || std::none_of(split.files.begin(), split.files.end(),
                                            [](const auto& f) { return f.level == 0; })) {
        return ReadDeletionVectorSplitColumns(split, out);
      }
      RowBatch rows;
      TRIB_RETURN_NOT_OK(ReadSplit(split, &rows));
      out->push_back(RowsToColumns(rows, output_fields_));
      return Status::OK();
    }
    if (!layout_.primary_key || split.files.size() == 1) {
      for (const auto& f : split.files) {
        std::optional<std::vector<ColumnBatch>> batches;
        if (f.schema_id == schema_->id && !f.write_cols) {
          TRIB_ASSIGN_OR_RETURN(
              batches, ReadDataFileColumns(
                           {DataFilePath(split, f), f.row_count, f.delete_row_count.value_or(-1)},
                           layout_, projection_, &skip_filters_, &options_.filters));
        }
        if (batches) {
          for (auto& b : *batches) out->push_back(std::move(b));
          continue;
        }
        DataSplit one = split;
        one.files = {f};
        RowBatch rows;
        TRIB_RETURN_NOT_OK(ReadSplit(one, &rows));
        out->push_back(RowsToColumns(rows, output_fields_));
      }
      return Status::OK();
    }
    const bool spills = OverSpillThreshold(split);
    if (!spills && DeduplicatesByColumns(split)) {
      // Merged on the key, sequence and kind columns; only the winners' values are gathered.
      std::vector<const meta::DataFileMeta*> files;
      for (const auto& f : split.files) files.push_back(&f);
      std::stable_sort(files.begin(), files.end(), [](const auto* a, const auto* b) {
        return a->max_sequence_number < b->max_sequence_number;
      });
      std::vector<DataFileRef> paths;
      for (const auto* f : files) paths.push_back({DataFilePath(split, *f), f->row_count});
      TRIB_ASSIGN_OR_RETURN(
          auto merged,
          ReadDeduplicatedColumns(paths, layout_, projection_, &skip_filters_, &options_.filters));
      if (merged) {
        out->push_back(std::move(*merged));
        return Status::OK();
      }
    }
    if (!spills) {
      // The merged records passing the filters, their projected columns gathered, a chunk of
      // keys at a time (what the merge holds of the files' values is one chunk's).
      ColumnBatch batch = ProjectedBatch();
      TRIB_ASSIGN_OR_RETURN(bool merged,
                            MergeSplitByColumns(split, [&](const MergedColumns& chunk) {
                              AppendMerged(chunk, &batch);
                              return true;
                            }));
      if (merged) {
        out->push_back(std::move(batch));
        return Status::OK();
      }
    }
    RowBatch rows;
    TRIB_RETURN_NOT_OK(ReadSplit(split, &rows));
    out->push_back(RowsToColumns(rows, output_fields_));
    return Status::OK();
  }

  // The columns projected, with no rows.
  ColumnBatch ProjectedBatch() const {
    ColumnBatch batch;
    for (int c : projection_) {
      ColumnVector v;
      v.type = layout_.fields[c].type;
      v.rep = ColumnVector::RepOf(v.type);
      batch.columns.push_back(std::move(v));
    }
    return batch;
  }

  // Appends to *batch the merged records of `chunk` that pass the filters, projected.
  void AppendMerged(const MergedColumns& chunk, ColumnBatch* batch) const {
    const auto& m = chunk.merged;
    for (size_t k = 0; k < m.size(); k++) {
      bool keep = true;
      for (const auto& p : options_.filters) {
        keep = keep && EvalPredicate(p, MergedValue(chunk, p.column, k));
      }
      if (!keep) continue;
      for (size_t i = 0; i < projection_.size(); i++) {
        const int c = projection_[i];
        if (c < static_cast<int>(m.computed.size()) && m.computed[c]) {
          batch->columns[i].AppendRow(*m.computed[c], k);
        } else {
          batch->columns[i].AppendRow(chunk.columns[c], m.SourceRow(c, k));
        }
      }
      batch->num_rows++;
    }
  }

  // Value of column c of merged record k.
  static Value MergedValue(const MergedColumns& m, size_t c, size_t k) {
    if (c < m.merged.computed.size() && m.merged.computed[c]) return m.merged.computed[c]->Get(k);
    return m.columns[c].Get(m.merged.SourceRow(c, k));
  }

  // How a merged bucket of a table whose merge runs column by column (ColumnMergePlan) is merged
  // by chunks of keys: its files, oldest first, the plan, and the table columns to read (nullopt:
  // every one). Nullopt when the bucket needs the row merge (files of another schema, of
  // partial-column writes or of another format, merge options the plan does not take).
  struct ChunkMerge {
    std::vector<DataFileRef> paths;
    std::unique_ptr<ColumnMergePlan> plan;
    std::optional<std::vector<bool>> needed;
  };
  Result<std::optional<ChunkMerge>> ChunkMergeOf(const DataSplit& split) const {
    using Out = std::optional<ChunkMerge>;
    if (!merge_config_ || dv_enabled_ || point_lookup_ || data_evolution_ ||
        merge_config_->lookup_levels) {
      return Out();
    }
    ChunkMerge m;
    TRIB_ASSIGN_OR_RETURN(auto plan, ColumnMergePlan::Make(*merge_config_, layout_.fields,
                                                           /*keep_retracts=*/false));
    if (!plan) return Out();
    m.plan = std::make_unique<ColumnMergePlan>(std::move(*plan));
    std::vector<const meta::DataFileMeta*> files;
    for (const auto& f : split.files) {
      if (f.schema_id != schema_->id || f.write_cols) return Out();
      files.push_back(&f);
    }
    // Older files first: a later file wins equal sequence numbers, as in the row merge.
    std::stable_sort(files.begin(), files.end(), [](const auto* a, const auto* b) {
      return a->max_sequence_number < b->max_sequence_number;
    });
    for (const auto* f : files) m.paths.push_back({DataFilePath(split, *f), f->row_count});
    // Aggregates fold every column, as the row merge does (an aggregate that fails fails the
    // read, whichever columns it returns).
    if (m.plan->kind() != ColumnMergePlan::Kind::kAggregate) {
      std::vector<bool> needed(layout_.fields.size(), false);
      for (int i : projection_) needed[i] = true;
      for (const auto& p : options_.filters) needed[p.column] = true;
      for (int k : layout_.key_columns) needed[k] = true;
      m.needed = std::move(needed);
    }
    return Out(std::move(m));
  }

  // A merged bucket merged by ChunkMergeOf, the merged records without retractions handed to
  // fn a chunk of keys at a time (datafile::MergeFilesByColumnChunks). False, fn never called,
  // when the bucket needs the row merge. No retraction comes out: deduplicate drops winning
  // ones (keep_retracts false), the other engines' results are never one.
  Result<bool> MergeSplitByColumns(const DataSplit& split,
                                   const std::function<Result<bool>(MergedColumns&)>& fn) {
    TRIB_ASSIGN_OR_RETURN(auto m, ChunkMergeOf(split));
    if (!m) return false;
    return MergeFilesByColumnChunks(m->paths, layout_, m->plan.get(),
                                    m->needed ? &*m->needed : nullptr, &skip_filters_,
                                    MergeChunkKeys(), fn);
  }

  // A merged bucket's chunks (MergedChunkReader), each filtered and projected into a batch
  // handed out up to `max_rows` rows at a time.
  class ChunkSlices : public MergedSlices {
   public:
    ChunkSlices(const SplitReadImpl* read, std::unique_ptr<datafile::MergedChunkReader> chunks)
        : read_(read), chunks_(std::move(chunks)) {}
    Result<bool> Next(size_t max_rows, ColumnBatch* out) override {
      while (offset_ >= batch_.num_rows) {
        if (!chunks_) return false;
        TRIB_ASSIGN_OR_RETURN(MergedColumns * chunk, chunks_->Next());
        if (chunk == nullptr) {
          chunks_.reset();
          return false;
        }
        batch_ = read_->ProjectedBatch();
        read_->AppendMerged(*chunk, &batch_);
        offset_ = 0;
      }
      if (offset_ == 0 && batch_.num_rows <= max_rows) {
        *out = std::move(batch_);
        batch_ = ColumnBatch();
        return true;
      }
      const size_t end = std::min(batch_.num_rows, offset_ + max_rows);
      *out = read_->ProjectedBatch();
      for (size_t i = 0; i < out->columns.size(); i++) {
        out->columns[i].Reserve(end - offset_);
        for (size_t r = offset_; r < end; r++) out->columns[i].AppendRow(batch_.columns[i], r);
      }
      out->num_rows = end - offset_;
      offset_ = end;
      return true;
    }

   private:
    const SplitReadImpl* read_;
    std::unique_ptr<datafile::MergedChunkReader> chunks_;
    ColumnBatch batch_;  // the chunk's batch being handed out
    size_t offset_ = 0;  // its rows handed out
  };

  Result<std::unique_ptr<MergedSlices>> OpenMergedSlices(const DataSplit& split) override {
    using Out = std::unique_ptr<MergedSlices>;
    if (!layout_.primary_key || split.files.size() <= 1 || OverSpillThreshold(split)) {
      return Out();
    }
    TRIB_ASSIGN_OR_RETURN(auto m, ChunkMergeOf(split));
    if (!m) return Out();
    TRIB_ASSIGN_OR_RETURN(auto chunks, datafile::MergedChunkReader::Open(
                                           m->paths, layout_, std::move(m->plan),
                                           std::move(m->needed), &skip_filters_, MergeChunkKeys()));
    if (!chunks) return Out();
    return Out(new ChunkSlices(this, std::move(chunks)));
  }

  // Whether a merged bucket can be read by ReadDeduplicatedColumns: the deduplicate engine
  // without sequence fields or delete options, every file of the read schema and whole rows.
  bool DeduplicatesByColumns(const DataSplit& split) const {
    if (!merge_config_ || merge_config_->engine != "deduplicate" ||
        !merge_config_->sequence_fields.empty() || merge_config_->ignore_delete ||
        merge_config_->remove_record_on_delete) {
      return false;
    }
    return std::all_of(split.files.begin(), split.files.end(),
                       [&](const auto& f) { return f.schema_id == schema_->id && !f.write_cols; });
  }

  bool SharesState() const override { return options_.limit.has_value() || point_lookup_; }
  bool deletion_vectors() const override { return dv_enabled_ && layout_.primary_key; }
  void set_emitted(int64_t rows) override { emitted_ = rows; }
  const FileLayout& layout() const override { return layout_; }

  Result<std::unique_ptr<ColumnFileReader>> OpenSlices(const DataSplit& split,
                                                       const meta::DataFileMeta& f) override {
    if (f.schema_id != schema_->id || f.write_cols) return std::unique_ptr<ColumnFileReader>();
    return ColumnFileReader::Open(
        {DataFilePath(split, f), f.row_count, f.delete_row_count.value_or(-1)}, layout_,
        projection_, &skip_filters_, &options_.filters);
  }

  // Adds `r` to the batch when it passes the filters (and the LIMIT is not reached: the batch
  // holds the rows of the split being read, `emitted_` those of earlier splits).
  void Emit(Row&& r, RowBatch* batch) {
    if (options_.limit && emitted_ + static_cast<int64_t>(batch->rows.size()) >= *options_.limit) {
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
  Status ReadDataEvolutionSplit(const DataSplit& split, RowBatch* batch) {
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
            supplies[fi][c] = !f.write_cols || std::find(f.write_cols->begin(), f.write_cols->end(),
                                                         fld.name) != f.write_cols->end();
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

  Status ReadSplit(const DataSplit& split, RowBatch* batch) override {
    if (data_evolution_) return ReadDataEvolutionSplit(split, batch);
    if (!layout_.primary_key && options_.row_tracking) return ReadRowTrackingSplit(split, batch);
    if (!layout_.primary_key) {
      for (const auto& f : split.files) {
        TRIB_ASSIGN_OR_RETURN(auto records, ReadFile(split, f, /*filter_rows=*/true));
        for (auto& kv : records) Emit(std::move(kv.value), batch);
      }
      return Status::OK();
    }
    if (point_lookup_) return LookupSplit(split, batch);  // (deletion vectors: no level 0)
    const bool level0 = std::any_of(split.files.begin(), split.files.end(),
                                    [](const auto& f) { return f.level == 0; });
    if (dv_enabled_ && !(dv_merge_level0_ && level0)) {
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
    if (!OverSpillThreshold(split)) {
      TRIB_ASSIGN_OR_RETURN(
          bool merged, MergeSplitByColumns(split, [&](const MergedColumns& chunk) {
            Row row;
            for (size_t k = 0; k < chunk.merged.size(); k++) {
              row.assign(layout_.fields.size(), Value());
              for (size_t c = 0; c < row.size(); c++) {
                if (chunk.columns[c].size() == 0) continue;  // not read
                row[c] = MergedValue(chunk, c, k);
              }
              Emit(std::move(row), batch);
            }
            // A LIMIT reached: the rest of the bucket is not merged.
            return !options_.limit ||
                   emitted_ + static_cast<int64_t>(batch->rows.size()) < *options_.limit;
          }));
      if (merged) return Status::OK();
    }
    std::vector<meta::DataFileMeta> files = split.files;
    std::stable_sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
      return a.max_sequence_number < b.max_sequence_number;
    });
    // Each file read whole when the merge opens it; past 'sort-spill-threshold' sorted runs the
    // smallest consecutive ones are merged through a spill file first (datafile/run_spill.h),
    // except for files of partial-column writes (their records carry which columns they set),
    // and the files are read a slice at a time.
    const bool spills = OverSpillThreshold(split);
    std::vector<datafile::MergeInput> inputs;
    for (const auto& f : files) {
      datafile::MergeInput in;
      in.level = f.level;
      in.bytes = f.file_size;
      in.rows = f.row_count;
      in.open = [this, &split, &f, spills]() -> Result<std::unique_ptr<merge::RecordSource>> {
        if (spills && !dv_enabled_ && f.schema_id == schema_->id && !f.write_cols) {
          // Past the threshold a slice of each file at a time, as a compaction reads them.
          TRIB_ASSIGN_OR_RETURN(
              auto sliced,
              datafile::OpenSlicedRecords({DataFilePath(split, f), f.row_count}, layout_, f.level));
          if (sliced) return sliced;
        }
        TRIB_ASSIGN_OR_RETURN(auto records, ReadFile(split, f));
        if (dv_enabled_) {
          // 'deletion-vectors.merge-on-read': the level-0 records merged into what the other
          // files hold less their vectors' rows (each key once there).
          TRIB_ASSIGN_OR_RETURN(auto dv, DeletionVectorOf(split, split.pbytes, f));
          if (dv) merge::DropDeletedRows(&records, [&](int64_t i) { return dv->IsDeleted(i); });
        }
        return std::unique_ptr<merge::RecordSource>(
            std::make_unique<merge::VectorSource>(std::move(records)));
      };
      inputs.push_back(std::move(in));
    }
    const bool partial = std::any_of(files.begin(), files.end(),
                                     [](const auto& f) { return f.write_cols.has_value(); });
    const auto& config = merge_config_;
    const merge::KeyComparator cmp(layout_.key_columns);
    const merge::SequenceOrder order(config);
    TRIB_ASSIGN_OR_RETURN(
        auto sources,
        datafile::OpenMergeSources(std::move(inputs), partial ? datafile::SortSpill{} : sort_spill_,
                                   layout_, cmp, order));
    TRIB_ASSIGN_OR_RETURN(auto mf, merge::MakeMergeFunction(merge_config_, *schema_));
    merge::SortMergeReader reader(std::move(sources), cmp, order, mf.get());
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
  Status ReadRowTrackingSplit(const DataSplit& split, RowBatch* batch) {
    FileLayout sys;
    sys.fields = RowTrackingFields();
    for (auto& f : sys.fields) f.type = f.type.WithNullable(true);
    for (const auto& f : split.files) {
      TRIB_ASSIGN_OR_RETURN(auto records, ReadFile(split, f));
      std::vector<merge::KeyValue> stored;
      bool has_stored =
          f.write_cols &&
          std::any_of(f.write_cols->begin(), f.write_cols->end(), [](const std::string& c) {
            return c == "_ROW_ID" || c == "_SEQUENCE_NUMBER";
          });
      if (has_stored) {
        TRIB_ASSIGN_OR_RETURN(stored,
                              ReadDataFile({DataFilePath(split, f), f.row_count}, sys, f.level));
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

 private:
  std::string path_;
  std::string meta_path_;
  std::shared_ptr<const TableSchema> schema_;
  const ScanOptions& options_;
  FileLayout layout_;
  std::vector<int> projection_;
  bool identity_projection_ = false;  // projection_ is 0, 1, ..., every column in order
  std::vector<Field> output_fields_;
  const TimeZone* time_zone_;
  DeletionVectorIndex dv_ranges_;
  bool dv_enabled_ = false;
  bool data_evolution_ = false;
  bool file_index_read_ = true;
  std::shared_ptr<const merge::MergeConfig> merge_config_;
  datafile::SortSpill sort_spill_;  // 'sort-spill-threshold' (primary-key tables)
  std::vector<bool> needed_;        // empty: decode every column
  std::vector<Row> lookup_keys_;    // point lookups: the keys the filters fix
  bool point_lookup_ = false;
  // 'deletion-vectors.merge-on-read' (a streaming read's first plan sets it): a bucket's level-0
  // files are merged into the rest instead of left out.
  bool dv_merge_level0_ = false;
  std::vector<Predicate> skip_filters_;
  meta::FileSchemas file_schemas_{meta_path_, schema_->id};
  int64_t emitted_ = 0;  // rows of earlier splits (set_emitted)
};

}  // namespace

Result<std::unique_ptr<SplitRead>> SplitRead::Make(Config config) {
  auto r = std::make_unique<SplitReadImpl>(std::move(config));
  TRIB_RETURN_NOT_OK(r->Init());
  return std::unique_ptr<SplitRead>(std::move(r));
}

}  // namespace tributary::read
