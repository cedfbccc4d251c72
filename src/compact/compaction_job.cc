#include "compact/compaction_job.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <set>

#include "common/memory_budget.h"
#include "compact/deletion_vectors.h"
#include "compact/full_changelog.h"
#include "datafile/point_lookup.h"
#include "datafile/run_spill.h"
#include "datafile/test_hooks.h"
#include "format/parquet/writer.h"
#include "io/file_cache.h"
#include "io/file_system.h"
#include "merge/merge_config.h"
#include "merge/sort_merge_reader.h"
#include "meta/schema_manager.h"
#include "meta/snapshot_reader.h"
#include "options/core_options.h"
#include "options/option_keys.h"

namespace tributary::compact {

using datafile::CompactFilesByChunks;
using datafile::DataFileRef;
using datafile::DataFileWriter;
using datafile::FileLayout;
using datafile::GetTestHooks;
using datafile::ReadDataFile;
using io::FileCache;
using merge::ColumnMergePlan;
using meta::ResolveExternalPath;
using options::FileFormatOptions;

namespace {
// Reads one input file of a merge: at its external path if it has one, with the columns of the
// schema it was written with (matched by field id and cast), as the read path does.
Result<std::vector<merge::KeyValue>> ReadInput(
    const std::string& table_path, const TableSchema& schema, const std::string& bucket_dir,
    const FileLayout& layout, const meta::DataFileMeta& f, const std::set<int64_t>* deleted) {
  std::string path = f.external_path ? ResolveExternalPath(table_path, *f.external_path)
                                     : io::JoinPath(bucket_dir, f.file_name);
  std::shared_ptr<const TableSchema> file_schema;
  if (f.schema_id != schema.id) {
    TRIB_ASSIGN_OR_RETURN(file_schema, meta::SchemaManager(table_path).Read(f.schema_id));
  }
  TRIB_ASSIGN_OR_RETURN(std::vector<merge::KeyValue> records,
                        ReadDataFile({path, f.row_count}, layout, f.level, f.write_cols,
                                     file_schema ? &file_schema->fields : nullptr));
  if (deleted && !deleted->empty()) {
    merge::DropDeletedRows(&records, [&](int64_t i) { return deleted->count(i) > 0; });
  }
  return records;
}
// 'sort-spill-threshold' of a compaction, spilling to `dirs` (empty: $TMPDIR, else /tmp).
Result<datafile::SortSpill> SortSpillOf(const TableSchema& schema,
                                        const std::vector<std::string>& dirs = {}) {
  TRIB_ASSIGN_OR_RETURN(auto core, options::CoreOptions::From(schema));
  return datafile::SortSpill::Of(core, dirs);
}

// Whether merging `files` takes more sorted runs than 'sort-spill-threshold' (the row merge then
// spills; the column merges hold every input at once).
Result<bool> OverSpillThreshold(const TableSchema& schema,
                                const std::vector<meta::DataFileMeta>& files) {
  TRIB_ASSIGN_OR_RETURN(auto spill, SortSpillOf(schema));
  std::vector<int32_t> levels;
  int64_t rows = 0;
  for (const auto& f : files) {
    levels.push_back(f.level);
    rows += f.row_count;
  }
  return spill.Spills(levels, rows);
}

// A merge over the files of one bucket: the files' records (older files first, so the loser
// tree's source order breaks sequence ties toward newer ones) through the table's merge function.
struct BucketMerge {
  std::unique_ptr<merge::MergeFunction> merge_fn;
  std::unique_ptr<merge::SortMergeReader> reader;

  // Lookup tables only: what the merge looks keys up in below the merged levels.
  std::unique_ptr<datafile::BucketFileSearch> below;

