// What the operators that hold their input share (sort.cc, aggregate.cc, operators.cc): an
// operator that reads its whole input first, then hands out what it made in batches.
// Internal to sql/exec/.
// Thread-safety: an operator tree is used by one thread.
#pragma once

#include <algorithm>
#include <cstddef>

#include "sql/exec/operators.h"

namespace tributary::sql {

// Rows per batch of operators that build their own (rows held in memory, sort and aggregate
// output).
inline constexpr size_t kBatchRows = 2048;

// The rows [begin, end) of `batch`, copied.
ColumnBatch SliceBatch(const ColumnBatch& batch, size_t begin, size_t end);

// An operator that reads its whole input first (Consume) into one batch, then hands it out in
// batches of kBatchRows; what it could not hold (spilled to disk) comes after (NextAfterHeld).
class HoldingOperator : public Operator {
 public:
  Result<bool> Next(ColumnBatch* out) final {
    if (!consumed_) {
      TRIB_RETURN_NOT_OK(Consume());
      consumed_ = true;
    }
    if (next_ >= held_.num_rows) {
      if (held_.num_rows > 0) held_ = ColumnBatch();  // handed out: its memory goes
      return NextAfterHeld(out);
    }
    if (next_ == 0 && held_.num_rows <= kBatchRows) {
      *out = std::move(held_);
      next_ = out->num_rows;
      held_.num_rows = next_;  // nothing left to hand out
      return true;
    }
    const size_t end = std::min(held_.num_rows, next_ + kBatchRows);
    *out = SliceBatch(held_, next_, end);
    next_ = end;
    return true;
  }

 protected:
  // Reads the input and fills held_ (columns of fields_).
  virtual Status Consume() = 0;
  // The batches after held_'s: none unless the operator spilled.
  virtual Result<bool> NextAfterHeld(ColumnBatch* out) { return false; }
  ColumnBatch held_;

 private:
  bool consumed_ = false;
  size_t next_ = 0;
};

}  // namespace tributary::sql
