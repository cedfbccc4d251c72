#include "sql/session/prepared.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <utility>

#include "common/datetime.h"
#include "common/strings.h"
#include "io/file_system.h"
#include "meta/paths.h"
#include "meta/snapshot_reader.h"
#include "sql/binder/cast.h"
#include "sql/binder/computed.h"
#include "sql/binder/expression.h"
#include "sql/exec/operators.h"
#include "sql/parser/ast.h"
#include "sql/parser/parser.h"
#include "sql/planner/query_internal.h"
#include "sql/session/session.h"
#include "tributary/table.h"

namespace tributary::sql {

namespace {

// Byte offset of `pos` in `text`, which starts at `start` (columns count bytes, as the lexer's).
size_t OffsetOf(const std::string& text, Pos start, Pos pos) {
  size_t i = 0;
  int line = start.line, column = start.column;
  while (i < text.size() && (line < pos.line || (line == pos.line && column < pos.column))) {
    if (text[i] == '\n') {
      line++;
      column = 1;
    } else {
      column++;
    }
    i++;
  }
  return i;
}

// `v` written as a SQL literal of its type (parenthesized where a sign could join a '-' before it
// into a comment).
Result<std::string> LiteralText(const Value& v, size_t index) {
  if (v.is_null()) return std::string("NULL");
  if (v.is_bool()) return std::string(v.bool_value() ? "TRUE" : "FALSE");
  if (v.is_int()) {
    if (v.int_value() == INT64_MIN) return std::string("CAST('-9223372036854775808' AS BIGINT)");
    std::string digits = std::to_string(v.int_value());
    return v.int_value() < 0 ? "(" + digits + ")" : digits;
  }
  if (v.is_double()) {
    const double d = v.double_value();
    if (!std::isfinite(d)) {
      return std::string("CAST('") +
             (std::isnan(d) ? "NaN"
              : d > 0       ? "Infinity"
                            : "-Infinity") +
             "' AS DOUBLE)";
    }
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%.17gE0", d);
    std::string text = buf;
    if (text.find('e') != std::string::npos) {  // %g chose an exponent: keep it alone
      text.resize(text.size() - 2);
      for (char& c : text) c = c == 'e' ? 'E' : c;
    }
    return std::signbit(d) ? "(" + text + ")" : text;
  }
  if (v.is_string()) {
    std::string out = "'";
    for (char c : v.string_value()) {
      out += c;
      if (c == '\'') out += '\'';
    }
    return out + "'";
  }
  if (v.is_timestamp()) return "TIMESTAMP '" + FormatTimestamp(v.timestamp_value()) + "'";
  return Status::NotSupported("parameter " + std::to_string(index + 1) +
                              ": a DECIMAL or nested value is not supported as a parameter yet; "
                              "pass it as a string and CAST it in the statement");
}

// `text`, a number as PostgreSQL's numeric reads it ([+-]digits[.digits][e[+-]digits], spaces
// around), as an exact numeric literal without an exponent (a negative one parenthesized).
Result<std::string> ExactNumeric(std::string_view text) {
  const auto invalid = [&] {
    return Status::Invalid("invalid input syntax for type numeric: \"" + std::string(text) + "\"");
  };
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  std::string digits;  // the significand's digits, the point dropped
  int64_t point = -1;  // digits before the point
  for (; i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.');
       i++) {
    if (text[i] == '.') {
      if (point >= 0) return invalid();
      point = static_cast<int64_t>(digits.size());
    } else {
      digits += text[i];
    }
  }
  if (digits.empty()) return invalid();
  if (point < 0) point = static_cast<int64_t>(digits.size());
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    i++;
    bool minus = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) minus = text[i++] == '-';
    int64_t exponent = 0;
    const size_t start = i;
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); i++) {
      exponent = exponent * 10 + (text[i] - '0');
      if (exponent > 1000)
        return Status::Invalid("numeric value out of range: " + std::string(text));
    }
    if (i == start) return invalid();
    point += minus ? -exponent : exponent;
  }
  if (i != text.size()) return invalid();
  if (point <= 0) {
    digits.insert(0, static_cast<size_t>(1 - point), '0');
    point = 1;
  }
  if (point > static_cast<int64_t>(digits.size())) digits.append(point - digits.size(), '0');
  std::string out = digits.substr(0, static_cast<size_t>(point));
  if (static_cast<size_t>(point) < digits.size()) out += "." + digits.substr(point);
  return negative ? "(-" + out + ")" : out;
}

