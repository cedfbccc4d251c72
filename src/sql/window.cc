// The window operator (operators.h, MakeWindow): reads its input whole, then for each window
// call orders the rows by its partition and ORDER BY keys and computes the call's value for every
// row; rows come out in input order with one column per call appended.
#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "sql/aggregate_state.h"
#include "sql/cast.h"
#include "sql/interrupt.h"
#include "sql/operators.h"
#include "sql/vector_eval.h"

namespace tributary::sql {

namespace {

constexpr size_t kWindowBatchRows = 2048;

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

class WindowOperator : public Operator {
 public:
  WindowOperator(OperatorPtr child, WindowBinding binding, int64_t memory_limit,
                 std::string memory_limit_key, std::optional<int64_t> top_n)
      : child_(std::move(child)),
        windows_(std::move(binding)),
        memory_limit_(memory_limit),
        memory_limit_key_(std::move(memory_limit_key)),
        top_n_(top_n) {
    fields_ = child_->fields();
    for (size_t i = 0; i < windows_.calls.size(); i++) {
      fields_.push_back(Field{static_cast<int32_t>(fields_.size()), "$window" + std::to_string(i),
                              windows_.calls[i].type, ""});
    }
  }
  std::string Describe() const override {
    std::string out = "Window: ";
    for (size_t i = 0; i < windows_.calls.size(); i++) {
      out += (i ? ", " : "") + windows_.calls[i].key;
    }
    if (top_n_) {
      return out + " (the first " + std::to_string(*top_n_) +
             " rows of each partition kept as the input streams by: a top-N)";
    }
    return out + " (input read whole, sorted per window)";
  }
  std::vector<const Operator*> children() const override { return {child_.get()}; }

  Result<bool> Next(ColumnBatch* out) override {
    if (!computed_) {
      TRIB_RETURN_NOT_OK(Compute());
      computed_ = true;
    }
    if (next_ >= rows_.size()) return false;
    const size_t end = std::min(rows_.size(), next_ + kWindowBatchRows);
    *out = RowsToBatch(fields_, rows_.begin() + next_, rows_.begin() + end);
    next_ = end;
    return true;
  }

 private:
  // Top-N (a single ROW_NUMBER() whose number is filtered to at most top_n_): each partition
  // keeps its best top_n_ rows in a heap as the input streams by, so memory holds partitions x N
  // rows; then each partition's rows are numbered in window order (ties in input order).
  Status ComputeTopN() {
    const WindowCall& call = windows_.calls[0];
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
    while (!Interrupted()) {
      TRIB_ASSIGN_OR_RETURN(bool more, child_->Next(&in));
      if (!more) break;
      for (Row& r : BatchRows(in)) {
        if (limit == 0) break;
        std::string part;
        for (const auto& p : call.partition_by) {
          TRIB_ASSIGN_OR_RETURN(Value v, Evaluate(*p, r));
          AppendKey(v, &part);
        }
        Kept k;
        for (const auto& o : call.order_by) {
          TRIB_ASSIGN_OR_RETURN(Value v, Evaluate(*o, r));
          k.order.push_back(std::move(v));
        }
        k.seq = seq++;
        std::vector<Kept>& heap = parts[part];
        if (heap.size() >= limit && !before(k, heap.front())) continue;
        k.bytes = 64 + static_cast<int64_t>(part.size());
        for (const Value& v : r) k.bytes += ApproxBytes(v);
        k.row = std::move(r);
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
                               "' allows (" + std::to_string(memory_limit_) + " bytes); raise "
                               "it with SET '" + memory_limit_key_ + "' = '...'");
      }
    }
    for (auto& [part, heap] : parts) {
      std::sort_heap(heap.begin(), heap.end(), before);
      for (size_t i = 0; i < heap.size(); i++) {
        Row row = std::move(heap[i].row);
        row.push_back(Value::Int(static_cast<int64_t>(i + 1)));
        rows_.push_back(std::move(row));
      }
    }
    return Status::OK();
  }

  Status Compute() {
    if (top_n_) return ComputeTopN();
    ColumnBatch in;
    while (!Interrupted()) {
      TRIB_ASSIGN_OR_RETURN(bool more, child_->Next(&in));
      if (!more) break;
      std::vector<Row> rows = BatchRows(in);
      for (Row& r : rows) {
        bytes_ += 64;
        for (const Value& v : r) bytes_ += ApproxBytes(v);
        rows_.push_back(std::move(r));
      }
      if (bytes_ > memory_limit_) {
        return Status::Invalid("the rows of a window function hold more than '" +
                               memory_limit_key_ + "' allows (" + std::to_string(memory_limit_) +
                               " bytes); raise it with SET '" + memory_limit_key_ +
                               "' = '...', or filter the rows further");
      }
    }
    const size_t n = rows_.size();
    const size_t width = child_->fields().size();
    std::vector<std::vector<Value>> results(windows_.calls.size());
    for (size_t c = 0; c < windows_.calls.size(); c++) {
      TRIB_ASSIGN_OR_RETURN(results[c], ComputeCall(windows_.calls[c]));
    }
    for (size_t r = 0; r < n; r++) {
      rows_[r].resize(width + windows_.calls.size());
      for (size_t c = 0; c < windows_.calls.size(); c++) {
        rows_[r][width + c] = std::move(results[c][r]);
      }
    }
    return Status::OK();
  }

