#include "sql/exec/spill.h"

#include "sql/exec/column_keys.h"
#include "sql/exec/holding.h"

namespace tributary::sql {

Result<bool> SpillSourceOperator::Next(ColumnBatch* out) {
  TRIB_ASSIGN_OR_RETURN(bool more, cursor_.NextSegment());
  if (!more) return false;
  *out = cursor_.batch();
  return true;
}

Status SpilledPartitions::Open(size_t p) {
  if (files_.empty()) files_.resize(kPartitions);
  if (files_[p]) return Status::OK();
  // A partition's file is made at its first rows (a file descriptor each, kept until taken).
  TRIB_ASSIGN_OR_RETURN(files_[p], SpillFile::Create(fields_, spill_, kBatchRows));
  return Status::OK();
}

Status SpilledPartitions::AddTo(size_t p, const ColumnBatch& in,
                                const std::vector<uint32_t>& rows) {
  p %= kPartitions;
  TRIB_RETURN_NOT_OK(Open(p));
  TRIB_RETURN_NOT_OK(files_[p]->AppendRows(in, rows));
  rows_ += static_cast<int64_t>(rows.size());
  return Status::OK();
}

Status SpilledPartitions::Add(const ColumnBatch& in, const std::vector<ColumnVector>& keys,
                              const std::vector<uint32_t>& rows) {
  std::vector<std::vector<uint32_t>> of(kPartitions);
  std::string key;
  for (uint32_t r : rows) {
    key.clear();
    for (const ColumnVector& k : keys) AppendColumnKey(k, r, &key);
    key.push_back(static_cast<char>(depth_));  // another partitioning at each depth
    of[std::hash<std::string>{}(key) % kPartitions].push_back(r);
  }
  for (size_t p = 0; p < kPartitions; p++) {
    if (of[p].empty()) continue;
    TRIB_RETURN_NOT_OK(Open(p));
    TRIB_RETURN_NOT_OK(files_[p]->AppendRows(in, of[p]));
  }
  rows_ += static_cast<int64_t>(rows.size());
  return Status::OK();
}

Status SpilledPartitions::Finish() {
  for (auto& f : files_) {
    if (f) TRIB_RETURN_NOT_OK(f->Finish());
  }
  return Status::OK();
}

std::unique_ptr<SpillFile> SpilledPartitions::Take(size_t p) {
  if (p >= files_.size() || !files_[p] || files_[p]->rows() == 0) return nullptr;
  return std::move(files_[p]);
}

Result<bool> SpilledPartitions::Next(const MakeOperator& make, ColumnBatch* out) {
  while (true) {
    if (current_) {
      TRIB_ASSIGN_OR_RETURN(bool more, current_->Next(out));
      if (more) return true;
      current_.reset();
    }
    if (next_ >= files_.size()) return false;
    std::unique_ptr<SpillFile> file = std::move(files_[next_++]);
    if (!file || file->rows() == 0) continue;
    current_ = make(std::make_unique<SpillSourceOperator>(fields_, std::move(file)));
  }
}

}  // namespace tributary::sql
