#include "compact/deletion_vectors.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "io/file_system.h"
#include "meta/paths.h"
#include "meta/snapshot.h"
#include "meta/snapshot_reader.h"

namespace tributary::compact {
namespace {

// The live deletion-vector entries of a golden table's latest snapshot.
std::vector<meta::IndexManifestEntry> GoldenEntries(const std::string& table) {
  auto snap = meta::SnapshotManager(table).Latest();
  EXPECT_TRUE(snap.ok() && *snap);
  if (!snap.ok() || !*snap) return {};
  auto live = meta::ReadLiveIndexEntries(table, **snap, "DELETION_VECTORS");
  EXPECT_TRUE(live.ok()) << live.status().ToString();
  return live.ok() ? *live : std::vector<meta::IndexManifestEntry>{};
}

TEST(BucketDeletionVectorsTest, LoadsMarksAndWritesJavaWrittenVectors) {
  const std::string golden =
      std::string(TRIBUTARY_GOLDEN_DIR) +
      "/parquet/pk_table_with_dv_cardinality.db/pk_table_with_dv_cardinality";
  std::vector<meta::IndexManifestEntry> entries = GoldenEntries(golden);
  ASSERT_FALSE(entries.empty());
  char tmpl[] = "/tmp/tributary-bucket-dv-test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string out_table = tmpl;
  std::filesystem::create_directories(out_table + "/index");
  for (const auto& e : entries) {
    auto dvs = BucketDeletionVectors::Load(golden, e);
    ASSERT_TRUE(dvs.ok()) << dvs.status().ToString();
    ASSERT_EQ(dvs->size(), e.dv_ranges.size());
    for (const auto& r : e.dv_ranges) {
      ASSERT_NE(dvs->Of(r.data_file), nullptr);
      if (r.cardinality)
        EXPECT_EQ(static_cast<int64_t>(dvs->Of(r.data_file)->size()), *r.cardinality);
    }
    EXPECT_FALSE(dvs->modified());
    // Marked again: nothing changes; a new position does.
    const std::string file = e.dv_ranges[0].data_file;
    const int64_t marked = *dvs->Of(file)->begin();
    EXPECT_FALSE(dvs->Mark(file, marked));
    EXPECT_FALSE(dvs->modified());
    EXPECT_TRUE(dvs->Mark(file, 1000000));
    EXPECT_TRUE(dvs->Mark("data-new.parquet", 3));
    EXPECT_TRUE(dvs->modified());
    for (bool bitmap64 : {false, true}) {
      auto written = dvs->Write(out_table, e.partition, e.bucket, bitmap64);
      ASSERT_TRUE(written.ok()) << written.status().ToString();
      ASSERT_TRUE(written->has_value());
      EXPECT_EQ((*written)->bucket, e.bucket);
      EXPECT_EQ((*written)->row_count, static_cast<int64_t>(e.dv_ranges.size()) + 1);
      auto again = BucketDeletionVectors::Load(out_table, **written);
      ASSERT_TRUE(again.ok()) << again.status().ToString();
      for (const auto& r : e.dv_ranges) EXPECT_EQ(*again->Of(r.data_file), *dvs->Of(r.data_file));
      EXPECT_EQ(*again->Of("data-new.parquet"), std::set<int64_t>{3});
      EXPECT_TRUE(again->Of(file)->count(1000000));
    }
    // Every file rewritten: nothing left to write, the bucket's entry goes.
    for (const auto& r : e.dv_ranges) dvs->Remove(r.data_file);
    dvs->Remove("data-new.parquet");
    auto none = dvs->Write(out_table, e.partition, e.bucket, false);
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->has_value());
  }
  std::filesystem::remove_all(out_table);
}

}  // namespace
}  // namespace tributary::compact
