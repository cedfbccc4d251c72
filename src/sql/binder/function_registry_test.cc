// The function registry against what implements and documents the functions: a function listed
// as scalar is bound by functions.cc, SHOW FUNCTIONS lists each once,
// and docs/sql.md names every function a user can call.
#include "sql/binder/function_registry.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "sql/binder/functions.h"

namespace tributary::sql {
namespace {

// Whether functions.cc binds `name`: with no arguments it binds, or refuses them, but never says
// it does not know the function.
bool Binds(const std::string& name) {
  std::vector<BoundExprPtr> args;
  auto b = BindScalarFunction(name, Pos{}, &args);
  return b.ok() || b.status().message().find("unknown function") == std::string::npos;
}

TEST(FunctionRegistryTest, EveryListedScalarFunctionIsBound) {
  for (const FunctionInfo& f : AllFunctions()) {
    const bool scalar = f.kind == FunctionKind::kScalar || f.kind == FunctionKind::kInternal;
    EXPECT_EQ(IsScalarFunction(f.name), scalar) << f.name;
    // Evaluated by functions.cc; bound there too, but for an internal form the binder builds
    // itself ($ADD_INTERVAL).
    EXPECT_EQ(f.eval != nullptr, scalar) << f.name;
    if (f.kind == FunctionKind::kScalar) {
      EXPECT_NE(f.bind, nullptr) << f.name;
      EXPECT_TRUE(Binds(f.name)) << f.name;
    }
  }
  EXPECT_FALSE(Binds("NO_SUCH_FUNCTION"));
  EXPECT_EQ(FindFunction("NO_SUCH_FUNCTION"), nullptr);
}

TEST(FunctionRegistryTest, NamesAreUniqueAndShowFunctionsListsEachOnce) {
  std::set<std::string> seen;
  for (const FunctionInfo& f : AllFunctions()) {
    EXPECT_TRUE(seen.insert(f.name).second) << f.name << " is declared twice";
    EXPECT_EQ(FindFunction(f.name), &f);
  }
  const std::vector<std::string> shown = AllFunctionNames();
  EXPECT_TRUE(std::is_sorted(shown.begin(), shown.end()));
  EXPECT_EQ(std::set<std::string>(shown.begin(), shown.end()).size(), shown.size());
  for (const auto& n : shown) EXPECT_NE(n[0], '$') << n;
  EXPECT_EQ(shown.size() + 11, AllFunctions().size());  // the 11 internal forms are not shown
}

TEST(FunctionRegistryTest, FlagsSayWhatTheFunctionsDo) {
  EXPECT_TRUE(IsVolatileFunction("RAND", 0));
  EXPECT_TRUE(IsVolatileFunction("UNIX_TIMESTAMP", 0));
  EXPECT_FALSE(IsVolatileFunction("UNIX_TIMESTAMP", 1));
  EXPECT_FALSE(IsVolatileFunction("UPPER", 1));
}

TEST(FunctionRegistryTest, DocsNameEveryFunction) {
  std::ifstream in(std::string(TRIBUTARY_SOURCE_DIR) + "/docs/sql.md");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  for (const FunctionInfo& f : AllFunctions()) {
    if (f.kind == FunctionKind::kInternal) continue;
    const std::regex named("`" + std::string(f.name) + "[`( \\[]");
    EXPECT_TRUE(std::regex_search(doc, named)) << "docs/sql.md does not name " << f.name;
  }
}

}  // namespace
}  // namespace tributary::sql
