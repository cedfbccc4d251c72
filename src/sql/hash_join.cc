// The hash join operator (operators.h, MakeHashJoin): the build input is read whole into a hash
// table on its key values, then the probe input streams through it batch by batch.
#include <algorithm>
#include <unordered_map>

#include "sql/cast.h"
#include "sql/interrupt.h"
#include "sql/operators.h"
#include "sql/vector_eval.h"

namespace tributary::sql {

namespace {

const char* KindName(JoinKind kind) {
  switch (kind) {
    case JoinKind::kInner: return "INNER";
    case JoinKind::kLeft: return "LEFT OUTER";
    case JoinKind::kRight: return "RIGHT OUTER";
    case JoinKind::kFull: return "FULL OUTER";
    case JoinKind::kCross: return "CROSS";
  }
  return "?";
}

constexpr size_t kJoinBatchRows = 2048;

class HashJoinOperator : public Operator {
 public:
  HashJoinOperator(OperatorPtr left, OperatorPtr right, HashJoinSpec spec)
      : left_(std::move(left)), right_(std::move(right)), spec_(std::move(spec)) {
    // Left columns then right columns; a side whose rows may go unmatched becomes nullable.
    const bool left_nulls = spec_.kind == JoinKind::kRight || spec_.kind == JoinKind::kFull;
    const bool right_nulls = spec_.kind == JoinKind::kLeft || spec_.kind == JoinKind::kFull;
    for (const Field& f : left_->fields()) {
      Field g = f;
      g.id = static_cast<int32_t>(fields_.size());
      if (left_nulls) g.type = g.type.WithNullable(true);
      fields_.push_back(std::move(g));
    }
    for (const Field& f : right_->fields()) {
      Field g = f;
      g.id = static_cast<int32_t>(fields_.size());
      if (right_nulls) g.type = g.type.WithNullable(true);
      fields_.push_back(std::move(g));
    }
    left_width_ = left_->fields().size();
    // The side kept when unmatched, seen from the build and the probe inputs.
    const bool left_kept = spec_.kind == JoinKind::kLeft || spec_.kind == JoinKind::kFull;
    const bool right_kept = spec_.kind == JoinKind::kRight || spec_.kind == JoinKind::kFull;
    build_kept_ = spec_.build_left ? left_kept : right_kept;
    probe_kept_ = spec_.build_left ? right_kept : left_kept;
  }

  std::string Describe() const override {
    std::string out = std::string("HashJoin: ") + KindName(spec_.kind);
    out += spec_.condition.empty() ? "" : " ON " + spec_.condition;
    out += spec_.left_keys.empty() ? " (no equality keys: every pair is compared)" : "";
    out += spec_.build_left ? "; build: left input" : "; build: right input";
    if (!spec_.build_reason.empty()) out += " (" + spec_.build_reason + ")";
    return out;
  }
  std::vector<const Operator*> children() const override { return {left_.get(), right_.get()}; }

  Result<bool> Next(ColumnBatch* out) override {
    if (!built_) {
      TRIB_RETURN_NOT_OK(Build());
      built_ = true;
    }
    std::vector<Row> rows;
    while (rows.size() < kJoinBatchRows) {
      if (Interrupted()) break;
      if (probe_pos_ >= probe_.num_rows) {
        if (probe_done_) break;
        TRIB_ASSIGN_OR_RETURN(bool more, probe().Next(&probe_));
        probe_pos_ = 0;
        if (!more) {
          probe_done_ = true;
          probe_ = ColumnBatch();
          continue;
        }
        TRIB_RETURN_NOT_OK(ProbeKeys());
        continue;
      }
      TRIB_RETURN_NOT_OK(ProbeRow(probe_pos_++, &rows));
    }
    if (probe_done_ && build_kept_) {
      // Build rows no probe row matched, with NULLs for the probe side.
      while (unmatched_pos_ < build_rows_.size() && rows.size() < kJoinBatchRows) {
        const size_t b = unmatched_pos_++;
        if (matched_[b]) continue;
        rows.push_back(Joined(nullptr, &build_rows_[b]));
      }
    }
    if (rows.empty()) return false;
    *out = RowsToBatch(fields_, rows.begin(), rows.end());
    return true;
  }

 private:
  Operator& build() { return spec_.build_left ? *left_ : *right_; }
  Operator& probe() { return spec_.build_left ? *right_ : *left_; }
  const std::vector<BoundExprPtr>& build_keys() const {
    return spec_.build_left ? spec_.left_keys : spec_.right_keys;
  }
  const std::vector<BoundExprPtr>& probe_keys() const {
    return spec_.build_left ? spec_.right_keys : spec_.left_keys;
  }

  // The key of row r of `keys` into *key; false when a key value is NULL (it matches nothing).
  static bool KeyOf(const std::vector<ColumnVector>& keys, size_t r, std::string* key) {
    key->clear();
    for (const auto& k : keys) {
      if (k.IsNull(r)) return false;
      Value v = k.Get(r);
      if (v.is_null()) return false;
      AppendKey(v, key);
    }
    return true;
  }

