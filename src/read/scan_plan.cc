#include "read/scan_plan.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/check_value.h"
#include "common/predicate.h"
#include "datafile/data_file.h"
#include "datafile/file_index_filter.h"
#include "format/binary_row.h"
#include "io/file_system.h"
#include "meta/paths.h"
#include "meta/snapshot.h"
#include "meta/snapshot_reader.h"
#include "meta/tags.h"
#include "options/core_options.h"
#include "options/option_keys.h"
#include "options/option_values.h"

namespace tributary::read {

using datafile::DecodeKeyRange;
using datafile::FileLayout;

namespace {

class ScanPlanner {
 public:
  explicit ScanPlanner(const ScanPlanRequest& r)
      : path_(r.path),
        meta_path_(r.meta_path),
        schema_(r.schema),
        core_(*r.core),
        options_(*r.options),
        excluded_(r.excluded),
        top_level_only_(r.top_level_only),
        every_partition_(r.every_partition),
        pending_(r.pending),
        layout_(FileLayout::Of(*schema_)) {}

  Result<ScanPlan> Plan() {
    meta::SnapshotManager snapshots(meta_path_);
    std::optional<int64_t> id = options_.snapshot_id;
    // Time travel: the query's hints, else the table's own options (as Paimon reads them); a hint
    // replaces every table-level one.
    static const char* kTravel[] = {"scan.snapshot-id", "scan.timestamp-millis", "scan.tag-name",
                                    "scan.watermark"};
    bool hinted = options_.snapshot_id.has_value();
    for (const char* k : kTravel) hinted = hinted || options_.dynamic_options.count(k) > 0;
    auto travel = [&](const char* key) -> std::optional<std::string> {
      if (hinted) {
        auto it = options_.dynamic_options.find(key);
        if (it == options_.dynamic_options.end()) return std::nullopt;
        return it->second;
      }
      return schema_->Option(key);
    };
    if (!id) {
      if (auto v = travel("scan.snapshot-id")) {
        TRIB_ASSIGN_OR_RETURN(id, options::ParseInt64(*v));
      }
    }
    const std::optional<std::string> ts = travel("scan.timestamp-millis");
    const std::optional<std::string> tag = travel("scan.tag-name");
    const std::optional<std::string> watermark = travel("scan.watermark");
    const int given = (id ? 1 : 0) + (ts ? 1 : 0) + (tag ? 1 : 0) + (watermark ? 1 : 0);
    if (given > 1) {
      return Status::Invalid(
          "set only one of 'scan.snapshot-id', 'scan.timestamp-millis' (or "
          "'scan.timestamp'), 'scan.tag-name' and 'scan.watermark'");
    }
    // Paimon's 'scan.mode' in a batch read (a hint over the table's option): 'compacted-full'
    // reads the latest snapshot a compaction committed; the others read the snapshot the
    // options above name, or the latest (their checks are the streaming read's).
    auto mode_of = [&](const char* key) -> std::optional<std::string> {
      auto hint = options_.dynamic_options.find(key);
      if (hint != options_.dynamic_options.end()) return hint->second;
      return schema_->Option(key);
    };
    std::optional<std::string> scan_mode = mode_of("scan.mode");
    if (!scan_mode) {
      // Paimon's values in Fluss's key mean the same ('scan.startup.mode' = 'compacted-full').
      scan_mode = mode_of("scan.startup.mode");
      if (scan_mode && *scan_mode != "compacted-full") scan_mode.reset();
    }
    if (scan_mode) {
      // (A snapshot given by the statement itself, FOR SYSTEM_TIME AS OF, is no option.)
      const bool option_id = travel("scan.snapshot-id").has_value() || tag.has_value();
      TRIB_ASSIGN_OR_RETURN(std::optional<std::string> as_mode,
                            options::StartupModeOfScanMode(*scan_mode, option_id, ts.has_value()));
      if (as_mode && *as_mode == "compacted-full" && !id) {
        TRIB_ASSIGN_OR_RETURN(auto ids, snapshots.ListIds());
        for (auto it = ids.rbegin(); it != ids.rend() && !id; ++it) {
          TRIB_ASSIGN_OR_RETURN(auto s, snapshots.Read(*it));
          if (s->commit_kind == meta::CommitKind::kCompact) id = *it;
        }
        if (!id) {
          return Status::NotFound(
              "'scan.mode' = 'compacted-full': the table has no compacted "
              "snapshot yet (CALL sys.compact makes one)");
        }
      }
    }
    if (watermark) {
      // As Paimon: the earliest snapshot whose watermark is at or after the given one.
      TRIB_ASSIGN_OR_RETURN(int64_t wm, options::ParseInt64(*watermark));
      TRIB_ASSIGN_OR_RETURN(auto ids, snapshots.ListIds());
      for (int64_t sid : ids) {
        TRIB_ASSIGN_OR_RETURN(auto s, snapshots.Read(sid));
        if (s->watermark && *s->watermark >= wm) {
          id = sid;
          break;
        }
      }
      if (!id) {
        return Status::NotFound(
            "there is no snapshot with a watermark at or after "
            "'scan.watermark' = " +
            std::to_string(wm) +
            " (snapshots carry one when a Flink job with watermarks wrote "
            "them; Tributary's writers record none)");
      }
    }
    std::shared_ptr<const meta::Snapshot> tagged;
    if (tag) {
      // The tag's own copy of its snapshot: it reads after the snapshot itself expired.
      TRIB_ASSIGN_OR_RETURN(tagged, meta::ReadTag(meta_path_, *tag));
      id = tagged->id;
    }
    if (!id && ts) {
      // Time travel by time: the latest snapshot committed at or before the given epoch millis.
      TRIB_ASSIGN_OR_RETURN(int64_t millis, options::ParseInt64(*ts));
      TRIB_ASSIGN_OR_RETURN(auto ids, snapshots.ListIds());
      for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
        TRIB_ASSIGN_OR_RETURN(auto s, snapshots.Read(*it));
        if (s->time_millis <= millis) {
          id = *it;
          break;
        }
      }
      if (!id) {
        // As Paimon: a time before the first snapshot is an error, not an empty table.
        TRIB_ASSIGN_OR_RETURN(auto earliest, snapshots.EarliestId());
        return Status::NotFound(
            "there is no snapshot committed at or before 'scan.timestamp-millis' = " +
            std::to_string(millis) +
            (earliest ? " (the oldest, snapshot " + std::to_string(*earliest) + ", is later)"
                      : " (the table has no snapshot)"));
      }
    }
    std::shared_ptr<const meta::Snapshot> snap = tagged;
    // The latest snapshot: with pending writes (read/pending.h), the snapshot they go on top of
    // and their files.
    std::optional<PendingView> pending;
    if (!id && pending_ != nullptr && !top_level_only_) {
      TRIB_ASSIGN_OR_RETURN(pending, pending_->source->Pending(pending_->id));
      if (pending) {
        id = pending->snapshot_id;
        if (!id) id = 0;  // no snapshot yet: the pending files alone
      }
    }
    if (!id) {
      TRIB_ASSIGN_OR_RETURN(snap, meta::ReadLatestSnapshotCached(meta_path_));
      if (!snap) return std::move(plan_);  // empty table
      id = snap->id;
    }
    plan_.snapshot_id = id;
    TRIB_ASSIGN_OR_RETURN(data_evolution_, options::Get(*schema_, options::kDataEvolutionEnabled));
    if (layout_.primary_key && core_.bucket > 0) {
      for (const auto& k : schema_->BucketKeys()) bucket_key_.push_back(schema_->FieldIndex(k));
    }
    std::vector<Field> pfields;
    std::vector<DataType> ptypes;
    std::vector<int> pidx;
    for (const auto& k : schema_->partition_keys) {
      int i = schema_->FieldIndex(k);
      pidx.push_back(i);
      pfields.push_back(schema_->fields[i]);
      ptypes.push_back(schema_->fields[i].type);
    }
    std::shared_ptr<const std::vector<meta::ManifestEntry>> live_shared;
    if (!snap && *id > 0) {
      TRIB_ASSIGN_OR_RETURN(snap, meta::ReadSnapshotCached(meta_path_, *id));
    }
    if (snap && !pending && !every_partition_ && FiltersPartitions(pidx)) {
      // Only the matching partitions' live files (a partition that does not deserialize is
      // kept: the loop below reports it, when its manifest is read). Manifests whose partition
      // statistics rule every filter out are not read (the statistics leave out partitions
      // that do not deserialize, so an entry of one in such a manifest goes unreported).
      auto may_hold = [&](const meta::ManifestFileMeta& m) {
        auto bounds = meta::PartitionBoundsOf(m, ptypes);
        if (!bounds) return true;
        for (const auto& p : options_.filters) {
          for (size_t i = 0; i < pidx.size(); i++) {
            if (p.column == pidx[i] && !MayMatchRange(p, bounds->min[i], bounds->max[i])) {
              return false;
            }
          }
        }
        return true;
      };
      TRIB_ASSIGN_OR_RETURN(std::vector<meta::ManifestEntry> matching,
                            meta::ReadLiveEntriesWhere(
                                path_, *snap,
                                [&](const std::string& partition) {
                                  auto part = format::DeserializeBinaryRow(partition, ptypes);
                                  return !part.ok() || PartitionMatches(*part, pidx);
                                },
                                may_hold));
      live_shared = std::make_shared<const std::vector<meta::ManifestEntry>>(std::move(matching));
    } else if (snap) {
      TRIB_ASSIGN_OR_RETURN(live_shared, meta::ReadLiveEntriesShared(path_, *snap));
    }
    if (snap) {
      if (options::GetOrDefault(*schema_, options::kDeletionVectorsEnabled) &&
          snap->index_manifest) {
        TRIB_RETURN_NOT_OK(LoadDeletionVectors(*snap));
      }
    }
    std::vector<meta::ManifestEntry> with_pending;
    if (pending) {
      // The snapshot's files, then the pending ones (newer: level 0, higher sequence numbers).
      if (live_shared) with_pending = *live_shared;
      for (auto& e : pending->files) with_pending.push_back(std::move(e));
    }
    static const std::vector<meta::ManifestEntry> kNone;
    const std::vector<meta::ManifestEntry>& live =
        pending ? with_pending : (live_shared ? *live_shared : kNone);
    std::map<std::pair<std::string, int32_t>, size_t> index;
    std::vector<DataSplit>& splits = plan_.splits;
    for (const auto& e : live) {
      plan_.partitions.insert(e.partition);
      if (excluded_ && excluded_->count(e.partition)) continue;
      if (top_level_only_ && e.file.level != core_.num_levels - 1) continue;
      if (const auto& b = LookupBuckets(e.total_buckets); b && !b->count(e.bucket)) continue;
      auto key = std::make_pair(e.partition, e.bucket);
      auto it = index.find(key);
      if (it == index.end()) {
        auto part = format::DeserializeBinaryRow(e.partition, ptypes);
        if (!part.ok()) return part.status().WithContext("partition of file " + e.file.file_name);
        if (!PartitionMatches(*part, pidx)) {
          index[key] = SIZE_MAX;
          continue;
        }
        DataSplit s;
        s.pbytes = e.partition;
        s.partition = *part;
        s.bucket = e.bucket;
        s.dir = meta::BucketDir(
            path_, meta::PartitionPath(pfields, *part, core_.partition_default_name), e.bucket);
        index[key] = splits.size();
        splits.push_back(std::move(s));
        it = index.find(key);
      }
      if (it->second == SIZE_MAX) continue;
      if (!FileMayMatch(e.file)) continue;
      splits[it->second].files.push_back(e.file);
    }
    if (options::GetOrDefault(*schema_, options::kScanPlanSortPartition)) {
      // Splits in partition-value order (queue tables read in that order); buckets keep theirs.
      std::stable_sort(splits.begin(), splits.end(), [](const DataSplit& a, const DataSplit& b) {
        for (size_t i = 0; i < a.partition.size() && i < b.partition.size(); i++) {
          const int c = CompareValues(a.partition[i], b.partition[i]);
          if (c != 0) return c < 0;
        }
        return false;
      });
    }
    return std::move(plan_);
  }

