#include "commit/file_store_commit.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <unordered_set>

#include "common/clock.h"
#include "datafile/data_file.h"
#include "format/binary_row.h"
#include "io/file_system.h"
#include "meta/paths.h"
#include "meta/schema_manager.h"
#include "meta/snapshot_reader.h"
#include "options/option_keys.h"

namespace tributary::commit {

using datafile::DecodeKeyRange;
using meta::ReadManifestList;

using meta::FileKind;
using meta::ManifestEntry;

namespace {
int64_t NowMillis() { return WallClockMillis(); }
// Base manifests are rewritten into one when there are more than this many.
constexpr size_t kMaxBaseManifests = 16;
constexpr const char* kDeletionVectors = "DELETION_VECTORS";
}  // namespace

FileStoreCommit::FileStoreCommit(std::string table_path, std::shared_ptr<const TableSchema> schema,
                                 std::string commit_user)
    : table_path_(std::move(table_path)),
      schema_(std::move(schema)),
      commit_user_(std::move(commit_user)) {
  std::string c = options::GetOrDefault(*schema_, options::kManifestCompression);
  codec_ = c == "zstd" ? "zstandard" : c == "none" ? "null" : c;
  max_retries_ = static_cast<int>(
      std::max<int64_t>(0, options::GetOrDefault(*schema_, options::kCommitMaxRetries)));

  for (const auto& k : schema_->partition_keys) {
    partition_types_.push_back(schema_->fields[schema_->FieldIndex(k)].type);
  }
}

Result<meta::ManifestFileMeta> FileStoreCommit::WriteManifest(
    const std::vector<ManifestEntry>& entries, std::vector<std::string>* written) {
  meta::FileNamer namer("manifest-", "");
  std::string name = namer.Next();
  TRIB_ASSIGN_OR_RETURN(std::string bytes, meta::EncodeManifest(entries, codec_));
  TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(meta::ManifestDir(table_path_)));
  TRIB_RETURN_NOT_OK(io::LocalFs().WriteNewFile(meta::ManifestPath(table_path_, name), bytes));
  written->push_back(name);
  meta::ManifestFileMeta m;
  m.file_name = name;
  m.file_size = static_cast<int64_t>(bytes.size());
  m.schema_id = schema_->id;
  Row pmin, pmax;
  std::vector<int64_t> nulls(partition_types_.size(), 0);
  bool first = true;
  for (const auto& e : entries) {
    (e.kind == FileKind::kAdd ? m.num_added_files : m.num_deleted_files)++;
    m.min_bucket = m.min_bucket ? std::min(*m.min_bucket, e.bucket) : e.bucket;
    m.max_bucket = m.max_bucket ? std::max(*m.max_bucket, e.bucket) : e.bucket;
    m.min_level = m.min_level ? std::min(*m.min_level, e.file.level) : e.file.level;
    m.max_level = m.max_level ? std::max(*m.max_level, e.file.level) : e.file.level;
    auto part = format::DeserializeBinaryRow(e.partition, partition_types_);
    if (!part.ok()) continue;
    if (first) {
      pmin = *part;
      pmax = *part;
      pmin.resize(partition_types_.size());
      pmax.resize(partition_types_.size());
      first = false;
    }
    for (size_t i = 0; i < partition_types_.size() && i < part->size(); i++) {
      const Value& v = (*part)[i];
      if (v.is_null()) {
        nulls[i]++;
        continue;
      }
      if (pmin[i].is_null() || CompareValues(v, pmin[i]) < 0) pmin[i] = v;
      if (pmax[i].is_null() || CompareValues(v, pmax[i]) > 0) pmax[i] = v;
    }
  }
  pmin.resize(partition_types_.size());
  pmax.resize(partition_types_.size());
  m.partition_stats.min_values = format::SerializeBinaryRow(partition_types_, pmin);
  m.partition_stats.max_values = format::SerializeBinaryRow(partition_types_, pmax);
  for (int64_t n : nulls) m.partition_stats.null_counts.push_back(n);
  return m;
}

