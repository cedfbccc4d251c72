// The window operator (operators.h, MakeWindow): reads its input whole into columns, then for
// each window call groups the rows by its partition keys, orders them by its ORDER BY keys (row
// numbers sorted, cells compared in the columns) and computes the call's value for every row;
// rows come out in input order with one column per call appended. An input larger than the
// memory limit, whose calls share one PARTITION BY, is sorted by it (an ORDER BY that spills)
// and computed whole partitions at a time (WindowOperator::NextSpilled).
#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "common/memory_budget.h"
#include "sql/binder/cast.h"
#include "sql/exec/aggregate_state.h"
#include "sql/exec/column_keys.h"
#include "sql/exec/interrupt.h"
#include "sql/exec/operators.h"
#include "sql/exec/spill.h"
#include "sql/exec/vector_eval.h"

namespace tributary::sql {

namespace {

constexpr size_t kWindowBatchRows = 2048;

// Bytes a partition of a top-N takes besides its rows: a hash table node (next pointer, key
// string, heap vector, cached hash), an allocator size class, and its bucket.
constexpr int64_t kTopNPartitionBytes = 96;

// Bytes per input row that computing `call` takes while it runs (freed after): the row's
// partition number, its place in the sort, its value before it becomes a column, its peer
// bounds, the partition, order and argument values evaluated as columns, and RANGE offsets'
// keys. The partitions' hash table is counted once built.
int64_t WorkingBytesPerRow(const WindowCall& call) {
  int64_t bytes = sizeof(uint32_t) * 2 + sizeof(size_t) + sizeof(Value) + 2 * sizeof(size_t);
  const size_t columns = call.partition_by.size() + call.order_by.size() + call.args.size() +
                         (call.aggregate.arg ? 1 : 0);
  bytes += static_cast<int64_t>(columns) * 16;
  if (call.has_frame && !call.rows) bytes += sizeof(__int128) + sizeof(uint8_t) + 7;
  return bytes;
}

// -1, 0, 1 as ORDER BY orders a and b (NULLs as `nulls_first` says, then `descending`).
int CompareKey(const Value& a, const Value& b, bool descending, bool nulls_first) {
  const bool na = a.is_null(), nb = b.is_null();
  if (na || nb) {
    if (na && nb) return 0;
    return na == nulls_first ? -1 : 1;
  }
  int c = CompareSame(a, b);
  return descending ? -c : c;
}

// The value of each of `exprs` for every row of `batch`, as columns in their scan
// representation.
Result<std::vector<ColumnVector>> EvaluateAll(const std::vector<BoundExprPtr>& exprs,
                                              const ColumnBatch& batch) {
  std::vector<ColumnVector> out;
  for (const auto& e : exprs) {
    TRIB_ASSIGN_OR_RETURN(ColumnVector c, EvaluateBatch(*e, batch));
    out.push_back(Canonical(std::move(c)));
  }
  return out;
}

// The ORDER BY values of one partition's rows for RANGE frames with an offset (exactly one key):
// exact numbers (integers and DATE days as is, DECIMAL unscaled, TIMESTAMP nanoseconds) or
// doubles, negated for a descending order so that they grow through the non-NULL rows; NULL rows
// sit at one end and are framed by their peers.
class RangeKeys {
 public:
  template <typename RowOf>
  void Load(const WindowCall& call, const std::vector<ColumnVector>& order, size_t m,
            const RowOf& row) {
    if (order.size() != 1) return;
    const DataType& type = call.order_by[0]->type;
    floating_ = type.IsFloating();
    const int sign = call.descending[0] ? -1 : 1;
    __int128 unit = 1;  // offset -> key units
    if (type.id == TypeId::kDecimal) {
      for (int s = 0; s < type.scale; s++) unit *= 10;
    } else if (type.IsTimestamp()) {
      unit = 1000000;  // offsets are milliseconds
    } else if (type.id == TypeId::kDate) {
      unit = -1;  // offsets are milliseconds of whole days
    }
    // Offsets past any difference of two keys (|key| < 10^38) are cut to 10^38, which keeps
    // key +/- offset within __int128.
    const __int128 kFar = static_cast<__int128>(1e19) * static_cast<__int128>(1e19);
    auto scaled = [&](const FrameBound& b) -> __int128 {
      if (unit == -1) return __int128{b.offset / 86400000};
      return b.offset > 0 && unit > kFar / b.offset ? kFar : __int128{b.offset} * unit;
    };
    start_ = scaled(call.start);
    end_ = scaled(call.end);
    nulls_.assign(m, 0);
    exact_.assign(m, 0);
    approx_.assign(m, 0.0);
    for (size_t i = 0; i < m; i++) {
      const Value v = order[0].Get(row(i));
      if (v.is_null()) {
        nulls_[i] = 1;
      } else if (floating_) {
        approx_[i] = sign * v.double_value();
      } else if (v.is_timestamp()) {
        exact_[i] = sign * (__int128{v.timestamp_value().millis} * 1000000 +
                            v.timestamp_value().nanos_of_milli);
      } else if (v.is_decimal()) {
        exact_[i] = sign * v.decimal_value().unscaled;
      } else {
        exact_[i] = sign * __int128{v.int_value()};
      }
    }
    // The non-NULL rows: [lo_, hi_).
    lo_ = 0;
    while (lo_ < m && nulls_[lo_]) lo_++;
    hi_ = m;
    while (hi_ > lo_ && nulls_[hi_ - 1]) hi_--;
  }
  bool IsNull(size_t i) const { return nulls_[i] != 0; }
  // Where bound `b` of row i's frame falls: the first row whose value reaches value(i) -/+ the
  // offset (a start), or one past the last row within it (an end).
  size_t Bound(size_t i, const FrameBound& b, bool is_start) const {
    const bool minus = b.kind == FrameBound::Kind::kPreceding;
    const __int128 off = is_start ? start_ : end_;
    if (floating_) {
      const double target =
          minus ? approx_[i] - static_cast<double>(off) : approx_[i] + static_cast<double>(off);
      return Search(
          [&](size_t p) { return is_start ? approx_[p] < target : approx_[p] <= target; });
    }
    const __int128 target = minus ? exact_[i] - off : exact_[i] + off;
    return Search([&](size_t p) { return is_start ? exact_[p] < target : exact_[p] <= target; });
  }