 private:
  // Whether a filter names a partition column.
  bool FiltersPartitions(const std::vector<int>& pidx) const {
    for (const auto& p : options_.filters) {
      if (std::find(pidx.begin(), pidx.end(), p.column) != pidx.end()) return true;
    }
    return false;
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
    TRIB_ASSIGN_OR_RETURN(auto live, meta::ReadLiveIndexEntries(path_, snap, "DELETION_VECTORS"));
    for (const auto& e : live) {
      for (const auto& r : e.dv_ranges) {
        plan_.deletion_vectors[{e.partition, e.bucket, r.data_file}] = DvLocation{e, r};
      }
    }
    return Status::OK();
  }

  // With an equality or IN filter on every bucket-key column of a fixed-bucket table, only the
  // buckets of those values (one per key, at most 10000 keys) can hold matching rows in a
  // partition (point lookups): the set of them for `total_buckets`; nullopt when any bucket can.
  const std::optional<std::set<int32_t>>& LookupBuckets(int32_t total_buckets) {
    static const std::optional<std::set<int32_t>> kAny;
    if (total_buckets <= 0 || bucket_key_.empty()) return kAny;
    auto it = lookup_buckets_.find(total_buckets);
    if (it != lookup_buckets_.end()) return it->second;
    std::optional<std::set<int32_t>>& out = lookup_buckets_[total_buckets];
    // The literals must have the column's exact representation, or their hash would differ.
    auto keys = KeysFixedByFilters(*schema_, bucket_key_, options_.filters);
    if (!keys) return out;
    std::vector<DataType> types;
    for (int c : bucket_key_) types.push_back(schema_->fields[c].type);
    std::set<int32_t> buckets;
    for (const Row& k : *keys) {
      buckets.insert(format::BucketOf(format::HashRow(types, k), total_buckets));
    }
    out = std::move(buckets);
    return out;
  }

