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

#include <cstdint>
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

// Where a job had read one of its sources as of its last commit.
struct JobPosition {
  std::string table;          // "db.t"
  int64_t next_snapshot = 0;  // the snapshot whose changes come next
  int64_t offset = 0;         // how many of that snapshot's changes were read already
};

// A streaming job (`INSERT INTO sink SELECT ...` in streaming mode, docs/streaming.md) running
// on a thread of its own (SqlSession::StartJob). The session belongs to the job until it stops.
// Thread-safety: every method may be called from any thread.
class SqlJob {
 public:
  // Stops the job (Stop) and waits for it.
  ~SqlJob();
  // Asks the job to stop: it commits what it has read, then ends. Returns at once.
  void Stop();
  // Until the job has stopped (Stop): what it says when
  // it stops ("Job 'x' stopped: N change(s) written to db.t in K commit(s)"), or its error.
  Result<std::string> Wait();
  bool running() const;
  // Its name ('pipeline.name'), once it has started.
  std::string name() const;
  int64_t changes_read() const;     // as of its last commit
  int64_t changes_written() const;  // as of its last commit
  int64_t commits() const;
  // Where it had read each source as of its last commit (what a restart resumes from).
  std::vector<JobPosition> positions() const;

 private:
  friend class SqlSession;
  struct State;
  explicit SqlJob(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
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
  // Starts `statement`, an INSERT INTO ... SELECT, as a streaming job whatever the session's
  // 'execution.runtime-mode' (its other options apply: 'pipeline.name', the commit interval,
  // ...). The job runs on a thread of its own until SqlJob::Stop; the session must not be used
  // until SqlJob::Wait returns. Errors in the statement are the job's (Wait returns them).
  Result<std::unique_ptr<SqlJob>> StartJob(const std::string& statement);
  // Parses one statement with '?' markers, to run it many times.
  Result<std::unique_ptr<SqlStatement>> Prepare(const std::string& statement);

 private:
  SqlSession() = default;
  std::unique_ptr<sql::Session> session_;
};

}  // namespace tributary
