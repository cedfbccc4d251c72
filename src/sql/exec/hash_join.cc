// The hash join operator (operators.h, MakeHashJoin): the build input is read whole into column
// vectors and a hash table on its key values (integer keys in an open-addressing table of raw
// values, any other keys by their byte encoding), then the probe input streams through it a
// batch at a time. Output rows are gathered column by column from the probe batch and the build
// columns; residual conditions run on a batch of the candidate pairs. A build side past the
// memory limit makes it a Grace hash join (HashJoinOperator::Partition).
#include <algorithm>
#include <unordered_map>

#include "common/memory_budget.h"
#include "sql/binder/cast.h"
#include "sql/exec/column_keys.h"
#include "sql/exec/holding.h"
#include "sql/exec/interrupt.h"
#include "sql/exec/operators.h"
#include "sql/exec/spill.h"
#include "sql/exec/vector_eval.h"

namespace tributary::sql {

namespace {

const char* KindName(JoinKind kind) {
  switch (kind) {
    case JoinKind::kInner:
      return "INNER";
    case JoinKind::kLeft:
      return "LEFT OUTER";
    case JoinKind::kRight:
      return "RIGHT OUTER";
    case JoinKind::kFull:
      return "FULL OUTER";
    case JoinKind::kCross:
      return "CROSS";
  }
  return "?";
}

// Candidate pairs examined per output batch (a probe batch is worked through in slices).
constexpr size_t kMaxPairs = 65536;
constexpr uint32_t kNone = UINT32_MAX;

// Appends `from` to `to` (of one column); representations that differ become Values.
void AppendColumn(ColumnVector* to, ColumnVector&& from) {
  if (to->size() == 0 && to->rep != from.rep) {
    DataType type = to->type;
    *to = std::move(from);
    to->type = type;
    return;
  }
  if (to->rep == from.rep) {
    to->AppendAll(std::move(from));
    return;
  }
  if (to->rep != ColumnVector::Rep::kValue) {
    ColumnVector values;
    values.type = to->type;
    values.rep = ColumnVector::Rep::kValue;
    for (size_t r = 0; r < to->size(); r++) values.Append(to->Get(r));
    *to = std::move(values);
  }
  for (size_t r = 0; r < from.size(); r++) to->Append(from.Get(r));
}

// Bytes a build row takes besides its columns: its key's validity, its next-row link and its
// matched flag; with an integer key also the key and its share of the open-addressing slots
// (2 to 4 slots a row, 16 bytes each); with any other key, a new key's hash table node (next
// pointer, std::string, head, cached hash: an allocator size class) and bucket, plus its
// string's own allocation, and the row's encoded key while its batch is added.
constexpr int64_t kBuildRowBytes = sizeof(uint8_t) * 2 + sizeof(uint32_t);
constexpr int64_t kIntKeyRowBytes = sizeof(int64_t) + 3 * (sizeof(int64_t) + sizeof(uint64_t));
constexpr int64_t kByteKeyRowBytes = sizeof(std::string);
constexpr int64_t kByteKeyEntryBytes = 64 + sizeof(void*);

// Bytes a batch's columns hold, roughly.
int64_t BatchBytes(const ColumnBatch& b) {
  int64_t n = 0;
  for (const ColumnVector& c : b.columns) n += ApproxColumnBytes(c);
  return n;
}

// Rows idx[k] of `src` (kNone: NULL; src null: every row NULL), as a column of `type`.
ColumnVector Gather(const ColumnVector* src, const std::vector<uint32_t>& idx,
                    const DataType& type) {
  ColumnVector out;
  out.type = type;
  out.rep = src ? src->rep : ColumnVector::Rep::kValue;
  const size_t m = idx.size();
  bool any_null = !src || std::find(idx.begin(), idx.end(), kNone) != idx.end();
  if (!any_null && !src->nulls.empty()) {
    for (uint32_t i : idx) any_null = any_null || src->nulls[i] != 0;
  }
  if (any_null) out.nulls.resize(m);
  switch (out.rep) {
    case ColumnVector::Rep::kInt:
      out.ints.resize(m);
      for (size_t k = 0; k < m; k++) out.ints[k] = idx[k] == kNone ? 0 : src->ints[idx[k]];
      break;
    case ColumnVector::Rep::kDouble:
      out.doubles.resize(m);
      for (size_t k = 0; k < m; k++) out.doubles[k] = idx[k] == kNone ? 0 : src->doubles[idx[k]];
      break;
    case ColumnVector::Rep::kString:
      out.strings.reserve(m);
      for (size_t k = 0; k < m; k++) {
        out.strings.push_back(idx[k] == kNone ? std::string_view() : src->strings[idx[k]]);
      }
      break;
    case ColumnVector::Rep::kValue:
      out.values.reserve(m);
      for (size_t k = 0; k < m; k++) {
        out.values.push_back(idx[k] == kNone ? Value::Null() : src->values[idx[k]]);
      }
      break;
  }
  if (any_null) {
    for (size_t k = 0; k < m; k++) out.nulls[k] = idx[k] == kNone || src->IsNull(idx[k]);
  }
  return out;
}

// Key values of one batch: integers (a single integer key) or byte encodings (any other keys);
// valid[r] false when a key value of row r is NULL (it joins nothing).
struct BatchKeys {
  std::vector<int64_t> ints;
  std::vector<std::string> encoded;
  std::vector<uint8_t> valid;
};

// Levels of partitioning (deeper means keys no hash separates: one key's rows past the limit).
constexpr int kMaxSpillDepth = 8;

// Segments [first, end) of a spill file (borrowed), a segment per batch.
class SegmentsOperator : public Operator {
 public:
  SegmentsOperator(std::vector<Field> fields, const SpillFile* file, size_t first, size_t end)
      : file_(file), next_(first), end_(end) {
    fields_ = std::move(fields);
  }
  std::string Describe() const override { return "Spilled rows"; }
  Result<bool> Next(ColumnBatch* out) override {
    while (next_ < end_) {
      TRIB_ASSIGN_OR_RETURN(*out, file_->Read(next_++));
      if (out->num_rows > 0) return true;
    }
    return false;
  }

