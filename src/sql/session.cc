#include "sql/session.h"
#include "options/core_options.h"

#include "sql/query_internal.h"
#include "sql/sort_compact.h"

#include "sql/computed.h"
#include "table/auto_partition.h"
#include "table/partition_expire.h"

#include "commit/orphan_files.h"
#include "commit/rollback.h"
#include "commit/snapshot_expire.h"
#include "io/file_system.h"
#include "meta/snapshot.h"
#include "meta/branches.h"
#include "meta/schema_manager.h"
#include "meta/tags.h"
#include "common/datetime.h"
#include "common/parallel.h"
#include "common/strings.h"
#include "meta/paths.h"
#include "tributary/table_scan.h"
#include "common/timezone.h"
#include "options/option_values.h"

#include <unistd.h>

#include <chrono>
#include <thread>
#include <cstdio>
#include <functional>

#include <algorithm>
#include <filesystem>

#include "common/timezone.h"
#include "sql/cast.h"
#include "sql/interrupt.h"
#include "sql/functions.h"
#include "sql/operators.h"
#include "sql/parser.h"
#include "sql/query.h"
#include "tributary/options.h"
#include "tributary/table.h"
#include "tributary/table_writer.h"

namespace tributary::sql {

void PrintCommitWarnings(const TableWriter& writer) {
  for (const std::string& w : writer.warnings()) std::fprintf(stderr, "warning: %s\n", w.c_str());
}

namespace {

StatementResult Cursor(std::unique_ptr<Operator> op, const Pos& pos) {
  StatementResult r;
  r.has_rows = true;
  r.rows.fields = op->fields();
  r.cursor = std::move(op);
  r.pos = pos;
  return r;
}

StatementResult Message(std::string m) {
  StatementResult r;
  r.message = std::move(m);
  return r;
}

StatementResult Rows(std::vector<Field> fields, std::vector<Row> rows) {
  StatementResult r;
  r.has_rows = true;
  r.rows.fields = std::move(fields);
  r.rows.rows = std::move(rows);
  r.message = std::to_string(r.rows.rows.size()) + (r.rows.rows.size() == 1 ? " row" : " rows");
  return r;
}

Field StringField(const std::string& name, bool nullable = false) {
  return Field{0, name, DataType::String().WithNullable(nullable), ""};
}

std::string Quote(const std::string& name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

std::string QuoteString(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

// Checks options one by one so an error points at the bad one.
Status CheckOptionList(OptionScope scope, const OptionList& options,
                       const std::vector<std::string>& columns) {
  for (const auto& o : options) {
    auto r = CheckOption(scope, o.key, o.value, columns);
    if (!r.ok()) return ErrorAt(o.pos, r.status().message());
  }
  return Status::OK();
}

}  // namespace

StatementResult::StatementResult() = default;
StatementResult::StatementResult(StatementResult&&) noexcept = default;
StatementResult& StatementResult::operator=(StatementResult&&) noexcept = default;
StatementResult::~StatementResult() = default;

Result<std::unique_ptr<Session>> Session::Open(const std::string& warehouse) {
  std::unique_ptr<Session> s(new Session());
  // The warehouse is created by the first statement that writes, not by opening it: a read of a
  // mistyped path is an error naming it (Execute).
  CatalogOptions lazy;
  lazy.create_if_missing = false;
  lazy.allow_missing = true;
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<Catalog> catalog, Catalog::Open(warehouse, lazy));
  CatalogEntry entry;
  entry.type = "paimon";
  entry.warehouse = catalog->warehouse();  // a file:// URI as its local path
  entry.catalog = std::move(catalog);
  s->catalogs_[kDefaultCatalog] = std::move(entry);
  return s;
}

const TimeZone* Session::time_zone() const {
  auto it = options_.find("table.local-time-zone");
  if (it == options_.end()) return nullptr;
  if (!zone_ || zone_name_ != it->second) {
    auto tz = TimeZone::Load(it->second);  // checked by SET
    if (!tz.ok()) return nullptr;
    zone_ = std::make_shared<const TimeZone>(std::move(*tz));
    zone_name_ = it->second;
  }
  return zone_.get();
}

Result<StatementResult> Session::ExecuteText(const std::string& text, Pos start) {
  SessionZoneScope zone(time_zone());
  TRIB_ASSIGN_OR_RETURN(StatementPtr stmt, ParseStatement(text, start));
  // BEGIN STATEMENT SET; INSERT ...; END; (the Flink SQL client's form): the INSERTs are kept
  // and run as one statement set at END.
  if (stmt->kind == StmtKind::kBeginStatementSet) {
    if (begun_set_) return ErrorAt(stmt->pos, "a statement set is already begun; END runs it");
    begun_set_.emplace();
    StatementResult r;
    r.message = "Statement set begun: INSERT statements are added to it until END";
    return r;
  }
  if (begun_set_ && stmt->kind == StmtKind::kInsert) {
    begun_set_->emplace_back(text, start);
    StatementResult r;
    r.message = "Added to the statement set (" + std::to_string(begun_set_->size()) +
                (begun_set_->size() == 1 ? " statement)" : " statements)");
    return r;
  }
  if (stmt->kind == StmtKind::kEndStatementSet) {
    if (!begun_set_) return ErrorAt(stmt->pos, "END without BEGIN STATEMENT SET");
    std::vector<std::pair<std::string, Pos>> texts = std::move(*begun_set_);
    begun_set_.reset();
    if (texts.empty()) return ErrorAt(stmt->pos, "the statement set holds no INSERT");
    std::vector<StatementPtr> parsed;
    std::vector<const InsertStmt*> inserts;
    for (const auto& [t, p] : texts) {
      TRIB_ASSIGN_OR_RETURN(StatementPtr s, ParseStatement(t, p));
      inserts.push_back(static_cast<const InsertStmt*>(s.get()));
      parsed.push_back(std::move(s));
    }
    return StatementSet(inserts);
  }
  if (begun_set_) {
    return ErrorAt(stmt->pos, "only INSERT statements can be added to a statement set; END runs "
                              "it");
  }
  auto r = Execute(*stmt);
  if (!r.ok()) return Locate(r.status(), stmt->pos);
  return r;
}

namespace {

// Paimon's list of partitions 'k=v,k2=v2;k=v3' (partitions by ';', their columns by ','): each
// partition's text and its column -> value; false, with the partition's text in *bad, when a
// piece is not key=value.
bool ParsePartitionList(const std::string& text,
                        std::vector<std::pair<std::string, std::map<std::string, std::string>>>* out,
                        std::string* bad) {
  for (size_t b = 0; b <= text.size();) {
    size_t end = text.find(';', b);
    if (end == std::string::npos) end = text.size();
    if (end > b) {
      const std::string one = text.substr(b, end - b);
      std::map<std::string, std::string> spec;
      for (const std::string& kv : SplitCommaList(one)) {
        const size_t eq = kv.find('=');
        if (eq == std::string::npos || eq == 0) {
          *bad = one;
          return false;
        }
        spec[kv.substr(0, eq)] = kv.substr(eq + 1);
      }
      out->emplace_back(one, std::move(spec));
    }
    b = end + 1;
  }
  return true;
}

}  // namespace

Result<StatementResult> Session::Execute(const Statement& stmt) {
  if (stmt.kind != StmtKind::kSet && stmt.kind != StmtKind::kReset &&
      stmt.kind != StmtKind::kCreateCatalog && stmt.kind != StmtKind::kUseCatalog &&
      current_catalog_ == kDefaultCatalog) {
    const std::string& warehouse = catalogs_.at(kDefaultCatalog).warehouse;
    // (A warehouse on object storage is there when its bucket is: no directory to look for.)
    bool exists = io::IsObjectStoreUri(warehouse);
    if (!exists) {
      TRIB_ASSIGN_OR_RETURN(exists, io::LocalFs().Exists(warehouse));
    }
    // A query of no table (SELECT 1, VALUES, FROM (VALUES ...) AS v, their set operations)
    // and SHOW FUNCTIONS / CATALOGS / CURRENT ... read nothing of the warehouse.
    std::function<bool(const SelectStmt&)> reads_no_table = [&](const SelectStmt& q) {
      for (const auto& w : q.with) {
        if (!w.query || !reads_no_table(*w.query)) return false;
      }
      for (const auto& op : q.set_operands) {
        if (!op.query || !reads_no_table(*op.query)) return false;
      }
      if (!q.set_operands.empty()) return true;
      if (q.where && ContainsSubquery(*q.where)) return false;
      for (const auto& it : q.items) {
        if (ContainsSubquery(*it.expr)) return false;
      }
      if (!q.from) return true;
      if (!q.from->subquery || !q.joins.empty()) return false;  // a name: a table or a view
      return reads_no_table(*q.from->subquery);
    };
    bool no_table = false;
    if (stmt.kind == StmtKind::kSelect) {
      no_table = reads_no_table(static_cast<const SelectStmt&>(stmt));
    } else if (stmt.kind == StmtKind::kShow) {
      const auto w = static_cast<const ShowStmt&>(stmt).what;
      no_table = w == ShowStmt::What::kFunctions || w == ShowStmt::What::kCatalogs ||
                 w == ShowStmt::What::kCurrentCatalog || w == ShowStmt::What::kCurrentDatabase;
    }
    if (!exists && !no_table) {
      const bool writes = stmt.kind == StmtKind::kCreateDatabase ||
                          stmt.kind == StmtKind::kCreateTable;
      if (!writes) {
        return Status::NotFound("warehouse '" + warehouse + "' does not exist (a statement "
                                "that writes, such as CREATE TABLE, creates it)");
      }
      TRIB_ASSIGN_OR_RETURN(auto created, Catalog::Open(warehouse));  // creates it
      catalogs_.at(kDefaultCatalog).catalog = std::move(created);
    }
  }
  switch (stmt.kind) {
    case StmtKind::kSelect: return Select(static_cast<const SelectStmt&>(stmt));
    case StmtKind::kCreateDatabase:
      return CreateDatabase(static_cast<const CreateDatabaseStmt&>(stmt));
    case StmtKind::kDropDatabase: return DropDatabase(static_cast<const DropDatabaseStmt&>(stmt));
    case StmtKind::kCreateTable: return CreateTable(static_cast<const CreateTableStmt&>(stmt));
    case StmtKind::kDropTable: return DropTable(static_cast<const DropTableStmt&>(stmt));
    case StmtKind::kCreateCatalog:
      return CreateCatalog(static_cast<const CreateCatalogStmt&>(stmt));
    case StmtKind::kUseCatalog: return UseCatalog(static_cast<const UseCatalogStmt&>(stmt));
    case StmtKind::kUse: return Use(static_cast<const UseStmt&>(stmt));
    case StmtKind::kShow: return Show(static_cast<const ShowStmt&>(stmt));
    case StmtKind::kDescribe: return Describe(static_cast<const DescribeStmt&>(stmt));
    case StmtKind::kAlterTable: return AlterTable(static_cast<const AlterTableStmt&>(stmt));
    case StmtKind::kInsert: return Insert(static_cast<const InsertStmt&>(stmt));
    case StmtKind::kDelete: return Delete(static_cast<const DeleteStmt&>(stmt));
    case StmtKind::kUpdate: return Update(static_cast<const UpdateStmt&>(stmt));
    case StmtKind::kSet: return Set(static_cast<const SetStmt&>(stmt));
    case StmtKind::kReset: return Reset(static_cast<const ResetStmt&>(stmt));
    case StmtKind::kCall: return Call(static_cast<const CallStmt&>(stmt));
    case StmtKind::kExplain: return Explain(static_cast<const ExplainStmt&>(stmt));
    case StmtKind::kTruncate: return Truncate(static_cast<const TruncateStmt&>(stmt));
    case StmtKind::kCreateView: return CreateView(static_cast<const CreateViewStmt&>(stmt));
    case StmtKind::kDropView: return DropView(static_cast<const DropViewStmt&>(stmt));
    case StmtKind::kStatementSet: {
      std::vector<const InsertStmt*> inserts;
      for (const auto& i : static_cast<const StatementSetStmt&>(stmt).inserts) {
        inserts.push_back(i.get());
      }
      return StatementSet(inserts);
    }
    case StmtKind::kBeginStatementSet:
    case StmtKind::kEndStatementSet:
      return ErrorAt(stmt.pos, "BEGIN STATEMENT SET and END run through a script or the shell");
  }
  return Status::Internal("unknown statement");
}

Session::NameScope::NameScope(const Session& session, std::string catalog, std::string database)
    : session_(session) {
  session_.name_scopes_.emplace_back(std::move(catalog), std::move(database));
}
Session::NameScope::~NameScope() { session_.name_scopes_.pop_back(); }

Result<ResolvedName> Session::ResolveTable(const QualifiedName& name) const {
  ResolvedName out;
  out.catalog_name = name_scopes_.empty() ? current_catalog_ : name_scopes_.back().first;
  std::string db = name_scopes_.empty() ? current_database_ : name_scopes_.back().second;
  const auto& p = name.parts;
  if (p.size() == 3) {
    out.catalog_name = p[0];
    db = p[1];
  } else if (p.size() == 2) {
    db = p[0];
  }
  auto it = catalogs_.find(out.catalog_name);
  if (it == catalogs_.end()) {
    return ErrorAt(name.pos, "unknown catalog '" + out.catalog_name + "'");
  }
  out.catalog = it->second.catalog.get();
  std::string table = p.back();
  out.id.database = db;
  size_t dollar = table.find('$');
  if (dollar != std::string::npos) {
    Status st = out.id.SetSuffix(table.substr(dollar + 1));
    if (!st.ok()) return ErrorAt(name.pos, st.message() + " in '" + name.ToString() + "'");
    table = table.substr(0, dollar);
  }
  out.id.table = table;
  if (table.empty()) return ErrorAt(name.pos, "invalid table name '" + name.ToString() + "'");
  return out;
}

std::string Session::ViewKey(const QualifiedName& name) const {
  const auto& p = name.parts;
  const std::string& cur_catalog = name_scopes_.empty() ? current_catalog_ : name_scopes_.back().first;
  const std::string& cur_db = name_scopes_.empty() ? current_database_ : name_scopes_.back().second;
  const std::string catalog = p.size() == 3 ? p[0] : cur_catalog;
  const std::string db = p.size() >= 2 ? p[p.size() - 2] : cur_db;
  return catalog + "." + db + "." + p.back();
}

const Session::TemporaryView* Session::FindTemporaryView(const QualifiedName& name) const {
  if (views_.empty() || name.parts.empty() || name.parts.size() > 3) return nullptr;
  auto it = views_.find(ViewKey(name));
  return it == views_.end() ? nullptr : &it->second;
}

Result<StatementResult> Session::CreateView(const CreateViewStmt& s) {
  StatementResult out;
  if (!s.temporary) {
    return NotSupportedAt(s.name.pos, "CREATE VIEW: the filesystem catalog stores no views (as "
                                      "Paimon's FileSystemCatalog); CREATE TEMPORARY VIEW makes "
                                      "one for this session");
  }
  if (s.name.parts.size() > 3) return ErrorAt(s.name.pos, "expected [[catalog.]database.]view");
  const std::string key = ViewKey(s.name);
  if (views_.count(key)) {
    if (s.if_not_exists) {
      out.message = "View " + key + " already exists, skipped";
      return out;
    }
    return ErrorAt(s.name.pos, "temporary view " + key + " already exists");
  }
  TemporaryView view;
  view.query.name = s.name.parts.back();
  view.query.columns = s.columns;
  view.query.query = s.query;
  view.query.pos = s.name.pos;
  view.catalog = current_catalog_;
  view.database = current_database_;
  views_.emplace(key, std::move(view));
  // Planned once now (SELECT * FROM it), so a view that cannot run is refused here: unknown
  // tables or columns, a column list of the wrong length.
  std::string probe = "SELECT * FROM ";
  for (size_t i = 0; i < s.name.parts.size(); i++) {
    probe += (i ? "." : "") + std::string("`") + s.name.parts[i] + "`";
  }
  auto parsed = ParseStatement(probe);
  Status check = parsed.ok()
                     ? ExplainQuery(*this, static_cast<const SelectStmt&>(**parsed)).status()
                     : parsed.status();
  if (!check.ok()) {
    views_.erase(key);
    return Locate(check, s.query->pos);
  }
  out.message = "Temporary view " + key + " created";
  return out;
}

Result<StatementResult> Session::DropView(const DropViewStmt& s) {
  StatementResult out;
  const std::string key = ViewKey(s.name);
  if (views_.erase(key) == 0) {
    if (s.if_exists) {
      out.message = "View " + key + " does not exist, skipped";
      return out;
    }
    if (!s.temporary) {
      return ErrorAt(s.name.pos, "view " + key + " does not exist (the filesystem catalog stores "
                                 "no views; only temporary ones exist)");
    }
    return ErrorAt(s.name.pos, "temporary view " + key + " does not exist");
  }
  out.message = "Temporary view " + key + " dropped";
  return out;
}

Result<std::pair<Catalog*, std::string>> Session::ResolveDatabase(
    const QualifiedName& name) const {
  std::string catalog = current_catalog_;
  if (name.parts.size() == 2) catalog = name.parts[0];
  auto it = catalogs_.find(catalog);
  if (it == catalogs_.end()) return ErrorAt(name.pos, "unknown catalog '" + catalog + "'");
  return std::make_pair(it->second.catalog.get(), name.parts.back());
}

Result<StatementResult> Session::Select(const SelectStmt& s) {
  if (streaming()) {
    TRIB_ASSIGN_OR_RETURN(std::unique_ptr<Operator> op,
                          OpenStreamingQuery(*this, s, stream_idle_timeout_));
    StatementResult r = Cursor(std::move(op), s.pos);
    r.streaming = true;
    return r;
  }
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<Operator> op, OpenQuery(*this, s));
  return Cursor(std::move(op), s.pos);
}

Result<StatementResult> Session::CreateDatabase(const CreateDatabaseStmt& s) {
  TRIB_ASSIGN_OR_RETURN(auto target, ResolveDatabase(s.name));
  bool existed = false;
  if (s.if_not_exists) {
    auto exists = target.first->DatabaseExists(target.second);
    existed = exists.ok() && *exists;
  }
  Status st = target.first->CreateDatabase(target.second, s.if_not_exists);
  if (!st.ok()) return ErrorAt(s.name.pos, st.message());
  if (existed) return Message("Database " + target.second + " already exists, skipped");
  return Message("Database " + target.second + " created");
}

Result<StatementResult> Session::DropDatabase(const DropDatabaseStmt& s) {
  TRIB_ASSIGN_OR_RETURN(auto target, ResolveDatabase(s.name));
  if (target.second == current_database_ && target.first == current_catalog()) {
    return ErrorAt(s.name.pos, "cannot drop database '" + target.second +
                                   "' while it is in use; USE another database first");
  }
  bool existed = true;
  if (s.if_exists) {
    auto exists = target.first->DatabaseExists(target.second);
    existed = !exists.ok() || *exists;
  }
  Status st = target.first->DropDatabase(target.second, s.if_exists, s.cascade);
  if (!st.ok()) return ErrorAt(s.name.pos, st.message());
  if (!existed) return Message("Database " + target.second + " does not exist, skipped");
  return Message("Database " + target.second + " dropped");
}

Result<StatementResult> Session::CreateTable(const CreateTableStmt& s) {
  TRIB_ASSIGN_OR_RETURN(ResolvedName rn, ResolveTable(s.name));
  if (!rn.id.system_table.empty()) {
    return ErrorAt(s.name.pos, "'$' is reserved for system tables; choose another table name");
  }
  TableSpec spec;
  spec.comment = s.comment;
  std::vector<std::string> names;
  std::optional<QueryResult> ctas;
  if (s.as_select) {
    if (!s.columns.empty()) {
      return ErrorAt(s.name.pos, "CREATE TABLE ... AS SELECT takes its columns from the query");
    }
    TRIB_ASSIGN_OR_RETURN(ctas, ExecuteQuery(*this, *s.as_select));
    for (const auto& f : ctas->fields) {
      spec.columns.push_back(Field{0, f.name, f.type.WithNullable(true), ""});
      names.push_back(f.name);
    }
  }
  // LIKE: the source's columns first (then the statement's), keys and options as it says.
  std::vector<std::string> like_pk, like_partitions;
  std::map<std::string, std::string> like_options;
  if (s.like) {
    TRIB_ASSIGN_OR_RETURN(ResolvedName src, ResolveTable(*s.like));
    if (!src.id.system_table.empty()) {
      return ErrorAt(s.like->pos, "CREATE TABLE ... LIKE copies a data table, not a system table");
    }
    auto source = src.catalog->GetTable(src.id);
    if (!source.ok()) return ErrorAt(s.like->pos, source.status().message());
    const auto schema = (*source)->schema();
    for (const auto& f : schema->fields) {
      Field copy = f;
      copy.id = 0;
      spec.columns.push_back(std::move(copy));
      names.push_back(f.name);
    }
    if (s.like_constraints) like_pk = schema->primary_keys;
    if (s.like_partitions) like_partitions = schema->partition_keys;
    if (s.like_options != CreateTableStmt::LikeOptions::kExcluding) like_options = schema->options;
    if (spec.comment.empty()) spec.comment = schema->comment;
  }
  // Computed columns count among the columns for their positions (the LIKE source's first).
  std::vector<ComputedColumn> computed;
  std::vector<std::string> computed_names;
  int position = static_cast<int>(names.size());
  if (s.like) {
    TRIB_ASSIGN_OR_RETURN(auto copied, ComputedColumnsOf(like_options));
    position += static_cast<int>(copied.size());
    for (const auto& c : copied) computed_names.push_back(c.name);
  }
  for (const auto& c : s.columns) {
    if (std::find(names.begin(), names.end(), c.name) != names.end() ||
        std::find(computed_names.begin(), computed_names.end(), c.name) != computed_names.end()) {
      return ErrorAt(c.pos, "duplicate column '" + c.name + "'");
    }
    if (c.computed) {
      if (!c.comment.empty()) {
        return NotSupportedAt(c.pos, "a COMMENT on computed column '" + c.name +
                                         "' is not supported (Paimon records none for it)");
      }
      ComputedColumn cc;
      cc.position = position++;
      cc.name = c.name;
      cc.expr = ExprToSql(*c.expr);
      computed.push_back(std::move(cc));
      computed_names.push_back(c.name);
      continue;
    }
    position++;
    auto t = DataType::Parse(c.type_text);
    if (!t.ok()) return ErrorAt(c.type_pos, t.status().message());
    Field f;
    f.name = c.name;
    f.type = t->WithNullable(!c.not_null);
    f.description = c.comment;
    spec.columns.push_back(std::move(f));
    names.push_back(c.name);
  }
  auto check_names = [&](const std::vector<std::string>& list, const std::vector<Pos>& pos,
                         const char* what) -> Status {
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string& n = list[i];
      if (std::find(names.begin(), names.end(), n) == names.end()) {
        return ErrorAt(pos[i], std::string(what) + " column '" + n +
                                   "' is not a column of the table");
      }
      if (std::find(list.begin(), list.begin() + i, n) != list.begin() + i) {
        return ErrorAt(pos[i], std::string(what) + " column '" + n + "' is listed twice");
      }
    }
    return Status::OK();
  };
  // A computed column: its expression over the stored columns, bound to find its type.
  if (!computed.empty()) {
    size_t k = 0;
    for (const auto& c : s.columns) {
      if (!c.computed) continue;
      ComputedColumn& cc = computed[k++];
      TRIB_ASSIGN_OR_RETURN(ComputedColumn bound,
                            BindComputedColumn(c.name, *c.expr, spec.columns, computed_names));
      cc.type = bound.type;
      cc.expr = bound.expr;
    }
    for (const auto& n : computed_names) {
      for (const auto* list : {&s.primary_key, &s.partition_by}) {
        if (std::find(list->begin(), list->end(), n) != list->end()) {
          return ErrorAt(s.name.pos, "computed column '" + n + "' cannot be a primary key or "
                                     "partition column (it is not stored)");
        }
      }
    }
  }
  TRIB_RETURN_NOT_OK(check_names(s.primary_key, s.primary_key_pos, "PRIMARY KEY"));
  TRIB_RETURN_NOT_OK(check_names(s.partition_by, s.partition_by_pos, "PARTITIONED BY"));
  // Primary-key columns are NOT NULL, as in Flink.
  for (auto& f : spec.columns) {
    if (std::find(s.primary_key.begin(), s.primary_key.end(), f.name) != s.primary_key.end()) {
      f.type = f.type.NotNull();
    }
  }
  spec.primary_keys = s.primary_key;
  spec.partition_keys = s.partition_by;
  if (s.like) {
    if (!like_pk.empty()) {
      if (!s.primary_key.empty()) {
        return ErrorAt(s.primary_key_pos[0], "the table copied by LIKE has a primary key already "
                                             "(use EXCLUDING CONSTRAINTS to define another)");
      }
      spec.primary_keys = like_pk;
    }
    if (!like_partitions.empty()) {
      if (!s.partition_by.empty()) {
        return ErrorAt(s.partition_by_pos[0], "the table copied by LIKE is partitioned already "
                                              "(use EXCLUDING PARTITIONS to partition it otherwise)");
      }
      spec.partition_keys = like_partitions;
    }
    for (const auto& o : s.options) {
      if (s.like_options == CreateTableStmt::LikeOptions::kIncluding && like_options.count(o.key)) {
        return ErrorAt(o.pos, "option '" + o.key + "' is set by the table copied by LIKE too "
                              "(OVERWRITING OPTIONS, the default, lets WITH win)");
      }
    }
    spec.options = std::move(like_options);
  }
  for (const auto& o : s.options) {
    if (o.key == "connector") {
      if (Status st = options::CheckConnector(o.value); !st.ok()) {
        return st.code() == StatusCode::kNotSupported ? NotSupportedAt(o.pos, st.message())
                                                      : ErrorAt(o.pos, st.message());
      }
    }
  }
  for (const auto& o : s.options) {
    if (IsSchemaColumnOption(o.key)) {
      return ErrorAt(o.pos, "option '" + o.key + "' records a computed column, metadata column or "
                            "watermark; declare the column instead (name AS expression)");
    }
  }
  TRIB_RETURN_NOT_OK(CheckOptionList(OptionScope::kTable, s.options, names));
  for (const auto& o : s.options) spec.options[o.key] = o.value;
  // Fluss's tables always have a bucket count ('bucket.num', else the cluster's
  // 'default.bucket.number', 1): a primary-key table of a 'fluss' catalog, or a table whose bucket
  // key is given by Fluss's name 'bucket.key', gets 1 bucket where Paimon would use dynamic
  // bucket mode (or refuse the bucket key).
  const bool fluss_catalog = catalogs_.at(rn.catalog_name).type == "fluss";
  if (!spec.options.count("bucket") && !spec.options.count("bucket.num") &&
      (spec.options.count("bucket.key") || (fluss_catalog && !spec.primary_keys.empty()))) {
    spec.options["bucket"] = "1";
  }
  for (const auto& c : computed) PutComputedColumn(c, &spec.options);
  if (ctas) {
    // Checked before the table exists, so a failing CREATE TABLE ... AS SELECT leaves nothing.
    for (const Row& r : ctas->rows) {
      for (size_t i = 0; i < r.size() && i < spec.columns.size(); ++i) {
        if (r[i].is_null() && !spec.columns[i].type.nullable) {
          return ErrorAt(s.as_select->pos, "NULL value for NOT NULL column '" +
                                               spec.columns[i].name + "'");
        }
      }
    }
    auto exists = rn.catalog->TableExists(rn.id);
    if (exists.ok() && *exists && s.if_not_exists) {
      return Message("Table " + rn.id.ToString() + " already exists");  // as Flink: no insert
    }
  }
  bool existed = false;
  if (s.if_not_exists) {
    auto exists = rn.catalog->TableExists(rn.id);
    existed = exists.ok() && *exists;
  }
  Status st = rn.catalog->CreateTable(rn.id, spec, s.if_not_exists);
  if (!st.ok()) return ErrorAt(s.name.pos, st.message());
  if (existed) return Message("Table " + rn.id.ToString() + " already exists, skipped");
  if (ctas) {
    // Write the query's rows through an INSERT of the materialized rows; on any failure the
    // new table is dropped again, so the statement changes nothing.
    auto fill = [&]() -> Status {
      TRIB_ASSIGN_OR_RETURN(std::unique_ptr<Table> table, rn.catalog->GetTable(rn.id));
      TRIB_ASSIGN_OR_RETURN(std::unique_ptr<TableWriter> writer,
                            table->NewWriter(WriteOptions{}));
      for (const Row& r : ctas->rows) {
        Status ws = writer->Write(RowKind::kInsert, r);
        if (!ws.ok()) {
          writer->Abort();
          return ws;
        }
      }
      if (Interrupted()) {
        // Ctrl-C in the shell: the query may have stopped early; the table goes again.
        writer->Abort();
        return Status::Invalid("cancelled (Ctrl-C): nothing was committed");
      }
      auto c = writer->CommitAndWaitForCompaction();  // a statement ends its input
      if (!c.ok()) {
        writer->Abort();
        return c.status();
      }
      PrintCommitWarnings(*writer);
      return Status::OK();
    };
    Status fs = fill();
    if (!fs.ok()) {
      (void)rn.catalog->DropTable(rn.id, /*ignore_if_not_exists=*/true);
      return ErrorAt(s.as_select->pos, fs.message());
    }
    return Message("Table " + rn.id.ToString() + " created with " +
                   std::to_string(ctas->rows.size()) + " rows");
  }
  return Message("Table " + rn.id.ToString() + " created");
}

