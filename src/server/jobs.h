// Streaming INSERT jobs run by `tributary serve` (issue 39; docs/server.md "Jobs"): in streaming
// mode an `INSERT INTO sink SELECT ...` sent to the server starts a job the server owns, as a
// Flink SQL gateway submits one to its cluster: the statement answers with the job's id at once
// and the job runs on until `STOP JOB '<id>'` or the server's stop, whatever becomes of the
// connection that started it. `SHOW JOBS` lists them. Each job has a SQL session of its own
// over the server's warehouse (tributary/sql.h SqlSession::StartJob) with the settings of the
// session that started it.
// Thread-safety: every member may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tributary/result.h"
#include "tributary/schema.h"
#include "tributary/value.h"

namespace tributary::server {

class ServerJobs {
 public:
  static ServerJobs& Instance();

  // Starts `statement` (an INSERT INTO ... SELECT) as a job over `warehouse`, in database
  // `database`, with the session options `options` ('execution.runtime-mode' aside). Returns
  // the job's id once it is planned and running; a statement that cannot start (an unknown
  // table, a type that does not fit) is the error, and no job is kept.
  Result<std::string> Start(const std::string& warehouse, const std::string& database,
                            const std::map<std::string, std::string>& options,
                            const std::string& statement);

  struct Info {
    std::string id;
    std::string name;    // 'pipeline.name'
    std::string status;  // RUNNING, FINISHED (stopped, or ended), FAILED
    int64_t start_millis = 0;
    int64_t changes_read = 0, changes_written = 0, commits = 0;  // as of its last commit
    std::string message;  // what it said when it ended, or its error
  };
  // Every job started since the server started (the 100 most recent that ended), oldest first.
  std::vector<Info> List() const;

  // Stops job `id` (it commits what it has read, then ends) and waits for it: what it said.
  // NotFound for an unknown id.
  Result<std::string> Stop(const std::string& id);
  // At the server's stop: every running job, as Stop.
  void StopAll();

  // Jobs running now.
  int64_t running() const;

  struct Job;

 private:
  ServerJobs() = default;
};

// The server's job statements: `SHOW JOBS`, `STOP JOB '<id>'`, and (`streaming`: the session is
// in streaming mode) an INSERT, which starts a job (or a statement set, refused).
bool IsJobStatement(const std::string& text, bool streaming);

// What a job statement answers: its rows and command tag.
struct JobAnswer {
  std::vector<Field> fields;
  std::vector<Row> rows;
  std::string tag;
};
// Runs job statement `text` for a session over `warehouse` in `database` with `options`.
Result<JobAnswer> RunJobStatement(const std::string& text, const std::string& warehouse,
                                  const std::string& database,
                                  const std::map<std::string, std::string>& options);

}  // namespace tributary::server