 private:
  const SpillFile* file_;
  size_t next_, end_;
};

HashJoinSpec CloneSpec(const HashJoinSpec& spec) {
  HashJoinSpec out;
  out.kind = spec.kind;
  for (const auto& k : spec.left_keys) out.left_keys.push_back(CloneBound(*k));
  for (const auto& k : spec.right_keys) out.right_keys.push_back(CloneBound(*k));
  for (const auto& r : spec.residual) out.residual.push_back(CloneBound(*r));
  out.build_left = spec.build_left;
  out.condition = spec.condition;
  out.build_reason = spec.build_reason;
  out.note = spec.note;
  out.memory_limit = spec.memory_limit;
  out.memory_limit_key = spec.memory_limit_key;
  out.spill = spec.spill;
  out.spill_depth = spec.spill_depth;
  return out;
}

class HashJoinOperator : public Operator {
 public:
  HashJoinOperator(OperatorPtr left, OperatorPtr right, HashJoinSpec spec)
      : left_(std::move(left)), right_(std::move(right)), spec_(std::move(spec)) {
    // Left columns then right columns; a side whose rows may go unmatched becomes nullable.
    const bool left_nulls = spec_.kind == JoinKind::kRight || spec_.kind == JoinKind::kFull;
    const bool right_nulls = spec_.kind == JoinKind::kLeft || spec_.kind == JoinKind::kFull;
    auto add = [&](const std::vector<Field>& fields, bool nulls) {
      for (const Field& f : fields) {
        Field g = f;
        g.id = static_cast<int32_t>(fields_.size());
        if (nulls) g.type = g.type.WithNullable(true);
        fields_.push_back(std::move(g));
      }
    };
    add(left_->fields(), left_nulls);
    add(right_->fields(), right_nulls);
    left_width_ = left_->fields().size();
    const bool left_kept = spec_.kind == JoinKind::kLeft || spec_.kind == JoinKind::kFull;
    const bool right_kept = spec_.kind == JoinKind::kRight || spec_.kind == JoinKind::kFull;
    build_kept_ = spec_.build_left ? left_kept : right_kept;
    probe_kept_ = spec_.build_left ? right_kept : left_kept;
    int_keys_ = spec_.left_keys.size() == 1 && spec_.left_keys[0]->type.IsInteger() &&
                spec_.right_keys[0]->type.IsInteger();
  }

