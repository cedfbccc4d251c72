// 'data-file.external-paths' (Paimon 1.1/1.2, docs/plans/external-paths-write.md): new data and
// changelog files of a table written under other roots than the table's directory, each
// recorded in its manifest entry with its full path (`_EXTERNAL_PATH`).
// Thread-safety: Next may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tributary/result.h"

namespace tributary {
struct TableSchema;
}

namespace tributary::meta {

class ExternalPaths {
 public:
  // The table's external roots, or none: the option unset or empty, or
  // 'data-file.external-paths.strategy' = 'none' (its default, as in Paimon). An error names a
  // root without a scheme, a scheme Tributary cannot write (only 'file' yet), an unknown
  // strategy, 'specific-fs' without 'data-file.external-paths.specific-fs' or with no root of
  // that scheme. (Only file roots are written yet; Java's files under s3 roots are read.)
  static Result<std::optional<ExternalPaths>> Of(const TableSchema& schema);

  // Where a new file goes: `local` to write it, `recorded` for its manifest entry.
  struct Dir {
    std::string local;
    std::string recorded;
  };
  // The directory of bucket `bucket` of partition `partition_path` ("k=v/..."; "" for none)
  // under the next root, the roots taken in turn from a random one (Paimon's round-robin).
  Dir Next(const std::string& partition_path, int32_t bucket);

  // The roots, as recorded (Paimon's Path.toString form: "FILE:/tmp/x", "s3://bucket/x").
  const std::vector<std::string>& roots() const { return roots_; }
  // A recorded root's local form (the path of a file root; an s3 root as it is).
  static std::string LocalOf(const std::string& recorded);

 private:
  explicit ExternalPaths(std::vector<std::string> roots);
  std::vector<std::string> roots_;
  std::shared_ptr<std::atomic<uint64_t>> next_;  // the turn (copies take turns together)
};

// A root as Paimon's Path prints it ("FILE:///tmp/x/" gives "FILE:/tmp/x": the scheme as
// written, an empty authority dropped, repeated and trailing slashes removed), or an error for
// one without a scheme.
Result<std::string> NormalizeExternalRoot(const std::string& root);

}  // namespace tributary::meta