Result<StatementResult> Session::DropTable(const DropTableStmt& s) {
  TRIB_ASSIGN_OR_RETURN(ResolvedName rn, ResolveTable(s.name));
  if (!rn.id.system_table.empty()) return ErrorAt(s.name.pos, "cannot drop a system table");
  bool existed = true;
  if (s.if_exists) {
    auto exists = rn.catalog->TableExists(rn.id);
    existed = !exists.ok() || *exists;
  }
  Status st = rn.catalog->DropTable(rn.id, s.if_exists);
  if (!st.ok()) return ErrorAt(s.name.pos, st.message());
  if (!existed) return Message("Table " + rn.id.ToString() + " does not exist, skipped");
  return Message("Table " + rn.id.ToString() + " dropped");
}

Result<StatementResult> Session::CreateCatalog(const CreateCatalogStmt& s) {
  if (catalogs_.count(s.name)) {
    if (s.if_not_exists) return Message("Catalog " + s.name + " already exists");
    return ErrorAt(s.pos, "catalog '" + s.name + "' already exists");
  }
  TRIB_RETURN_NOT_OK(CheckOptionList(OptionScope::kCatalog, s.options, {}));
  CatalogEntry entry;
  const OptionEntry* warehouse = nullptr;
  for (const auto& o : s.options) {
    if (o.key == "type") entry.type = o.value;
    if (o.key == "warehouse") warehouse = &o;
    if (o.key == "default-database") entry.default_database = o.value;
  }
  if (entry.type.empty()) {
    return ErrorAt(s.pos, "CREATE CATALOG needs 'type' = 'paimon' or 'fluss'");
  }
  if (entry.type != "paimon" && entry.type != "fluss") {
    return ErrorAt(s.pos, "catalog type '" + entry.type +
                              "' is not supported; use 'paimon' or 'fluss'");
  }
  if (!warehouse) {
    return ErrorAt(s.pos, "CREATE CATALOG needs 'warehouse' = '<directory>'");
  }
  const std::string path = warehouse->value;
  if (path.empty()) return ErrorAt(warehouse->pos, "empty warehouse path");
  CatalogOptions open_options;
  for (const auto& o : s.options) {
    if (o.key.rfind("s3.", 0) == 0) open_options.options[o.key] = o.value;
  }
  // A local path, a file:// URI, or s3:// with the s3.* options.
  auto catalog = Catalog::Open(path, open_options);
  if (!catalog.ok()) {
    if (catalog.status().code() == StatusCode::kNotSupported) {
      return NotSupportedAt(warehouse->pos, catalog.status().message());
    }
    return ErrorAt(warehouse->pos, catalog.status().message());
  }
  entry.warehouse = (*catalog)->warehouse();
  entry.catalog = std::move(*catalog);
  catalogs_[s.name] = std::move(entry);
  return Message("Catalog " + s.name + " created");
}

