// docs/options.md marks what each option does (issue 42): an option marked *not implemented yet*
// must be refused wherever it is given, and one not so marked must be accepted, never refused as
// "not supported yet". The docs are generated from the option table, so this test holds the
// table's marks against what CREATE TABLE and a query hint do with each option.
#include <gtest/gtest.h>

#include <string>

#include "table/warehouse_test_base.h"
#include "tributary/options.h"
#include "tributary/table.h"

namespace tributary {
namespace {

// A value of the option's type (its default where it has one).
std::string SampleValue(const OptionDef& def) {
  if (!def.default_value.empty()) return def.default_value;
  if (def.key == "file.compression.per.level") return "0:zstd";
  switch (def.type) {
    case OptionType::kEnum:
      return def.allowed.empty() ? "" : def.allowed.front();
    case OptionType::kBool:
      return "false";
    case OptionType::kInt:
    case OptionType::kLong:
      return std::to_string(std::max<int64_t>(def.min_value, 1));
    case OptionType::kDuration:
      return "1 h";
    case OptionType::kMemorySize:
      return "1 mb";
    case OptionType::kDouble:
      return "0.5";
    case OptionType::kString:
      return def.column_list ? "v" : "x";
  }
  return "";
}

std::string Key(const OptionDef& def) {
  std::string k = def.key;
  const size_t at = k.find("<col>");
  if (at != std::string::npos) k.replace(at, 5, "v");
  return k;
}

bool SaysNotSupported(const Status& st) {
  return st.message().find("not supported") != std::string::npos ||
         st.message().find("not implemented") != std::string::npos;
}

class OptionMarkersTest : public WarehouseTest {};

TEST_F(OptionMarkersTest, NotImplementedOptionsAreRefusedAndTheOthersAccepted) {
  int n = 0, refused = 0;
  for (const OptionDef& def : AllOptions()) {
    if (def.scope != OptionScope::kTable) continue;
    const std::string key = Key(def);
    const std::string value = SampleValue(def);
    TableSpec spec;
    spec.columns = {{0, "id", DataType::Int().NotNull(), ""}, {0, "v", DataType::String(), ""}};
    spec.primary_keys = {"id"};
    spec.options = {{key, value}};
    const Identifier id{"default", "t" + std::to_string(n++), ""};
    Status st = catalog_->CreateTable(id, spec, false);
    const std::string what =
        "CREATE TABLE ... WITH ('" + key + "' = '" + value + "'): " + st.ToString();
    if (!def.supported) {
      refused++;
      EXPECT_FALSE(st.ok()) << what;
      EXPECT_TRUE(SaysNotSupported(st)) << what;
      continue;
    }
    if (def.hint_only) {
      EXPECT_FALSE(st.ok()) << what;
      EXPECT_NE(st.message().find("query hint"), std::string::npos) << what;
      continue;
    }
    // Implemented: never refused as not supported (other refusals, e.g. an option that needs
    // another one, would name what is missing; with these samples there are none).
    EXPECT_FALSE(!st.ok() && SaysNotSupported(st)) << what;
  }
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace tributary
