// Correlated subqueries rewritten as joins (query_internal.h, Decorrelate). A subquery that reads a
// column of the query around it would have to run once per outer row; instead its rows are
// computed once, grouped by the columns the correlation compares, and joined to the outer rows on
// those columns: the usual decorrelation of EXISTS, IN and scalar aggregate subqueries (Flink's
// SubQueryDecorrelator, DuckDB's FlattenDependentJoins do the same for these forms).
//
//   WHERE [NOT] EXISTS (SELECT ... FROM s WHERE s.k = o.k AND p)
//     -> JOIN (SELECT DISTINCT s.k AS $k1, TRUE AS $m FROM s WHERE p) $sqN ON o.k = $sqN.$k1
//        (NOT EXISTS: LEFT JOIN ... WHERE $sqN.$m IS NULL)
//   WHERE x IN (SELECT c FROM s WHERE s.k = o.k AND p)
//     -> the EXISTS form with c = x as one more key
//   (SELECT agg(...) FROM s WHERE s.k = o.k AND p), anywhere in WHERE or the select list
//     -> LEFT JOIN (SELECT s.k AS $k1, agg(...) AS $v FROM s WHERE p GROUP BY s.k) $sqN
//        ON o.k = $sqN.$k1, the subquery replaced by $sqN.$v (COUNT: COALESCE($sqN.$v, 0))
//
// The joins are appended after the query's own (a WHERE condition filters the joined rows, so
// an inner join at the end filters them the same way), and their columns are hidden from `*`.
// Correlation must be a top-level equality of the subquery's WHERE between an expression of its
// own columns and one of the outer query's; any other correlated subquery (other comparisons,
// outer columns in its select list, GROUP BY, LIMIT, NOT IN, ...) is left as it is, and the
// binder runs it per row (correlated.h).
#include <string>
#include <utility>
#include <vector>

#include "sql/binder/expression.h"
#include "sql/parser/lexer.h"
#include "sql/planner/query.h"
#include "sql/planner/query_internal.h"

