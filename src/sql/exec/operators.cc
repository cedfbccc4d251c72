#include "sql/exec/operators.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "common/datetime.h"
#include "sql/binder/cast.h"
#include "sql/exec/aggregate_state.h"
#include "sql/exec/column_keys.h"
#include "sql/exec/interrupt.h"
#include "sql/exec/vector_eval.h"
#include "table/system_tables.h"
#include "tributary/stream_scan.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"

namespace tributary::sql {

ColumnBatch RowsToBatch(const std::vector<Field>& fields, std::vector<Row>::iterator begin,
                        std::vector<Row>::iterator end) {
  ColumnBatch b;
  b.num_rows = static_cast<size_t>(end - begin);
  for (size_t c = 0; c < fields.size(); c++) {
    ColumnVector col = ValueColumn(fields[c].type);
    col.Reserve(b.num_rows);
    for (auto it = begin; it != end; ++it) col.Append(std::move((*it)[c]));
    b.columns.push_back(std::move(col));
  }
  return b;
}

int64_t ApproxBytes(const Value& v) {
  int64_t n = static_cast<int64_t>(sizeof(Value));
  if (v.is_string()) n += static_cast<int64_t>(v.string_value().capacity());
  if (v.is_nested()) n += 64 * 4;  // nested values: a flat guess per value
  return n;
}

namespace {

// Rows per batch of operators that build their own (rows held in memory, sort and aggregate
// output).
constexpr size_t kBatchRows = 2048;

// Rows of an input batch a GROUP BY groups at a time (its memory limit is checked after each).
constexpr size_t kGroupSliceRows = 262144;

// The rows [begin, end) of `batch`, copied.
ColumnBatch SliceBatch(const ColumnBatch& batch, size_t begin, size_t end) {
  std::vector<uint32_t> rows(end - begin);
  std::iota(rows.begin(), rows.end(), static_cast<uint32_t>(begin));
  return CopyRows(batch, rows);
}

// An operator that reads its whole input first (Consume) into one batch, then hands it out in
// batches of kBatchRows.
class HoldingOperator : public Operator {
 public:
  Result<bool> Next(ColumnBatch* out) final {
    if (!consumed_) {
      TRIB_RETURN_NOT_OK(Consume());
      consumed_ = true;
    }
    if (next_ >= held_.num_rows) return false;
    if (next_ == 0 && held_.num_rows <= kBatchRows) {
      *out = std::move(held_);
      next_ = out->num_rows;
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
  ColumnBatch held_;

 private:
  bool consumed_ = false;
  size_t next_ = 0;
};

// ---- scan

class ScanOperator : public Operator {
 public:
  ScanOperator(std::unique_ptr<Table> table, std::unique_ptr<TableScan> scan,
               std::string description)
      : table_(std::move(table)), scan_(std::move(scan)), description_(std::move(description)) {
    fields_ = scan_->output_fields();
  }
  std::string Describe() const override { return description_; }
  Result<bool> Next(ColumnBatch* out) override {
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, scan_->NextColumns(out));
      if (!more) return false;
      if (out->num_rows > 0) return true;
    }
  }

