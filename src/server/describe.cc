#include "server/describe.h"

#include "server/pg_wire.h"
#include "server/tags.h"
#include "sql/binder/cast.h"
#include "sql/planner/query_internal.h"
#include "sql/session/prepared.h"
#include "sql/session/session.h"

namespace tributary::server {

std::optional<std::vector<Field>> DescribeQuery(sql::Session* session, const std::string& text) {
  const std::vector<std::string> word = LeadingWords(text, 1);
  if (word.empty() || (word[0] != "SELECT" && word[0] != "WITH" && word[0] != "VALUES")) {
    return std::nullopt;
  }
  // (A new line before ')': the text may end in a -- comment. Only planned: uncorrelated
  // subqueries are not run, and LIMIT 0 reads no row.)
  sql::planner::PlanningOnlyScope planning;
  auto prepared =
      sql::Prepare(session, "SELECT * FROM (" + text + "\n) AS `describe` LIMIT 0", sql::Pos{});
  if (!prepared.ok()) return std::nullopt;
  std::vector<Value> nulls((*prepared)->parameter_count(), Value::Null());
  auto r = (*prepared)->Execute(nulls);
  if (!r.ok() || !r->has_rows) return std::nullopt;
  return r->rows.fields;
}

Status ConformToDescribed(const std::vector<Field>& described, std::vector<Field>* fields,
                          std::vector<Row>* rows) {
  if (described.size() != fields->size()) {
    return Status::NotSupported(pg::kCachedPlanChanged);
  }
  for (size_t c = 0; c < described.size(); c++) {
    const DataType& want = described[c].type;
    const DataType have = (*fields)[c].type;
    if (pg::ColumnOf("", want).type_oid == pg::ColumnOf("", have).type_oid) continue;
    for (Row& row : *rows) {
      auto v = sql::CastValue(row[c], have, want, sql::CastMode::kExplicit);
      if (!v.ok()) return Status::NotSupported(pg::kCachedPlanChanged);
      row[c] = std::move(*v);
    }
    (*fields)[c].type = want;
  }
  return Status::OK();
}

}  // namespace tributary::server
