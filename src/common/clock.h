// Milliseconds now: by the wall clock (Unix epoch: what snapshots, leases and file metadata
// record) and by the monotonic clock (for intervals within the process).
#pragma once

#include <cstdint>

namespace tributary {

int64_t WallClockMillis();
int64_t SteadyClockMillis();

}  // namespace tributary
