// Keeps docs/options.md equal to the option table. To regenerate after changing the table:
//   TRIBUTARY_REGEN_DOCS=1 build/options_test --gtest_filter='OptionsDoc*'
#include "options/options_doc.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace tributary::options {
namespace {

// The repository root: three levels above this file (src/options/options_doc_test.cc), unless
// TRIBUTARY_SOURCE_DIR says otherwise.
std::string SourceDir() {
  if (const char* dir = std::getenv("TRIBUTARY_SOURCE_DIR")) return dir;
  std::string file = __FILE__;
  for (int i = 0; i < 3; ++i) {
    size_t slash = file.rfind('/');
    if (slash == std::string::npos) return ".";
    file.resize(slash);
  }
  return file.empty() ? "/" : file;
}

TEST(OptionsDocTest, CheckedInDocMatchesTheTable) {
  const std::string path = SourceDir() + "/docs/options.md";
  const std::string generated = GenerateOptionsDoc();
  const char* regen = std::getenv("TRIBUTARY_REGEN_DOCS");
  if (regen != nullptr && std::string(regen) == "1") {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    ASSERT_TRUE(out) << "cannot write " << path;
    out << generated;
    ASSERT_TRUE(out.good());
    GTEST_SKIP() << "regenerated " << path;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "cannot read " << path;
  std::stringstream buf;
  buf << in.rdbuf();
  EXPECT_TRUE(buf.str() == generated)
      << path << " is out of date; regenerate it with TRIBUTARY_REGEN_DOCS=1 "
      << "build/options_test --gtest_filter='OptionsDoc*'";
}

TEST(OptionsDocTest, StartsWithBannerAndListsOptions) {
  const std::string doc = GenerateOptionsDoc();
  EXPECT_EQ(doc.rfind("<!-- Generated from src/options/options_table.cc; do not edit.", 0), 0u);
  EXPECT_NE(doc.find("| `changelog-producer` |"), std::string::npos);
  EXPECT_NE(doc.find("| `fields.<col>.aggregate-function` |"), std::string::npos);
  EXPECT_NE(doc.find("Also spelled `bucket.num`."), std::string::npos);
  EXPECT_NE(doc.find("## Session options"), std::string::npos);
}

}  // namespace
}  // namespace tributary::options
