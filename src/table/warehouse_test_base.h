// A test fixture owning a fresh warehouse per test (removed afterwards), for the end-to-end tests
// of tables through the public API.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "io/file_system.h"
#include "tributary/catalog.h"

namespace tributary {

class WarehouseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = "/tmp/tributary_test_" + std::to_string(getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name() + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    (void)io::LocalFs().RemoveAll(dir_);
    auto c = Catalog::Open(dir_);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    catalog_ = std::move(*c);
  }
  void TearDown() override { (void)io::LocalFs().RemoveAll(dir_); }

  std::string dir_;
  std::unique_ptr<Catalog> catalog_;
};

}  // namespace tributary
