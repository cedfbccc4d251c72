// ORDER BY: rows sorted in memory within 'sql.sort.memory-limit'; a larger input is sorted in
// runs of about that size, each spilled to disk (spill.h), and the runs merged.
#include <algorithm>
#include <numeric>
#include <queue>

#include "common/memory_budget.h"
#include "sql/exec/column_keys.h"
#include "sql/exec/holding.h"
#include "sql/exec/spill.h"

namespace tributary::sql {

namespace {

// Runs merged at once: each reads a segment at a time, and a segment holds about a fan-in-th
// of the memory limit, so a merge holds about the limit.
constexpr size_t kFanIn = 16;

class SortOperator : public HoldingOperator {
 public:
  SortOperator(OperatorPtr child, SortOptions options)
      : child_(std::move(child)), options_(std::move(options)), run_limit_(options_.memory_limit) {
    const auto& in = child_->fields();
    fields_.assign(in.begin(), in.begin() + std::min(options_.output_columns, in.size()));
    ResetHeld();
  }
  std::string Describe() const override {
    return "Sort: " + std::to_string(options_.keys.size()) + " key(s)" +
           (options_.limit ? " (the first " + std::to_string(*options_.limit) + " rows)" : "") +
           (spilled_runs_ > 0 ? ", " + std::to_string(spilled_runs_) + " run(s) spilled" : "");
  }
  std::vector<const Operator*> children() const override { return {child_.get()}; }

 private:
  // Orders row x of `a` and row y of `b` by the sort keys (0: equal keys).
  int CompareKeys(const ColumnBatch& a, size_t x, const ColumnBatch& b, size_t y) const {
    for (const SortKeySpec& s : options_.keys) {
      const ColumnVector& ca = a.columns[s.column];
      const ColumnVector& cb = b.columns[s.column];
      const bool xn = ca.IsNull(x), yn = cb.IsNull(y);
      if (xn || yn) {
        if (xn && yn) continue;
        return xn == s.nulls_first ? -1 : 1;
      }
      const int c = CompareColumnRows(ca, x, cb, y);
      if (c != 0) return s.descending ? -c : c;
    }
    return 0;
  }

  // Whether held row x goes before held row y (ties: the earlier row first, so the sort is
  // stable: equal rows keep their arrival order).
  bool Less(uint32_t x, uint32_t y) const {
    const int c = CompareKeys(held_, x, held_, y);
    return c != 0 ? c < 0 : x < y;
  }

  void ResetHeld() {
    held_ = ColumnBatch();
    for (const Field& f : child_->fields()) held_.columns.push_back(TypedColumn(f.type));
    values_bytes_ = 0;
  }

  // Puts the held rows in order and, with a limit, keeps only the first `limit` of them. Each
  // column is gathered in order and replaces the unsorted one before the next is gathered.
  void SortHeld() {
    std::vector<uint32_t> order(held_.num_rows);
    std::iota(order.begin(), order.end(), 0u);
    auto less = [&](uint32_t x, uint32_t y) { return Less(x, y); };
    if (options_.limit && static_cast<int64_t>(order.size()) > *options_.limit) {
      const auto keep = static_cast<size_t>(*options_.limit);
      std::partial_sort(order.begin(), order.begin() + keep, order.end(), less);
      order.resize(keep);
    } else {
      std::sort(order.begin(), order.end(), less);
    }
    values_bytes_ = 0;
    for (ColumnVector& c : held_.columns) {
      ColumnVector out = TypedColumn(c.type);
      out.Reserve(order.size());
      out.AppendRows(c, order);
      c = std::move(out);
      if (c.rep == ColumnVector::Rep::kValue) values_bytes_ += ValuesBeyondSelf(c);
    }
    held_.num_rows = order.size();
  }

  // What the Values of a kValue column hold beyond themselves (strings, nested values).
  static int64_t ValuesBeyondSelf(const ColumnVector& c) {
    return ApproxColumnBytes(c) - static_cast<int64_t>(c.values.size() * sizeof(Value));
  }

