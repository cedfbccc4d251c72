// Session: the state of one `tributary sql` run (catalogs, current catalog and database, session
// options) and the entry point that executes parsed statements against tributary::Catalog.
// Thread-safety: one thread at a time.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sql/parser/ast.h"
#include "sql/planner/query_context.h"
#include "tributary/catalog.h"
#include "tributary/result.h"
#include "tributary/types.h"
#include "tributary/value.h"

namespace tributary {
class Table;
class TableWriter;
class TimeZone;
}  // namespace tributary

namespace tributary::sql {

// Prints on stderr, as "warning: ...", what failed after the writer's last commit had published
// its snapshot (TableWriter::warnings): the statement stands.
void PrintCommitWarnings(const TableWriter& writer);

class Operator;

// A streaming job run through the library (tributary/sql.h SqlJob): how the program stops it,
// and what the job reports after each commit. Thread-safety: `stop` is atomic; the rest is read
// and written under `mu`.
struct StreamJob;  // a streaming INSERT planned (stream_job.cc)

struct JobControl {
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::string name;
  int64_t rows_read = 0;
  int64_t rows_written = 0;
  int64_t commits = 0;
  // As of the last commit (reported once the consumers moved, just after the sink commit is
  // visible): each source's table, the next snapshot and the changes of it read.
  std::vector<std::tuple<std::string, int64_t, int64_t>> positions;
};

struct StatementResult {
  StatementResult();
  StatementResult(StatementResult&&) noexcept;
  StatementResult& operator=(StatementResult&&) noexcept;
  ~StatementResult();

  bool has_rows = false;  // rows to print: `rows`, or those `cursor` hands out
  QueryResult rows;       // with a cursor: only the fields
  // A query's rows, read as they are printed (operators.h); errors while reading belong to the
  // statement at `pos`.
  std::unique_ptr<Operator> cursor;
  // A streaming query: its rows go out as each batch arrives (it may never end).
  bool streaming = false;
  Pos pos;
  std::string message;  // for stderr: "OK", "Inserted 2 rows", ...; with a cursor, set
                        // by whoever reads it
};

// A writer lent for one statement by whoever runs the session (tributary serve's one writer per
// table): the statement writes and commits through `writer`, then calls `give_back` (false after
// a failure: the writer was aborted and is not to be used again).
struct LentWriter {
  TableWriter* writer = nullptr;
  std::function<void(bool ok)> give_back;
};
// Lends a writer of `table` for a plain write (no hints, no OVERWRITE, every column), or none.
using WriterLender = std::function<Result<std::optional<LentWriter>>(Table& table)>;

class Session : public QueryContext {
 public:
  static constexpr const char* kDefaultCatalog = "default_catalog";

  // Opens (and creates when missing) the warehouse of the default catalog.
  static Result<std::unique_ptr<Session>> Open(const std::string& warehouse);

  // Parses and runs one statement whose text starts at `start` in the script. Errors name the
  // line and column: of the offending token or name where known, else of the statement.
  Result<StatementResult> ExecuteText(const std::string& text, Pos start);
  Result<StatementResult> Execute(const Statement& stmt);

  const std::string& current_database() const { return current_database_; }
  const std::map<std::string, std::string>& options() const override { return options_; }
  // How long a streaming SELECT waits for a change before it ends (--idle-timeout-ms); unset: it
  // runs until its LIMIT or until interrupted.
  // The next streaming INSERT runs under `control` (stopped by its flag, no signal handlers),
  // reporting to it; null: as the CLI runs it.
  void set_job_control(JobControl* control) { job_control_ = control; }
  void set_stream_idle_timeout(std::optional<std::chrono::milliseconds> t) {
    stream_idle_timeout_ = t;
  }
  // INSERT, UPDATE and DELETE statements that write a table plainly take their writer from
  // `lender` (when it lends one) instead of opening their own.
  void set_writer_lender(WriterLender lender) { writer_lender_ = std::move(lender); }
  // A streaming INSERT run by this session itself (no job control: the CLI's way, which takes
  // the process's SIGINT and SIGTERM) is refused: the server runs its jobs (server/jobs.h).
  void refuse_unmanaged_jobs() { refuse_unmanaged_jobs_ = true; }
  // What a job started from this session cannot carry over yet: another current catalog than
  // the default one, or temporary views.
  bool UsesSessionObjects() const { return current_catalog_ != kDefaultCatalog || !views_.empty(); }
  // The catalog unqualified names resolve in (USE CATALOG), as an identity: another catalog, or
  // one created again under the same name, is another value.
  const Catalog* current_catalog_identity() const { return current_catalog(); }
  // Reads of the default catalog's tables also see the writes `source` holds uncommitted
  // (read/pending.h: the server's hot tier).
  void set_pending_source(std::shared_ptr<read::PendingSource> source) {
    catalogs_.at(kDefaultCatalog).catalog->set_pending_source(std::move(source));
  }

  // QueryContext's: names resolved in the session's catalogs, its time zone and its views.
  Result<ResolvedName> ResolveTable(const QualifiedName& name) const override;
  const TimeZone* time_zone() const override;
  const TemporaryView* FindTemporaryView(const QualifiedName& name) const override;

 protected:
  std::pair<std::string, std::string> CurrentNames() const override {
    return {current_catalog_, current_database_};
  }

 private:
  struct CatalogEntry {
    std::string type;
    std::string warehouse;
    std::string default_database = "default";
    std::unique_ptr<Catalog> catalog;
  };
  Session() = default;

  Result<std::pair<Catalog*, std::string>> ResolveDatabase(const QualifiedName& name) const;
  Catalog* current_catalog() const { return catalogs_.at(current_catalog_).catalog.get(); }