namespace tributary::sql::planner {

namespace {

std::unique_ptr<SelectStmt> CloneSelect(const SelectStmt& s);

TableRef CloneTableRef(const TableRef& t) {
  TableRef c;
  c.name = t.name;
  c.hints = t.hints;
  c.hints_pos = t.hints_pos;
  if (t.subquery) c.subquery = CloneSelect(*t.subquery);
  c.alias = t.alias;
  c.column_aliases = t.column_aliases;
  if (t.system_time) c.system_time = t.system_time->Clone();
  for (const auto& p : t.partition) {
    c.partition.push_back({p.column, p.value ? p.value->Clone() : nullptr, p.pos});
  }
  c.pos = t.pos;
  return c;
}

JoinClause CloneJoin(const JoinClause& j) {
  JoinClause c;
  c.kind = j.kind;
  c.table = CloneTableRef(j.table);
  if (j.on) c.on = j.on->Clone();
  c.using_columns = j.using_columns;
  c.natural = j.natural;
  c.using_pos = j.using_pos;
  c.pos = j.pos;
  c.hidden = j.hidden;
  return c;
}

std::unique_ptr<SelectStmt> CloneSelect(const SelectStmt& s) {
  auto c = std::make_unique<SelectStmt>();
  c->pos = s.pos;
  for (const auto& row : s.values) {
    std::vector<ExprPtr> r;
    for (const auto& e : row) r.push_back(e->Clone());
    c->values.push_back(std::move(r));
  }
  c->distinct = s.distinct;
  for (const auto& it : s.items) c->items.push_back({it.expr->Clone(), it.alias, it.pos});
  if (s.from) c->from = CloneTableRef(*s.from);
  for (const auto& j : s.joins) c->joins.push_back(CloneJoin(j));
  if (s.where) c->where = s.where->Clone();
  for (const auto& g : s.group_by) c->group_by.push_back(g->Clone());
  if (s.having) c->having = s.having->Clone();
  for (const auto& o : s.order_by)
    c->order_by.push_back({o.expr->Clone(), o.descending, o.nulls_first});
  c->limit = s.limit;
  c->offset = s.offset;
  for (const auto& op : s.set_operands) {
    c->set_operands.push_back(
        {op.kind, op.all, op.query ? CloneSelect(*op.query) : nullptr, op.pos});
  }
  c->with = s.with;  // the WITH queries themselves are shared
  return c;
}

ExprPtr NewExpr(ExprKind kind, const Pos& pos) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->pos = pos;
  return e;
}

ExprPtr ColumnRef(const std::string& qualifier, const std::string& name, const Pos& pos) {
  ExprPtr e = NewExpr(ExprKind::kColumn, pos);
  e->names = {qualifier, name};
  return e;
}

ExprPtr WithArgs(ExprPtr e, std::vector<ExprPtr> args) {
  e->depth = 1;
  for (const auto& a : args) e->depth = std::max(e->depth, a->depth + 1);
  e->args = std::move(args);
  return e;
}

ExprPtr Binary(const std::string& op, ExprPtr a, ExprPtr b, const Pos& pos) {
  ExprPtr e = NewExpr(ExprKind::kBinary, pos);
  e->op = op;
  std::vector<ExprPtr> args;
  args.push_back(std::move(a));
  args.push_back(std::move(b));
  return WithArgs(std::move(e), std::move(args));
}

// The conjuncts ANDed together (null when there are none).
ExprPtr AndAll(std::vector<ExprPtr> parts) {
  ExprPtr out;
  for (auto& p : parts) {
    if (!out) {
      out = std::move(p);
    } else {
      const Pos pos = out->pos;
      out = Binary("AND", std::move(out), std::move(p), pos);
    }
  }
  return out;
}

// `e`'s top-level conjuncts (AND flattened), taken over.
void TakeConjuncts(ExprPtr e, std::vector<ExprPtr>* out) {
  if (e->kind == ExprKind::kBinary && e->op == "AND") {
    TakeConjuncts(std::move(e->args[0]), out);
    TakeConjuncts(std::move(e->args[1]), out);
    return;
  }
  out->push_back(std::move(e));
}

// Whether `e`, an expression over aggregates, is NULL when computed over no rows: an aggregate
// other than COUNT (NULL over no rows), constants, and arithmetic, negation and casts of such
// with at least one aggregate.
bool NullOnEmpty(const Expr& e) {
  if (e.kind == ExprKind::kFunction && IsAggregateFunction(e.op) && !e.over) return e.op != "COUNT";
  if (e.kind == ExprKind::kLiteral) return false;
  const bool arithmetic =
      (e.kind == ExprKind::kBinary &&
       (e.op == "+" || e.op == "-" || e.op == "*" || e.op == "/" || e.op == "%")) ||
      (e.kind == ExprKind::kUnary && e.op == "-") || e.kind == ExprKind::kCast;
  if (!arithmetic) return false;
  bool null_arg = false;
  for (const auto& a : e.args) {
    if (NullOnEmpty(*a)) {
      null_arg = true;
    } else if (ContainsAggregate(*a) || a->kind != ExprKind::kLiteral) {
      return false;  // another operand that is not a plain constant
    }
  }
  return null_arg;
}

// The columns the FROM clause of `s` opens, with their qualifiers.
Result<Scope> FromScope(const QueryContext& session, const SelectStmt& s) {
  Scope scope;
  auto add = [&](const TableRef& ref) -> Status {
    TRIB_ASSIGN_OR_RETURN(Source src, OpenSource(session, ref));
    for (const auto& f : src.fields) scope.columns.push_back({f.name, src.qualifier, f.type});
    return Status::OK();
  };
  TRIB_RETURN_NOT_OK(add(*s.from));
  for (const auto& j : s.joins) TRIB_RETURN_NOT_OK(add(j.table));
  return scope;
}

// Where the column references of `e` resolve: in the subquery's own columns (`inner`), or, when
// unknown there, in the outer query's (`outer`; unknown in both: the subquery's error).
// References inside nested subqueries are not looked at.
struct Reads {
  bool inner = false;
  bool outer = false;
};
Status CollectReads(const Expr& e, const Scope& inner, const Scope& outer, Reads* reads) {
  if (e.kind == ExprKind::kColumn) {
    auto r = inner.Resolve(e.names, e.pos);
    if (r.ok()) {
      reads->inner = true;
    } else if (r.status().message().find("unknown column") != std::string::npos &&
               outer.Resolve(e.names, e.pos).ok()) {
      reads->outer = true;
    } else if (r.status().message().find("unknown column") != std::string::npos &&
               ResolvesInOuterFrame(e.names, e.pos)) {
      // A column of a query further out (this query is itself run per row): a constant.
    } else {
      return r.status();  // unknown anywhere, or ambiguous inside the subquery
    }
  }
  for (const auto& a : e.args) TRIB_RETURN_NOT_OK(CollectReads(*a, inner, outer, reads));
  return Status::OK();
}

// How subquery `s` depends on the query around it.
struct Correlation {
  bool correlated = false;
  // Reads the outer query otherwise than by WHERE equalities: left to run per row.
  bool general = false;
  std::vector<ExprPtr> inner_keys, outer_keys;  // s's expression = the outer query's, pairwise
  std::vector<ExprPtr> rest;                    // s's WHERE conjuncts that read only s
};

Result<Correlation> Analyze(const QueryContext& session, const SelectStmt& s, const Scope& outer) {
  Correlation c;
  if (!s.from || !s.set_operands.empty() || !s.values.empty() || !s.where) return c;
  // Subqueries whose columns this simple scope would not resolve as the planner does (their own
  // WITH queries, USING / NATURAL joins) are left to the regular path, which runs them when
  // uncorrelated and names the outer column when not.
  if (!s.with.empty()) return c;
  for (const auto& j : s.joins) {
    if (j.natural || !j.using_columns.empty()) return c;
  }
  // The subquery's own columns, as its FROM clause opens them.
  auto opened = FromScope(session, s);
  if (!opened.ok()) return c;
  const Scope inner = std::move(*opened);
  auto collect = [&](const Expr& e, Reads* reads) { return CollectReads(e, inner, outer, reads); };
  std::vector<const Expr*> parts;
  SplitConjuncts(*s.where, &parts);
  for (const Expr* part : parts) {
    Reads reads;
    TRIB_RETURN_NOT_OK(collect(*part, &reads));
    if (!reads.outer) {
      c.rest.push_back(part->Clone());
      continue;
    }
    c.correlated = true;
    bool paired = false;
    if (part->kind == ExprKind::kBinary && part->op == "=") {
      Reads a, b;
      TRIB_RETURN_NOT_OK(collect(*part->args[0], &a));
      TRIB_RETURN_NOT_OK(collect(*part->args[1], &b));
      const bool a_inner = a.inner && !a.outer, a_outer = a.outer && !a.inner;
      const bool b_inner = b.inner && !b.outer, b_outer = b.outer && !b.inner;
      if ((a_inner && b_outer) || (b_inner && a_outer)) {
        c.inner_keys.push_back(part->args[a_inner ? 0 : 1]->Clone());
        c.outer_keys.push_back(part->args[a_inner ? 1 : 0]->Clone());
        paired = true;
      }
    }
    if (!paired) c.general = true;
  }
  if (!c.correlated) return c;
  // The rest of the subquery must not read the outer query.
  auto reads_outer = [&](const Expr& e) -> Result<bool> {
    Reads r;
    TRIB_RETURN_NOT_OK(collect(e, &r));
    return r.outer;
  };
  std::vector<const Expr*> others;
  for (const auto& it : s.items) {
    if (it.expr->kind != ExprKind::kStar) others.push_back(it.expr.get());
  }
  for (const auto& g : s.group_by) others.push_back(g.get());
  if (s.having) others.push_back(s.having.get());
  for (const auto& j : s.joins) {
    if (j.on) others.push_back(j.on.get());
  }
  for (const Expr* e : others) {
    TRIB_ASSIGN_OR_RETURN(bool outer, reads_outer(*e));
    c.general = c.general || outer;
  }
  // Subqueries inside it may read the outer query too (CollectReads does not look in them).
  others.push_back(s.where.get());
  for (const Expr* e : others) c.general = c.general || ContainsSubquery(*e);
  return c;
}

// Rewrites one query; `n` numbers the joins it adds ($sq1, $sq2, ...).
class Rewriter {
 public:
  Rewriter(const QueryContext& session, const Scope* outer, SelectStmt* out)
      : session_(session), outer_(*outer), out_(out) {}
  bool changed() const { return n_ > 0; }

