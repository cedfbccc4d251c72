// The set-operation operators (operators.h): UNION ALL concatenates its inputs; INTERSECT and
// EXCEPT count the right input's rows by their byte encoding, then filter the left input,
// spilling past their memory limit (SetDifferenceOperator).
#include <unordered_map>
#include <unordered_set>

#include "common/memory_budget.h"
#include "sql/binder/cast.h"
#include "sql/exec/column_keys.h"
#include "sql/exec/operators.h"
#include "sql/exec/spill.h"
#include "sql/exec/vector_eval.h"

namespace tributary::sql {

namespace {

class UnionAllOperator : public Operator {
 public:
  UnionAllOperator(OperatorPtr first, OperatorPtr second)
      : first_(std::move(first)), second_(std::move(second)) {
    fields_ = first_->fields();
  }
  std::string Describe() const override { return "UnionAll"; }
  std::vector<const Operator*> children() const override { return {first_.get(), second_.get()}; }
  Result<bool> Next(ColumnBatch* out) override {
    if (!first_done_) {
      TRIB_ASSIGN_OR_RETURN(bool more, first_->Next(out));
      if (more) return true;
      first_done_ = true;
    }
    return second_->Next(out);
  }

 private:
  OperatorPtr first_, second_;
  bool first_done_ = false;
};

// Bytes of a hash table node holding a row's key (next pointer, std::string, count, cached
// hash), an allocator size class; its key's own allocation and the buckets come on top.
constexpr int64_t kKeyEntryBytes = 64;

// Levels of partitioning (deeper means rows no hash separates, or a bug).
constexpr int kMaxDepth = 8;

// The byte encoding of row r of `columns` (every column; NULL is a value of its own).
void RowKey(const std::vector<ColumnVector>& columns, size_t r, std::string* key) {
  key->clear();
  for (const auto& c : columns) AppendColumnKey(c, r, key);
}

// INTERSECT and EXCEPT: the right input's rows counted by value in a hash table, then each left
// row kept or dropped by its value's count. Within `memory_limit`; past it:
// - while counting, the values counted so far keep being counted and the right rows of every
//   other value are spilled in partitions by a hash of the row; the left rows of those values
//   go to the same partitions of a second set, and each pair of partitions is then an INTERSECT
//   or EXCEPT of its own (one level deeper, another hash);
// - while returning distinct rows (without ALL), the rows returned so far stay held and the
//   rows still to return that are not among them are spilled in partitions, each partition's
//   distinct rows returned at the end.
// The three kinds of rows (values counted, values spilled with the right rows, rows returned)
// never share a value, so each row is decided once.
class SetDifferenceOperator : public Operator {
 public:
  SetDifferenceOperator(OperatorPtr left, OperatorPtr right, bool intersect, bool all,
                        int64_t memory_limit, std::string memory_limit_key, SpillOptions spill,
                        int depth)
      : left_(std::move(left)),
        right_(std::move(right)),
        intersect_(intersect),
        all_(all),
        memory_limit_(memory_limit),
        memory_limit_key_(std::move(memory_limit_key)),
        spill_(std::move(spill)),
        depth_(depth),
        left_parts_(left_->fields(), spill_, depth),
        right_parts_(right_->fields(), spill_, depth),
        distinct_parts_(left_->fields(), spill_, depth) {
    fields_ = left_->fields();
  }
  std::string Describe() const override {
    std::string out = std::string(intersect_ ? "Intersect" : "Except") + (all_ ? " ALL" : "") +
                      " (the right input counted in a hash table)";
    if (right_parts_.rows() > 0 || left_parts_.rows() > 0 || distinct_parts_.rows() > 0) {
      out += ": " +
             std::to_string(right_parts_.rows() + left_parts_.rows() + distinct_parts_.rows()) +
             " row(s) spilled";
    }
    return out;
  }
  std::vector<const Operator*> children() const override { return {left_.get(), right_.get()}; }

