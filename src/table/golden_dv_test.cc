// Java-written deletion-vector tables whose options Tributary's reads do not honour yet are
// refused, never read wrong: a copy of golden pk_09 given 'deletion-vectors.merge-on-read'.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tributary/catalog.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"

namespace tributary {
namespace {

TEST(GoldenDeletionVectorTest, MergeOnReadIsRefusedNotReadWithoutLevel0) {
  char tmpl[] = "/tmp/tributary-golden-dv-test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::string table = dir + "/pk_09.db/pk_09";
  std::filesystem::create_directories(dir + "/pk_09.db");
  std::filesystem::copy(std::string(TRIBUTARY_GOLDEN_DIR) + "/parquet/pk_09.db/pk_09", table,
                        std::filesystem::copy_options::recursive);
  auto read_rows = [&]() -> Result<size_t> {
    TRIB_ASSIGN_OR_RETURN(auto catalog, Catalog::Open(dir));
    TRIB_ASSIGN_OR_RETURN(auto t, catalog->GetTable(Identifier{"pk_09", "pk_09", ""}));
    TRIB_ASSIGN_OR_RETURN(auto scan, t->NewScan({}));
    size_t rows = 0;
    RowBatch batch;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, scan->Next(&batch));
      if (!more) break;
      rows += batch.rows.size();
    }
    return rows;
  };
  auto before = read_rows();
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  EXPECT_EQ(*before, 9u);  // the golden README's rows

  const std::string schema = table + "/schema/schema-0";
  std::filesystem::permissions(schema, std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::add);
  std::stringstream text;
  text << std::ifstream(schema).rdbuf();
  std::string json = text.str();
  const size_t at = json.find("\"options\" : {");
  ASSERT_NE(at, std::string::npos);
  json.insert(at + 13, "\n    \"deletion-vectors.merge-on-read\" : \"true\",");
  std::ofstream(schema, std::ios::trunc) << json;
  auto after = read_rows();
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.status().code(), StatusCode::kNotSupported) << after.status().ToString();
  EXPECT_NE(after.status().message().find("deletion-vectors.merge-on-read"), std::string::npos);
  std::error_code ignored;  // the copied files keep the golden ones' read-only modes
  std::filesystem::remove_all(dir, ignored);
}

}  // namespace
}  // namespace tributary
