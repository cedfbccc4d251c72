// The read path: snapshot -> manifests -> splits pruned by partition and statistics -> merged
// rows of each split -> filters and projection.
#include <algorithm>
#include <map>

#include "format/binary_row.h"
#include "io/file_system.h"
#include "merge/sort_merge_reader.h"
#include "meta/paths.h"
#include "meta/snapshot.h"
#include "options/option_values.h"
#include "table/core_options.h"
#include "table/data_file.h"
#include "table/file_store_table.h"
#include "table/predicate.h"
#include "table/snapshot_reader.h"
#include "tributary/table_scan.h"

namespace tributary::table {
namespace {

struct Split {
  Row partition;
  int32_t bucket = 0;
  std::string dir;
  std::vector<meta::DataFileMeta> files;
};

class FileStoreScan : public TableScan {
 public:
  FileStoreScan(std::string path, std::shared_ptr<const TableSchema> schema, ScanOptions options,
                CoreOptions core)
      : path_(std::move(path)), schema_(std::move(schema)), options_(std::move(options)),
        core_(std::move(core)), layout_(FileLayout::Of(*schema_)) {
    if (options_.projection) {
      projection_ = *options_.projection;
    } else {
      for (size_t i = 0; i < schema_->fields.size(); i++) projection_.push_back(static_cast<int>(i));
    }
    for (int i : projection_) output_fields_.push_back(schema_->fields[i]);
  }

  const std::vector<Field>& output_fields() const override { return output_fields_; }

  Result<bool> Next(RowBatch* batch) override {
    batch->Clear();
    if (!planned_) {
      TRIB_RETURN_NOT_OK(Plan());
      planned_ = true;
    }
    while (next_split_ < splits_.size()) {
      if (options_.limit && emitted_ >= *options_.limit) return false;
      const Split& split = splits_[next_split_++];
      TRIB_RETURN_NOT_OK(ReadSplit(split, batch));
      if (!batch->rows.empty()) return true;
    }
    return false;
  }

 private:
  Status Plan() {
    meta::SnapshotManager snapshots(path_);
    std::optional<int64_t> id = options_.snapshot_id;
    auto dyn = options_.dynamic_options.find("scan.snapshot-id");
    if (!id && dyn != options_.dynamic_options.end()) {
      TRIB_ASSIGN_OR_RETURN(int64_t v, options::ParseInt64(dyn->second));
      id = v;
    }
    if (!id) {
      TRIB_ASSIGN_OR_RETURN(id, snapshots.LatestId());
      if (!id) return Status::OK();  // empty table
    }
    TRIB_ASSIGN_OR_RETURN(auto snap, snapshots.Read(*id));
    TRIB_ASSIGN_OR_RETURN(auto live, ReadLiveEntries(path_, *snap));
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
    for (auto& e : live) {
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
      splits_[it->second].files.push_back(std::move(e.file));
    }
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

  bool FileMayMatch(const meta::DataFileMeta& f) const {
    if (options_.filters.empty()) return true;
    if (layout_.primary_key) {
      // Key range: the first trimmed key column bounds every record of the file.
      if (layout_.key_columns.empty()) return true;
      int first = layout_.key_columns[0];
      std::vector<DataType> kt = layout_.KeyTypes();
      auto min = format::DeserializeBinaryRow(f.min_key, kt);
      auto max = format::DeserializeBinaryRow(f.max_key, kt);
      if (!min.ok() || !max.ok() || min->empty() || max->empty()) return true;
      for (const auto& p : options_.filters) {
        if (p.column == first && !MayMatchRange(p, (*min)[0], (*max)[0])) return false;
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

  void Emit(Row&& r, RowBatch* batch) {
    if (options_.limit && emitted_ >= *options_.limit) return;
    if (!RowMatches(r)) return;
    Row out;
    out.reserve(projection_.size());
    for (int i : projection_) out.push_back(std::move(r[i]));
    batch->rows.push_back(std::move(out));
    batch->kinds.push_back(RowKind::kInsert);
    emitted_++;
  }

  Status ReadSplit(const Split& split, RowBatch* batch) {
    if (!layout_.primary_key) {
      for (const auto& f : split.files) {
        TRIB_ASSIGN_OR_RETURN(auto records,
                              ReadDataFile(io::JoinPath(split.dir, f.file_name), layout_, f.level));
        for (auto& kv : records) Emit(std::move(kv.value), batch);
      }
      return Status::OK();
    }
    std::vector<meta::DataFileMeta> files = split.files;
    std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
      return a.max_sequence_number < b.max_sequence_number;
    });
    std::vector<std::unique_ptr<merge::RecordSource>> sources;
    for (const auto& f : files) {
      TRIB_ASSIGN_OR_RETURN(auto records, ReadDataFile(io::JoinPath(split.dir, f.file_name),
                                                       layout_, f.level, f.write_cols));
      sources.push_back(std::make_unique<merge::VectorSource>(std::move(records)));
    }
    TRIB_ASSIGN_OR_RETURN(auto config, merge::MergeConfig::Make(*schema_));
    TRIB_ASSIGN_OR_RETURN(auto mf, merge::MakeMergeFunction(config, *schema_));
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

  std::string path_;
  std::shared_ptr<const TableSchema> schema_;
  ScanOptions options_;
  CoreOptions core_;
  FileLayout layout_;
  std::vector<int> projection_;
  std::vector<Field> output_fields_;
  std::vector<Split> splits_;
  size_t next_split_ = 0;
  bool planned_ = false;
  int64_t emitted_ = 0;
};

}  // namespace

Result<std::unique_ptr<TableScan>> NewFileStoreScan(const std::string& path,
                                                    std::shared_ptr<const TableSchema> schema,
                                                    const ScanOptions& options) {
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
      new FileStoreScan(path, std::move(schema), options, std::move(core)));
}

}  // namespace tributary::table
