// The 'full-compaction' changelog producer (Paimon's FullChangelogMergeFunctionWrapper): a
// compaction whose output is the top level shows the changes since the top level was last
// written: each key's record there before (the top-level input files) against its merged record
// after (the output): +I for a new key, -U/+U for a changed one (unless
// 'changelog-producer.row-deduplicate' and equal, ignoring
// '...row-deduplicate-ignore-fields'), -D for a removed one.
// Thread-safety: stateless; buckets may be processed on several threads at once.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "datafile/data_file.h"
#include "meta/manifest.h"
#include "meta/paths.h"

namespace tributary::compact {

// Shared by the changelog producers ('changelog-producer.row-deduplicate'):
// "a, b,c" -> {a, b, c} (the ignore-fields option's value).
std::set<std::string> ParseFieldList(const std::string& text);
// Whether two rows are equal outside the columns `ignored` marks.
bool SameRowIgnoring(const Row& a, const Row& b, const std::vector<bool>& ignored);

// Writes the changelog files (none when nothing changed) of a compaction of the bucket at
// `bucket_dir` whose top-level inputs were `top_before` and whose output is `after`, at `level`.
Result<std::vector<meta::DataFileMeta>> WriteFullCompactionChangelog(
    const std::string& table_path, const TableSchema& schema, const std::string& bucket_dir,
    const std::vector<meta::DataFileMeta>& top_before, const std::vector<meta::DataFileMeta>& after,
    int32_t level, meta::FileNamer* namer);

}  // namespace tributary::compact