Result<std::string> FileStoreCommit::WriteIndexManifest(const meta::Snapshot* latest,
                                                        const IndexUpdate& update,
                                                        std::vector<std::string>* written) {
  std::vector<meta::IndexManifestEntry> live;
  if (latest && latest->index_manifest) {
    std::string path = meta::ManifestPath(table_path_, *latest->index_manifest);
    TRIB_ASSIGN_OR_RETURN(std::string bytes, io::LocalFs().ReadFile(path));
    TRIB_ASSIGN_OR_RETURN(
        auto entries, meta::DecodeIndexManifest(std::move(bytes), "index manifest '" + path + "'"));
    for (auto& e : entries) {
      if (e.kind == FileKind::kDelete) {
        live.erase(std::remove_if(live.begin(), live.end(),
                                  [&](const auto& l) { return l.file_name == e.file_name; }),
                   live.end());
      } else {
        live.push_back(std::move(e));
      }
    }
  }
  const bool drop_all = static_cast<bool>(update.drop_vectors);
  std::erase_if(live, [&](const auto& l) {
    return drop_all && l.index_type == kDeletionVectors && update.drop_vectors(l.partition);
  });
  static const std::vector<meta::IndexManifestEntry> kNone;
  for (const auto& c : update.changes ? *update.changes : kNone) {
    // One deletion-vector file per bucket (Paimon's bucketed combiner): a new one replaces it.
    const bool per_bucket = c.kind == FileKind::kAdd && c.index_type == kDeletionVectors;
    std::erase_if(live, [&](const auto& l) {
      return l.file_name == c.file_name || (per_bucket && l.index_type == kDeletionVectors &&
                                            l.partition == c.partition && l.bucket == c.bucket);
    });
    if (c.kind == FileKind::kAdd) live.push_back(c);
  }
  meta::FileNamer namer("index-manifest-", "");
  std::string name = namer.Next();
  TRIB_ASSIGN_OR_RETURN(std::string bytes, meta::EncodeIndexManifest(live, codec_));
  TRIB_RETURN_NOT_OK(io::LocalFs().WriteNewFile(meta::ManifestPath(table_path_, name), bytes));
  written->push_back(name);
  return name;
}

Status FileStoreCommit::CheckIncarnation() const {
  if (!incarnation_) return Status::OK();
  TRIB_ASSIGN_OR_RETURN(bool same, meta::IsTableIncarnation(table_path_, *incarnation_));
  if (same) return Status::OK();
  auto now = meta::TableIncarnation(table_path_);
  if (!now.ok() && !now.status().IsNotFound()) return now.status();
  return Status::NotFound("the table at '" + table_path_ + "' was dropped" +
                          (now.ok() ? std::string(" and created again") : std::string()) +
                          " after this writer opened it; nothing was committed");
}

