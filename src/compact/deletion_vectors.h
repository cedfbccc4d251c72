// The deletion vectors of one bucket while a writer maintains them (Paimon's bucketed
// deletion-vector maintainer): loaded from the bucket's deletion-vector index file, marked as
// compactions find replaced rows, dropped for files a compaction rewrote, and written back as a
// new index file (format::DeletionVectorIndex, vectors in data file name order) with the index
// manifest entry that replaces the bucket's old one. Used by the writer's compaction of a
// deletion-vector table (write/file_store_writer_commit.cc) and by CALL sys.compact
// (write/table_write.cc); docs/deletion-vectors.md.
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "meta/manifest.h"
#include "tributary/result.h"

namespace tributary::compact {

class BucketDeletionVectors {
 public:
  // The vectors of the bucket whose live index manifest entry is `base` (none: the bucket has
  // none yet), read from its index file under `table_path`.
  // `bucket_dir`: the bucket's directory, where the file lies when it is not in index/
  // ('index-file-in-data-file-dir').
  static Result<BucketDeletionVectors> Load(const std::string& table_path,
                                            const std::string& bucket_dir,
                                            const std::optional<meta::IndexManifestEntry>& base);

  // The deleted positions of data file `file`, or null.
  const std::set<int64_t>* Of(const std::string& file) const;
  // Marks row `position` of `file` deleted; false when it already was.
  bool Mark(const std::string& file, int64_t position);
  // Forgets `file`'s vector (the file was rewritten by a compaction).
  void Remove(const std::string& file);
  // Whether Mark or Remove changed anything since Load.
  bool modified() const { return modified_; }
  // The index file loaded from, if any.
  const std::optional<meta::IndexManifestEntry>& base() const { return base_; }
  size_t size() const { return vectors_.size(); }

  // Writes the vectors as a new index file `<dir>/index-<uuid>-0` (`dir`: index/, or the bucket's
  // directory with 'index-file-in-data-file-dir'; see IndexFileDir) and returns its ADD entry for
  // (partition, bucket), which replaces the bucket's old one. With no vector left the file holds
  // only the format's version byte, as Java writes it (so the old entry is replaced, not kept).
  // `bitmap64`: 'deletion-vectors.bitmap64'.
  Result<meta::IndexManifestEntry> Write(const std::string& dir, const std::string& partition,
                                         int32_t bucket, bool bitmap64) const;

 private:
  std::optional<meta::IndexManifestEntry> base_;
  std::map<std::string, std::set<int64_t>> vectors_;  // data file name -> deleted positions
  bool modified_ = false;
};

// Where a bucket's new deletion-vector index files go: index/ under the table, or the bucket's
// own directory with 'index-file-in-data-file-dir' = 'true' (`in_data_dir`), as Paimon puts them.
std::string IndexFileDir(const std::string& table_path, const std::string& bucket_dir,
                         bool in_data_dir);

}  // namespace tributary::compact
