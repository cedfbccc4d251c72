// Point lookups by primary key (TableLookup): bucket from the key, the files whose key range
// holds it, a binary search in each (decoded once into the process-wide file cache), and the
// table's merge function over what was found. A deletion-vector table's lookups see what its
// batch reads see: files above level 0 (and level 0 with 'deletion-vectors.merge-on-read'), less
// the rows their vectors delete.
#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "common/check_value.h"
#include "common/memory_budget.h"
#include "common/parallel.h"
#include "datafile/data_file.h"
#include "datafile/file_index_filter.h"
#include "datafile/point_lookup.h"
#include "format/binary_row.h"
#include "format/deletion_vector.h"
#include "io/file_cache.h"
#include "io/file_system.h"
#include "merge/merge_config.h"
#include "merge/merge_function.h"
#include "meta/paths.h"
#include "meta/schema_manager.h"
#include "meta/snapshot.h"
#include "meta/snapshot_reader.h"
#include "options/core_options.h"
#include "options/option_keys.h"
#include "read/table_read.h"
#include "tributary/table_scan.h"

namespace tributary::read {

using datafile::DecodeKeyRange;
using datafile::FileLayout;
using datafile::KeyRange;
using datafile::LoadSortedFile;
using datafile::MergeFound;
using datafile::SearchSorted;
using datafile::SortedFile;
using meta::ReadLiveEntriesShared;
using meta::ReadSnapshotCached;
using meta::ResolveExternalPath;
using options::CoreOptions;
namespace {

class FileStoreLookup : public TableLookup {
 public:
  FileStoreLookup(std::string path, std::shared_ptr<const TableSchema> schema, CoreOptions core,
                  std::shared_ptr<const merge::MergeConfig> config, PendingHook pending)
      : path_(std::move(path)),
        schema_(std::move(schema)),
        core_(std::move(core)),
        config_(std::move(config)),
        layout_(FileLayout::Of(*schema_)),
        pending_(std::move(pending)) {
    for (const auto& k : schema_->primary_keys) pk_idx_.push_back(schema_->FieldIndex(k));
    for (const auto& k : schema_->partition_keys) {
      int i = schema_->FieldIndex(k);
      part_idx_.push_back(i);
      part_fields_.push_back(schema_->fields[i]);
      part_types_.push_back(schema_->fields[i].type);
    }
    for (const auto& k : schema_->BucketKeys()) {
      int i = schema_->FieldIndex(k);
      bucket_idx_.push_back(i);
      bucket_types_.push_back(schema_->fields[i].type);
    }
    key_types_ = layout_.KeyTypes();
    empty_partition_ = format::SerializeBinaryRow({}, {});
    cross_partition_ = layout_.primary_key &&
                       schema_->TrimmedPrimaryKeys().size() + schema_->partition_keys.size() !=
                           schema_->primary_keys.size();
    dv_ = options::GetOrDefault(*schema_, options::kDeletionVectorsEnabled);
    dv_level0_ = dv_ && options::GetOrDefault(*schema_, options::kDeletionVectorsMergeOnRead);
  }

