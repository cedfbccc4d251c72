#include "table/file_store_table.h"

#include <chrono>

#include "common/predicate.h"
#include "meta/schema_manager.h"
#include "meta/snapshot.h"
#include "read/pending.h"
#include "read/stream_scan.h"
#include "read/table_read.h"
#include "table/auto_partition.h"
#include "tributary/table_scan.h"
#include "tributary/table_writer.h"
#include "write/table_write.h"

namespace tributary::table {

using read::CountFromMetadata;
using read::NewFileStoreLookup;
using read::NewFileStoreScan;
using write::CompactTableFull;
using write::NewFileStoreWriter;
namespace {

class FileStoreTable : public Table {
 public:
  FileStoreTable(Identifier id, std::string path, std::shared_ptr<const TableSchema> schema,
                 std::shared_ptr<read::PendingSource> pending)
      : id_(std::move(id)),
        path_(std::move(path)),
        schema_(std::move(schema)),
        pending_{std::move(pending), id_} {}

  const Identifier& identifier() const override { return id_; }
  const std::string& path() const override { return path_; }
  std::shared_ptr<const TableSchema> schema() const override { return schema_; }

  Result<std::unique_ptr<TableWriter>> NewWriter(const WriteOptions& given) override {
    WriteOptions options = given;
    // A table with automatic partitions refuses rows for partitions past its retention (the
    // next maintenance would drop them: a statement would say "inserted" and the rows vanish).
    if (!options.overwrite && !options.check_new_partition) {
      auto rule = AutoPartitionRuleOf(*schema_);
      if (rule.ok() && *rule && (*rule)->retention >= 0) {
        options.check_new_partition = [rule = **rule](const std::string& partition) {
          const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
          return CheckPartitionRetained(rule, partition, now);
        };
      }
    }
    // A cross-partition-update writer learns each key's partition from a scan of the table.
    auto scanner = [path = path_, schema = schema_](
                       const std::vector<int>& projection,
                       const std::function<void(const Row&)>& row) -> Status {
      ScanOptions o;
      o.projection = projection;
      o.max_batch_rows = 65536;
      // The latest snapshot, whatever time travel the table's options ask of its readers.
      TRIB_ASSIGN_OR_RETURN(o.snapshot_id, meta::SnapshotManager(path).LatestId());
      if (!o.snapshot_id) return Status::OK();
      TRIB_ASSIGN_OR_RETURN(auto scan, NewFileStoreScan(path, schema, o));
      RowBatch batch;
      while (true) {
        TRIB_ASSIGN_OR_RETURN(bool more, scan->Next(&batch));
        if (!more) return Status::OK();
        for (const Row& r : batch.rows) row(r);
      }
    };
    return NewFileStoreWriter(path_, schema_, options, scanner);
  }
  Result<std::unique_ptr<TableScan>> NewScan(const ScanOptions& options) override {
    ScanOptions sorted = options;  // IN lists checked by binary search
    SortInLists(&sorted.filters);
    return NewFileStoreScan(path_, schema_, sorted, "", false, pending_);
  }
  Result<std::unique_ptr<StreamScan>> NewStreamScan(const StreamOptions& options) override {
    // A stream follows committed snapshots: what is pending is committed first.
    if (pending_) TRIB_RETURN_NOT_OK(pending_.source->Settle(id_));
    StreamOptions sorted = options;
    SortInLists(&sorted.filters);
    return read::NewFileStoreStreamScan(path_, schema_, sorted);
  }
  Result<std::unique_ptr<TableLookup>> NewLookup() override {
    return NewFileStoreLookup(path_, schema_, pending_);
  }
  Result<std::optional<int64_t>> CountFromMetadata(std::optional<int64_t> snapshot_id) override {
    // Pending writes are rows the metadata does not count: the rows are read.
    if (!snapshot_id && pending_ && pending_.source->Version(id_) != 0) {
      return std::optional<int64_t>();
    }
    return read::CountFromMetadata(path_, *schema_, snapshot_id);
  }
  Result<std::optional<int64_t>> CompactFull(
      const std::function<void(int64_t, int64_t)>& progress,
      const std::vector<std::map<std::string, std::string>>& partitions,
      std::vector<std::string>* warnings, const std::vector<std::string>& spill_dirs) override {
    return CompactTableFull(path_, schema_, progress, partitions, warnings, spill_dirs);
  }
  Result<std::optional<int64_t>> LatestSnapshotId() const override {
    // A caller pinning the latest snapshot by its id would not see pending writes: committed.
    if (pending_) TRIB_RETURN_NOT_OK(pending_.source->Settle(id_));
    return meta::SnapshotManager(path_).LatestId();
  }

 private:
  Identifier id_;
  std::string path_;
  std::shared_ptr<const TableSchema> schema_;
  read::PendingHook pending_;  // the catalog's, for the main branch
};

}  // namespace

Result<std::unique_ptr<Table>> OpenFileStoreTable(const Identifier& id, const std::string& path,
                                                  std::shared_ptr<read::PendingSource> pending) {
  auto schema = meta::SchemaManager(path).Latest();
  if (!schema.ok()) {
    if (schema.status().IsNotFound()) {
      return Status::NotFound("table '" + id.ToString() + "' does not exist");
    }
    return schema.status();
  }
  return std::unique_ptr<Table>(
      new FileStoreTable(id, path, std::move(*schema), std::move(pending)));
}

}  // namespace tributary::table
