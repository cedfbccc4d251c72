// The delta join (operators.h, MakeDeltaJoin): a streaming INNER equi-join of two primary-key
// tables that keeps no join state. Each side's changes, as its stream hands them out one
// snapshot at a time, are joined with the other side's rows as of the last snapshot of it this
// operator has processed, read from the table itself (a scan pinned to that snapshot, filtered on
// the join keys, so it reads only the buckets of the keys). That is the delta rule
// d(A join B) = dA join B_old + A_new join dB: the emitted changes, materialized, are always the
// join of the snapshots processed so far, with exact -U / +U / -D for updates and deletes on
// either side (Fluss's delta join handles insert-only sources; this handles any changelog).
//
// A side's own processed set must equal a snapshot for lookups into it to be exact, so the right
// side's `full` start-up snapshot (read in several batches) is drained first, each batch joined
// with the left side's start-up snapshot, and the left side's start-up rows are skipped (they are
// the state the right side's rows were joined with).
#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "sql/cast.h"
#include "sql/interrupt.h"
#include "sql/operators.h"
#include "tributary/stream_scan.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"

namespace tributary::sql {

namespace {

// The stream's metadata columns (StreamOptions::with_change_metadata) after the table's.
constexpr size_t kMetadataColumns = 3;

class DeltaJoinOperator : public Operator {
 public:
  DeltaJoinOperator(DeltaJoinSide left, DeltaJoinSide right, std::vector<BoundExprPtr> condition,
                    std::optional<std::chrono::milliseconds> idle_timeout, std::string description)
      : condition_(std::move(condition)), idle_timeout_(idle_timeout),
        description_(std::move(description)) {
    sides_[0] = std::move(left);
    sides_[1] = std::move(right);
    fields_.push_back(Field{0, "op", DataType::String().NotNull(), ""});
    for (const auto& side : sides_) {
      for (Field f : side.table->schema()->fields) {
        f.id = static_cast<int32_t>(fields_.size());
        fields_.push_back(std::move(f));
      }
    }
    for (int s = 0; s < 2; s++) processed_[s] = sides_[s].stream->next_snapshot_id() - 1;
  }
  std::string Describe() const override { return description_; }

  Result<bool> Next(ColumnBatch* out) override {
    const auto poll = std::chrono::milliseconds(50);
    auto deadline = Deadline();
    std::vector<Row> rows;
    while (rows.empty()) {
      if (Interrupted()) return false;
      bool any = false;
      if (!right_drained_) {
        // The right side's start-up rows, every batch of them, before anything else.
        RowBatch batch;
        TRIB_ASSIGN_OR_RETURN(bool more, sides_[1].stream->Next(&batch, std::chrono::milliseconds(0)));
        if (!more) processed_[1] = sides_[1].stream->next_snapshot_id() - 1;
        if (!more || !IsStartup(batch)) right_drained_ = true;
        if (more) {
          TRIB_RETURN_NOT_OK(Apply(1, &batch, &rows));
          any = true;
        }
        continue;
      }
      for (int s = 0; s < 2; s++) {
        RowBatch batch;
        TRIB_ASSIGN_OR_RETURN(bool more, sides_[s].stream->Next(&batch, std::chrono::milliseconds(0)));
        if (!more) {
          // Snapshots the stream passed without a change (compactions, upserts of equal rows)
          // change nothing this side joins with: it is processed up to them, so lookups into it
          // do not stay pinned to a snapshot that expiration may remove.
          processed_[s] = sides_[s].stream->next_snapshot_id() - 1;
          continue;
        }
        any = true;
        // The left side's start-up rows are the state the right side was joined with.
        if (s == 0 && IsStartup(batch)) continue;
        TRIB_RETURN_NOT_OK(Apply(s, &batch, &rows));
      }
      if (any) {
        deadline = Deadline();
        continue;
      }
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) return false;
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(poll, deadline - now));
    }
    *out = RowsToBatch(fields_, rows.begin(), rows.end());
    return true;
  }

 private:
  std::chrono::steady_clock::time_point Deadline() const {
    return idle_timeout_ ? std::chrono::steady_clock::now() + *idle_timeout_
                         : std::chrono::steady_clock::time_point::max();
  }

  // A batch of a `full` start-up snapshot (its rows have no log offset).
  static bool IsStartup(const RowBatch& batch) {
    if (batch.rows.empty()) return false;
    const Row& r = batch.rows[0];
    return r.size() >= kMetadataColumns && r[r.size() - kMetadataColumns].is_null();
  }