  // What the held rows take as allocated, and what sorting them takes besides: a row number
  // each and the sorted copy of one column.
  int64_t HeldBytes() const {
    int64_t bytes = values_bytes_ + static_cast<int64_t>(held_.num_rows * sizeof(uint32_t));
    int64_t widest = 0;
    for (const ColumnVector& c : held_.columns) {
      const int64_t column = ColumnStorageBytes(c);
      bytes += column;
      widest = std::max(widest, column);
    }
    return bytes + widest;
  }

  // Rows per segment of a spilled run: a segment holds about a fan-in-th of the memory limit.
  size_t SegmentRows() const {
    const double per_row = std::max(1.0, bytes_per_row_);
    const double rows = static_cast<double>(run_limit_) / kFanIn / per_row;
    return static_cast<size_t>(std::clamp(rows, 64.0, 1048576.0));
  }

  // Sorts the held rows and writes them to disk as one run.
  Status SpillHeld() {
    if (held_.num_rows > 0) {
      bytes_per_row_ = std::max(
          bytes_per_row_, static_cast<double>(HeldBytes()) / static_cast<double>(held_.num_rows));
    }
    SortHeld();
    segment_bytes_ = std::max(
        segment_bytes_,
        static_cast<int64_t>(static_cast<double>(SegmentRows()) * std::max(1.0, bytes_per_row_)));
    TRIB_ASSIGN_OR_RETURN(std::unique_ptr<SpillFile> run,
                          SpillFile::Create(child_->fields(), options_.spill, SegmentRows()));
    TRIB_RETURN_NOT_OK(run->Append(held_, 0, held_.num_rows));
    TRIB_RETURN_NOT_OK(run->Finish());
    runs_.push_back(std::move(run));
    spilled_runs_++;
    ResetHeld();
    charge_.Set(HeldBytes());
    return Status::OK();
  }

  Status Consume() override {
    ColumnBatch in;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, child_->Next(&in));
      if (!more) break;
      for (size_t c = 0; c < in.columns.size(); c++) {
        ColumnVector col = Canonical(std::move(in.columns[c]));
        if (col.rep == ColumnVector::Rep::kValue) values_bytes_ += ValuesBeyondSelf(col);
        held_.columns[c].AppendAll(std::move(col));
      }
      held_.num_rows += in.num_rows;
      // ORDER BY ... LIMIT n holds at most about 2n rows.
      if (options_.limit && static_cast<int64_t>(held_.num_rows) > 2 * *options_.limit + 1024) {
        SortHeld();
      }
      const int64_t held = HeldBytes();
      if (charge_.Over(held, run_limit_)) {
        // Past the process's budget before the own limit: this run and the later ones (and the
        // merge's segments) of what could be held.
        if (charge_.over_budget()) run_limit_ = std::min(run_limit_, held);
        TRIB_RETURN_NOT_OK(SpillHeld());
      }
    }
    if (runs_.empty()) {
      SortHeld();
      held_.columns.resize(fields_.size());  // drop the sort-only columns
      return Status::OK();
    }
    if (held_.num_rows > 0) TRIB_RETURN_NOT_OK(SpillHeld());
    held_ = ColumnBatch();
    // Merges the first runs into one until at most kFanIn are left (the merged run takes their
    // place: its rows came before the later runs', so ties keep arrival order).
    while (runs_.size() > kFanIn) {
      std::vector<std::unique_ptr<SpillFile>> first(
          std::make_move_iterator(runs_.begin()), std::make_move_iterator(runs_.begin() + kFanIn));
      runs_.erase(runs_.begin(), runs_.begin() + kFanIn);
      TRIB_RETURN_NOT_OK(StartMerge(std::move(first)));
      TRIB_ASSIGN_OR_RETURN(std::unique_ptr<SpillFile> merged,
                            SpillFile::Create(child_->fields(), options_.spill, SegmentRows()));
      ColumnBatch part;
      while (true) {
        TRIB_ASSIGN_OR_RETURN(bool more, MergeNext(&part, child_->fields().size()));
        if (!more) break;
        TRIB_RETURN_NOT_OK(merged->Append(part, 0, part.num_rows));
      }
      TRIB_RETURN_NOT_OK(merged->Finish());
      runs_.insert(runs_.begin(), std::move(merged));
    }
    return StartMerge(std::move(runs_));
  }