  // A WHERE conjunct: [NOT] EXISTS or IN over a correlated subquery becomes a join (true: the
  // conjunct is gone; `kept` may get its replacement); else scalar subqueries inside it.
  Result<bool> Conjunct(ExprPtr* e, std::vector<ExprPtr>* kept) {
    const Expr* ex = e->get();
    bool negated = false;
    if (ex->kind == ExprKind::kUnary && ex->op == "NOT" && ex->args[0]->kind == ExprKind::kExists) {
      negated = true;
      ex = ex->args[0].get();
    }
    if (ex->kind == ExprKind::kExists) {
      return Semi(*ex->subquery, ex->negated != negated, nullptr, ex->pos, kept);
    }
    if (ex->kind == ExprKind::kIn && ex->subquery) {
      if (!ex->negated && !negated)
        return Semi(*ex->subquery, false, ex->args[0].get(), ex->pos, kept);
      // NOT IN over a correlated subquery runs per row (its NULL rules are not a join's).
    }
    TRIB_RETURN_NOT_OK(Scalars(e));
    return false;
  }

  // Correlated scalar subqueries anywhere in `*e` (not inside nested subqueries) become a column
  // of a joined grouped subquery.
  Status Scalars(ExprPtr* e) {
    Expr& x = **e;
    if (x.kind == ExprKind::kSubquery) {
      const SelectStmt& s = *x.subquery;
      TRIB_ASSIGN_OR_RETURN(Correlation c, Analyze(session_, s, outer_));
      if (!c.correlated || c.general) return Status::OK();  // uncorrelated, or run per row
      const bool one_aggregate = s.items.size() == 1 && s.items[0].expr->kind != ExprKind::kStar &&
                                 ContainsAggregate(*s.items[0].expr) &&
                                 !ContainsWindow(*s.items[0].expr);
      if (!one_aggregate || !s.group_by.empty() || s.having || s.limit || s.offset > 0 ||
          s.distinct) {
        return Status::OK();  // not one aggregate: run per row
      }
      const Expr& item = *s.items[0].expr;
      const bool is_count = item.kind == ExprKind::kFunction && item.op == "COUNT" && !item.over;
      // Outer rows without a group get NULL from the LEFT join: right for an aggregate that is
      // NULL over no rows and for arithmetic over such (COUNT gets its 0 back); an expression
      // that turns NULL into a value (COALESCE(SUM(x), 0), x IS NULL, CASE, COUNT + 1) would not
      // be.
      if (!is_count && !NullOnEmpty(item)) return Status::OK();  // run per row
      auto d = Derived(s, &c);
      for (const auto& k : c.inner_keys) d->group_by.push_back(k->Clone());
      d->items.push_back({item.Clone(), "$v", item.pos});
      const std::string alias = Join(std::move(d), JoinKind::kLeft, &c, x.pos);
      ExprPtr value = ColumnRef(alias, "$v", x.pos);
      if (is_count) {
        ExprPtr zero = NewExpr(ExprKind::kLiteral, x.pos);
        zero->literal_kind = LiteralKind::kInteger;
        zero->text = "0";
        ExprPtr call = NewExpr(ExprKind::kFunction, x.pos);
        call->op = "COALESCE";
        std::vector<ExprPtr> args;
        args.push_back(std::move(value));
        args.push_back(std::move(zero));
        value = WithArgs(std::move(call), std::move(args));
      }
      *e = std::move(value);
      return Status::OK();
    }
    for (auto& a : x.args) TRIB_RETURN_NOT_OK(Scalars(&a));
    return Status::OK();
  }

