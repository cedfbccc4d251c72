#include "format/deletion_vector.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace tributary::format {
namespace {

std::string ReadGolden(const std::string& name) {
  std::ifstream in(std::string(TRIBUTARY_GOLDEN_DIR) + "/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Paimon's DeletionVectorsIndexFileTest#testReadOldDeletionVector32Bit: DV1 = {2, 3}, DV2 = {1}.
TEST(DeletionVectorTest, ReadsJavaWritten32And64BitVectors) {
  for (const char* name : {"dvindex-32", "dvindex-64"}) {
    std::string file = ReadGolden(name);
    ASSERT_FALSE(file.empty()) << name;
    bool is64 = std::string(name) == "dvindex-64";
    int64_t len1 = is64 ? 36 : 24, off2 = 1 + 4 + len1 + 4;
    auto dv1 = DeletionVector::Decode(file, 1, len1, name);
    ASSERT_TRUE(dv1.ok()) << dv1.status().ToString();
    EXPECT_EQ(dv1->cardinality(), 2u);
    EXPECT_TRUE(dv1->IsDeleted(2));
    EXPECT_TRUE(dv1->IsDeleted(3));
    EXPECT_FALSE(dv1->IsDeleted(1));
    auto dv2 = DeletionVector::Decode(file, off2, is64 ? 34 : 22, name);
    ASSERT_TRUE(dv2.ok()) << dv2.status().ToString();
    EXPECT_EQ(dv2->cardinality(), 1u);
    EXPECT_TRUE(dv2->IsDeleted(1));
  }
}

TEST(DeletionVectorTest, DamagedInputIsAnError) {
  std::string file = ReadGolden("dvindex-32");
  EXPECT_FALSE(DeletionVector::Decode(file, 1, 25, "x").ok());
  EXPECT_FALSE(DeletionVector::Decode(file, 1000, 24, "x").ok());
  std::string bad = file;
  bad[6] = 0;  // magic
  EXPECT_FALSE(DeletionVector::Decode(bad, 1, 24, "x").ok());
}

}  // namespace
}  // namespace tributary::format
