// CompactionJob: merges the files of one CompactUnit with the table's merge function into new
// files at the unit's output level (rocksdb's compaction_job). Retractions are dropped when
// nothing older can remain below the output level.
// Thread-safety: single-threaded.
#pragma once

#include <string>
#include <vector>

#include "compact/compaction_picker.h"
#include "datafile/data_file.h"
#include "meta/paths.h"

namespace tributary::compact {

struct CompactionResult {
  std::vector<meta::DataFileMeta> before;
  // The files it wrote; with deletion vectors also a file of `before` moved to the output level
  // without a rewrite (Paimon's upgrade: same name, another level), which is not an output to
  // delete when the compaction is dropped (see IsUpgraded).
  std::vector<meta::DataFileMeta> after;
  bool by_columns = false;  // merged column by column (a deduplicate table), not row by row
  // 'changelog-producer' = 'full-compaction' and the output is the top level: the changes the
  // compaction makes visible (full_changelog.h), published with it.
  std::vector<meta::DataFileMeta> changelog;
};

class BucketDeletionVectors;

// Whether `f` of a result's `after` is one of its `before` files, moved up without a rewrite.
bool IsUpgraded(const CompactionResult& result, const meta::DataFileMeta& f);

// `highest_nonempty_level`: the highest level holding files in the bucket (any file, in the unit
// or not), so the job knows whether older data can lie below its output.
// `vectors`: the bucket's deletion vectors, for a deletion-vector table (Paimon's lookup
// compaction): the unit's inputs are read without their deleted rows; a key of the unit's
// level-0 files that no input above level 0 holds is looked up below the output level, and the
// record found there is marked deleted (its value merged in when the engine needs it);
// retractions are dropped (the older records they retract are marked instead); the inputs'
// own vectors are forgotten (rewritten). Unchanged when the compaction fails.
// `spill_dirs`: where a merge past 'sort-spill-threshold' spills (the session's 'io.tmp.dirs';
// empty: $TMPDIR, else /tmp).
Result<CompactionResult> RunCompaction(const std::string& table_path, const TableSchema& schema,
                                       const std::string& bucket_dir, const CompactUnit& unit,
                                       int32_t highest_nonempty_level, int64_t target_file_size,
                                       const options::FileFormatOptions& format,
                                       meta::FileNamer* namer,
                                       BucketDeletionVectors* vectors = nullptr,
                                       const std::vector<std::string>& spill_dirs = {});

// Merges `files` of one bucket without writing anything and returns the first error the merge
// function reports (an aggregate overflowing, say). The writer runs it before committing to an
// aggregation table, so such an INSERT fails instead of leaving a key that cannot be read.
Status DryRunMerge(const std::string& table_path, const TableSchema& schema,
                   const std::string& bucket_dir, const std::vector<meta::DataFileMeta>& files,
                   const std::vector<std::string>& spill_dirs = {});

}  // namespace tributary::compact