  Result<StatementResult> CreateDatabase(const CreateDatabaseStmt& s);
  Result<StatementResult> DropDatabase(const DropDatabaseStmt& s);
  Result<StatementResult> CreateTable(const CreateTableStmt& s);
  Result<StatementResult> DropTable(const DropTableStmt& s);
  Result<StatementResult> CreateCatalog(const CreateCatalogStmt& s);
  Result<StatementResult> UseCatalog(const UseCatalogStmt& s);
  Result<StatementResult> Use(const UseStmt& s);
  Result<StatementResult> Show(const ShowStmt& s);
  Result<StatementResult> ShowCreateTable(const ShowStmt& s);
  Result<StatementResult> Describe(const DescribeStmt& s);
  Result<StatementResult> AlterTable(const AlterTableStmt& s);
  Result<StatementResult> Insert(const InsertStmt& s);
  // In streaming mode, INSERT ... SELECT: a job that writes its sources' changes into the sink
  // until stopped, exactly once across restarts (stream_job.cc).
  Result<StatementResult> StreamingInsert(const InsertStmt& s);
  // A statement set in streaming mode: one job whose INSERTs run side by side (stream_job.cc).
  Result<StatementResult> StreamingStatementSet(const std::vector<const InsertStmt*>& inserts);
  // A streaming INSERT planned: its sink opened and locked, its operators built; `name_suffix`
  // names a part of a statement set's job.
  Result<std::unique_ptr<StreamJob>> PrepareJob(const InsertStmt& s,
                                                const std::string& name_suffix);
  // EXPLAIN of it: the job, where its sources resume, its operators (stream_job.cc).
  Result<StatementResult> ExplainStreamingInsert(const InsertStmt& s);
  // The INSERTs of a statement set: each writes its rows; only when all did are they committed,
  // one table after another (dml.cc).
  Result<StatementResult> StatementSet(const std::vector<const InsertStmt*>& inserts);
  Result<StatementResult> CreateView(const CreateViewStmt& s);
  Result<StatementResult> DropView(const DropViewStmt& s);
  // "catalog.database.name" of a view name.
  std::string ViewKey(const QualifiedName& name) const;
  struct PendingWrite;  // an INSERT of a statement set, written and not yet committed (dml.cc)
  Result<StatementResult> Delete(const DeleteStmt& s);
  Result<StatementResult> Update(const UpdateStmt& s);
  Result<StatementResult> Set(const SetStmt& s);
  Result<StatementResult> Reset(const ResetStmt& s);
  Result<StatementResult> ExpireSnapshots(const CallStmt& s);    // CALL sys.expire_snapshots
  Result<StatementResult> RemoveOrphanFiles(const CallStmt& s);  // CALL sys.remove_orphan_files
  Result<StatementResult> ExpireChangelogs(const CallStmt& s);   // CALL sys.expire_changelogs
  // A procedure's `table` argument ('db.t', or 't' in the current database).
  Result<Identifier> ProcedureTableId(const Expr* table) const;
  // That table opened (*id receives its identifier); errors point at the argument.
  Result<std::unique_ptr<Table>> ProcedureTable(const Expr* table, Identifier* id) const;
  Result<StatementResult> Truncate(const TruncateStmt& s);
  // ALTER TABLE t DROP PARTITION (...)[, PARTITION (...)] (dml.cc).
  Result<StatementResult> AddPartitions(const AlterTableStmt& s, const ResolvedName& rn);
  Result<StatementResult> DropPartitions(const AlterTableStmt& s, const ResolvedName& rn);
  // CALL sys.create_tag(table, tag[, snapshot_id]) and sys.delete_tag(table, tags).
  Result<StatementResult> Tags(const CallStmt& s, bool create);
  // sys.create_branch, sys.delete_branch, sys.fast_forward.
  Result<StatementResult> Branches(const CallStmt& s, const std::string& procedure);
  // CALL sys.rollback_to(table, tag | snapshot_id).
  Result<StatementResult> RollbackTo(const CallStmt& s);
  Result<StatementResult> MaintainPartitions(const CallStmt& s);    // CALL sys.maintain_partitions
  Result<StatementResult> ExpirePartitionsCall(const CallStmt& s);  // CALL sys.expire_partitions
  Result<StatementResult> Rescale(const CallStmt& s);               // CALL sys.rescale
  Result<StatementResult> Call(const CallStmt& s);
  Result<StatementResult> Explain(const ExplainStmt& s);
  Result<StatementResult> Select(const SelectStmt& s);

  std::map<std::string, CatalogEntry> catalogs_;
  std::string current_catalog_ = kDefaultCatalog;
  std::string current_database_ = "default";
  std::map<std::string, std::string> options_;  // SET 'key' = 'value', canonical keys
  std::optional<std::chrono::milliseconds> stream_idle_timeout_;
  JobControl* job_control_ = nullptr;
  bool refuse_unmanaged_jobs_ = false;
  // time_zone()'s cache: the zone of the option's value when it was last loaded.
  mutable std::string zone_name_;
  mutable std::shared_ptr<const TimeZone> zone_;
  // CREATE TEMPORARY VIEW: by ViewKey.
  std::map<std::string, TemporaryView> views_;
  // While a statement set runs: where its INSERTs leave their writers instead of committing.
  std::vector<std::unique_ptr<PendingWrite>>* set_writes_ = nullptr;
  WriterLender writer_lender_;
  // BEGIN STATEMENT SET ... END: the INSERTs added so far (text and where it starts).
  std::optional<std::vector<std::pair<std::string, Pos>>> begun_set_;
};

}  // namespace tributary::sql