 private:
  // The first row in [lo_, hi_) for which `before` is false (it holds for a prefix).
  template <typename Pred>
  size_t Search(const Pred& before) const {
    size_t lo = lo_, hi = hi_;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (before(mid)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  bool floating_ = false;
  __int128 start_ = 0, end_ = 0;
  std::vector<uint8_t> nulls_;
  std::vector<__int128> exact_;
  std::vector<double> approx_;
  size_t lo_ = 0, hi_ = 0;
};

// One batch held, then the rows of `rest` (borrowed): a window's input once it outgrew memory.
class HeldThenRest : public Operator {
 public:
  HeldThenRest(ColumnBatch held, Operator* rest) : held_(std::move(held)), rest_(rest) {
    fields_ = rest_->fields();
  }
  std::string Describe() const override { return "Window input"; }
  Result<bool> Next(ColumnBatch* out) override {
    if (!held_done_) {
      held_done_ = true;
      if (held_.num_rows > 0) {
        *out = std::move(held_);
        held_ = ColumnBatch();
        return true;
      }
    }
    return rest_->Next(out);
  }

 private:
  ColumnBatch held_;
  bool held_done_ = false;
  Operator* rest_;
};

// The child's rows with the values of `keys` appended as columns.
class AppendKeys : public Operator {
 public:
  AppendKeys(OperatorPtr child, const std::vector<BoundExprPtr>* keys)
      : child_(std::move(child)), keys_(keys) {
    fields_ = child_->fields();
    for (const BoundExprPtr& k : *keys_) {
      fields_.push_back(Field{static_cast<int32_t>(fields_.size()), "$partition",
                              k->type.WithNullable(true), ""});
    }
  }
  std::string Describe() const override { return "Window partition keys"; }
  std::vector<const Operator*> children() const override { return {child_.get()}; }
  Result<bool> Next(ColumnBatch* out) override {
    TRIB_ASSIGN_OR_RETURN(bool more, child_->Next(out));
    if (!more) return false;
    TRIB_ASSIGN_OR_RETURN(std::vector<ColumnVector> keys, EvaluateAll(*keys_, *out));
    for (ColumnVector& k : keys) out->columns.push_back(std::move(k));
    return true;
  }

 private:
  OperatorPtr child_;
  const std::vector<BoundExprPtr>* keys_;
};

// One batch (a group of whole partitions), handed out once.
class OneBatch : public Operator {
 public:
  OneBatch(std::vector<Field> fields, ColumnBatch batch) : batch_(std::move(batch)) {
    fields_ = std::move(fields);
  }
  std::string Describe() const override { return "Window partitions"; }
  Result<bool> Next(ColumnBatch* out) override {
    if (done_ || batch_.num_rows == 0) return false;
    done_ = true;
    *out = std::move(batch_);
    return true;
  }

 private:
  ColumnBatch batch_;
  bool done_ = false;
};

class WindowOperator : public Operator {
 public:
  WindowOperator(OperatorPtr child, std::shared_ptr<const WindowBinding> binding,
                 int64_t memory_limit, std::string memory_limit_key, std::optional<int64_t> top_n,
                 SpillOptions spill, bool may_spill)
      : child_(std::move(child)),
        windows_(std::move(binding)),
        memory_limit_(memory_limit),
        memory_limit_key_(std::move(memory_limit_key)),
        top_n_(top_n),
        spill_(std::move(spill)),
        may_spill_(may_spill) {
    fields_ = child_->fields();
    for (size_t i = 0; i < windows_->calls.size(); i++) {
      fields_.push_back(Field{static_cast<int32_t>(fields_.size()), "$window" + std::to_string(i),
                              windows_->calls[i].type, ""});
    }
    // Each held row also takes: 16 bytes of bookkeeping, its value of every call (a column),
    // and what the call computed at a time needs while it runs.
    int64_t working = 0;
    row_bytes_ = 16;
    for (const WindowCall& call : windows_->calls) {
      row_bytes_ += ColumnVector::RepOf(call.type) == ColumnVector::Rep::kValue ? sizeof(Value)
                                                                                : sizeof(int64_t);
      working = std::max(working, WorkingBytesPerRow(call));
    }
    row_bytes_ += working;
  }
  std::string Describe() const override {
    std::string out = "Window: ";
    for (size_t i = 0; i < windows_->calls.size(); i++) {
      out += (i ? ", " : "") + windows_->calls[i].key;
    }
    if (top_n_) {
      return out + " (the first " + std::to_string(*top_n_) +
             " rows of each partition kept as the input streams by: a top-N)";
    }
    if (spilled_)
      return out + " (input sorted by its partitions, spilled; whole partitions at a time)";
    return out + " (input read whole, sorted per window)";
  }
  std::vector<const Operator*> children() const override { return {child_.get()}; }

  Result<bool> Next(ColumnBatch* out) override {
    if (!computed_) {
      TRIB_RETURN_NOT_OK(Compute());
      computed_ = true;
    }
    if (spilled_) return NextSpilled(out);
    if (next_ >= out_.num_rows) return false;
    const size_t end = std::min(out_.num_rows, next_ + kWindowBatchRows);
    std::vector<uint32_t> rows(end - next_);
    std::iota(rows.begin(), rows.end(), static_cast<uint32_t>(next_));
    *out = CopyRows(out_, rows);
    next_ = end;
    return true;
  }

 private:
  // Top-N (a single ROW_NUMBER() whose number is filtered to at most top_n_): each partition
  // keeps its best top_n_ rows in a heap as the input streams by, so memory holds partitions x N
  // rows; then each partition's rows are numbered in window order (ties in input order).
  Status ComputeTopN() {
    const WindowCall& call = windows_->calls[0];
    struct Kept {
      std::vector<Value> order;
      uint64_t seq = 0;
      Row row;
      int64_t bytes = 0;
    };
    // a before b in window order: the heap's front is the worst row kept.
    auto before = [&](const Kept& a, const Kept& b) {
      for (size_t k = 0; k < call.order_by.size(); k++) {
        int c = CompareKey(a.order[k], b.order[k], call.descending[k], call.nulls_first[k]);
        if (c != 0) return c < 0;
      }
      return a.seq < b.seq;
    };
    const size_t limit = static_cast<size_t>(std::max<int64_t>(0, *top_n_));
    std::unordered_map<std::string, std::vector<Kept>> parts;
    uint64_t seq = 0;
    ColumnBatch in;
    std::string part;
    while (!Interrupted()) {
      TRIB_ASSIGN_OR_RETURN(bool more, child_->Next(&in));
      if (!more) break;
      if (limit == 0) continue;
      // The partition and order keys of the whole batch; a row is made only for a row kept.
      TRIB_ASSIGN_OR_RETURN(std::vector<ColumnVector> part_cols,
                            EvaluateAll(call.partition_by, in));
      TRIB_ASSIGN_OR_RETURN(std::vector<ColumnVector> order_cols, EvaluateAll(call.order_by, in));
      for (size_t r = 0; r < in.num_rows; r++) {
        part.clear();
        for (const ColumnVector& p : part_cols) AppendColumnKey(p, r, &part);
        Kept k;
        for (const ColumnVector& o : order_cols) k.order.push_back(o.Get(r));
        k.seq = seq++;
        auto [it, added] = parts.try_emplace(part);
        if (added) bytes_ += kTopNPartitionBytes + StringHeapBytes(part.size());
        std::vector<Kept>& heap = it->second;
        if (heap.size() >= limit && !before(k, heap.front())) continue;
        k.bytes = sizeof(Kept);
        for (const ColumnVector& c : in.columns) k.row.push_back(c.Get(r));
        for (const Value& v : k.row) k.bytes += ApproxBytes(v);
        for (const Value& v : k.order) k.bytes += ApproxBytes(v);
        bytes_ += k.bytes;
        if (heap.size() >= limit) {
          std::pop_heap(heap.begin(), heap.end(), before);
          bytes_ -= heap.back().bytes;
          heap.back() = std::move(k);
        } else {
          heap.push_back(std::move(k));
        }
        std::push_heap(heap.begin(), heap.end(), before);
      }
      if (bytes_ > memory_limit_) {
        return Status::Invalid("the rows a top-N keeps hold more than '" + memory_limit_key_ +
                               "' allows (" + std::to_string(memory_limit_) +
                               " bytes); raise "
                               "it with SET '" +
                               memory_limit_key_ + "' = '...'");
      }
    }
    std::vector<Row> rows;
    for (auto& [part, heap] : parts) {
      std::sort_heap(heap.begin(), heap.end(), before);
      for (size_t i = 0; i < heap.size(); i++) {
        Row row = std::move(heap[i].row);
        row.push_back(Value::Int(static_cast<int64_t>(i + 1)));
        rows.push_back(std::move(row));
      }
    }
    out_ = RowsToBatch(fields_, rows.begin(), rows.end());
    return Status::OK();
  }

  // Reads the input whole into held columns, then computes each call for every row.
  Status Compute() {
    if (top_n_) return ComputeTopN();
    ColumnBatch& held = out_;
    for (const Field& f : child_->fields()) held.columns.push_back(TypedColumn(f.type));
    ColumnBatch in;
    while (!Interrupted()) {
      TRIB_ASSIGN_OR_RETURN(bool more, child_->Next(&in));
      if (!more) break;
      bytes_ += row_bytes_ * static_cast<int64_t>(in.num_rows);
      for (size_t c = 0; c < in.columns.size(); c++) {
        ColumnVector col = Canonical(std::move(in.columns[c]));
        bytes_ += ApproxColumnBytes(col);
        held.columns[c].AppendAll(std::move(col));
      }
      held.num_rows += in.num_rows;
      if (charge_.Over(bytes_, memory_limit_) && may_spill_ && SharedPartitioning()) {
        charge_.Set(0);  // the rows held go to the sort (which charges what it holds)
        return StartSpill();
      }
      if (bytes_ > memory_limit_) {
        return Status::Invalid("the rows of a window function hold more than '" +
                               memory_limit_key_ + "' allows (" + std::to_string(memory_limit_) +
                               " bytes); raise it with SET '" + memory_limit_key_ +
                               "' = '...', or filter the rows further");
      }
    }
    std::vector<ColumnVector> results;
    for (const WindowCall& call : windows_->calls) {
      TRIB_ASSIGN_OR_RETURN(ColumnVector r, ComputeCall(call));
      results.push_back(std::move(r));
    }
    for (ColumnVector& r : results) held.columns.push_back(std::move(r));
    return Status::OK();
  }

  // Whether every call has the same, non-empty PARTITION BY (so whole partitions can be
  // computed apart).
  bool SharedPartitioning() const {
    const WindowCall& first = windows_->calls[0];
    if (first.partition_by.empty()) return false;
    for (const WindowCall& call : windows_->calls) {
      if (call.partition_key != first.partition_key) return false;
    }
    return true;
  }

  // Past the limit: the rows held and the rest of the input, sorted by the partition keys (in
  // runs that spill), to be computed a group of whole partitions at a time.
  Status StartSpill() {
    spilled_ = true;
    ColumnBatch held = std::move(out_);
    out_ = ColumnBatch();
    bytes_ = 0;
    const size_t width = child_->fields().size();
    const size_t keys = windows_->calls[0].partition_by.size();
    SortOptions sort;
    for (size_t k = 0; k < keys; k++) sort.keys.push_back(SortKeySpec{static_cast<int>(width + k)});
    sort.output_columns = width + keys;
    sort.memory_limit = memory_limit_;
    sort.memory_limit_key = memory_limit_key_;
    sort.spill = spill_;
    sorted_ = MakeSort(
        std::make_unique<AppendKeys>(std::make_unique<HeldThenRest>(std::move(held), child_.get()),
                                     &windows_->calls[0].partition_by),
        std::move(sort));
    return Status::OK();
  }

  // The bytes the rows of `batch` take as held rows (as Compute counts them).
  int64_t HeldBytes(const ColumnBatch& batch) const {
    int64_t n = row_bytes_ * static_cast<int64_t>(batch.num_rows);
    for (const ColumnVector& c : batch.columns) n += ApproxColumnBytes(c);
    return n;
  }

  // Whether rows a and b of pending_ are of one partition.
  bool SamePartition(size_t a, size_t b) const {
    for (size_t c = child_->fields().size(); c < pending_.columns.size(); c++) {
      if (CompareColumnRows(pending_.columns[c], a, pending_.columns[c], b) != 0) return false;
    }
    return true;
  }

  // Where the group computed next ends: the start of the partition of the row at which
  // pending_'s rows reach half the limit, or, when that is the first partition, its end; 0 when
  // the first partition may go on past pending_.
  size_t CutPoint() const {
    const size_t n = pending_.num_rows;
    const double per_row = static_cast<double>(pending_bytes_) / static_cast<double>(n);
    const size_t at =
        std::min(n - 1, static_cast<size_t>(static_cast<double>(memory_limit_ / 2) / per_row));
    size_t i = at;
    while (i > 0 && SamePartition(i - 1, at)) i--;
    if (i > 0) return i;
    size_t j = at + 1;
    while (j < n && SamePartition(j, at)) j++;
    return j < n ? j : 0;
  }

  // Rows in partition order, computed by an inner window operator over a group of whole
  // partitions of about half the limit at a time (the sort's merge holds about the limit).
  Result<bool> NextSpilled(ColumnBatch* out) {
    const size_t width = child_->fields().size();
    while (true) {
      if (inner_) {
        TRIB_ASSIGN_OR_RETURN(bool more, inner_->Next(out));
        if (more) return true;
        inner_.reset();
      }
      if (sorted_done_ && pending_.num_rows == 0) return false;
      size_t cut = 0;
      while (!sorted_done_) {
        if (pending_bytes_ >= memory_limit_ / 2 && pending_.num_rows > 0) {
          cut = CutPoint();
          if (cut > 0) break;
          if (pending_bytes_ > memory_limit_) {
            return Status::Invalid("a partition of a window function holds more than '" +
                                   memory_limit_key_ + "' allows (" +
                                   std::to_string(memory_limit_) + " bytes); raise it with SET '" +
                                   memory_limit_key_ + "' = '...', or filter the rows further");
          }
        }
        ColumnBatch in;
        TRIB_ASSIGN_OR_RETURN(bool more, sorted_->Next(&in));
        if (!more) {
          sorted_done_ = true;
          break;
        }
        if (pending_.columns.empty()) {
          for (const Field& f : sorted_->fields()) pending_.columns.push_back(TypedColumn(f.type));
        }
        for (ColumnVector& c : in.columns) c = Canonical(std::move(c));
        pending_bytes_ += HeldBytes(in);
        for (size_t c = 0; c < in.columns.size(); c++) {
          pending_.columns[c].AppendAll(std::move(in.columns[c]));
        }
        pending_.num_rows += in.num_rows;
      }
      if (sorted_done_) cut = pending_.num_rows;
      if (cut == 0) return false;
      std::vector<uint32_t> chunk_rows(cut), rest_rows(pending_.num_rows - cut);
      std::iota(chunk_rows.begin(), chunk_rows.end(), 0u);
      std::iota(rest_rows.begin(), rest_rows.end(), static_cast<uint32_t>(cut));
      ColumnBatch chunk = CopyRows(pending_, chunk_rows);
      pending_ = CopyRows(pending_, rest_rows);
      pending_bytes_ = HeldBytes(pending_);
      chunk.columns.resize(width);  // the partition keys were for the sort
      inner_ = std::make_unique<WindowOperator>(
          std::make_unique<OneBatch>(child_->fields(), std::move(chunk)), windows_, memory_limit_,
          memory_limit_key_, std::nullopt, spill_, /*may_spill=*/false);
    }
  }

  // The value of `call` for every held row (in input order).
  Result<ColumnVector> ComputeCall(const WindowCall& call) {
    const ColumnBatch& held = out_;
    const size_t n = held.num_rows;
    // The partition, order and argument values of every row, as columns.
    TRIB_ASSIGN_OR_RETURN(std::vector<ColumnVector> part_cols,
                          EvaluateAll(call.partition_by, held));
    TRIB_ASSIGN_OR_RETURN(std::vector<ColumnVector> order, EvaluateAll(call.order_by, held));
    std::vector<ColumnVector> args;
    if (call.aggregate.arg) {
      TRIB_ASSIGN_OR_RETURN(ColumnVector a, EvaluateBatch(*call.aggregate.arg, held));
      args.push_back(std::move(a));
    }
    TRIB_ASSIGN_OR_RETURN(std::vector<ColumnVector> more, EvaluateAll(call.args, held));
    for (ColumnVector& a : more) args.push_back(std::move(a));
    std::vector<uint32_t> part(n, 0), first_rows;
    if (!part_cols.empty()) {
      std::vector<const ColumnVector*> keys;
      for (const ColumnVector& p : part_cols) keys.push_back(&p);
      GroupIndex index;
      index.Assign(keys, n, &part, &first_rows);
      if (bytes_ + index.ApproxBytes() > memory_limit_) {
        return Status::Invalid("the partitions of a window function hold more than '" +
                               memory_limit_key_ + "' allows (" + std::to_string(memory_limit_) +
                               " bytes, " + std::to_string(index.size()) +
                               " partitions); raise it with SET '" + memory_limit_key_ +
                               "' = '...', or filter the rows further");
      }
    }
    auto order_cmp = [&](size_t a, size_t b) {
      for (size_t k = 0; k < order.size(); k++) {
        const bool na = order[k].IsNull(a), nb = order[k].IsNull(b);
        if (na || nb) {
          if (na && nb) continue;
          return na == call.nulls_first[k] ? -1 : 1;
        }
        const int c = CompareColumnRows(order[k], a, order[k], b);
        if (c != 0) return call.descending[k] ? -c : c;
      }
      return 0;
    };
    std::vector<size_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      if (part[a] != part[b]) return part[a] < part[b];
      const int c = order_cmp(a, b);
      return c != 0 ? c < 0 : a < b;  // ties in input order
    });
    std::vector<Value> out(n);
    size_t begin = 0;
    while (begin < n) {
      size_t end = begin + 1;
      while (end < n && part[idx[end]] == part[idx[begin]]) end++;
      TRIB_RETURN_NOT_OK(ComputePartition(call, idx, begin, end, order_cmp, order, args, &out));
      begin = end;
    }
    ColumnVector result = TypedColumn(call.type);
    result.Reserve(n);
    for (const Value& v : out) result.Append(v);
    return result;
  }

