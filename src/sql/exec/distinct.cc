// SELECT DISTINCT and UNION's DISTINCT within 'sql.aggregate.memory-limit': the distinct rows
// seen are held in a hash table and each handed out as it first arrives. Past the limit the rows
// seen keep being dropped, while rows not seen are spilled to disk (spill.h) in partitions by
// hash; once the input ends, each partition's distinct rows are handed out (spilling again, by
// another hash, if they do not fit either). A partition's rows are none of the rows held and of
// no other partition, so every distinct row comes out once.
#include "common/memory_budget.h"
#include "sql/exec/column_keys.h"
#include "sql/exec/holding.h"
#include "sql/exec/spill.h"
#include "sql/exec/vector_eval.h"

namespace tributary::sql {

namespace {

// Levels of partitioning (deeper means rows no hash separates, or a bug).
constexpr int kMaxDepth = 8;

class DistinctOperator : public Operator {
 public:
  DistinctOperator(OperatorPtr child, int64_t memory_limit, std::string memory_limit_key,
                   SpillOptions spill, int depth)
      : child_(std::move(child)),
        memory_limit_(memory_limit),
        memory_limit_key_(std::move(memory_limit_key)),
        spill_(std::move(spill)),
        depth_(depth),
        spilled_(child_->fields(), spill_, depth) {
    fields_ = child_->fields();
  }
  std::string Describe() const override {
    return "Distinct" +
           (spilled_.rows() > 0 ? ": " + std::to_string(spilled_.rows()) + " row(s) spilled" : "");
  }
  std::vector<const Operator*> children() const override { return {child_.get()}; }

  Result<bool> Next(ColumnBatch* out) override {
    ColumnBatch in;
    std::vector<uint32_t> groups, first_rows;
    while (!input_done_) {
      TRIB_ASSIGN_OR_RETURN(bool more, child_->Next(&in));
      if (!more) {
        input_done_ = true;
        seen_ = GroupIndex();  // the partitions hold none of these rows: let them go
        charge_.Set(0);
        TRIB_RETURN_NOT_OK(spilled_.Finish());
        break;
      }
      std::vector<const ColumnVector*> columns;
      for (ColumnVector& c : in.columns) {
        c = Canonical(std::move(c));
        columns.push_back(&c);
      }
      if (spilling_) {
        seen_.Find(columns, in.num_rows, &groups);
        std::vector<uint32_t> unseen;
        for (uint32_t r = 0; r < in.num_rows; r++) {
          if (groups[r] == GroupIndex::kNoGroup) unseen.push_back(r);
        }
        if (!unseen.empty()) TRIB_RETURN_NOT_OK(spilled_.Add(in, in.columns, unseen));
        continue;
      }
      seen_.Assign(columns, in.num_rows, &groups, &first_rows);
      const int64_t held = seen_.ApproxBytes();
      if (charge_.Over(held, memory_limit_) && (depth_ < kMaxDepth || held > memory_limit_)) {
        // The rows held so far stay (this batch's new ones are handed out below); the rows
        // still to come that are not among them go to disk. (Past the process's budget only,
        // the deepest level keeps holding them up to its own limit.)
        if (depth_ >= kMaxDepth) {
          return Status::Invalid("the distinct rows of a DISTINCT or UNION (" +
                                 std::to_string(seen_.size()) + " so far) hold more than '" +
                                 memory_limit_key_ + "' allows (" + std::to_string(memory_limit_) +
                                 " bytes); raise it with SET '" + memory_limit_key_ + "' = '...'");
        }
        spilling_ = true;
      }
      if (first_rows.empty()) continue;
      *out = TakeRows(std::move(in), first_rows);
      return true;
    }
    // Each spilled partition's distinct rows.
    return spilled_.Next(
        [&](OperatorPtr rows) -> OperatorPtr {
          return std::make_unique<DistinctOperator>(std::move(rows), memory_limit_,
                                                    memory_limit_key_, spill_, depth_ + 1);
        },
        out);
  }

 private:
  OperatorPtr child_;
  int64_t memory_limit_;
  MemoryCharge charge_;  // what seen_ holds, in the process's budget
  std::string memory_limit_key_;
  SpillOptions spill_;
  int depth_;
  GroupIndex seen_;  // the distinct rows held, by their columns
  bool spilling_ = false;
  bool input_done_ = false;
  SpilledPartitions spilled_;  // the rows not seen once spilling began
};

}  // namespace

OperatorPtr MakeDistinct(OperatorPtr child, int64_t memory_limit, std::string memory_limit_key,
                         SpillOptions spill, int depth) {
  return std::make_unique<DistinctOperator>(std::move(child), memory_limit,
                                            std::move(memory_limit_key), std::move(spill), depth);
}

}  // namespace tributary::sql