  Status Refresh() override {
    // Pending writes (read/pending.h): the snapshot they go on top of, and their files.
    std::optional<PendingView> view;
    if (pending_) {
      seen_version_ = pending_.source->Version(pending_.id);
      if (seen_version_ != 0) {
        TRIB_ASSIGN_OR_RETURN(view, pending_.source->Pending(pending_.id));
        if (view) seen_version_ = view->version;
      }
    }
    std::shared_ptr<const meta::Snapshot> snap;
    if (view) {
      if (view->snapshot_id) {
        TRIB_ASSIGN_OR_RETURN(snap, meta::ReadSnapshotCached(path_, *view->snapshot_id));
      }
    } else {
      // While nothing is committed this costs one stat (ReadLatestSnapshotCached): a snapshot
      // read from the same file version is the same cached object, its file set already loaded.
      TRIB_ASSIGN_OR_RETURN(snap, meta::ReadLatestSnapshotCached(path_));
      if (snap && snap == pinned_) return Status::OK();
    }
    files_.clear();
    total_buckets_.clear();
    pinned_.reset();  // set once the file set is whole (and holds no pending file)
    snapshot_id_.reset();
    if (!snap && !view) return Status::OK();
    std::shared_ptr<const std::vector<meta::ManifestEntry>> live;
    std::map<std::string, std::shared_ptr<const std::set<int64_t>>> deleted;
    if (snap) {
      snapshot_id_ = snap->id;
      TRIB_ASSIGN_OR_RETURN(live, ReadLiveEntriesShared(path_, *snap));
      // Deletion-vector tables: what a batch read sees, the files above level 0 less the rows
      // their vectors delete.
      if (dv_) TRIB_RETURN_NOT_OK(LoadDeletionVectors(*snap, &deleted));
    }
    auto add = [&](const meta::ManifestEntry& e) -> Status {
      if (dv_ && e.file.level == 0 && !dv_level0_) {
        total_buckets_[e.partition] = e.total_buckets;
        return Status::OK();
      }
      FileRef ref;
      ref.meta = e.file;
      if (dv_) {
        auto d = deleted.find(e.file.file_name);
        if (d != deleted.end()) ref.deleted = d->second;
      }
      if (e.file.external_path) {
        ref.path = ResolveExternalPath(path_, *e.file.external_path);
      } else {
        TRIB_ASSIGN_OR_RETURN(Row part, format::DeserializeBinaryRow(e.partition, part_types_));
        ref.path = io::JoinPath(
            meta::BucketDir(path_,
                            meta::PartitionPath(part_fields_, part, core_.partition_default_name),
                            e.bucket),
            e.file.file_name);
      }
      if (e.file.schema_id == schema_->id) ref.range = DecodeKeyRange(e.file, key_types_);
      files_[{e.partition, e.bucket}].push_back(std::move(ref));
      total_buckets_[e.partition] = e.total_buckets;
      return Status::OK();
    };
    if (live) {
      for (const auto& e : *live) TRIB_RETURN_NOT_OK(add(e));
    }
    if (view) {
      for (const auto& e : view->files) TRIB_RETURN_NOT_OK(add(e));
      return Status::OK();
    }
    pinned_ = std::move(snap);
    return Status::OK();
  }

  // Pending writes changed since the last Refresh (a write, a tiering): refreshed first.
  Status RefreshPending() {
    if (pending_ && pending_.source->Version(pending_.id) != seen_version_) return Refresh();
    return Status::OK();
  }

  Result<std::optional<Row>> Get(const Row& key) override {
    TRIB_RETURN_NOT_OK(RefreshPending());
    Route route;
    TRIB_RETURN_NOT_OK(RouteKey(key, &route));
    return GetRouted(route, &scratch_);
  }

  Result<std::vector<std::optional<Row>>> GetAll(const std::vector<Row>& keys,
                                                 int threads) override {
    TRIB_RETURN_NOT_OK(RefreshPending());
    std::vector<std::optional<Row>> out(keys.size());
    // Keys grouped by bucket: one thread looks up a bucket's keys, so the bucket's files load
    // once and no two threads touch one file's state. Keys whose bucket is not known from the key
    // (dynamic buckets, cross-partition keys) are looked up by the calling thread alone, after
    // the others.
    std::vector<Route> routes(keys.size());
    std::map<std::pair<std::string, int32_t>, std::vector<size_t>> by_bucket;
    std::vector<size_t> elsewhere;
    for (size_t k = 0; k < keys.size(); k++) {
      TRIB_RETURN_NOT_OK(RouteKey(keys[k], &routes[k]));
      if (routes[k].bucket >= 0) {
        by_bucket[{routes[k].partition, routes[k].bucket}].push_back(k);
      } else {
        elsewhere.push_back(k);
      }
    }
    std::vector<const std::vector<size_t>*> groups;
    for (const auto& [bucket, members] : by_bucket) groups.push_back(&members);
    // Contiguous runs of groups, a scratch (and merge function) each; more runs than threads so
    // a slow bucket does not hold the others back.
    const size_t runs = threads <= 1 ? 1 : std::min(groups.size(), size_t(threads) * 4);
    std::vector<Scratch> scratch(std::max<size_t>(runs, 1));
    TRIB_RETURN_NOT_OK(ParallelFor(runs, threads, [&](size_t r) -> Status {
      const size_t begin = groups.size() * r / runs, end = groups.size() * (r + 1) / runs;
      for (size_t g = begin; g < end; g++) {
        for (size_t k : *groups[g]) {
          TRIB_ASSIGN_OR_RETURN(out[k], GetRouted(routes[k], &scratch[r]));
        }
      }
      return Status::OK();
    }));
    for (size_t k : elsewhere) {
      TRIB_ASSIGN_OR_RETURN(out[k], GetRouted(routes[k], &scratch_));
    }
    return out;
  }

