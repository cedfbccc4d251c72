#include "format/blob_file.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

namespace tributary::format {
namespace {

// One record as Paimon's BlobFileFormat writes it: magic, value, LE64 total length, LE32 CRC32.
std::string Record(const std::string& value) {
  std::string r("\xcf\x11\x4e\x58", 4);
  r += value;
  const uint64_t len = 4 + value.size() + 8 + 4;
  for (int b = 0; b < 8; b++) r.push_back(static_cast<char>((len >> (8 * b)) & 0xff));
  const uint32_t crc = static_cast<uint32_t>(
      ::crc32(0, reinterpret_cast<const Bytef*>(r.data()), static_cast<uInt>(r.size())));
  for (int b = 0; b < 4; b++) r.push_back(static_cast<char>((crc >> (8 * b)) & 0xff));
  return r;
}

TEST(BlobFile, ValuesComeBackInOrderAndTheFooterIsNotARecord) {
  const std::string value_with_magic = std::string("\xcf\x11\x4e\x58", 4) + "inside";
  std::string file = Record("first") + Record("") + Record(value_with_magic);
  file += "index footer";
  auto values = ReadBlobValues(file);
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  ASSERT_EQ(values->size(), 3u);
  EXPECT_EQ((*values)[0], "first");
  EXPECT_EQ((*values)[1], "");
  EXPECT_EQ((*values)[2], value_with_magic);
}

TEST(BlobFile, ADamagedRecordIsAnErrorGivingItsOffset) {
  std::string file = Record("first") + Record("second");
  file[Record("first").size() + 6] ^= 0x20;  // a byte of the second value: its CRC fails
  auto values = ReadBlobValues(file);
  ASSERT_FALSE(values.ok());
  EXPECT_NE(values.status().ToString().find("offset " + std::to_string(Record("first").size())),
            std::string::npos)
      << values.status().ToString();
}

}  // namespace
}  // namespace tributary::format
