// A streaming job's hold on the streams its query opens (session/stream_job.cc installs one while
// it plans the query): each stream gets the job's consumer id for its place in the query (so
// expiration keeps what the job will read, and the position moves as the job commits) and
// resumes where the job's last commit left it; once open, the job reads its position from it.
// Internal to sql/.
// Thread-safety: per thread (planning is synchronous).
#pragma once

#include <memory>

#include "tributary/result.h"

namespace tributary {
class Table;
class StreamScan;
struct StreamOptions;
struct TableSchema;
}  // namespace tributary

namespace tributary::sql::planner {

class StreamJobSources {
 public:
  virtual ~StreamJobSources() = default;
  // Before `table`'s stream opens with `options`: the job sets the consumer id and, resuming,
  // where the stream starts.
  virtual Status Opening(Table& table, StreamOptions* options) = 0;
  // The stream opened; `insert_only`: its changes are all inserts (an append table's, or a
  // change table's rows).
  virtual void Opened(Table& table, StreamScan* stream, bool insert_only) = 0;
};

// Makes `job` the one the streams opened on this thread report to while alive, and plans the
// query as a job's (a top-N breaks ties by value) into `sink` (its schema; may be null). `job` may
// be null: a job's query explained.
class StreamJobScope {
 public:
  explicit StreamJobScope(StreamJobSources* job, const TableSchema* sink = nullptr);
  ~StreamJobScope();
  StreamJobScope(const StreamJobScope&) = delete;
  StreamJobScope& operator=(const StreamJobScope&) = delete;

 private:
  StreamJobSources* previous_;
  bool previous_in_job_;
  const TableSchema* previous_sink_;
};

// `table`'s stream with `options`, through the job in scope if any.
Result<std::unique_ptr<StreamScan>> OpenStream(Table& table, StreamOptions* options,
                                               bool insert_only);

}  // namespace tributary::sql::planner
