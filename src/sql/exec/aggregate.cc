// GROUP BY: hash aggregation within 'sql.aggregate.memory-limit'. Past the limit the groups held
// keep taking their rows, while the rows of groups not held are spilled to disk (spill.h) in
// partitions by key; once the groups held are handed out, each partition is aggregated on its
// own (spilling again, by another hash, if it does not fit either).
#include <functional>

#include "common/memory_budget.h"
#include "sql/exec/aggregate_state.h"
#include "sql/exec/column_keys.h"
#include "sql/exec/holding.h"
#include "sql/exec/spill.h"
#include "sql/exec/vector_eval.h"

namespace tributary::sql {

namespace {

// Rows of an input batch a GROUP BY groups at a time (its memory limit is checked after each).
constexpr size_t kGroupSliceRows = 65536;
// Levels of partitioning: deeper means keys no hash separates (or a bug).
constexpr int kMaxDepth = 8;

class AggregateOperator : public HoldingOperator {
 public:
  AggregateOperator(OperatorPtr child, std::shared_ptr<const AggregateBinding> binding,
                    int64_t memory_limit, std::string memory_limit_key, SpillOptions spill,
                    int depth)
      : child_(std::move(child)),
        agg_(std::move(binding)),
        memory_limit_(memory_limit),
        memory_limit_key_(std::move(memory_limit_key)),
        spill_(std::move(spill)),
        depth_(depth),
        spilled_(child_->fields(), spill_, depth) {
    for (size_t i = 0; i < agg_->keys.size(); i++) {
      fields_.push_back(
          Field{static_cast<int32_t>(i), "$key" + std::to_string(i), agg_->keys[i]->type, ""});
    }
    for (size_t i = 0; i < agg_->calls.size(); i++) {
      fields_.push_back(Field{static_cast<int32_t>(fields_.size()), "$agg" + std::to_string(i),
                              agg_->calls[i].type, ""});
    }
  }
  std::string Describe() const override {
    return "Aggregate: " + std::to_string(agg_->keys.size()) + " group key(s), " +
           std::to_string(agg_->calls.size()) + " aggregate(s)" +
           (spilled_.rows() > 0 ? ", " + std::to_string(spilled_.rows()) + " row(s) spilled" : "");
  }
  std::vector<const Operator*> children() const override { return {child_.get()}; }

 private:
  // What the groups hold, `bytes`, against the limit and the process's budget. Past either,
  // with keys, the rows of new groups are spilled from the next slice on; an error only past the
  // limit: without keys (one group), or when the groups held grow by the limit again once
  // spilling (their DISTINCT values, their text).
  Status CheckMemory(int64_t bytes, size_t groups) {
    if (!charge_.Over(bytes, memory_limit_)) return Status::OK();
    if (!agg_->keys.empty() && depth_ < kMaxDepth) {
      if (!spilling_) {
        spilling_ = true;
        spilled_by_budget_ = charge_.over_budget();
        held_at_spill_ = kUnset;  // what the batch leaves held (add_or_spill)
        return Status::OK();
      }
      if (held_at_spill_ == kUnset || bytes - memory_limit_ <= held_at_spill_) {
        return Status::OK();
      }
    }
    if (bytes <= memory_limit_) return Status::OK();  // past the process's budget only
    const std::string what =
        agg_->keys.empty()
            ? "the state of an aggregate (DISTINCT values, LISTAGG text) holds"
            : "the groups of a GROUP BY (" + std::to_string(groups) + " so far) hold";
    return Status::Invalid(what + " more than '" + memory_limit_key_ + "' allows (" +
                           std::to_string(memory_limit_) + " bytes); raise it with SET '" +
                           memory_limit_key_ + "' = '...', or filter the rows further");
  }

  // The key columns of `in`, each in its scan representation.
  Result<std::vector<ColumnVector>> Keys(const ColumnBatch& in) const {
    std::vector<ColumnVector> keys;
    for (const auto& k : agg_->keys) {
      TRIB_ASSIGN_OR_RETURN(ColumnVector c, EvaluateBatch(*k, in));
      keys.push_back(Canonical(std::move(c)));
    }
    return keys;
  }