Result<int64_t> FileStoreCommit::CommitOnce(meta::CommitKind kind, const EntryBuilder& build,
                                            const IndexUpdate& index,
                                            const std::vector<meta::ManifestEntry>* changelog,
                                            const std::set<std::string>* scope) {
  meta::SnapshotManager snapshots(table_path_);
  std::mt19937 rng(std::random_device{}());
  Status last_error;
  for (int attempt = 0; attempt <= max_retries_; attempt++) {
    TRIB_RETURN_NOT_OK(CheckIncarnation());
    TRIB_ASSIGN_OR_RETURN(std::shared_ptr<const meta::Snapshot> latest, snapshots.Latest());
    const std::optional<int64_t> latest_id =
        latest ? std::optional<int64_t>(latest->id) : std::nullopt;
    // Every live entry (`whole`), or those of the partitions in `scope`.
    std::shared_ptr<const std::vector<ManifestEntry>> live_shared;
    std::vector<ManifestEntry> scoped;
    const bool whole =
        !latest || !scope || keep_whole_ || meta::LiveEntriesCached(table_path_, *latest);
    if (latest && whole) {
      TRIB_ASSIGN_OR_RETURN(live_shared, meta::ReadLiveEntriesShared(table_path_, *latest));
    } else if (latest) {
      TRIB_ASSIGN_OR_RETURN(
          scoped, meta::ReadLivePartitionEntries(table_path_, *latest, *scope, &partition_types_));
    }
    const std::vector<ManifestEntry>& live = live_shared ? *live_shared : scoped;
    TRIB_ASSIGN_OR_RETURN(std::vector<ManifestEntry> delta, build(live, latest.get()));
    if (delta.empty()) return latest_id.value_or(0);

    std::vector<std::string> written;
    auto cleanup = [&]() {
      for (const auto& n : written) (void)io::LocalFs().Remove(meta::ManifestPath(table_path_, n));
    };
    std::optional<std::string> attempt_index_manifest;  // of the snapshot this attempt writes
    std::string attempt_base_list, attempt_delta_list;  // its manifest lists
    auto attempt_commit = [&]() -> Result<bool> {
      // Delta manifest and list.
      TRIB_ASSIGN_OR_RETURN(meta::ManifestFileMeta delta_meta, WriteManifest(delta, &written));
      meta::FileNamer list_namer("manifest-list-", "");
      auto write_list = [&](const std::vector<meta::ManifestFileMeta>& metas,
                            int64_t* size) -> Result<std::string> {
        std::string name = list_namer.Next();
        TRIB_ASSIGN_OR_RETURN(std::string bytes, meta::EncodeManifestList(metas, codec_));
        TRIB_RETURN_NOT_OK(
            io::LocalFs().WriteNewFile(meta::ManifestPath(table_path_, name), bytes));
        written.push_back(name);
        *size = static_cast<int64_t>(bytes.size());
        return name;
      };
      // Base = every manifest of the previous snapshot, compacted into one when there are many.
      std::vector<meta::ManifestFileMeta> base;
      if (latest) {
        TRIB_ASSIGN_OR_RETURN(auto b, ReadManifestList(table_path_, latest->base_manifest_list));
        TRIB_ASSIGN_OR_RETURN(auto d, ReadManifestList(table_path_, latest->delta_manifest_list));
        base = std::move(b);
        for (auto& m : d) base.push_back(std::move(m));
        if (base.size() > kMaxBaseManifests) {
          base.clear();
          std::shared_ptr<const std::vector<ManifestEntry>> all = live_shared;
          if (!all) {
            TRIB_ASSIGN_OR_RETURN(all, meta::ReadLiveEntriesShared(table_path_, *latest));
          }
          if (!all->empty()) {
            TRIB_ASSIGN_OR_RETURN(meta::ManifestFileMeta merged, WriteManifest(*all, &written));
            base.push_back(std::move(merged));
          }
        }
      }
      meta::Snapshot s;
      s.id = latest ? latest->id + 1 : 1;
      if (!index.empty()) {
        TRIB_ASSIGN_OR_RETURN(std::string im, WriteIndexManifest(latest.get(), index, &written));
        s.index_manifest = im;
      } else if (latest) {
        s.index_manifest = latest->index_manifest;  // index files carry over
      }
      s.schema_id = schema_->id;
      TRIB_ASSIGN_OR_RETURN(s.base_manifest_list, write_list(base, &s.base_manifest_list_size));
      TRIB_ASSIGN_OR_RETURN(s.delta_manifest_list,
                            write_list({delta_meta}, &s.delta_manifest_list_size));
      s.commit_user = commit_user_;
      if (commit_identifier_) s.commit_identifier = *commit_identifier_;
      s.properties = properties_;
      s.commit_kind = kind;
      s.time_millis = NowMillis();
      int64_t delta_rows = 0;
      for (const auto& e : delta) {
        delta_rows += e.kind == FileKind::kAdd ? e.file.row_count : -e.file.row_count;
      }
      int64_t prev_total = latest ? latest->total_record_count.value_or(0) : 0;
      s.total_record_count = prev_total + delta_rows;
      s.delta_record_count = delta_rows;
      if (changelog && !changelog->empty()) {
        // As Paimon: the changelog files in one manifest, listed by the changelog manifest list
        // (without changelog files, the three changelog fields are left out of the snapshot).
        TRIB_ASSIGN_OR_RETURN(meta::ManifestFileMeta changelog_meta,
                              WriteManifest(*changelog, &written));
        int64_t size = 0;
        TRIB_ASSIGN_OR_RETURN(s.changelog_manifest_list, write_list({changelog_meta}, &size));
        s.changelog_manifest_list_size = size;
        int64_t rows = 0;
        for (const auto& e : *changelog) rows += e.file.row_count;
        s.changelog_record_count = rows;
      }
      io::CrashPoint("commit.after-manifests");
      attempt_index_manifest = s.index_manifest;
      attempt_base_list = s.base_manifest_list;
      attempt_delta_list = s.delta_manifest_list;
      TRIB_RETURN_NOT_OK(CheckIncarnation());  // again, as late as it can be
      return snapshots.TryCommit(s);
    };
    Result<bool> won = attempt_commit();
    if (won.ok() && *won) {
      committed_index_manifest_ = std::move(attempt_index_manifest);
      // The new snapshot's live files are the old ones with the delta applied, as a reader
      // merges its manifests (base = the old snapshot's, in order, then the delta): kept, so the
      // next commit and this process's reads do not decode every manifest again.
      // (A commit that read some partitions' entries has no whole list to keep.)
      if (whole) {
        meta::RememberLiveEntries(table_path_, attempt_base_list, attempt_delta_list,
                                  meta::ApplyEntries(live, std::move(delta)));
      }
      return latest ? latest->id + 1 : 1;
    }
    cleanup();
    if (!won.ok()) return won.status();
    // Lost the race for this id: back off a little (a random wait that grows with the lost
    // races) and retry against the new latest snapshot.
    if (attempt == max_retries_) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + rng() % (5 + 5 * attempt)));
  }
  return Status::Conflict("could not commit to '" + table_path_ + "' after " +
                          std::to_string(max_retries_ + 1) + " attempts ('commit.max-retries' = " +
                          std::to_string(max_retries_) + "): other writers kept committing first");
}

