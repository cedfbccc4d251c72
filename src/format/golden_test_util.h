// Test helpers for the golden files Java Paimon wrote (../shared/golden/paimon-java, read-only).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tributary::testing {

// The golden warehouse root (TRIBUTARY_GOLDEN_DIR is set by CMake for test binaries).
inline const std::filesystem::path kGolden = TRIBUTARY_GOLDEN_DIR;

// The whole file; a test failure (and "") when it cannot be read.
inline std::string ReadGoldenFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace tributary::testing