 private:
  std::unique_ptr<Table> table_;  // outlives the scan
  std::unique_ptr<TableScan> scan_;
  std::string description_;
};

// ---- a table's changes, as they are committed

// The next changes of `stream`; false once `idle_timeout` passed without any (never without a
// time-out) or Ctrl-C was pressed (interrupt.h). Waits in short slices to notice Ctrl-C.
// `Batch`: RowBatch (StreamScan::Next) or ChangeColumns (StreamScan::NextColumns).
Result<bool> NextOf(StreamScan& stream, RowBatch* rows, std::chrono::milliseconds timeout) {
  return stream.Next(rows, timeout);
}
Result<bool> NextOf(StreamScan& stream, ChangeColumns* changes, std::chrono::milliseconds timeout) {
  return stream.NextColumns(changes, timeout);
}
template <typename Batch>
Result<bool> NextChanges(StreamScan& stream, std::optional<std::chrono::milliseconds> idle_timeout,
                         Batch* rows) {
  constexpr std::chrono::milliseconds kSlice{200};
  const auto deadline = idle_timeout ? std::chrono::steady_clock::now() + *idle_timeout
                                     : std::chrono::steady_clock::time_point::max();
  while (true) {
    if (Interrupted()) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    if (Polling()) {
      TRIB_ASSIGN_OR_RETURN(bool more, NextOf(stream, rows, std::chrono::milliseconds(0)));
      if (!more) SetPollFoundNothing();
      return more;
    }
    // A slice, or less when the idle hook has work sooner (a job's commit falls due).
    TRIB_ASSIGN_OR_RETURN(bool more, NextOf(stream, rows, StreamIdleSlice(std::min(left, kSlice))));
    if (more) return true;
    TRIB_RETURN_NOT_OK(RunStreamIdleHook());
  }
}

class StreamSourceOperator : public Operator {
 public:
  StreamSourceOperator(std::unique_ptr<Table> table, std::unique_ptr<StreamScan> stream,
                       std::optional<std::chrono::milliseconds> idle_timeout,
                       std::string description)
      : table_(std::move(table)),
        stream_(std::move(stream)),
        idle_timeout_(idle_timeout),
        description_(std::move(description)) {
    fields_.push_back(Field{0, "op", DataType::String().NotNull(), ""});
    for (const Field& f : stream_->output_fields()) fields_.push_back(f);
  }
  std::string Describe() const override { return description_; }
  Result<bool> Next(ColumnBatch* out) override {
    ChangeColumns changes;
    TRIB_ASSIGN_OR_RETURN(bool more, NextChanges(*stream_, idle_timeout_, &changes));
    if (!more) return false;
    // The op column, then the stream's columns.
    out->Clear();
    out->num_rows = changes.size();
    out->columns.reserve(fields_.size());
    ColumnVector op;
    op.type = fields_[0].type;
    op.rep = ColumnVector::Rep::kString;
    op.strings.reserve(changes.size(), changes.size() * 2);
    for (RowKind k : changes.kinds) op.strings.push_back(RowKindShortString(k));
    out->columns.push_back(std::move(op));
    for (ColumnVector& c : changes.columns.columns) out->columns.push_back(std::move(c));
    return true;
  }
  bool PassesPositions() const override { return true; }
  Status Checkpoint(std::optional<size_t> delivered_of_last) override {
    // One row per change, in order.
    return delivered_of_last ? stream_->CheckpointPartial(*delivered_of_last)
                             : stream_->Checkpoint();
  }

 private:
  std::unique_ptr<Table> table_;  // outlives the stream
  std::unique_ptr<StreamScan> stream_;
  std::optional<std::chrono::milliseconds> idle_timeout_;
  std::string description_;
};

// ---- a change table ($audit_log, $changelog, $binlog) followed as a stream

class ChangeTableSourceOperator : public Operator {
 public:
  ChangeTableSourceOperator(std::unique_ptr<Table> table, std::unique_ptr<StreamScan> stream,
                            std::string change_table,
                            std::optional<std::chrono::milliseconds> idle_timeout,
                            std::string description)
      : table_(std::move(table)),
        stream_(std::move(stream)),
        change_table_(std::move(change_table)),
        idle_timeout_(idle_timeout),
        description_(std::move(description)) {
    fields_.push_back(Field{0, "op", DataType::String().NotNull(), ""});
    for (Field f : table::ChangeTableFields(change_table_, *table_->schema())) {
      f.id = static_cast<int32_t>(fields_.size());
      fields_.push_back(std::move(f));
    }
  }
  std::string Describe() const override { return description_; }
  Result<bool> Next(ColumnBatch* out) override {
    std::vector<Row> rows;
    while (rows.empty()) {
      RowBatch changes;
      TRIB_ASSIGN_OR_RETURN(bool more, NextChanges(*stream_, idle_timeout_, &changes));
      if (!more) return false;
      TRIB_RETURN_NOT_OK(
          table::ToChangeTableRows(change_table_, *table_->schema(), &changes, &rows));
    }
    // Each change is one new row of the change table.
    for (Row& r : rows) r.insert(r.begin(), Value::String("+I"));
    *out = RowsToBatch(fields_, rows.begin(), rows.end());
    return true;
  }
  // A change table's rows are not one per change ($binlog pairs -U with +U): a batch delivered
  // in part moves nothing (its changes are read again).
  Status Checkpoint(std::optional<size_t> delivered_of_last) override {
    return delivered_of_last ? Status::OK() : stream_->Checkpoint();
  }
  bool PassesPositions() const override { return true; }