std::string FileStoreCommit::PartitionName(const std::string& partition) const {
  auto row = format::DeserializeBinaryRow(partition, partition_types_);
  if (!row.ok() || partition_types_.empty()) return "the table";
  std::vector<Field> pf;
  for (const auto& k : schema_->partition_keys)
    pf.push_back(schema_->fields[schema_->FieldIndex(k)]);
  return "partition " + meta::PartitionPath(pf, *row);
}

Result<std::vector<ManifestEntry>> FileStoreCommit::AppendDelta(
    CommitRequest* req, const std::vector<ManifestEntry>& live, CommitResult* result) {
  std::vector<ManifestEntry> delta;
  if (req->overwrite) {
    for (const auto& e : live) {
      if (!req->overwrite_filter || req->overwrite_filter(e.partition)) {
        ManifestEntry d = e;
        d.kind = FileKind::kDelete;
        delta.push_back(std::move(d));
      }
    }
  } else {
    if (req->renumber) {
      // Sequence numbers must grow with commit order within a bucket: new files that a
      // concurrent commit's numbers reach are renumbered above them.
      // The highest live sequence number of each bucket written (none: no live file).
      std::map<std::pair<std::string, int32_t>, std::optional<int64_t>> live_max;
      for (const auto& m : req->messages) {
        if (!m.new_files.empty()) live_max[{m.partition, m.bucket}];
      }
      for (const auto& e : live) {
        auto it = live_max.find({e.partition, e.bucket});
        if (it == live_max.end()) continue;
        it->second = std::max(it->second.value_or(INT64_MIN), e.file.max_sequence_number);
      }
      for (auto& m : req->messages) {
        if (m.new_files.empty()) continue;
        auto found = live_max.find({m.partition, m.bucket});
        if (found == live_max.end() || !found->second) continue;
        const int64_t live_top = *found->second;
        int64_t our_min = INT64_MAX;
        for (const auto& f : m.new_files) our_min = std::min(our_min, f.min_sequence_number);
        if (live_top < our_min) continue;
        TRIB_ASSIGN_OR_RETURN(m.new_files, req->renumber(m, live_top + 1 - our_min));
        // The bucket's compaction merged a stale view: drop it.
        for (const auto& f : m.compact_after) result->dropped_compact_files.push_back(f.file_name);
        for (const auto& f : m.compact_changelog_files) {
          result->dropped_compact_files.push_back(f.file_name);
        }
        if (m.compact_vectors)
          result->dropped_compact_files.push_back(m.compact_vectors->file_name);
        m.compact_before.clear();
        m.compact_after.clear();
        m.compact_changelog_files.clear();
        m.compact_vectors.reset();
        m.compact_base.reset();
      }
    }
    // A partition keeps its bucket layout until INSERT OVERWRITE rewrites it.
    // (Each written partition's count, as its live files have it; none: no live file.)
    std::map<std::string, std::optional<int32_t>> existing;
    for (const auto& m : req->messages) {
      if (!m.new_files.empty()) existing[m.partition];
    }
    for (const auto& e : live) {
      auto it = existing.find(e.partition);
      if (it != existing.end()) it->second = e.total_buckets;
    }
    for (const auto& m : req->messages) {
      auto it = existing.find(m.partition);
      if (m.new_files.empty() || it == existing.end() || !it->second ||
          *it->second == m.total_buckets) {
        continue;
      }
      const int32_t laid_out = *it->second;
      // Fixed counts must match; and a fixed layout never mixes with a dynamic (-1) one.
      bool mismatch =
          (m.total_buckets > 0 && laid_out > 0) || m.total_buckets == -1 || laid_out == -1;
      if (mismatch) {
        return Status::Invalid(
            "cannot write " + PartitionName(m.partition) + " with " +
            std::to_string(m.total_buckets) + " buckets: its data is laid out in " +
            std::to_string(laid_out) +
            " buckets. Rewrite it first with INSERT OVERWRITE to change its bucket count");
      }
    }
  }
  for (const auto& m : req->messages) {
    for (const auto& f : m.new_files) {
      delta.push_back(ManifestEntry{FileKind::kAdd, m.partition, m.bucket, m.total_buckets, f});
    }
  }
  return delta;
}

