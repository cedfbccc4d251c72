// What the binder's files (expression.cc, expression_call.cc, expression_subquery.cc,
// expression_window.cc) share. Internal to sql/.
#pragma once

#include "sql/binder/expression.h"

namespace tributary::sql {

// A new bound node of `kind` with `type`, at `pos`.
BoundExprPtr NewExpr(BoundKind kind, const DataType& type, const Pos& pos);
// Replaces an expression whose inputs are all constants by its value.
Result<BoundExprPtr> Fold(BoundExprPtr e);

}  // namespace tributary::sql