  // The changes of side `s` in `batch` joined with the other side as processed so far; then
  // side `s` is processed up to the snapshot the batch came from.
  Status Apply(int s, RowBatch* batch, std::vector<Row>* out) {
    const int o = 1 - s;
    const DeltaJoinSide& me = sides_[s];
    const DeltaJoinSide& other = sides_[o];
    const size_t width = me.table->schema()->fields.size();
    for (Row& r : batch->rows) r.resize(width);  // the metadata columns go
    // The other side's rows with any of the changes' key values, as of its processed snapshot.
    std::vector<std::vector<Value>> wanted(other.key_columns.size());
    std::vector<std::string> change_keys(batch->rows.size());
    std::vector<bool> null_key(batch->rows.size(), false);
    for (size_t i = 0; i < batch->rows.size(); i++) {
      // Every key column of the row converted first: a NULL (or unconvertible) one joins nothing,
      // and the row adds no value to any column's list (they stay aligned row by row).
      std::vector<Value> key;
      for (size_t k = 0; k < me.key_columns.size() && !null_key[i]; k++) {
        const Value& v = batch->rows[i][me.key_columns[k]];
        auto cast = CastValue(v, me.table->schema()->fields[me.key_columns[k]].type,
                              other.table->schema()->fields[other.key_columns[k]].type,
                              CastMode::kExplicit);
        if (!cast.ok() || cast->is_null()) {
          null_key[i] = true;
        } else {
          key.push_back(std::move(*cast));
        }
      }
      if (null_key[i]) continue;
      for (size_t k = 0; k < key.size(); k++) {
        AppendKey(key[k], &change_keys[i]);
        wanted[k].push_back(std::move(key[k]));
      }
    }
    std::unordered_map<std::string, std::vector<Row>> found;
    if (processed_[o] >= 1 && !wanted[0].empty()) {
      // One scan for the whole batch: each key column IN its values (a scan sorts an IN list
      // once and checks rows by binary search), the exact key matched below.
      ScanOptions opts;
      opts.snapshot_id = processed_[o];
      for (size_t k = 0; k < other.key_columns.size(); k++) {
        opts.filters.push_back(Predicate{other.key_columns[k], Predicate::Op::kIn, wanted[k]});
      }
      TRIB_ASSIGN_OR_RETURN(std::unique_ptr<TableScan> scan, other.table->NewScan(opts));
      RowBatch rows;
      while (true) {
        TRIB_ASSIGN_OR_RETURN(bool more, scan->Next(&rows));
        if (!more) break;
        for (Row& r : rows.rows) {
          std::string key;
          for (int c : other.key_columns) AppendKey(r[c], &key);
          found[key].push_back(std::move(r));
        }
      }
    }
    for (size_t i = 0; i < batch->rows.size(); i++) {
      if (null_key[i]) continue;
      auto it = found.find(change_keys[i]);
      if (it == found.end()) continue;
      for (const Row& match : it->second) {
        const Row& left = s == 0 ? batch->rows[i] : match;
        const Row& right = s == 0 ? match : batch->rows[i];
        Row joined;
        joined.reserve(left.size() + right.size());
        joined.insert(joined.end(), left.begin(), left.end());
        joined.insert(joined.end(), right.begin(), right.end());
        bool keep = true;
        for (const auto& c : condition_) {
          TRIB_ASSIGN_OR_RETURN(keep, EvaluatePredicate(*c, joined));
          if (!keep) break;
        }
        if (!keep) continue;
        Row row;
        row.reserve(joined.size() + 1);
        row.push_back(Value::String(std::string(RowKindShortString(batch->kinds[i]))));
        for (Value& v : joined) row.push_back(std::move(v));
        out->push_back(std::move(row));
      }
    }
    processed_[s] = me.stream->next_snapshot_id() - 1;
    return Status::OK();
  }

  DeltaJoinSide sides_[2];
  int64_t processed_[2] = {0, 0};  // the last snapshot of each side processed
  bool right_drained_ = false;     // the right side's start-up snapshot is processed
  std::vector<BoundExprPtr> condition_;
  std::optional<std::chrono::milliseconds> idle_timeout_;
  std::string description_;
};

}  // namespace

OperatorPtr MakeDeltaJoin(DeltaJoinSide left, DeltaJoinSide right,
                          std::vector<BoundExprPtr> condition,
                          std::optional<std::chrono::milliseconds> idle_timeout,
                          std::string description) {
  return std::make_unique<DeltaJoinOperator>(std::move(left), std::move(right),
                                             std::move(condition), idle_timeout,
                                             std::move(description));
}

}  // namespace tributary::sql
