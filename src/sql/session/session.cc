// Session: opening, running a statement text, resolving names, views, SELECT, SET / RESET and
// EXPLAIN; DDL in session_ddl.cc, SHOW and DESCRIBE in session_show.cc, CALL in
// session_procedures.cc (their shared helpers: session_internal.h).
#include "sql/session/session.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <thread>

#include "commit/orphan_files.h"
#include "commit/rollback.h"
#include "commit/snapshot_expire.h"
#include "common/datetime.h"
#include "common/parallel.h"
#include "common/strings.h"
#include "common/timezone.h"
#include "io/file_system.h"
#include "meta/branches.h"
#include "meta/paths.h"
#include "meta/schema_manager.h"
#include "meta/snapshot.h"
#include "meta/tags.h"
#include "options/core_options.h"
#include "options/option_values.h"
#include "sql/binder/cast.h"
#include "sql/binder/computed.h"
#include "sql/binder/functions.h"
#include "sql/exec/interrupt.h"
#include "sql/exec/operators.h"
#include "sql/parser/parser.h"
#include "sql/planner/query.h"
#include "sql/planner/query_internal.h"
#include "sql/session/session_internal.h"
#include "table/auto_partition.h"
#include "table/partition_expire.h"
#include "tributary/options.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"
#include "tributary/table_writer.h"

namespace tributary::sql {

// ---- what the session's files share (session_internal.h)

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

Field StringField(const std::string& name, bool nullable) {
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

void PrintCommitWarnings(const TableWriter& writer) {
  for (const std::string& w : writer.warnings()) std::fprintf(stderr, "warning: %s\n", w.c_str());
}

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
    return ErrorAt(stmt->pos,
                   "only INSERT statements can be added to a statement set; END runs "
                   "it");
  }
  auto r = Execute(*stmt);
  if (!r.ok()) return Locate(r.status(), stmt->pos);
  return r;
}

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
      const bool writes =
          stmt.kind == StmtKind::kCreateDatabase || stmt.kind == StmtKind::kCreateTable;
      if (!writes) {
        return Status::NotFound("warehouse '" + warehouse +
                                "' does not exist (a statement "
                                "that writes, such as CREATE TABLE, creates it)");
      }
      TRIB_ASSIGN_OR_RETURN(auto created, Catalog::Open(warehouse));  // creates it
      catalogs_.at(kDefaultCatalog).catalog = std::move(created);
    }
  }
  switch (stmt.kind) {
    case StmtKind::kSelect:
      return Select(static_cast<const SelectStmt&>(stmt));
    case StmtKind::kCreateDatabase:
      return CreateDatabase(static_cast<const CreateDatabaseStmt&>(stmt));
    case StmtKind::kDropDatabase:
      return DropDatabase(static_cast<const DropDatabaseStmt&>(stmt));
    case StmtKind::kCreateTable:
      return CreateTable(static_cast<const CreateTableStmt&>(stmt));
    case StmtKind::kDropTable:
      return DropTable(static_cast<const DropTableStmt&>(stmt));
    case StmtKind::kCreateCatalog:
      return CreateCatalog(static_cast<const CreateCatalogStmt&>(stmt));
    case StmtKind::kUseCatalog:
      return UseCatalog(static_cast<const UseCatalogStmt&>(stmt));
    case StmtKind::kUse:
      return Use(static_cast<const UseStmt&>(stmt));
    case StmtKind::kShow:
      return Show(static_cast<const ShowStmt&>(stmt));
    case StmtKind::kDescribe:
      return Describe(static_cast<const DescribeStmt&>(stmt));
    case StmtKind::kAlterTable:
      return AlterTable(static_cast<const AlterTableStmt&>(stmt));
    case StmtKind::kInsert:
      return Insert(static_cast<const InsertStmt&>(stmt));
    case StmtKind::kDelete:
      return Delete(static_cast<const DeleteStmt&>(stmt));
    case StmtKind::kUpdate:
      return Update(static_cast<const UpdateStmt&>(stmt));
    case StmtKind::kSet:
      return Set(static_cast<const SetStmt&>(stmt));
    case StmtKind::kReset:
      return Reset(static_cast<const ResetStmt&>(stmt));
    case StmtKind::kCall:
      return Call(static_cast<const CallStmt&>(stmt));
    case StmtKind::kExplain:
      return Explain(static_cast<const ExplainStmt&>(stmt));
    case StmtKind::kTruncate:
      return Truncate(static_cast<const TruncateStmt&>(stmt));
    case StmtKind::kCreateView:
      return CreateView(static_cast<const CreateViewStmt&>(stmt));
    case StmtKind::kDropView:
      return DropView(static_cast<const DropViewStmt&>(stmt));
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

Result<ResolvedName> Session::ResolveTable(const QualifiedName& name) const {
  ResolvedName out;
  auto [in_catalog, db] = ResolvingIn();
  out.catalog_name = in_catalog;
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
  const auto [cur_catalog, cur_db] = ResolvingIn();
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
    return NotSupportedAt(s.name.pos,
                          "CREATE VIEW: the filesystem catalog stores no views (as "
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
      return ErrorAt(s.name.pos, "view " + key +
                                     " does not exist (the filesystem catalog stores "
                                     "no views; only temporary ones exist)");
    }
    return ErrorAt(s.name.pos, "temporary view " + key + " does not exist");
  }
  out.message = "Temporary view " + key + " dropped";
  return out;
}

Result<std::pair<Catalog*, std::string>> Session::ResolveDatabase(const QualifiedName& name) const {
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

Result<StatementResult> Session::Set(const SetStmt& s) {
  if (!s.key) {
    std::vector<Row> rows;
    for (const auto& [k, v] : options_) rows.push_back({Value::String(k), Value::String(v)});
    return Rows({StringField("key"), StringField("value")}, std::move(rows));
  }
  auto canonical = CheckOption(OptionScope::kSession, *s.key, s.value);
  if (!canonical.ok()) return ErrorAt(s.key_pos, canonical.status().message());
  if (const OptionDef* def = FindOption(OptionScope::kSession, *canonical);
      def && !def->supported) {
    return NotSupportedAt(s.key_pos,
                          "option '" + *canonical + "' is recognised but not supported yet");
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

Result<StatementResult> Session::Explain(const ExplainStmt& s) {
  if (s.inner->kind == StmtKind::kInsert && streaming()) {
    const auto& insert = static_cast<const InsertStmt&>(*s.inner);
    if (insert.source->values.empty()) return ExplainStreamingInsert(insert);
  }
  if (s.inner->kind != StmtKind::kSelect) {
    return NotSupportedAt(s.pos,
                          "EXPLAIN supports SELECT statements, and INSERT ... SELECT in "
                          "streaming mode (a job), only");
  }
  TRIB_ASSIGN_OR_RETURN(std::string plan,
                        ExplainQuery(*this, static_cast<const SelectStmt&>(*s.inner)));
  return Rows({StringField("plan")}, {{Value::String(plan)}});
}

}  // namespace tributary::sql
