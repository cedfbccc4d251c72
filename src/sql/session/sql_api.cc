// The public SQL API (include/tributary/sql.h) over the session and prepared statements.
#include <optional>
#include <thread>

#include "sql/exec/operators.h"
#include "sql/parser/lexer.h"
#include "sql/parser/parser.h"
#include "sql/session/prepared.h"
#include "sql/session/session.h"
#include "tributary/sql.h"

namespace tributary {

SqlResult::SqlResult(std::unique_ptr<sql::StatementResult> r) : r_(std::move(r)) {}
SqlResult::SqlResult(SqlResult&&) noexcept = default;
SqlResult& SqlResult::operator=(SqlResult&&) noexcept = default;
SqlResult::~SqlResult() = default;

bool SqlResult::has_rows() const { return r_->has_rows; }

const std::vector<Field>& SqlResult::fields() const { return r_->rows.fields; }

const std::string& SqlResult::message() const { return r_->message; }

Result<bool> SqlResult::Next(ColumnBatch* batch) {
  batch->Clear();
  if (!r_->has_rows) return false;
  if (r_->cursor) {
    TRIB_ASSIGN_OR_RETURN(bool more, r_->cursor->Next(batch));
    if (!more) {
      r_->message = std::to_string(read_) + (read_ == 1 ? " row" : " rows");
      return false;
    }
    read_ += static_cast<int64_t>(batch->num_rows);
    // Handed out is delivered: a streaming source's consumer moves on.
    TRIB_RETURN_NOT_OK(r_->cursor->Checkpoint(std::nullopt));
    return true;
  }
  // Rows held in memory (SHOW, DESCRIBE, ...): one batch of what is left.
  const std::vector<Row>& rows = r_->rows.rows;
  if (next_row_ >= rows.size()) return false;
  batch->columns.resize(r_->rows.fields.size());
  for (size_t c = 0; c < batch->columns.size(); c++) {
    batch->columns[c].type = r_->rows.fields[c].type;
    batch->columns[c].rep = ColumnVector::RepOf(batch->columns[c].type);
  }
  for (; next_row_ < rows.size(); next_row_++) {
    for (size_t c = 0; c < batch->columns.size(); c++) {
      batch->columns[c].Append(rows[next_row_][c]);
    }
    batch->num_rows++;
  }
  read_ += static_cast<int64_t>(batch->num_rows);
  return true;
}

Result<std::vector<Row>> SqlResult::ReadAll() {
  std::vector<Row> out;
  ColumnBatch batch;
  while (true) {
    TRIB_ASSIGN_OR_RETURN(bool more, Next(&batch));
    if (!more) break;
    for (size_t r = 0; r < batch.num_rows; r++) {
      Row row;
      row.reserve(batch.columns.size());
      for (const ColumnVector& c : batch.columns) row.push_back(c.Get(r));
      out.push_back(std::move(row));
    }
  }
  return out;
}

SqlStatement::SqlStatement(std::unique_ptr<sql::PreparedStatement> p) : p_(std::move(p)) {}
SqlStatement::~SqlStatement() = default;

size_t SqlStatement::parameter_count() const { return p_->parameter_count(); }

Result<SqlResult> SqlStatement::Execute(const std::vector<Value>& params) {
  TRIB_ASSIGN_OR_RETURN(sql::StatementResult r, p_->Execute(params));
  return SqlResult(std::make_unique<sql::StatementResult>(std::move(r)));
}

Result<std::unique_ptr<SqlSession>> SqlSession::Open(const std::string& warehouse) {
  std::unique_ptr<SqlSession> s(new SqlSession());
  TRIB_ASSIGN_OR_RETURN(s->session_, sql::Session::Open(warehouse));
  return s;
}

SqlSession::~SqlSession() = default;

Result<SqlResult> SqlSession::Execute(const std::string& statement) {
  TRIB_ASSIGN_OR_RETURN(sql::StatementResult r, session_->ExecuteText(statement, sql::Pos{}));
  return SqlResult(std::make_unique<sql::StatementResult>(std::move(r)));
}

Result<std::unique_ptr<SqlStatement>> SqlSession::Prepare(const std::string& statement) {
  TRIB_ASSIGN_OR_RETURN(auto p, sql::Prepare(session_.get(), statement));
  return std::unique_ptr<SqlStatement>(new SqlStatement(std::move(p)));
}

struct SqlJob::State {
  sql::JobControl control;
  std::thread thread;
  mutable std::mutex mu;
  bool done = false;
  Status status;
  std::string message;
};

SqlJob::SqlJob(std::shared_ptr<State> state) : state_(std::move(state)) {}

SqlJob::~SqlJob() {
  Stop();
  if (state_->thread.joinable()) state_->thread.join();
}

void SqlJob::Stop() { state_->control.stop.store(true); }

Result<std::string> SqlJob::Wait() {
  if (state_->thread.joinable()) state_->thread.join();
  std::lock_guard<std::mutex> lock(state_->mu);
  if (!state_->status.ok()) return state_->status;
  return state_->message;
}

bool SqlJob::running() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return !state_->done;
}

