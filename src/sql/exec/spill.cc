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

Status SpilledPartitions::Open() {
  if (!files_.empty()) return Status::OK();
  for (size_t p = 0; p < kPartitions; p++) {
    TRIB_ASSIGN_OR_RETURN(auto f, SpillFile::Create(fields_, spill_, kBatchRows));
    files_.push_back(std::move(f));
  }
  return Status::OK();
}

Status SpilledPartitions::AddTo(size_t p, const ColumnBatch& in,
                                const std::vector<uint32_t>& rows) {
  TRIB_RETURN_NOT_OK(Open());
  TRIB_RETURN_NOT_OK(files_[p % kPartitions]->AppendRows(in, rows));
  rows_ += static_cast<int64_t>(rows.size());
  return Status::OK();
}

Status SpilledPartitions::Add(const ColumnBatch& in, const std::vector<ColumnVector>& keys,
                              const std::vector<uint32_t>& rows) {
  TRIB_RETURN_NOT_OK(Open());
  std::vector<std::vector<uint32_t>> of(kPartitions);
  std::string key;
  for (uint32_t r : rows) {
    key.clear();
    for (const ColumnVector& k : keys) AppendColumnKey(k, r, &key);
    key.push_back(static_cast<char>(depth_));  // another partitioning at each depth
    of[std::hash<std::string>{}(key) % kPartitions].push_back(r);
  }
  for (size_t p = 0; p < kPartitions; p++) {
    if (!of[p].empty()) TRIB_RETURN_NOT_OK(files_[p]->AppendRows(in, of[p]));
  }
  rows_ += static_cast<int64_t>(rows.size());
  return Status::OK();
}

Status SpilledPartitions::Finish() {
  for (auto& f : files_) TRIB_RETURN_NOT_OK(f->Finish());
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
    if (file->rows() == 0) continue;
    current_ = make(std::make_unique<SpillSourceOperator>(fields_, std::move(file)));
  }
}

}  // namespace tributary::sql
