// A test fixture owning a fresh warehouse per test (removed afterwards), for the end-to-end tests
// of tables through the public API.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "meta/snapshot.h"
#include "meta/snapshot_reader.h"
#include "tributary/catalog.h"
#include "tributary/column_batch.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"

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

  // The rows (id -> v) of a table of two BIGINT columns, read with `hints`.
  static std::map<int64_t, int64_t> ReadIdValues(Table& table,
                                                 std::map<std::string, std::string> hints = {}) {
    ScanOptions so;
    so.dynamic_options = std::move(hints);
    auto scan = table.NewScan(so);
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    std::map<int64_t, int64_t> rows;
    RowBatch b;
    while (scan.ok()) {
      auto more = (*scan)->Next(&b);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) break;
      for (const Row& r : b.rows) rows[r[0].int_value()] = r[1].int_value();
    }
    return rows;
  }

  // The live file entries of `t`'s latest snapshot.
  static std::vector<meta::ManifestEntry> LatestLiveEntries(const Table& t) {
    meta::SnapshotManager snapshots(t.path());
    auto latest = snapshots.LatestId();
    EXPECT_TRUE(latest.ok() && *latest);
    if (!latest.ok() || !*latest) return {};
    auto snap = snapshots.Read(**latest);
    EXPECT_TRUE(snap.ok());
    if (!snap.ok()) return {};
    auto live = meta::ReadLiveEntries(t.path(), **snap);
    EXPECT_TRUE(live.ok());
    return live.ok() ? *live : std::vector<meta::ManifestEntry>{};
  }

  std::string dir_;
  std::unique_ptr<Catalog> catalog_;
};

// Every merge engine over a table of columns id (key), v STRING, n BIGINT and ts BIGINT, with
// whether its records may be deletes (the write-buffer and merge spill tests run each).
struct EngineCase {
  const char* name;
  std::map<std::string, std::string> options;
  bool deletes;
};
inline std::vector<EngineCase> Engines() {
  return {
      {"dedup", {}, true},
      {"firstrow", {{"merge-engine", "first-row"}}, false},
      {"partial", {{"merge-engine", "partial-update"}}, false},
      {"agg",
       {{"merge-engine", "aggregation"},
        {"fields.n.aggregate-function", "sum"},
        {"fields.v.aggregate-function", "max"},
        {"fields.ts.aggregate-function", "min"}},
       false},
      {"seqfield", {{"sequence.field", "ts"}}, true},
  };
}

// Scans return rows in no defined order across buckets: tests compare them sorted by key.
inline void SortByFirstColumn(std::vector<Row>* rows) {
  std::sort(rows->begin(), rows->end(),
            [](const Row& a, const Row& b) { return CompareValues(a[0], b[0]) < 0; });
}

// Rows of a scan read with Next, sorted by their first column.
inline std::vector<Row> ReadAllRows(Table& t, ScanOptions o = {}) {
  auto s = t.NewScan(o);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  std::vector<Row> out;
  RowBatch b;
  while (true) {
    auto more = (*s)->Next(&b);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    for (auto& r : b.rows) out.push_back(r);
  }
  SortByFirstColumn(&out);
  return out;
}

// Rows of a scan read with NextColumns, rebuilt from the column vectors.
inline std::vector<Row> ReadAllColumns(Table& t, ScanOptions o = {}) {
  auto s = t.NewScan(o);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  std::vector<Row> out;
  ColumnBatch b;
  while (true) {
    auto more = (*s)->NextColumns(&b);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    EXPECT_EQ(b.columns.size(), (*s)->output_fields().size());
    for (size_t r = 0; r < b.num_rows; r++) {
      Row row;
      for (const auto& c : b.columns) {
        EXPECT_EQ(c.size(), b.num_rows);
        row.push_back(c.Get(r));
      }
      out.push_back(std::move(row));
    }
  }
  SortByFirstColumn(&out);
  return out;
}

}  // namespace tributary