  // The call over the rows idx[begin..end) (one partition, in window order).
  template <typename OrderCmp>
  Status ComputePartition(const WindowCall& call, const std::vector<size_t>& idx, size_t begin,
                          size_t end, const OrderCmp& order_cmp,
                          const std::vector<ColumnVector>& order,
                          const std::vector<ColumnVector>& args, std::vector<Value>* out) {
    const std::string& f = call.function;
    const size_t m = end - begin;
    auto row = [&](size_t i) { return idx[begin + i]; };
    // Peers: rows whose ORDER BY values are equal; peer_end[i]: one past i's last peer.
    std::vector<size_t> peer_start(m), peer_end(m);
    for (size_t i = 0; i < m; i++) {
      peer_start[i] = i > 0 && order_cmp(row(i - 1), row(i)) == 0 ? peer_start[i - 1] : i;
    }
    for (size_t i = m; i > 0; i--) {
      peer_end[i - 1] = i < m && order_cmp(row(i - 1), row(i)) == 0 ? peer_end[i] : i;
    }
    if (f == "ROW_NUMBER") {
      for (size_t i = 0; i < m; i++) (*out)[row(i)] = Value::Int(static_cast<int64_t>(i + 1));
      return Status::OK();
    }
    if (f == "RANK" || f == "DENSE_RANK") {
      int64_t dense = 0;
      for (size_t i = 0; i < m; i++) {
        if (peer_start[i] == i) dense++;
        (*out)[row(i)] = Value::Int(f == "RANK" ? static_cast<int64_t>(peer_start[i] + 1) : dense);
      }
      return Status::OK();
    }
    if (f == "LAG" || f == "LEAD") {
      for (size_t i = 0; i < m; i++) {
        const int64_t off = args[1].Get(row(i)).int_value();
        const int64_t j =
            f == "LAG" ? static_cast<int64_t>(i) - off : static_cast<int64_t>(i) + off;
        if (j >= 0 && j < static_cast<int64_t>(m)) {
          (*out)[row(i)] = args[0].Get(row(static_cast<size_t>(j)));
        } else {
          (*out)[row(i)] = args.size() > 2 ? args[2].Get(row(i)) : Value::Null();
        }
      }
      return Status::OK();
    }
    // Frame-based: FIRST_VALUE, LAST_VALUE and aggregates. The frame of row i: [lo, hi).
    using K = FrameBound::Kind;
    const bool ordered = !call.order_by.empty();
    auto offset = [](const FrameBound& b) {
      return b.kind == K::kPreceding || b.kind == K::kFollowing;
    };
    RangeKeys range;  // RANGE n PRECEDING / FOLLOWING: by the ORDER BY value
    if (call.has_frame && !call.rows && (offset(call.start) || offset(call.end))) {
      range.Load(call, order, m, row);
    }
    auto frame = [&](size_t i) -> std::pair<size_t, size_t> {
      if (!call.has_frame) {
        return ordered ? std::make_pair(size_t{0}, peer_end[i]) : std::make_pair(size_t{0}, m);
      }
      auto at = [&](const FrameBound& b, bool is_start) -> int64_t {
        switch (b.kind) {
          case K::kUnboundedPreceding:
            return 0;
          case K::kUnboundedFollowing:
            return static_cast<int64_t>(m);
          case K::kCurrentRow:
            if (call.rows) return static_cast<int64_t>(is_start ? i : i + 1);
            return static_cast<int64_t>(is_start ? peer_start[i] : peer_end[i]);
          case K::kPreceding:
          case K::kFollowing:
            if (!call.rows) {  // a NULL value's frame is its NULL peers
              if (range.IsNull(i))
                return static_cast<int64_t>(is_start ? peer_start[i] : peer_end[i]);
              return static_cast<int64_t>(range.Bound(i, b, is_start));
            }
            return static_cast<int64_t>(i) + (b.kind == K::kPreceding ? -b.offset : b.offset) +
                   (is_start ? 0 : 1);
        }
        return 0;
      };
      const int64_t lo = std::clamp<int64_t>(at(call.start, true), 0, static_cast<int64_t>(m));
      const int64_t hi = std::clamp<int64_t>(at(call.end, false), 0, static_cast<int64_t>(m));
      return {static_cast<size_t>(lo), static_cast<size_t>(std::max(lo, hi))};
    };
    if (f == "FIRST_VALUE" || f == "LAST_VALUE") {
      for (size_t i = 0; i < m; i++) {
        auto [lo, hi] = frame(i);
        (*out)[row(i)] =
            lo >= hi ? Value::Null() : args[0].Get(row(f == "FIRST_VALUE" ? lo : hi - 1));
      }
      return Status::OK();
    }
    // An aggregate over each row's frame. Frames that only grow (starting at the partition's
    // first row) accumulate once; others are folded row by row.
    const AggregateCall& agg = call.aggregate;
    auto add = [&](size_t i, AggState* st) -> Status {
      if (agg.star) {
        st->count++;
        return Status::OK();
      }
      return AccumulateValue(agg, args[0].Get(row(i)), st);
    };
    AggState running;
    size_t added = 0;
    for (size_t i = 0; i < m; i++) {
      if (Interrupted()) return Status::OK();
      auto [lo, hi] = frame(i);
      if (lo == 0 && hi >= added) {
        for (; added < hi; added++) TRIB_RETURN_NOT_OK(add(added, &running));
        TRIB_ASSIGN_OR_RETURN((*out)[row(i)], Finish(agg, running));
        continue;
      }
      AggState st;
      for (size_t k = lo; k < hi; k++) TRIB_RETURN_NOT_OK(add(k, &st));
      TRIB_ASSIGN_OR_RETURN((*out)[row(i)], Finish(agg, st));
    }
    return Status::OK();
  }