  // Groups each batch's rows by their key columns (GroupIndex) and folds every argument column
  // into its rows' groups; the keys and results are columns, no row is made. What the groups
  // hold is counted as they grow: the key columns, the index, the states (as allocated) and what
  // states allocate (DISTINCT sets, LISTAGG text, strings), within the memory limit.
  Status Consume() override {
    const AggregateBinding& agg = *agg_;
    const size_t calls = agg.calls.size();
    GroupIndex index;
    std::vector<ColumnVector> key_columns;
    for (const auto& k : agg.keys) key_columns.push_back(TypedColumn(k->type));
    std::vector<AggState> states;
    size_t groups = 0;
    if (agg.keys.empty()) {
      groups = 1;
      states.resize(calls);
    }
    int64_t grown = 0;       // allocated by the states beyond sizeof(AggState)
    int64_t key_values = 0;  // allocated by the Values of kValue key columns beyond themselves
    auto held = [&](size_t state_capacity) {
      int64_t bytes = index.ApproxBytes() + grown + key_values +
                      static_cast<int64_t>(state_capacity * sizeof(AggState));
      for (const ColumnVector& k : key_columns) bytes += ColumnStorageBytes(k);
      return bytes;
    };
    std::vector<uint32_t> group_of, first_rows;
    size_t expected_states = 0;  // states the batch being sliced is expected to need in all
    // Folds the rows of `in` into their groups.
    auto add = [&](const ColumnBatch& in) -> Status {
      // Each argument once per batch: a column as is, anything else computed.
      std::vector<ColumnVector> args(calls);
      for (size_t i = 0; i < calls; i++) {
        if (agg.calls[i].star) continue;
        TRIB_ASSIGN_OR_RETURN(ColumnVector a, EvaluateBatch(*agg.calls[i].arg, in));
        args[i] = Canonical(std::move(a));
      }
      if (agg.keys.empty()) {
        for (size_t i = 0; i < calls; i++) {
          if (agg.calls[i].star) {
            states[i].count += static_cast<int64_t>(in.num_rows);
          } else {
            TRIB_RETURN_NOT_OK(AccumulateColumn(agg.calls[i], args[i], &states[i], &grown));
          }
        }
        return CheckMemory(grown, groups);
      }
      TRIB_ASSIGN_OR_RETURN(std::vector<ColumnVector> keys, Keys(in));
      std::vector<const ColumnVector*> key_ptrs;
      for (const ColumnVector& k : keys) key_ptrs.push_back(&k);
      index.Assign(key_ptrs, in.num_rows, &group_of, &first_rows);
      for (size_t k = 0; k < keys.size(); k++) {
        key_columns[k].AppendRows(keys[k], first_rows);
        if (keys[k].rep != ColumnVector::Rep::kValue) continue;
        for (uint32_t r : first_rows) key_values += ValueHeapBytes(keys[k].values[r]);
      }
      groups = index.size();
      // The states grow by doubling; while they move, the old and the new vector are both held,
      // so that is checked before it happens (past the limit they grow by what is needed).
      const size_t need = groups * calls;
      if (need > states.capacity()) {
        size_t capacity = std::max(need, 2 * states.capacity());
        // Room for the states the batch is expected to need at once, when that fits, so they do
        // not move at every doubling.
        if (expected_states > capacity &&
            held(states.capacity() + expected_states) <= memory_limit_) {
          capacity = expected_states;
        }
        if (held(states.capacity() + capacity) > memory_limit_) {
          TRIB_RETURN_NOT_OK(CheckMemory(held(states.capacity() + need), groups));
          capacity = need;
        }
        states.reserve(capacity);
      }
      states.resize(need);
      for (size_t i = 0; i < calls; i++) {
        if (agg.calls[i].star) {
          for (uint32_t g : group_of) ++states[g * calls + i].count;
        } else {
          TRIB_RETURN_NOT_OK(
              AccumulateGroups(agg.calls[i], args[i], group_of, calls, i, &states, &grown));
        }
      }
      return CheckMemory(held(states.capacity()), groups);
    };
    // Once spilling: the rows of groups held are folded in, the others spilled.
    auto add_or_spill = [&](const ColumnBatch& in) -> Status {
      if (!spilling_) {
        TRIB_RETURN_NOT_OK(add(in));
        // (Spilling for the process's budget, not the limit: the groups held may still grow by
        // the limit, as when they reach it, so the budget never makes a GROUP BY fail sooner.)
        if (spilling_) {
          held_at_spill_ = spilled_by_budget_ ? std::max(held(states.capacity()), memory_limit_)
                                              : held(states.capacity());
        }
        return Status::OK();
      }
      TRIB_ASSIGN_OR_RETURN(std::vector<ColumnVector> keys, Keys(in));
      std::vector<const ColumnVector*> key_ptrs;
      for (const ColumnVector& k : keys) key_ptrs.push_back(&k);
      std::vector<uint32_t> found;
      index.Find(key_ptrs, in.num_rows, &found);
      std::vector<uint32_t> held_rows, spilled;
      for (uint32_t r = 0; r < in.num_rows; r++) {
        (found[r] == GroupIndex::kNoGroup ? spilled : held_rows).push_back(r);
      }
      if (!spilled.empty()) TRIB_RETURN_NOT_OK(spilled_.Add(in, keys, spilled));
      if (held_rows.empty()) return Status::OK();
      if (spilled.empty()) return add(in);
      return add(CopyRows(in, held_rows));
    };
    ColumnBatch in;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, child_->Next(&in));
      if (!more) break;
      if (agg.keys.empty() || in.num_rows <= kGroupSliceRows) {
        TRIB_RETURN_NOT_OK(add_or_spill(in));
        continue;
      }
      // A scan for an aggregate hands out whole data files: their rows are grouped a slice at a
      // time, so the groups outgrow the limit by a slice at most before it is checked.
      for (size_t begin = 0; begin < in.num_rows; begin += kGroupSliceRows) {
        const size_t before = index.size();
        TRIB_RETURN_NOT_OK(
            add_or_spill(SliceBatch(in, begin, std::min(in.num_rows, begin + kGroupSliceRows))));
        if (begin == 0) {
          // The rest of the batch as new in groups as its first slice.
          const size_t added = index.size() - before;
          const size_t rest = in.num_rows - kGroupSliceRows;
          expected_states = (index.size() + added * rest / kGroupSliceRows) * calls;
        }
      }
      expected_states = 0;
    }
    TRIB_RETURN_NOT_OK(spilled_.Finish());
    // The result columns are made while the states are still held: about what the states
    // take, whose growth was bounded.
    held_.num_rows = groups;
    held_.columns = std::move(key_columns);
    for (size_t i = 0; i < calls; i++) {
      ColumnVector results = TypedColumn(agg.calls[i].type);
      results.Reserve(groups);
      for (size_t g = 0; g < groups; g++) {
        TRIB_ASSIGN_OR_RETURN(Value v, Finish(agg.calls[i], states[g * calls + i]));
        results.Append(v);
      }
      held_.columns.push_back(std::move(results));
    }
    // The states go with this call; the result columns stay until handed out.
    int64_t result_bytes = 0;
    for (const ColumnVector& c : held_.columns) result_bytes += ColumnStorageBytes(c);
    charge_.Set(result_bytes);
    return Status::OK();
  }