  // `below`: the bucket's files under the output level (a lookup table's merge of level-0
  // records takes the key's value from there when no merged file above level 0 holds it).
  // `vectors`: a deletion-vector table's (see RunCompaction). `spill_dirs`: where a merge past
  // 'sort-spill-threshold' spills.
  static Result<BucketMerge> Open(const std::string& table_path, const TableSchema& schema,
                                  const std::string& bucket_dir, const FileLayout& layout,
                                  std::vector<meta::DataFileMeta> files,
                                  const std::vector<meta::DataFileMeta>* below = nullptr,
                                  BucketDeletionVectors* vectors = nullptr,
                                  const std::vector<std::string>& spill_dirs = {}) {
    std::stable_sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
      return a.max_sequence_number < b.max_sequence_number;
    });
    std::vector<datafile::MergeInput> inputs;
    bool partial = false;
    for (const auto& f : files) {
      partial = partial || f.write_cols.has_value();
      datafile::MergeInput in;
      in.level = f.level;
      in.bytes = f.file_size;
      in.rows = f.row_count;
      in.open = [&table_path, &schema, &bucket_dir, &layout, f,
                 vectors]() -> Result<std::unique_ptr<merge::RecordSource>> {
        const std::set<int64_t>* deleted = vectors ? vectors->Of(f.file_name) : nullptr;
        if (f.schema_id == schema.id && !f.write_cols) {
          // A slice of the file at a time (a file of another schema or of partial-column writes
          // is read whole, its columns matched and cast as the read path does).
          const std::string path = f.external_path
                                       ? ResolveExternalPath(table_path, *f.external_path)
                                       : io::JoinPath(bucket_dir, f.file_name);
          TRIB_ASSIGN_OR_RETURN(auto sliced, datafile::OpenSlicedRecords({path, f.row_count},
                                                                         layout, f.level, deleted));
          if (sliced) return sliced;
        }
        TRIB_ASSIGN_OR_RETURN(auto records,
                              ReadInput(table_path, schema, bucket_dir, layout, f, deleted));
        return std::unique_ptr<merge::RecordSource>(
            std::make_unique<merge::VectorSource>(std::move(records)));
      };
      inputs.push_back(std::move(in));
    }
    BucketMerge m;
    TRIB_ASSIGN_OR_RETURN(auto config, merge::MergeConfig::Make(schema));
    // Past 'sort-spill-threshold' sorted runs the smallest consecutive inputs are merged through
    // a spill file first (not files of partial-column writes: their records carry which columns
    // they set).
    datafile::SortSpill spill;
    if (!partial) {
      TRIB_ASSIGN_OR_RETURN(spill, SortSpillOf(schema, spill_dirs));
    }
    TRIB_ASSIGN_OR_RETURN(auto sources,
                          datafile::OpenMergeSources(std::move(inputs), spill, layout,
                                                     merge::KeyComparator(layout.key_columns),
                                                     merge::SequenceOrder(config)));
    if (vectors && !config->lookup_levels) {
      // Every engine looks below for the keys only level 0 holds: what it finds is marked.
      auto copy = std::make_shared<merge::MergeConfig>(*config);
      copy->lookup_levels = true;
      config = std::move(copy);
    }
    merge::BelowLookup lookup;
    if (config->lookup_levels && below && !below->empty()) {
      m.below = std::make_unique<datafile::BucketFileSearch>(table_path, bucket_dir, layout, schema,
                                                             *below);
      const std::vector<int> key_columns = layout.key_columns;
      datafile::BucketFileSearch* search = m.below.get();
      if (vectors) {
        search->SetDeletionVectors(
            [vectors](const std::string& file) { return vectors->Of(file); });
        lookup = [search, key_columns,
                  vectors](const Row& value) -> Result<std::optional<merge::KeyValue>> {
          Row key;
          for (int c : key_columns) key.push_back(value[c]);
          TRIB_ASSIGN_OR_RETURN(auto found, search->FindNewestPositioned(key));
          if (!found) return std::optional<merge::KeyValue>();
          vectors->Mark(found->file->file_name, found->position);
          return std::optional<merge::KeyValue>(std::move(found->record));
        };
      } else {
        lookup = [search, key_columns](const Row& value) {
          Row key;
          for (int c : key_columns) key.push_back(value[c]);
          return search->FindNewest(key);
        };
      }
    }
    TRIB_ASSIGN_OR_RETURN(m.merge_fn, merge::MakeMergeFunction(config, schema, std::move(lookup)));
    m.reader = std::make_unique<merge::SortMergeReader>(
        std::move(sources), merge::KeyComparator(layout.key_columns), merge::SequenceOrder(config),
        m.merge_fn.get());
    return m;
  }
};