 private:
  std::unique_ptr<Table> table_;  // outlives the stream
  std::unique_ptr<StreamScan> stream_;
  std::string change_table_;
  std::optional<std::chrono::milliseconds> idle_timeout_;
  std::string description_;
};

// ---- rows held in memory

class RowsOperator : public Operator {
 public:
  RowsOperator(std::vector<Field> fields, std::vector<Row> rows, std::string description)
      : rows_(std::move(rows)), description_(std::move(description)) {
    fields_ = std::move(fields);
  }
  std::string Describe() const override {
    return "Rows: " + description_ + " (" + std::to_string(rows_.size()) + " rows)";
  }
  Result<bool> Next(ColumnBatch* out) override {
    if (next_ >= rows_.size()) return false;
    const size_t end = std::min(rows_.size(), next_ + kBatchRows);
    *out = RowsToBatch(fields_, rows_.begin() + next_, rows_.begin() + end);
    next_ = end;
    return true;
  }

 private:
  std::vector<Row> rows_;
  size_t next_ = 0;
  std::string description_;
};

// ---- filter

class FilterOperator : public Operator {
 public:
  FilterOperator(OperatorPtr child, std::vector<BoundExprPtr> predicates, std::string note)
      : child_(std::move(child)), predicates_(std::move(predicates)), note_(std::move(note)) {
    fields_ = child_->fields();
  }
  std::string Describe() const override {
    return "Filter: " + std::to_string(predicates_.size()) + " condition(s)" + note_ +
           DescribeCorrelated(predicates_);
  }
  std::vector<const Operator*> children() const override { return {child_.get()}; }
  Result<bool> Next(ColumnBatch* out) override {
    ColumnBatch in;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, child_->Next(&in));
      if (!more) return false;
      TRIB_ASSIGN_OR_RETURN(std::vector<uint32_t> rows, SelectRows(predicates_, in));
      if (rows.empty()) continue;
      last_selected_ = rows;
      *out = TakeRows(std::move(in), rows);
      return true;
    }
  }
  bool PassesPositions() const override { return true; }
  // The input rows before the first undelivered output's were delivered or filtered out.
  Status Checkpoint(std::optional<size_t> delivered_of_last) override {
    if (!delivered_of_last || *delivered_of_last >= last_selected_.size()) {
      return child_->Checkpoint(std::nullopt);
    }
    return child_->Checkpoint(last_selected_[*delivered_of_last]);
  }

 private:
  OperatorPtr child_;
  std::vector<BoundExprPtr> predicates_;
  std::string note_;
  std::vector<uint32_t> last_selected_;  // the input rows of the last batch returned
};

// ---- project

class ProjectOperator : public Operator {
 public:
  ProjectOperator(OperatorPtr child, std::vector<BoundExprPtr> exprs, std::vector<Field> fields)
      : child_(std::move(child)), exprs_(std::move(exprs)) {
    fields_ = std::move(fields);
    // A bare column no other expression reads is moved out of the input, not copied (SELECT *).
    std::vector<int> reads(child_->fields().size(), 0);
    for (const auto& e : exprs_) {
      std::vector<bool> used(reads.size(), false);
      CollectColumns(*e, &used);
      for (size_t c = 0; c < used.size(); c++) reads[c] += used[c];
    }
    for (const auto& e : exprs_) {
      moves_.push_back(e->kind == BoundKind::kColumn && reads[e->column] == 1);
    }
  }
  std::string Describe() const override {
    return "Project: " + std::to_string(exprs_.size()) + " column(s)" + DescribeCorrelated(exprs_);
  }
  std::vector<const Operator*> children() const override { return {child_.get()}; }
  Status Checkpoint(std::optional<size_t> delivered_of_last) override {
    return child_->Checkpoint(delivered_of_last);  // one row per input row
  }
  bool PassesPositions() const override { return true; }
  Result<bool> Next(ColumnBatch* out) override {
    ColumnBatch in;
    TRIB_ASSIGN_OR_RETURN(bool more, child_->Next(&in));
    if (!more) return false;
    ColumnBatch b;
    b.num_rows = in.num_rows;
    // Computed columns first: they read the input before any column is moved out of it.
    b.columns.resize(exprs_.size());
    for (size_t i = 0; i < exprs_.size(); i++) {
      if (moves_[i]) continue;
      TRIB_ASSIGN_OR_RETURN(b.columns[i], EvaluateBatch(*exprs_[i], in));
    }
    for (size_t i = 0; i < exprs_.size(); i++) {
      if (!moves_[i]) continue;
      b.columns[i] = std::move(in.columns[exprs_[i]->column]);
      b.columns[i].type = exprs_[i]->type;
    }
    *out = std::move(b);
    return true;
  }

