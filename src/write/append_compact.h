// Compaction of append tables (no primary key), as Paimon's bucketed append compaction: a
// bucket's files in sequence order, consecutive small files (under 'target-file-size')
// rewritten into files of up to that size. Only neighbours are merged, so the order of the rows
// (a queue table's order, 'bucket' = 'n') is kept; a scalable append table ('bucket' = '-1')
// keeps its files in bucket 0 and is compacted the same way.
// Thread-safety: stateless functions.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "meta/manifest.h"
#include "tributary/result.h"

namespace tributary {
struct TableSchema;
}  // namespace tributary

namespace tributary::commit {
struct CommitMessage;
}  // namespace tributary::commit

namespace tributary::write {

// Commits the compactions of several buckets (`messages`, one per bucket, nullopt: none) as one
// COMPACT snapshot, after the parallel work that made them ended with `work`. On any failure
// (`work` included) the files they wrote (`outputs`, paths) are deleted; a compaction that lost
// a race with another writer is Conflict naming `what`. nullopt: nothing to commit.
Result<std::optional<int64_t>> CommitCompactions(
    const std::string& path, std::shared_ptr<const TableSchema> schema,
    const std::string& commit_user, Status work,
    std::vector<std::optional<commit::CommitMessage>> messages,
    const std::vector<std::vector<std::string>>& outputs, const std::string& what);

// Automatic compaction (after a writer's commit): the first window of consecutive small files
// that holds at least `min_files` files and reaches `target_size` bytes, or holds `max_files`
// files. `sorted`: one bucket's files in sequence order. nullopt: nothing to compact yet.
std::optional<std::vector<meta::DataFileMeta>> PickAppendCompaction(
    const std::vector<meta::DataFileMeta>& sorted, int64_t target_size, int64_t min_files,
    int64_t max_files);

// Full compaction (CALL sys.compact): every file from the first small one on, when that is two
// files or more (files of the target size before it stay).
std::optional<std::vector<meta::DataFileMeta>> PickAppendFull(
    const std::vector<meta::DataFileMeta>& sorted, int64_t target_size);

// Compacts the buckets of append table `path` (every bucket, or those in `only`: (serialized
// partition, bucket) pairs) and commits the result as one COMPACT snapshot under `commit_user`
// ("" : a new one). Returns that snapshot, or nullopt when there was nothing to compact.
// `progress(done, total)` counts buckets.
Result<std::optional<int64_t>> CompactAppendTable(
    const std::string& path, std::shared_ptr<const TableSchema> schema, bool full,
    const std::set<std::pair<std::string, int32_t>>* only, const std::string& commit_user,
    const std::function<void(int64_t, int64_t)>& progress = {});

}  // namespace tributary::write