Result<StatementResult> Session::UseCatalog(const UseCatalogStmt& s) {
  auto it = catalogs_.find(s.name);
  if (it == catalogs_.end()) return ErrorAt(s.pos, "unknown catalog '" + s.name + "'");
  current_catalog_ = s.name;
  current_database_ = it->second.default_database;
  return Message("Using catalog " + s.name);
}

Result<StatementResult> Session::Use(const UseStmt& s) {
  std::string catalog = current_catalog_;
  if (s.name.parts.size() == 2) catalog = s.name.parts[0];
  auto it = catalogs_.find(catalog);
  if (it == catalogs_.end()) return ErrorAt(s.name.pos, "unknown catalog '" + catalog + "'");
  const std::string& db = s.name.parts.back();
  auto exists = it->second.catalog->DatabaseExists(db);
  if (!exists.ok()) return ErrorAt(s.name.pos, exists.status().message());
  if (!*exists) return ErrorAt(s.name.pos, "database '" + db + "' does not exist");
  current_catalog_ = catalog;
  current_database_ = db;
  return Message("Using database " + db);
}

Result<StatementResult> Session::Show(const ShowStmt& s) {
  switch (s.what) {
    case ShowStmt::What::kDatabases: {
      TRIB_ASSIGN_OR_RETURN(std::vector<std::string> dbs, current_catalog()->ListDatabases());
      std::sort(dbs.begin(), dbs.end());
      std::vector<Row> rows;
      for (auto& d : dbs) rows.push_back({Value::String(d)});
      return Rows({StringField("database name")}, std::move(rows));
    }
    case ShowStmt::What::kTables: {
      Catalog* catalog = current_catalog();
      std::string db = current_database_;
      if (!s.name.parts.empty()) {
        TRIB_ASSIGN_OR_RETURN(auto target, ResolveDatabase(s.name));
        catalog = target.first;
        db = target.second;
      }
      auto tables = catalog->ListTables(db);
      if (!tables.ok()) return Locate(tables.status(), s.pos);
      std::sort(tables->begin(), tables->end());
      std::vector<Row> rows;
      for (auto& t : *tables) {
        if (!s.like || SqlLike(t, *s.like)) rows.push_back({Value::String(t)});
      }
      return Rows({StringField("table name")}, std::move(rows));
    }
    case ShowStmt::What::kColumns: {
      // DESCRIBE's rows, those whose name matches LIKE.
      DescribeStmt d;
      d.name = s.name;
      d.pos = s.pos;
      TRIB_ASSIGN_OR_RETURN(StatementResult described, Describe(d));
      if (s.like) {
        std::vector<Row> kept;
        for (auto& r : described.rows.rows) {
          if (SqlLike(r[0].string_value(), *s.like)) kept.push_back(std::move(r));
        }
        return Rows(std::move(described.rows.fields), std::move(kept));
      }
      return described;
    }
    case ShowStmt::What::kCatalogs: {
      std::vector<Row> rows;
      for (const auto& [name, entry] : catalogs_) rows.push_back({Value::String(name)});
      return Rows({StringField("catalog name")}, std::move(rows));
    }
    case ShowStmt::What::kFunctions: {
      std::vector<Row> rows;
      for (const auto& f : AllFunctionNames()) rows.push_back({Value::String(f)});
      return Rows({StringField("function name")}, std::move(rows));
    }
    case ShowStmt::What::kCurrentDatabase:
      return Rows({StringField("current database name")}, {{Value::String(current_database_)}});
    case ShowStmt::What::kCurrentCatalog:
      return Rows({StringField("current catalog name")}, {{Value::String(current_catalog_)}});
    case ShowStmt::What::kCreateTable:
      return ShowCreateTable(s);
    case ShowStmt::What::kPartitions: {
      TRIB_ASSIGN_OR_RETURN(ResolvedName rn, ResolveTable(s.name));
      auto table = rn.catalog->GetTable(rn.id);
      if (!table.ok()) return ErrorAt(s.name.pos, table.status().message());
      auto schema = (*table)->schema();
      if (schema->partition_keys.empty()) {
        return ErrorAt(s.name.pos, "table " + rn.id.ToString() + " is not partitioned");
      }
      rn.id.system_table = "partitions";
      auto data = rn.catalog->ReadSystemTable(rn.id);
      if (!data.ok()) return ErrorAt(s.name.pos, data.status().message());
      int col = -1;
      for (size_t i = 0; i < data->fields.size(); ++i) {
        if (data->fields[i].name == "partition") col = static_cast<int>(i);
      }
      if (col < 0) return Rows(std::move(data->fields), std::move(data->rows));
      std::vector<Row> rows;
      for (auto& r : data->rows) rows.push_back({r[col]});
      std::sort(rows.begin(), rows.end(),
                [](const Row& a, const Row& b) { return CompareSame(a[0], b[0]) < 0; });
      return Rows({data->fields[col]}, std::move(rows));
    }
  }
  return Status::Internal("unknown SHOW");
}

