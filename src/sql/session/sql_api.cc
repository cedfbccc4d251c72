// The public SQL API (include/tributary/sql.h) over the session and prepared statements.
#include "sql/exec/operators.h"
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

}  // namespace tributary
