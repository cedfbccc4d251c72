// Merges of many sorted runs within 'sort-spill-threshold' (Paimon's key; issue 38,
// docs/memory.md): a read or compaction of a bucket merging more sorted runs than the threshold
// first merges some of them, every record kept, into a local spill file and reads that back as
// one run, a segment at a time, so that the merge holds at most that many runs (a level above 0
// is one run, but each of its files is a reader of its own).
// Thread-safety: single-threaded; the sources returned are used by one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "datafile/spill_file.h"
#include "merge/sort_merge_reader.h"
#include "tributary/result.h"

namespace tributary::options {
struct CoreOptions;
}  // namespace tributary::options

namespace tributary::datafile {

struct FileLayout;

// The records of segments [first, end) of `file`, one segment held at a time: each row's
// columns, then its sequence number and kind, then its level when `with_level` (a run this file
// spilled; a writer's spilled buffers have none: level 0). `keep` (optional) keeps the file open.
class SpilledRecords : public merge::RecordSource {
 public:
  SpilledRecords(const SpillFile* file, size_t first, size_t end, bool with_level,
                 std::shared_ptr<const SpillFile> keep = nullptr);
  Result<bool> Next(merge::KeyValue* out) override;

 private:
  const SpillFile* file_;
  std::shared_ptr<const SpillFile> keep_;
  size_t next_, end_, nf_;
  bool with_level_;
  ColumnBatch batch_;
  size_t row_ = 0;
};

// One input file of a merge, opened only when the merge reads it.
struct MergeInput {
  int32_t level = 0;
  int64_t bytes = 0;  // its file size: the smallest inputs are the ones spilled
  int64_t rows = 0;
  std::function<Result<std::unique_ptr<merge::RecordSource>>()> open;
};

// The number of sorted runs `levels` (one per input) make, as Paimon counts them: each level-0
// file is a run, each other level one run.
size_t SortedRunCount(const std::vector<int32_t>& levels);

// When a merge spills: past `threshold` sorted runs, when its inputs hold more than `min_rows`.
struct SortSpill {
  size_t threshold = 0;  // 0: never spill
  int64_t min_rows = 0;
  // 'sort-spill-buffer-size': the segments the merge holds at once (8 read, one written, and
  // the one being encoded) share it; each is cut at a tenth of it, at about its records'
  // in-memory size.
  int64_t buffer_bytes = int64_t{64} << 20;
  SpillOptions spill;

  // A table's: 'sort-spill-threshold' as given, at any size; unset, Paimon's default
  // ('num-sorted-run.stop-trigger' + 1) for merges of more rows than a sixteenth of the
  // process's memory budget holds at about 64 bytes a row (524,288 at the default 512 MiB):
  // smaller merges are faster in memory, by columns, and hold less than the spilling merge.
  static SortSpill Of(const options::CoreOptions& core, std::vector<std::string> dirs = {});
  // Whether a merge of inputs at `levels` holding `rows` in all spills.
  bool Spills(const std::vector<int32_t>& levels, int64_t rows) const;
};

// The sources of a merge of `inputs` (in merge order: older first; a later source wins ties),
// as many sorted runs as `spill.threshold` at most. Within it every input is opened as it is.
// Past it the window of consecutive inputs with the fewest bytes that brings the count within
// the threshold is merged (`cmp`, `order`; every record kept, retractions too) into a spill file,
// at most 8 inputs at a time and those runs again 8 at a time, and read back as one source in
// the window's place, holding a segment of each of its last runs. `spilled` (optional) counts
// the inputs spilled.
Result<std::vector<std::unique_ptr<merge::RecordSource>>> OpenMergeSources(
    std::vector<MergeInput> inputs, const SortSpill& spill, const FileLayout& layout,
    const merge::KeyComparator& cmp, const merge::SequenceOrder& order, size_t* spilled = nullptr);

}  // namespace tributary::datafile
