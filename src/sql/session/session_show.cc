// Session: SHOW, SHOW CREATE TABLE and DESCRIBE.
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
                    Value::Bool(f.type.nullable), is_key ? Value::String(key_text) : Value::Null(),
                    f.description.empty() ? Value::Null() : Value::String(f.description)});
  }
  return Rows({StringField("name"), StringField("type"),
               Field{0, "null", DataType::Boolean().NotNull(), ""}, StringField("key", true),
               StringField("comment", true)},
              std::move(rows));
}

}  // namespace tributary::sql