namespace {

// A table's columns in declared order: stored ones (`computed` empty) and computed ones.
struct DeclaredColumn {
  Field field;
  std::string computed;  // the expression of a computed column
};
Result<std::vector<DeclaredColumn>> DeclaredColumns(const TableSchema& schema) {
  TRIB_ASSIGN_OR_RETURN(auto computed, ComputedColumnsOf(schema.options));
  std::vector<DeclaredColumn> out;
  size_t next = 0;
  for (const Field& f : schema.fields) {
    while (next < computed.size() && computed[next].position == static_cast<int>(out.size())) {
      out.push_back({Field{0, computed[next].name, computed[next].type, ""}, computed[next].expr});
      next++;
    }
    out.push_back({f, ""});
  }
  for (; next < computed.size(); next++) {
    out.push_back({Field{0, computed[next].name, computed[next].type, ""}, computed[next].expr});
  }
  return out;
}

}  // namespace

Result<StatementResult> Session::ShowCreateTable(const ShowStmt& s) {
  TRIB_ASSIGN_OR_RETURN(ResolvedName rn, ResolveTable(s.name));
  auto table = rn.catalog->GetTable(rn.id);
  if (!table.ok()) return ErrorAt(s.name.pos, table.status().message());
  auto schema = (*table)->schema();
  auto columns = DeclaredColumns(*schema);
  if (!columns.ok()) return ErrorAt(s.name.pos, columns.status().message());
  std::string ddl = "CREATE TABLE " + Quote(rn.id.database) + "." + Quote(rn.id.table) + " (\n";
  for (size_t i = 0; i < columns->size(); ++i) {
    const Field& f = (*columns)[i].field;
    if (!(*columns)[i].computed.empty()) {
      ddl += "  " + Quote(f.name) + " AS " + (*columns)[i].computed;
    } else {
      ddl += "  " + Quote(f.name) + " " + f.type.ToSqlString();
    }
    if (!f.description.empty()) ddl += " COMMENT " + QuoteString(f.description);
    if (i + 1 < columns->size() || schema->HasPrimaryKey()) ddl += ",";
    ddl += "\n";
  }
  if (schema->HasPrimaryKey()) {
    ddl += "  PRIMARY KEY (";
    for (size_t i = 0; i < schema->primary_keys.size(); ++i) {
      ddl += (i ? ", " : "") + Quote(schema->primary_keys[i]);
    }
    ddl += ") NOT ENFORCED\n";
  }
  ddl += ")";
  if (!schema->comment.empty()) ddl += "\nCOMMENT " + QuoteString(schema->comment);
  if (!schema->partition_keys.empty()) {
    ddl += "\nPARTITIONED BY (";
    for (size_t i = 0; i < schema->partition_keys.size(); ++i) {
      ddl += (i ? ", " : "") + Quote(schema->partition_keys[i]);
    }
    ddl += ")";
  }
  std::vector<std::pair<std::string, std::string>> options;  // computed columns' are above
  for (const auto& [k, v] : schema->options) {
    if (!IsSchemaColumnOption(k)) options.emplace_back(k, v);
  }
  if (!options.empty()) {
    ddl += "\nWITH (\n";
    size_t i = 0;
    for (const auto& [k, v] : options) {
      ddl += "  " + QuoteString(k) + " = " + QuoteString(v);
      ddl += ++i < options.size() ? ",\n" : "\n";
    }
    ddl += ")";
  }
  return Rows({StringField("create table")}, {{Value::String(ddl)}});
}

Result<StatementResult> Session::Describe(const DescribeStmt& s) {
  TRIB_ASSIGN_OR_RETURN(ResolvedName rn, ResolveTable(s.name));
  std::vector<Field> fields;
  std::vector<std::string> pk;
  if (!rn.id.system_table.empty()) {
    auto data = rn.catalog->ReadSystemTable(rn.id);
    if (!data.ok()) return ErrorAt(s.name.pos, data.status().message());
    fields = data->fields;
  } else {
    auto table = rn.catalog->GetTable(rn.id);
    if (!table.ok()) return ErrorAt(s.name.pos, table.status().message());
    auto columns = DeclaredColumns(*(*table)->schema());
    if (!columns.ok()) return ErrorAt(s.name.pos, columns.status().message());
    for (auto& c : *columns) {
      // A computed column's comment says how it is computed (Flink shows it as an extra).
      if (!c.computed.empty()) c.field.description = "AS " + c.computed;
      fields.push_back(std::move(c.field));
    }
    pk = (*table)->schema()->primary_keys;
  }
  std::string key_text;
  if (!pk.empty()) {
    key_text = "PRI(";
    for (size_t i = 0; i < pk.size(); ++i) key_text += (i ? ", " : "") + pk[i];
    key_text += ")";
  }
  std::vector<Row> rows;
  for (const auto& f : fields) {
    bool is_key = std::find(pk.begin(), pk.end(), f.name) != pk.end();
    rows.push_back({Value::String(f.name), Value::String(f.type.WithNullable(true).ToSqlString()),
                    Value::Bool(f.type.nullable),
                    is_key ? Value::String(key_text) : Value::Null(),
                    f.description.empty() ? Value::Null() : Value::String(f.description)});
  }
  return Rows({StringField("name"), StringField("type"),
               Field{0, "null", DataType::Boolean().NotNull(), ""}, StringField("key", true),
               StringField("comment", true)},
              std::move(rows));
}