std::string SqlJob::name() const {
  std::lock_guard<std::mutex> lock(state_->control.mu);
  return state_->control.name;
}

int64_t SqlJob::changes_read() const {
  std::lock_guard<std::mutex> lock(state_->control.mu);
  return state_->control.rows_read;
}

int64_t SqlJob::changes_written() const {
  std::lock_guard<std::mutex> lock(state_->control.mu);
  return state_->control.rows_written;
}

int64_t SqlJob::commits() const {
  std::lock_guard<std::mutex> lock(state_->control.mu);
  return state_->control.commits;
}

std::vector<JobPosition> SqlJob::positions() const {
  std::lock_guard<std::mutex> lock(state_->control.mu);
  std::vector<JobPosition> out;
  for (const auto& [table, snapshot, offset] : state_->control.positions) {
    out.push_back({table, snapshot, offset});
  }
  return out;
}

Result<std::unique_ptr<SqlJob>> SqlSession::StartJob(const std::string& statement) {
  TRIB_ASSIGN_OR_RETURN(sql::StatementPtr parsed, sql::ParseStatement(statement));
  if (parsed->kind != sql::StmtKind::kInsert ||
      !static_cast<const sql::InsertStmt&>(*parsed).source->values.empty()) {
    return Status::Invalid("a job runs an INSERT INTO ... SELECT statement");
  }
  auto state = std::make_shared<SqlJob::State>();
  sql::Session* session = session_.get();
  state->thread = std::thread([session, state, statement,
                               quoted = sql::DoubleQuotedIdentifiers::Active()] {
    std::optional<sql::DoubleQuotedIdentifiers> dialect;  // as where it was started
    if (quoted) dialect.emplace();
    // The statement runs in streaming mode; the session's mode is left as it was.
    auto mode = session->options().find("execution.runtime-mode");
    const std::string before = mode == session->options().end() ? "" : mode->second;
    Status st = session->ExecuteText("SET 'execution.runtime-mode' = 'streaming'", {}).status();
    Result<sql::StatementResult> r = st;
    if (st.ok()) {
      session->set_job_control(&state->control);
      r = session->ExecuteText(statement, {});
      session->set_job_control(nullptr);
      (void)session->ExecuteText(before.empty() ? "RESET 'execution.runtime-mode'"
                                                : "SET 'execution.runtime-mode' = '" + before + "'",
                                 {});
    }
    std::lock_guard<std::mutex> lock(state->mu);
    state->done = true;
    if (!r.ok()) {
      state->status = r.status();
    } else {
      state->message = r->message;
    }
  });
  return std::unique_ptr<SqlJob>(new SqlJob(std::move(state)));
}

}  // namespace tributary