 private:
  OperatorPtr child_;
  std::vector<BoundExprPtr> exprs_;
  std::vector<bool> moves_;  // per expression: a column taken from the input as it is
};

// ---- aggregate (AggState, AccumulateValue, Finish: aggregate_state.h)

class AggregateOperator : public HoldingOperator {
 public:
  AggregateOperator(OperatorPtr child, AggregateBinding binding, int64_t memory_limit,
                    std::string memory_limit_key)
      : child_(std::move(child)),
        agg_(std::move(binding)),
        memory_limit_(memory_limit),
        memory_limit_key_(std::move(memory_limit_key)) {
    for (size_t i = 0; i < agg_.keys.size(); i++) {
      fields_.push_back(
          Field{static_cast<int32_t>(i), "$key" + std::to_string(i), agg_.keys[i]->type, ""});
    }
    for (size_t i = 0; i < agg_.calls.size(); i++) {
      fields_.push_back(Field{static_cast<int32_t>(fields_.size()), "$agg" + std::to_string(i),
                              agg_.calls[i].type, ""});
    }
  }
  std::string Describe() const override {
    return "Aggregate: " + std::to_string(agg_.keys.size()) + " group key(s), " +
           std::to_string(agg_.calls.size()) + " aggregate(s)";
  }
  std::vector<const Operator*> children() const override { return {child_.get()}; }

 private:
  // The error once what the groups hold, `bytes`, passes the limit.
  Status CheckMemory(int64_t bytes, size_t groups) const {
    if (bytes <= memory_limit_) return Status::OK();
    const std::string what =
        agg_.keys.empty() ? "the state of an aggregate (DISTINCT values, LISTAGG text) holds"
                          : "the groups of a GROUP BY (" + std::to_string(groups) + " so far) hold";
    return Status::Invalid(what + " more than '" + memory_limit_key_ + "' allows (" +
                           std::to_string(memory_limit_) + " bytes); raise it with SET '" +
                           memory_limit_key_ + "' = '...', or filter the rows further");
  }

