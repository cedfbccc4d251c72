// A correlated subquery that did not become a join (decorrelate.cc rewrites the common forms):
// the enclosing query's row is an OuterFrame its names read, and the subquery is planned and run
// again for each distinct combination of the outer values it reads (a nested loop with a cache),
// every table at the snapshot it had when the statement was planned. An uncorrelated subquery
// is one with no `columns`: planned while the statement is, run once when it runs (Resolve).
// Thread-safe: evaluations from several threads take turns.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sql/binder/expression.h"

namespace tributary::sql {

struct CorrelatedSubquery {
  ExprKind form = ExprKind::kExists;  // kExists, kSubquery (a scalar), kIn
  bool negated = false;               // NOT EXISTS, NOT IN
  Scope scope;                        // the enclosing query's columns
  std::vector<int> columns;           // the scope columns it reads; their values are args[0..n)
  DataType value_type;                // the subquery's column (kSubquery, kIn)
  DataType common;                    // kIn: the type values are compared in
  // Plans (and unless plan_only, runs) the subquery with `frame` the innermost enclosing row.
  std::function<Result<QueryRows>(OuterFrame* frame, bool plan_only)> run;

  // The subquery's value for `row` of the enclosing query.
  Result<Value> Evaluate(const BoundExpr& e, const Row& row);
  // A subquery reading no enclosing row (no `columns`), run (once) and replaced by what it
  // returned: a constant, or for IN the left side against a hash set of the values.
  Result<BoundExprPtr> Resolve(BoundExprPtr e);

 private:
  struct Outcome {
    bool any = false;  // a row came back
    Value scalar;      // kSubquery: its value
    // kIn: the non-NULL values (AppendKey of `common`)
    std::shared_ptr<std::unordered_set<std::string>> set =
        std::make_shared<std::unordered_set<std::string>>();
    bool has_null = false;  // kIn: a NULL among them
  };
  Result<std::shared_ptr<const Outcome>> Run(const BoundExpr& e, std::vector<Value> outer);

  static constexpr size_t kMaxCached = 4096;  // distinct outer values remembered
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const Outcome>> cache_;
};

}  // namespace tributary::sql