// A compaction column by column (ColumnMergePlan): the files are merged on their key, sequence
// and kind columns and the merged records' columns handed to the writer, with no row per
// record. False (nothing written) when the table or its files need the row merge: merge options
// the plan does not take, files of an older schema, of partial-column writes or of another
// format, a key the plan sends to the row merge.
Result<bool> CompactColumns(const std::string& table_path, const TableSchema& schema,
                            const std::string& bucket_dir, const FileLayout& layout,
                            std::vector<meta::DataFileMeta> files, bool drop_delete,
                            DataFileWriter* writer) {
  if (!writer->CanWriteColumns()) return false;
  TRIB_ASSIGN_OR_RETURN(bool over, OverSpillThreshold(schema, files));
  if (over) return false;
  TRIB_ASSIGN_OR_RETURN(auto config, merge::MergeConfig::Make(schema));
  // A lookup table's merge takes only some of a key's records (LookupLevelsMerge): by rows.
  if (config->lookup_levels) return false;
  TRIB_ASSIGN_OR_RETURN(auto plan, ColumnMergePlan::Make(*config, layout.fields, !drop_delete));
  if (!plan) return false;
  // Older files first, as BucketMerge orders them: a later file wins sequence ties.
  std::stable_sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return a.max_sequence_number < b.max_sequence_number;
  });
  std::vector<DataFileRef> paths;
  for (const auto& f : files) {
    if (f.schema_id != schema.id || f.write_cols) return false;
    paths.push_back({f.external_path ? ResolveExternalPath(table_path, *f.external_path)
                                     : io::JoinPath(bucket_dir, f.file_name),
                     f.row_count});
  }
  int64_t records = 0;
  for (const auto& f : files) records += f.row_count;
  // What the merge holds is charged to the process's budget while it runs; a merge the budget
  // cannot hold (writers' buffers and queries holding it) merges rows instead, a slice of each
  // file at a time (not charged: bounded by the slices).
  MemoryCharge charge;
  // The merge needs only the keys, sequences and kinds whole (about 32 bytes a record); values
  // are read and written a chunk at a time: of merged records for deduplicate and first-row, of
  // keys (each holding at most one record of each file) for partial-update and aggregation.
  const size_t hook_rows = GetTestHooks().compaction_chunk_rows;
  const size_t chunk_rows = hook_rows > 0 ? hook_rows : datafile::kCompactionChunkKeys;
  const bool reads_values = plan->kind() == ColumnMergePlan::Kind::kPartialUpdate ||
                            plan->kind() == ColumnMergePlan::Kind::kAggregate;
  // (A chunk holds at most every record.)
  const int64_t chunk_records =
      std::min<int64_t>(records, static_cast<int64_t>(chunk_rows) *
                                     (reads_values ? static_cast<int64_t>(files.size()) : 1));
  // Partial-update and aggregation merges of more records than a sixteenth of the process's
  // budget holds at 64 bytes a record (524,288 at the default 512 MiB; buckets compact in
  // parallel) merge rows, a slice of each input at a time: bounded by the slices, where the
  // keys held whole grow with the inputs (2 x 1M records: 81 MiB against 125-131 MiB).
  if (reads_values && records > MemoryBudget::Instance().total() / 16 / 64) return false;
  charge.Set(records * 32 + chunk_records * 64);
  if (MemoryBudget::Instance().BuffersOverLimit()) return false;
  return CompactFilesByChunks(paths, layout, &*plan, chunk_rows, writer);
}