Result<std::vector<ManifestEntry>> FileStoreCommit::CompactDelta(
    const CommitRequest& req, const std::vector<ManifestEntry>& live, const meta::Snapshot* latest,
    bool* conflict) const {
  // The live files of each bucket the request compacts (a check looks at its own bucket only).
  std::map<std::pair<std::string, int32_t>, std::vector<const ManifestEntry*>> buckets;
  for (const auto& m : req.messages) buckets[{m.partition, m.bucket}];
  for (const auto& e : live) {
    auto it = buckets.find({e.partition, e.bucket});
    if (it != buckets.end()) it->second.push_back(&e);
  }
  // Deletion-vector tables: each compacted bucket must be as its compaction saw it.
  std::map<std::pair<std::string, int32_t>, std::string> live_vectors;
  bool vectors_read = false;
  for (const auto& m : req.messages) {
    if (!m.compact_base) continue;
    if (!vectors_read && latest) {
      TRIB_ASSIGN_OR_RETURN(auto entries,
                            meta::ReadLiveIndexEntries(table_path_, *latest, kDeletionVectors));
      for (auto& e : entries) live_vectors[{e.partition, e.bucket}] = std::move(e.file_name);
    }
    vectors_read = true;
    auto v = live_vectors.find({m.partition, m.bucket});
    std::vector<std::string> upper;
    for (const ManifestEntry* e : buckets[{m.partition, m.bucket}]) {
      if (e->file.level > 0) upper.push_back(e->file.file_name);
    }
    std::sort(upper.begin(), upper.end());
    if ((v == live_vectors.end() ? std::string() : v->second) != m.compact_base->vectors_file ||
        upper != m.compact_base->upper_files) {
      *conflict = true;  // another writer compacted this bucket since
      return std::vector<ManifestEntry>{};
    }
  }
  std::unordered_set<std::string> live_ids;
  for (const auto& [bucket, entries] : buckets) {
    for (const ManifestEntry* e : entries) live_ids.insert(e->Identifier());
  }
  std::unordered_set<std::string> replaced;
  for (const auto& m : req.messages) {
    for (const auto& f : m.compact_before) replaced.insert(f.file_name);
  }
  // Files at one level >= 1 of a bucket form one sorted run: their key ranges must not overlap
  // (a concurrent compaction may have written the same level).
  if (schema_->HasPrimaryKey()) {
    std::vector<DataType> key_types;
    for (const auto& k : schema_->TrimmedPrimaryKeys()) {
      key_types.push_back(schema_->fields[schema_->FieldIndex(k)].type);
    }
    for (const auto& m : req.messages) {
      for (const auto& f : m.compact_after) {
        if (f.level == 0) continue;
        auto rf = DecodeKeyRange(f, key_types);
        for (const ManifestEntry* e : buckets[{m.partition, m.bucket}]) {
          if (e->file.level != f.level || replaced.count(e->file.file_name)) continue;
          auto re = DecodeKeyRange(e->file, key_types);
          if (!rf || !re || rf->Overlaps(*re)) {
            *conflict = true;
            return std::vector<ManifestEntry>{};
          }
        }
      }
    }
  }
  std::vector<ManifestEntry> delta;
  for (const auto& m : req.messages) {
    for (const auto& f : m.compact_before) {
      ManifestEntry d{FileKind::kDelete, m.partition, m.bucket, m.total_buckets, f};
      if (!live_ids.count(d.Identifier())) {
        *conflict = true;  // someone else compacted or overwrote these files
        return std::vector<ManifestEntry>{};
      }
      delta.push_back(std::move(d));
    }
    for (const auto& f : m.compact_after) {
      delta.push_back(ManifestEntry{FileKind::kAdd, m.partition, m.bucket, m.total_buckets, f});
    }
  }
  return delta;
}

