// Planning the joins of a FROM clause (query_internal.h, OpenJoins). The rules, in the order they
// apply (docs/sql.md, "Joins"):
//  1. A WHERE conjunct that reads one input is pushed into that input, unless an outer join may
//     add NULL rows for it (the right input of a LEFT or FULL join, every input before a RIGHT or
//     FULL join): a filter below such a join would keep rows the WHERE drops.
//  2. Another WHERE conjunct joins in the inner join of the last input it reads, when no RIGHT or
//     FULL join follows that join (there it means what it means in WHERE).
//  3. Of a join's conditions, one reading only the join's right input (or no column) filters that
//     input for INNER, CROSS and LEFT joins; an equality between an expression of the inputs
//     before it and one of its right input is a hash key; the rest are checked on each pair of
//     rows with equal keys.
//  4. Every input scans only the columns some expression reads.
//  5. The hash table is built from the input with fewer rows when both are tables whose latest
//     snapshots say how many they hold, else from the right input.
#include <algorithm>
#include <bit>

#include "meta/snapshot.h"
#include "options/option_values.h"
#include "sql/planner/query.h"
#include "sql/planner/query_internal.h"
#include "tributary/options.h"
#include "tributary/table_scan.h"

namespace tributary::sql::planner {

namespace {

// The inputs `e` reads, as a bit mask (bit i: input i).
uint64_t InputsRead(const BoundExpr& e, const std::vector<int>& input_of) {
  std::vector<bool> used(input_of.size(), false);
  CollectColumns(e, &used);
  uint64_t mask = 0;
  for (size_t s = 0; s < used.size(); s++) {
    if (used[s]) mask |= uint64_t{1} << input_of[s];
  }
  return mask;
}

// Rows an input holds, when cheap to know: a table's latest snapshot (or the hinted one) records
// them (before a compaction merges updates, more than the merged rows); rows in memory.
std::optional<int64_t> EstimateRows(const Source& s, std::optional<int64_t> snapshot_id) {
  if (s.table) {
    meta::SnapshotManager snapshots(s.table->path());
    if (!snapshot_id) {
      auto latest = snapshots.LatestId();
      if (!latest.ok()) return std::nullopt;
      if (!*latest) return 0;
      snapshot_id = **latest;
    }
    auto snap = snapshots.Read(*snapshot_id);
    if (!snap.ok()) return std::nullopt;
    return (*snap)->total_record_count;
  }
  if (!s.op && !s.plan) return static_cast<int64_t>(s.rows.size());
  return std::nullopt;
}

bool IsOuterRight(JoinKind k) { return k == JoinKind::kRight || k == JoinKind::kFull; }
bool IsInner(JoinKind k) { return k == JoinKind::kInner || k == JoinKind::kCross; }

Result<int64_t> JoinMemoryLimit(const QueryContext& session) {
  const OptionDef* def = FindOption(OptionScope::kSession, kJoinMemoryLimitKey);
  auto it = session.options().find(kJoinMemoryLimitKey);
  const std::string& text = it != session.options().end() ? it->second : def->default_value;
  return options::ParseMemorySize(text);
}

}  // namespace

Result<OperatorPtr> OpenJoins(const QueryContext& session, std::vector<JoinInput> inputs,
                              size_t width, bool whole_inputs, std::vector<BoundExprPtr>* where,
                              const std::vector<BoundExpr*>& others, std::vector<int>* positions) {
  const size_t n = inputs.size();
  if (n > 64) return Status::NotSupported("a FROM clause of more than 64 tables");
  std::vector<int> input_of(width, 0);
  for (size_t i = 0; i < n; i++) {
    const size_t first = inputs[i].first_slot;
    for (size_t s = first; s < first + inputs[i].source.fields.size(); s++) {
      input_of[s] = static_cast<int>(i);
    }
  }
  // Inputs an outer join may pad with NULL rows, and joins a RIGHT or FULL join follows.
  std::vector<bool> padded(n, false), outer_after(n, false);
  for (size_t j = 1; j < n; j++) {
    const JoinKind k = inputs[j].kind;
    if (k == JoinKind::kLeft || k == JoinKind::kFull) padded[j] = true;
    if (IsOuterRight(k)) {
      for (size_t i = 0; i < j; i++) padded[i] = true;
    }
  }
  for (size_t j = n - 1; j > 0; j--) {
    outer_after[j - 1] = outer_after[j] || IsOuterRight(inputs[j].kind);
  }

  // Rules 1 and 2: WHERE conjuncts.
  std::vector<std::vector<BoundExprPtr>> pushed(n), conds(n);
  std::vector<size_t> from_where(n, 0);  // conds[j] that came from WHERE
  for (size_t j = 1; j < n; j++) conds[j] = std::move(inputs[j].on);
  std::vector<BoundExprPtr> kept;
  for (auto& c : *where) {
    const uint64_t m = InputsRead(*c, input_of);
    if (m != 0 && std::has_single_bit(m) && !padded[std::countr_zero(m)]) {
      pushed[std::countr_zero(m)].push_back(std::move(c));
      continue;
    }
    const size_t last = m == 0 ? 0 : static_cast<size_t>(63 - std::countl_zero(m));
    if (last >= 1 && IsInner(inputs[last].kind) && !outer_after[last]) {
      conds[last].push_back(std::move(c));
      from_where[last]++;
      continue;
    }
    kept.push_back(std::move(c));
  }
  *where = std::move(kept);

  // Rule 3: each join's conditions.
  struct Join {
    std::vector<BoundExprPtr> left_keys, right_keys, residual;
  };
  std::vector<Join> joins(n);
  for (size_t j = 1; j < n; j++) {
    const JoinKind kind = inputs[j].kind;
    const uint64_t right = uint64_t{1} << j, left = right - 1;
    for (auto& c : conds[j]) {
      const uint64_t m = InputsRead(*c, input_of);
      if ((m & ~right) == 0 && !IsOuterRight(kind)) {
        pushed[j].push_back(std::move(c));
        continue;
      }
      if (c->kind == BoundKind::kCompare && c->op == "=") {
        const uint64_t a = InputsRead(*c->args[0], input_of);
        const uint64_t b = InputsRead(*c->args[1], input_of);
        const bool ab = a != 0 && (a & ~left) == 0 && b == right;
        const bool ba = b != 0 && (b & ~left) == 0 && a == right;
        if (ab || ba) {
          joins[j].left_keys.push_back(std::move(c->args[ab ? 0 : 1]));
          joins[j].right_keys.push_back(std::move(c->args[ab ? 1 : 0]));
          continue;
        }
      }
      joins[j].residual.push_back(std::move(c));
    }
  }

  // Rule 4: the columns read.
  std::vector<bool> used(width, false);
  auto use = [&](const BoundExpr& e) { CollectColumns(e, &used); };
  for (const auto& c : *where) use(*c);
  for (const BoundExpr* e : others) use(*e);
  for (size_t i = 0; i < n; i++) {
    for (const auto& c : pushed[i]) use(*c);
    for (const auto& k : joins[i].left_keys) use(*k);
    for (const auto& k : joins[i].right_keys) use(*k);
    for (const auto& r : joins[i].residual) use(*r);
  }

  // Rule 5: the build sides. The first join may build its left input; later joins build their
  // right input (their left input is a join).
  std::vector<std::optional<int64_t>> estimate(n);
  for (size_t i = 0; i < n && i < 2; i++) {
    ScanPlan hinted;
    TRIB_RETURN_NOT_OK(ApplySnapshotHint(inputs[i].source, inputs[i].hints_pos, &hinted));
    estimate[i] = EstimateRows(inputs[i].source, hinted.snapshot_id);
  }
  const bool build_first = n > 1 && estimate[0] && estimate[1] && *estimate[0] < *estimate[1];
  // An input read whole (a build side, or any input under a grouping) is read a split at a time
  // ahead on every core; one streamed through a join is read in slices.
  std::vector<bool> whole(n, whole_inputs);
  for (size_t i = 1; i < n; i++) whole[i] = whole[i] || !(i == 1 && build_first);
  if (build_first) whole[0] = true;

  // Each input's operator, and where the query's columns land in the joined rows.
  std::vector<int> position(width, -1);
  std::vector<OperatorPtr> ops(n);
  std::vector<size_t> offset(n, 0);
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    Source& src = inputs[i].source;
    const size_t first = inputs[i].first_slot, nf = src.fields.size();
    std::vector<int> local(width, -1);  // the query's slots of this input -> its columns
    for (size_t l = 0; l < nf; l++) local[first + l] = static_cast<int>(l);
    for (auto& c : pushed[i]) RemapColumns(c.get(), local);
    std::vector<int> out(nf, -1);  // this input's columns -> its operator's columns
    if (src.table) {
      std::vector<bool> read(used.begin() + first, used.begin() + first + nf);
      ScanPlan scan = PlanScan(src.fields, pushed[i], read);
      TRIB_RETURN_NOT_OK(ApplySnapshotHint(src, inputs[i].hints_pos, &scan));
      for (size_t k = 0; k < scan.projection.size(); k++) out[scan.projection[k]] = k;
      for (auto& c : pushed[i]) RemapColumns(c.get(), out);
      ScanOptions opts = MakeScanOptions(scan, src.dynamic_options, SessionTimeZone(session));
      opts.spill_dirs = Spill(session).dirs;  // merges past 'sort-spill-threshold'
      if (!whole[i]) opts.max_batch_rows = kStreamBatchRows;
      TRIB_ASSIGN_OR_RETURN(std::unique_ptr<TableScan> table_scan, src.table->NewScan(opts));
      std::string description = DescribeScan(src, scan, opts);
      ops[i] = MakeScan(std::move(src.table), std::move(table_scan), std::move(description));
      if (!pushed[i].empty()) {
        const bool all = scan.all_pushed;
        ops[i] = MakeFilter(std::move(ops[i]), std::move(pushed[i]),
                            all ? " (all pushed into the scan, checked again)" : "");
      }
    } else {
      for (size_t l = 0; l < nf; l++) out[l] = static_cast<int>(l);
      TRIB_RETURN_NOT_OK(PushIntoSubquery(&src, &pushed[i]));
      TRIB_RETURN_NOT_OK(
          PruneSubquery(&src, std::vector<bool>(used.begin() + first, used.begin() + first + nf)));
      TRIB_ASSIGN_OR_RETURN(ops[i], OpenSourceOperator(session, &src));
      if (!pushed[i].empty()) ops[i] = MakeFilter(std::move(ops[i]), std::move(pushed[i]));
    }
    offset[i] = total;
    for (size_t l = 0; l < nf; l++) {
      if (out[l] >= 0) position[first + l] = static_cast<int>(total) + out[l];
    }
    total += ops[i]->fields().size();
  }

