// The write path's entry point: NewFileStoreWriter checks what the table and the options ask for
// and makes a FileStoreWriter (file_store_writer.h).
#include "write/table_write.h"

#include "compact/deletion_vectors.h"
#include "options/option_keys.h"
#include "write/file_store_writer.h"

namespace tributary::write {

namespace {
// What a table's options ask of every writer that it cannot give (checked before any write).
Status CheckWritable(const TableSchema& schema) {
  // 'data-file.external-paths': roots Tributary can write to, as the strategy picks them.
  return meta::ExternalPaths::Of(schema).status();
}
}  // namespace

Result<std::unique_ptr<TableWriter>> NewFileStoreWriter(const std::string& path,
                                                        std::shared_ptr<const TableSchema> schema,
                                                        const WriteOptions& options,
                                                        TableRowScanner scanner) {
  TRIB_ASSIGN_OR_RETURN(schema,
                        options::WithDynamicOptions(std::move(schema), options.dynamic_options));
  TRIB_RETURN_NOT_OK(CheckWritable(*schema));
  TRIB_ASSIGN_OR_RETURN(CoreOptions core, CoreOptions::From(*schema));
  if (options::GetOrDefault(*schema, options::kDeletionVectorsEnabled)) {
    if (!schema->HasPrimaryKey()) {
      return Status::NotSupported(
          "writing an append table with 'deletion-vectors.enabled' is not supported yet");
    }
    if (core.merge_engine == options::MergeEngine::kFirstRow ||
        core.changelog_producer == options::ChangelogProducer::kFullCompaction) {
      return Status::Invalid(
          "a deletion-vector table with merge engine 'first-row' or changelog-producer "
          "'full-compaction' cannot be written (Paimon refuses both)");
    }
  }
  if (options.async_compaction && !options::GetOrDefault(*schema, options::kLookupWait) &&
      core.changelog_producer == options::ChangelogProducer::kLookup &&
      !options::GetOrDefault(*schema, options::kDeletionVectorsEnabled)) {
    // (A statement's one commit ends its input, so it waits either way.)
    return Status::NotSupported(
        "a long-lived writer of a table without deletion vectors, with 'lookup-wait' = 'false' "
        "and 'changelog-producer' = 'lookup', is not supported yet: the lookup changelog is "
        "always produced within the commit");
  }
  if (core.bucket == -1 && options::GetOrDefault(*schema, options::kIndexFileInDataFileDir)) {
    return Status::NotSupported(
        "writing a dynamic-bucket table ('bucket' = '-1') with 'index-file-in-data-file-dir' = "
        "'true' is not supported yet: Tributary keeps its key index files in index/");
  }
  if (core.bucket < -1 || core.bucket == 0) {
    return Status::NotSupported("writing a table with 'bucket' = '" + std::to_string(core.bucket) +
                                "' is not supported");
  }
  const bool cross_partition =
      schema->HasPrimaryKey() && core.bucket == -1 &&
      schema->TrimmedPrimaryKeys().size() + schema->partition_keys.size() !=
          schema->primary_keys.size();
  if (options.overwrite_buckets) {
    if (!options.overwrite || core.bucket <= 0 || *options.overwrite_buckets <= 0) {
      return Status::Invalid(
          "a bucket count for an overwrite needs an OVERWRITE of a "
          "fixed-bucket table and a positive count");
    }
    auto rescaled = std::make_shared<TableSchema>(*schema);
    rescaled->options["bucket"] = std::to_string(*options.overwrite_buckets);
    schema = std::move(rescaled);
    core.bucket = *options.overwrite_buckets;
  }
  if (cross_partition && schema->HasPrimaryKey()) {
    TRIB_ASSIGN_OR_RETURN(auto config, merge::MergeConfig::Make(*schema));
    if (config->ignore_delete && config->engine == "deduplicate") {
      // A moved key's DELETE in its old partition would be ignored: the key would live twice.
      return Status::NotSupported(
          "cross-partition updates with 'ignore-delete' are not "
          "supported yet");
    }
  }
  if (cross_partition && options.write_columns) {
    return Status::NotSupported(
        "a partial-column write to a table with cross-partition updates "
        "(a primary key without every partition key) is not supported "
        "yet");
  }
  WriteContext ctx;
  TRIB_ASSIGN_OR_RETURN(ctx.table_incarnation, meta::TableIncarnation(path));
  ctx.format = core.format;
  ctx.layout = FileLayout::Of(*schema);
  std::unique_ptr<merge::MergeFunction> input_merge;
  if (schema->HasPrimaryKey()) {
    TRIB_ASSIGN_OR_RETURN(ctx.merge_config, merge::MergeConfig::Make(*schema));
    TRIB_ASSIGN_OR_RETURN(input_merge, merge::MakeEngineMergeFunction(ctx.merge_config, *schema));
  }
  if (options.write_columns) {
    if (!schema->HasPrimaryKey()) {
      return Status::NotSupported(
          "a column list in INSERT writes only the listed columns, which "
          "needs a primary-key table");
    }
    const std::string& engine = ctx.merge_config->engine;
    if (engine != "deduplicate" && engine != "partial-update") {
      return Status::NotSupported(
          "partial-column writes need merge engine 'deduplicate' or "
          "'partial-update', not '" +
          engine + "'");
    }
    auto mask = std::make_shared<std::vector<bool>>(schema->fields.size(), false);
    for (const auto& c : *options.write_columns) {
      int i = schema->FieldIndex(c);
      if (i < 0) return Status::Invalid("unknown column '" + c + "' in the written columns");
      (*mask)[i] = true;
    }
    for (const auto& k : schema->primary_keys) {
      if (!(*mask)[schema->FieldIndex(k)]) {
        return Status::Invalid("a partial-column write must include primary key column '" + k +
                               "'");
      }
    }
    std::vector<std::string> cols;
    for (size_t i = 0; i < schema->fields.size(); i++) {
      if ((*mask)[i]) {
        cols.push_back(schema->fields[i].name);
      } else if (!schema->fields[i].type.nullable) {
        return Status::Invalid("column '" + schema->fields[i].name +
                               "' is NOT NULL, so a "
                               "partial-column write must include it");
      }
    }
    if (cols.size() < schema->fields.size()) {
      ctx.write_cols = std::move(cols);
      ctx.write_mask = std::move(mask);
    }
  }
  // An overwrite commits no changelog (as Paimon: "Overwrite mode currently does not commit any
  // changelog"), so its writer writes none.
  ctx.changelog_format = core.changelog_format;
  if (ctx.merge_config && core.changelog_producer == options::ChangelogProducer::kInput &&
      !options.overwrite) {
    ctx.input_changelog_prefix = core.changelog_file_prefix;
  }
  if (ctx.merge_config && core.changelog_producer == options::ChangelogProducer::kLookup &&
      !options.overwrite) {
    ctx.lookup_changelog_prefix = core.changelog_file_prefix;
    ctx.row_deduplicate = options::GetOrDefault(*schema, options::kChangelogRowDeduplicate);
    ctx.row_deduplicate_ignore = compact::ParseFieldList(
        options::GetOrDefault(*schema, options::kChangelogRowDeduplicateIgnoreFields));
  }
  if (ctx.merge_config) {
    const merge::MergeConfig& c = *ctx.merge_config;
    ctx.column_buffer = (c.IsPlainDeduplicate() || c.IsPlainPartialUpdate() ||
                         c.IsPlainAggregation() || c.IsPlainFirstRow()) &&
                        !ctx.write_mask && datafile::FindFileFormat(ctx.format.FormatForLevel(0)) &&
                        datafile::FindFileFormat(ctx.format.FormatForLevel(0))->WritesColumns() &&
                        ColumnWriteBuffer::Supports(ctx.layout.fields) &&
                        !GetTestHooks().row_write_buffer;
  } else {
    // An append table's records are buffered column by column too, and written as they came.
    const datafile::FileFormat* format = datafile::FindFileFormat(ctx.format.FormatForLevel(0));
    ctx.column_buffer = format && format->WritesColumns() &&
                        ColumnWriteBuffer::Supports(ctx.layout.fields) &&
                        !GetTestHooks().row_write_buffer;
  }
  return std::unique_ptr<TableWriter>(
      new FileStoreWriter(path, std::move(schema), options, std::move(core), std::move(ctx),
                          std::move(input_merge), std::move(scanner)));
}

Result<std::optional<int64_t>> CompactTableFull(
    const std::string& path, std::shared_ptr<const TableSchema> schema,
    const std::function<void(int64_t, int64_t)>& progress,
    const std::vector<std::map<std::string, std::string>>& partitions,
    std::vector<std::string>* warnings, const std::vector<std::string>& spill_dirs) {
  TRIB_RETURN_NOT_OK(CheckWritable(*schema));
  // Old snapshots expire after the compaction commits, also for 'write-only' tables: this is
  // the dedicated compaction job Paimon's write-only writers leave that work to. The compaction
  // stands whatever happens there; a failure is a warning when the caller takes them.
  auto expire_after = [&](int64_t committed) -> Status {
    Status st = commit::ExpireAfterCommit(path, *schema);
    if (st.ok()) return st;
    const std::string what = "snapshot " + std::to_string(committed) +
                             " is committed, but expiring old snapshots failed";
    if (warnings == nullptr) return st.WithContext(what);
    warnings->push_back(what + " (the next commit retries): " + st.ToString());
    return Status::OK();
  };
  std::vector<Field> pf;
  std::vector<DataType> pt;
  for (const auto& k : schema->partition_keys) {
    pf.push_back(schema->fields[schema->FieldIndex(k)]);
    pt.push_back(pf.back().type);
  }
  for (const auto& spec : partitions) {
    for (const auto& [k, v] : spec) {
      if (std::find(schema->partition_keys.begin(), schema->partition_keys.end(), k) ==
          schema->partition_keys.end()) {
        return Status::Invalid("'" + k + "' is not a partition column of the table");
      }
    }
  }
  TRIB_ASSIGN_OR_RETURN(CoreOptions core, CoreOptions::From(*schema));
  // Whether the partition (its BinaryRow bytes) is one `partitions` asks for.
  auto wanted = [&](const std::string& pbytes) -> Result<bool> {
    if (partitions.empty()) return true;
    TRIB_ASSIGN_OR_RETURN(Row part, format::DeserializeBinaryRow(pbytes, pt));
    const std::string dir = meta::PartitionPath(pf, part, core.partition_default_name);
    for (const auto& spec : partitions) {
      bool all = true;
      for (const auto& [k, v] : spec) {
        const std::string piece = k + "=" + v;
        bool found = false;
        for (size_t b = 0; b <= dir.size();) {
          size_t e = dir.find('/', b);
          if (e == std::string::npos) e = dir.size();
          found = found || dir.compare(b, e - b, piece) == 0;
          b = e + 1;
        }
        all = all && found;
      }
      if (all) return true;
    }
    return false;
  };
  if (!schema->HasPrimaryKey()) {
    std::set<std::pair<std::string, int32_t>> only;
    if (!partitions.empty()) {
      meta::SnapshotManager snapshots(path);
      TRIB_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
      if (!latest) return std::optional<int64_t>();
      TRIB_ASSIGN_OR_RETURN(auto snap, snapshots.Read(*latest));
      TRIB_ASSIGN_OR_RETURN(auto live, ReadLiveEntries(path, *snap));
      for (const auto& e : live) {
        TRIB_ASSIGN_OR_RETURN(bool w, wanted(e.partition));
        if (w) only.insert({e.partition, e.bucket});
      }
      if (only.empty()) return std::optional<int64_t>();
    }
    auto r = CompactAppendTable(path, schema, /*full=*/true, partitions.empty() ? nullptr : &only,
                                "", progress);
    if (r.ok() && *r) TRIB_RETURN_NOT_OK(expire_after(**r));
    return r;
  }
  meta::SnapshotManager snapshots(path);
  TRIB_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
  if (!latest) return std::optional<int64_t>();
  TRIB_ASSIGN_OR_RETURN(auto snap, snapshots.Read(*latest));
  TRIB_ASSIGN_OR_RETURN(auto live, ReadLiveEntries(path, *snap));
  std::map<BucketId, std::vector<meta::ManifestEntry>> by_bucket;
  for (auto& e : live) {
    TRIB_ASSIGN_OR_RETURN(bool w, wanted(e.partition));
    if (w) by_bucket[{e.partition, e.bucket}].push_back(std::move(e));
  }
  // Deletion-vector tables: each bucket's vectors, which the compaction drops with the rows
  // they delete (a bucket already one run at the top rewrites only its files with vectors).
  const bool with_vectors = options::GetOrDefault(*schema, options::kDeletionVectorsEnabled);
  std::map<BucketId, meta::IndexManifestEntry> vector_entries;
  const bool index_in_data_dir = options::GetOrDefault(*schema, options::kIndexFileInDataFileDir);
  TRIB_ASSIGN_OR_RETURN(std::optional<meta::ExternalPaths> external,
                        meta::ExternalPaths::Of(*schema));
  if (with_vectors) {
    TRIB_ASSIGN_OR_RETURN(auto entries,
                          meta::ReadLiveIndexEntries(path, *snap, "DELETION_VECTORS"));
    for (auto& e : entries) vector_entries[{e.partition, e.bucket}] = std::move(e);
  }
  UniversalCompactionPicker picker(core.max_size_amp_percent, core.size_ratio,
                                   core.sorted_run_trigger, core.num_levels - 1);
  // Buckets are compacted in parallel; each has its own file namer.
  std::vector<std::pair<BucketId, std::vector<meta::ManifestEntry>*>> work;
  for (auto& [id, entries] : by_bucket) work.push_back({id, &entries});
  std::vector<std::optional<CommitMessage>> messages(work.size());
  std::vector<std::vector<std::string>> outputs(work.size());
  std::mutex progress_mu;
  int64_t done = 0;
  if (progress) progress(0, static_cast<int64_t>(work.size()));
  Status st = ParallelFor(work.size(), DefaultParallelism(), [&](size_t i) -> Status {
    const BucketId& id = work[i].first;
    const std::vector<meta::ManifestEntry>& entries = *work[i].second;
    std::vector<meta::DataFileMeta> files;
    for (const auto& e : entries) files.push_back(e.file);
    std::optional<compact::BucketDeletionVectors> vectors;
    std::optional<CompactUnit> unit;
    TRIB_ASSIGN_OR_RETURN(Row part, format::DeserializeBinaryRow(id.first, pt));
    const std::string ppath = meta::PartitionPath(pf, part, core.partition_default_name);
    const std::string dir = meta::BucketDir(path, ppath, id.second);
    if (with_vectors) {
      auto base = vector_entries.find(id);
      TRIB_ASSIGN_OR_RETURN(
          vectors, compact::BucketDeletionVectors::Load(
                       path, dir,
                       base == vector_entries.end() ? std::nullopt : std::optional(base->second)));
      unit = picker.PickFullWithVectors(BuildSortedRuns(files), [&](const auto& f) {
        return vectors->Of(f.file_name) != nullptr;
      });
    } else {
      unit = picker.PickFull(BuildSortedRuns(files));
    }
    if (unit) {
      meta::FileNamer namer("data-", "");
      if (external) namer.set_external_dir(external->Next(ppath, id.second).recorded);
      const std::string out = datafile::NewFileDir(namer, dir);  // where the new files go
      CommitMessage m;
      if (vectors) {
        commit::CommitMessage::CompactBase base;
        for (const auto& f : files) {
          if (f.level > 0) base.upper_files.push_back(f.file_name);
        }
        std::sort(base.upper_files.begin(), base.upper_files.end());
        if (vectors->base()) base.vectors_file = vectors->base()->file_name;
        m.compact_base = std::move(base);
      }
      TRIB_ASSIGN_OR_RETURN(
          auto result,
          RunCompaction(path, *schema, dir, *unit, unit->output_level, core.target_file_size,
                        core.format, &namer, vectors ? &*vectors : nullptr, spill_dirs));
      if (vectors && vectors->modified()) {
        const std::string index_dir = compact::IndexFileDir(path, out, index_in_data_dir);
        auto entry =
            vectors->Write(index_dir, id.first, id.second,
                           options::GetOrDefault(*schema, options::kDeletionVectorsBitmap64));
        if (!entry.ok()) {
          for (const auto& f : result.after) {
            if (!compact::IsUpgraded(result, f)) datafile::RemoveDataFile(dir, f);
          }
          return entry.status();
        }
        outputs[i].push_back(io::JoinPath(index_dir, entry->file_name));
        if (index_in_data_dir && namer.external_dir()) {
          entry->external_path = *namer.external_dir() + "/" + entry->file_name;
        }
        m.compact_vectors = std::move(*entry);
      }
      m.partition = id.first;
      m.bucket = id.second;
      m.total_buckets = entries.front().total_buckets;
      for (const auto& f : result.after) {
        if (!compact::IsUpgraded(result, f)) outputs[i].push_back(io::JoinPath(out, f.file_name));
      }
      m.compact_changelog_files = std::move(result.changelog);
      for (const auto& f : m.compact_changelog_files) {
        outputs[i].push_back(io::JoinPath(out, f.file_name));
      }
      m.compact_before = std::move(result.before);
      m.compact_after = std::move(result.after);
      io::CrashPoint("compact.after-rewrite");
      messages[i] = std::move(m);
    }
    if (progress) {
      std::lock_guard<std::mutex> lock(progress_mu);
      progress(++done, static_cast<int64_t>(work.size()));
    }
    return Status::OK();
  });
  TRIB_ASSIGN_OR_RETURN(auto committed, CommitCompactions(path, schema, "", st, std::move(messages),
                                                          outputs, "full compaction"));
  if (committed) TRIB_RETURN_NOT_OK(expire_after(*committed));
  return committed;
}

}  // namespace tributary::write