Result<CommitResult> FileStoreCommit::Commit(const CommitRequest& request) {
  CommitResult result;
  std::optional<int64_t> last;
  CommitRequest req = request;  // renumbering rewrites messages between attempts
  bool has_new = req.overwrite;
  bool has_compact = false;
  for (const auto& m : req.messages) {
    has_new |= !m.new_files.empty();
    has_compact |= !m.compact_before.empty() || !m.compact_after.empty() || m.compact_vectors;
  }
  // The partitions the request writes: its commits look at their live files alone.
  std::set<std::string> partitions;
  for (const auto& m : req.messages) partitions.insert(m.partition);
  std::vector<ManifestEntry> changelog;
  for (const auto& m : req.messages) {
    for (const auto& f : m.changelog_files) {
      changelog.push_back(ManifestEntry{FileKind::kAdd, m.partition, m.bucket, m.total_buckets, f});
    }
  }
  if (has_new) {
    meta::CommitKind kind =
        req.overwrite ? meta::CommitKind::kOverwrite : meta::CommitKind::kAppend;
    // An overwrite drops the deletion vectors of the partitions it replaces with their files.
    IndexUpdate overwrite_index{&req.index_changes, nullptr};
    if (req.overwrite) {
      overwrite_index.drop_vectors =
          req.overwrite_filter ? req.overwrite_filter : [](const std::string&) { return true; };
    }
    // An overwrite (and its precondition) looks at every partition it may replace.
    const bool scoped = !req.overwrite && !req.precondition;
    TRIB_ASSIGN_OR_RETURN(
        last,
        CommitOnce(
            kind,
            [&](const std::vector<ManifestEntry>& live,
                const meta::Snapshot*) -> Result<std::vector<ManifestEntry>> {
              if (req.precondition) TRIB_RETURN_NOT_OK(req.precondition(live));
              return AppendDelta(&req, live, &result);
            },
            overwrite_index, req.overwrite ? nullptr : &changelog, scoped ? &partitions : nullptr));
    if (last) {
      result.first_snapshot = last;
      result.snapshots++;
    }
  }
  // An overwrite compacts only into a deletion-vector table (its new files, out of level 0).
  if (has_compact) {
    bool conflict = false;
    std::vector<ManifestEntry> compact_changelog;
    std::vector<meta::IndexManifestEntry> compact_index;
    for (const auto& m : req.messages) {
      if (m.compact_vectors) compact_index.push_back(*m.compact_vectors);
    }
    for (const auto& m : req.messages) {
      for (const auto& f : m.compact_changelog_files) {
        compact_changelog.push_back(
            ManifestEntry{FileKind::kAdd, m.partition, m.bucket, m.total_buckets, f});
      }
    }
    auto r = CommitOnce(
        meta::CommitKind::kCompact,
        [&](const std::vector<ManifestEntry>& live, const meta::Snapshot* latest) {
          conflict = false;
          return CompactDelta(req, live, latest, &conflict);
        },
        IndexUpdate{&compact_index, nullptr}, &compact_changelog, &partitions);
    if (!r.ok()) {
      // The APPEND snapshot (if any) is published already: a compaction that cannot be
      // committed is dropped, never reported as a failed commit that would undo published files.
      if (!last) return r.status();
      conflict = true;
    }
    if (conflict) {
      result.compaction_dropped = true;
    } else {
      last = *r;
      if (!result.first_snapshot) result.first_snapshot = last;
      result.snapshots++;
    }
  }
  result.last_snapshot = last;
  if (last) result.index_manifest = committed_index_manifest_;
  return result;
}

}  // namespace tributary::commit