  // After the groups held: each spilled partition aggregated on its own.
  Result<bool> NextAfterHeld(ColumnBatch* out) override {
    charge_.Set(0);  // the groups held were handed out (each partition charges its own)
    return spilled_.Next(
        [&](OperatorPtr rows) -> OperatorPtr {
          return std::make_unique<AggregateOperator>(std::move(rows), agg_, memory_limit_,
                                                     memory_limit_key_, spill_, depth_ + 1);
        },
        out);
  }

  OperatorPtr child_;
  std::shared_ptr<const AggregateBinding> agg_;
  int64_t memory_limit_;
  std::string memory_limit_key_;
  MemoryCharge charge_;  // what the groups hold, in the process's budget
  SpillOptions spill_;
  int depth_;
  bool spilling_ = false;
  bool spilled_by_budget_ = false;  // spilling began for the process's budget
  static constexpr int64_t kUnset = INT64_MAX;
  int64_t held_at_spill_ = 0;  // what the groups held when spilling began
  SpilledPartitions spilled_;  // the rows of groups not held
};

}  // namespace

OperatorPtr MakeAggregate(OperatorPtr child, AggregateBinding binding, int64_t memory_limit,
                          std::string memory_limit_key, SpillOptions spill) {
  return std::make_unique<AggregateOperator>(
      std::move(child), std::make_shared<const AggregateBinding>(std::move(binding)), memory_limit,
      std::move(memory_limit_key), std::move(spill), 0);
}

}  // namespace tributary::sql