// The range of an integer column's type.
std::pair<int64_t, int64_t> IntegerRange(const DataType& type) {
  switch (type.id) {
    case TypeId::kTinyInt:
      return {INT8_MIN, INT8_MAX};
    case TypeId::kSmallInt:
      return {INT16_MIN, INT16_MAX};
    case TypeId::kInt:
      return {INT32_MIN, INT32_MAX};
    default:
      return {INT64_MIN, INT64_MAX};
  }
}

}  // namespace

// A SELECT fixing the whole primary key with parameters, planned once.
struct PreparedStatement::PointLookup {
  std::unique_ptr<Table> table;
  std::shared_ptr<const TableSchema> schema;
  std::unique_ptr<TableLookup> lookup;
  std::shared_ptr<const meta::Snapshot> seen;  // the latest snapshot the lookup was refreshed at
  // The schema directory's version when the table was opened: an ALTER (committed or not), or a
  // DROP and CREATE of the name, changes it.
  std::optional<std::string> schema_version;
  // The session's current catalog and database when planned: a USE CATALOG or USE (or the
  // server's SET search_path) makes the statement's name another table's.
  const Catalog* catalog = nullptr;
  std::string database;
  std::vector<size_t> key_parameter;  // per primary-key column: the parameter fixing it
  std::vector<int> projection;        // table column per output column
  std::vector<Field> fields;          // the output, as the statement's plan names and types it
  Row key;
};

PreparedStatement::PreparedStatement(Session* session, std::string text, Pos start)
    : session_(session), text_(std::move(text)), start_(start) {}

PreparedStatement::~PreparedStatement() = default;

Result<std::unique_ptr<PreparedStatement>> Prepare(Session* session, const std::string& text,
                                                   Pos start) {
  std::unique_ptr<PreparedStatement> p(new PreparedStatement(session, text, start));
  TRIB_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text, start));
  for (const Token& t : tokens) {
    if (t.IsSymbol("?")) {
      p->parameters_.push_back(OffsetOf(text, start, t.pos));
      p->parameter_pos_.push_back(t.pos);
    }
  }
  TRIB_RETURN_NOT_OK(p->PlanPointLookup());
  return p;
}

std::string PreparedStatement::Describe() const {
  if (!lookup_) return "a statement";
  std::string keys;
  for (const std::string& k : lookup_->schema->primary_keys) keys += (keys.empty() ? "" : ", ") + k;
  return "a point lookup of " + lookup_->table->identifier().ToString() + " by (" + keys + ")";
}

