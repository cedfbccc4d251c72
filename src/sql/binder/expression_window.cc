// The binder's window functions (OVER) and aggregates.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <set>

#include "common/datetime.h"
#include "common/stack_guard.h"
#include "common/strings.h"
#include "options/option_values.h"
#include "sql/binder/cast.h"
#include "sql/binder/correlated.h"
#include "sql/binder/expression.h"
#include "sql/binder/expression_internal.h"
#include "sql/binder/functions.h"

namespace tributary::sql {

namespace {

// Whether `pred` holds for `e` or a node under it.
template <typename Pred>
bool AnyNode(const Expr& e, const Pred& pred) {
  if (pred(e)) return true;
  for (const auto& a : e.args) {
    if (AnyNode(*a, pred)) return true;
  }
  return false;
}

}  // namespace

bool ContainsWindow(const Expr& e) {
  return AnyNode(e, [](const Expr& x) { return x.over != nullptr; });
}

bool ContainsSubquery(const Expr& e) {
  return AnyNode(e, [](const Expr& x) { return x.subquery != nullptr; });
}

Result<BoundExprPtr> Binder::BindWindow(const Expr& e) {
  const std::string key = ExprToString(e);
  const size_t width = windows_->input->columns.size();
  for (size_t i = 0; i < windows_->calls.size(); i++) {
    if (windows_->calls[i].key == key) {
      auto ref = NewExpr(BoundKind::kColumn, windows_->calls[i].type, e.pos);
      ref->column = static_cast<int>(width + i);
      return ref;
    }
  }
  const WindowSpec& spec = *e.over;
  WindowCall call;
  call.function = e.op;
  call.key = key;
  Binder inner(windows_->input);
  for (const auto& a : e.args) {
    if (ContainsWindow(*a) || ContainsAggregate(*a)) {
      return ErrorAt(a->pos, "the arguments of window function " + e.op +
                                 " cannot hold aggregates or other window functions");
    }
  }
  auto arity = [&](size_t lo, size_t hi) -> Status {
    if (e.star_arg || e.args.size() < lo || e.args.size() > hi) {
      return ErrorAt(e.pos, "window function " + e.op + " takes " +
                                (lo == hi ? std::to_string(lo)
                                          : std::to_string(lo) + " to " + std::to_string(hi)) +
                                " argument(s)");
    }
    return Status::OK();
  };
  if (IsAggregateFunction(e.op) && e.op != "FIRST_VALUE" && e.op != "LAST_VALUE") {
    // The aggregate as GROUP BY binds it (argument checks, result type), over the input rows.
    // (FIRST_VALUE and LAST_VALUE over a window are the frame's first and last rows' values,
    // NULL or not; as aggregates they skip NULLs, as Flink's.)
    AggregateBinding one;
    one.input = windows_->input;
    Binder agg_binder(windows_->input, &one);
    ExprPtr plain = e.Clone();
    plain->over.reset();
    TRIB_ASSIGN_OR_RETURN(BoundExprPtr ignored, agg_binder.Bind(*plain));
    (void)ignored;
    if (one.calls.size() != 1 || one.calls[0].distinct) {
      return NotSupportedAt(e.pos, "DISTINCT in a window aggregate is not supported yet");
    }
    call.aggregate = std::move(one.calls[0]);
    call.type = call.aggregate.type;
  } else if (e.op == "ROW_NUMBER" || e.op == "RANK" || e.op == "DENSE_RANK") {
    TRIB_RETURN_NOT_OK(arity(0, 0));
    if (e.op != "ROW_NUMBER" && spec.order_by.empty()) {
      return ErrorAt(e.pos, e.op + " needs ORDER BY in its window");
    }
    call.type = DataType::BigInt().NotNull();
  } else if (e.op == "LAG" || e.op == "LEAD") {
    TRIB_RETURN_NOT_OK(arity(1, 3));
    TRIB_ASSIGN_OR_RETURN(BoundExprPtr v, inner.Bind(*e.args[0]));
    call.type = v->type.WithNullable(true);
    call.args.push_back(std::move(v));
    if (e.args.size() > 1) {
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr n, inner.Bind(*e.args[1]));
      if (!n->IsConstant() || !n->type.IsInteger() || n->constant.is_null() ||
          n->constant.int_value() < 0) {
        return ErrorAt(e.args[1]->pos, e.op + "'s offset must be a non-negative integer constant");
      }
      call.args.push_back(std::move(n));
    } else {
      call.args.push_back(MakeConstant(Value::Int(1), DataType::Int().NotNull(), e.pos));
    }
    if (e.args.size() > 2) {
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr d, inner.Bind(*e.args[2]));
      TRIB_ASSIGN_OR_RETURN(d, CastTo(std::move(d), call.type, 0));
      call.args.push_back(std::move(d));
    }
  } else if (e.op == "FIRST_VALUE" || e.op == "LAST_VALUE") {
    TRIB_RETURN_NOT_OK(arity(1, 1));
    TRIB_ASSIGN_OR_RETURN(BoundExprPtr v, inner.Bind(*e.args[0]));
    call.type = v->type.WithNullable(true);
    call.args.push_back(std::move(v));
  } else {
    return NotSupportedAt(e.pos, e.op +
                                     " is not a window function (window functions: "
                                     "ROW_NUMBER, RANK, DENSE_RANK, LAG, LEAD, FIRST_VALUE, "
                                     "LAST_VALUE, COUNT, SUM, MIN, MAX, AVG)");
  }
  for (const auto& p : spec.partition_by) {
    if (ContainsWindow(*p) || ContainsAggregate(*p)) {
      return ErrorAt(p->pos, "PARTITION BY cannot hold aggregates or window functions");
    }
    TRIB_ASSIGN_OR_RETURN(BoundExprPtr b, inner.Bind(*p));
    call.partition_by.push_back(std::move(b));
    call.partition_key += ExprToString(*p) + "\n";
  }
  for (const auto& o : spec.order_by) {
    if (ContainsWindow(*o.expr) || ContainsAggregate(*o.expr)) {
      return ErrorAt(o.expr->pos, "a window's ORDER BY cannot hold aggregates or window functions");
    }
    TRIB_ASSIGN_OR_RETURN(BoundExprPtr b, inner.Bind(*o.expr));
    call.order_by.push_back(std::move(b));
    call.descending.push_back(o.descending);
    call.nulls_first.push_back(o.nulls_first.value_or(!o.descending));
  }
  call.has_frame = spec.has_frame;
  call.rows = spec.rows;
  call.start = spec.start;
  call.end = spec.end;
  if (spec.has_frame) {
    using K = FrameBound::Kind;
    auto has_offset = [](const FrameBound& b) {
      return b.kind == K::kPreceding || b.kind == K::kFollowing;
    };
    if (spec.rows && (spec.start.interval || spec.end.interval)) {
      return ErrorAt(spec.pos, "a ROWS frame counts rows; an INTERVAL offset needs a RANGE frame");
    }
    if (!spec.rows && (has_offset(spec.start) || has_offset(spec.end))) {
      // RANGE n PRECEDING: the rows whose ORDER BY value lies within n of the current row's.
      if (call.order_by.size() != 1) {
        return ErrorAt(spec.pos, "a RANGE frame with an offset needs exactly one ORDER BY key");
      }
      const DataType& key = call.order_by[0]->type;
      const bool interval = spec.start.interval || spec.end.interval;
      if (has_offset(spec.start) && has_offset(spec.end) &&
          spec.start.interval != spec.end.interval) {
        return ErrorAt(spec.pos, "a RANGE frame's offsets are both INTERVALs or both numbers");
      }
      if (interval) {
        if (!key.IsTimestamp() && key.id != TypeId::kDate) {
          return ErrorAt(spec.pos,
                         "a RANGE frame with an INTERVAL offset needs a TIMESTAMP or "
                         "DATE ORDER BY key, not " +
                             key.ToString());
        }
        for (const FrameBound* b : {&spec.start, &spec.end}) {
          if (key.id == TypeId::kDate && has_offset(*b) && b->offset % 86400000 != 0) {
            return ErrorAt(spec.pos,
                           "a RANGE frame over a DATE takes whole days, not " + b->interval_text);
          }
        }
      } else if (!key.IsNumeric()) {
        return ErrorAt(
            spec.pos,
            "a RANGE frame with a numeric offset needs a numeric ORDER BY "
            "key, not " +
                key.ToString() +
                (key.IsTimestamp() || key.id == TypeId::kDate ? " (use an INTERVAL offset)" : ""));
      }
    }
    auto rank = [](const FrameBound& b) {
      switch (b.kind) {
        case K::kUnboundedPreceding:
          return -2.0;
        case K::kPreceding:
          return -1.0 / (1.0 + static_cast<double>(b.offset)) - 0.5;
        case K::kCurrentRow:
          return 0.0;
        case K::kFollowing:
          return 0.5 - 1.0 / (1.0 + static_cast<double>(b.offset));
        case K::kUnboundedFollowing:
          return 2.0;
      }
      return 0.0;
    };
    if (spec.start.kind == K::kUnboundedFollowing || spec.end.kind == K::kUnboundedPreceding ||
        (spec.start.kind == spec.end.kind && spec.start.kind == K::kPreceding &&
         spec.start.offset < spec.end.offset) ||
        (spec.start.kind == spec.end.kind && spec.start.kind == K::kFollowing &&
         spec.start.offset > spec.end.offset) ||
        (spec.start.kind != spec.end.kind && rank(spec.start) > rank(spec.end))) {
      return ErrorAt(spec.pos, "the window frame starts after it ends");
    }
  }
  windows_->calls.push_back(std::move(call));
  auto ref = NewExpr(BoundKind::kColumn, windows_->calls.back().type, e.pos);
  ref->column = static_cast<int>(width + windows_->calls.size() - 1);
  return ref;
}