  // The joins, left-deep in FROM order.
  TRIB_ASSIGN_OR_RETURN(const int64_t memory_limit, JoinMemoryLimit(session));
  OperatorPtr tree = std::move(ops[0]);
  for (size_t j = 1; j < n; j++) {
    HashJoinSpec spec;
    const bool keyed = !joins[j].left_keys.empty();
    spec.kind = inputs[j].kind == JoinKind::kCross && (keyed || !joins[j].residual.empty())
                    ? JoinKind::kInner
                    : inputs[j].kind;
    std::vector<int> right_position(width, -1);
    for (size_t s = 0; s < width; s++) {
      if (position[s] >= static_cast<int>(offset[j])) {
        right_position[s] = position[s] - static_cast<int>(offset[j]);
      }
    }
    for (auto& k : joins[j].left_keys) RemapColumns(k.get(), position);
    for (auto& k : joins[j].right_keys) RemapColumns(k.get(), right_position);
    for (auto& r : joins[j].residual) RemapColumns(r.get(), position);
    spec.left_keys = std::move(joins[j].left_keys);
    spec.right_keys = std::move(joins[j].right_keys);
    spec.residual = std::move(joins[j].residual);
    spec.condition = inputs[j].on_text;
    if (from_where[j] > 0) {
      spec.condition += (spec.condition.empty() ? "" : " AND ") + std::to_string(from_where[j]) +
                        " WHERE condition(s)";
    }
    if (j == 1 && estimate[0] && estimate[1]) {
      spec.build_left = build_first;
      spec.build_reason = "the smaller: " + std::to_string(std::min(*estimate[0], *estimate[1])) +
                          " rows against " + std::to_string(std::max(*estimate[0], *estimate[1]));
    } else {
      spec.build_reason = j == 1 ? "the sizes are not known" : "the left input is a join";
    }
    if (inputs[j].lookup) {
      // A lookup join in batch mode: the table as of now (its latest snapshot) hashed whole, as
      // a full lookup cache holds it.
      spec.build_left = false;
      spec.build_reason = "the lookup join's table";
      spec.note = "lookup join of " + inputs[j].source.name + " at its latest snapshot";
    }
    spec.memory_limit = memory_limit;
    spec.memory_limit_key = kJoinMemoryLimitKey;
    spec.spill = Spill(session);
    tree = MakeHashJoin(std::move(tree), std::move(ops[j]), std::move(spec));
  }
  for (auto& c : *where) RemapColumns(c.get(), position);
  for (BoundExpr* e : others) RemapColumns(e, position);
  if (positions) *positions = std::move(position);
  return tree;
}

}  // namespace tributary::sql::planner
