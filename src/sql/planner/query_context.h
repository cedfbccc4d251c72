// QueryContext: what planning and running a query needs from the statement's surroundings — the
// session options, table names resolved against the catalogs, temporary views, the scope of
// unqualified names — without the session itself. Session (sql/session/session.h) is one; the
// planner depends on this interface only, so it sits below the session in the module order.
// Thread-safety: one thread at a time.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sql/parser/ast.h"
#include "tributary/catalog.h"
#include "tributary/result.h"
#include "tributary/types.h"
#include "tributary/value.h"

namespace tributary {
class TimeZone;
}  // namespace tributary

namespace tributary::sql {

// Rows of a query, with their column names and types.
struct QueryResult {
  std::vector<Field> fields;
  std::vector<Row> rows;
};

// A table name resolved against the session: which catalog, which identifier.
struct ResolvedName {
  Catalog* catalog = nullptr;
  std::string catalog_name;
  Identifier id;
};

class QueryContext {
 public:
  virtual ~QueryContext() = default;

  // SET options, canonical keys.
  virtual const std::map<std::string, std::string>& options() const = 0;
  // SET 'execution.runtime-mode' = 'streaming': SELECTs follow their table's changes.
  bool streaming() const {
    auto it = options().find("execution.runtime-mode");
    return it != options().end() && it->second == "streaming";
  }
  // t, db.t, catalog.db.t (each optionally with $system).
  virtual Result<ResolvedName> ResolveTable(const QualifiedName& name) const = 0;
  // The zone of 'table.local-time-zone' (loaded once per value), or null when unset (UTC).
  virtual const TimeZone* time_zone() const = 0;
  // A temporary view: its query, and the catalog and database its unqualified names read (the
  // ones current when it was created, as Flink's views).
  struct TemporaryView {
    CommonTableExpr query;
    std::string catalog;
    std::string database;
  };
  // The temporary view `name` names (v, db.v, catalog.db.v), or null: a query reads it as a
  // WITH query of that name (temporary views shadow tables, as in Flink).
  virtual const TemporaryView* FindTemporaryView(const QualifiedName& name) const = 0;
  // The catalog and database unqualified names resolve in now (a NameScope's, else the
  // current ones).
  std::pair<std::string, std::string> ResolvingIn() const {
    return name_scopes_.empty() ? CurrentNames() : name_scopes_.back();
  }
  // While it lives, unqualified names resolve in `catalog`.`database` (a view's body).
  class NameScope {
   public:
    NameScope(const QueryContext& context, std::string catalog, std::string database)
        : context_(context) {
      context_.name_scopes_.emplace_back(std::move(catalog), std::move(database));
    }
    ~NameScope() { context_.name_scopes_.pop_back(); }
    NameScope(const NameScope&) = delete;
    NameScope& operator=(const NameScope&) = delete;

   private:
    const QueryContext& context_;
  };

 protected:
  // The current catalog and database (USE CATALOG, USE).
  virtual std::pair<std::string, std::string> CurrentNames() const = 0;

 private:
  // NameScope's stack: (catalog, database) that unqualified names resolve in, innermost last.
  mutable std::vector<std::pair<std::string, std::string>> name_scopes_;
};

}  // namespace tributary::sql