  std::string Describe() const override {
    std::string out = std::string("HashJoin: ") + KindName(spec_.kind);
    out += spec_.condition.empty() ? "" : " ON " + spec_.condition;
    out += spec_.left_keys.empty() ? " (no equality keys: every pair is compared)" : "";
    out += spec_.build_left ? "; build: left input" : "; build: right input";
    if (!spec_.build_reason.empty()) out += " (" + spec_.build_reason + ")";
    if (!spec_.note.empty()) out += "; " + spec_.note;
    if (build_parts_) {
      out += "; past the limit: " + std::to_string(build_parts_->rows()) + " build and " +
             std::to_string(probe_parts_->rows()) + " probe row(s) spilled in partitions";
    }
    return out;
  }
  std::vector<const Operator*> children() const override { return {left_.get(), right_.get()}; }

  Result<bool> Next(ColumnBatch* out) override {
    if (!built_) {
      TRIB_RETURN_NOT_OK(Build());
      built_ = true;
    }
    if (build_parts_) return NextPartitioned(out);
    if (build_file_) return NextChunked(out);
    while (!Interrupted()) {
      if (probe_pos_ >= probe_.num_rows) {
        if (probe_done_) return EmitUnmatchedBuild(out);
        probe_base_ += probe_.num_rows;
        TRIB_ASSIGN_OR_RETURN(bool more, probe().Next(&probe_));
        probe_pos_ = 0;
        if (!more) {
          probe_done_ = true;
          probe_ = ColumnBatch();
          continue;
        }
        TRIB_ASSIGN_OR_RETURN(probe_keys_, KeysOf(probe_keys(), probe_));
        continue;
      }
      TRIB_ASSIGN_OR_RETURN(bool any, ProbeSlice(out));
      if (any) return true;
    }
    return false;
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

  Result<BatchKeys> KeysOf(const std::vector<BoundExprPtr>& exprs, const ColumnBatch& batch) {
    BatchKeys keys;
    const size_t n = batch.num_rows;
    keys.valid.assign(n, 1);
    if (exprs.empty()) return keys;
    std::vector<ColumnVector> cols;
    for (const auto& e : exprs) {
      TRIB_ASSIGN_OR_RETURN(ColumnVector c, EvaluateBatch(*e, batch));
      cols.push_back(std::move(c));
    }
    if (int_keys_ && cols[0].rep == ColumnVector::Rep::kInt && cols[0].nulls.empty()) {
      keys.ints = std::move(cols[0].ints);  // every row has a key
      return keys;
    }
    if (int_keys_) {
      const ColumnVector& c = cols[0];
      keys.ints.resize(n);
      for (size_t r = 0; r < n; r++) {
        if (c.IsNull(r)) {
          keys.valid[r] = 0;
        } else if (c.rep == ColumnVector::Rep::kInt) {
          keys.ints[r] = c.ints[r];
        } else {
          const Value v = c.Get(r);
          if (v.is_null()) {
            keys.valid[r] = 0;
          } else {
            keys.ints[r] = v.int_value();
          }
        }
      }
      return keys;
    }
    keys.encoded.resize(n);
    for (size_t r = 0; r < n; r++) {
      for (const auto& c : cols) {
        const Value v = c.IsNull(r) ? Value::Null() : c.Get(r);
        if (v.is_null()) {
          keys.valid[r] = 0;
          break;
        }
        AppendKey(v, &keys.encoded[r]);
      }
    }
    return keys;
  }

  Status Build() {
    const std::vector<Field>& fields = build().fields();
    build_.columns.resize(fields.size());
    for (size_t c = 0; c < fields.size(); c++) {
      build_.columns[c].type = fields[c].type;
      build_.columns[c].rep = ColumnVector::RepOf(fields[c].type);
    }
    std::vector<int64_t> int_keys;
    int64_t bytes = 0;
    ColumnBatch in;
    while (!Interrupted()) {
      TRIB_ASSIGN_OR_RETURN(bool more, build().Next(&in));
      if (!more) break;
      TRIB_ASSIGN_OR_RETURN(BatchKeys keys, KeysOf(build_keys(), in));
      const bool byte_keys = !int_keys_ && !build_keys().empty();
      const int64_t row_bytes = kBuildRowBytes + (int_keys_   ? kIntKeyRowBytes
                                                  : byte_keys ? kByteKeyRowBytes
                                                              : 0);
      bytes += BatchBytes(in) + static_cast<int64_t>(in.num_rows) * row_bytes;
      for (size_t r = 0; byte_keys && r < in.num_rows; r++) {
        // Each row's key as if new (a repeated key's string is freed again, its row linked).
        if (keys.valid[r]) bytes += kByteKeyEntryBytes + StringHeapBytes(keys.encoded[r].size());
      }
      if (charge_.Over(bytes, spec_.memory_limit) && CanSpill()) {
        // Partitioned by key while that can split the rows; one key's rows (a skewed key),
        // or a join without keys, in chunks that fit.
        // (At the first level always by key: the rows held so far may be one hot key's while
        // the input holds many.)
        if (!spec_.left_keys.empty() && spec_.spill_depth < kMaxSpillDepth &&
            (spec_.spill_depth == 0 || !SingleKey(int_keys, keys))) {
          charge_.Set(0);  // the rows go to the partitions' files, each joined on its own
          return Partition(std::move(in));
        }
        // Chunks of what fits: the limit, or what the process's budget let this join hold.
        const double fits =
            static_cast<double>(charge_.over_budget() ? bytes : spec_.memory_limit) * 0.9;
        const int64_t rows = static_cast<int64_t>(build_.num_rows + in.num_rows);
        chunk_rows_ = static_cast<size_t>(std::max<int64_t>(
            static_cast<int64_t>(kBatchRows),
            static_cast<int64_t>(fits * static_cast<double>(rows) / static_cast<double>(bytes))));
        charge_.Set(static_cast<int64_t>(fits));  // a chunk of build rows at a time
        return SpillForChunks(std::move(in));
      }
      if (bytes > spec_.memory_limit) {
        return Status::Invalid(
            "the build side of a hash join holds more than '" + spec_.memory_limit_key +
            "' allows (" + std::to_string(spec_.memory_limit) + " bytes); raise it with SET '" +
            spec_.memory_limit_key + "' = '...', or filter the joined tables further");
      }
      const uint32_t base = static_cast<uint32_t>(build_.num_rows);
      if (build_.num_rows + in.num_rows >= kNone) {
        return Status::Invalid("the build side of a hash join has more than 4 billion rows");
      }
      for (size_t c = 0; c < in.columns.size(); c++) {
        AppendColumn(&build_.columns[c], std::move(in.columns[c]));
      }
      build_.num_rows += in.num_rows;
      valid_.insert(valid_.end(), keys.valid.begin(), keys.valid.end());
      if (int_keys_) {
        int_keys.insert(int_keys.end(), keys.ints.begin(), keys.ints.end());
      } else if (!build_keys().empty()) {
        for (size_t r = 0; r < in.num_rows; r++) {
          if (!keys.valid[r]) continue;
          const uint32_t b = base + static_cast<uint32_t>(r);
          const int64_t key_bytes = kByteKeyEntryBytes + StringHeapBytes(keys.encoded[r].size());
          auto [it, inserted] = heads_.emplace(std::move(keys.encoded[r]), b);
          if (!inserted) {
            bytes -= key_bytes;  // counted above as a new key
            next_.resize(build_.num_rows, kNone);
            next_[b] = it->second;
            it->second = b;
          }
        }
      }
    }
    next_.resize(build_.num_rows, kNone);
    if (int_keys_) {
      // Open addressing on the raw values: twice as many slots as rows, a power of two.
      size_t slots = 16;
      while (slots < 2 * build_.num_rows) slots *= 2;
      slots_.assign(slots, SlotEntry{0, kNone});
      mask_ = slots - 1;
      for (uint32_t b = 0; b < build_.num_rows; b++) {
        if (!valid_[b]) continue;
        const int64_t k = int_keys[b];
        size_t s = Slot(k);
        while (slots_[s].head != kNone && slots_[s].key != k) s = (s + 1) & mask_;
        if (slots_[s].head != kNone) next_[b] = slots_[s].head;
        slots_[s] = SlotEntry{k, b};
      }
    }
    matched_.assign(build_.num_rows, 0);
    return Status::OK();
  }

  // A join of `build_rows` and `probe_rows` (spilled parts of this join's inputs) by `spec`,
  // each on its side.
  std::unique_ptr<HashJoinOperator> JoinOf(OperatorPtr build_rows, OperatorPtr probe_rows,
                                           HashJoinSpec spec) const {
    return spec_.build_left ? std::make_unique<HashJoinOperator>(
                                  std::move(build_rows), std::move(probe_rows), std::move(spec))
                            : std::make_unique<HashJoinOperator>(
                                  std::move(probe_rows), std::move(build_rows), std::move(spec));
  }

  // Whether the join can spill: no subquery to run per row in its keys or conditions (the
  // joins of the spilled parts take copies of them).
  bool CanSpill() const {
    for (const auto* exprs : {&spec_.left_keys, &spec_.right_keys, &spec_.residual}) {
      for (const auto& e : *exprs) {
        if (HasDeferredSubquery(*e)) return false;
      }
    }
    return true;
  }

  // Whether the build rows held (`held_ints` their integer keys) and `current`'s share one key
  // (NULL keys aside): partitioning by key would not split them.
  bool SingleKey(const std::vector<int64_t>& held_ints, const BatchKeys& current) const {
    if (int_keys_) {
      std::optional<int64_t> key;
      auto same = [&](int64_t k) {
        if (!key) key = k;
        return *key == k;
      };
      for (size_t b = 0; b < held_ints.size(); b++) {
        if (valid_[b] && !same(held_ints[b])) return false;
      }
      for (size_t r = 0; r < current.ints.size(); r++) {
        if (current.valid[r] && !same(current.ints[r])) return false;
      }
      return true;
    }
    if (heads_.size() > 1) return false;
    const std::string* key = heads_.empty() ? nullptr : &heads_.begin()->first;
    for (size_t r = 0; r < current.encoded.size(); r++) {
      if (!current.valid[r]) continue;
      if (key == nullptr) key = &current.encoded[r];
      if (*key != current.encoded[r]) return false;
    }
    return true;
  }

  // Past the limit with rows that keys cannot split (a block nested-loop join): both inputs go
  // to spill files; then each chunk of about the limit of build rows is joined with every probe
  // row (NextChunked), the probe rows that joined none marked across the chunks.
  Status SpillForChunks(ColumnBatch current) {
    const std::vector<Field>& build_fields = build().fields();
    TRIB_ASSIGN_OR_RETURN(build_file_, SpillFile::Create(build_fields, spec_.spill, kBatchRows));
    TRIB_ASSIGN_OR_RETURN(probe_file_,
                          SpillFile::Create(probe().fields(), spec_.spill, kBatchRows));
    auto append = [](SpillFile* f, const ColumnBatch& b) {
      return b.num_rows == 0 ? Status::OK() : f->Append(b, 0, b.num_rows);
    };
    TRIB_RETURN_NOT_OK(append(build_file_.get(), build_));
    TRIB_RETURN_NOT_OK(append(build_file_.get(), current));
    // Emptied, typed: the build side of the probe rows that joined nothing.
    build_ = ColumnBatch();
    for (const Field& f : build_fields) build_.columns.push_back(TypedColumn(f.type));
    valid_ = {};
    next_ = {};
    heads_ = {};
    ColumnBatch in;
    while (!Interrupted()) {
      TRIB_ASSIGN_OR_RETURN(bool more, build().Next(&in));
      if (!more) break;
      TRIB_RETURN_NOT_OK(append(build_file_.get(), in));
    }
    while (!Interrupted()) {
      TRIB_ASSIGN_OR_RETURN(bool more, probe().Next(&in));
      if (!more) break;
      TRIB_RETURN_NOT_OK(append(probe_file_.get(), in));
    }
    TRIB_RETURN_NOT_OK(build_file_->Finish());
    TRIB_RETURN_NOT_OK(probe_file_->Finish());
    if (probe_kept_) probe_matched_all_.assign(static_cast<size_t>(probe_file_->rows()), 0);
    return Status::OK();
  }

  // Each chunk of build rows joined with every probe row by a join of the same kind that keeps
  // no unmatched probe row but marks the ones that joined; then (a kept probe side) the probe
  // rows no chunk joined, the build side NULL.
  Result<bool> NextChunked(ColumnBatch* out) {
    while (!Interrupted()) {
      if (current_) {
        TRIB_ASSIGN_OR_RETURN(bool more, current_->Next(out));
        if (more) return true;
        current_.reset();
      }
      if (next_segment_ < build_file_->segments()) {
        const size_t first = next_segment_;
        const size_t per_chunk = std::max<size_t>(1, chunk_rows_ / kBatchRows);
        next_segment_ = std::min(build_file_->segments(), first + per_chunk);
        auto build_rows = std::make_unique<SegmentsOperator>(build().fields(), build_file_.get(),
                                                             first, next_segment_);
        auto probe_rows = std::make_unique<SegmentsOperator>(probe().fields(), probe_file_.get(), 0,
                                                             probe_file_->segments());
        HashJoinSpec spec = CloneSpec(spec_);
        spec.spill_depth = kMaxSpillDepth;
        spec.memory_limit = INT64_MAX;  // the chunk was cut to about the limit
        current_ = JoinOf(std::move(build_rows), std::move(probe_rows), std::move(spec));
        current_->probe_kept_ = false;
        current_->probe_matched_ = probe_kept_ ? &probe_matched_all_ : nullptr;
        continue;
      }
      if (!probe_kept_) return false;
      while (unmatched_segment_ < probe_file_->segments()) {
        TRIB_ASSIGN_OR_RETURN(probe_, probe_file_->Read(unmatched_segment_++));
        const size_t base = probe_base_;
        probe_base_ += probe_.num_rows;
        std::vector<uint32_t> probe_idx;
        for (size_t r = 0; r < probe_.num_rows; r++) {
          if (!probe_matched_all_[base + r]) probe_idx.push_back(static_cast<uint32_t>(r));
        }
        if (probe_idx.empty()) continue;
        std::vector<uint32_t> build_idx(probe_idx.size(), kNone);
        *out = Assemble(probe_idx, build_idx);
        return true;
      }
      return false;
    }
    return false;
  }

  // Past the limit (a Grace hash join): the build rows held, `current` and the rest of the build
  // input, then the whole probe input, go to partitions by a hash of their keys (equal keys meet
  // in one partition; a NULL key, which joins nothing, in the partition of its hash too), and
  // each pair of partitions is then joined on its own (NextPartitioned).
  Status Partition(ColumnBatch current) {
    build_parts_ =
        std::make_unique<SpilledPartitions>(build().fields(), spec_.spill, spec_.spill_depth);
    probe_parts_ =
        std::make_unique<SpilledPartitions>(probe().fields(), spec_.spill, spec_.spill_depth);
    auto add = [&](const ColumnBatch& batch, const std::vector<BoundExprPtr>& key_exprs,
                   SpilledPartitions* parts) -> Status {
      if (batch.num_rows == 0) return Status::OK();
      std::vector<ColumnVector> keys;
      for (const auto& e : key_exprs) {
        TRIB_ASSIGN_OR_RETURN(ColumnVector k, EvaluateBatch(*e, batch));
        keys.push_back(Canonical(std::move(k)));
      }
      // A row with a NULL key joins nothing: such rows are dealt round the partitions (by
      // their hash they would all meet in one, which no deeper level could split).
      std::vector<uint32_t> rows;
      std::vector<std::vector<uint32_t>> null_keys(SpilledPartitions::kPartitions);
      for (uint32_t r = 0; r < batch.num_rows; r++) {
        bool null = false;
        for (const ColumnVector& k : keys) null = null || k.IsNull(r);
        if (null) {
          null_keys[null_rows_++ % SpilledPartitions::kPartitions].push_back(r);
        } else {
          rows.push_back(r);
        }
      }
      for (size_t p = 0; p < null_keys.size(); p++) {
        if (!null_keys[p].empty()) TRIB_RETURN_NOT_OK(parts->AddTo(p, batch, null_keys[p]));
      }
      return rows.empty() ? Status::OK() : parts->Add(batch, keys, rows);
    };
    TRIB_RETURN_NOT_OK(add(build_, build_keys(), build_parts_.get()));
    build_ = ColumnBatch();
    valid_ = {};
    next_ = {};
    heads_ = {};
    TRIB_RETURN_NOT_OK(add(current, build_keys(), build_parts_.get()));
    ColumnBatch in;
    while (!Interrupted()) {
      TRIB_ASSIGN_OR_RETURN(bool more, build().Next(&in));
      if (!more) break;
      TRIB_RETURN_NOT_OK(add(in, build_keys(), build_parts_.get()));
    }
    while (!Interrupted()) {
      TRIB_ASSIGN_OR_RETURN(bool more, probe().Next(&in));
      if (!more) break;
      TRIB_RETURN_NOT_OK(add(in, probe_keys(), probe_parts_.get()));
    }
    TRIB_RETURN_NOT_OK(build_parts_->Finish());
    return probe_parts_->Finish();
  }

  // The join of each pair of partitions in turn, by a join of the same kind one level deeper.
  Result<bool> NextPartitioned(ColumnBatch* out) {
    while (!Interrupted()) {
      if (current_) {
        TRIB_ASSIGN_OR_RETURN(bool more, current_->Next(out));
        if (more) return true;
        current_.reset();
      }
      if (next_part_ >= SpilledPartitions::kPartitions) return false;
      const size_t p = next_part_++;
      std::unique_ptr<SpillFile> b = build_parts_->Take(p);
      std::unique_ptr<SpillFile> q = probe_parts_->Take(p);
      // A side with no rows: only the other side's rows kept unmatched come out.
      if ((!b && (!q || !probe_kept_)) || (!q && !build_kept_)) continue;
      auto source = [](const std::vector<Field>& fields, std::unique_ptr<SpillFile> f) {
        return f ? OperatorPtr(std::make_unique<SpillSourceOperator>(fields, std::move(f)))
                 : MakeRows(fields, {}, "no rows");
      };
      OperatorPtr build_rows = source(build().fields(), std::move(b));
      OperatorPtr probe_rows = source(probe().fields(), std::move(q));
      HashJoinSpec spec = CloneSpec(spec_);
      spec.spill_depth++;
      current_ = JoinOf(std::move(build_rows), std::move(probe_rows), std::move(spec));
    }
    return false;
  }

  size_t Slot(int64_t k) const {
    return static_cast<size_t>((static_cast<uint64_t>(k) * 0x9E3779B97F4A7C15ULL) >> 20) & mask_;
  }

  // The newest build row whose key equals probe row r's (then next_ for the others), or kNone.
  uint32_t FirstMatch(size_t r) const {
    if (!probe_keys_.valid[r]) return kNone;
    if (int_keys_) {
      const int64_t k = probe_keys_.ints[r];
      for (size_t s = Slot(k); slots_[s].head != kNone; s = (s + 1) & mask_) {
        if (slots_[s].key == k) return slots_[s].head;
      }
      return kNone;
    }
    auto it = heads_.find(probe_keys_.encoded[r]);
    return it == heads_.end() ? kNone : it->second;
  }

  // Output rows for a slice of the probe batch: the pairs that join, then (probe side kept) the
  // probe rows none joined. False when the slice gave no row.
  Result<bool> ProbeSlice(ColumnBatch* out) {
    std::vector<uint32_t> probe_idx, build_idx;
    const size_t begin = probe_pos_;
    const size_t expect = std::min(kMaxPairs, probe_.num_rows - begin);
    probe_idx.reserve(expect);
    build_idx.reserve(expect);
    size_t end = begin;
    const bool every_pair = spec_.left_keys.empty();
    while (end < probe_.num_rows && probe_idx.size() < kMaxPairs) {
      if (every_pair) {
        for (uint32_t b = 0; b < build_.num_rows; b++) {
          probe_idx.push_back(static_cast<uint32_t>(end));
          build_idx.push_back(b);
        }
      } else {
        for (uint32_t b = FirstMatch(end); b != kNone; b = next_[b]) {
          probe_idx.push_back(static_cast<uint32_t>(end));
          build_idx.push_back(b);
        }
      }
      end++;
    }
    probe_pos_ = end;
    if (!spec_.residual.empty() && !probe_idx.empty()) {
      ColumnBatch pairs = Assemble(probe_idx, build_idx);
      TRIB_ASSIGN_OR_RETURN(std::vector<uint32_t> keep, SelectRows(spec_.residual, pairs));
      std::vector<uint32_t> p, b;
      p.reserve(keep.size());
      b.reserve(keep.size());
      for (uint32_t k : keep) {
        p.push_back(probe_idx[k]);
        b.push_back(build_idx[k]);
      }
      probe_idx = std::move(p);
      build_idx = std::move(b);
    }
    for (uint32_t b : build_idx) matched_[b] = 1;
    if (probe_matched_) {
      for (uint32_t p : probe_idx) (*probe_matched_)[probe_base_ + p] = 1;
    }
    if (probe_kept_) {
      std::vector<uint8_t> joined(end - begin, 0);
      for (uint32_t p : probe_idx) joined[p - begin] = 1;
      for (size_t r = begin; r < end; r++) {
        if (joined[r - begin]) continue;
        probe_idx.push_back(static_cast<uint32_t>(r));
        build_idx.push_back(kNone);
      }
    }
    if (probe_idx.empty()) return false;
    *out = Assemble(probe_idx, build_idx);
    return true;
  }

  // Build rows no probe row joined, the probe side NULL (a kept build side, after the probe).
  Result<bool> EmitUnmatchedBuild(ColumnBatch* out) {
    if (!build_kept_) return false;
    std::vector<uint32_t> build_idx;
    while (unmatched_pos_ < build_.num_rows && build_idx.size() < kMaxPairs) {
      const uint32_t b = static_cast<uint32_t>(unmatched_pos_++);
      if (!matched_[b]) build_idx.push_back(b);
    }
    if (build_idx.empty()) return false;
    std::vector<uint32_t> probe_idx(build_idx.size(), kNone);
    *out = Assemble(probe_idx, build_idx);
    return true;
  }

  // The joined rows of (probe row, build row) pairs, kNone: that side NULL.
  ColumnBatch Assemble(const std::vector<uint32_t>& probe_idx,
                       const std::vector<uint32_t>& build_idx) const {
    ColumnBatch out;
    out.num_rows = probe_idx.size();
    const bool probe_has_rows =
        std::any_of(probe_idx.begin(), probe_idx.end(), [](uint32_t i) { return i != kNone; });
    for (size_t c = 0; c < fields_.size(); c++) {
      const bool left = c < left_width_;
      const size_t col = left ? c : c - left_width_;
      const bool from_build = left == spec_.build_left;
      const ColumnVector* src =
          from_build ? &build_.columns[col] : (probe_has_rows ? &probe_.columns[col] : nullptr);
      out.columns.push_back(Gather(src, from_build ? build_idx : probe_idx, fields_[c].type));
    }
    return out;
  }

  OperatorPtr left_, right_;
  HashJoinSpec spec_;
  size_t left_width_ = 0;
  bool build_kept_ = false, probe_kept_ = false;
  bool int_keys_ = false;
  bool built_ = false;
  // The build input, its rows' key validity, and the hash table: the newest row of each key,
  // next_ chaining to older rows of the same key.
  ColumnBatch build_;
  std::vector<uint8_t> valid_;
  std::vector<uint32_t> next_;
  struct SlotEntry {
    int64_t key;
    uint32_t head;  // kNone: an empty slot
  };
  std::vector<SlotEntry> slots_;
  size_t mask_ = 0;
  std::unordered_map<std::string, uint32_t> heads_;
  std::vector<uint8_t> matched_;
  // The probe batch being joined.
  ColumnBatch probe_;
  BatchKeys probe_keys_;
  size_t probe_pos_ = 0;
  bool probe_done_ = false;
  size_t unmatched_pos_ = 0;
  // Past the limit: both inputs in partitions, and the join of the pair being handed out.
  std::unique_ptr<SpilledPartitions> build_parts_, probe_parts_;
  size_t next_part_ = 0;
  size_t null_rows_ = 0;  // rows with NULL keys, dealt round the partitions
  std::unique_ptr<HashJoinOperator> current_;
  // Past the limit with rows keys cannot split: both inputs in spill files, joined a chunk of
  // build rows (segments of build_file_) at a time; which probe rows joined, by their place.
  std::unique_ptr<SpillFile> build_file_, probe_file_;
  size_t chunk_rows_ = 0;
  size_t next_segment_ = 0;
  std::vector<uint8_t> probe_matched_all_;
  size_t unmatched_segment_ = 0;
  // A chunk's join: where it marks the probe rows that joined (by their place in its probe
  // input: probe_base_ rows came before probe_), or null.
  std::vector<uint8_t>* probe_matched_ = nullptr;
  size_t probe_base_ = 0;
  MemoryCharge charge_;  // what the build side holds, in the process's budget
};

}  // namespace

OperatorPtr MakeHashJoin(OperatorPtr left, OperatorPtr right, HashJoinSpec spec) {
  return std::make_unique<HashJoinOperator>(std::move(left), std::move(right), std::move(spec));
}

}  // namespace tributary::sql
