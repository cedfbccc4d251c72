#include "table/rescale.h"

#include "common/parallel.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"
#include "tributary/table_writer.h"

namespace tributary::table {

Result<RewriteResult> Rescale(Table& table, const RescaleRequest& request) {
  const auto schema = table.schema();
  const auto wanted = PartitionFilter(*schema, request.partitions);
  const int scan_threads = request.scan_threads > 0 ? request.scan_threads : DefaultParallelism();
  const int sink_threads = request.sink_threads > 0 ? request.sink_threads : DefaultParallelism();
  return RewriteLatest(table.path(), "rescaled", [&](int64_t latest) -> Result<RewriteResult> {
    ScanOptions so;
    so.snapshot_id = latest;
    so.max_batch_rows = 65536;
    TRIB_ASSIGN_OR_RETURN(auto scan, table.NewScan(so));
    WriteOptions wo;
    wo.overwrite = true;
    wo.overwrite_buckets = request.buckets;
    wo.overwrite_base_snapshot = latest;
    TRIB_ASSIGN_OR_RETURN(auto writer, table.NewWriter(wo));
    RowBatch batch;
    int64_t rows = 0;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, [&] {
        ScopedParallelism threads(scan_threads);
        return scan->Next(&batch);
      }());
      if (!more) break;
      ScopedParallelism threads(sink_threads);
      for (Row& r : batch.rows) {
        if (!wanted(r)) continue;
        TRIB_RETURN_NOT_OK(writer->Write(RowKind::kInsert, std::move(r)));
        if (++rows % 100000 == 0 && request.progress) request.progress(rows);
      }
    }
    ScopedParallelism threads(sink_threads);
    return CommitRewrite(*writer);
  });
}

}  // namespace tributary::table