Result<StatementResult> Session::AlterTable(const AlterTableStmt& s) {
  TRIB_ASSIGN_OR_RETURN(ResolvedName rn, ResolveTable(s.name));
  if (!rn.id.system_table.empty()) return ErrorAt(s.name.pos, "cannot alter a system table");
  switch (s.action) {
    case AlterTableStmt::Action::kSet:
    case AlterTableStmt::Action::kReset: {
      // Automatic partitioning is fixed at creation (as in Fluss).
      std::vector<std::pair<std::string, Pos>> keys;
      for (const auto& o : s.options) keys.emplace_back(o.key, o.pos);
      for (const auto& k : s.reset_keys) keys.emplace_back(k, s.pos);
      for (const auto& [k, pos] : keys) {
        if (k.rfind("table.auto-partition.", 0) == 0) {
          return ErrorAt(pos, "option '" + k + "' is fixed when the table is created; "
                              "automatic partitioning cannot be changed by ALTER TABLE");
        }
      }
      auto table = rn.catalog->GetTable(rn.id);
      if (!table.ok()) return ErrorAt(s.name.pos, table.status().message());
      std::vector<std::string> columns;
      for (const auto& f : (*table)->schema()->fields) columns.push_back(f.name);
      TRIB_RETURN_NOT_OK(CheckOptionList(OptionScope::kTable, s.options, columns));
      std::map<std::string, std::string> set;
      for (const auto& o : s.options) set[o.key] = o.value;
      Status st = rn.catalog->AlterTableOptions(rn.id, set, s.reset_keys);
      if (!st.ok()) return Locate(st, s.pos);
      return Message("Table " + rn.id.ToString() + " altered");
    }
    case AlterTableStmt::Action::kDropPartition:
      return DropPartitions(s, rn);
    case AlterTableStmt::Action::kAddPartition:
      return AddPartitions(s, rn);
    case AlterTableStmt::Action::kColumns: {
      auto table = rn.catalog->GetTable(rn.id);
      if (!table.ok()) return ErrorAt(s.name.pos, table.status().message());
      std::vector<ColumnChange> changes;
      // ADD c AS expr: a computed column, bound over the stored columns.
      std::vector<std::optional<ComputedColumn>> computed_adds;
      const TableSchema& current = *(*table)->schema();
      for (const AlterColumn& a : s.columns) {
        computed_adds.emplace_back();
        if (a.def.computed) {
          if (a.has_comment) {
            return NotSupportedAt(a.def.pos, "a COMMENT on computed column '" + a.def.name +
                                                 "' is not supported (Paimon records none for "
                                                 "it)");
          }
          auto existing = ComputedColumnsOf(current.options);
          if (!existing.ok()) return ErrorAt(s.name.pos, existing.status().message());
          std::vector<std::string> computed_names;
          for (const auto& c : *existing) computed_names.push_back(c.name);
          TRIB_ASSIGN_OR_RETURN(computed_adds.back(),
                                BindComputedColumn(a.def.name, *a.def.expr, current.fields,
                                                   computed_names));
        }
        ColumnChange c;
        c.column = a.def.name;
        switch (a.kind) {
          case AlterColumn::Kind::kAdd: c.kind = ColumnChange::Kind::kAdd; break;
          case AlterColumn::Kind::kDrop: c.kind = ColumnChange::Kind::kDrop; break;
          case AlterColumn::Kind::kRename: c.kind = ColumnChange::Kind::kRename; break;
          case AlterColumn::Kind::kModify: c.kind = ColumnChange::Kind::kModify; break;
        }
        c.new_name = a.new_name;
        if (!a.def.type_text.empty()) {
          auto t = DataType::Parse(a.def.type_text);
          if (!t.ok()) return ErrorAt(a.def.type_pos, t.status().message());
          c.type = t->WithNullable(!a.def.not_null);
        }
        if (a.has_comment) c.comment = a.def.comment;
        if (a.first) c.position = ColumnChange::Position::kFirst;
        if (!a.after.empty()) {
          c.position = ColumnChange::Position::kAfter;
          c.after = a.after;
        }
        changes.push_back(std::move(c));
      }
      // Computed (and metadata) columns are recorded in options at positions among all the
      // columns: the changes are read against all of them and the positions recorded again.
      const TableSchema& schema = *(*table)->schema();
      const bool others =
          std::any_of(schema.options.begin(), schema.options.end(),
                      [](const auto& o) { return o.first.starts_with("schema."); }) ||
          std::any_of(computed_adds.begin(), computed_adds.end(),
                      [](const auto& c) { return c.has_value(); });
      Status st;
      if (others) {
        auto plan = PlanComputedAlter(schema.fields, schema.options, changes, computed_adds);
        if (!plan.ok()) return Locate(plan.status(), s.pos);
        st = rn.catalog->AlterTableColumns(rn.id, plan->stored, plan->set_options,
                                           plan->reset_options, schema.id);
      } else {
        st = rn.catalog->AlterTableColumns(rn.id, changes);
      }
      if (!st.ok()) return Locate(st, s.pos);
      return Message("Table " + rn.id.ToString() + " altered");
    }
    case AlterTableStmt::Action::kRenameTable: {
      Identifier to = rn.id;
      const auto& parts = s.new_name.parts;
      to.table = parts.back();
      if (parts.size() >= 2) to.database = parts[parts.size() - 2];
      Status st = rn.catalog->RenameTable(rn.id, to);
      if (!st.ok()) return ErrorAt(s.new_name.pos, st.message());
      return Message("Table " + rn.id.ToString() + " renamed to " + to.ToString());
    }
    default:
      return NotSupportedAt(s.pos, "ALTER TABLE ... " + s.other + " is not supported yet");
  }
}

Result<StatementResult> Session::Set(const SetStmt& s) {
  if (!s.key) {
    std::vector<Row> rows;
    for (const auto& [k, v] : options_) rows.push_back({Value::String(k), Value::String(v)});
    return Rows({StringField("key"), StringField("value")}, std::move(rows));
  }
  auto canonical = CheckOption(OptionScope::kSession, *s.key, s.value);
  if (!canonical.ok()) return ErrorAt(s.key_pos, canonical.status().message());
  if (const OptionDef* def = FindOption(OptionScope::kSession, *canonical); def && !def->supported) {
    return NotSupportedAt(s.key_pos, "option '" + *canonical + "' is recognised but not supported yet");
  }
  if (*canonical == "sql-client.execution.result-mode" && s.value != "tableau" &&
      s.value != "TABLEAU") {
    return NotSupportedAt(s.key_pos, "'sql-client.execution.result-mode' = '" + s.value +
                                         "' is not supported yet: the shell prints results as "
                                         "'tableau' does (SET it to 'tableau')");
  }
  if (*canonical == "table.local-time-zone") {
    auto tz = TimeZone::Load(s.value);
    if (!tz.ok()) return ErrorAt(s.key_pos, "table.local-time-zone: " + tz.status().message());
  }
  options_[*canonical] = s.value;
  return Message("Session option " + *canonical + " = " + s.value);
}

Result<StatementResult> Session::Reset(const ResetStmt& s) {
  if (!s.key) {
    options_.clear();
    return Message("All session options reset");
  }
  const OptionDef* def = FindOption(OptionScope::kSession, *s.key);
  if (def == nullptr) {
    // CheckOption produces the did-you-mean message for an unknown key.
    auto r = CheckOption(OptionScope::kSession, *s.key, "");
    if (!r.ok()) return ErrorAt(s.key_pos, r.status().message());
  }
  options_.erase(def ? def->key : *s.key);
  return Message("Session option " + *s.key + " reset");
}

Result<StatementResult> Session::Call(const CallStmt& s) {
  const auto& p = s.procedure.parts;
  bool is_sys = p.size() >= 2 && p[p.size() - 2] == "sys";
  std::string name = s.procedure.ToString();
  if (!is_sys) {
    return ErrorAt(s.procedure.pos, "unknown procedure '" + name + "'; procedures are sys.<name>");
  }
  if (p.back() == "expire_snapshots") return ExpireSnapshots(s);
  if (p.back() == "remove_orphan_files") return RemoveOrphanFiles(s);
  if (p.back() == "expire_changelogs") return ExpireChangelogs(s);
  if (p.back() == "create_tag" || p.back() == "delete_tag") {
    return Tags(s, p.back() == "create_tag");
  }
  if (p.back() == "create_branch" || p.back() == "delete_branch" || p.back() == "fast_forward" ||
      p.back() == "rename_branch") {
    return Branches(s, p.back());
  }
  if (p.back() == "rollback_to") return RollbackTo(s);
  if (p.back() == "maintain_partitions") return MaintainPartitions(s);
  if (p.back() == "expire_partitions") return ExpirePartitionsCall(s);
  if (p.back() == "rescale") return Rescale(s);
  if (p.back() != "compact") {
    // Paimon's procedures not implemented yet; any other name is a typo or unknown.
    static const std::vector<std::string> kPaimon = {
        "compact_database", "rollback_to_timestamp", "merge_into",
        "reset_consumer", "clear_consumers", "mark_partition_done",
        "migrate_table", "migrate_file", "repair", "create_tag_from_timestamp",
        "expire_tags", "replace_tag", "rewrite_file_index", "purge_files",
        "trigger_tag_automatic_creation", "query_service"};
    static const std::vector<std::string> kImplemented = {
        "compact", "expire_snapshots", "expire_changelogs", "remove_orphan_files", "create_tag",
        "delete_tag", "rollback_to", "maintain_partitions", "expire_partitions", "rescale",
        "create_branch", "delete_branch", "fast_forward", "rename_branch"};
    if (std::find(kPaimon.begin(), kPaimon.end(), p.back()) != kPaimon.end()) {
      return NotSupportedAt(s.procedure.pos, "procedure " + name + " is not supported yet");
    }
    std::vector<std::string> all = kImplemented;
    all.insert(all.end(), kPaimon.begin(), kPaimon.end());
    const std::string hint = options::DidYouMean(p.back(), all);
    return ErrorAt(s.procedure.pos, "unknown procedure '" + name + "'" +
                                        (hint.empty() ? "" : "; did you mean 'sys." + hint + "'?"));
  }
  std::string table_name;
  // order_strategy / order_by: Paimon's sort compaction (sort_compact.h).
  SortCompactRequest sort;
  Pos sort_pos;
  // Paimon's `partitions`: 'k=v,k2=v2;k=v3' (partitions separated by ';', their keys by ',').
  std::vector<std::map<std::string, std::string>> partitions;
  for (size_t i = 0; i < s.args.size(); ++i) {
    const CallArg& a = s.args[i];
    static const char* kPositions[] = {"table", "partitions", "order_strategy", "order_by"};
    const std::string name = a.name.empty() ? (i < 4 ? kPositions[i] : "") : a.name;
    if (name != "table" && name != "partitions" && name != "order_strategy" &&
        name != "order_by") {
      return NotSupportedAt(a.value->pos, "argument '" + (a.name.empty() ? std::to_string(i + 1)
                                                                          : a.name) +
                                              "' of sys.compact is not supported yet");
    }
    if (a.value->kind != ExprKind::kLiteral || a.value->literal_kind != LiteralKind::kString) {
      return ErrorAt(a.value->pos,
                     name == "table"        ? "sys.compact expects the table as a string, e.g. 'db.t'"
                     : name == "partitions" ? "sys.compact expects partitions as a string, e.g. "
                                              "'dt=2024-01-01,hh=00;dt=2024-01-02'"
                                            : "sys.compact expects " + name + " as a string");
    }
    if (name == "table") {
      table_name = a.value->text;
      continue;
    }
    if (name == "order_strategy") {
      sort.strategy = AsciiLower(a.value->text);
      sort_pos = a.value->pos;
      continue;
    }
    if (name == "order_by") {
      for (const std::string& c : SplitCommaList(a.value->text)) {
        if (!c.empty()) sort.columns.push_back(c);
      }
      continue;
    }
    std::vector<std::pair<std::string, std::map<std::string, std::string>>> listed;
    std::string bad;
    if (!ParsePartitionList(a.value->text, &listed, &bad)) {
      return ErrorAt(a.value->pos, "partitions: '" + bad + "' is not key=value (write "
                                   "'k=v,k2=v2;k=v3')");
    }
    for (auto& [text, spec] : listed) partitions.push_back(std::move(spec));
  }
  if (sort.strategy == "none") sort.strategy.clear();
  if (table_name.empty()) return ErrorAt(s.pos, "sys.compact needs a table: CALL sys.compact('db.t')");
  auto id = Identifier::Parse(table_name, current_database_);
  if (!id.ok()) return ErrorAt(s.args[0].value->pos, id.status().message());
  Catalog* catalog = current_catalog();
  auto table = catalog->GetTable(*id);
  if (!table.ok()) return ErrorAt(s.args[0].value->pos, table.status().message());
  if (!sort.strategy.empty() || !sort.columns.empty()) {
    if (sort.strategy.empty()) {
      return ErrorAt(s.pos, "order_by needs order_strategy ('order', 'zorder' or 'hilbert')");
    }
    sort.partitions = partitions;
    TRIB_ASSIGN_OR_RETURN(sort.memory_limit, planner::SortMemoryLimit(*this));
    auto sorted = SortCompact(**table, sort);
    if (!sorted.ok()) return Locate(sorted.status(), sort_pos);
    if (!sorted->has_value()) return Message("Nothing to compact in " + id->ToString());
    std::string by;
    for (const std::string& c : sort.columns) by += (by.empty() ? "" : ", ") + c;
    return Message("Compacted " + id->ToString() + ", rows sorted (" + sort.strategy + ") by " +
                   by + " (snapshot " + std::to_string(**sorted) + ")");
  }
  // Long compactions show their progress when stderr is a terminal.
  std::function<void(int64_t, int64_t)> progress;
  if (::isatty(2)) {
    progress = [&](int64_t done, int64_t total) {
      std::fprintf(stderr, "\rcompacting %s: bucket %lld of %lld", id->ToString().c_str(),
                   static_cast<long long>(done + 1), static_cast<long long>(total));
      std::fflush(stderr);
    };
  }
  std::vector<std::string> warnings;
  auto snapshot = (*table)->CompactFull(progress, partitions, &warnings);
  if (progress) std::fprintf(stderr, "\r\033[K");
  if (!snapshot.ok()) return Locate(snapshot.status(), s.pos);
  for (const std::string& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  if (!snapshot->has_value()) return Message("Nothing to compact in " + id->ToString());
  return Message("Compacted " + id->ToString() + " (snapshot " + std::to_string(**snapshot) + ")");
}

namespace {

// A procedure's arguments, by Paimon's names or in the order of `names`, each a literal. Unknown
// names and extra arguments are errors naming the procedure and its arguments.
Result<std::map<std::string, const Expr*>> ProcedureArgs(const CallStmt& s,
                                                         const std::string& proc,
                                                         const std::vector<std::string>& names) {
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  std::map<std::string, const Expr*> args;
  for (size_t i = 0; i < s.args.size(); ++i) {
    const CallArg& a = s.args[i];
    std::string name = a.name;
    if (name.empty()) {
      if (i >= names.size()) {
        return ErrorAt(a.value->pos, proc + " takes " + std::to_string(names.size()) +
                                         " arguments (" + list + ")");
      }
      name = names[i];
    }
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      return ErrorAt(a.value->pos, "unknown argument '" + name + "' of " + proc + " (" + list +
                                       ")");
    }
    if (a.value->kind != ExprKind::kLiteral) {
      return ErrorAt(a.value->pos, "argument '" + name + "' must be a literal");
    }
    args[name] = a.value.get();
  }
  return args;
}

// A procedure's `snapshot_id` argument: a positive integer literal.
Result<int64_t> SnapshotIdArg(const Expr* e) {
  auto v = options::ParseInt64(e->text);
  if (e->literal_kind != LiteralKind::kInteger || !v.ok() || *v < 1) {
    return ErrorAt(e->pos, "'snapshot_id' must be a positive integer");
  }
  return *v;
}

// The retention arguments of sys.expire_snapshots / sys.expire_changelogs: positive counts
// into *max, *min and *deletes (when given), max >= min checked; `older_than` a time of the
// session zone.
Status RetentionArgs(const Session& session, const CallStmt& s,
                     std::map<std::string, const Expr*>& args, int64_t* max, int64_t* min,
                     int64_t* deletes, std::optional<int64_t>* older_than) {
  for (const char* key : {"retain_max", "retain_min", "max_deletes"}) {
    if (!args.count(key)) continue;
    const Expr* e = args[key];
    auto v = options::ParseInt64(e->text);
    if (e->literal_kind != LiteralKind::kInteger || !v.ok() || *v < 1) {
      return ErrorAt(e->pos, std::string("'") + key + "' must be a positive integer");
    }
    *(std::string(key) == "retain_max" ? max : std::string(key) == "retain_min" ? min : deletes) = *v;
  }
  if (*max < *min) {
    return ErrorAt(s.pos, "retain_max (" + std::to_string(*max) + ") must be at least "
                          "retain_min (" + std::to_string(*min) + ")");
  }
  if (args.count("older_than")) {
    const Expr* e = args["older_than"];
    auto millis = SessionTimeToUtcMillis(session, e->text);
    if (!millis.ok()) return ErrorAt(e->pos, "older_than: " + millis.status().message());
    *older_than = *millis;
  }
  return Status::OK();
}

}  // namespace

