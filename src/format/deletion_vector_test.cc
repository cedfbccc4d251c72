#include "format/deletion_vector.h"

#include <gtest/gtest.h>
#include <roaring/roaring.h>

#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "format/compression.h"

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
  // Any flipped byte of a vector, its length or its checksum is an error, never other positions.
  for (size_t i = 1; i < 1 + 4 + 24 + 4; i++) {
    std::string flipped = file;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x10);
    EXPECT_FALSE(DeletionVector::Decode(flipped, 1, 24, "x").ok()) << "byte " << i;
  }
}

// The portable RoaringBitmap decoder against libroaring's encoder: array, bitmap and run
// containers, with and without the offset header, in 32-bit vectors.
TEST(DeletionVectorTest, DecodesWhatLibroaringEncodes) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 40; round++) {
    roaring_bitmap_t* bm = roaring_bitmap_create();
    std::set<int64_t> want;
    const int containers = 1 + static_cast<int>(rng() % 6);
    for (int c = 0; c < containers; c++) {
      const uint32_t key = static_cast<uint32_t>(rng() % 40) << 16;
      switch (rng() % 3) {
        case 0:  // sparse: an array container
          for (int k = 0; k < 50; k++) want.insert(key | static_cast<uint32_t>(rng() % 65536));
          break;
        case 1:  // dense: a bitmap container
          for (int k = 0; k < 9000; k++) want.insert(key | static_cast<uint32_t>(rng() % 65536));
          break;
        default:  // long runs
          for (uint32_t v = 100; v < 30000; v++) want.insert(key | v);
          break;
      }
    }
    for (int64_t v : want) roaring_bitmap_add(bm, static_cast<uint32_t>(v));
    if (round % 2 == 0) roaring_bitmap_run_optimize(bm);
    std::string body(4, '\0');
    const uint32_t magic = 1581511376;
    for (int i = 0; i < 4; i++) body[i] = static_cast<char>(magic >> (24 - 8 * i));
    std::string bitmap(roaring_bitmap_portable_size_in_bytes(bm), '\0');
    roaring_bitmap_portable_serialize(bm, bitmap.data());
    roaring_bitmap_free(bm);
    body += bitmap;
    std::string file(1, '\1');
    auto put32 = [&](uint32_t v) {
      for (int i = 0; i < 4; i++) file += static_cast<char>(v >> (24 - 8 * i));
    };
    put32(static_cast<uint32_t>(body.size()));
    file += body;
    put32(Crc32(body));
    auto dv = DeletionVector::Decode(file, 1, static_cast<int64_t>(body.size()), "round");
    ASSERT_TRUE(dv.ok()) << "round " << round << ": " << dv.status().ToString();
    ASSERT_EQ(dv->cardinality(), want.size()) << "round " << round;
    for (int64_t v : want) ASSERT_TRUE(dv->IsDeleted(v)) << "round " << round << ", " << v;
  }
}

}  // namespace
}  // namespace tributary::format
