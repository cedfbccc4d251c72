#include "server/pg_catalog.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <memory>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

#include "server/pg_wire.h"
#include "tributary/catalog.h"
#include "tributary/schema.h"
#include "tributary/table.h"

namespace tributary::server {

namespace {

using Cell = std::optional<std::string>;

Status Unsupported(const std::string& what) {
  return Status::NotSupported(
      "this query reads PostgreSQL's catalog (" + what +
      "): the server answers psql's \\d, \\dt, \\dn and \\l queries only, other catalog queries "
      "are not supported yet (docs/server.md)");
}

// `q` with every run of whitespace outside quotes made one space, trimmed, without a trailing
// ';'.
std::string Normalize(std::string_view q) {
  std::string out;
  char quote = 0;
  for (char c : q) {
    if (quote != 0) {
      out.push_back(c);
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
      continue;
    }
    out.push_back(c);
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ';')) out.pop_back();
  return out;
}

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Calls `visit(i)` for each position of `s` outside quotes and parentheses; stops when it
// returns true, and returns that position (npos if none).
size_t FindTopLevel(std::string_view s, size_t from, const std::function<bool(size_t)>& visit) {
  int depth = 0;
  char quote = 0;
  for (size_t i = from; i < s.size(); i++) {
    const char c = s[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '(') {
      depth++;
    } else if (c == ')') {
      depth--;
    } else if (depth == 0 && visit(i)) {
      return i;
    }
  }
  return std::string_view::npos;
}

// The first top-level keyword `word` (case-insensitive, a word of its own) at or after `from`.
size_t FindKeyword(std::string_view s, std::string_view word, size_t from) {
  return FindTopLevel(s, from, [&](size_t i) {
    return (i == 0 || s[i - 1] == ' ') && IEquals(s.substr(i, word.size()), word) &&
           (i + word.size() == s.size() || s[i + word.size()] == ' ');
  });
}

std::vector<std::string> SplitItems(std::string_view list) {
  std::vector<std::string> out;
  size_t at = 0;
  while (true) {
    const size_t comma = FindTopLevel(list, at, [&](size_t i) { return list[i] == ','; });
    std::string_view item = list.substr(at, comma == std::string_view::npos ? comma : comma - at);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    out.emplace_back(item);
    if (comma == std::string_view::npos) return out;
    at = comma + 1;
  }
}

// One item of a select list: its expression and the column's name.
struct Item {
  std::string expr;
  std::string name;
};

// The parts of a catalog query psql sends: its first SELECT's items, what its FROM names first,
// and its WHERE clause (up to ORDER BY or UNION).
struct Query {
  std::vector<Item> items;
  std::string from;
  std::string where;
};

Result<Query> Dissect(const std::string& q) {
  if (!IEquals(q.substr(0, 7), "SELECT ")) return Unsupported("not a SELECT");
  const size_t from = FindKeyword(q, "FROM", 7);
  if (from == std::string::npos) return Unsupported("no FROM");
  Query out;
  for (const std::string& item : SplitItems(std::string_view(q).substr(7, from - 7))) {
    Item it;
    const size_t as = FindKeyword(item, "AS", 0);
    it.expr = item.substr(0, as == std::string::npos ? item.size() : as);
    while (!it.expr.empty() && it.expr.back() == ' ') it.expr.pop_back();
    if (as != std::string::npos) {
      it.name = item.substr(as + 3);
    } else {
      const size_t dot = it.expr.find_last_of('.');
      it.name = dot == std::string::npos ? it.expr : it.expr.substr(dot + 1);
    }
    // A quoted name as it is, another folded to lower case (PostgreSQL's identifiers).
    if (it.name.size() >= 2 && it.name.front() == '"') {
      it.name = it.name.substr(1, it.name.size() - 2);
    } else {
      for (char& ch : it.name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    out.items.push_back(std::move(it));
  }
  size_t end = q.size();
  for (const char* word : {"ORDER", "UNION"}) end = std::min(end, FindKeyword(q, word, from));
  const size_t where = FindKeyword(q, "WHERE", from);
  out.from = q.substr(from + 5, std::min(where, end) - from - 5);
  if (where != std::string::npos && where < end) out.where = q.substr(where + 6, end - where - 6);
  return out;
}

// The string literal after `prefix` in `where` ('' unescaped), if `prefix` is there.
std::optional<std::string> LiteralAfter(const std::string& where, const std::string& prefix) {
  const size_t at = where.find(prefix + " '");
  if (at == std::string::npos) return std::nullopt;
  std::string out;
  for (size_t i = at + prefix.size() + 2; i < where.size(); i++) {
    if (where[i] == '\'') {
      if (i + 1 < where.size() && where[i + 1] == '\'') {
        out.push_back('\'');
        i++;
        continue;
      }
      return out;
    }
    out.push_back(where[i]);
  }
  return std::nullopt;
}

// A regular expression of psql's patterns (`^(t.*)$`); PostgreSQL's are POSIX, psql's use the
// subset ECMAScript reads alike.
Result<bool> Matches(const std::optional<std::string>& pattern, const std::string& name) {
  if (!pattern) return true;
  // libstdc++'s matcher recurses per character: bound what a client can make it do.
  if (pattern->size() > 512 || name.size() > 4096) {
    return Status::Invalid("pattern '" + pattern->substr(0, 64) + "...' is too long");
  }
  try {
    return std::regex_search(name, std::regex(*pattern));
  } catch (const std::regex_error&) {
    return Status::Invalid("invalid regular expression '" + *pattern + "'");
  }
}

// A table as PostgreSQL's catalog shows it.
struct Relation {
  std::string database;
  std::string name;
  uint32_t oid = 0;
  std::shared_ptr<const TableSchema> schema;
};

Result<std::vector<Relation>> Relations(const Catalog& catalog) {
  std::vector<Relation> out;
  TRIB_ASSIGN_OR_RETURN(auto databases, catalog.ListDatabases());
  for (const std::string& db : databases) {
    TRIB_ASSIGN_OR_RETURN(auto tables, catalog.ListTables(db));
    for (const std::string& t : tables) {
      auto table = catalog.GetTable(Identifier(db, t));
      if (!table.ok()) continue;  // dropped since it was listed
      out.push_back({db, t, RelationOid(db, t), (*table)->schema()});
    }
  }
  std::sort(out.begin(), out.end(), [](const Relation& a, const Relation& b) {
    return std::tie(a.database, a.name) < std::tie(b.database, b.name);
  });
  return out;
}

Cell Bool(bool b) { return std::string(b ? "t" : "f"); }
Cell Text(const std::string& s) { return s.empty() ? Cell() : Cell(s); }

std::string Join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

// The rows of `rels` kept by a pg_class query's WHERE clause: relkind (tables are 'r'), a name
// pattern, a schema pattern or pg_table_is_visible (the connection's database), an oid.
Result<std::vector<const Relation*>> Filter(const std::vector<Relation>& rels,
                                            const std::string& where, const std::string& database) {
  std::vector<const Relation*> out;
  const size_t kinds = where.find("c.relkind IN (");
  if (kinds != std::string::npos &&
      where.substr(kinds, where.find(')', kinds) - kinds).find("'r'") == std::string::npos) {
    return out;  // no tables asked for (views, sequences, indexes: none here)
  }
  const auto name = LiteralAfter(where, "c.relname OPERATOR(pg_catalog.~)");
  const auto schema = LiteralAfter(where, "n.nspname OPERATOR(pg_catalog.~)");
  const bool visible = where.find("pg_catalog.pg_table_is_visible(c.oid)") != std::string::npos;
  const auto oid = LiteralAfter(where, "c.oid =");
  for (const Relation& r : rels) {
    TRIB_ASSIGN_OR_RETURN(bool name_ok, Matches(name, r.name));
    TRIB_ASSIGN_OR_RETURN(bool schema_ok, Matches(schema, r.database));
    if (!name_ok || !schema_ok || (visible && r.database != database)) continue;
    if (oid && *oid != std::to_string(r.oid)) continue;
    out.push_back(&r);
  }
  return out;
}

// An item of a query over pg_class (with pg_namespace and pg_am) for relation `r`.
Result<Cell> RelationItem(const std::string& e, const Relation& r) {
  const TableSchema& s = *r.schema;
  if (e == "c.oid") return Cell(std::to_string(r.oid));
  if (e == "n.nspname") return Cell(r.database);
  if (e == "c.relname") return Cell(r.name);
  if (StartsWith(e, "CASE c.relkind")) return Cell("table");
  if (e == "pg_catalog.pg_get_userbyid(c.relowner)") return Cell("tributary");
  if (StartsWith(e, "CASE c.relpersistence")) return Cell("permanent");
  if (e == "am.amname") return Cell("paimon");
  if (e.find("pg_table_size(c.oid)") != std::string::npos) return Cell();  // not computed
  if (StartsWith(e, "pg_catalog.obj_description(c.oid")) return Text(s.comment);
  // psql's second query of \d: the relation's flags.
  if (e == "c.relchecks" || e == "c.reltablespace") return Cell("0");
  if (e == "c.relkind") return Cell("r");
  if (e == "c.relhasindex") return Bool(s.HasPrimaryKey());
  if (e == "c.relhasrules" || e == "c.relhastriggers" || e == "c.relrowsecurity" ||
      e == "c.relforcerowsecurity" || e == "false" || e == "c.relispartition") {
    return Bool(false);
  }
  if (e == "''" || StartsWith(e, "CASE WHEN c.reloftype")) return Cell("");
  if (StartsWith(e, "pg_catalog.array_to_string(c.reloptions")) {
    std::vector<std::string> options;
    for (const auto& [k, v] : s.options) options.push_back(k + "=" + v);
    return Cell(Join(options, ", "));
  }
  if (e == "c.relpersistence") return Cell("p");
  if (e == "c.relreplident") return Cell("d");
  return Unsupported("pg_class item '" + e + "'");
}

// An item of psql's query over pg_attribute for column `f`.
Result<Cell> AttributeItem(const std::string& e, const Field& f) {
  if (e == "a.attname") return Cell(f.name);
  if (StartsWith(e, "pg_catalog.format_type(a.atttypid")) {
    DataType t = f.type;
    t.nullable = true;  // shown in the Nullable column
    return Cell(t.ToString());
  }
  if (StartsWith(e, "(SELECT pg_catalog.pg_get_expr(d.adbin")) return Cell();  // no defaults
  if (e == "a.attnotnull") return Bool(!f.type.nullable);
  if (StartsWith(e, "(SELECT c.collname") || StartsWith(e, "CASE WHEN a.attstattarget")) {
    return Cell();
  }
  if (e == "a.attidentity" || e == "a.attgenerated" || e == "a.attcompression") return Cell("");
  if (e == "a.attstorage") {
    const bool varlen = f.type.IsString() || f.type.IsBinary() || f.type.IsNested() ||
                        f.type.id == TypeId::kDecimal;
    return Cell(varlen ? "x" : "p");
  }
  if (StartsWith(e, "pg_catalog.col_description(a.attrelid")) return Text(f.description);
  return Unsupported("pg_attribute item '" + e + "'");
}

// An item of psql's query over pg_index for the primary key of relation `r`.
Result<Cell> IndexItem(const std::string& e, const Relation& r) {
  const std::string name = r.name + "_pkey", keys = Join(r.schema->primary_keys, ", ");
  if (e == "c2.relname") return Cell(name);
  if (e == "i.indisprimary" || e == "i.indisunique" || e == "i.indisvalid") return Bool(true);
  if (e == "i.indisclustered" || e == "condeferrable" || e == "condeferred" ||
      e == "i.indisreplident") {
    return Bool(false);
  }
  if (StartsWith(e, "pg_catalog.pg_get_indexdef(i.indexrelid")) {
    return Cell("CREATE UNIQUE INDEX " + name + " ON " + r.database + "." + r.name +
                " USING lsm (" + keys + ")");
  }
  if (StartsWith(e, "pg_catalog.pg_get_constraintdef(con.oid")) {
    return Cell("PRIMARY KEY (" + keys + ")");
  }
  if (e == "contype") return Cell("p");
  if (e == "c2.reltablespace") return Cell("0");
  return Unsupported("pg_index item '" + e + "'");
}

// An item of psql's \l (pg_database) or \dn (pg_namespace) for database `db`.
Result<Cell> DatabaseItem(const std::string& e, const std::string& db) {
  if (e == "d.datname" || e == "n.nspname") return Cell(db);
  if (e == "pg_catalog.pg_get_userbyid(d.datdba)" ||
      e == "pg_catalog.pg_get_userbyid(n.nspowner)") {
    return Cell("tributary");
  }
  if (e == "pg_catalog.pg_encoding_to_char(d.encoding)") return Cell("UTF8");
  if (e == "d.datcollate" || e == "d.datctype") return Cell("C");
  if (StartsWith(e, "CASE d.datlocprovider")) return Cell("libc");
  if (e == "d.daticulocale" || StartsWith(e, "pg_catalog.array_to_string(d.datacl") ||
      StartsWith(e, "pg_catalog.array_to_string(n.nspacl") ||
      StartsWith(e, "pg_catalog.obj_description(n.oid") ||
      StartsWith(e, "pg_catalog.shobj_description(d.oid")) {
    return Cell();
  }
  return Unsupported("database item '" + e + "'");
}

using RowOf = std::function<Result<Cell>(const std::string& expr)>;

Status AddRow(const Query& q, const RowOf& item, CatalogAnswer* out) {
  std::vector<Cell> row;
  for (const Item& it : q.items) {
    TRIB_ASSIGN_OR_RETURN(Cell c, item(it.expr));
    row.push_back(std::move(c));
  }
  out->rows.push_back(std::move(row));
  return Status::OK();
}

// The catalog tables psql reads for what Tributary does not have (policies, extended
// statistics, publications, inheritance, foreign keys, triggers, rules): no rows.
bool ReadsNothingHere(const std::string& from) {
  for (const char* t :
       {"pg_catalog.pg_policy ", "pg_catalog.pg_statistic_ext", "pg_catalog.pg_publication ",
        "pg_catalog.pg_inherits", "pg_catalog.pg_constraint ", "pg_catalog.pg_trigger ",
        "pg_catalog.pg_rewrite "}) {
    if ((from + " ").find(t) != std::string::npos) return true;
  }
  return false;
}

// ---- pgjdbc's DatabaseMetaData (42.x): getSchemas, getTables, getColumns, getPrimaryKeys and
// getIndexInfo. Each query is recognised by how it begins and filtered by the literals the
// driver appends (`AND n.nspname LIKE '...'`, `AND ct.relname = '...'`); its rows have the
// columns the driver reads. (With standard_conforming_strings on, the driver writes plain
// '...' literals: a backslash in them is LIKE's escape.)

// The literal right after `prefix` in `where`: nullopt when `prefix` is not there.
Result<std::optional<std::string>> LiteralOf(const std::string& where, const std::string& prefix) {
  const size_t at = where.find(prefix + " ");
  if (at == std::string::npos) return std::optional<std::string>();
  auto lit = LiteralAfter(where.substr(at), prefix);
  if (!lit) return Unsupported("a condition '" + prefix + "' of another form");
  return std::optional<std::string>(std::move(*lit));
}

// SQL LIKE: % any run, _ any one character (a whole UTF-8 sequence), \ takes the next one as
// it is.
bool Like(std::string_view p, std::string_view s) {
  size_t pi = 0, si = 0, star_p = std::string_view::npos, star_s = 0;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '%') {
      star_p = ++pi;
      star_s = si;
      continue;
    }
    if (pi < p.size()) {
      const bool escaped = p[pi] == '\\' && pi + 1 < p.size();
      const char want = escaped ? p[pi + 1] : p[pi];
      if (!escaped && want == '_') {
        pi++;
        si++;
        while (si < s.size() && (static_cast<unsigned char>(s[si]) & 0xC0) == 0x80) si++;
        continue;
      }
      if (want == s[si]) {
        pi += escaped ? 2 : 1;
        si++;
        continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    pi = star_p;
    si = ++star_s;
  }
  while (pi < p.size() && p[pi] == '%') pi++;
  return pi == p.size();
}

bool LikeOrAll(const std::optional<std::string>& pattern, const std::string& s) {
  return !pattern || Like(*pattern, s);
}

// The rows of `columns` made by `cell(column name)` for each call of `each(add)`.
using CellOf = std::function<Cell(const std::string& column)>;
CatalogAnswer Answer(std::vector<std::string> columns) {
  CatalogAnswer out;
  out.columns = std::move(columns);
  return out;
}
void AddCells(const CellOf& cell, CatalogAnswer* out) {
  std::vector<Cell> row;
  for (const std::string& c : out->columns) row.push_back(cell(c));
  out->rows.push_back(std::move(row));
}

std::vector<std::string> ItemNames(const Query& q) {
  std::vector<std::string> names;
  for (const Item& it : q.items) names.push_back(it.name);
  return names;
}

// A column's type as pgjdbc reads it from pg_attribute: its OID (what results carry), its
// atttypmod (PostgreSQL's: length + 4, (precision << 16 | scale) + 4, fractional digits) and
// attlen.
struct PgType {
  int32_t oid = 25;
  int32_t typmod = -1;
  int32_t len = -1;
};
PgType PgTypeOf(const DataType& t) {
  const pg::Column c = pg::ColumnOf("", t);
  PgType out;
  out.oid = c.type_oid;
  out.len = c.type_size;
  if (c.type_oid == 1042 || c.type_oid == 1043) out.typmod = t.length + 4;
  if (c.type_oid == 1700) out.typmod = ((t.precision << 16) | t.scale) + 4;
  if (c.type_oid == 1083 || c.type_oid == 1114 || c.type_oid == 1184) out.typmod = t.precision;
  return out;
}

// What is between "(" at `open` and its ")".
std::string Parenthesized(const std::string& q, size_t open) {
  int depth = 0;
  char quote = 0;
  for (size_t i = open; i < q.size(); i++) {
    if (quote != 0) {
      if (q[i] == quote) quote = 0;
    } else if (q[i] == '\'' || q[i] == '"') {
      quote = q[i];
    } else if (q[i] == '(') {
      depth++;
    } else if (q[i] == ')' && --depth == 0) {
      return q.substr(open + 1, i - open - 1);
    }
  }
  return q.substr(open + 1);
}

// pgjdbc's DatabaseMetaData calls about routines, types and privileges. Tributary has no
// functions or procedures in a database (its procedures are CALL sys.*, outside every
// database) and no user-defined types: those answer no rows, with the columns PostgreSQL's
// answers have. Privileges are those of the one user, tributary, owner of every table: SELECT,
// INSERT, UPDATE, DELETE and TRUNCATE (an ACL the driver reads, `arwdD`; no REFERENCES or
// TRIGGER, which Tributary has no statement for).
Result<std::optional<CatalogAnswer>> AnswerJdbcRoutines(const std::string& q,
                                                        const Catalog& catalog) {
  using Answered = std::optional<CatalogAnswer>;
  if (StartsWith(q, "SELECT current_database() AS FUNCTION_CAT, n.nspname AS FUNCTION_SCHEM, ")) {
    return Answered(Answer({"function_cat", "function_schem", "function_name", "remarks",
                            "function_type", "specific_name"}));
  }
  if (StartsWith(q,
                 "SELECT n.nspname,p.proname,p.prorettype,p.proargtypes, t.typtype,t.typrelid, ")) {
    return Answered(Answer({"nspname", "proname", "prorettype", "proargtypes", "typtype",
                            "typrelid", "proargnames", "proargmodes", "proallargtypes", "oid"}));
  }
  if (StartsWith(q, "SELECT NULL AS PROCEDURE_CAT, n.nspname AS PROCEDURE_SCHEM, ")) {
    return Answered(Answer({"procedure_cat", "procedure_schem", "procedure_name", "?column?",
                            "?column?", "?column?", "remarks", "procedure_type", "specific_name"}));
  }
  if (StartsWith(q, "select null as type_cat, n.nspname as type_schem, t.typname as type_name, ")) {
    return Answered(Answer({"type_cat", "type_schem", "type_name", "class_name", "data_type",
                            "remarks", "base_type"}));
  }
  // getClientInfoProperties: the length of a name (PostgreSQL's 64 bytes, so application_name
  // holds 63).
  if (q ==
      "SELECT t.typlen FROM pg_catalog.pg_type t, pg_catalog.pg_namespace n WHERE "
      "t.typnamespace=n.oid AND t.typname='name' AND n.nspname='pg_catalog'") {
    CatalogAnswer out = Answer({"typlen"});
    out.rows.push_back({Cell("64")});
    return Answered(std::move(out));
  }
  const bool table_privileges = StartsWith(
      q, "SELECT n.nspname,c.relname,r.rolname,c.relacl FROM pg_catalog.pg_namespace n, ");
  const bool column_privileges =
      StartsWith(q, "SELECT n.nspname,c.relname,r.rolname,c.relacl, a.attacl, a.attname FROM ");
  if (!table_privileges && !column_privileges) return Answered();
  if (q.find(" E'") != std::string::npos) return Unsupported("an E'...' literal");
  const char* kAcl = "{tributary=arwdD/tributary}";
  TRIB_ASSIGN_OR_RETURN(std::vector<Relation> rels, Relations(catalog));
  if (table_privileges) {
    TRIB_ASSIGN_OR_RETURN(auto schema, LiteralOf(q, "AND n.nspname LIKE"));
    TRIB_ASSIGN_OR_RETURN(auto name, LiteralOf(q, "AND c.relname LIKE"));
    CatalogAnswer out = Answer({"nspname", "relname", "rolname", "relacl"});
    for (const Relation& r : rels) {  // (ordered by database and name, as the query asks)
      if (!LikeOrAll(schema, r.database) || !LikeOrAll(name, r.name)) continue;
      out.rows.push_back({Cell(r.database), Cell(r.name), Cell("tributary"), Cell(kAcl)});
    }
    return Answered(std::move(out));
  }
  TRIB_ASSIGN_OR_RETURN(auto schema, LiteralOf(q, "AND n.nspname ="));
  TRIB_ASSIGN_OR_RETURN(auto name, LiteralOf(q, "AND c.relname ="));
  TRIB_ASSIGN_OR_RETURN(auto column, LiteralOf(q, "AND a.attname LIKE"));
  CatalogAnswer out = Answer({"nspname", "relname", "rolname", "relacl", "attacl", "attname"});
  std::vector<std::pair<std::string, std::vector<Cell>>> rows;  // ordered by column name
  for (const Relation& r : rels) {
    if ((schema && *schema != r.database) || (name && *name != r.name)) continue;
    for (const Field& f : r.schema->fields) {
      if (!LikeOrAll(column, f.name)) continue;
      rows.push_back({f.name,
                      {Cell(r.database), Cell(r.name), Cell("tributary"), Cell(kAcl), Cell(kAcl),
                       Cell(f.name)}});
    }
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [unused, row] : rows) out.rows.push_back(std::move(row));
  return Answered(std::move(out));
}

Result<std::optional<CatalogAnswer>> AnswerJdbcQuery(const std::string& q, const Catalog& catalog) {
  using Answered = std::optional<CatalogAnswer>;
  TRIB_ASSIGN_OR_RETURN(Answered routines, AnswerJdbcRoutines(q, catalog));
  if (routines) return routines;
  const bool schemas = StartsWith(q, "SELECT nspname AS TABLE_SCHEM, NULL AS TABLE_CATALOG FROM ");
  const bool tables = StartsWith(
      q, "SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM, c.relname AS TABLE_NAME, CASE ");
  const bool columns = StartsWith(q, "SELECT * FROM (SELECT n.nspname,c.relname,a.attname,");
  const bool keys =
      StartsWith(q, "SELECT result.TABLE_CAT, result.TABLE_SCHEM, result.TABLE_NAME,");
  const bool indexes =
      StartsWith(q, "SELECT tmp.TABLE_CAT, tmp.TABLE_SCHEM, tmp.TABLE_NAME, tmp.NON_UNIQUE,");
  // getTypeInfo: the types results carry (pg_wire.h ColumnOf), by name and OID, as pgjdbc lists
  // them and then loads its cache of them (ordered as its query orders them, OID descending).
  static const std::vector<std::pair<const char*, const char*>> kTypes = {
      {"bool", "16"},        {"bytea", "17"},         {"int8", "20"},     {"int2", "21"},
      {"int4", "23"},        {"text", "25"},          {"float4", "700"},  {"float8", "701"},
      {"bpchar", "1042"},    {"varchar", "1043"},     {"date", "1082"},   {"time", "1083"},
      {"timestamp", "1114"}, {"timestamptz", "1184"}, {"numeric", "1700"}};
  if (q ==
      "SELECT t.typname,t.oid FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON "
      "(t.typnamespace = n.oid) WHERE n.nspname != 'pg_toast' AND (t.typrelid = 0 OR "
      "(SELECT c.relkind = 'c' FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid))") {
    CatalogAnswer out = Answer({"typname", "oid"});
    for (const auto& [name, oid] : kTypes) out.rows.push_back({Cell(name), Cell(oid)});
    return Answered(std::move(out));
  }
  if (StartsWith(q,
                 "SELECT typinput='pg_catalog.array_in'::regproc as is_array, typtype, "
                 "typname, pg_type.oid ")) {
    CatalogAnswer out = Answer({"is_array", "typtype", "typname", "oid"});
    for (auto it = kTypes.rbegin(); it != kTypes.rend(); ++it) {
      out.rows.push_back({Cell("f"), Cell("b"), Cell(it->first), Cell(it->second)});
    }
    return Answered(std::move(out));
  }
  // getImportedKeys, getExportedKeys, getCrossReference: none (Paimon tables have no foreign
  // keys), after pgjdbc's read of max_index_keys (PostgreSQL's 32) for the query's bound.
  if (q == "SELECT setting FROM pg_catalog.pg_settings WHERE name='max_index_keys'") {
    CatalogAnswer out = Answer({"setting"});
    out.rows.push_back({Cell("32")});
    return Answered(std::move(out));
  }
  if (StartsWith(q, "SELECT NULL::text AS PKTABLE_CAT, pkn.nspname AS PKTABLE_SCHEM, ")) {
    return Answered(
        Answer({"pktable_cat", "pktable_schem", "pktable_name", "pkcolumn_name", "fktable_cat",
                "fktable_schem", "fktable_name", "fkcolumn_name", "key_seq", "update_rule",
                "delete_rule", "fk_name", "pk_name", "deferrability"}));
  }
  const bool best_row = StartsWith(
      q,
      "SELECT a.attname, a.atttypid, atttypmod FROM pg_catalog.pg_class ct JOIN "
      "pg_catalog.pg_attribute a ON (ct.oid = a.attrelid) JOIN pg_catalog.pg_namespace n ON "
      "(ct.relnamespace = n.oid) JOIN (SELECT i.indexrelid, i.indrelid, i.indisprimary, ");
  if (!schemas && !tables && !columns && !keys && !indexes && !best_row) return Answered();
  if (q.find(" E'") != std::string::npos) return Unsupported("an E'...' literal");
  if (schemas) {
    TRIB_ASSIGN_OR_RETURN(auto pattern, LiteralOf(q, "AND nspname LIKE"));
    TRIB_ASSIGN_OR_RETURN(auto databases, catalog.ListDatabases());
    std::sort(databases.begin(), databases.end());
    CatalogAnswer out = Answer({"table_schem", "table_catalog"});
    for (const std::string& db : databases) {
      if (!LikeOrAll(pattern, db)) continue;
      AddCells([&](const std::string& c) { return c == "table_schem" ? Cell(db) : Cell(); }, &out);
    }
    return Answered(std::move(out));
  }
  TRIB_ASSIGN_OR_RETURN(std::vector<Relation> rels, Relations(catalog));
  if (tables) {
    TRIB_ASSIGN_OR_RETURN(Query parsed, Dissect(q));
    TRIB_ASSIGN_OR_RETURN(auto schema, LiteralOf(parsed.where, "AND n.nspname LIKE"));
    TRIB_ASSIGN_OR_RETURN(auto name, LiteralOf(parsed.where, "AND c.relname LIKE"));
    // Types asked for: `(false OR ( c.relkind = 'r' AND ...) ...)`; none named: every type.
    const bool typed = parsed.where.find("AND (false ") != std::string::npos;
    const bool want_tables =
        !typed || parsed.where.find("c.relkind = 'r' AND n.nspname !~") != std::string::npos;
    CatalogAnswer out = Answer(ItemNames(parsed));
    for (const Relation& r : rels) {
      if (!want_tables || !LikeOrAll(schema, r.database) || !LikeOrAll(name, r.name)) continue;
      AddCells(
          [&](const std::string& c) -> Cell {
            if (c == "table_schem") return Cell(r.database);
            if (c == "table_name") return Cell(r.name);
            if (c == "table_type") return Cell("TABLE");
            if (c == "remarks") return Text(r.schema->comment);
            if (c == "table_cat") return Cell();
            return Cell("");
          },
          &out);
    }
    return Answered(std::move(out));
  }
  if (columns) {
    const std::string inner = Parenthesized(q, std::string("SELECT * FROM ").size());
    TRIB_ASSIGN_OR_RETURN(Query parsed, Dissect(inner));
    TRIB_ASSIGN_OR_RETURN(auto schema, LiteralOf(parsed.where, "AND n.nspname LIKE"));
    TRIB_ASSIGN_OR_RETURN(auto name, LiteralOf(parsed.where, "AND c.relname LIKE"));
    const size_t outer =
        q.find(") c WHERE true", std::string("SELECT * FROM (").size() + inner.size());
    TRIB_ASSIGN_OR_RETURN(auto column, outer == std::string::npos
                                           ? Result<std::optional<std::string>>(std::nullopt)
                                           : LiteralOf(q.substr(outer), "AND attname LIKE"));
    CatalogAnswer out = Answer(ItemNames(parsed));
    for (const Relation& r : rels) {
      if (!LikeOrAll(schema, r.database) || !LikeOrAll(name, r.name)) continue;
      int attnum = 0;
      for (const Field& f : r.schema->fields) {
        attnum++;
        if (!LikeOrAll(column, f.name)) continue;
        const PgType t = PgTypeOf(f.type);
        AddCells(
            [&](const std::string& c) -> Cell {
              if (c == "nspname") return Cell(r.database);
              if (c == "relname") return Cell(r.name);
              if (c == "attname") return Cell(f.name);
              if (c == "atttypid") return Cell(std::to_string(t.oid));
              if (c == "attnotnull") return Bool(!f.type.nullable);
              if (c == "atttypmod") return Cell(std::to_string(t.typmod));
              if (c == "attlen") return Cell(std::to_string(t.len));
              if (c == "typtypmod") return Cell("-1");
              if (c == "attnum") return Cell(std::to_string(attnum));
              if (c == "attrelid") return Cell(std::to_string(r.oid));
              if (c == "description") return Text(f.description);
              if (c == "typbasetype") return Cell("0");
              if (c == "typtype") return Cell("b");
              return Cell();  // attidentity, attgenerated, adsrc: none
            },
            &out);
      }
    }
    return Answered(std::move(out));
  }
  // getBestRowIdentifier: the primary key's columns in the table's order (ORDER BY a.attnum).
  if (best_row) {
    TRIB_ASSIGN_OR_RETURN(auto schema, LiteralOf(q, "AND n.nspname ="));
    TRIB_ASSIGN_OR_RETURN(auto name, LiteralOf(q, "AND ct.relname ="));
    CatalogAnswer out = Answer({"attname", "atttypid", "atttypmod"});
    for (const Relation& r : rels) {
      if ((schema && *schema != r.database) || (name && *name != r.name)) continue;
      const std::vector<std::string>& pk = r.schema->primary_keys;
      for (const Field& f : r.schema->fields) {
        if (std::find(pk.begin(), pk.end(), f.name) == pk.end()) continue;
        const PgType t = PgTypeOf(f.type);
        out.rows.push_back(
            {Cell(f.name), Cell(std::to_string(t.oid)), Cell(std::to_string(t.typmod))});
      }
    }
    return Answered(std::move(out));
  }
  // getPrimaryKeys and getIndexInfo: the primary key, as the unique index `<table>_pkey`.
  const size_t from = q.find(" FROM (");
  if (from == std::string::npos) return Unsupported("a key or index query of another form");
  const std::string inner = Parenthesized(q, from + 6);
  TRIB_ASSIGN_OR_RETURN(Query parsed, Dissect(q));
  TRIB_ASSIGN_OR_RETURN(Query sub, Dissect(inner));
  TRIB_ASSIGN_OR_RETURN(auto schema, LiteralOf(sub.where, "AND n.nspname ="));
  TRIB_ASSIGN_OR_RETURN(auto name, LiteralOf(sub.where, "AND ct.relname ="));
  std::vector<std::string> names;
  for (const Item& it : parsed.items) {
    names.push_back(it.expr.find("pg_get_indexdef") != std::string::npos ? "column_name"
                    : it.expr.find("AM_NAME") != std::string::npos       ? "asc_or_desc"
                                                                         : it.name);
  }
  CatalogAnswer out = Answer(std::move(names));
  for (const Relation& r : rels) {
    if ((schema && *schema != r.database) || (name && *name != r.name)) continue;
    const std::vector<std::string>& pk = r.schema->primary_keys;
    for (size_t k = 0; k < pk.size(); k++) {
      AddCells(
          [&](const std::string& c) -> Cell {
            if (c == "table_schem") return Cell(r.database);
            if (c == "table_name") return Cell(r.name);
            if (c == "column_name") return Cell(pk[k]);
            if (c == "key_seq" || c == "ordinal_position") return Cell(std::to_string(k + 1));
            if (c == "pk_name" || c == "index_name") return Cell(r.name + "_pkey");
            if (c == "non_unique") return Bool(false);
            if (c == "type") return Cell("3");  // tableIndexOther
            if (c == "asc_or_desc") return Cell("A");
            if (c == "cardinality" || c == "pages") return Cell("0");
            return Cell();  // TABLE_CAT, INDEX_QUALIFIER, FILTER_CONDITION
          },
          &out);
    }
  }
  return Answered(std::move(out));
}

}  // namespace

bool ReadsPgCatalog(std::string_view query) {
  // (information_schema is the SQL engine's: sql/planner/information_schema.h.)
  for (std::string_view word : {"pg_catalog."}) {
    auto it = std::search(query.begin(), query.end(), word.begin(), word.end(),
                          [](char a, char b) { return std::tolower(a) == b; });
    if (it != query.end()) return true;
  }
  return false;
}

uint32_t RelationOid(const std::string& database, const std::string& table) {
  uint32_t h = 2166136261u;  // FNV-1a of "db.table"
  for (char c : database + "." + table) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return 16384 + h % (0x7fffffffu - 16384);
}

Result<CatalogAnswer> AnswerPgCatalogQuery(std::string_view query, const Catalog& catalog,
                                           const std::string& database) {
  const std::string q = Normalize(query);
  TRIB_ASSIGN_OR_RETURN(std::optional<CatalogAnswer> jdbc, AnswerJdbcQuery(q, catalog));
  if (jdbc) return std::move(*jdbc);
  TRIB_ASSIGN_OR_RETURN(Query parsed, Dissect(q));
  CatalogAnswer out;
  for (const Item& it : parsed.items) out.columns.push_back(it.name);
  const std::string& from = parsed.from;
  const bool index =
      StartsWith(from, "pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_index i");
  if (!index && ReadsNothingHere(from)) return out;
  if (StartsWith(from, "pg_catalog.pg_database d") ||
      StartsWith(from, "pg_catalog.pg_namespace n")) {
    const auto pattern = LiteralAfter(parsed.where, StartsWith(from, "pg_catalog.pg_database")
                                                        ? "d.datname OPERATOR(pg_catalog.~)"
                                                        : "n.nspname OPERATOR(pg_catalog.~)");
    TRIB_ASSIGN_OR_RETURN(auto databases, catalog.ListDatabases());
    std::sort(databases.begin(), databases.end());
    for (const std::string& db : databases) {
      TRIB_ASSIGN_OR_RETURN(bool keep, Matches(pattern, db));
      if (keep)
        TRIB_RETURN_NOT_OK(AddRow(
            parsed, [&](const auto& e) { return DatabaseItem(e, db); }, &out));
    }
    return out;
  }
  TRIB_ASSIGN_OR_RETURN(std::vector<Relation> rels, Relations(catalog));
  if (StartsWith(from, "pg_catalog.pg_attribute a")) {
    const auto oid = LiteralAfter(parsed.where, "a.attrelid =");
    for (const Relation& r : rels) {
      if (!oid || *oid != std::to_string(r.oid)) continue;
      for (const Field& f : r.schema->fields) {
        TRIB_RETURN_NOT_OK(AddRow(
            parsed, [&](const auto& e) { return AttributeItem(e, f); }, &out));
      }
    }
    return out;
  }
  if (index) {
    TRIB_ASSIGN_OR_RETURN(auto kept, Filter(rels, parsed.where, database));
    for (const Relation* r : kept) {
      if (!r->schema->HasPrimaryKey()) continue;
      TRIB_RETURN_NOT_OK(AddRow(
          parsed, [&](const auto& e) { return IndexItem(e, *r); }, &out));
    }
    return out;
  }
  if (StartsWith(from, "pg_catalog.pg_class c")) {
    TRIB_ASSIGN_OR_RETURN(auto kept, Filter(rels, parsed.where, database));
    for (const Relation* r : kept) {
      TRIB_RETURN_NOT_OK(AddRow(
          parsed, [&](const auto& e) { return RelationItem(e, *r); }, &out));
    }
    return out;
  }
  return Unsupported(from.substr(0, from.find(' ')));
}

}  // namespace tributary::server