  Result<bool> NextAfterHeld(ColumnBatch* out) override {
    TRIB_ASSIGN_OR_RETURN(bool more, MergeNext(out, fields_.size()));
    if (!more) charge_.Set(0);  // the rows held were handed out, or the merge is done
    return more;
  }

  // ---- the merge of spilled runs

  struct Cursor {
    std::unique_ptr<SpillCursor> reader;
    size_t row = 0;
    const ColumnBatch& batch() const { return reader->batch(); }
  };

  // Whether cursor a's row goes after cursor b's (a heap's order: ties by run, the earlier first).
  bool After(size_t a, size_t b) const {
    const Cursor& x = cursors_[a];
    const Cursor& y = cursors_[b];
    const int c = CompareKeys(x.batch(), x.row, y.batch(), y.row);
    return c != 0 ? c > 0 : a > b;
  }

  Status StartMerge(std::vector<std::unique_ptr<SpillFile>> runs) {
    // A segment of each run at a time, about a fan-in-th of the limit each.
    charge_.Set(segment_bytes_ * static_cast<int64_t>(runs.size()));
    cursors_.clear();
    heap_.clear();
    emitted_ = 0;
    for (auto& run : runs) {
      Cursor c;
      c.reader = std::make_unique<SpillCursor>(std::move(run));
      TRIB_ASSIGN_OR_RETURN(bool any, c.reader->NextSegment());
      cursors_.push_back(std::move(c));
      if (any) heap_.push_back(cursors_.size() - 1);
    }
    std::make_heap(heap_.begin(), heap_.end(), [&](size_t a, size_t b) { return After(a, b); });
    return Status::OK();
  }

  // The next merged rows (the first `columns` columns), at most kBatchRows; with a limit, no
  // more than `limit` rows in all.
  Result<bool> MergeNext(ColumnBatch* out, size_t columns) {
    auto after = [&](size_t a, size_t b) { return After(a, b); };
    ColumnBatch b;
    for (size_t c = 0; c < columns; c++) b.columns.push_back(TypedColumn(child_->fields()[c].type));
    while (b.num_rows < kBatchRows && !heap_.empty()) {
      if (options_.limit && emitted_ >= *options_.limit) break;
      std::pop_heap(heap_.begin(), heap_.end(), after);
      const size_t i = heap_.back();
      Cursor& cur = cursors_[i];
      for (size_t c = 0; c < columns; c++) {
        b.columns[c].AppendRow(cur.batch().columns[c], cur.row);
      }
      b.num_rows++;
      emitted_++;
      if (++cur.row >= cur.batch().num_rows) {
        cur.row = 0;
        TRIB_ASSIGN_OR_RETURN(bool more, cur.reader->NextSegment());
        if (!more) {
          heap_.pop_back();
          continue;
        }
      }
      std::push_heap(heap_.begin(), heap_.end(), after);
    }
    if (b.num_rows == 0) return false;
    *out = std::move(b);
    return true;
  }

  OperatorPtr child_;
  SortOptions options_;
  int64_t run_limit_;          // what a run held at most: the limit, less when the budget was short
  MemoryCharge charge_;        // what is held, in the process's budget
  int64_t segment_bytes_ = 0;  // the largest segment of a run spilled (a merge holds one a run)
  int64_t values_bytes_ = 0;   // ValuesBeyondSelf of the held kValue columns
  double bytes_per_row_ = 0;   // what a held row took, at most, when runs were spilled
  std::vector<std::unique_ptr<SpillFile>> runs_;
  size_t spilled_runs_ = 0;
  std::vector<Cursor> cursors_;
  std::vector<size_t> heap_;  // cursors with rows left
  int64_t emitted_ = 0;
};

}  // namespace

OperatorPtr MakeSort(OperatorPtr child, SortOptions options) {
  return std::make_unique<SortOperator>(std::move(child), std::move(options));
}

}  // namespace tributary::sql