Result<Identifier> Session::ProcedureTableId(const Expr* table) const {
  auto id = Identifier::Parse(table->text, current_database_);
  if (!id.ok()) return ErrorAt(table->pos, id.status().message());
  return *id;
}

Result<std::unique_ptr<Table>> Session::ProcedureTable(const Expr* table, Identifier* id) const {
  TRIB_ASSIGN_OR_RETURN(*id, ProcedureTableId(table));
  auto opened = current_catalog()->GetTable(*id);
  if (!opened.ok()) return ErrorAt(table->pos, opened.status().message());
  return std::move(*opened);
}

Result<StatementResult> Session::ExpireSnapshots(const CallStmt& s) {
  TRIB_ASSIGN_OR_RETURN(auto args, ProcedureArgs(s, "sys.expire_snapshots",
                                                 {"table", "retain_max", "retain_min",
                                                  "older_than", "max_deletes"}));
  if (!args.count("table")) {
    return ErrorAt(s.pos, "sys.expire_snapshots needs a table: CALL sys.expire_snapshots("
                          "`table` => 'db.t', retain_max => 5)");
  }
  const Expr* t = args["table"];
  Identifier id;
  auto table = ProcedureTable(t, &id);
  if (!table.ok()) return table.status();
  auto options = commit::ExpireOptions::From(*(*table)->schema());
  if (!options.ok()) return ErrorAt(t->pos, options.status().message());
  TRIB_RETURN_NOT_OK(RetentionArgs(*this, s, args, &options->retain_max, &options->retain_min,
                                   &options->max_deletes, &options->older_than_millis));
  auto r = commit::ExpireSnapshots((*table)->path(), *(*table)->schema(), *options);
  if (!r.ok()) return Locate(r.status(), s.pos);
  return Message("Expired " + std::to_string(r->snapshots) + " snapshot(s) of " +
                 id.ToString() + " (removed " + std::to_string(r->data_files) +
                 " data, " + std::to_string(r->changelog_files) + " changelog, " +
                 std::to_string(r->index_files) + " index and " +
                 std::to_string(r->manifest_files) + " manifest file(s))");
}

Result<StatementResult> Session::MaintainPartitions(const CallStmt& s) {
  const std::string proc = "sys.maintain_partitions";
  TRIB_ASSIGN_OR_RETURN(auto args, ProcedureArgs(s, proc, {"table"}));
  if (!args.count("table")) {
    return ErrorAt(s.pos, proc + " needs a table: CALL " + proc + "('db.t')");
  }
  const Expr* t = args["table"];
  Identifier id;
  auto table = ProcedureTable(t, &id);
  if (!table.ok()) return table.status();
  auto rule = table::AutoPartitionRuleOf(*(*table)->schema());
  if (!rule.ok()) return ErrorAt(t->pos, rule.status().message());
  if (!*rule) {
    return ErrorAt(t->pos, id.ToString() + " has no automatic partitions "
                           "('table.auto-partition.enabled' is not true)");
  }
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  auto done = table::MaintainAutoPartitions(**table, now);
  if (!done.ok()) return Locate(done.status(), s.pos);
  return Message("Automatic partitions of " + id.ToString() + ": " +
                 (done->empty() ? "nothing to do" : *done));
}

Result<StatementResult> Session::ExpirePartitionsCall(const CallStmt& s) {
  const std::string proc = "sys.expire_partitions";
  TRIB_ASSIGN_OR_RETURN(auto args, ProcedureArgs(s, proc, {"table", "expiration_time",
                                                           "timestamp_formatter",
                                                           "timestamp_pattern", "expire_strategy",
                                                           "max_expires"}));
  if (!args.count("table")) {
    return ErrorAt(s.pos, proc + " needs a table: CALL " + proc + "(`table` => 'db.t', "
                          "expiration_time => '1 d')");
  }
  const Expr* t = args["table"];
  Identifier id;
  auto table = ProcedureTable(t, &id);
  if (!table.ok()) return table.status();
  // The arguments stand for the table's options of the same meaning.
  TableSchema schema = *(*table)->schema();
  const std::pair<const char*, const char*> kArgs[] = {
      {"expiration_time", "partition.expiration-time"},
      {"timestamp_formatter", "partition.timestamp-formatter"},
      {"timestamp_pattern", "partition.timestamp-pattern"},
      {"expire_strategy", "partition.expiration-strategy"},
      {"max_expires", "partition.expiration-max-num"}};
  for (const auto& [arg, key] : kArgs) {
    if (!args.count(arg)) continue;
    const Expr* e = args[arg];
    const std::string v = e->text;
    if (std::string(arg) == "expire_strategy" && v != "values-time" && v != "update-time") {
      return ErrorAt(e->pos, "expire_strategy '" + v + "' is not 'values-time' or 'update-time'");
    }
    if (std::string(arg) == "max_expires" &&
        (v.empty() || v.size() > 9 || !std::all_of(v.begin(), v.end(), ::isdigit) ||
         std::stoll(v) < 1)) {
      return ErrorAt(e->pos, "max_expires '" + v + "' is not a positive integer");
    }
    schema.options[key] = v;
  }
  auto rule = table::PartitionExpireRuleOf(schema);
  if (!rule.ok()) return ErrorAt(s.pos, rule.status().message());
  if (!*rule) {
    return ErrorAt(s.pos, proc + " needs an expiration time: the argument expiration_time or "
                          "the table's 'partition.expiration-time'");
  }
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  auto expired = table::ExpirePartitions(**table, **rule, now);
  if (!expired.ok()) return Locate(expired.status(), s.pos);
  if (expired->empty()) return Message("No expired partitions of " + id.ToString());
  std::string names;
  for (const auto& n : *expired) names += (names.empty() ? "" : ", ") + n;
  return Message("Expired partition(s) " + names + " of " + id.ToString());
}