  Result<bool> Next(ColumnBatch* out) override {
    if (!counted_) {
      TRIB_RETURN_NOT_OK(CountRight());
      counted_ = true;
    }
    std::string key;
    while (!left_done_) {
      ColumnBatch in;
      TRIB_ASSIGN_OR_RETURN(bool more, left_->Next(&in));
      if (!more) {
        left_done_ = true;
        // The partitions hold none of the values counted or returned: let them go.
        counts_ = {};
        emitted_ = {};
        charge_.Set(0);
        TRIB_RETURN_NOT_OK(left_parts_.Finish());
        TRIB_RETURN_NOT_OK(distinct_parts_.Finish());
        break;
      }
      for (ColumnVector& c : in.columns) c = Canonical(std::move(c));
      std::vector<uint32_t> rows, to_pairs, to_distinct;
      for (uint32_t r = 0; r < in.num_rows; r++) {
        RowKey(in.columns, r, &key);
        auto it = counts_.find(key);
        if (it == counts_.end() && right_spilled_) {
          to_pairs.push_back(r);  // its value's right rows (if any) are in the partitions
          continue;
        }
        const bool in_right = it != counts_.end() && it->second > 0;
        if (all_) {
          // A right row cancels (EXCEPT ALL) or pairs with (INTERSECT ALL) one left row.
          if (intersect_ == in_right) rows.push_back(r);
          if (in_right) it->second--;
        } else if (intersect_ == in_right && !emitted_.count(key)) {
          // The distinct rows already returned (EXCEPT's may be rows the right query lacks).
          if (distinct_spilling_) {
            to_distinct.push_back(r);
          } else {
            emitted_.insert(key);
            bytes_ += kKeyEntryBytes + StringHeapBytes(key.size());
            rows.push_back(r);
          }
        }
      }
      if (!to_pairs.empty()) TRIB_RETURN_NOT_OK(left_parts_.Add(in, in.columns, to_pairs));
      if (!to_distinct.empty()) {
        TRIB_RETURN_NOT_OK(distinct_parts_.Add(in, in.columns, to_distinct));
      }
      if (!distinct_spilling_ && Over()) {
        if (depth_ < kMaxDepth) {
          distinct_spilling_ = true;
        } else if (!charge_.over_budget()) {
          return LimitError("of the distinct rows it returned");
        }
      }
      if (rows.empty()) continue;
      *out = TakeRows(std::move(in), rows);
      return true;
    }
    while (true) {
      if (current_) {
        TRIB_ASSIGN_OR_RETURN(bool more, current_->Next(out));
        if (more) return true;
        current_.reset();
      }
      if (next_pair_ < SpilledPartitions::kPartitions) {
        const size_t p = next_pair_++;
        std::unique_ptr<SpillFile> left = left_parts_.Take(p);
        if (!left) continue;  // no left rows: nothing to return
        OperatorPtr lo = std::make_unique<SpillSourceOperator>(left_->fields(), std::move(left));
        std::unique_ptr<SpillFile> right = right_parts_.Take(p);
        if (right) {
          current_ = std::make_unique<SetDifferenceOperator>(
              std::move(lo),
              std::make_unique<SpillSourceOperator>(right_->fields(), std::move(right)), intersect_,
              all_, memory_limit_, memory_limit_key_, spill_, depth_ + 1);
        } else if (!intersect_) {  // EXCEPT of nothing: the left rows (each distinct one once)
          current_ = all_ ? std::move(lo)
                          : MakeDistinct(std::move(lo), memory_limit_, memory_limit_key_, spill_,
                                         depth_ + 1);
        }
        continue;
      }
      return distinct_parts_.Next(
          [&](OperatorPtr rows) {
            return MakeDistinct(std::move(rows), memory_limit_, memory_limit_key_, spill_,
                                depth_ + 1);
          },
          out);
    }
  }

 private:
  Status CountRight() {
    std::string key;
    ColumnBatch in;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, right_->Next(&in));
      if (!more) break;
      for (ColumnVector& c : in.columns) c = Canonical(std::move(c));
      std::vector<uint32_t> spilled;
      for (uint32_t r = 0; r < in.num_rows; r++) {
        RowKey(in.columns, r, &key);
        if (right_spilled_) {
          auto it = counts_.find(key);
          if (it != counts_.end()) {
            it->second++;
          } else {
            spilled.push_back(r);
          }
          continue;
        }
        auto [it, added] = counts_.try_emplace(key, 0);
        if (added) bytes_ += kKeyEntryBytes + StringHeapBytes(key.size());
        it->second++;
      }
      if (!spilled.empty()) TRIB_RETURN_NOT_OK(right_parts_.Add(in, in.columns, spilled));
      if (!right_spilled_ && Over()) {
        if (depth_ < kMaxDepth) {
          right_spilled_ = true;
        } else if (!charge_.over_budget()) {
          return LimitError("of its right query's rows");
        }
      }
    }
    return right_parts_.Finish();
  }

  // Whether the hash tables (their nodes, keys and buckets) hold more than the limit, or more
  // than the process's budget lets them (charge_.over_budget(): at the deepest level they then
  // keep growing up to the limit).
  bool Over() {
    const int64_t buckets =
        static_cast<int64_t>((counts_.bucket_count() + emitted_.bucket_count()) * sizeof(void*));
    return charge_.Over(bytes_ + buckets, memory_limit_);
  }
  Status LimitError(const char* what) const {
    return Status::Invalid(
        std::string(intersect_ ? "INTERSECT" : "EXCEPT") + " holds more " + what + " than '" +
        memory_limit_key_ + "' allows (" + std::to_string(memory_limit_) + " bytes) after " +
        std::to_string(kMaxDepth) + " levels of spilled partitions; raise it with SET '" +
        memory_limit_key_ + "' = '...'");
  }

  OperatorPtr left_, right_;
  bool intersect_, all_;
  int64_t memory_limit_;
  std::string memory_limit_key_;
  SpillOptions spill_;
  int depth_;
  int64_t bytes_ = 0;    // the nodes and keys of counts_ and emitted_
  MemoryCharge charge_;  // bytes_ and the tables' buckets, in the process's budget
  bool counted_ = false;
  bool right_spilled_ = false;      // values not counted go to the partitions
  bool distinct_spilling_ = false;  // distinct rows not returned go to distinct_parts_
  bool left_done_ = false;
  std::unordered_map<std::string, int64_t> counts_;
  std::unordered_set<std::string> emitted_;
  SpilledPartitions left_parts_, right_parts_;  // pairs: the rows of the values not counted
  SpilledPartitions distinct_parts_;            // rows to return once, past the limit
  size_t next_pair_ = 0;
  OperatorPtr current_;  // over the pair or partition being handed out
};

}  // namespace

OperatorPtr MakeUnionAll(OperatorPtr first, OperatorPtr second) {
  return std::make_unique<UnionAllOperator>(std::move(first), std::move(second));
}

OperatorPtr MakeSetDifference(OperatorPtr left, OperatorPtr right, bool intersect, bool all,
                              int64_t memory_limit, std::string memory_limit_key,
                              SpillOptions spill) {
  return std::make_unique<SetDifferenceOperator>(std::move(left), std::move(right), intersect, all,
                                                 memory_limit, std::move(memory_limit_key),
                                                 std::move(spill), 0);
}

}  // namespace tributary::sql
