#include "sql/binder/computed.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "common/strings.h"
#include "sql/binder/expression.h"
#include "sql/parser/lexer.h"
#include "sql/parser/parser.h"

namespace tributary::sql {

namespace {

constexpr std::string_view kPrefix = "schema.";

TableRef CopyRef(const TableRef& t) {
  TableRef c;
  c.name = t.name;
  c.raw = true;
  c.hints = t.hints;
  c.hints_pos = t.hints_pos;
  c.alias = t.alias;
  // Time travel reads the stored columns so; a lookup join's time column is the caller's.
  if (t.system_time && t.system_time->kind == ExprKind::kLiteral) {
    c.system_time = t.system_time->Clone();
  }
  for (const auto& p : t.partition) {
    c.partition.push_back({p.column, p.value ? p.value->Clone() : nullptr, p.pos});
  }
  c.pos = t.pos;
  return c;
}

}  // namespace

Result<std::vector<ComputedColumn>> ComputedColumnsOf(
    const std::map<std::string, std::string>& options) {
  std::map<int, ComputedColumn> by_position;
  for (const auto& [key, value] : options) {
    if (key.compare(0, kPrefix.size(), kPrefix) != 0) continue;
    std::string_view rest = std::string_view(key).substr(kPrefix.size());
    const size_t dot = rest.find('.');
    if (dot == std::string_view::npos || !AllDigits(rest.substr(0, dot))) continue;
    if (dot > 6) return Status::Invalid("table option '" + key + "': position out of range");
    const int position = std::stoi(std::string(rest.substr(0, dot)));
    ComputedColumn& c = by_position[position];
    c.position = position;
    const std::string_view field = rest.substr(dot + 1);
    if (field == "name") {
      c.name = value;
    } else if (field == "data-type") {
      auto t = DataType::Parse(value);
      if (!t.ok()) return Status::Invalid("table option '" + key + "': " + t.status().message());
      c.type = *t;
    } else if (field == "expr") {
      c.expr = value;
    }
  }
  std::vector<ComputedColumn> out;
  for (auto& [position, c] : by_position) {
    // Metadata columns (schema.N.metadata) have no expression; they are not computed here.
    if (c.expr.empty()) continue;
    if (c.name.empty()) {
      return Status::Invalid("table option 'schema." + std::to_string(position) +
                             ".expr' has no 'schema." + std::to_string(position) + ".name'");
    }
    out.push_back(std::move(c));
  }
  return out;
}

void PutComputedColumn(const ComputedColumn& column, std::map<std::string, std::string>* options) {
  const std::string base = std::string(kPrefix) + std::to_string(column.position) + ".";
  (*options)[base + "name"] = column.name;
  (*options)[base + "data-type"] = column.type.ToString();
  (*options)[base + "expr"] = column.expr;
}

namespace {

// One column among all of a table's: stored, or recorded in options ('schema.<position>.*').
struct AnyColumn {
  std::string name;
  bool stored = true;
  int old_position = -1;                        // not stored: where its options were
  std::map<std::string, std::string> recorded;  // not stored: field -> value
  std::set<std::string> reads;                  // computed: the columns its expression names
};

void CollectColumnNames(const Expr& e, std::set<std::string>* out) {
  if (e.kind == ExprKind::kColumn && !e.names.empty()) out->insert(e.names.back());
  for (const auto& a : e.args) CollectColumnNames(*a, out);
}

}  // namespace

Result<ComputedAlter> PlanComputedAlter(const std::vector<Field>& stored,
                                        const std::map<std::string, std::string>& options,
                                        const std::vector<ColumnChange>& changes,
                                        const std::vector<std::optional<ComputedColumn>>& added) {
  // Every column in declared order.
  std::map<int, AnyColumn> others;
  for (const auto& [key, value] : options) {
    if (key.compare(0, kPrefix.size(), kPrefix) != 0) continue;
    std::string_view rest = std::string_view(key).substr(kPrefix.size());
    const size_t dot = rest.find('.');
    if (dot == std::string_view::npos || dot > 6 || !AllDigits(rest.substr(0, dot))) continue;
    const int position = std::stoi(std::string(rest.substr(0, dot)));
    AnyColumn& c = others[position];
    c.stored = false;
    c.old_position = position;
    c.recorded[std::string(rest.substr(dot + 1))] = value;
  }
  ComputedAlter out;
  std::vector<AnyColumn> all;
  size_t next_stored = 0;
  for (int i = 0; next_stored < stored.size() || !others.empty(); i++) {
    auto it = others.find(i);
    if (it == others.end() && next_stored == stored.size()) it = others.begin();
    if (it != others.end()) {
      AnyColumn c = std::move(it->second);
      others.erase(it);
      c.name = c.recorded.count("name") ? c.recorded["name"] : "";
      if (auto e = c.recorded.find("expr"); e != c.recorded.end()) {
        auto parsed = ParseExpression(e->second);
        if (!parsed.ok()) {
          return Status::Invalid("computed column '" + c.name + "': " + parsed.status().message());
        }
        CollectColumnNames(**parsed, &c.reads);
      }
      all.push_back(std::move(c));
    } else {
      AnyColumn c;
      c.name = stored[next_stored++].name;
      all.push_back(std::move(c));
    }
  }
  auto find = [&](const std::string& name) {
    return std::find_if(all.begin(), all.end(), [&](const AnyColumn& c) { return c.name == name; });
  };
  auto reader_of = [&](const std::string& name) -> std::string {
    for (const auto& c : all) {
      if (!c.stored && c.reads.count(name)) return c.name;
    }
    return "";
  };
  // Where a column placed by `c` goes among all columns, and the stored change that says so.
  auto place = [&](ColumnChange c, AnyColumn column) -> Status {
    if (!column.stored) {
      // A computed column added: only its place among all columns (no stored change).
      size_t at = all.size();
      if (c.position == ColumnChange::Position::kFirst) {
        at = 0;
      } else if (c.position == ColumnChange::Position::kAfter) {
        auto after = find(c.after);
        if (after == all.end()) return Status::Invalid("column '" + c.after + "' does not exist");
        at = static_cast<size_t>(after - all.begin()) + 1;
      }
      all.insert(all.begin() + static_cast<std::ptrdiff_t>(at), std::move(column));
      return Status::OK();
    }
    size_t at = all.size();
    if (c.position == ColumnChange::Position::kFirst) {
      at = 0;
    } else if (c.position == ColumnChange::Position::kAfter) {
      auto after = find(c.after);
      if (after == all.end()) {  // the catalog names the unknown column
        out.stored.push_back(std::move(c));
        all.push_back(std::move(column));
        return Status::OK();
      }
      at = static_cast<size_t>(after - all.begin()) + 1;
      // AFTER the stored column at or before that place, else FIRST.
      c.position = ColumnChange::Position::kFirst;
      for (size_t i = at; i-- > 0;) {
        if (all[i].stored) {
          c.position = ColumnChange::Position::kAfter;
          c.after = all[i].name;
          break;
        }
      }
    }
    all.insert(all.begin() + static_cast<std::ptrdiff_t>(at), std::move(column));
    out.stored.push_back(std::move(c));
    return Status::OK();
  };
  for (size_t ci = 0; ci < changes.size(); ci++) {
    const ColumnChange& c = changes[ci];
    auto it = find(c.column);
    const bool computed_def = ci < added.size() && added[ci].has_value();
    if (computed_def && c.kind == ColumnChange::Kind::kAdd) {
      if (it != all.end()) return Status::Invalid("column '" + c.column + "' already exists");
      const ComputedColumn& cc = *added[ci];
      AnyColumn column;
      column.name = cc.name;
      column.stored = false;
      column.recorded = {{"name", cc.name}, {"data-type", cc.type.ToString()}, {"expr", cc.expr}};
      auto parsed = ParseExpression(cc.expr);
      if (parsed.ok()) CollectColumnNames(**parsed, &column.reads);
      TRIB_RETURN_NOT_OK(place(c, std::move(column)));
      continue;
    }
    if (computed_def && it != all.end() && it->stored) {
      return Status::Invalid("column '" + c.column +
                             "' is a stored column; MODIFY ... AS changes "
                             "computed columns only (ADD a computed column of another name)");
    }
    if (it != all.end() && !it->stored) {
      switch (c.kind) {
        case ColumnChange::Kind::kAdd:
          return Status::Invalid("column '" + c.column + "' already exists (a computed column)");
        case ColumnChange::Kind::kDrop:
          all.erase(it);
          break;
        case ColumnChange::Kind::kRename:
          if (find(c.new_name) != all.end()) {
            return Status::Invalid("column '" + c.new_name + "' already exists");
          }
          it->name = c.new_name;
          it->recorded["name"] = c.new_name;
          break;
        case ColumnChange::Kind::kModify: {
          if (!computed_def && c.type.has_value()) {
            return Status::Invalid("column '" + c.column +
                                   "' is a computed column; it does not "
                                   "become a stored column by MODIFY (DROP it and ADD a column)");
          }
          if (c.comment.has_value()) {
            return Status::NotSupported("a COMMENT on computed column '" + c.column +
                                        "' is not supported (Paimon records none for it)");
          }
          AnyColumn column = std::move(*it);
          if (computed_def) {
            const ComputedColumn& cc = *added[ci];
            column.recorded["data-type"] = cc.type.ToString();
            column.recorded["expr"] = cc.expr;
            column.reads.clear();
            auto parsed = ParseExpression(cc.expr);
            if (parsed.ok()) CollectColumnNames(**parsed, &column.reads);
          }
          if (c.position == ColumnChange::Position::kUnchanged) {
            *it = std::move(column);
          } else {
            all.erase(it);
            TRIB_RETURN_NOT_OK(place(c, std::move(column)));
          }
          break;
        }
      }
      continue;
    }
    switch (c.kind) {
      case ColumnChange::Kind::kAdd: {
        AnyColumn column;
        column.name = c.column;
        TRIB_RETURN_NOT_OK(place(c, std::move(column)));
        break;
      }
      case ColumnChange::Kind::kDrop:
      case ColumnChange::Kind::kRename:
      case ColumnChange::Kind::kModify: {
        const std::string reader = reader_of(c.column);
        // Flink's MODIFY restates the type: the same type (to move or comment it) is no change.
        auto field = std::find_if(stored.begin(), stored.end(),
                                  [&](const Field& f) { return f.name == c.column; });
        const bool retyped = c.kind == ColumnChange::Kind::kModify && c.type.has_value() &&
                             (field == stored.end() || !(field->type == *c.type));
        if (!reader.empty() && (c.kind != ColumnChange::Kind::kModify || retyped)) {
          return Status::Invalid("column '" + c.column + "' is read by computed column '" + reader +
                                 "'; it cannot be " +
                                 (c.kind == ColumnChange::Kind::kDrop     ? "dropped"
                                  : c.kind == ColumnChange::Kind::kRename ? "renamed"
                                                                          : "given another type"));
        }
        if (it == all.end()) {  // the catalog names the unknown column
          out.stored.push_back(c);
          break;
        }
        if (c.kind == ColumnChange::Kind::kDrop) {
          all.erase(it);
          out.stored.push_back(c);
        } else if (c.kind == ColumnChange::Kind::kRename) {
          if (find(c.new_name) != all.end()) {
            return Status::Invalid("column '" + c.new_name + "' already exists");
          }
          it->name = c.new_name;
          out.stored.push_back(c);
        } else if (c.position != ColumnChange::Position::kUnchanged) {
          AnyColumn column = std::move(*it);
          all.erase(it);
          TRIB_RETURN_NOT_OK(place(c, std::move(column)));
        } else {
          out.stored.push_back(c);
        }
        break;
      }
    }
  }
  // The other columns' options at their new positions (all old ones reset, then set).
  for (const auto& [key, value] : options) {
    std::string_view rest = std::string_view(key);
    if (key.compare(0, kPrefix.size(), kPrefix) != 0) continue;
    rest.remove_prefix(kPrefix.size());
    const size_t dot = rest.find('.');
    if (dot != std::string_view::npos && dot <= 6 && AllDigits(rest.substr(0, dot))) {
      out.reset_options.push_back(key);
    }
  }
  for (size_t i = 0; i < all.size(); i++) {
    if (all[i].stored) continue;
    for (const auto& [field, value] : all[i].recorded) {
      out.set_options[std::string(kPrefix) + std::to_string(i) + "." + field] = value;
    }
  }
  return out;
}

Result<std::shared_ptr<SelectStmt>> ComputedColumnsQuery(
    const TableRef& ref, const std::vector<Field>& stored,
    const std::vector<ComputedColumn>& computed) {
  auto q = std::make_shared<SelectStmt>();
  q->pos = ref.pos;
  q->from = CopyRef(ref);
  const size_t total = stored.size() + computed.size();
  size_t next_stored = 0, next_computed = 0;
  for (size_t pos = 0; pos < total; pos++) {
    SelectItem item;
    item.pos = ref.pos;
    const bool is_computed =
        next_computed < computed.size() &&
        (computed[next_computed].position == static_cast<int>(pos) || next_stored == stored.size());
    if (is_computed) {
      const ComputedColumn& c = computed[next_computed++];
      auto e = ParseExpression(c.expr);
      if (!e.ok()) {
        return Status::Invalid("computed column '" + c.name + "' (" + c.expr +
                               "): " + e.status().message());
      }
      // The declared type: a CAST when the expression's own type differs (checked at CREATE).
      auto cast = std::make_unique<Expr>();
      cast->kind = ExprKind::kCast;
      cast->pos = ref.pos;
      cast->type_text = c.type.WithNullable(true).ToString();
      cast->depth = (*e)->depth + 1;
      cast->args.push_back(std::move(*e));
      item.expr = std::move(cast);
      item.alias = c.name;
    } else {
      auto col = std::make_unique<Expr>();
      col->kind = ExprKind::kColumn;
      col->pos = ref.pos;
      col->names = {stored[next_stored].name};
      item.alias = stored[next_stored].name;
      next_stored++;
      item.expr = std::move(col);
    }
    q->items.push_back(std::move(item));
  }
  return q;
}

Result<ComputedColumn> BindComputedColumn(const std::string& name, const Expr& e,
                                          const std::vector<Field>& stored,
                                          const std::vector<std::string>& computed_names) {
  if (ContainsAggregate(e) || ContainsWindow(e) || ContainsSubquery(e)) {
    return ErrorAt(e.pos, "computed column '" + name +
                              "': aggregates, window functions and "
                              "subqueries are not allowed");
  }
  Scope scope;
  for (const auto& f : stored) scope.columns.push_back({f.name, "", f.type});
  Binder binder(&scope);
  auto bound = binder.Bind(e);
  if (!bound.ok()) {
    Status st = bound.status();
    const bool reads_computed =
        std::any_of(computed_names.begin(), computed_names.end(), [&](const std::string& n) {
          return st.message().find("unknown column '" + n + "'") != std::string::npos;
        });
    if (reads_computed) {
      return ErrorAt(e.pos, "computed column '" + name +
                                "' reads another computed column; a "
                                "computed column reads stored columns only (as in Flink)");
    }
    return st;
  }
  ComputedColumn cc;
  cc.name = name;
  cc.expr = ExprToSql(e);
  cc.type = (*bound)->null_literal ? DataType::String() : (*bound)->type;
  // What is stored is SQL text read back on every query: it must read back as this expression
  // (some forms have no faithful text yet).
  auto reparsed = ParseExpression(cc.expr);
  Result<BoundExprPtr> rebound =
      reparsed.ok() ? binder.Bind(**reparsed) : Result<BoundExprPtr>(reparsed.status());
  if (!rebound.ok() || !((*rebound)->type == (*bound)->type) || ExprToSql(**reparsed) != cc.expr) {
    return NotSupportedAt(e.pos, "computed column '" + name +
                                     "': its expression cannot be "
                                     "stored as SQL text faithfully yet (" +
                                     cc.expr + ")");
  }
  return cc;
}

}  // namespace tributary::sql