Result<StatementResult> Session::Rescale(const CallStmt& s) {
  const std::string proc = "sys.rescale";
  TRIB_ASSIGN_OR_RETURN(auto args, ProcedureArgs(s, proc, {"table", "bucket_num", "partition",
                                                          "scan_parallelism",
                                                          "sink_parallelism"}));
  if (!args.count("table")) {
    return ErrorAt(s.pos, proc + " needs a table: CALL " + proc + "(`table` => 'db.t', "
                          "bucket_num => 8, `partition` => 'dt=...')");
  }
  const Expr* t = args["table"];
  Identifier id;
  auto opened = ProcedureTable(t, &id);
  if (!opened.ok()) return opened.status();
  Table& table = **opened;
  const auto schema = table.schema();
  const int64_t current = std::stoll(schema->Option("bucket").value_or("-1"));
  if (current <= 0) {
    return ErrorAt(t->pos, proc + " rescales fixed-bucket tables; " + id.ToString() +
                               " has 'bucket' = " + std::to_string(current));
  }
  int32_t buckets = static_cast<int32_t>(current);
  if (args.count("bucket_num")) {
    const std::string& v = args["bucket_num"]->text;
    if (v.empty() || v.size() > 6 || !std::all_of(v.begin(), v.end(), ::isdigit) ||
        std::stoi(v) < 1) {
      return ErrorAt(args["bucket_num"]->pos, "bucket_num '" + v + "' is not a positive integer");
    }
    buckets = std::stoi(v);
  }
  // How many threads read the rows and write them (Paimon's scan_parallelism and
  // sink_parallelism); unset: every core. Fewer leave cores to the writers that keep writing.
  int scan_threads = DefaultParallelism(), sink_threads = DefaultParallelism();
  for (auto [name, out] : {std::pair<const char*, int*>{"scan_parallelism", &scan_threads},
                           std::pair<const char*, int*>{"sink_parallelism", &sink_threads}}) {
    if (!args.count(name)) continue;
    const std::string& v = args[name]->text;
    if (v.empty() || v.size() > 4 || !std::all_of(v.begin(), v.end(), ::isdigit) ||
        std::stoi(v) < 1) {
      return ErrorAt(args[name]->pos,
                     std::string(name) + " '" + v + "' is not a positive integer");
    }
    *out = std::stoi(v);
  }
  // The partitions ('k=v,k2=v2', several separated by ';'); none: every partition.
  std::vector<std::map<std::string, std::string>> specs;
  if (args.count("partition")) {
    const Expr* e = args["partition"];
    std::vector<std::pair<std::string, std::map<std::string, std::string>>> listed;
    std::string bad;
    auto not_columns = [&](const std::string& one) {
      return ErrorAt(e->pos, "partition '" + one + "' is not 'key=value,...' of the partition "
                             "columns of " + id.ToString());
    };
    if (!ParsePartitionList(e->text, &listed, &bad)) return not_columns(bad);
    for (auto& [one, spec] : listed) {
      for (const auto& [k, v] : spec) {
        if (std::find(schema->partition_keys.begin(), schema->partition_keys.end(), k) ==
            schema->partition_keys.end()) {
          return not_columns(one);
        }
      }
      if (spec.size() != schema->partition_keys.size()) {
        return ErrorAt(e->pos, "partition '" + one + "' needs a value for every partition column");
      }
      specs.push_back(std::move(spec));
    }
  }
  std::vector<int> pidx;
  for (const auto& k : schema->partition_keys) pidx.push_back(schema->FieldIndex(k));
  auto wanted = [&](const Row& row) {
    if (specs.empty()) return true;
    for (const auto& spec : specs) {
      bool all = true;
      for (size_t i = 0; all && i < pidx.size(); i++) {
        all = meta::PartitionValueString(row[pidx[i]], schema->fields[pidx[i]].type) ==
              spec.at(schema->partition_keys[i]);
      }
      if (all) return true;
    }
    return false;
  };
  // The rows of the latest snapshot, rewritten by one OVERWRITE of the partitions they are in,
  // into `buckets` buckets; it commits only if those partitions still hold the files the rows
  // were read from. A write committed meanwhile makes the attempt fail (nothing is lost): the
  // rows are read again, a few times, before the procedure gives up and says so.
  const bool tty = ::isatty(2);
  constexpr int kAttempts = 5;
  Status last;
  for (int attempt = 1; attempt <= kAttempts; attempt++) {
    TRIB_ASSIGN_OR_RETURN(auto latest, meta::SnapshotManager(table.path()).LatestId());
    if (!latest) return Message("Nothing to rescale in " + id.ToString());
    ScanOptions so;
    so.snapshot_id = latest;
    so.max_batch_rows = 65536;
    auto scan = table.NewScan(so);
    if (!scan.ok()) return Locate(scan.status(), s.pos);
    WriteOptions wo;
    wo.overwrite = true;
    wo.overwrite_buckets = buckets;
    wo.overwrite_base_snapshot = *latest;
    auto writer = table.NewWriter(wo);
    if (!writer.ok()) return Locate(writer.status(), s.pos);
    RowBatch batch;
    int64_t rows = 0;
    while (true) {
      Result<bool> more = [&] {
        ScopedParallelism threads(scan_threads);
        return (*scan)->Next(&batch);
      }();
      if (!more.ok()) return Locate(more.status(), s.pos);
      if (!*more) break;
      ScopedParallelism threads(sink_threads);
      for (Row& r : batch.rows) {
        if (!wanted(r)) continue;
        Status st = (*writer)->Write(RowKind::kInsert, std::move(r));
        if (!st.ok()) return Locate(st, s.pos);
        if (tty && ++rows % 100000 == 0) {
          std::fprintf(stderr, "\rrescaling %s: %lld rows", id.ToString().c_str(),
                       static_cast<long long>(rows));
          std::fflush(stderr);
        }
      }
    }
    if (tty) std::fprintf(stderr, "\r\033[K");
    auto committed = [&] {
      ScopedParallelism threads(sink_threads);
      return (*writer)->CommitAndWaitForCompaction();
    }();
    if (committed.ok()) {
      PrintCommitWarnings(**writer);
      if (!committed->has_value()) return Message("Nothing to rescale in " + id.ToString());
      return Message("Rescaled " + id.ToString() + " to " + std::to_string(buckets) +
                     " bucket(s) (snapshot " + std::to_string(**committed) + ")");
    }
    last = committed.status();
    if (!last.IsConflict()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20 * attempt));
  }
  return Locate(last.IsConflict()
                    ? last.WithContext("gave up after " + std::to_string(kAttempts) +
                                       " attempts: other writers kept changing the partitions; "
                                       "nothing was rescaled")
                    : last,
                s.pos);
}

Result<StatementResult> Session::ExpireChangelogs(const CallStmt& s) {
  const std::string proc = "sys.expire_changelogs";
  TRIB_ASSIGN_OR_RETURN(auto args, ProcedureArgs(s, proc, {"table", "retain_max", "retain_min",
                                                           "older_than", "max_deletes",
                                                           "delete_all"}));
  if (!args.count("table")) {
    return ErrorAt(s.pos, proc + " needs a table: CALL " + proc + "(`table` => 'db.t', ...)");
  }
  const Expr* t = args["table"];
  Identifier id;
  auto table = ProcedureTable(t, &id);
  if (!table.ok()) return table.status();
  auto options = commit::ExpireOptions::From(*(*table)->schema());
  if (!options.ok()) return ErrorAt(t->pos, options.status().message());
  TRIB_RETURN_NOT_OK(RetentionArgs(*this, s, args, &options->changelog_retain_max,
                                   &options->changelog_retain_min, &options->max_deletes,
                                   &options->changelog_older_than_millis));
  if (args.count("delete_all")) {
    const Expr* e = args["delete_all"];
    if (e->literal_kind != LiteralKind::kBool) return ErrorAt(e->pos, "'delete_all' must be TRUE or FALSE");
    if (e->text == "true" || e->text == "TRUE") {
      // Every changelog kept beyond the snapshots goes.
      options->changelog_retain_min = options->changelog_retain_max = 1;
      options->changelog_older_than_millis = INT64_MAX;
      options->max_deletes = INT32_MAX;
    }
  }
  auto r = commit::ExpireChangelogs((*table)->path(), *(*table)->schema(), *options);
  if (!r.ok()) return Locate(r.status(), s.pos);
  return Message("Expired " + std::to_string(*r) + " changelog(s) of " + id.ToString());
}

Result<StatementResult> Session::RemoveOrphanFiles(const CallStmt& s) {
  const std::string proc = "sys.remove_orphan_files";
  TRIB_ASSIGN_OR_RETURN(auto args, ProcedureArgs(s, proc, {"table", "older_than", "dry_run",
                                                           "parallelism", "mode"}));
  if (!args.count("table")) {
    return ErrorAt(s.pos, proc + " needs a table: CALL " + proc + "('db.t'[, older_than, "
                          "dry_run]), or 'db.*' for every table of a database");
  }
  if (args.count("parallelism")) {
    return NotSupportedAt(args["parallelism"]->pos, "argument 'parallelism' of " + proc +
                                                        " is not supported yet");
  }
  if (args.count("mode")) {
    // Paimon's modes choose where the work runs (a Flink job or the client); here it is always
    // this process, so both do the same.
    const Expr* m = args["mode"];
    std::string mode = m->text;
    std::transform(mode.begin(), mode.end(), mode.begin(), ::toupper);
    if (mode != "LOCAL" && mode != "DISTRIBUTED") {
      return ErrorAt(m->pos, "unknown mode '" + m->text + "'; only 'DISTRIBUTED' and 'LOCAL' "
                             "are supported");
    }
  }
  bool dry_run = false;
  if (args.count("dry_run")) {
    const Expr* e = args["dry_run"];
    if (e->literal_kind != LiteralKind::kBool) {
      return ErrorAt(e->pos, "'dry_run' must be TRUE or FALSE");
    }
    dry_run = e->text == "true" || e->text == "TRUE";
  }
  // Paimon's default: files younger than a day may belong to a commit in flight.
  int64_t older_than = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count() -
                       24LL * 3600 * 1000;
  if (args.count("older_than")) {
    const Expr* e = args["older_than"];
    auto millis = SessionTimeToUtcMillis(*this, e->text);
    if (!millis.ok()) return ErrorAt(e->pos, "older_than: " + millis.status().message());
    older_than = *millis;
  }
  const Expr* t = args["table"];
  std::vector<Identifier> ids;
  Catalog* catalog = current_catalog();
  if (t->text.size() > 2 && t->text.compare(t->text.size() - 2, 2, ".*") == 0) {
    const std::string db = t->text.substr(0, t->text.size() - 2);
    auto tables = catalog->ListTables(db);
    if (!tables.ok()) return ErrorAt(t->pos, tables.status().message());
    for (const auto& name : *tables) ids.push_back(Identifier{db, name, ""});
  } else {
    auto id = Identifier::Parse(t->text, current_database_);
    if (!id.ok()) return ErrorAt(t->pos, id.status().message());
    ids.push_back(*id);
  }
  std::vector<Row> rows;
  int64_t files = 0, bytes = 0;
  std::string listed;
  for (const auto& id : ids) {
    auto table = catalog->GetTable(id);
    if (!table.ok()) return ErrorAt(t->pos, table.status().message());
    auto r = commit::RemoveOrphanFiles((*table)->path(), older_than, dry_run);
    if (!r.ok()) return Locate(r.status().WithContext(id.ToString()), s.pos);
    rows.push_back({Value::String(id.ToString()), Value::Int(r->files), Value::Int(r->bytes)});
    files += r->files;
    bytes += r->bytes;
    // A dry run names every file it found (on stderr, after the counts).
    if (dry_run) {
      for (const auto& p : r->paths) listed += "\n  " + id.ToString() + ": " + p;
    }
  }
  StatementResult out = Rows({{0, "table_name", DataType::String(), ""},
                              {0, "deleted_file_count", DataType::BigInt(), ""},
                              {0, "deleted_file_total_len_in_bytes", DataType::BigInt(), ""}},
                             std::move(rows));
  out.message = (dry_run ? "Found " : "Removed ") + std::to_string(files) + " orphan file(s), " +
                std::to_string(bytes) + " bytes" + (dry_run ? " (dry run: nothing removed)" : "") +
                listed;
  return out;
}

namespace {
// The error of a delete_tag / delete_branch list naming `name`, which is not among `existing`.
std::string NothingDeleted(const std::string& what, const std::string& name,
                           const std::vector<std::string>& existing) {
  std::string list;
  for (const auto& e : existing) list += (list.empty() ? "" : ", ") + e;
  return what + " '" + name + "' does not exist (" +
         (existing.empty() ? "the table has no " + what + (what == "branch" ? "es" : "s")
                           : what + (what == "branch" ? "es" : "s") + ": " + list) +
         "); nothing was deleted";
}
}  // namespace

