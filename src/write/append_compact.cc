#include "write/append_compact.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "commit/file_store_commit.h"
#include "commit/snapshot_expire.h"
#include "common/memory_budget.h"
#include "common/parallel.h"
#include "datafile/data_file.h"
#include "datafile/file_format.h"
#include "datafile/test_hooks.h"
#include "format/binary_row.h"
#include "io/file_system.h"
#include "meta/external_paths.h"
#include "meta/paths.h"
#include "meta/schema_manager.h"
#include "meta/snapshot.h"
#include "meta/snapshot_reader.h"
#include "options/core_options.h"
#include "options/option_keys.h"

namespace tributary::write {

using commit::CommitMessage;
using commit::CommitRequest;
using commit::FileStoreCommit;
using meta::DataFileMeta;

std::optional<std::vector<DataFileMeta>> PickAppendCompaction(
    const std::vector<DataFileMeta>& sorted, int64_t target_size, int64_t min_files,
    int64_t max_files) {
  std::vector<DataFileMeta> window;
  int64_t total = 0;
  for (const DataFileMeta& f : sorted) {
    if (f.file_size >= target_size) {  // a file of the target size ends the window
      window.clear();
      total = 0;
      continue;
    }
    window.push_back(f);
    total += f.file_size;
    const int64_t n = static_cast<int64_t>(window.size());
    if ((total >= target_size && n >= min_files) || n >= max_files) return window;
    while (total >= target_size && !window.empty()) {  // slide: the oldest file leaves
      total -= window.front().file_size;
      window.erase(window.begin());
    }
  }
  return std::nullopt;
}

std::optional<std::vector<DataFileMeta>> PickAppendFull(const std::vector<DataFileMeta>& sorted,
                                                        int64_t target_size) {
  size_t first = 0;
  while (first < sorted.size() && sorted[first].file_size >= target_size) first++;
  if (sorted.size() - first < 2) return std::nullopt;
  return std::vector<DataFileMeta>(sorted.begin() + static_cast<std::ptrdiff_t>(first),
                                   sorted.end());
}

namespace {

// Whether Tributary can rewrite the file: a plain data file of the table in a format it writes
// (not a `.blob` file), not a partial-column or row-tracked file.
bool Rewritable(const DataFileMeta& f) {
  const datafile::FileFormat* format = datafile::FileFormatOfPath(f.file_name);
  return !f.write_cols && !f.first_row_id && format != nullptr && format->Writable();
}

// Rewrites one bucket's `files` (in sequence order, in `dir` or at their external paths) into
// files of up to `target_size` named by `namer` (in `dir`, or under its external directory);
// their rows keep their order and sequence numbers.
Result<std::vector<DataFileMeta>> RewriteAppendFiles(
    const std::string& table_path, const TableSchema& schema, const std::string& dir,
    const std::vector<DataFileMeta>& files, const options::CoreOptions& core,
    meta::FileSchemas* schemas, meta::FileNamer& namer) {
  const datafile::FileLayout layout = datafile::FileLayout::Of(schema);
  datafile::DataFileWriter writer(layout, dir, &namer, core.target_file_size, 0,
                                  meta::FileSource::kCompact, core.format);
  Status st;
  for (const DataFileMeta& f : files) {
    auto fields = schemas->FieldsOf(f.schema_id);
    if (!fields.ok()) {
      st = fields.status();
      break;
    }
    const std::string file = f.external_path
                                 ? meta::ResolveExternalPath(table_path, *f.external_path)
                                 : io::JoinPath(dir, f.file_name);
    auto records =
        datafile::ReadDataFile({file, f.row_count}, layout, f.level, f.write_cols, *fields);
    if (!records.ok()) {
      st = records.status();
      break;
    }
    int64_t seq = f.min_sequence_number;
    for (auto& kv : *records) {
      kv.sequence = std::min(seq++, f.max_sequence_number);
      st = writer.Write(kv);
      if (!st.ok()) break;
    }
    if (!st.ok()) break;
  }
  auto written = st.ok() ? writer.Finish() : Result<std::vector<DataFileMeta>>(st);
  if (!written.ok()) writer.Abort();
  return written;
}

}  // namespace

Result<std::optional<int64_t>> CompactAppendTable(
    const std::string& path, std::shared_ptr<const TableSchema> schema, bool full,
    const std::set<std::pair<std::string, int32_t>>* only, const std::string& commit_user,
    const std::function<void(int64_t, int64_t)>& progress) {
  using Out = std::optional<int64_t>;
  if (schema->HasPrimaryKey()) return Status::Internal("CompactAppendTable of a primary-key table");
  for (int waited = 0; datafile::GetTestHooks().hold_append_compaction.load() && waited < 10000;
       waited++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (const auto& option : {options::kRowTrackingEnabled, options::kDataEvolutionEnabled,
                             options::kDeletionVectorsEnabled}) {
    if (options::GetOrDefault(*schema, option)) {
      if (!full) return Out();
      return Status::NotSupported(std::string("compacting an append table with '") + option.key +
                                  "' is not supported yet");
    }
  }
  TRIB_ASSIGN_OR_RETURN(options::CoreOptions core, options::CoreOptions::From(*schema));
  // 'data-file.external-paths': the rewritten files go there.
  TRIB_ASSIGN_OR_RETURN(std::optional<meta::ExternalPaths> external,
                        meta::ExternalPaths::Of(*schema));
  TRIB_ASSIGN_OR_RETURN(const int64_t min_files,
                        options::Get(*schema, options::kCompactionMinFileNum));
  TRIB_ASSIGN_OR_RETURN(const int64_t max_files,
                        options::Get(*schema, options::kCompactionMaxFileNum));
  meta::SnapshotManager snapshots(path);
  TRIB_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
  if (!latest) return Out();
  TRIB_ASSIGN_OR_RETURN(auto snap, snapshots.Read(*latest));
  // After every writer commit: the process-wide cache of live files, not the manifests again.
  TRIB_ASSIGN_OR_RETURN(auto live, meta::ReadLiveEntriesShared(path, *snap));
  std::map<std::pair<std::string, int32_t>, std::vector<meta::ManifestEntry>> by_bucket;
  for (const auto& e : *live) {
    std::pair<std::string, int32_t> id{e.partition, e.bucket};
    if (only && !only->count(id)) continue;
    by_bucket[id].push_back(e);
  }
  std::vector<Field> pf;
  std::vector<DataType> pt;
  for (const auto& k : schema->partition_keys) {
    pf.push_back(schema->fields[schema->FieldIndex(k)]);
    pt.push_back(pf.back().type);
  }
  std::vector<std::pair<std::pair<std::string, int32_t>, std::vector<meta::ManifestEntry>*>> work;
  for (auto& [id, entries] : by_bucket) work.push_back({id, &entries});
  std::vector<std::optional<CommitMessage>> messages(work.size());
  std::vector<std::vector<std::string>> outputs(work.size());
  meta::FileSchemas schemas(path, schema->id);
  std::mutex progress_mu;
  int64_t done = 0;
  if (progress) progress(0, static_cast<int64_t>(work.size()));
  Status st = ParallelFor(work.size(), DefaultParallelism(), [&](size_t i) -> Status {
    const auto& [id, entries] = work[i];
    std::vector<DataFileMeta> files;
    bool rewritable = true;
    for (const auto& e : *entries) {
      rewritable = rewritable && Rewritable(e.file);
      files.push_back(e.file);
    }
    std::stable_sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
      return a.min_sequence_number < b.min_sequence_number;
    });
    auto picked = !rewritable ? std::nullopt
                  : full      ? PickAppendFull(files, core.target_file_size)
                         : PickAppendCompaction(files, core.target_file_size, min_files, max_files);
    if (picked) {
      TRIB_ASSIGN_OR_RETURN(Row part, format::DeserializeBinaryRow(id.first, pt));
      const std::string ppath = meta::PartitionPath(pf, part, core.partition_default_name);
      const std::string dir = meta::BucketDir(path, ppath, id.second);
      meta::FileNamer namer("data-", "");
      if (external) namer.set_external_dir(external->Next(ppath, id.second).recorded);
      TRIB_ASSIGN_OR_RETURN(auto after,
                            RewriteAppendFiles(path, *schema, dir, *picked, core, &schemas, namer));
      CommitMessage m;
      m.partition = id.first;
      m.bucket = id.second;
      m.total_buckets = entries->front().total_buckets;
      for (const auto& f : after) outputs[i].push_back(datafile::WrittenFilePath(dir, f));
      m.compact_before = std::move(*picked);
      m.compact_after = std::move(after);
      io::CrashPoint("compact.after-rewrite");
      messages[i] = std::move(m);
    }
    if (progress) {
      std::lock_guard<std::mutex> lock(progress_mu);
      progress(++done, static_cast<int64_t>(work.size()));
    }
    return Status::OK();
  });
  // What the rewrites held (their inputs' rows, the outputs' pages) goes back to the system, as
  // after a primary-key compaction (compact::RunCompaction).
  ReleaseFreedMemory();
  return CommitCompactions(path, schema, commit_user, st, std::move(messages), outputs,
                           "compacting append table '" + path + "'");
}

Result<std::optional<int64_t>> CommitCompactions(
    const std::string& path, std::shared_ptr<const TableSchema> schema,
    const std::string& commit_user, Status work, std::vector<std::optional<CommitMessage>> messages,
    const std::vector<std::vector<std::string>>& outputs, const std::string& what) {
  auto drop_outputs = [&] {
    for (const auto& o : outputs) {
      for (const auto& f : o) {
        const size_t slash = f.rfind('/');
        datafile::RemoveDataFile(f.substr(0, slash), f.substr(slash + 1));
      }
    }
  };
  if (!work.ok()) {
    drop_outputs();
    return work;
  }
  CommitRequest req;
  for (auto& m : messages) {
    if (m) req.messages.push_back(std::move(*m));
  }
  if (req.messages.empty()) return std::optional<int64_t>();
  FileStoreCommit commit(path, schema, commit_user.empty() ? meta::NewUuid() : commit_user);
  auto r = commit.Commit(req);
  if (!r.ok() || r->compaction_dropped) {
    drop_outputs();
    if (!r.ok()) return r.status();
    return Status::Conflict(what + " lost a race with another writer; run it again");
  }
  return r->last_snapshot;
}

}  // namespace tributary::write