 private:
  // [NOT] EXISTS (s), or `left` IN (s).
  Result<bool> Semi(const SelectStmt& s, bool negated, const Expr* left, const Pos& pos,
                    std::vector<ExprPtr>* kept) {
    TRIB_ASSIGN_OR_RETURN(Correlation c, Analyze(session_, s, outer_));
    if (!c.correlated || c.general) return false;  // uncorrelated, or run per row
    bool aggregates = false;
    for (const auto& it : s.items) {
      aggregates = aggregates || (it.expr->kind != ExprKind::kStar &&
                                  (ContainsAggregate(*it.expr) || ContainsWindow(*it.expr)));
    }
    if (aggregates || !s.group_by.empty() || s.having || s.limit || s.offset > 0) {
      return false;  // run per row
    }
    if (left) {
      if (s.items.size() != 1 || s.items[0].expr->kind == ExprKind::kStar) {
        return ErrorAt(pos, "the subquery of IN must return one column");
      }
      c.inner_keys.push_back(s.items[0].expr->Clone());
      c.outer_keys.push_back(left->Clone());
    }
    auto d = Derived(s, &c);
    d->distinct = true;
    ExprPtr mark = NewExpr(ExprKind::kLiteral, pos);
    mark->literal_kind = LiteralKind::kBool;
    mark->text = "TRUE";
    d->items.push_back({std::move(mark), "$m", pos});
    const std::string alias =
        Join(std::move(d), negated ? JoinKind::kLeft : JoinKind::kInner, &c, pos);
    if (negated) {
      ExprPtr is_null = NewExpr(ExprKind::kIsNull, pos);
      std::vector<ExprPtr> args;
      args.push_back(ColumnRef(alias, "$m", pos));
      kept->push_back(WithArgs(std::move(is_null), std::move(args)));
    }
    return true;
  }