Status PreparedStatement::PlanPointLookup() {
  lookup_.reset();
  // The statement as parsed with a placeholder for each marker (a literal of the marker's width,
  // so positions stay), then run once with NULLs: that checks it as a statement and gives its
  // output columns as the engine names and types them.
  std::string placeholder = text_;
  for (size_t off : parameters_) placeholder[off] = '0';
  TRIB_ASSIGN_OR_RETURN(StatementPtr stmt, ParseStatement(placeholder, start_));
  if (stmt->kind != StmtKind::kSelect || session_->streaming() || parameters_.empty()) {
    return Status::OK();
  }
  const auto& s = static_cast<const SelectStmt&>(*stmt);
  if (!s.values.empty() || s.distinct || !s.from || !s.joins.empty() || !s.group_by.empty() ||
      s.having || !s.order_by.empty() || s.limit || s.offset != 0 || !s.set_operands.empty() ||
      !s.with.empty() || !s.where) {
    return Status::OK();
  }
  const TableRef& ref = *s.from;
  if (ref.subquery || !ref.hints.empty() || ref.system_time || !ref.partition.empty() ||
      !ref.column_aliases.empty() || session_->FindTemporaryView(ref.name) != nullptr) {
    return Status::OK();
  }
  auto rn = session_->ResolveTable(ref.name);
  if (!rn.ok() || !rn->id.system_table.empty() || !rn->id.branch.empty()) return Status::OK();
  auto table = rn->catalog->GetTable(rn->id);
  if (!table.ok()) return Status::OK();  // the statement's own run says what is wrong
  // The schema directory's version, then the table again: the schema read is at least as new.
  auto schema_version = io::LocalFs().Version(meta::SchemaDir((*table)->path()));
  if (!schema_version.ok()) return schema_version.status();
  table = rn->catalog->GetTable(rn->id);
  if (!table.ok()) return Status::OK();
  auto pl = std::make_unique<PointLookup>();
  pl->table = std::move(*table);
  pl->schema_version = std::move(*schema_version);
  pl->database = session_->current_database();
  pl->catalog = session_->current_catalog_identity();
  pl->schema = pl->table->schema();
  const TableSchema& schema = *pl->schema;
  if (!schema.HasPrimaryKey()) return Status::OK();
  // Options that change what a read returns (time travel, fallback branches, computed columns)
  // are the query engine's to apply.
  for (const auto& [key, value] : schema.options) {
    if (key.rfind("scan.", 0) == 0 || key.rfind("schema.", 0) == 0) return Status::OK();
  }
  // The select list: columns of the table (optionally qualified by its name or alias) or *.
  const std::string qualifier = ref.alias.empty() ? rn->id.table : ref.alias;
  auto column_of = [&](const std::vector<std::string>& names) -> int {
    if (names.size() > 2 || (names.size() == 2 && !EqualsIgnoreCase(names[0], qualifier)))
      return -1;
    return schema.FieldIndex(names.back());
  };
  for (const SelectItem& item : s.items) {
    const Expr& e = *item.expr;
    if (e.kind == ExprKind::kStar) {
      if (!e.names.empty() && (e.names.size() != 1 || !EqualsIgnoreCase(e.names[0], qualifier))) {
        return Status::OK();
      }
      for (size_t c = 0; c < schema.fields.size(); c++)
        pl->projection.push_back(static_cast<int>(c));
    } else if (e.kind == ExprKind::kColumn) {
      const int c = column_of(e.names);
      if (c < 0) return Status::OK();
      pl->projection.push_back(c);
    } else {
      return Status::OK();
    }
  }
  // WHERE: `k = ?` (either way round) for each primary-key column, ANDed, nothing else.
  std::vector<const Expr*> conjuncts, pending{s.where.get()};
  while (!pending.empty()) {
    const Expr* e = pending.back();
    pending.pop_back();
    if (e->kind == ExprKind::kBinary && e->op == "AND") {
      pending.push_back(e->args[1].get());
      pending.push_back(e->args[0].get());
    } else {
      conjuncts.push_back(e);
    }
  }
  auto parameter_at = [&](const Expr& e) -> int {
    if (e.kind != ExprKind::kLiteral) return -1;
    for (size_t i = 0; i < parameter_pos_.size(); i++) {
      if (parameter_pos_[i].line == e.pos.line && parameter_pos_[i].column == e.pos.column) {
        return static_cast<int>(i);
      }
    }
    return -1;
  };
  std::vector<int> key_columns;
  for (const std::string& k : schema.primary_keys) key_columns.push_back(schema.FieldIndex(k));
  pl->key_parameter.assign(key_columns.size(), SIZE_MAX);
  std::vector<bool> used(parameters_.size(), false);
  for (const Expr* e : conjuncts) {
    if (e->kind != ExprKind::kBinary || e->op != "=") return Status::OK();
    const Expr* column = e->args[0].get();
    const Expr* param = e->args[1].get();
    if (column->kind != ExprKind::kColumn) std::swap(column, param);
    if (column->kind != ExprKind::kColumn) return Status::OK();
    const int c = column_of(column->names);
    const int p = parameter_at(*param);
    if (c < 0 || p < 0 || used[p]) return Status::OK();
    auto k = std::find(key_columns.begin(), key_columns.end(), c);
    if (k == key_columns.end()) return Status::OK();
    const size_t ki = static_cast<size_t>(k - key_columns.begin());
    if (pl->key_parameter[ki] != SIZE_MAX) return Status::OK();
    const DataType& type = schema.fields[c].type;
    if (!type.IsInteger() && type.id != TypeId::kVarChar) return Status::OK();
    pl->key_parameter[ki] = static_cast<size_t>(p);
    used[p] = true;
  }
  for (size_t ki = 0; ki < key_columns.size(); ki++) {
    if (pl->key_parameter[ki] == SIZE_MAX) return Status::OK();
  }
  for (bool u : used) {
    if (!u) return Status::OK();
  }
  // The engine's own output columns for the statement: the lookup answers only when they are
  // exactly the projected table columns.
  std::vector<Value> nulls(parameters_.size());
  TRIB_ASSIGN_OR_RETURN(StatementResult checked, ExecuteText(nulls));
  if (!checked.has_rows || checked.rows.fields.size() != pl->projection.size()) {
    return Status::OK();
  }
  for (size_t i = 0; i < pl->projection.size(); i++) {
    const Field& f = schema.fields[pl->projection[i]];
    if (!(checked.rows.fields[i].type == f.type)) return Status::OK();
  }
  pl->fields = checked.rows.fields;
  // The snapshot seen first, then the lookup (which pins one at least as new): a commit in
  // between makes the first run refresh instead of being missed.
  TRIB_ASSIGN_OR_RETURN(pl->seen, meta::ReadLatestSnapshotCached(pl->table->path()));
  TRIB_ASSIGN_OR_RETURN(pl->lookup, pl->table->NewLookup());
  pl->key.resize(key_columns.size());
  lookup_ = std::move(pl);
  return Status::OK();
}