  bool FileMayMatch(const meta::DataFileMeta& f) const {
    if (options_.filters.empty()) return true;
    // Rows of a data-evolution table are assembled from several files: pruning one file of a
    // row-id group would leave another file's stale values.
    if (data_evolution_) return true;
    if (f.schema_id != schema_->id) return true;  // statistics in an older schema's layout
    if (!FileIndexMayMatch(f)) return false;
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

  // The file's embedded bloom filters (Paimon's file index; a manifest-level filter reads the
  // embedded ones, as Paimon's): false when an equality or IN filter rules the file out. On a
  // primary-key table only filters on key columns count: a file without the value holds no
  // record of those keys, while one without a non-key value may still hold an older record
  // another file's newer one overrides.
  bool FileIndexMayMatch(const meta::DataFileMeta& f) const {
    if (!core_.file_index_read || !f.embedded_file_index) return true;
    const bool any = std::any_of(
        options_.filters.begin(), options_.filters.end(),
        [](const auto& p) { return p.op == Predicate::Op::kEq || p.op == Predicate::Op::kIn; });
    if (!any) return true;
    auto index = datafile::DataFileIndex::Load(f, "");
    if (!index.ok() || !*index) return true;  // a damaged index prunes nothing; reads report it
    for (const auto& p : options_.filters) {
      if (p.column < 0 || p.column >= static_cast<int>(schema_->fields.size())) continue;
      if (layout_.primary_key && std::find(layout_.key_columns.begin(), layout_.key_columns.end(),
                                           p.column) == layout_.key_columns.end()) {
        continue;
      }
      const Field& field = schema_->fields[p.column];
      if (!(*index)->MayMatch(p, field.name, field.type)) return false;
    }
    return true;
  }

  const std::string& path_;
  const std::string& meta_path_;
  std::shared_ptr<const TableSchema> schema_;
  const options::CoreOptions& core_;
  const ScanOptions& options_;
  const std::set<std::string>* excluded_;
  bool top_level_only_ = false;
  bool every_partition_ = false;
  const PendingHook* pending_ = nullptr;
  FileLayout layout_;
  bool data_evolution_ = false;
  std::vector<int> bucket_key_;
  std::map<int32_t, std::optional<std::set<int32_t>>> lookup_buckets_;
  ScanPlan plan_;
};

}  // namespace

Result<ScanPlan> PlanScan(const ScanPlanRequest& request) { return ScanPlanner(request).Plan(); }

}  // namespace tributary::read