  // The subquery `s` without its correlated conditions, selecting its keys as $k1, $k2, ...
  std::unique_ptr<SelectStmt> Derived(const SelectStmt& s, Correlation* c) {
    auto d = std::make_unique<SelectStmt>();
    d->pos = s.pos;
    d->from = CloneTableRef(*s.from);
    for (const auto& j : s.joins) d->joins.push_back(CloneJoin(j));
    d->with = s.with;
    d->where = AndAll(std::move(c->rest));
    for (size_t i = 0; i < c->inner_keys.size(); i++) {
      d->items.push_back(
          {c->inner_keys[i]->Clone(), "$k" + std::to_string(i + 1), c->inner_keys[i]->pos});
    }
    return d;
  }

  // Joins `d` to the query (after its own joins) on outer key = $kI; returns its alias.
  std::string Join(std::unique_ptr<SelectStmt> d, JoinKind kind, Correlation* c, const Pos& pos) {
    const std::string alias = "$sq" + std::to_string(++n_);
    JoinClause jc;
    jc.kind = kind;
    jc.table.subquery = std::move(d);
    jc.table.alias = alias;
    jc.table.pos = pos;
    jc.pos = pos;
    jc.hidden = true;
    std::vector<ExprPtr> on;
    for (size_t i = 0; i < c->outer_keys.size(); i++) {
      on.push_back(Binary("=", std::move(c->outer_keys[i]),
                          ColumnRef(alias, "$k" + std::to_string(i + 1), pos), pos));
    }
    jc.on = AndAll(std::move(on));
    out_->joins.push_back(std::move(jc));
    return alias;
  }

  const QueryContext& session_;
  const Scope& outer_;
  SelectStmt* out_;
  int n_ = 0;
};

}  // namespace

Result<std::shared_ptr<const SelectStmt>> Decorrelate(const QueryContext& session,
                                                      const SelectStmt& q) {
  using Out = std::shared_ptr<const SelectStmt>;
  if (!q.values.empty() || !q.set_operands.empty() || !q.from) return Out();
  bool any = q.where && ContainsSubquery(*q.where);
  for (const auto& it : q.items) any = any || ContainsSubquery(*it.expr);
  if (!any) return Out();
  TRIB_ASSIGN_OR_RETURN(const Scope outer, FromScope(session, q));
  std::shared_ptr<SelectStmt> out = CloneSelect(q);
  Rewriter rewriter(session, &outer, out.get());
  if (out->where) {
    std::vector<ExprPtr> conjuncts, kept;
    TakeConjuncts(std::move(out->where), &conjuncts);
    for (auto& c : conjuncts) {
      TRIB_ASSIGN_OR_RETURN(bool gone, rewriter.Conjunct(&c, &kept));
      if (!gone) kept.push_back(std::move(c));
    }
    out->where = AndAll(std::move(kept));
  }
  for (auto& item : out->items) {
    if (item.expr->kind != ExprKind::kStar) TRIB_RETURN_NOT_OK(rewriter.Scalars(&item.expr));
  }
  if (!rewriter.changed()) return Out();
  return Out(std::move(out));
}

