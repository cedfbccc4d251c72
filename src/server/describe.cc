#include "server/describe.h"

#include "server/pg_wire.h"
#include "sql/binder/cast.h"
#include "sql/session/prepared.h"

namespace tributary::server {

Description DescribeStatement(sql::Session* session, const std::string& text,
                              const std::vector<int32_t>& declared, const std::vector<int>& order) {
  Description d;
  d.parameter_oids = declared;
  auto described = sql::DescribeStatement(session, text);
  if (described.ok()) d.columns = std::move(described->columns);
  for (size_t m = 0; described.ok() && m < order.size(); m++) {
    const auto& type = described->parameters[m];
    int32_t& oid = d.parameter_oids[static_cast<size_t>(order[m] - 1)];
    if (oid != 0 || !type) continue;  // declared, or typed by an earlier marker
    switch (const int32_t typed = pg::ColumnOf("", *type).type_oid) {
      case 16:
      case 21:
      case 23:
      case 20:
      case 700:
      case 701:
      case 1700:
      case 25:
      case 1042:
      case 1043:
      case 17:
      case 1082:
      case 1083:
      case 1114:
      case 1184:
        oid = typed;
        break;
      default:
        break;
    }
  }
  for (int32_t& oid : d.parameter_oids) oid = oid == 0 ? 25 : oid;
  return d;
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
