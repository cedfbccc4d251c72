// Prepared statements: a statement with '?' parameters, parsed once and run many times with
// values in their place (the library's counterpart of JDBC's PreparedStatement; the CLI takes no
// parameters). A SELECT that fixes a primary-key table's whole key with parameters
// (`SELECT a, b FROM t WHERE id = ?`) is planned once as a point lookup that keeps its
// TableLookup: each run checks the table's latest snapshot (one stat while nothing is
// committed), looks the key up and projects the row. Every other statement runs as its text with
// the values written in as literals.
// Thread-safety: one thread at a time, with its Session.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sql/parser/lexer.h"
#include "tributary/result.h"
#include "tributary/types.h"
#include "tributary/value.h"

namespace tributary::sql {

class Session;
struct StatementResult;

// How a string parameter is written into the statement: as a string literal; as a binary literal
// (X'00ff', for BINARY / BYTES columns); or as an exact numeric literal (a DECIMAL: `12.50`;
// `-1.5E-3` written out as `-0.0015`), the string checked to be a number (PostgreSQL's numeric).
enum class ParamForm : uint8_t { kString, kBytes, kNumeric };

class PreparedStatement {
 public:
  ~PreparedStatement();
  // The number of '?' markers; Execute takes one value for each, in the order they appear.
  size_t parameter_count() const { return parameters_.size(); }
  // Runs the statement with `params` in place of its markers. A parameter is NULL, a boolean, an
  // integer, a DOUBLE, a string, a DECIMAL or a TIMESTAMP value; it reads as a literal of that
  // type would (an integer compared with an INT column, a string with a VARCHAR one).
  // `forms`, when given (one per parameter): how each string parameter is written in (ParamForm).
  Result<StatementResult> Execute(const std::vector<Value>& params,
                                  const std::vector<ParamForm>* forms = nullptr);
  // "a point lookup of <table> by (k1, k2)" when runs skip planning, else "a statement"
  // (what tests and benchmarks check).
  std::string Describe() const;

 private:
  friend Result<std::unique_ptr<PreparedStatement>> Prepare(Session* session,
                                                            const std::string& text, Pos start);
  struct PointLookup;
  PreparedStatement(Session* session, std::string text, Pos start);
  // The point-lookup plan of the statement, when it is one (null otherwise).
  Status PlanPointLookup();
  Result<StatementResult> ExecuteText(const std::vector<Value>& params,
                                      const std::vector<ParamForm>* forms = nullptr);

  Session* session_;
  std::string text_;
  Pos start_;
  std::vector<size_t> parameters_;  // byte offsets of the '?' markers in text_
  std::vector<Pos> parameter_pos_;
  std::unique_ptr<PointLookup> lookup_;
};

// What a driver learns of a statement before it runs it (PostgreSQL's Describe of a prepared
// statement, JDBC's ParameterMetaData): the type each '?' marker takes from its context and a
// query's columns, found by planning the statement (never running it: no row is read or
// written, no uncorrelated subquery run) with a NULL in each marker's place, typed where it is
// converted (sql/binder/expression.h ParameterTypeScope): `id = ?` the column's type, `?` in an
// INSERT's VALUES or an UPDATE's SET the column's, `price * ?` the other operand's, `x IN (?, ?)`
// x's, `LIMIT ?` / `OFFSET ?` BIGINT. Best effort: a marker nothing decides (`SELECT ?`), or one
// in a statement that does not plan so, has no type.
struct StatementDescription {
  std::vector<std::optional<DataType>> parameters;  // per marker, in order
  std::optional<std::vector<Field>> columns;        // a query's (SELECT, WITH, VALUES)
};
Result<StatementDescription> DescribeStatement(Session* session, const std::string& text);

// Parses `text` (one statement, starting at `start` in its script) with its '?' markers.
Result<std::unique_ptr<PreparedStatement>> Prepare(Session* session, const std::string& text,
                                                   Pos start = {});

}  // namespace tributary::sql