namespace {

// GroupBeforeWindows's rewriting of one expression of the select list or ORDER BY: aggregates
// (not window calls) become columns $a<i> of the grouping subquery, group expressions columns
// $g<i>; window calls keep their function, their arguments and specs rewritten.
class GroupedWindowRewriter {
 public:
  struct Key {
    std::string text;
    int column = -1;  // the FROM column a plain column key names
  };
  GroupedWindowRewriter(const Scope* scope, const std::vector<Key>* keys)
      : scope_(scope), keys_(keys) {}
  std::vector<ExprPtr>& aggregates() { return aggregates_; }

  Result<ExprPtr> Rewrite(const Expr& e) {
    const bool window = e.over != nullptr;
    if (e.kind == ExprKind::kFunction && IsAggregateFunction(e.op) && !window) {
      const std::string text = ExprToString(e);
      size_t i = 0;
      while (i < aggregates_.size() && ExprToString(*aggregates_[i]) != text) i++;
      if (i == aggregates_.size()) aggregates_.push_back(e.Clone());
      return Column("$a" + std::to_string(i), e.pos);
    }
    if (!window && e.kind != ExprKind::kLiteral && e.kind != ExprKind::kStar) {
      const std::string text = ExprToString(e);
      int column = -1;
      if (e.kind == ExprKind::kColumn) {
        auto r = scope_->Resolve(e.names, e.pos);
        if (r.ok()) column = *r;
      }
      for (size_t i = 0; i < keys_->size(); i++) {
        if ((*keys_)[i].text == text || (column >= 0 && (*keys_)[i].column == column)) {
          return Column("$g" + std::to_string(i), e.pos);
        }
      }
      if (column >= 0) {
        return ErrorAt(e.pos, "column '" + text +
                                  "' must appear in GROUP BY or be used in an aggregate function");
      }
    }
    auto c = std::make_unique<Expr>();
    c->kind = e.kind;
    c->pos = e.pos;
    c->depth = e.depth;
    c->literal_kind = e.literal_kind;
    c->text = e.text;
    c->names = e.names;
    c->op = e.op;
    c->distinct = e.distinct;
    c->negated = e.negated;
    c->star_arg = e.star_arg;
    c->has_case_operand = e.has_case_operand;
    c->has_else = e.has_else;
    c->type_text = e.type_text;
    c->type_pos = e.type_pos;
    c->subquery = e.subquery;
    for (const auto& a : e.args) {
      TRIB_ASSIGN_OR_RETURN(ExprPtr r, Rewrite(*a));
      c->args.push_back(std::move(r));
    }
    if (window) {
      auto spec = std::make_shared<WindowSpec>();
      spec->has_frame = e.over->has_frame;
      spec->rows = e.over->rows;
      spec->start = e.over->start;
      spec->end = e.over->end;
      spec->pos = e.over->pos;
      spec->text = e.over->text;
      for (const auto& p : e.over->partition_by) {
        TRIB_ASSIGN_OR_RETURN(ExprPtr r, Rewrite(*p));
        spec->partition_by.push_back(std::move(r));
      }
      for (const auto& o : e.over->order_by) {
        OrderItem item;
        TRIB_ASSIGN_OR_RETURN(item.expr, Rewrite(*o.expr));
        item.descending = o.descending;
        item.nulls_first = o.nulls_first;
        spec->order_by.push_back(std::move(item));
      }
      c->over = std::move(spec);
    }
    return c;
  }

 private:
  static ExprPtr Column(std::string name, const Pos& pos) {
    auto c = std::make_unique<Expr>();
    c->kind = ExprKind::kColumn;
    c->names = {std::move(name)};
    c->pos = pos;
    return c;
  }

  const Scope* scope_;
  const std::vector<Key>* keys_;
  std::vector<ExprPtr> aggregates_;
};

}  // namespace