  Status Build() {
    ColumnBatch in;
    std::string key;
    int64_t bytes = 0;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, build().Next(&in));
      if (!more) break;
      std::vector<ColumnVector> keys;
      for (const auto& k : build_keys()) {
        TRIB_ASSIGN_OR_RETURN(ColumnVector c, EvaluateBatch(*k, in));
        keys.push_back(std::move(c));
      }
      std::vector<Row> rows = BatchRows(in);
      for (size_t r = 0; r < rows.size(); r++) {
        for (const Value& v : rows[r]) bytes += ApproxBytes(v);
        bytes += 64;  // the row and its hash-table entry
        if (bytes > spec_.memory_limit) {
          return Status::Invalid("the build side of a hash join holds more than '" +
                                 spec_.memory_limit_key + "' allows (" +
                                 std::to_string(spec_.memory_limit) +
                                 " bytes); raise it with SET '" + spec_.memory_limit_key +
                                 "' = '...', or filter the joined tables further");
        }
        const uint32_t b = static_cast<uint32_t>(build_rows_.size());
        build_rows_.push_back(std::move(rows[r]));
        next_.push_back(UINT32_MAX);
        if (!keys.empty() && KeyOf(keys, r, &key)) {
          auto [it, inserted] = heads_.emplace(key, b);
          if (!inserted) {
            next_[b] = it->second;  // chain: the newest first
            it->second = b;
          }
        }
      }
      if (Interrupted()) break;
    }
    matched_.assign(build_rows_.size(), 0);
    return Status::OK();
  }

  Status ProbeKeys() {
    probe_key_cols_.clear();
    for (const auto& k : probe_keys()) {
      TRIB_ASSIGN_OR_RETURN(ColumnVector c, EvaluateBatch(*k, probe_));
      probe_key_cols_.push_back(std::move(c));
    }
    probe_rows_ = BatchRows(probe_);
    return Status::OK();
  }

  // The joined row of a probe row and a build row (either null: that side's columns NULL).
  Row Joined(const Row* probe_row, const Row* build_row) const {
    const Row* left = spec_.build_left ? build_row : probe_row;
    const Row* right = spec_.build_left ? probe_row : build_row;
    Row out(fields_.size());
    if (left) std::copy(left->begin(), left->end(), out.begin());
    if (right) std::copy(right->begin(), right->end(), out.begin() + left_width_);
    return out;
  }

  Status ProbeRow(size_t r, std::vector<Row>* out) {
    const Row& row = probe_rows_[r];
    bool any = false;
    auto consider = [&](uint32_t b) -> Status {
      Row joined = Joined(&row, &build_rows_[b]);
      for (const auto& p : spec_.residual) {
        TRIB_ASSIGN_OR_RETURN(bool ok, EvaluatePredicate(*p, joined));
        if (!ok) return Status::OK();
      }
      any = true;
      matched_[b] = 1;
      out->push_back(std::move(joined));
      return Status::OK();
    };
    if (spec_.left_keys.empty()) {  // no keys: every build row is a candidate
      for (uint32_t b = 0; b < build_rows_.size(); b++) TRIB_RETURN_NOT_OK(consider(b));
    } else if (KeyOf(probe_key_cols_, r, &key_)) {
      auto it = heads_.find(key_);
      if (it != heads_.end()) {
        // The chain runs newest first; walk it oldest first so output keeps build order.
        chain_.clear();
        for (uint32_t b = it->second; b != UINT32_MAX; b = next_[b]) chain_.push_back(b);
        for (size_t i = chain_.size(); i > 0; i--) TRIB_RETURN_NOT_OK(consider(chain_[i - 1]));
      }
    }
    if (!any && probe_kept_) out->push_back(Joined(&row, nullptr));
    return Status::OK();
  }

  OperatorPtr left_, right_;
  HashJoinSpec spec_;
  size_t left_width_ = 0;
  bool build_kept_ = false, probe_kept_ = false;
  bool built_ = false;
  std::vector<Row> build_rows_;
  std::unordered_map<std::string, uint32_t> heads_;  // key -> its newest build row
  std::vector<uint32_t> next_;                        // build row -> the older one of its key
  std::vector<uint8_t> matched_;
  ColumnBatch probe_;
  std::vector<Row> probe_rows_;
  std::vector<ColumnVector> probe_key_cols_;
  size_t probe_pos_ = 0;
  bool probe_done_ = false;
  size_t unmatched_pos_ = 0;
  std::string key_;
  std::vector<uint32_t> chain_;
};

}  // namespace

OperatorPtr MakeHashJoin(OperatorPtr left, OperatorPtr right, HashJoinSpec spec) {
  return std::make_unique<HashJoinOperator>(std::move(left), std::move(right), std::move(spec));
}

}  // namespace tributary::sql