// A deletion-vector compaction of a plain deduplicate table whose key is one integer column
// and whose inputs have no vector (Paimon's lookup compaction, by key columns only): the keys of
// the unit's level-0 files that none of its files above level 0 holds are looked up in the
// files below the output level (lowest level first, each file's key column from the file
// cache), and the live record found is marked deleted: the newest record wins whatever it was,
// so the merge itself can then run column by column. False (nothing marked) when the unit or a
// file needs the row path, which looks keys up while merging.
Result<bool> MarkReplacedIntKeys(const std::string& table_path, const TableSchema& schema,
                                 const std::string& bucket_dir, const FileLayout& layout,
                                 const merge::MergeConfig& config, const CompactUnit& unit,
                                 BucketDeletionVectors* vectors) {
  if (!config.IsPlainDeduplicate() || config.ignore_delete || config.engine != "deduplicate") {
    return false;
  }
  auto ref = [&](const meta::DataFileMeta& f) {
    return DataFileRef{f.external_path ? ResolveExternalPath(table_path, *f.external_path)
                                       : io::JoinPath(bucket_dir, f.file_name),
                       f.row_count};
  };
  for (const auto& f : unit.files) {
    if (vectors->Of(f.file_name) || f.schema_id != schema.id || f.write_cols) return false;
  }
  for (const auto& f : unit.below) {
    if (f.schema_id != schema.id || f.write_cols || f.level == 0) return false;
  }
  std::vector<int64_t> fresh, upper;
  for (const auto& f : unit.files) {
    TRIB_ASSIGN_OR_RETURN(auto keys, datafile::ReadIntKeys(ref(f), layout));
    if (!keys) return false;
    auto& into = f.level == 0 ? fresh : upper;
    into.insert(into.end(), keys->begin(), keys->end());
  }
  std::sort(fresh.begin(), fresh.end());
  fresh.erase(std::unique(fresh.begin(), fresh.end()), fresh.end());
  std::sort(upper.begin(), upper.end());
  std::vector<int64_t> keys;
  std::set_difference(fresh.begin(), fresh.end(), upper.begin(), upper.end(),
                      std::back_inserter(keys));
  std::vector<const meta::DataFileMeta*> below;
  for (const auto& f : unit.below) below.push_back(&f);
  std::stable_sort(below.begin(), below.end(),
                   [](const auto* a, const auto* b) { return a->level < b->level; });
  for (const auto* f : below) {
    if (keys.empty()) break;
    TRIB_ASSIGN_OR_RETURN(auto positions, datafile::FindIntKeyPositions(ref(*f), layout, keys));
    if (!positions) return false;
    const std::set<int64_t>* deleted = vectors->Of(f->file_name);
    std::vector<int64_t> left;
    for (size_t i = 0; i < keys.size(); i++) {
      const int64_t p = (*positions)[i];
      if (p >= 0 && !(deleted && deleted->count(p))) {
        vectors->Mark(f->file_name, p);
      } else {
        left.push_back(keys[i]);
      }
    }
    keys = std::move(left);
  }
  return true;
}

}  // namespace

namespace {

Result<CompactionResult> Compact(const std::string& table_path, const TableSchema& schema,
                                 const std::string& bucket_dir, const CompactUnit& unit,
                                 int32_t highest_nonempty_level, int64_t target_file_size,
                                 const FileFormatOptions& format, meta::FileNamer* namer,
                                 BucketDeletionVectors* vectors,
                                 const std::vector<std::string>& spill_dirs) {
  FileLayout layout = FileLayout::Of(schema);
  CompactionResult result;
  result.before = unit.files;
  // With deletion vectors a retraction has done its work once the record it retracts is marked.
  bool drop_delete =
      unit.output_level != 0 && (vectors != nullptr || unit.output_level >= highest_nonempty_level);
  DataFileWriter writer(layout, bucket_dir, namer, target_file_size, unit.output_level,
                        meta::FileSource::kCompact, format);
  bool by_columns = !GetTestHooks().row_compaction && vectors == nullptr;
  if (!GetTestHooks().row_compaction && vectors != nullptr) {
    TRIB_ASSIGN_OR_RETURN(auto config, merge::MergeConfig::Make(schema));
    TRIB_ASSIGN_OR_RETURN(by_columns, MarkReplacedIntKeys(table_path, schema, bucket_dir, layout,
                                                          *config, unit, vectors));
    const meta::DataFileMeta& only = unit.files.front();
    if (by_columns && unit.files.size() == 1 && only.level == 0 && unit.output_level > 0 &&
        only.delete_row_count && *only.delete_row_count == 0) {
      // Paimon's upgrade: one level-0 file without retractions, its replaced rows marked, is
      // already what the merge would write: it moves to the output level as it is.
      writer.Abort();
      meta::DataFileMeta moved = only;
      moved.level = unit.output_level;
      result.after = {std::move(moved)};
      result.by_columns = true;
      return result;
    }
  }
  if (by_columns) {
    auto done =
        CompactColumns(table_path, schema, bucket_dir, layout, unit.files, drop_delete, &writer);
    if (!done.ok()) {
      writer.Abort();
      return done.status();
    }
    if (*done) {
      result.by_columns = true;
      TRIB_ASSIGN_OR_RETURN(result.after, writer.Finish());
      return result;
    }
  }
  TRIB_ASSIGN_OR_RETURN(BucketMerge m,
                        BucketMerge::Open(table_path, schema, bucket_dir, layout, unit.files,
                                          &unit.below, vectors, spill_dirs));
  merge::SortMergeReader& reader = *m.reader;
  merge::KeyValue kv;
  while (true) {
    auto more = reader.Next(&kv);
    if (!more.ok()) {
      writer.Abort();
      return more.status();
    }
    if (!*more) break;
    if (drop_delete && IsRetract(kv.kind)) continue;
    // Partial-column records are only compacted into the top level (see the writer's picker
    // use), where nothing older remains: what they did not write is NULL.
    kv.write_mask = nullptr;
    Status st = writer.Write(kv);
    if (!st.ok()) {
      writer.Abort();
      return st;
    }
  }
  TRIB_ASSIGN_OR_RETURN(result.after, writer.Finish());
  return result;
}

}  // namespace

