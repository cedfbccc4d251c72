// The running state of one aggregate call (COUNT, SUM, MIN, MAX, AVG) over some rows, shared by
// grouping (operators.cc) and window aggregates (window.cc).
// Internal to sql/.
// Thread-safety: value types and stateless functions.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sql/binder/expression.h"
#include "tributary/column_batch.h"
#include "tributary/result.h"
#include "tributary/value.h"

namespace tributary::sql {

// A GROUP BY holds one per group and aggregate, so what only a few aggregates need is kept
// apart, allocated on first use: the common state is 96 bytes.
struct AggState {
  struct Rare {
    double mean = 0, m2 = 0;     // variances: Welford's running mean and sum of squared deviations
    std::string list;            // LISTAGG
    std::set<std::string> seen;  // DISTINCT: the values' keys (AppendKey)
  };

  int64_t count = 0;
  double dsum = 0;
  __int128 isum = 0;
  Value best;  // MIN / MAX / FIRST_VALUE / LAST_VALUE
  std::unique_ptr<Rare> rare;
};

// The bytes a state allocates beyond sizeof(AggState) as values are added (DISTINCT's set,
// LISTAGG's text, a MIN / MAX string), roughly: the accumulate functions below add what they
// allocate to `*grown` when it is not null (for memory limits).
//
// Adds the argument value `v` of one row to `st` (NULLs are skipped; COUNT(*) counts rows
// itself).
Status AccumulateValue(const AggregateCall& call, Value v, AggState* st, int64_t* grown = nullptr);
// Adds every row of `col` (the argument column of `call`) to `st`: integer and floating-point
// columns in tight loops, everything else value by value.
Status AccumulateColumn(const AggregateCall& call, const ColumnVector& col, AggState* st,
                        int64_t* grown = nullptr);
// Adds row r of `col` to states[groups[r] * stride + index] for every row: integer,
// floating-point and string columns in tight loops, everything else value by value.
Status AccumulateGroups(const AggregateCall& call, const ColumnVector& col,
                        const std::vector<uint32_t>& groups, size_t stride, size_t index,
                        std::vector<AggState>* states, int64_t* grown = nullptr);
// The call's result for the rows added so far.
Result<Value> Finish(const AggregateCall& call, const AggState& st);

}  // namespace tributary::sql
