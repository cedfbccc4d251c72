// Session: the DDL statements (CREATE / DROP DATABASE, TABLE and CATALOG, USE, ALTER TABLE).
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
#include "sql/session/session.h"
#include "sql/session/session_internal.h"
#include "table/auto_partition.h"
#include "table/partition_expire.h"
#include "tributary/options.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"
#include "tributary/table_writer.h"

namespace tributary::sql {

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

namespace {

// What CREATE TABLE ... LIKE copies besides the columns: keys and options, as its clauses say.
struct LikeSource {
  std::vector<std::string> primary_keys, partition_keys;
  std::map<std::string, std::string> options;
};

// The LIKE source's columns into `spec` (and their names into `names`), and what else it has.
Status ReadLikeSource(const QueryContext& context, const CreateTableStmt& s, TableSpec* spec,
                      std::vector<std::string>* names, LikeSource* like) {
  TRIB_ASSIGN_OR_RETURN(ResolvedName src, context.ResolveTable(*s.like));
  if (!src.id.system_table.empty()) {
    return ErrorAt(s.like->pos, "CREATE TABLE ... LIKE copies a data table, not a system table");
  }
  auto source = src.catalog->GetTable(src.id);
  if (!source.ok()) return ErrorAt(s.like->pos, source.status().message());
  const auto schema = (*source)->schema();
  for (const auto& f : schema->fields) {
    Field copy = f;
    copy.id = 0;
    spec->columns.push_back(std::move(copy));
    names->push_back(f.name);
  }
  if (s.like_constraints) like->primary_keys = schema->primary_keys;
  if (s.like_partitions) like->partition_keys = schema->partition_keys;
  if (s.like_options != CreateTableStmt::LikeOptions::kExcluding) like->options = schema->options;
  if (spec->comment.empty()) spec->comment = schema->comment;
  return Status::OK();
}

// The LIKE source's keys and options into `spec`, where the statement does not set its own (a
// key or option both set is an error, as Flink's LIKE clauses say).
Status ApplyLikeSource(const CreateTableStmt& s, LikeSource like, TableSpec* spec) {
  if (!like.primary_keys.empty()) {
    if (!s.primary_key.empty()) {
      return ErrorAt(s.primary_key_pos[0],
                     "the table copied by LIKE has a primary key already "
                     "(use EXCLUDING CONSTRAINTS to define another)");
    }
    spec->primary_keys = like.primary_keys;
  }
  if (!like.partition_keys.empty()) {
    if (!s.partition_by.empty()) {
      return ErrorAt(s.partition_by_pos[0],
                     "the table copied by LIKE is partitioned already "
                     "(use EXCLUDING PARTITIONS to partition it otherwise)");
    }
    spec->partition_keys = like.partition_keys;
  }
  for (const auto& o : s.options) {
    if (s.like_options == CreateTableStmt::LikeOptions::kIncluding && like.options.count(o.key)) {
      return ErrorAt(o.pos, "option '" + o.key +
                                "' is set by the table copied by LIKE too "
                                "(OVERWRITING OPTIONS, the default, lets WITH win)");
    }
  }
  spec->options = std::move(like.options);
  return Status::OK();
}

}  // namespace

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
  LikeSource like;
  if (s.like) TRIB_RETURN_NOT_OK(ReadLikeSource(*this, s, &spec, &names, &like));
  // Computed columns count among the columns for their positions (the LIKE source's first).
  std::vector<ComputedColumn> computed;
  std::vector<std::string> computed_names;
  int position = static_cast<int>(names.size());
  if (s.like) {
    TRIB_ASSIGN_OR_RETURN(auto copied, ComputedColumnsOf(like.options));
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
        return ErrorAt(pos[i],
                       std::string(what) + " column '" + n + "' is not a column of the table");
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
          return ErrorAt(s.name.pos, "computed column '" + n +
                                         "' cannot be a primary key or "
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
  if (s.like) TRIB_RETURN_NOT_OK(ApplyLikeSource(s, std::move(like), &spec));
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
      return ErrorAt(o.pos, "option '" + o.key +
                                "' records a computed column, metadata column or "
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
          return ErrorAt(s.as_select->pos,
                         "NULL value for NOT NULL column '" + spec.columns[i].name + "'");
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
      TRIB_ASSIGN_OR_RETURN(std::unique_ptr<TableWriter> writer, table->NewWriter(WriteOptions{}));
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
    return ErrorAt(s.pos,
                   "catalog type '" + entry.type + "' is not supported; use 'paimon' or 'fluss'");
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
          return ErrorAt(pos, "option '" + k +
                                  "' is fixed when the table is created; "
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
          TRIB_ASSIGN_OR_RETURN(
              computed_adds.back(),
              BindComputedColumn(a.def.name, *a.def.expr, current.fields, computed_names));
        }
        ColumnChange c;
        c.column = a.def.name;
        switch (a.kind) {
          case AlterColumn::Kind::kAdd:
            c.kind = ColumnChange::Kind::kAdd;
            break;
          case AlterColumn::Kind::kDrop:
            c.kind = ColumnChange::Kind::kDrop;
            break;
          case AlterColumn::Kind::kRename:
            c.kind = ColumnChange::Kind::kRename;
            break;
          case AlterColumn::Kind::kModify:
            c.kind = ColumnChange::Kind::kModify;
            break;
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

}  // namespace tributary::sql