Result<std::shared_ptr<const SelectStmt>> GroupBeforeWindows(const QueryContext& session,
                                                             const SelectStmt& q) {
  using Out = std::shared_ptr<const SelectStmt>;
  if (!q.values.empty() || !q.set_operands.empty() || !q.from) return Out();
  bool windowed = false, grouped = !q.group_by.empty() || q.having != nullptr;
  for (const auto& it : q.items) {
    windowed = windowed || ContainsWindow(*it.expr);
    grouped = grouped || ContainsAggregate(*it.expr);
  }
  for (const auto& o : q.order_by) {
    windowed = windowed || ContainsWindow(*o.expr);
    grouped = grouped || ContainsAggregate(*o.expr);
  }
  if (!windowed || !grouped) return Out();
  TRIB_ASSIGN_OR_RETURN(const Scope scope, FromScope(session, q));
  // The group keys, GROUP BY positions and select-list aliases resolved as the planner does.
  std::vector<GroupedWindowRewriter::Key> keys;
  std::vector<const Expr*> key_exprs;
  for (const auto& group : q.group_by) {
    TRIB_ASSIGN_OR_RETURN(const Expr* g, GroupExpression(q, *group, scope));
    if (ContainsWindow(*g)) return ErrorAt(g->pos, "window functions are not allowed in GROUP BY");
    GroupedWindowRewriter::Key key{ExprToString(*g), -1};
    if (g->kind == ExprKind::kColumn) {
      auto r = scope.Resolve(g->names, g->pos);
      if (r.ok()) key.column = *r;
    }
    keys.push_back(std::move(key));
    key_exprs.push_back(g);
  }
  GroupedWindowRewriter rewriter(&scope, &keys);
  auto outer = std::make_shared<SelectStmt>();
  outer->pos = q.pos;
  outer->distinct = q.distinct;
  outer->limit = q.limit;
  outer->offset = q.offset;
  for (size_t i = 0; i < q.items.size(); i++) {
    const SelectItem& item = q.items[i];
    if (item.expr->kind == ExprKind::kStar) {
      return ErrorAt(item.pos, "'*' cannot be used with GROUP BY or aggregates");
    }
    SelectItem out;
    TRIB_ASSIGN_OR_RETURN(out.expr, rewriter.Rewrite(*item.expr));
    // The name the item has without the rewriting.
    out.alias = !item.alias.empty()                    ? item.alias
                : item.expr->kind == ExprKind::kColumn ? item.expr->names.back()
                                                       : "EXPR$" + std::to_string(i);
    out.pos = item.pos;
    outer->items.push_back(std::move(out));
  }
  for (const auto& o : q.order_by) {
    OrderItem item;
    item.descending = o.descending;
    item.nulls_first = o.nulls_first;
    // An ordinal or an output name keeps its meaning in the outer query.
    const bool output_name =
        o.expr->kind == ExprKind::kColumn && o.expr->names.size() == 1 &&
        std::any_of(outer->items.begin(), outer->items.end(),
                    [&](const SelectItem& it) { return it.alias == o.expr->names[0]; });
    if (IsIntegerLiteral(*o.expr) || output_name) {
      item.expr = o.expr->Clone();
    } else {
      TRIB_ASSIGN_OR_RETURN(item.expr, rewriter.Rewrite(*o.expr));
    }
    outer->order_by.push_back(std::move(item));
  }
  // The grouping subquery: the FROM, WHERE, GROUP BY and HAVING of `q`, its keys and aggregates.
  std::unique_ptr<SelectStmt> inner = CloneSelect(q);
  inner->items.clear();
  inner->order_by.clear();
  inner->limit.reset();
  inner->offset = 0;
  inner->distinct = false;
  inner->group_by.clear();
  for (size_t i = 0; i < key_exprs.size(); i++) {
    inner->group_by.push_back(key_exprs[i]->Clone());
    inner->items.push_back(
        SelectItem{key_exprs[i]->Clone(), "$g" + std::to_string(i), key_exprs[i]->pos});
  }
  for (size_t i = 0; i < rewriter.aggregates().size(); i++) {
    ExprPtr& a = rewriter.aggregates()[i];
    const Pos pos = a->pos;
    inner->items.push_back(SelectItem{std::move(a), "$a" + std::to_string(i), pos});
  }
  if (inner->items.empty()) {
    // Only HAVING aggregates (or none): one column so the subquery has a row per group.
    auto one = std::make_unique<Expr>();
    one->kind = ExprKind::kLiteral;
    one->literal_kind = LiteralKind::kInteger;
    one->text = "1";
    inner->items.push_back(SelectItem{std::move(one), "$one", q.pos});
  }
  TableRef from;
  from.subquery = std::move(inner);
  from.alias = "$grouped";
  from.pos = q.pos;
  outer->from = std::move(from);
  return Out(std::move(outer));
}

}  // namespace tributary::sql::planner
