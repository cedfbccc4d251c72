#include "server/describe.h"

#include "server/pg_wire.h"
#include "server/tags.h"
#include "sql/session/prepared.h"
#include "sql/session/session.h"

namespace tributary::server {

std::optional<std::vector<Field>> DescribeQuery(sql::Session* session, const std::string& text) {
  const std::vector<std::string> word = LeadingWords(text, 1);
  if (word.empty() || (word[0] != "SELECT" && word[0] != "WITH" && word[0] != "VALUES")) {
    return std::nullopt;
  }
  auto prepared =
      sql::Prepare(session, "SELECT * FROM (" + text + ") AS `describe` LIMIT 0", sql::Pos{});
  if (!prepared.ok()) return std::nullopt;
  std::vector<Value> nulls((*prepared)->parameter_count(), Value::Null());
  auto r = (*prepared)->Execute(nulls);
  if (!r.ok() || !r->has_rows) return std::nullopt;
  return r->rows.fields;
}

bool SameWireTypes(const std::vector<Field>& a, const std::vector<Field>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (pg::ColumnOf(a[i].name, a[i].type).type_oid !=
        pg::ColumnOf(b[i].name, b[i].type).type_oid) {
      return false;
    }
  }
  return true;
}

}  // namespace tributary::server