Result<CompactionResult> RunCompaction(const std::string& table_path, const TableSchema& schema,
                                       const std::string& bucket_dir, const CompactUnit& unit,
                                       int32_t highest_nonempty_level, int64_t target_file_size,
                                       const FileFormatOptions& format, meta::FileNamer* namer,
                                       BucketDeletionVectors* vectors,
                                       const std::vector<std::string>& spill_dirs) {
  // A compaction reads each input once, whole, and (once committed) replaces it: what the cache
  // holds of an input (its mapping, decoded chunks, a merged read's winners) leaves it before the
  // compaction's own buffers are taken, and again at the end (the pages the job touched), rather
  // than stay in the process's memory until the commit or eviction. A later read maps it again.
  auto release_inputs = [&] {
    for (const auto& f : unit.files) {
      FileCache::Instance().EraseFile(f.external_path
                                          ? ResolveExternalPath(table_path, *f.external_path)
                                          : io::JoinPath(bucket_dir, f.file_name));
    }
  };
  release_inputs();
  // What the cache held of the inputs (a scan's decoded columns) goes back to the system before
  // the merge takes its buffers, which another arena may serve: not both at once.
  ReleaseFreedMemory();
  // Marks go to a copy, taken over only when the compaction succeeds.
  std::optional<BucketDeletionVectors> marked;
  if (vectors) marked = *vectors;
  auto result = Compact(table_path, schema, bucket_dir, unit, highest_nonempty_level,
                        target_file_size, format, namer, marked ? &*marked : nullptr, spill_dirs);
  if (result.ok() && vectors) {
    for (const auto& f : unit.files) marked->Remove(f.file_name);
    *vectors = std::move(*marked);
  }
  if (result.ok() && options::GetOrDefault(schema, options::kChangelogProducer) ==
                         options::ChangelogProducer::kFullCompaction) {
    // A compaction into the top level publishes what changed there since it was last written.
    auto core = options::CoreOptions::From(schema);
    if (!core.ok()) return core.status();
    if (unit.output_level == core->num_levels - 1) {
      std::vector<meta::DataFileMeta> top_before;
      for (const auto& f : unit.files) {
        if (f.level == unit.output_level) top_before.push_back(f);
      }
      meta::FileNamer changelog_namer(core->changelog_file_prefix, "");
      changelog_namer.set_external_dir(namer->external_dir());  // beside the data files
      auto changelog =
          WriteFullCompactionChangelog(table_path, schema, bucket_dir, top_before, result->after,
                                       unit.output_level, &changelog_namer);
      if (!changelog.ok()) {
        for (const auto& f : result->after) {
          datafile::RemoveDataFile(bucket_dir, f);
        }
        return changelog.status();
      }
      result->changelog = std::move(*changelog);
    }
  }
  release_inputs();
  // What the merge and the output held is freed: back to the system, not kept beside what the
  // next job takes.
  ReleaseFreedMemory();
  return result;
}

bool IsUpgraded(const CompactionResult& result, const meta::DataFileMeta& f) {
  return std::any_of(result.before.begin(), result.before.end(),
                     [&](const auto& b) { return b.file_name == f.file_name; });
}

Status DryRunMerge(const std::string& table_path, const TableSchema& schema,
                   const std::string& bucket_dir, const std::vector<meta::DataFileMeta>& files,
                   const std::vector<std::string>& spill_dirs) {
  FileLayout layout = FileLayout::Of(schema);
  TRIB_ASSIGN_OR_RETURN(BucketMerge m, BucketMerge::Open(table_path, schema, bucket_dir, layout,
                                                         files, nullptr, nullptr, spill_dirs));
  merge::SortMergeReader& reader = *m.reader;
  merge::KeyValue kv;
  while (true) {
    TRIB_ASSIGN_OR_RETURN(bool more, reader.Next(&kv));
    if (!more) return Status::OK();
  }
}

}  // namespace tributary::compact