  // Groups each batch's rows by their key columns (GroupIndex) and folds every argument column
  // into its rows' groups; the keys and results are columns, no row is made. What the groups
  // hold is counted as they grow: the key columns, the index, the states (as allocated) and what
  // states allocate (DISTINCT sets, LISTAGG text, strings), within the memory limit.
  Status Consume() override {
    const size_t calls = agg_.calls.size();
    GroupIndex index;
    std::vector<ColumnVector> key_columns;
    for (const auto& k : agg_.keys) key_columns.push_back(TypedColumn(k->type));
    std::vector<AggState> states;
    size_t groups = 0;
    if (agg_.keys.empty()) {
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
        if (agg_.calls[i].star) continue;
        TRIB_ASSIGN_OR_RETURN(ColumnVector a, EvaluateBatch(*agg_.calls[i].arg, in));
        args[i] = Canonical(std::move(a));
      }
      if (agg_.keys.empty()) {
        for (size_t i = 0; i < calls; i++) {
          if (agg_.calls[i].star) {
            states[i].count += static_cast<int64_t>(in.num_rows);
          } else {
            TRIB_RETURN_NOT_OK(AccumulateColumn(agg_.calls[i], args[i], &states[i], &grown));
          }
        }
        return CheckMemory(grown, groups);
      }
      std::vector<ColumnVector> keys;
      std::vector<const ColumnVector*> key_ptrs;
      for (const auto& k : agg_.keys) {
        TRIB_ASSIGN_OR_RETURN(ColumnVector c, EvaluateBatch(*k, in));
        keys.push_back(Canonical(std::move(c)));
      }
      for (const ColumnVector& k : keys) key_ptrs.push_back(&k);
      index.Assign(key_ptrs, in.num_rows, &group_of, &first_rows);
      for (size_t k = 0; k < keys.size(); k++) {
        key_columns[k].AppendRows(keys[k], first_rows);
        if (keys[k].rep != ColumnVector::Rep::kValue) continue;
        for (uint32_t r : first_rows) key_values += ValueHeapBytes(keys[k].values[r]);
      }
      groups = index.size();
      // The states grow by doubling; while they move, the old and the new vector are both held,
      // so that is checked before it happens.
      const size_t need = groups * calls;
      if (need > states.capacity()) {
        size_t capacity = std::max(need, 2 * states.capacity());
        // Room for the states the batch is expected to need at once, when that fits, so they do
        // not move at every doubling.
        if (expected_states > capacity &&
            held(states.capacity() + expected_states) <= memory_limit_) {
          capacity = expected_states;
        }
        TRIB_RETURN_NOT_OK(CheckMemory(held(states.capacity() + capacity), groups));
        states.reserve(capacity);
      }
      states.resize(need);
      for (size_t i = 0; i < calls; i++) {
        if (agg_.calls[i].star) {
          for (uint32_t g : group_of) ++states[g * calls + i].count;
        } else {
          TRIB_RETURN_NOT_OK(
              AccumulateGroups(agg_.calls[i], args[i], group_of, calls, i, &states, &grown));
        }
      }
      return CheckMemory(held(states.capacity()), groups);
    };
    ColumnBatch in;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, child_->Next(&in));
      if (!more) break;
      if (agg_.keys.empty() || in.num_rows <= kGroupSliceRows) {
        TRIB_RETURN_NOT_OK(add(in));
        continue;
      }
      // A scan for an aggregate hands out whole data files: their rows are grouped a slice at a
      // time, so the groups outgrow the limit by a slice at most before it is checked.
      for (size_t begin = 0; begin < in.num_rows; begin += kGroupSliceRows) {
        const size_t before = index.size();
        TRIB_RETURN_NOT_OK(
            add(SliceBatch(in, begin, std::min(in.num_rows, begin + kGroupSliceRows))));
        if (begin == 0) {
          // The rest of the batch as new in groups as its first slice.
          const size_t added = index.size() - before;
          const size_t rest = in.num_rows - kGroupSliceRows;
          expected_states = (index.size() + added * rest / kGroupSliceRows) * calls;
        }
      }
      expected_states = 0;
    }
    // The result columns are made while the states are still held.
    int64_t results_bytes = 0;
    for (const AggregateCall& call : agg_.calls) {
      results_bytes += static_cast<int64_t>(
          groups * (ColumnVector::RepOf(call.type) == ColumnVector::Rep::kValue ? sizeof(Value)
                                                                                : sizeof(int64_t)));
    }
    TRIB_RETURN_NOT_OK(CheckMemory(held(states.capacity()) + results_bytes, groups));
    held_.num_rows = groups;
    held_.columns = std::move(key_columns);
    for (size_t i = 0; i < calls; i++) {
      ColumnVector results = TypedColumn(agg_.calls[i].type);
      results.Reserve(groups);
      for (size_t g = 0; g < groups; g++) {
        TRIB_ASSIGN_OR_RETURN(Value v, Finish(agg_.calls[i], states[g * calls + i]));
        results.Append(v);
      }
      held_.columns.push_back(std::move(results));
    }
    return Status::OK();
  }

  OperatorPtr child_;
  AggregateBinding agg_;
  int64_t memory_limit_;
  std::string memory_limit_key_;
};

// ---- distinct

class DistinctOperator : public Operator {
 public:
  DistinctOperator(OperatorPtr child, int64_t memory_limit, std::string memory_limit_key)
      : child_(std::move(child)),
        memory_limit_(memory_limit),
        memory_limit_key_(std::move(memory_limit_key)) {
    fields_ = child_->fields();
  }
  std::string Describe() const override { return "Distinct"; }
  std::vector<const Operator*> children() const override { return {child_.get()}; }
  Result<bool> Next(ColumnBatch* out) override {
    ColumnBatch in;
    std::vector<uint32_t> groups, first_rows;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, child_->Next(&in));
      if (!more) return false;
      std::vector<const ColumnVector*> columns;
      for (ColumnVector& c : in.columns) {
        c = Canonical(std::move(c));
        columns.push_back(&c);
      }
      seen_.Assign(columns, in.num_rows, &groups, &first_rows);
      if (seen_.ApproxBytes() > memory_limit_) {
        return Status::Invalid("the distinct rows of a DISTINCT or UNION (" +
                               std::to_string(seen_.size()) + " so far) hold more than '" +
                               memory_limit_key_ + "' allows (" + std::to_string(memory_limit_) +
                               " bytes); raise it with SET '" + memory_limit_key_ + "' = '...'");
      }
      if (first_rows.empty()) continue;
      *out = TakeRows(std::move(in), first_rows);
      return true;
    }
  }

 private:
  OperatorPtr child_;
  int64_t memory_limit_;
  std::string memory_limit_key_;
  GroupIndex seen_;  // every distinct row so far, by its key
};

