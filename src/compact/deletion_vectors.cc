#include "compact/deletion_vectors.h"

#include <vector>

#include "format/deletion_vector.h"
#include "io/file_system.h"
#include "meta/paths.h"
#include "meta/snapshot_reader.h"

namespace tributary::compact {

Result<BucketDeletionVectors> BucketDeletionVectors::Load(
    const std::string& table_path, const std::string& bucket_dir,
    const std::optional<meta::IndexManifestEntry>& base) {
  BucketDeletionVectors out;
  out.base_ = base;
  if (!base) return out;
  std::string path = base->external_path
                         ? meta::ResolveExternalPath(table_path, *base->external_path)
                         : meta::IndexPath(table_path, base->file_name);
  auto read = io::LocalFs().ReadFile(path);
  if (!read.ok() && read.status().IsNotFound() && !base->external_path) {
    // 'index-file-in-data-file-dir': the file is in the bucket's directory.
    path = io::JoinPath(bucket_dir, base->file_name);
    read = io::LocalFs().ReadFile(path);
  }
  TRIB_ASSIGN_OR_RETURN(std::string bytes, std::move(read));
  for (const auto& r : base->dv_ranges) {
    TRIB_ASSIGN_OR_RETURN(format::DeletionVector dv,
                          format::DeletionVector::Decode(
                              bytes, r.offset, r.length,
                              "deletion vector of '" + r.data_file + "' in '" + path + "'"));
    std::vector<int64_t> positions = dv.Positions();
    out.vectors_[r.data_file] = std::set<int64_t>(positions.begin(), positions.end());
  }
  return out;
}

const std::set<int64_t>* BucketDeletionVectors::Of(const std::string& file) const {
  auto it = vectors_.find(file);
  return it == vectors_.end() ? nullptr : &it->second;
}

bool BucketDeletionVectors::Mark(const std::string& file, int64_t position) {
  const bool added = vectors_[file].insert(position).second;
  modified_ = modified_ || added;
  return added;
}

void BucketDeletionVectors::Remove(const std::string& file) {
  modified_ = vectors_.erase(file) > 0 || modified_;
}

Result<meta::IndexManifestEntry> BucketDeletionVectors::Write(const std::string& dir,
                                                              const std::string& partition,
                                                              int32_t bucket, bool bitmap64) const {
  format::DeletionVectorIndex index;
  meta::IndexManifestEntry e;
  e.kind = meta::FileKind::kAdd;
  e.partition = partition;
  e.bucket = bucket;
  e.index_type = "DELETION_VECTORS";
  for (const auto& [file, positions] : vectors_) {
    if (positions.empty()) continue;
    TRIB_ASSIGN_OR_RETURN(
        format::DeletionVectorIndex::Range r,
        index.Add(std::vector<int64_t>(positions.begin(), positions.end()), bitmap64));
    meta::DeletionVectorRange range;
    range.data_file = file;
    range.offset = static_cast<int32_t>(r.offset);
    range.length = static_cast<int32_t>(r.length);
    range.cardinality = r.cardinality;
    e.dv_ranges.push_back(std::move(range));
  }
  e.file_name = "index-" + meta::NewUuid() + "-0";
  e.file_size = static_cast<int64_t>(index.bytes().size());
  e.row_count = static_cast<int64_t>(e.dv_ranges.size());
  TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(dir));
  TRIB_RETURN_NOT_OK(io::LocalFs().WriteNewFile(io::JoinPath(dir, e.file_name), index.bytes()));
  return e;
}

std::string IndexFileDir(const std::string& table_path, const std::string& bucket_dir,
                         bool in_data_dir) {
  return in_data_dir ? bucket_dir : meta::IndexDir(table_path);
}

}  // namespace tributary::compact