  OperatorPtr child_;
  std::shared_ptr<const WindowBinding> windows_;  // shared with the inner operators
  int64_t memory_limit_;
  std::string memory_limit_key_;
  MemoryCharge charge_;  // the rows held, in the process's budget
  std::optional<int64_t> top_n_;
  int64_t row_bytes_ = 0;  // bytes each held row takes besides its columns (the constructor's)
  int64_t bytes_ = 0;
  bool computed_ = false;
  ColumnBatch out_;  // the input's columns, then one per call
  size_t next_ = 0;
  SpillOptions spill_;
  bool may_spill_ = false;
  // Past the limit (StartSpill): the input sorted by its partitions, the rows read from it not
  // computed yet (with the partition keys), and the window over the group being handed out.
  bool spilled_ = false;
  OperatorPtr sorted_;
  bool sorted_done_ = false;
  ColumnBatch pending_;
  int64_t pending_bytes_ = 0;
  std::unique_ptr<WindowOperator> inner_;
};

}  // namespace

OperatorPtr MakeWindow(OperatorPtr child, WindowBinding binding, int64_t memory_limit,
                       std::string memory_limit_key, std::optional<int64_t> top_n,
                       SpillOptions spill) {
  return std::make_unique<WindowOperator>(
      std::move(child), std::make_shared<const WindowBinding>(std::move(binding)), memory_limit,
      std::move(memory_limit_key), top_n, std::move(spill), /*may_spill=*/true);
}

}  // namespace tributary::sql