Result<StatementResult> PreparedStatement::ExecuteText(const std::vector<Value>& params,
                                                       const std::vector<ParamForm>* forms) {
  std::string text;
  size_t from = 0;
  for (size_t i = 0; i < parameters_.size(); i++) {
    text.append(text_, from, parameters_[i] - from);
    from = parameters_[i] + 1;
    const ParamForm form = forms != nullptr && i < forms->size() && params[i].is_string()
                               ? (*forms)[i]
                               : ParamForm::kString;
    if (form == ParamForm::kBytes) {
      static const char* kHex = "0123456789ABCDEF";
      text += "X'";
      for (unsigned char b : params[i].string_value()) {
        text += kHex[b >> 4];
        text += kHex[b & 15];
      }
      text += "'";
      continue;
    }
    if (form == ParamForm::kNumeric) {
      auto number = ExactNumeric(params[i].string_value());
      if (!number.ok()) return ErrorAt(parameter_pos_[i], number.status().message());
      text += *number;
      continue;
    }
    auto literal = LiteralText(params[i], i);
    if (!literal.ok()) return ErrorAt(parameter_pos_[i], literal.status().message());
    text += *literal;
  }
  text.append(text_, from, std::string::npos);
  return session_->ExecuteText(text, start_);
}

Result<StatementResult> PreparedStatement::Execute(const std::vector<Value>& params,
                                                   const std::vector<ParamForm>* forms) {
  if (params.size() != parameters_.size()) {
    return Status::Invalid("the statement takes " + std::to_string(parameters_.size()) +
                           " parameter" + (parameters_.size() == 1 ? "" : "s") + ", " +
                           std::to_string(params.size()) + " given");
  }
  // Planned again at most once per run: when the table's schema directory changed (an ALTER, a
  // DROP and CREATE) or its latest snapshot went back (a rollback); otherwise a newer snapshot is
  // taken by refreshing the lookup (one stat each while nothing changes).
  for (int attempt = 0;; attempt++) {
    if (!lookup_) return ExecuteText(params, forms);
    PointLookup& pl = *lookup_;
    bool replan = false;
    if (attempt == 0) {
      TRIB_ASSIGN_OR_RETURN(auto version, io::LocalFs().Version(meta::SchemaDir(pl.table->path())));
      replan = version != pl.schema_version || pl.database != session_->current_database() ||
               pl.catalog != session_->current_catalog_identity();
    }
    std::shared_ptr<const meta::Snapshot> latest;
    if (!replan) {
      TRIB_ASSIGN_OR_RETURN(latest, meta::ReadLatestSnapshotCached(pl.table->path()));
      replan =
          attempt == 0 && latest != pl.seen && pl.seen && (!latest || latest->id < pl.seen->id);
    }
    if (replan) {
      TRIB_RETURN_NOT_OK(PlanPointLookup());
      continue;
    }
    if (latest != pl.seen) {
      TRIB_RETURN_NOT_OK(pl.lookup->Refresh());
      pl.seen = std::move(latest);
    }
    break;
  }
  PointLookup& pl = *lookup_;
  // The key, when each value is one the column holds exactly; any other (NULL, another type, an
  // integer out of the column's range, a string longer than it) is the statement's to answer.
  for (size_t k = 0; k < pl.key_parameter.size(); k++) {
    const Value& v = params[pl.key_parameter[k]];
    const DataType& type =
        pl.schema->fields[pl.schema->FieldIndex(pl.schema->primary_keys[k])].type;
    const auto [lo, hi] = IntegerRange(type);
    const bool fits = type.IsInteger() ? v.is_int() && v.int_value() >= lo && v.int_value() <= hi
                                       : v.is_string() && v.string_value().size() <=
                                                              static_cast<size_t>(type.length);
    if (!fits) return ExecuteText(params, forms);
    pl.key[k] = v;
  }
  TRIB_ASSIGN_OR_RETURN(std::optional<Row> row, pl.lookup->Get(pl.key));
  StatementResult result;
  result.has_rows = true;
  result.rows.fields = pl.fields;
  if (row) {
    Row out;
    out.reserve(pl.projection.size());
    for (int c : pl.projection) out.push_back((*row)[c]);
    result.rows.rows.push_back(std::move(out));
  }
  return result;
}