// ---- sort

class SortOperator : public HoldingOperator {
 public:
  SortOperator(OperatorPtr child, SortOptions options)
      : child_(std::move(child)), options_(std::move(options)) {
    const auto& in = child_->fields();
    fields_.assign(in.begin(), in.begin() + std::min(options_.output_columns, in.size()));
    for (const Field& f : in) held_.columns.push_back(TypedColumn(f.type));
  }
  std::string Describe() const override {
    return "Sort: " + std::to_string(options_.keys.size()) + " key(s)" +
           (options_.limit ? " (the first " + std::to_string(*options_.limit) + " rows)" : "");
  }
  std::vector<const Operator*> children() const override { return {child_.get()}; }

 private:
  // Whether held row x goes before held row y (ties: the earlier row first, so the sort is
  // stable: equal rows keep their arrival order).
  bool Less(uint32_t x, uint32_t y) const {
    for (const SortKeySpec& s : options_.keys) {
      const ColumnVector& col = held_.columns[s.column];
      const bool xn = col.IsNull(x), yn = col.IsNull(y);
      if (xn || yn) {
        if (xn && yn) continue;
        return xn == s.nulls_first;
      }
      const int c = CompareColumnRows(col, x, col, y);
      if (c != 0) return s.descending ? c > 0 : c < 0;
    }
    return x < y;
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
      if (HeldBytes() > options_.memory_limit) {
        return Status::Invalid("ORDER BY needs more than " +
                               std::to_string(options_.memory_limit >> 20) +
                               " MiB to sort this result; add a LIMIT, or raise it with SET '" +
                               options_.memory_limit_key + "' = '...'");
      }
    }
    SortHeld();
    held_.columns.resize(fields_.size());  // drop the sort-only columns
    return Status::OK();
  }

  OperatorPtr child_;
  SortOptions options_;
  int64_t values_bytes_ = 0;  // ValuesBeyondSelf of the held kValue columns
};

// ---- limit

class LimitOperator : public Operator {
 public:
  LimitOperator(OperatorPtr child, int64_t offset, std::optional<int64_t> limit)
      : child_(std::move(child)), to_skip_(offset), left_(limit) {
    fields_ = child_->fields();
  }
  // The last batch returned was the input's rows [begin, end): the rows it skipped (OFFSET)
  // count as delivered, those it cut (LIMIT) and those not delivered of it do not.
  Status Checkpoint(std::optional<size_t> delivered_of_last) override {
    if (!last_input_rows_) return child_->Checkpoint(std::nullopt);
    const size_t returned = last_end_ - last_begin_;
    const size_t upto =
        last_begin_ + (delivered_of_last ? std::min(*delivered_of_last, returned) : returned);
    if (upto >= *last_input_rows_) return child_->Checkpoint(std::nullopt);
    return child_->Checkpoint(upto);
  }
  std::string Describe() const override {
    return "Limit: " + (left_ ? std::to_string(*left_) : std::string("none")) +
           (to_skip_ > 0 ? ", offset " + std::to_string(to_skip_) : "");
  }
  std::vector<const Operator*> children() const override { return {child_.get()}; }
  Result<bool> Next(ColumnBatch* out) override {
    ColumnBatch in;
    while (true) {
      if (left_ && *left_ <= 0) return false;  // no more pulls from the child
      TRIB_ASSIGN_OR_RETURN(bool more, child_->Next(&in));
      if (!more) return false;
      size_t begin = 0, end = in.num_rows;
      if (to_skip_ > 0) {
        const size_t skip = static_cast<size_t>(std::min<int64_t>(to_skip_, end));
        to_skip_ -= static_cast<int64_t>(skip);
        begin = skip;
      }
      if (left_) end = std::min<size_t>(end, begin + static_cast<size_t>(*left_));
      if (begin >= end) continue;
      last_input_rows_ = in.num_rows;
      last_begin_ = begin;
      last_end_ = end;
      if (left_) *left_ -= static_cast<int64_t>(end - begin);
      if (begin == 0 && end == in.num_rows) {
        *out = std::move(in);
      } else {
        std::vector<uint32_t> rows(end - begin);
        std::iota(rows.begin(), rows.end(), static_cast<uint32_t>(begin));
        *out = TakeRows(std::move(in), rows);
      }
      return true;
    }
  }

