// The set-operation operators (operators.h): UNION ALL concatenates its inputs; INTERSECT and
// EXCEPT count the right input's rows by their byte encoding, then filter the left input.
#include <unordered_map>
#include <unordered_set>

#include "sql/binder/cast.h"
#include "sql/exec/column_keys.h"
#include "sql/exec/operators.h"
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

// The byte encoding of row r of `batch` (every column; NULL is a value of its own).
void RowKey(const ColumnBatch& batch, size_t r, std::string* key) {
  key->clear();
  for (const auto& c : batch.columns) AppendKey(c.IsNull(r) ? Value::Null() : c.Get(r), key);
}

class SetDifferenceOperator : public Operator {
 public:
  SetDifferenceOperator(OperatorPtr left, OperatorPtr right, bool intersect, bool all,
                        int64_t memory_limit, std::string memory_limit_key)
      : left_(std::move(left)),
        right_(std::move(right)),
        intersect_(intersect),
        all_(all),
        memory_limit_(memory_limit),
        memory_limit_key_(std::move(memory_limit_key)) {
    fields_ = left_->fields();
  }
  std::string Describe() const override {
    return std::string(intersect_ ? "Intersect" : "Except") + (all_ ? " ALL" : "") +
           " (the right input counted in a hash table)";
  }
  std::vector<const Operator*> children() const override { return {left_.get(), right_.get()}; }
  Result<bool> Next(ColumnBatch* out) override {
    std::string key;
    if (!counted_) {
      ColumnBatch in;
      while (true) {
        TRIB_ASSIGN_OR_RETURN(bool more, right_->Next(&in));
        if (!more) break;
        for (size_t r = 0; r < in.num_rows; r++) {
          RowKey(in, r, &key);
          auto [it, added] = counts_.try_emplace(key, 0);
          if (added) bytes_ += kKeyEntryBytes + StringHeapBytes(key.size());
          it->second++;
        }
        TRIB_RETURN_NOT_OK(CheckMemory("of its right query's rows"));
      }
      counted_ = true;
    }
    ColumnBatch in;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, left_->Next(&in));
      if (!more) return false;
      std::vector<uint32_t> rows;
      for (size_t r = 0; r < in.num_rows; r++) {
        RowKey(in, r, &key);
        auto it = counts_.find(key);
        const bool in_right = it != counts_.end() && it->second > 0;
        bool keep;
        if (all_) {
          // A right row cancels (EXCEPT ALL) or pairs with (INTERSECT ALL) one left row.
          keep = intersect_ == in_right;
          if (in_right) it->second--;
        } else if (intersect_ == in_right) {
          // The distinct rows already returned (EXCEPT's may be rows the right query lacks).
          keep = emitted_.insert(key).second;
          if (keep) bytes_ += kKeyEntryBytes + StringHeapBytes(key.size());
        } else {
          keep = false;
        }
        if (keep) rows.push_back(static_cast<uint32_t>(r));
      }
      TRIB_RETURN_NOT_OK(CheckMemory("of the distinct rows it returned"));
      if (rows.empty()) continue;
      *out = TakeRows(std::move(in), rows);
      return true;
    }
  }

 private:
  // The error once the hash tables (their nodes, keys and buckets) hold more than the limit.
  Status CheckMemory(const char* what) const {
    const int64_t buckets =
        static_cast<int64_t>((counts_.bucket_count() + emitted_.bucket_count()) * sizeof(void*));
    if (bytes_ + buckets <= memory_limit_) return Status::OK();
    return Status::Invalid(std::string(intersect_ ? "INTERSECT" : "EXCEPT") + " holds more " +
                           what + " than '" + memory_limit_key_ + "' allows (" +
                           std::to_string(memory_limit_) + " bytes); raise it with SET '" +
                           memory_limit_key_ + "' = '...'");
  }

  OperatorPtr left_, right_;
  bool intersect_, all_;
  int64_t memory_limit_;
  std::string memory_limit_key_;
  int64_t bytes_ = 0;  // the nodes and keys of counts_ and emitted_
  bool counted_ = false;
  std::unordered_map<std::string, int64_t> counts_;
  std::unordered_set<std::string> emitted_;
};

}  // namespace

OperatorPtr MakeUnionAll(OperatorPtr first, OperatorPtr second) {
  return std::make_unique<UnionAllOperator>(std::move(first), std::move(second));
}

OperatorPtr MakeSetDifference(OperatorPtr left, OperatorPtr right, bool intersect, bool all,
                              int64_t memory_limit, std::string memory_limit_key) {
  return std::make_unique<SetDifferenceOperator>(std::move(left), std::move(right), intersect, all,
                                                 memory_limit, std::move(memory_limit_key));
}

}  // namespace tributary::sql
