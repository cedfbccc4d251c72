#include "sql/operators.h"

#include "sql/aggregate_state.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "common/datetime.h"
#include "sql/cast.h"
#include "sql/column_keys.h"
#include "sql/interrupt.h"
#include "sql/vector_eval.h"
#include "table/system_tables.h"
#include "tributary/table.h"
#include "tributary/stream_scan.h"
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


// Adds the argument value `v` of one row to `st`.
Status AccumulateValue(const AggregateCall& call, Value v, AggState* st) {
  if (v.is_null()) return Status::OK();
  if (call.distinct) {
    std::string key;
    AppendKey(v, &key);
    if (!st->seen.insert(std::move(key)).second) return Status::OK();
  }
  ++st->count;
  const std::string& f = call.function;
  if (f == "LISTAGG") {
    if (st->count > 1) st->list += call.separator;
    st->list += v.string_value();
    return Status::OK();
  }
  if (IsVarianceFunction(f)) {
    const double x = v.is_double()  ? v.double_value()
                     : v.is_int()   ? static_cast<double>(v.int_value())
                                    : static_cast<double>(v.decimal_value().unscaled) /
                                          std::pow(10.0, call.arg->type.scale);
    const double delta = x - st->mean;
    st->mean += delta / static_cast<double>(st->count);
    st->m2 += delta * (x - st->mean);
    return Status::OK();
  }
  if (f == "SUM" || f == "AVG") {
    if (v.is_int()) {
      st->isum += v.int_value();
    } else if (v.is_double()) {
      st->dsum += v.double_value();
    } else if (v.is_decimal()) {
      st->isum += v.decimal_value().unscaled;
      if (st->isum > Pow10(38) || st->isum < -Pow10(38)) {
        return ErrorAt(call.arg->pos, f + " overflows DECIMAL(38)");
      }
    }
  } else if (f == "FIRST_VALUE") {
    if (st->count == 1) st->best = std::move(v);  // the first value that is not NULL
  } else if (f == "LAST_VALUE") {
    st->best = std::move(v);
  } else if (f == "MIN" || f == "MAX") {
    if (st->best.is_null()) {
      st->best = std::move(v);
    } else {
      int c = CompareSame(v, st->best);
      if ((f == "MIN" && c < 0) || (f == "MAX" && c > 0)) st->best = std::move(v);
    }
  }
  return Status::OK();
}

