// Switches for tests that compare the column paths with the row paths they replace (the same
// files, byte for byte). Not options: users always get the column paths where they apply.
// Thread-safety: atomics; set them before the writer or compaction they are meant for starts.
#pragma once

#include <atomic>
#include <cstddef>

namespace tributary::datafile {

struct TestHooks {
  std::atomic<bool> row_write_buffer{false};  // writers created now buffer rows, not columns
  std::atomic<bool> row_compaction{false};    // compactions merge rows, not columns
  // Merged records a chunked compaction writes at a time (0: the default), so small test files
  // take several chunks.
  std::atomic<size_t> compaction_chunk_rows{0};
};

// The process-wide switches (all off).
TestHooks& GetTestHooks();

}  // namespace tributary::datafile
