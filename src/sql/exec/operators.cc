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
#include "sql/exec/holding.h"
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

ColumnBatch SliceBatch(const ColumnBatch& batch, size_t begin, size_t end) {
  std::vector<uint32_t> rows(end - begin);
  std::iota(rows.begin(), rows.end(), static_cast<uint32_t>(begin));
  return CopyRows(batch, rows);
}

namespace {

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
