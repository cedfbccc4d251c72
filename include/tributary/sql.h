// SQL from a C++ program: a session over a warehouse runs statements as `tributary sql` does
// (the same dialect, docs/sql.md), and hands a query's rows out in column batches. Prepared
// statements take '?' parameters and run many times (a point lookup by the whole primary key is
// planned once).
//
//   auto session = SqlSession::Open("/data/warehouse");
//   (*session)->Execute("CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)");
//   auto get = (*session)->Prepare("SELECT v FROM t WHERE id = ?");
//   auto rows = (*get)->Execute({Value::Int(7)})->ReadAll();
//
// Thread-safety: a session, its statements and results are used by one thread at a time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tributary/column_batch.h"
#include "tributary/result.h"
#include "tributary/schema.h"
#include "tributary/value.h"

namespace tributary {

namespace sql {
class Session;
class PreparedStatement;
struct StatementResult;
}  // namespace sql

// What one statement did: rows (a query, SHOW, DESCRIBE, EXPLAIN, ...) read batch by batch, or
// a message ("Table default.t created", "Inserted 2 rows").
class SqlResult {
 public:
  SqlResult(SqlResult&&) noexcept;
  SqlResult& operator=(SqlResult&&) noexcept;
  ~SqlResult();

  bool has_rows() const;
  // The columns of the rows (empty without rows).
  const std::vector<Field>& fields() const;
  // What the statement did, for a statement without rows; for a query, "N rows" once they are
  // all read.
  const std::string& message() const;
  // Replaces `batch` with the next rows (at least one) and returns true, or returns false at the
  // end. A streaming query ('execution.runtime-mode' = 'streaming') waits for new changes and
  // may never end; a batch handed out counts as delivered (a consumer id's position moves past
  // it, as the CLI's does once it printed the rows).
  Result<bool> Next(ColumnBatch* batch);
  // Every remaining row (not for a streaming query that never ends).
  Result<std::vector<Row>> ReadAll();

 private:
  friend class SqlSession;
  friend class SqlStatement;
  explicit SqlResult(std::unique_ptr<sql::StatementResult> r);
  std::unique_ptr<sql::StatementResult> r_;
  size_t next_row_ = 0;  // rows held in memory: the next to hand out
  int64_t read_ = 0;     // rows handed out
};

// A statement with '?' parameters, parsed once (SqlSession::Prepare).
class SqlStatement {
 public:
  ~SqlStatement();
  // The number of '?' markers; Execute takes one value for each, in the order they appear.
  size_t parameter_count() const;
  // Runs the statement with `params` in place of its markers (NULL, a boolean, an integer, a
  // DOUBLE, a string or a TIMESTAMP: each reads as a literal of that type would).
  Result<SqlResult> Execute(const std::vector<Value>& params);

 private:
  friend class SqlSession;
  explicit SqlStatement(std::unique_ptr<sql::PreparedStatement> p);
  std::unique_ptr<sql::PreparedStatement> p_;
};

class SqlSession {
 public:
  // A session over the warehouse at `warehouse` (a directory, file:// or s3:// URI; a local
  // directory that does not exist is made by the first CREATE). Its catalog is `default_catalog`,
  // its database `default`, as the CLI's.
  static Result<std::unique_ptr<SqlSession>> Open(const std::string& warehouse);
  ~SqlSession();
  // Runs one statement. Errors name the statement's line and column.
  Result<SqlResult> Execute(const std::string& statement);
  // Parses one statement with '?' markers, to run it many times.
  Result<std::unique_ptr<SqlStatement>> Prepare(const std::string& statement);

 private:
  SqlSession() = default;
  std::unique_ptr<sql::Session> session_;
};

}  // namespace tributary