 private:
  // Where a key is looked up: its full row (key columns set), its file key, its partition and
  // bucket (-1: not known from the key; every bucket of the partition, or of every partition
  // for cross-partition keys).
  struct Route {
    Row full, trimmed;
    std::string partition;
    int32_t bucket = -1;
    int32_t bucket_hash = 0;  // of the bucket key (cross-partition keys: per partition's count)
    bool absent = false;      // its partition holds nothing
  };
  // A lookup's per-thread state.
  struct Scratch {
    std::unique_ptr<merge::MergeFunction> merge;
  };

  Status RouteKey(const Row& key, Route* route) {
    if (key.size() != pk_idx_.size()) {
      return Status::Invalid("a lookup key needs " + std::to_string(pk_idx_.size()) +
                             " values (the primary key), got " + std::to_string(key.size()));
    }
    Row& full = route->full;
    full.assign(schema_->fields.size(), Value());
    for (size_t i = 0; i < pk_idx_.size(); i++) {
      TRIB_RETURN_NOT_OK(CheckValue(key[i], schema_->fields[pk_idx_[i]]));
      full[pk_idx_[i]] = key[i];
    }
    auto pick = [&full](const std::vector<int>& idx) {
      Row out(idx.size());
      for (size_t k = 0; k < idx.size(); k++) out[k] = full[idx[k]];
      return out;
    };
    route->trimmed = pick(layout_.key_columns);
    route->bucket_hash = format::HashRow(bucket_types_, pick(bucket_idx_));
    if (cross_partition_) return Status::OK();
    // Unpartitioned tables have one (empty) partition: no need to encode it per lookup.
    route->partition = part_types_.empty()
                           ? empty_partition_
                           : format::SerializeBinaryRow(part_types_, pick(part_idx_));
    auto tb = total_buckets_.find(route->partition);
    if (tb == total_buckets_.end()) {
      route->absent = true;
    } else if (tb->second > 0) {
      route->bucket = format::BucketOf(route->bucket_hash, tb->second);
    }
    return Status::OK();
  }

  Result<std::optional<Row>> GetRouted(const Route& route, Scratch* scratch) {
    if (route.absent) return std::optional<Row>();
    if (cross_partition_) {
      // Cross-partition updates: the key names no partition, and lives in one of them (it may
      // have left retractions and older rows in others: each partition is merged alone).
      for (const auto& [pbytes, total] : total_buckets_) {
        const int32_t bucket = total > 0 ? format::BucketOf(route.bucket_hash, total) : -1;
        TRIB_ASSIGN_OR_RETURN(auto row, GetIn(pbytes, bucket, route.trimmed, scratch));
        if (row) return row;
      }
      return std::optional<Row>();
    }
    return GetIn(route.partition, route.bucket, route.trimmed, scratch);
  }