// Adds every row of `col` (the argument column of `call`) to `st`: integer and floating-point
// columns in tight loops, everything else value by value.
Status AccumulateColumn(const AggregateCall& call, const ColumnVector& col, AggState* st) {
  const std::string& f = call.function;
  const size_t n = col.size();
  if (col.rep == ColumnVector::Rep::kInt && col.type.IsInteger() && !call.distinct &&
      !IsVarianceFunction(f) && f != "LISTAGG" && f != "FIRST_VALUE" && f != "LAST_VALUE") {
    int64_t count = 0, lo = INT64_MAX, hi = INT64_MIN;
    __int128 sum = 0;
    for (size_t r = 0; r < n; r++) {
      if (col.IsNull(r)) continue;
      const int64_t v = col.ints[r];
      count++;
      sum += v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    if (count == 0) return Status::OK();
    st->count += count;
    if (f == "SUM" || f == "AVG") st->isum += sum;
    if (f == "MIN" || f == "MAX") {
      int64_t v = f == "MIN" ? lo : hi;
      if (st->best.is_null() ||
          (f == "MIN" ? v < st->best.int_value() : v > st->best.int_value())) {
        st->best = Value::Int(v);
      }
    }
    return Status::OK();
  }
  if (col.rep == ColumnVector::Rep::kDouble && !call.distinct &&
      (f == "SUM" || f == "AVG" || f == "COUNT")) {
    int64_t count = 0;
    double sum = 0;
    for (size_t r = 0; r < n; r++) {
      if (col.IsNull(r)) continue;
      count++;
      sum += col.doubles[r];
    }
    st->count += count;
    st->dsum += sum;
    return Status::OK();
  }
  for (size_t r = 0; r < n; r++) TRIB_RETURN_NOT_OK(AccumulateValue(call, col.Get(r), st));
  return Status::OK();
}

Status AccumulateGroups(const AggregateCall& call, const ColumnVector& col,
                        const std::vector<uint32_t>& groups, size_t stride, size_t index,
                        std::vector<AggState>* states) {
  const std::string& f = call.function;
  const size_t n = col.size();
  auto state = [&](size_t r) -> AggState& { return (*states)[groups[r] * stride + index]; };
  const bool plain = !call.distinct && !IsVarianceFunction(f) && f != "LISTAGG" &&
                     f != "FIRST_VALUE" && f != "LAST_VALUE";
  if (plain && col.rep == ColumnVector::Rep::kInt && col.type.IsInteger()) {
    const bool sum = f == "SUM" || f == "AVG", min = f == "MIN", max = f == "MAX";
    for (size_t r = 0; r < n; r++) {
      if (col.IsNull(r)) continue;
      const int64_t v = col.ints[r];
      AggState& st = state(r);
      ++st.count;
      if (sum) {
        st.isum += v;
      } else if ((min || max) && (st.best.is_null() || (min ? v < st.best.int_value()
                                                                : v > st.best.int_value()))) {
        st.best = Value::Int(v);
      }
    }
    return Status::OK();
  }
  if (plain && col.rep == ColumnVector::Rep::kDouble && (f == "SUM" || f == "AVG" || f == "COUNT")) {
    for (size_t r = 0; r < n; r++) {
      if (col.IsNull(r)) continue;
      AggState& st = state(r);
      ++st.count;
      st.dsum += col.doubles[r];
    }
    return Status::OK();
  }
  if (plain && col.rep == ColumnVector::Rep::kString && (f == "MIN" || f == "MAX" || f == "COUNT")) {
    const bool min = f == "MIN", max = f == "MAX";
    for (size_t r = 0; r < n; r++) {
      if (col.IsNull(r)) continue;
      AggState& st = state(r);
      ++st.count;
      if (!min && !max) continue;
      const std::string_view v = col.strings[r];
      if (st.best.is_null() || (min ? v < std::string_view(st.best.string_value())
                                    : v > std::string_view(st.best.string_value()))) {
        st.best = Value::String(std::string(v));
      }
    }
    return Status::OK();
  }
  for (size_t r = 0; r < n; r++) TRIB_RETURN_NOT_OK(AccumulateValue(call, col.Get(r), &state(r)));
  return Status::OK();
}

Result<Value> Finish(const AggregateCall& call, const AggState& st) {
  const std::string& f = call.function;
  if (f == "COUNT") return Value::Int(st.count);
  if (st.count == 0) return Value::Null();
  if (f == "LISTAGG") return Value::String(st.list);
  if (IsVarianceFunction(f)) {
    const bool sample = f == "STDDEV_SAMP" || f == "STDDEV" || f == "VAR_SAMP" || f == "VARIANCE";
    if (sample && st.count < 2) return Value::Null();
    const double var = st.m2 / static_cast<double>(sample ? st.count - 1 : st.count);
    return Value::Double(f.rfind("STDDEV", 0) == 0 ? std::sqrt(var) : var);
  }
  if (f == "MIN" || f == "MAX" || f == "FIRST_VALUE" || f == "LAST_VALUE") return st.best;
  const DataType in = call.arg->type;
  if (f == "SUM") {
    if (in.IsFloating()) return Value::Double(st.dsum);
    if (in.id == TypeId::kDecimal) return Value::Dec(Decimal{st.isum});
    if (st.isum > std::numeric_limits<int64_t>::max() ||
        st.isum < std::numeric_limits<int64_t>::min()) {
      return ErrorAt(call.arg->pos, "SUM overflows BIGINT");
    }
    return Value::Int(static_cast<int64_t>(st.isum));
  }
  // AVG
  if (in.IsFloating()) return Value::Double(st.dsum / st.count);
  if (in.id == TypeId::kDecimal) {
    int32_t shift = call.type.scale - in.scale;
    __int128 num = st.isum * Pow10(shift) * 10;
    __int128 q = num / st.count;
    __int128 rem = q % 10;
    q /= 10;
    if (rem >= 5) ++q;
    if (rem <= -5) --q;
    return Value::Dec(Decimal{q});
  }
  return Value::Double(static_cast<double>(st.isum) / static_cast<double>(st.count));
}

namespace {

// Rows per batch of operators that build their own (rows held in memory, sort and aggregate
// output).
constexpr size_t kBatchRows = 2048;

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
Result<bool> NextChanges(StreamScan& stream, std::optional<std::chrono::milliseconds> idle_timeout,
                         RowBatch* rows) {
  constexpr std::chrono::milliseconds kSlice{200};
  const auto deadline = idle_timeout ? std::chrono::steady_clock::now() + *idle_timeout
                                     : std::chrono::steady_clock::time_point::max();
  while (true) {
    if (Interrupted()) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    TRIB_ASSIGN_OR_RETURN(bool more, stream.Next(rows, std::min(left, kSlice)));
    if (more) return true;
  }
}

class StreamSourceOperator : public Operator {
 public:
  StreamSourceOperator(std::unique_ptr<Table> table, std::unique_ptr<StreamScan> stream,
                       std::optional<std::chrono::milliseconds> idle_timeout,
                       std::string description)
      : table_(std::move(table)), stream_(std::move(stream)), idle_timeout_(idle_timeout),
        description_(std::move(description)) {
    fields_.push_back(Field{0, "op", DataType::String().NotNull(), ""});
    for (const Field& f : stream_->output_fields()) fields_.push_back(f);
  }
  std::string Describe() const override { return description_; }
  Result<bool> Next(ColumnBatch* out) override {
    RowBatch rows;
    TRIB_ASSIGN_OR_RETURN(bool more, NextChanges(*stream_, idle_timeout_, &rows));
    if (!more) return false;
    std::vector<Row> with_op;
    with_op.reserve(rows.rows.size());
    for (size_t i = 0; i < rows.rows.size(); i++) {
      Row r;
      r.reserve(rows.rows[i].size() + 1);
      r.push_back(Value::String(std::string(RowKindShortString(rows.kinds[i]))));
      for (Value& v : rows.rows[i]) r.push_back(std::move(v));
      with_op.push_back(std::move(r));
    }
    *out = RowsToBatch(fields_, with_op.begin(), with_op.end());
    return true;
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
      : table_(std::move(table)), stream_(std::move(stream)),
        change_table_(std::move(change_table)), idle_timeout_(idle_timeout),
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
      TRIB_RETURN_NOT_OK(table::ToChangeTableRows(change_table_, *table_->schema(), &changes,
                                                  &rows));
    }
    // Each change is one new row of the change table.
    for (Row& r : rows) r.insert(r.begin(), Value::String("+I"));
    *out = RowsToBatch(fields_, rows.begin(), rows.end());
    return true;
  }

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
      *out = TakeRows(std::move(in), rows);
      return true;
    }
  }

 private:
  OperatorPtr child_;
  std::vector<BoundExprPtr> predicates_;
  std::string note_;
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
  AggregateOperator(OperatorPtr child, AggregateBinding binding)
      : child_(std::move(child)), agg_(std::move(binding)) {
    for (size_t i = 0; i < agg_.keys.size(); i++) {
      fields_.push_back(Field{static_cast<int32_t>(i), "$key" + std::to_string(i),
                              agg_.keys[i]->type, ""});
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
  // Groups each batch's rows by their key columns (GroupIndex) and folds every argument column
  // into its rows' groups; the keys and results are columns, no row is made.
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
    std::vector<uint32_t> group_of, first_rows;
    ColumnBatch in;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, child_->Next(&in));
      if (!more) break;
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
            TRIB_RETURN_NOT_OK(AccumulateColumn(agg_.calls[i], args[i], &states[i]));
          }
        }
        continue;
      }
      std::vector<ColumnVector> keys;
      std::vector<const ColumnVector*> key_ptrs;
      for (const auto& k : agg_.keys) {
        TRIB_ASSIGN_OR_RETURN(ColumnVector c, EvaluateBatch(*k, in));
        keys.push_back(Canonical(std::move(c)));
      }
      for (const ColumnVector& k : keys) key_ptrs.push_back(&k);
      index.Assign(key_ptrs, in.num_rows, &group_of, &first_rows);
      for (size_t k = 0; k < keys.size(); k++) key_columns[k].AppendRows(keys[k], first_rows);
      groups = index.size();
      states.resize(groups * calls);
      for (size_t i = 0; i < calls; i++) {
        if (agg_.calls[i].star) {
          for (uint32_t g : group_of) ++states[g * calls + i].count;
        } else {
          TRIB_RETURN_NOT_OK(
              AccumulateGroups(agg_.calls[i], args[i], group_of, calls, i, &states));
        }
      }
    }
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
};