Result<BoundExprPtr> Binder::BindAggregate(const Expr& e) {
  AggregateCall call;
  call.function = e.op;
  call.distinct = e.distinct;
  call.star = e.star_arg;
  call.key = ExprToString(e);
  if (e.star_arg) {
    if (e.op != "COUNT") return ErrorAt(e.pos, "only COUNT accepts '*'");
  } else if (e.op == "COUNT" && e.distinct && e.args.size() > 1) {
    // COUNT(DISTINCT a, b, ...): the distinct tuples with no NULL, counted as
    // CASE WHEN a IS NULL OR b IS NULL ... THEN NULL ELSE ROW(a, b, ...) END.
    auto make = [&](ExprKind kind) {
      auto x = std::make_unique<Expr>();
      x->kind = kind;
      x->pos = e.pos;
      return x;
    };
    ExprPtr any_null;
    auto row = make(ExprKind::kFunction);
    row->op = "ROW";
    for (const auto& a : e.args) {
      if (ContainsAggregate(*a)) return ErrorAt(a->pos, "aggregate functions cannot be nested");
      auto is_null = make(ExprKind::kIsNull);
      is_null->args.push_back(a->Clone());
      if (any_null) {
        auto either = make(ExprKind::kBinary);
        either->op = "OR";
        either->args.push_back(std::move(any_null));
        either->args.push_back(std::move(is_null));
        any_null = std::move(either);
      } else {
        any_null = std::move(is_null);
      }
      row->args.push_back(a->Clone());
    }
    auto tuple = make(ExprKind::kCase);
    tuple->args.push_back(std::move(any_null));
    tuple->args.push_back(make(ExprKind::kLiteral));  // NULL
    tuple->args.push_back(std::move(row));
    tuple->has_else = true;
    Binder inner(agg_->input);
    TRIB_ASSIGN_OR_RETURN(call.arg, inner.Bind(*tuple));
  } else {
    const size_t most = e.op == "LISTAGG" ? 2 : 1;
    if (e.args.empty() || e.args.size() > most) {
      return ErrorAt(e.pos, "aggregate function " + e.op + " takes " +
                                (most == 1 ? std::string("1 argument") : "1 or 2 arguments") +
                                ", got " + std::to_string(e.args.size()));
    }
    if (e.args.size() == 2) {
      // LISTAGG(x, separator): a string constant.
      const Expr& sep = *e.args[1];
      if (sep.kind != ExprKind::kLiteral || sep.literal_kind != LiteralKind::kString) {
        return ErrorAt(sep.pos, "LISTAGG's separator must be a string literal");
      }
      call.separator = sep.text;
    }
    if (ContainsAggregate(*e.args[0])) {
      return ErrorAt(e.args[0]->pos, "aggregate functions cannot be nested");
    }
    Binder inner(agg_->input);
    TRIB_ASSIGN_OR_RETURN(call.arg, inner.Bind(*e.args[0]));
    if (call.arg->null_literal) {
      TRIB_ASSIGN_OR_RETURN(call.arg, CastTo(std::move(call.arg), DataType::Int(), 0));
    }
  }
  const DataType in = call.arg ? call.arg->type.WithNullable(true) : DataType::BigInt();
  if (call.function == "LISTAGG") {
    TRIB_ASSIGN_OR_RETURN(call.arg, CastTo(std::move(call.arg), DataType::String(),
                                           static_cast<int>(CastMode::kExplicit)));
    call.type = DataType::String();
  } else if (call.function == "COUNT") {
    call.type = DataType::BigInt().NotNull();
  } else if (call.function == "MIN" || call.function == "MAX" || call.function == "FIRST_VALUE" ||
             call.function == "LAST_VALUE") {
    call.type = in;
  } else if (IsVarianceFunction(call.function)) {
    if (!in.IsNumeric()) {
      return ErrorAt(e.pos, call.function + " needs a number, not " + TypeName(in));
    }
    call.type = DataType::Double();
  } else if (call.function == "SUM" || call.function == "AVG") {
    if (!in.IsNumeric()) {
      return ErrorAt(e.pos, call.function + " needs a number, not " + TypeName(in));
    }
    if (in.IsFloating()) {
      call.type = DataType::Double();
    } else if (in.id == TypeId::kDecimal) {
      call.type = call.function == "SUM" ? DataType::Decimal(38, in.scale)
                                         : DataType::Decimal(38, std::max(in.scale, 6));
    } else {
      call.type = call.function == "SUM" ? DataType::BigInt() : DataType::Double();
    }
  }
  int slot = -1;
  for (size_t i = 0; i < agg_->calls.size(); ++i) {
    if (agg_->calls[i].key == call.key) slot = static_cast<int>(i);
  }
  DataType type = call.type;
  if (slot < 0) {
    slot = static_cast<int>(agg_->calls.size());
    agg_->calls.push_back(std::move(call));
  }
  auto ref = NewExpr(BoundKind::kColumn, type, e.pos);
  ref->column = static_cast<int>(agg_->keys.size()) + slot;
  return ref;
}

}  // namespace tributary::sql