  // The key's row in one partition, from bucket `bucket` (-1: every bucket of the partition).
  Result<std::optional<Row>> GetIn(const std::string& pbytes, int32_t bucket, const Row& trimmed,
                                   Scratch* scratch) {
    std::vector<merge::KeyValue> found;
    auto search_bucket = [&](int32_t b) -> Status {
      auto it = files_.find({pbytes, b});
      if (it == files_.end()) return Status::OK();
      for (FileRef& ref : it->second) TRIB_RETURN_NOT_OK(Search(ref, trimmed, &found));
      return Status::OK();
    };
    if (bucket >= 0) {
      TRIB_RETURN_NOT_OK(search_bucket(bucket));
    } else {
      for (auto it = files_.lower_bound({pbytes, INT32_MIN});
           it != files_.end() && it->first.first == pbytes; ++it) {
        TRIB_RETURN_NOT_OK(search_bucket(it->first.second));
      }
    }
    if (found.empty()) return std::optional<Row>();
    if (!scratch->merge) {
      TRIB_ASSIGN_OR_RETURN(scratch->merge, merge::MakeMergeFunction(config_, *schema_));
    }
    return MergeFound(std::move(found), config_, scratch->merge.get());
  }

  struct FileRef {
    meta::DataFileMeta meta;
    std::string path;
    std::optional<KeyRange> range;  // unknown for files of older schemas
    // The file decoded, as the file cache holds it (loaded on first use): not kept alive here,
    // so what lookups hold stays within the cache's budget; read back once the cache evicts it.
    std::weak_ptr<const SortedFile> records;
    // A file the cache could not keep (larger than it) is held here instead, charged to the
    // process's budget as an operator's memory (the cache gives way).
    std::shared_ptr<const SortedFile> held;
    std::shared_ptr<MemoryCharge> held_charge;
    std::shared_ptr<const datafile::DataFileIndex> index;  // its bloom filters, if any
    bool index_loaded = false;
    std::shared_ptr<const std::set<int64_t>> deleted;  // its deletion vector's rows, if any
  };

  Status Search(FileRef& ref, const Row& key, std::vector<merge::KeyValue>* found) {
    if (ref.range && !ref.range->Contains(key)) return Status::OK();
    // The file's bloom filters of the key columns (Paimon's file index): a key they rule out is
    // not in the file, which is then not read at all.
    if (core_.file_index_read && ref.meta.schema_id == schema_->id &&
        (ref.meta.embedded_file_index || !ref.meta.extra_files.empty())) {
      if (!ref.index_loaded) {
        // A missing or damaged index only loses the shortcut: the file is searched.
        auto index =
            datafile::DataFileIndex::Load(ref.meta, ref.path.substr(0, ref.path.rfind('/')));
        if (index.ok()) ref.index = std::move(*index);
        ref.index_loaded = true;
      }
      if (ref.index) {
        for (size_t i = 0; i < layout_.key_columns.size(); i++) {
          const Field& field = schema_->fields[layout_.key_columns[i]];
          if (!ref.index->MightContain(field.name, key[i], field.type)) return Status::OK();
        }
      }
    }
    std::shared_ptr<const SortedFile> records = ref.held ? ref.held : ref.records.lock();
    if (!records && datafile::SearchesByPages(ref.meta, layout_, schema_->id, key)) {
      TRIB_ASSIGN_OR_RETURN(bool searched, datafile::FindKeyByPages(ref.path, layout_, ref.meta,
                                                                    key, found, ref.deleted.get()));
      if (searched) return Status::OK();
    }
    if (!records) {
      const std::vector<Field>* file_fields = nullptr;
      if (ref.meta.schema_id != schema_->id) {
        std::lock_guard<std::mutex> lock(file_schemas_mutex_);  // GetAll's threads share it
        auto it = file_schemas_.find(ref.meta.schema_id);
        if (it == file_schemas_.end()) {
          TRIB_ASSIGN_OR_RETURN(auto s, meta::SchemaManager(path_).Read(ref.meta.schema_id));
          it = file_schemas_.emplace(ref.meta.schema_id, std::move(s)).first;
        }
        file_fields = &it->second->fields;
      }
      TRIB_ASSIGN_OR_RETURN(records,
                            LoadSortedFile(ref.path, layout_, ref.meta, schema_->id, file_fields));
      ref.records = records;
      // (A copy loaded beside another thread's, or evicted at once, is read back from the
      // cache next time.)
      if (records->bytes > io::FileCache::Instance().Capacity()) {  // the cache cannot keep it
        ref.held = records;
        ref.held_charge = std::make_shared<MemoryCharge>();
        ref.held_charge->Set(records->bytes);
      }
    }
    return SearchSorted(*records, layout_, key, found, ref.deleted.get());
  }

