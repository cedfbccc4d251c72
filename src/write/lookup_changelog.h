// The 'lookup' changelog producer: at each commit, the records this commit wrote to a bucket are
// merged, key by key, with the key's current value (looked up in the bucket's committed files),
// and the exact change is written to changelog files: +I for a new key, -U(before) +U(after) for
// a changed one, -D(before) for a removed one (Paimon's LookupChangelogMergeFunctionWrapper;
// first-row emits +I for new keys only, FirstRowMergeFunctionWrapper).
// Thread-safety: stateless; buckets may be processed on several threads at once.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "datafile/data_file.h"
#include "merge/merge_config.h"
#include "meta/manifest.h"
#include "meta/paths.h"
#include "options/core_options.h"

namespace tributary::write {

struct LookupChangelogInput {
  std::string table_path;
  const TableSchema* schema = nullptr;
  const datafile::FileLayout* layout = nullptr;
  std::shared_ptr<const merge::MergeConfig> merge_config;
  const options::FileFormatOptions* format = nullptr;
  std::string bucket_dir;
  // The bucket's files as the latest snapshot has them (the "before" of every key).
  const std::vector<meta::DataFileMeta>* committed = nullptr;
  // This commit's level-0 files of the bucket (their records, merged with the before values, give
  // the "after").
  const std::vector<meta::DataFileMeta>* new_files = nullptr;
  // 'changelog-producer.row-deduplicate': no -U/+U pair whose rows are equal (ignoring
  // `ignore_fields`, 'changelog-producer.row-deduplicate-ignore-fields').
  bool row_deduplicate = false;
  std::set<std::string> ignore_fields;
  int64_t target_file_size = 0;
};

// Writes the bucket's changelog files (none when nothing changed) and returns their metas.
Result<std::vector<meta::DataFileMeta>> WriteLookupChangelog(const LookupChangelogInput& in,
                                                             meta::FileNamer* namer);


}  // namespace tributary::write
