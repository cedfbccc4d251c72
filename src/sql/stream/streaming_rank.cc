// Flink's top-N and deduplication pattern in streaming mode (MakeStreamingTopN): the rows of each
// partition ranked by ROW_NUMBER() as changes arrive, and the changes of the first N rows emitted
// with their numbers (Flink's retractable rank: every current row of the input is held, so a
// retraction of a row in the first N brings the next one up).
#include <set>
#include <unordered_map>

#include "sql/binder/cast.h"
#include "sql/exec/operators.h"
#include "sql/stream/streaming_operators.h"

namespace tributary::sql {
namespace {

// One current row of the input, ordered within its partition by its ORDER BY values, then by
// arrival (a row that ties with an earlier one ranks after it) or, in a streaming job, by the
// row's values (so a restart that reads the input's rows in another order holds them ranked
// alike).
struct Ranked {
  Row order;  // the ORDER BY values
  int64_t arrival = 0;
  Row row;  // the input's columns (without the op)
};

class StreamingTopNOperator : public Operator {
 public:
  StreamingTopNOperator(OperatorPtr child, std::vector<BoundExprPtr> partition_by,
                        std::vector<BoundExprPtr> order_by, std::vector<bool> descending,
                        std::vector<bool> nulls_first, int64_t n, bool ties_by_value,
                        std::string description)
      : child_(std::move(child)),
        partition_by_(std::move(partition_by)),
        order_by_(std::move(order_by)),
        descending_(std::move(descending)),
        nulls_first_(std::move(nulls_first)),
        n_(static_cast<size_t>(std::max<int64_t>(0, n))),
        ties_by_value_(ties_by_value),
        description_(std::move(description)) {
    fields_ = child_->fields();
    fields_.push_back(
        Field{static_cast<int32_t>(fields_.size()), "rn", DataType::BigInt().NotNull(), ""});
  }
  std::string Describe() const override { return description_; }
  std::vector<const Operator*> children() const override { return {child_.get()}; }
  bool StateFromInputRows() const override { return ties_by_value_; }

  Result<bool> Next(ColumnBatch* out) override {
    while (true) {
      ColumnBatch in;
      TRIB_ASSIGN_OR_RETURN(bool more, child_->Next(&in));
      if (!more) return false;
      std::vector<Row> emitted;
      for (Row& change : BatchRows(in)) TRIB_RETURN_NOT_OK(Apply(std::move(change), &emitted));
      if (emitted.empty()) continue;
      *out = RowsToBatch(fields_, emitted.begin(), emitted.end());
      return true;
    }
  }

 private:
  struct Less {
    const StreamingTopNOperator* op;
    bool operator()(const Ranked& a, const Ranked& b) const {
      for (size_t k = 0; k < a.order.size(); k++) {
        const int c = op->CompareKey(a.order[k], b.order[k], k);
        if (c != 0) return c < 0;
      }
      if (op->ties_by_value_) {
        for (size_t k = 0; k < a.row.size() && k < b.row.size(); k++) {
          const Value& x = a.row[k];
          const Value& y = b.row[k];
          if (x.is_null() || y.is_null()) {
            if (x.is_null() != y.is_null()) return x.is_null();
            continue;
          }
          const int c = CompareSame(x, y);
          if (c != 0) return c < 0;
        }
      }
      return a.arrival < b.arrival;
    }
  };
  using Partition = std::multiset<Ranked, Less>;

  int CompareKey(const Value& a, const Value& b, size_t k) const {
    const bool na = a.is_null(), nb = b.is_null();
    if (na || nb) {
      if (na && nb) return 0;
      return na == nulls_first_[k] ? -1 : 1;
    }
    const int c = CompareSame(a, b);
    return descending_[k] ? -c : c;
  }

  // The first N rows of a partition, in rank order.
  std::vector<const Ranked*> First(const Partition& p) const {
    std::vector<const Ranked*> out;
    for (auto it = p.begin(); it != p.end() && out.size() < n_; ++it) out.push_back(&*it);
    return out;
  }

  // One change of the input (column 0 its op): the partition's first N before and after it,
  // compared rank by rank (a rank held by another row: -U / +U; a rank gone: -D; a new rank: +I).
  Status Apply(Row change, std::vector<Row>* emitted) {
    const std::string op = change[0].string_value();
    std::string key;
    for (const auto& e : partition_by_) {
      TRIB_ASSIGN_OR_RETURN(Value v, Evaluate(*e, change));
      AppendKey(v, &key);
    }
    Ranked r;
    for (const auto& e : order_by_) {
      TRIB_ASSIGN_OR_RETURN(Value v, Evaluate(*e, change));
      r.order.push_back(std::move(v));
    }
    Row row(std::make_move_iterator(change.begin() + 1), std::make_move_iterator(change.end()));
    auto it = partitions_.try_emplace(key, Less{this}).first;
    Partition& p = it->second;
    // The first N as rows with their numbers, before the change.
    std::vector<Row> before;
    for (const Ranked* x : First(p)) before.push_back(x->row);
    const bool add = op == "+I" || op == "+U";
    if (add) {
      r.arrival = next_arrival_++;
      r.row = std::move(row);
      p.insert(std::move(r));
    } else {
      // The retracted row: the first held row with these ORDER BY values and these columns.
      r.arrival = INT64_MIN;
      if (ties_by_value_) r.row = row;
      for (auto at = p.lower_bound(r); at != p.end(); ++at) {
        bool same_order = true;
        for (size_t k = 0; k < r.order.size() && same_order; k++) {
          same_order = CompareKey(at->order[k], r.order[k], k) == 0;
        }
        if (!same_order) break;
        if (at->row == row) {
          p.erase(at);
          break;
        }
      }
    }
    std::vector<const Ranked*> after = First(p);
    auto out = [&](const char* kind, const Row& values, size_t rank) {
      Row o;
      o.reserve(values.size() + 2);
      o.push_back(Value::String(kind));
      o.insert(o.end(), values.begin(), values.end());
      o.push_back(Value::Int(static_cast<int64_t>(rank) + 1));
      emitted->push_back(std::move(o));
    };
    for (size_t k = 0; k < std::max(before.size(), after.size()); k++) {
      const Row* b = k < before.size() ? &before[k] : nullptr;
      const Row* a = k < after.size() ? &after[k]->row : nullptr;
      if (b && a) {
        if (*b == *a) continue;
        out("-U", *b, k);
        out("+U", *a, k);
      } else if (b) {
        out("-D", *b, k);
      } else {
        out("+I", *a, k);
      }
    }
    if (p.empty()) partitions_.erase(key);
    return Status::OK();
  }

  OperatorPtr child_;
  std::vector<BoundExprPtr> partition_by_, order_by_;
  std::vector<bool> descending_, nulls_first_;
  size_t n_;
  bool ties_by_value_;
  std::string description_;
  std::unordered_map<std::string, Partition> partitions_;
  int64_t next_arrival_ = 0;
};

}  // namespace

OperatorPtr MakeStreamingTopN(OperatorPtr child, std::vector<BoundExprPtr> partition_by,
                              std::vector<BoundExprPtr> order_by, std::vector<bool> descending,
                              std::vector<bool> nulls_first, int64_t n, bool ties_by_value,
                              std::string description) {
  return std::make_unique<StreamingTopNOperator>(
      std::move(child), std::move(partition_by), std::move(order_by), std::move(descending),
      std::move(nulls_first), n, ties_by_value, std::move(description));
}

}  // namespace tributary::sql
