#include "compact/deletion_vectors.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "datafile/data_file.h"
#include "datafile/point_lookup.h"
#include "format/binary_row.h"
#include "io/file_system.h"
#include "meta/paths.h"
#include "meta/schema_manager.h"
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
    auto dvs = BucketDeletionVectors::Load(golden, "", e);
    ASSERT_TRUE(dvs.ok()) << dvs.status().ToString();
    ASSERT_EQ(dvs->size(), e.dv_ranges.size());
    for (const auto& r : e.dv_ranges) {
      ASSERT_NE(dvs->Of(r.data_file), nullptr);
      if (r.cardinality) {
        EXPECT_EQ(static_cast<int64_t>(dvs->Of(r.data_file)->size()), *r.cardinality);
      }
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
      auto written = dvs->Write(out_table + "/index", e.partition, e.bucket, bitmap64);
      ASSERT_TRUE(written.ok()) << written.status().ToString();
      EXPECT_EQ(written->bucket, e.bucket);
      EXPECT_EQ(written->row_count, static_cast<int64_t>(e.dv_ranges.size()) + 1);
      auto again = BucketDeletionVectors::Load(out_table, "", *written);
      ASSERT_TRUE(again.ok()) << again.status().ToString();
      for (const auto& r : e.dv_ranges) EXPECT_EQ(*again->Of(r.data_file), *dvs->Of(r.data_file));
      EXPECT_EQ(*again->Of("data-new.parquet"), std::set<int64_t>{3});
      EXPECT_TRUE(again->Of(file)->count(1000000));
    }
    // Every file rewritten: an index file of only the version byte replaces the old one, as
    // Java writes it.
    for (const auto& r : e.dv_ranges) dvs->Remove(r.data_file);
    dvs->Remove("data-new.parquet");
    auto none = dvs->Write(out_table + "/index", e.partition, e.bucket, false);
    ASSERT_TRUE(none.ok());
    EXPECT_EQ(none->row_count, 0);
    EXPECT_EQ(none->file_size, 1);
    EXPECT_TRUE(none->dv_ranges.empty());
    auto empty = BucketDeletionVectors::Load(out_table, "", *none);
    ASSERT_TRUE(empty.ok()) << empty.status().ToString();
    EXPECT_EQ(empty->size(), 0u);
  }
  std::filesystem::remove_all(out_table);
}

// A bucket search of a deletion-vector table skips the rows its vectors delete and says where
// each record it finds lies: Java's files and vectors, every key of each file above level 0.
TEST(BucketDeletionVectorsTest, SearchesSkipDeletedRowsAndGivePositions) {
  const std::string golden =
      std::string(TRIBUTARY_GOLDEN_DIR) +
      "/parquet/pk_table_with_dv_cardinality.db/pk_table_with_dv_cardinality";
  auto snap = meta::SnapshotManager(golden).Latest();
  ASSERT_TRUE(snap.ok() && *snap);
  auto schema = meta::SchemaManager(golden).Latest();
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  auto live = meta::ReadLiveEntries(golden, **snap);
  ASSERT_TRUE(live.ok()) << live.status().ToString();
  const datafile::FileLayout layout = datafile::FileLayout::Of(**schema);
  int checked = 0, skipped = 0;
  for (const auto& e : GoldenEntries(golden)) {
    auto dvs = BucketDeletionVectors::Load(golden, "", e);
    ASSERT_TRUE(dvs.ok());
    // The bucket's files above level 0 (one sorted run per level), and its directory.
    std::vector<meta::DataFileMeta> files;
    std::string bucket_dir;
    std::vector<Field> pfields;
    std::vector<DataType> ptypes;
    for (const auto& k : (*schema)->partition_keys) {
      pfields.push_back((*schema)->fields[(*schema)->FieldIndex(k)]);
      ptypes.push_back(pfields.back().type);
    }
    auto partition = format::DeserializeBinaryRow(e.partition, ptypes);
    ASSERT_TRUE(partition.ok()) << partition.status().ToString();
    bucket_dir = meta::BucketDir(golden, meta::PartitionPath(pfields, *partition), e.bucket);
    for (const auto& m : *live) {
      if (m.partition != e.partition || m.bucket != e.bucket || m.file.level == 0) continue;
      files.push_back(m.file);
    }
    if (files.empty()) continue;
    datafile::BucketFileSearch search(golden, bucket_dir, layout, **schema, files);
    search.SetDeletionVectors([&](const std::string& f) { return dvs->Of(f); });
    // Every record of every file, looked up by its key: found where it is unless deleted.
    for (const auto& f : files) {
      auto sorted = datafile::LoadSortedFile(bucket_dir + "/" + f.file_name, layout, f,
                                             (*schema)->id, &(*schema)->fields);
      ASSERT_TRUE(sorted.ok()) << sorted.status().ToString();
      for (size_t i = 0; i < (*sorted)->size(); i++) {
        auto kv = (*sorted)->Record(i);
        ASSERT_TRUE(kv.ok());
        Row key;
        for (int c : layout.key_columns) key.push_back(kv->value[c]);
        auto hit = search.FindNewestPositioned(key);
        ASSERT_TRUE(hit.ok()) << hit.status().ToString();
        const std::set<int64_t>* deleted = dvs->Of(f.file_name);
        if (deleted && deleted->count(static_cast<int64_t>(i))) {
          // Deleted here: not this row (another file may hold the key's live record).
          EXPECT_FALSE(hit->has_value() && (*hit)->file->file_name == f.file_name &&
                       (*hit)->position == static_cast<int64_t>(i));
          skipped++;
        } else {
          ASSERT_TRUE(hit->has_value());
          if ((*hit)->file->file_name == f.file_name) {
            EXPECT_EQ((*hit)->position, static_cast<int64_t>(i));
          }
          checked++;
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
  EXPECT_GT(skipped, 0) << "no deleted row was looked up";
}

}  // namespace
}  // namespace tributary::compact
