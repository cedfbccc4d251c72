// What the tests of sql/exec/ share.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sql/binder/expression.h"
#include "sql/parser/parser.h"

namespace tributary::sql {

// `sql` bound over a table "t" with columns `fields` (a failure fails the test).
inline BoundExprPtr BindOver(const std::vector<Field>& fields, const std::string& sql) {
  Scope scope;
  for (const Field& f : fields) scope.columns.push_back({f.name, "t", f.type});
  auto e = ParseExpression(sql);
  EXPECT_TRUE(e.ok()) << sql;
  Binder binder(&scope);
  auto b = binder.Bind(**e);
  EXPECT_TRUE(b.ok()) << sql << ": " << b.status().ToString();
  return std::move(*b);
}

}  // namespace tributary::sql