Result<StatementResult> Session::Tags(const CallStmt& s, bool create) {
  // Paimon's arguments, by name or in this order.
  const std::string proc = create ? "sys.create_tag" : "sys.delete_tag";
  const std::vector<std::string> names =
      create ? std::vector<std::string>{"table", "tag", "snapshot_id", "time_retained"}
             : std::vector<std::string>{"table", "tag"};
  TRIB_ASSIGN_OR_RETURN(auto args, ProcedureArgs(s, proc, names));
  if (args.count("time_retained")) {
    return NotSupportedAt(args["time_retained"]->pos,
                          "sys.create_tag's time_retained is not supported yet: a tag is kept "
                          "until sys.delete_tag removes it");
  }
  if (!args.count("table") || !args.count("tag")) {
    return ErrorAt(s.pos, proc + " needs a table and a tag: CALL " + proc + "('db.t', 'tag'" +
                              (create ? "[, snapshot_id])" : ")"));
  }
  const Expr* t = args["table"];
  Identifier id;
  auto table = ProcedureTable(t, &id);
  if (!table.ok()) return table.status();
  const std::string& path = (*table)->path();
  const Expr* tag = args["tag"];
  if (!create) {
    // Several tags: 'a,b'. Every one is checked before any goes, so a failing call changes
    // nothing.
    std::vector<std::string> tags;
    for (const auto& part : SplitCommaList(tag->text)) {
      if (std::find(tags.begin(), tags.end(), part) == tags.end()) tags.push_back(part);
    }
    auto existing = meta::ListTags(path);
    if (!existing.ok()) return Locate(existing.status(), s.pos);
    for (const auto& name : tags) {
      if (std::find(existing->begin(), existing->end(), name) != existing->end()) continue;
      return ErrorAt(tag->pos, NothingDeleted("tag", name, *existing));
    }
    for (const auto& name : tags) {
      Status st = meta::DeleteTag(path, name);
      if (!st.ok()) return ErrorAt(tag->pos, st.message());
    }
    return Message("Deleted tag(s) " + tag->text + " of " + id.ToString());
  }
  meta::SnapshotManager snapshots(path);
  std::optional<int64_t> snapshot_id;
  if (args.count("snapshot_id")) {
    TRIB_ASSIGN_OR_RETURN(snapshot_id, SnapshotIdArg(args["snapshot_id"]));
  } else {
    auto latest = snapshots.LatestId();
    if (!latest.ok()) return Locate(latest.status(), s.pos);
    if (!*latest) return ErrorAt(t->pos, "table " + id.ToString() + " has no snapshot to tag");
    snapshot_id = **latest;
  }
  auto snap = snapshots.Read(*snapshot_id);
  if (!snap.ok()) {
    return ErrorAt(s.pos, "snapshot " + std::to_string(*snapshot_id) + " of " + id.ToString() +
                              " does not exist (expired, or not yet committed)");
  }
  // Paimon writes the tag's creation time as a local date-time ('2024-01-01T10:00:00.123').
  const int64_t now_millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
  std::string now = FormatTimestamp(Timestamp{now_millis, 0});
  if (now.size() > 10) now[10] = 'T';
  Status st = meta::CreateTag(path, tag->text, **snap, now);
  if (!st.ok()) return ErrorAt(tag->pos, st.message());
  return Message("Created tag " + tag->text + " of " + id.ToString() + " at snapshot " +
                 std::to_string(*snapshot_id));
}

namespace {
// Main's 'scan.fallback-branch' (a branch carries main's options as they were when it was made).
Result<std::optional<std::string>> MainFallbackBranch(const std::string& table_path) {
  TRIB_ASSIGN_OR_RETURN(auto main, meta::SchemaManager(meta::DataRoot(table_path)).Latest());
  return main->Option("scan.fallback-branch");
}
}  // namespace

Result<StatementResult> Session::Branches(const CallStmt& s, const std::string& procedure) {
  // Paimon's arguments, by name or in this order.
  const std::string proc = "sys." + procedure;
  const bool create = procedure == "create_branch";
  if (procedure == "rename_branch") {
    // Paimon 2.0's arguments: table, from_branch, to_branch.
    TRIB_ASSIGN_OR_RETURN(auto args, ProcedureArgs(s, proc, {"table", "from_branch", "to_branch"}));
    if (!args.count("table") || !args.count("from_branch") || !args.count("to_branch")) {
      return ErrorAt(s.pos, proc + " needs a table, from_branch and to_branch: CALL " + proc +
                                "('db.t', 'old', 'new')");
    }
    Identifier id;
    auto table = ProcedureTable(args["table"], &id);
    if (!table.ok()) return table.status();
    const std::string from = args["from_branch"]->text, to = args["to_branch"]->text;
    TRIB_ASSIGN_OR_RETURN(auto fallback, MainFallbackBranch((*table)->path()));
    if (fallback && *fallback == from) {
      return ErrorAt(args["from_branch"]->pos, "branch '" + from + "' is the table's "
                                               "'scan.fallback-branch'; reset that option first");
    }
    Status st = meta::RenameBranch(meta::DataRoot((*table)->path()), from, to);
    if (!st.ok()) {
      const bool taken = st.code() == StatusCode::kAlreadyExists;
      return ErrorAt((taken ? args["to_branch"] : args["from_branch"])->pos,
                     st.message());
    }
    return Message("Renamed branch " + from + " of " + id.database + "." + id.table + " to " + to);
  }
  std::vector<std::string> names = {"table", "branch"};
  if (create) names.push_back("tag");
  TRIB_ASSIGN_OR_RETURN(auto args, ProcedureArgs(s, proc, names));
  if (!args.count("table") || !args.count("branch")) {
    return ErrorAt(s.pos, proc + " needs a table and a branch: CALL " + proc + "('db.t', 'b'" +
                              (create ? "[, 'tag'])" : ")"));
  }
  const Expr* t = args["table"];
  Identifier id;
  auto table = ProcedureTable(t, &id);
  if (!table.ok()) return table.status();
  // On a branch (t$branch_x): create_branch starts from its schemas and tags and fast_forward
  // replaces that branch's history (as Paimon's procedures on a branch table); delete and
  // rename act on the table's branches as on the table.
  const std::string path = create ? (*table)->path() : meta::DataRoot((*table)->path());
  const Expr* branch = args["branch"];
  if (procedure == "delete_branch") {
    // Several branches: 'a,b'. One that main reads as its fallback stays. Every one is checked
    // before any goes, so a failing call changes nothing.
    TRIB_ASSIGN_OR_RETURN(auto fallback, MainFallbackBranch((*table)->path()));
    auto existing = meta::ListBranches(path);
    if (!existing.ok()) return Locate(existing.status(), s.pos);
    std::vector<std::string> names;
    for (const auto& name : SplitCommaList(branch->text)) {
      if (std::find(names.begin(), names.end(), name) != names.end()) continue;
      if (fallback && *fallback == name) {
        return ErrorAt(branch->pos, "branch '" + name + "' is the table's 'scan.fallback-branch'; "
                                    "reset that option first (nothing was deleted)");
      }
      if (Status valid = meta::CheckBranchName(name); !valid.ok()) {
        return ErrorAt(branch->pos, valid.message());
      }
      if (std::find(existing->begin(), existing->end(), name) == existing->end()) {
        return ErrorAt(branch->pos, NothingDeleted("branch", name, *existing));
      }
      names.push_back(name);
    }
    for (const auto& name : names) {
      Status st = meta::DeleteBranch(path, name);
      if (!st.ok()) return ErrorAt(branch->pos, st.message());
    }
    return Message("Deleted branch(es) " + branch->text + " of " + id.ToString());
  }
  if (procedure == "fast_forward") {
    auto latest = meta::FastForward(path, branch->text, (*table)->path());
    if (!latest.ok()) return ErrorAt(branch->pos, latest.status().message());
    return Message("Fast-forwarded " + id.ToString() + " to branch " + branch->text +
                   " (latest snapshot " + std::to_string(*latest) + ")");
  }
  std::optional<std::string> tag;
  if (args.count("tag") && !args["tag"]->text.empty()) tag = args["tag"]->text;
  Status st = meta::CreateBranch(path, branch->text, tag);
  if (!st.ok()) {
    const Expr* at = st.IsNotFound() && tag ? args["tag"] : branch;
    return ErrorAt(at->pos, st.message());
  }
  return Message("Created branch " + branch->text + " of " + id.ToString() +
                 (tag ? " from tag " + *tag : std::string(" (empty, with the table's schema)")));
}

Result<StatementResult> Session::RollbackTo(const CallStmt& s) {
  // Paimon's arguments: table, tag, snapshot_id (a positional second argument that is a number
  // is the snapshot id, as older Paimon versions take it).
  const std::string proc = "sys.rollback_to";
  TRIB_ASSIGN_OR_RETURN(auto args, ProcedureArgs(s, proc, {"table", "tag", "snapshot_id"}));
  if (args.count("tag") && args["tag"]->literal_kind == LiteralKind::kInteger &&
      !args.count("snapshot_id") && s.args.size() > 1 && s.args[1].name.empty()) {
    args["snapshot_id"] = args["tag"];
    args.erase("tag");
  }
  if (!args.count("table") || args.count("tag") == args.count("snapshot_id")) {
    return ErrorAt(s.pos, proc + " needs a table and either a tag or a snapshot_id: CALL " + proc +
                              "(`table` => 'db.t', snapshot_id => 3) or (`table` => 'db.t', "
                              "tag => 'name')");
  }
  const Expr* t = args["table"];
  Identifier id;
  auto table = ProcedureTable(t, &id);
  if (!table.ok()) return table.status();
  std::optional<int64_t> snapshot_id;
  std::string tag;
  if (args.count("snapshot_id")) {
    TRIB_ASSIGN_OR_RETURN(snapshot_id, SnapshotIdArg(args["snapshot_id"]));
  } else {
    const Expr* e = args["tag"];
    if (e->literal_kind != LiteralKind::kString || e->text.empty()) {
      return ErrorAt(e->pos, "'tag' must be a tag name string");
    }
    tag = e->text;
  }
  auto r = commit::RollbackTo((*table)->path(), snapshot_id, tag);
  if (!r.ok()) return ErrorAt(s.pos, "cannot roll back " + id.ToString() + ": " + r.status().message());
  StatementResult out;
  out.has_rows = true;
  out.rows.fields = {Field{0, "previous_snapshot_id", DataType::BigInt(), ""},
                     Field{1, "current_snapshot_id", DataType::BigInt(), ""}};
  out.rows.rows.push_back({Value::Int(r->previous_snapshot), Value::Int(r->current_snapshot)});
  out.message = "Rolled " + id.ToString() + " back to snapshot " +
                std::to_string(r->current_snapshot) + " (" + std::to_string(r->snapshots_removed) +
                " later snapshot(s) and " + std::to_string(r->tags_removed) +
                " later tag(s) removed; their files go with CALL sys.remove_orphan_files)";
  return out;
}

Result<StatementResult> Session::Explain(const ExplainStmt& s) {
  if (s.inner->kind != StmtKind::kSelect) {
    return NotSupportedAt(s.pos, "EXPLAIN supports SELECT statements only");
  }
  TRIB_ASSIGN_OR_RETURN(std::string plan,
                        ExplainQuery(*this, static_cast<const SelectStmt&>(*s.inner)));
  return Rows({StringField("plan")}, {{Value::String(plan)}});
}

}  // namespace tributary::sql
