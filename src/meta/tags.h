// Tags, as Paimon's TagManager keeps them: `tag/tag-<name>` in the table directory holds the
// snapshot the tag names (the snapshot's JSON, plus the tag's creation time). A tagged snapshot
// reads as long as its tag exists, also after snapshot expiration (which leaves tables with tags
// alone, commit/snapshot_expire.cc).
// Thread-safety: stateless functions over the file system.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "meta/snapshot.h"
#include "tributary/result.h"

namespace tributary::meta {

// The names of the table's tags, sorted.
Result<std::vector<std::string>> ListTags(const std::string& table_path);
// The snapshot of tag `name`; NotFound naming the tags that exist. `create_time`, when set,
// receives the tag's creation time as written ('YYYY-MM-DDTHH:MM:SS.sss'; empty when absent).
Result<std::shared_ptr<const Snapshot>> ReadTag(const std::string& table_path,
                                                const std::string& name,
                                                std::string* create_time = nullptr);
// Tags `snapshot` as `name` (created at `create_time`, 'YYYY-MM-DDTHH:MM:SS.sss'); AlreadyExists
// when the tag exists. A tag name is letters, digits, '-', '_' and '.', not only digits.
Status CreateTag(const std::string& table_path, const std::string& name, const Snapshot& snapshot,
                 const std::string& create_time);
// Removes tag `name` (NotFound when it does not exist), and the tag directory once empty.
Status DeleteTag(const std::string& table_path, const std::string& name);

}  // namespace tributary::meta