 private:
  OperatorPtr child_;
  int64_t to_skip_;
  std::optional<int64_t> left_;
  std::optional<size_t> last_input_rows_;  // of the input batch behind the last batch returned
  size_t last_begin_ = 0, last_end_ = 0;
};

}  // namespace

OperatorPtr MakeScan(std::unique_ptr<Table> table, std::unique_ptr<TableScan> scan,
                     std::string description) {
  return std::make_unique<ScanOperator>(std::move(table), std::move(scan), std::move(description));
}
OperatorPtr MakeStreamSource(std::unique_ptr<Table> table, std::unique_ptr<StreamScan> stream,
                             std::optional<std::chrono::milliseconds> idle_timeout,
                             std::string description) {
  return std::make_unique<StreamSourceOperator>(std::move(table), std::move(stream), idle_timeout,
                                                std::move(description));
}
OperatorPtr MakeChangeTableSource(std::unique_ptr<Table> table, std::unique_ptr<StreamScan> stream,
                                  std::string change_table,
                                  std::optional<std::chrono::milliseconds> idle_timeout,
                                  std::string description) {
  return std::make_unique<ChangeTableSourceOperator>(std::move(table), std::move(stream),
                                                     std::move(change_table), idle_timeout,
                                                     std::move(description));
}
OperatorPtr MakeRows(std::vector<Field> fields, std::vector<Row> rows, std::string description) {
  return std::make_unique<RowsOperator>(std::move(fields), std::move(rows), std::move(description));
}
OperatorPtr MakeFilter(OperatorPtr child, std::vector<BoundExprPtr> predicates, std::string note) {
  if (predicates.empty()) return child;
  return std::make_unique<FilterOperator>(std::move(child), std::move(predicates), std::move(note));
}

std::string ExplainTree(const Operator& op) {
  std::string out;
  struct Walk {
    static void Line(const Operator& o, int depth, std::string* out) {
      if (!out->empty()) *out += "\n";
      *out += std::string(2 * depth, ' ') + o.Describe();
      for (const Operator* c : o.children()) Line(*c, depth + 1, out);
    }
  };
  Walk::Line(op, 0, &out);
  return out;
}
OperatorPtr MakeProject(OperatorPtr child, std::vector<BoundExprPtr> exprs,
                        std::vector<Field> fields) {
  return std::make_unique<ProjectOperator>(std::move(child), std::move(exprs), std::move(fields));
}
OperatorPtr MakeAggregate(OperatorPtr child, AggregateBinding binding, int64_t memory_limit,
                          std::string memory_limit_key) {
  return std::make_unique<AggregateOperator>(std::move(child), std::move(binding), memory_limit,
                                             std::move(memory_limit_key));
}
OperatorPtr MakeDistinct(OperatorPtr child, int64_t memory_limit, std::string memory_limit_key) {
  return std::make_unique<DistinctOperator>(std::move(child), memory_limit,
                                            std::move(memory_limit_key));
}
OperatorPtr MakeSort(OperatorPtr child, SortOptions options) {
  return std::make_unique<SortOperator>(std::move(child), std::move(options));
}
OperatorPtr MakeLimit(OperatorPtr child, int64_t offset, std::optional<int64_t> limit) {
  if (offset <= 0 && !limit) return child;
  return std::make_unique<LimitOperator>(std::move(child), offset, limit);
}

std::vector<Row> BatchRows(const ColumnBatch& batch, size_t begin, size_t end) {
  end = std::min(end, batch.num_rows);
  if (begin >= end) return {};
  std::vector<Row> rows(end - begin, Row(batch.columns.size()));
  for (size_t c = 0; c < batch.columns.size(); c++) {
    const ColumnVector& col = batch.columns[c];
    for (size_t r = begin; r < end; r++) rows[r - begin][c] = col.Get(r);
  }
  return rows;
}

Result<std::vector<Row>> CollectRows(Operator& op) {
  std::vector<Row> out;
  ColumnBatch b;
  while (true) {
    TRIB_ASSIGN_OR_RETURN(bool more, op.Next(&b));
    if (!more) break;
    std::vector<Row> rows = BatchRows(b);
    out.insert(out.end(), std::make_move_iterator(rows.begin()),
               std::make_move_iterator(rows.end()));
  }
  return out;
}

}  // namespace tributary::sql
