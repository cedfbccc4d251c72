// Switches for tests: comparing the column paths with the row paths they replace (the same
// files, byte for byte), and holding a compaction back. Not options: users never set them.
// Thread-safety: atomics; set them before the writer or compaction they are meant for starts.
#pragma once

#include <atomic>
#include <cstddef>

namespace tributary::datafile {

struct TestHooks {
  std::atomic<bool> row_write_buffer{false};  // writers created now buffer rows, not columns
  std::atomic<bool> row_compaction{false};    // compactions merge rows, not columns
  // Merged records (deduplicate, first-row) or keys (the other engines) a chunked compaction
  // writes at a time (0: the default), so small test files take several chunks.
  std::atomic<size_t> compaction_chunk_rows{0};
  // Keys a read's merge by columns merges at a time (0: the default).
  std::atomic<size_t> read_merge_chunk_keys{0};
  // While set, an append table's small-file compaction waits (at most 10 s) before it reads
  // anything: a test sees whether the writer waits for it.
  std::atomic<bool> hold_append_compaction{false};
};

// The process-wide switches (all off).
TestHooks& GetTestHooks();

}  // namespace tributary::datafile
