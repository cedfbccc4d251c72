#include "format/deletion_vector.h"

#include <gtest/gtest.h>
#include <roaring/roaring.h>

#include <filesystem>
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

// The encoder against Java: the two golden index files rebuilt byte for byte.
TEST(DeletionVectorTest, EncodesTheGoldenIndexFilesByteForByte) {
  for (const char* name : {"dvindex-32", "dvindex-64"}) {
    const bool is64 = std::string(name) == "dvindex-64";
    DeletionVectorIndex index;
    auto first = index.Add({3, 2, 3}, is64);
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    EXPECT_EQ(first->offset, 1);
    EXPECT_EQ(first->length, is64 ? 36 : 24);
    EXPECT_EQ(first->cardinality, 2);
    auto second = index.Add({1}, is64);
    ASSERT_TRUE(second.ok());
    EXPECT_EQ(second->offset, 1 + 4 + first->length + 4);
    EXPECT_EQ(index.bytes(), ReadGolden(name)) << name;
  }
}

// Every deletion vector of the Java-written tables' index files, decoded and encoded again,
// gives back its bytes (a version byte 1, then the vectors back to back).
TEST(DeletionVectorTest, ReencodesEveryJavaWrittenVector) {
  int vectors = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(std::string(TRIBUTARY_GOLDEN_DIR))) {
    const std::string path = entry.path().string();
    if (!entry.is_regular_file() || path.find("/index/index-") == std::string::npos) continue;
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string file = ss.str();
    if (file.size() < 9 || file[0] != 1) continue;  // not a deletion-vector index file
    size_t at = 1;
    while (at + 8 <= file.size()) {
      const int64_t length =
          (static_cast<uint8_t>(file[at]) << 24) | (static_cast<uint8_t>(file[at + 1]) << 16) |
          (static_cast<uint8_t>(file[at + 2]) << 8) | static_cast<uint8_t>(file[at + 3]);
      auto dv = DeletionVector::Decode(file, static_cast<int64_t>(at), length, path);
      if (!dv.ok()) break;  // another kind of index file that starts with 1
      const bool is64 = static_cast<uint8_t>(file[at + 4]) == 0xD1;
      auto encoded = DeletionVector::Encode(dv->Positions(), is64);
      ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
      EXPECT_EQ(*encoded, file.substr(at, static_cast<size_t>(length) + 8)) << path << " at " << at;
      vectors++;
      at += static_cast<size_t>(length) + 8;
    }
  }
  EXPECT_GE(vectors, 10) << "the golden tables' deletion vectors were not found";
}

// Round trips through the decoder: arrays, bitmaps (more than 4096 values in a 65536 range),
// runs, values across 65536-value containers and, in the 64-bit form, across 2^32.
TEST(DeletionVectorTest, EncodedVectorsDecodeToTheirPositions) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 40; round++) {
    const bool is64 = round % 2 == 1;
    std::set<int64_t> want;
    const int kind = round % 4;
    for (int i = 0; i < 5000; i++) {
      int64_t v = kind == 0   ? static_cast<int64_t>(rng() % 200000)
                  : kind == 1 ? static_cast<int64_t>(rng() % 8000)  // a bitmap container
                  : kind == 2 ? 70000 + i                           // a run
                              : static_cast<int64_t>(rng() % 100000000);
      if (is64 && i % 7 == 0) v += (static_cast<int64_t>(rng() % 3) + 1) << 32;
      want.insert(v);
    }
    auto encoded = DeletionVector::Encode(std::vector<int64_t>(want.begin(), want.end()), is64);
    ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
    auto dv = DeletionVector::Decode(*encoded, 0, DeletionVector::EncodedLength(*encoded), "x");
    ASSERT_TRUE(dv.ok()) << dv.status().ToString();
    EXPECT_EQ(dv->Positions(), std::vector<int64_t>(want.begin(), want.end())) << round;
  }
  // The 32-bit form refuses what it cannot hold.
  EXPECT_FALSE(DeletionVector::Encode({int64_t{1} << 31}, false).ok());
  EXPECT_TRUE(DeletionVector::Encode({int64_t{1} << 31}, true).ok());
  EXPECT_FALSE(DeletionVector::Encode({-1}, true).ok());
}

}  // namespace
}  // namespace tributary::format