// ---- distinct

class DistinctOperator : public Operator {
 public:
  explicit DistinctOperator(OperatorPtr child) : child_(std::move(child)) {
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
      if (first_rows.empty()) continue;
      *out = TakeRows(std::move(in), first_rows);
      return true;
    }
  }

 private:
  OperatorPtr child_;
  GroupIndex seen_;
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

  // Puts the held rows in order and, with a limit, keeps only the first `limit` of them.
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
    ColumnBatch sorted;
    sorted.num_rows = order.size();
    bytes_ = 0;
    for (const ColumnVector& c : held_.columns) {
      ColumnVector out = TypedColumn(c.type);
      out.Reserve(order.size());
      out.AppendRows(c, order);
      bytes_ += ApproxColumnBytes(out);
      sorted.columns.push_back(std::move(out));
    }
    held_ = std::move(sorted);
  }

  Status Consume() override {
    ColumnBatch in;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, child_->Next(&in));
      if (!more) break;
      for (size_t c = 0; c < in.columns.size(); c++) {
        ColumnVector col = Canonical(std::move(in.columns[c]));
        bytes_ += ApproxColumnBytes(col);
        held_.columns[c].AppendAll(std::move(col));
      }
      held_.num_rows += in.num_rows;
      // ORDER BY ... LIMIT n holds at most about 2n rows.
      if (options_.limit && static_cast<int64_t>(held_.num_rows) > 2 * *options_.limit + 1024) {
        SortHeld();
      }
      if (bytes_ > options_.memory_limit) {
        return Status::Invalid(
            "ORDER BY needs more than " + std::to_string(options_.memory_limit >> 20) +
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
  int64_t bytes_ = 0;
};

// ---- limit

class LimitOperator : public Operator {
 public:
  LimitOperator(OperatorPtr child, int64_t offset, std::optional<int64_t> limit)
      : child_(std::move(child)), to_skip_(offset), left_(limit) {
    fields_ = child_->fields();
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
};

}  // namespace

OperatorPtr MakeScan(std::unique_ptr<Table> table, std::unique_ptr<TableScan> scan,
                     std::string description) {
  return std::make_unique<ScanOperator>(std::move(table), std::move(scan),
                                        std::move(description));
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
  return std::make_unique<RowsOperator>(std::move(fields), std::move(rows),
                                        std::move(description));
}
OperatorPtr MakeFilter(OperatorPtr child, std::vector<BoundExprPtr> predicates, std::string note) {
  if (predicates.empty()) return child;
  return std::make_unique<FilterOperator>(std::move(child), std::move(predicates),
                                          std::move(note));
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
OperatorPtr MakeAggregate(OperatorPtr child, AggregateBinding binding) {
  return std::make_unique<AggregateOperator>(std::move(child), std::move(binding));
}
OperatorPtr MakeDistinct(OperatorPtr child) {
  return std::make_unique<DistinctOperator>(std::move(child));
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