namespace {

// The statement Describe plans for `stmt` (with NULLs in its markers' places): a query wrapped as
// `SELECT * FROM (query) AS describe LIMIT 0` (its columns); an UPDATE or DELETE's condition as
// `SELECT * FROM t WHERE condition LIMIT 0`; null when nothing is left to plan.
std::unique_ptr<SelectStmt> DescribedQuery(StatementPtr owned) {
  Statement* stmt = owned.get();
  auto outer = std::make_unique<SelectStmt>();
  outer->pos = stmt->pos;
  SelectItem star;
  star.expr = std::make_unique<Expr>();
  star.expr->kind = ExprKind::kStar;
  star.expr->pos = stmt->pos;
  star.pos = stmt->pos;
  outer->items.push_back(std::move(star));
  TableRef ref;
  ref.pos = stmt->pos;
  if (stmt->kind == StmtKind::kSelect) {
    ref.subquery.reset(static_cast<SelectStmt*>(owned.release()));
    ref.alias = "describe";
  } else if (stmt->kind == StmtKind::kDelete || stmt->kind == StmtKind::kUpdate) {
    ExprPtr* where = stmt->kind == StmtKind::kDelete ? &static_cast<DeleteStmt*>(stmt)->where
                                                     : &static_cast<UpdateStmt*>(stmt)->where;
    if (!*where) return nullptr;
    ref.name = stmt->kind == StmtKind::kDelete ? static_cast<DeleteStmt*>(stmt)->name
                                               : static_cast<UpdateStmt*>(stmt)->name;
    outer->where = std::move(*where);
  } else {
    return nullptr;
  }
  outer->from = std::move(ref);
  outer->limit = 0;
  return outer;
}

// The table `name` names and its schema, or null (the statement's own run says why).
std::shared_ptr<const TableSchema> TargetSchema(Session* session, const QualifiedName& name) {
  auto rn = session->ResolveTable(name);
  if (!rn.ok()) return nullptr;
  auto table = rn->catalog->GetTable(rn->id);
  if (!table.ok()) return nullptr;
  return (*table)->schema();
}

// Types the markers of an INSERT's VALUES or of its query's select list that stand alone as
// values of a column: that column's type. VALUES expressions are bound as the INSERT binds them.
void TypeInsertedValues(Session* session, const InsertStmt& s, ParameterTypeScope* scope) {
  const std::shared_ptr<const TableSchema> schema = TargetSchema(session, s.name);
  if (!schema || !s.source) return;
  const size_t n = schema->fields.size();
  std::vector<int> targets;
  for (const std::string& c : s.columns) {
    const int idx = schema->FieldIndex(c);
    if (idx < 0) return;
    targets.push_back(idx);
  }
  const SelectStmt& q = *s.source;
  const size_t width = q.values.empty() ? q.items.size() : q.values[0].size();
  if (targets.empty()) {
    for (size_t i = 0; i < n; i++) {
      const bool is_static =
          std::any_of(s.partition.begin(), s.partition.end(), [&](const PartitionSpecEntry& p) {
            return EqualsIgnoreCase(p.column, schema->fields[i].name);
          });
      if (!is_static || width == n) targets.push_back(static_cast<int>(i));
    }
  }
  const int assign = static_cast<int>(CastMode::kAssignment);
  Scope empty;
  Binder binder(&empty);
  for (const auto& row : q.values) {
    for (size_t c = 0; c < row.size() && c < targets.size(); c++) {
      auto e = binder.Bind(*row[c]);
      if (e.ok()) (void)CastTo(std::move(*e), schema->fields[targets[c]].type, assign);
    }
  }
  if (!q.values.empty() || !q.set_operands.empty()) return;
  for (size_t c = 0; c < q.items.size() && c < targets.size(); c++) {
    const Expr& e = *q.items[c].expr;
    if (e.kind == ExprKind::kLiteral && e.literal_kind == LiteralKind::kNull) {
      scope->Record(e.pos, schema->fields[targets[c]].type);
    }
  }
}

// Types the markers of an UPDATE's SET values, bound as the UPDATE binds them.
void TypeAssignedValues(Session* session, const UpdateStmt& s) {
  const std::shared_ptr<const TableSchema> schema = TargetSchema(session, s.name);
  if (!schema) return;
  Scope scope;
  for (const auto& f : schema->fields) scope.columns.push_back({f.name, "", f.type});
  Binder binder(&scope);
  for (const Assignment& a : s.assignments) {
    const int idx = schema->FieldIndex(a.column);
    if (idx < 0) continue;
    auto e = binder.Bind(*a.value);
    if (e.ok()) {
      (void)CastTo(std::move(*e), schema->fields[idx].type,
                   static_cast<int>(CastMode::kAssignment));
    }
  }
}

}  // namespace

