// The StreamScan of a Paimon table directory (include/tributary/stream_scan.h): Paimon's
// DataTableStreamScan with its starting scanners (full, latest, earliest, from-snapshot,
// timestamp) and follow-up scanners (changelog files of snapshots that list them; the new files
// of APPEND snapshots when the table has no changelog producer, normalised into a complete
// changelog).
// Thread-safety: as StreamScan.
#pragma once

#include <memory>
#include <string>

#include "tributary/stream_scan.h"

namespace tributary::read {

Result<std::unique_ptr<StreamScan>> NewFileStoreStreamScan(
    const std::string& path, std::shared_ptr<const TableSchema> schema,
    const StreamOptions& options);

}  // namespace tributary::read