  // The deleted positions of every data file the snapshot's deletion-vector index files name.
  Status LoadDeletionVectors(
      const meta::Snapshot& snap,
      std::map<std::string, std::shared_ptr<const std::set<int64_t>>>* out) const {
    TRIB_ASSIGN_OR_RETURN(auto entries,
                          meta::ReadLiveIndexEntries(path_, snap, "DELETION_VECTORS"));
    for (const auto& e : entries) {
      if (e.dv_ranges.empty()) continue;
      std::string path = e.external_path ? *e.external_path : meta::IndexPath(path_, e.file_name);
      if (!e.external_path && !io::LocalFs().FileExists(path).ValueOr(false)) {
        // 'index-file-in-data-file-dir': the file is in the bucket's directory.
        TRIB_ASSIGN_OR_RETURN(Row part, format::DeserializeBinaryRow(e.partition, part_types_));
        path = io::JoinPath(
            meta::BucketDir(path_,
                            meta::PartitionPath(part_fields_, part, core_.partition_default_name),
                            e.bucket),
            e.file_name);
      }
      TRIB_ASSIGN_OR_RETURN(std::string bytes, io::LocalFs().ReadFile(path));
      for (const auto& r : e.dv_ranges) {
        TRIB_ASSIGN_OR_RETURN(format::DeletionVector dv,
                              format::DeletionVector::Decode(
                                  bytes, r.offset, r.length,
                                  "deletion vector of '" + r.data_file + "' in '" + path + "'"));
        std::vector<int64_t> positions = dv.Positions();
        (*out)[r.data_file] =
            std::make_shared<const std::set<int64_t>>(positions.begin(), positions.end());
      }
    }
    return Status::OK();
  }

  std::string path_;
  std::shared_ptr<const TableSchema> schema_;
  CoreOptions core_;
  std::shared_ptr<const merge::MergeConfig> config_;
  FileLayout layout_;
  std::vector<int> pk_idx_, part_idx_, bucket_idx_;
  std::vector<Field> part_fields_;
  std::vector<DataType> part_types_, bucket_types_, key_types_;
  bool dv_ = false;
  bool dv_level0_ = false;  // 'deletion-vectors.merge-on-read': level-0 files merged in too
  std::string empty_partition_;
  bool cross_partition_ = false;  // a primary key without every partition key
  std::optional<int64_t> snapshot_id_;
  std::shared_ptr<const meta::Snapshot> pinned_;  // the snapshot files_ holds
  PendingHook pending_;
  uint64_t seen_version_ = 0;  // the pending source's Version() files_ holds
  std::map<std::pair<std::string, int32_t>, std::vector<FileRef>> files_;
  std::map<std::string, int32_t> total_buckets_;  // per partition
  std::mutex file_schemas_mutex_;
  std::map<int64_t, std::shared_ptr<const TableSchema>> file_schemas_;
  Scratch scratch_;  // Get's
};

}  // namespace

Result<std::unique_ptr<TableLookup>> NewFileStoreLookup(const std::string& path,
                                                        std::shared_ptr<const TableSchema> schema,
                                                        PendingHook pending) {
  if (!schema->HasPrimaryKey()) {
    return Status::Invalid("point lookups need a primary-key table");
  }
  TRIB_ASSIGN_OR_RETURN(CoreOptions core, CoreOptions::From(*schema));
  TRIB_ASSIGN_OR_RETURN(auto config, merge::MergeConfig::Make(*schema));
  auto lookup = std::make_unique<FileStoreLookup>(path, std::move(schema), std::move(core),
                                                  std::move(config), std::move(pending));
  TRIB_RETURN_NOT_OK(lookup->Refresh());
  return std::unique_ptr<TableLookup>(std::move(lookup));
}

}  // namespace tributary::read