Result<StatementDescription> DescribeStatement(Session* session, const std::string& text) {
  // (Lines from a million on: no NULL of a view's or computed column's text, bound with
  // positions of its own, takes a marker's place.)
  const Pos start{1'000'000, 1};
  TRIB_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text, start));
  // NULL in each marker's place (each later one on its line 3 columns further right), or 0 for
  // a count (LIMIT ?, OFFSET ?, FETCH FIRST ? ROWS: the parser takes only a number there).
  std::string planned;
  std::vector<Pos> positions;
  std::vector<bool> counts;
  size_t from = 0;
  int line = 0, shift = 0;
  for (size_t i = 0; i < tokens.size(); i++) {
    if (!tokens[i].IsSymbol("?")) continue;
    const bool count = i > 0 && (tokens[i - 1].Is("LIMIT") || tokens[i - 1].Is("OFFSET") ||
                                 tokens[i - 1].Is("FIRST") || tokens[i - 1].Is("NEXT"));
    if (tokens[i].pos.line != line) {
      line = tokens[i].pos.line;
      shift = 0;
    }
    positions.push_back(Pos{tokens[i].pos.line, tokens[i].pos.column + shift});
    counts.push_back(count);
    const size_t off = OffsetOf(text, start, tokens[i].pos);
    planned.append(text, from, off - from);
    planned += count ? "0" : "NULL";
    shift += count ? 0 : 3;
    from = off + 1;
  }
  planned.append(text, from, std::string::npos);

  StatementDescription d;
  ParameterTypeScope scope(positions);
  TRIB_ASSIGN_OR_RETURN(StatementPtr stmt, ParseStatement(planned, start));
  if (!session->streaming()) {
    SessionZoneScope zone(session->time_zone());
    planner::PlanningOnlyScope planning;
    const bool query = stmt->kind == StmtKind::kSelect;
    if (stmt->kind == StmtKind::kInsert) {
      auto& insert = static_cast<InsertStmt&>(*stmt);
      TypeInsertedValues(session, insert, &scope);
      // (An INSERT ... SELECT's query is planned for the markers in it.)
      if (insert.source && insert.source->values.empty()) {
        stmt = std::move(insert.source);
      } else {
        stmt.reset();
      }
    } else if (stmt->kind == StmtKind::kUpdate) {
      TypeAssignedValues(session, static_cast<const UpdateStmt&>(*stmt));
    }
    std::unique_ptr<SelectStmt> planned_query = stmt ? DescribedQuery(std::move(stmt)) : nullptr;
    if (planned_query) {
      auto r = session->Execute(*planned_query);
      if (r.ok() && r->has_rows && query) d.columns = r->rows.fields;
    }
  }
  d.parameters = scope.types();
  for (size_t i = 0; i < counts.size(); i++) {
    if (counts[i]) d.parameters[i] = DataType::BigInt();
  }
  return d;
}

}  // namespace tributary::sql
