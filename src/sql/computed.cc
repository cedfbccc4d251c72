#include "sql/computed.h"

#include <algorithm>
#include <cctype>

#include "common/strings.h"
#include "sql/lexer.h"
#include "sql/parser.h"

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

Result<std::shared_ptr<SelectStmt>> ComputedColumnsQuery(const TableRef& ref,
                                                         const std::vector<Field>& stored,
                                                         const std::vector<ComputedColumn>& computed) {
  auto q = std::make_shared<SelectStmt>();
  q->pos = ref.pos;
  q->from = CopyRef(ref);
  const size_t total = stored.size() + computed.size();
  size_t next_stored = 0, next_computed = 0;
  for (size_t pos = 0; pos < total; pos++) {
    SelectItem item;
    item.pos = ref.pos;
    const bool is_computed = next_computed < computed.size() &&
                             (computed[next_computed].position == static_cast<int>(pos) ||
                              next_stored == stored.size());
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

}  // namespace tributary::sql