  // The value of `call` for every input row (in input order).
  Result<std::vector<Value>> ComputeCall(const WindowCall& call) {
    const size_t n = rows_.size();
    // Per row: its partition key (encoded), order values and argument values.
    std::vector<std::string> part(n);
    std::vector<std::vector<Value>> order(n), args(n);
    for (size_t r = 0; r < n; r++) {
      for (const auto& p : call.partition_by) {
        TRIB_ASSIGN_OR_RETURN(Value v, Evaluate(*p, rows_[r]));
        AppendKey(v, &part[r]);
      }
      for (const auto& o : call.order_by) {
        TRIB_ASSIGN_OR_RETURN(Value v, Evaluate(*o, rows_[r]));
        order[r].push_back(std::move(v));
      }
      if (call.aggregate.arg) {
        TRIB_ASSIGN_OR_RETURN(Value v, Evaluate(*call.aggregate.arg, rows_[r]));
        args[r].push_back(std::move(v));
      }
      for (const auto& a : call.args) {
        TRIB_ASSIGN_OR_RETURN(Value v, Evaluate(*a, rows_[r]));
        args[r].push_back(std::move(v));
      }
    }
    auto order_cmp = [&](size_t a, size_t b) {
      for (size_t k = 0; k < call.order_by.size(); k++) {
        int c = CompareKey(order[a][k], order[b][k], call.descending[k], call.nulls_first[k]);
        if (c != 0) return c;
      }
      return 0;
    };
    std::vector<size_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      if (part[a] != part[b]) return part[a] < part[b];
      return order_cmp(a, b) < 0;
    });
    std::vector<Value> out(n);
    size_t begin = 0;
    while (begin < n) {
      size_t end = begin + 1;
      while (end < n && part[idx[end]] == part[idx[begin]]) end++;
      TRIB_RETURN_NOT_OK(ComputePartition(call, idx, begin, end, order_cmp, args, &out));
      begin = end;
    }
    return out;
  }

  // The call over the rows idx[begin..end) (one partition, in window order).
  template <typename OrderCmp>
  Status ComputePartition(const WindowCall& call, const std::vector<size_t>& idx, size_t begin,
                          size_t end, const OrderCmp& order_cmp,
                          const std::vector<std::vector<Value>>& args, std::vector<Value>* out) {
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
        const int64_t off = args[row(i)][1].int_value();
        const int64_t j = f == "LAG" ? static_cast<int64_t>(i) - off : static_cast<int64_t>(i) + off;
        if (j >= 0 && j < static_cast<int64_t>(m)) {
          (*out)[row(i)] = args[row(static_cast<size_t>(j))][0];
        } else {
          (*out)[row(i)] = args[row(i)].size() > 2 ? args[row(i)][2] : Value::Null();
        }
      }
      return Status::OK();
    }
    // Frame-based: FIRST_VALUE, LAST_VALUE and aggregates. The frame of row i: [lo, hi).
    using K = FrameBound::Kind;
    const bool ordered = !call.order_by.empty();
    auto frame = [&](size_t i) -> std::pair<size_t, size_t> {
      if (!call.has_frame) {
        return ordered ? std::make_pair(size_t{0}, peer_end[i]) : std::make_pair(size_t{0}, m);
      }
      auto at = [&](const FrameBound& b, bool is_start) -> int64_t {
        switch (b.kind) {
          case K::kUnboundedPreceding: return 0;
          case K::kUnboundedFollowing: return static_cast<int64_t>(m);
          case K::kCurrentRow:
            if (call.rows) return static_cast<int64_t>(is_start ? i : i + 1);
            return static_cast<int64_t>(is_start ? peer_start[i] : peer_end[i]);
          case K::kPreceding:
            return static_cast<int64_t>(i) - b.offset + (is_start ? 0 : 1);
          case K::kFollowing:
            return static_cast<int64_t>(i) + b.offset + (is_start ? 0 : 1);
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
        (*out)[row(i)] = lo >= hi ? Value::Null()
                                  : args[row(f == "FIRST_VALUE" ? lo : hi - 1)][0];
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
      return AccumulateValue(agg, args[row(i)][0], st);
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
  WindowBinding windows_;
  int64_t memory_limit_;
  std::string memory_limit_key_;
  std::optional<int64_t> top_n_;
  int64_t bytes_ = 0;
  bool computed_ = false;
  std::vector<Row> rows_;
  size_t next_ = 0;
};

}  // namespace

OperatorPtr MakeWindow(OperatorPtr child, WindowBinding binding, int64_t memory_limit,
                       std::string memory_limit_key, std::optional<int64_t> top_n) {
  return std::make_unique<WindowOperator>(std::move(child), std::move(binding), memory_limit,
                                          std::move(memory_limit_key), top_n);
}

}  // namespace tributary::sql
