// Point lookups by primary key (TableLookup): bucket from the key, the files whose key range
// holds it, a binary search in each (decoded once into the process-wide file cache), and the
// table's merge function over what was found.
#include <algorithm>
#include <map>

#include "format/binary_row.h"
#include "io/file_system.h"
#include "merge/merge_config.h"
#include "merge/merge_function.h"
#include "meta/paths.h"
#include "meta/schema_manager.h"
#include "meta/snapshot.h"
#include "options/core_options.h"
#include "datafile/data_file.h"
#include "io/file_cache.h"
#include "common/check_value.h"
#include "read/table_read.h"
#include "datafile/point_lookup.h"
#include "meta/snapshot_reader.h"
#include "tributary/table_scan.h"

namespace tributary::read {

using datafile::DecodeKeyRange;
using datafile::FileLayout;
using datafile::KeyRange;
using datafile::OptionIsTrue;
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
                  std::shared_ptr<const merge::MergeConfig> config)
      : path_(std::move(path)), schema_(std::move(schema)), core_(std::move(core)),
        config_(std::move(config)), layout_(FileLayout::Of(*schema_)) {
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
    dv_ = OptionIsTrue(*schema_, "deletion-vectors.enabled");
  }

  Status Refresh() override {
    files_.clear();
    total_buckets_.clear();
    meta::SnapshotManager snapshots(path_);
    TRIB_ASSIGN_OR_RETURN(auto id, snapshots.LatestId());
    snapshot_id_ = id;
    if (!id) return Status::OK();
    TRIB_ASSIGN_OR_RETURN(auto snap, ReadSnapshotCached(path_, *id));
    TRIB_ASSIGN_OR_RETURN(auto live, ReadLiveEntriesShared(path_, *snap));
    for (const auto& e : *live) {
      FileRef ref;
      ref.meta = e.file;
      if (e.file.external_path) {
        ref.path = ResolveExternalPath(path_, *e.file.external_path);
      } else {
        TRIB_ASSIGN_OR_RETURN(Row part, format::DeserializeBinaryRow(e.partition, part_types_));
        ref.path = io::JoinPath(
            meta::BucketDir(path_, meta::PartitionPath(part_fields_, part,
                                                       core_.partition_default_name),
                            e.bucket),
            e.file.file_name);
      }
      if (e.file.schema_id == schema_->id) ref.range = DecodeKeyRange(e.file, key_types_);
      files_[{e.partition, e.bucket}].push_back(std::move(ref));
      total_buckets_[e.partition] = e.total_buckets;
    }
    return Status::OK();
  }

  Result<std::optional<Row>> Get(const Row& key) override {
    if (key.size() != pk_idx_.size()) {
      return Status::Invalid("a lookup key needs " + std::to_string(pk_idx_.size()) +
                             " values (the primary key), got " + std::to_string(key.size()));
    }
    // Scratch rows reused across lookups (one thread at a time).
    Row& full = full_;
    full.assign(schema_->fields.size(), Value());
    for (size_t i = 0; i < pk_idx_.size(); i++) {
      TRIB_RETURN_NOT_OK(CheckValue(key[i], schema_->fields[pk_idx_[i]]));
      full[pk_idx_[i]] = key[i];
    }
    if (dv_) return ScanLookup(full);
    auto pick = [&full](const std::vector<int>& idx, Row* out) -> const Row& {
      out->resize(idx.size());
      for (size_t k = 0; k < idx.size(); k++) (*out)[k] = full[idx[k]];
      return *out;
    };
    const Row& trimmed = pick(layout_.key_columns, &trimmed_);
    if (cross_partition_) {
      // Cross-partition updates: the key names no partition, and lives in one of them (it may
      // have left retractions and older rows in others: each partition is merged alone).
      for (const auto& [pbytes, total] : total_buckets_) {
        TRIB_ASSIGN_OR_RETURN(auto row, GetIn(pbytes, total, full, trimmed));
        if (row) return row;
      }
      return std::optional<Row>();
    }
    // Unpartitioned tables have one (empty) partition: no need to encode it per lookup.
    std::string pbytes = part_types_.empty()
                             ? empty_partition_
                             : format::SerializeBinaryRow(part_types_, pick(part_idx_, &part_));
    auto tb = total_buckets_.find(pbytes);
    if (tb == total_buckets_.end()) return std::optional<Row>();
    return GetIn(pbytes, tb->second, full, trimmed);
  }

 private:
  // The key's row in one partition (`full`: the key's columns set; `trimmed`: its file key).
  Result<std::optional<Row>> GetIn(const std::string& pbytes, int32_t total_buckets,
                                   const Row& full, const Row& trimmed) {
    std::vector<merge::KeyValue> found;
    auto search_bucket = [&](int32_t b) -> Status {
      auto it = files_.find({pbytes, b});
      if (it == files_.end()) return Status::OK();
      for (FileRef& ref : it->second) TRIB_RETURN_NOT_OK(Search(ref, trimmed, &found));
      return Status::OK();
    };
    if (total_buckets > 0) {
      bucket_key_.resize(bucket_idx_.size());
      for (size_t k = 0; k < bucket_idx_.size(); k++) bucket_key_[k] = full[bucket_idx_[k]];
      TRIB_RETURN_NOT_OK(search_bucket(
          format::BucketOf(format::HashRow(bucket_types_, bucket_key_), total_buckets)));
    } else {
      for (const auto& [id, refs] : files_) {
        if (id.first == pbytes) TRIB_RETURN_NOT_OK(search_bucket(id.second));
      }
    }
    if (found.empty()) return std::optional<Row>();
    if (!merge_) {
      TRIB_ASSIGN_OR_RETURN(merge_, merge::MakeMergeFunction(config_, *schema_));
    }
    return MergeFound(std::move(found), config_, merge_.get());
  }

  struct FileRef {
    meta::DataFileMeta meta;
    std::string path;
    std::optional<KeyRange> range;  // unknown for files of older schemas
    std::shared_ptr<const SortedFile> records;  // loaded on first use
  };

  Status Search(FileRef& ref, const Row& key, std::vector<merge::KeyValue>* found) {
    if (ref.range && !ref.range->Contains(key)) return Status::OK();
    if (!ref.records) {
      const std::vector<Field>* file_fields = nullptr;
      if (ref.meta.schema_id != schema_->id) {
        auto it = file_schemas_.find(ref.meta.schema_id);
        if (it == file_schemas_.end()) {
          TRIB_ASSIGN_OR_RETURN(auto s, meta::SchemaManager(path_).Read(ref.meta.schema_id));
          it = file_schemas_.emplace(ref.meta.schema_id, std::move(s)).first;
        }
        file_fields = &it->second->fields;
      }
      TRIB_ASSIGN_OR_RETURN(ref.records, LoadSortedFile(ref.path, layout_, ref.meta, schema_->id,
                                                        file_fields));
    }
    return SearchSorted(*ref.records, layout_, key, found);
  }

  // Deletion-vector tables have their own visibility rules: answer with a filtered scan.
  Result<std::optional<Row>> ScanLookup(const Row& full) {
    ScanOptions o;
    for (int i : pk_idx_) o.filters.push_back(Predicate{i, Predicate::Op::kEq, {full[i]}});
    if (snapshot_id_) o.snapshot_id = snapshot_id_;
    TRIB_ASSIGN_OR_RETURN(auto scan, NewFileStoreScan(path_, schema_, o));
    RowBatch batch;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, scan->Next(&batch));
      if (!more) return std::optional<Row>();
      if (!batch.rows.empty()) return std::optional<Row>(std::move(batch.rows[0]));
    }
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
  std::string empty_partition_;
  bool cross_partition_ = false;  // a primary key without every partition key
  std::optional<int64_t> snapshot_id_;
  std::map<std::pair<std::string, int32_t>, std::vector<FileRef>> files_;
  std::map<std::string, int32_t> total_buckets_;  // per partition
  std::map<int64_t, std::shared_ptr<const TableSchema>> file_schemas_;
  std::unique_ptr<merge::MergeFunction> merge_;
  Row full_, part_, trimmed_, bucket_key_;  // Get's scratch rows
};

}  // namespace

Result<std::unique_ptr<TableLookup>> NewFileStoreLookup(const std::string& path,
                                                        std::shared_ptr<const TableSchema> schema) {
  if (!schema->HasPrimaryKey()) {
    return Status::Invalid("point lookups need a primary-key table");
  }
  TRIB_ASSIGN_OR_RETURN(CoreOptions core, CoreOptions::From(*schema));
  TRIB_ASSIGN_OR_RETURN(auto config, merge::MergeConfig::Make(*schema));
  auto lookup = std::make_unique<FileStoreLookup>(path, std::move(schema), std::move(core),
                                                  std::move(config));
  TRIB_RETURN_NOT_OK(lookup->Refresh());
  return std::unique_ptr<TableLookup>(std::move(lookup));
}

}  // namespace tributary::read
