#include "meta/manifest.h"

#include <gtest/gtest.h>

#include <random>

#include "format/avro.h"

namespace tributary::meta {
namespace {

ManifestEntry Entry(const std::string& name) {
  ManifestEntry e;
  e.kind = FileKind::kAdd;
  e.bucket = 1;
  e.total_buckets = 4;
  e.file.file_name = name;
  e.file.file_size = 1000;
  e.file.row_count = 10;
  e.file.min_sequence_number = 1;
  e.file.max_sequence_number = 10;
  e.file.level = 0;
  return e;
}

TEST(ManifestTest, EntriesRoundTrip) {
  auto bytes = EncodeManifest({Entry("data-1.parquet"), Entry("data-2.parquet")}, "zstandard");
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto back = DecodeManifest(*bytes, "manifest-x");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[1].file.file_name, "data-2.parquet");
  EXPECT_EQ((*back)[1].file.row_count, 10);
  EXPECT_EQ((*back)[1].bucket, 1);
}

// Index manifest entries round trip; a deletion-vector entry without vectors still carries an
// array of ranges, never null (Java's reader requires one), while a HASH entry has none.
TEST(ManifestTest, IndexEntriesAndEmptyDeletionVectorRanges) {
  IndexManifestEntry dv;
  dv.index_type = "DELETION_VECTORS";
  dv.file_name = "index-a-0";
  dv.bucket = 1;
  IndexManifestEntry with = dv;
  with.file_name = "index-b-0";
  with.dv_ranges.push_back({"data-1.parquet", 1, 24, 2});
  IndexManifestEntry hash;
  hash.index_type = "HASH";
  hash.file_name = "index-c-0";
  auto bytes = EncodeIndexManifest({dv, with, hash}, "zstandard");
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto back = DecodeIndexManifest(*bytes, "index manifest");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 3u);
  ASSERT_EQ((*back)[1].dv_ranges.size(), 1u);
  EXPECT_EQ((*back)[1].dv_ranges[0].data_file, "data-1.parquet");
  EXPECT_EQ((*back)[1].dv_ranges[0].cardinality, 2);
  auto reader = avro::FileReader::Open(*bytes);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto records = (*reader)->ReadAll();
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 3u);
  auto ranges = [&](size_t i) { return (*records)[i].as_list()[8]; };
  EXPECT_FALSE(ranges(0).is_null());
  EXPECT_TRUE(ranges(0).as_list().empty());
  EXPECT_EQ(ranges(1).as_list().size(), 1u);
  EXPECT_TRUE(ranges(2).is_null());
}

// A data file name is a name in its bucket directory: a manifest naming a path elsewhere is
// Corruption naming the manifest, never a read or a delete outside the table.
TEST(ManifestTest, FileNamesMustBePlainNames) {
  for (const char* bad : {"../../../victim/data.parquet", "/etc/passwd", "..", "x/y"}) {
    auto bytes = EncodeManifest({Entry(bad)}, "null");
    ASSERT_TRUE(bytes.ok());
    auto r = DecodeManifest(*bytes, "manifest-x");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
    EXPECT_NE(r.status().message().find("manifest-x"), std::string::npos);
  }
  ManifestEntry extra = Entry("data-1.parquet");
  extra.file.extra_files = {"../index"};
  EXPECT_FALSE(DecodeManifest(*EncodeManifest({extra}, "null"), "manifest-x").ok());
  ManifestFileMeta m;
  m.file_name = "../manifest-1";
  auto list = EncodeManifestList({m}, "null");
  ASSERT_TRUE(list.ok());
  EXPECT_FALSE(DecodeManifestList(*list, "manifest-list-x").ok());
}

TEST(ManifestTest, MergeEntriesDropsDeletedFiles) {
  ManifestEntry add = Entry("data-1.parquet");
  ManifestEntry del = add;
  del.kind = FileKind::kDelete;
  std::vector<ManifestEntry> merged = MergeEntries({add, Entry("data-2.parquet"), del});
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].file.file_name, "data-2.parquet");
}

// Fed a manifest at a time, the merger gives what MergeEntries gives over all of them: order of
// the adds kept, a DELETE before its ADD (another manifest's order) not cancelling it, and a file
// added again after its DELETE live again.
TEST(ManifestTest, LiveEntryMergerEqualsMergeEntries) {
  auto del = [](ManifestEntry e) {
    e.kind = FileKind::kDelete;
    return e;
  };
  std::vector<ManifestEntry> all = {Entry("data-1.parquet"),      Entry("data-2.parquet"),
                                    del(Entry("data-3.parquet")), del(Entry("data-1.parquet")),
                                    Entry("data-3.parquet"),      Entry("data-4.parquet"),
                                    Entry("data-1.parquet")};
  LiveEntryMerger merger;
  for (ManifestEntry e : all) merger.Add(std::move(e));
  EXPECT_EQ(merger.entries_seen(), all.size());
  std::vector<ManifestEntry> live = std::move(merger).Finish();
  std::vector<ManifestEntry> expected = MergeEntries(all);
  std::vector<std::string> names, want;
  for (const auto& e : live) names.push_back(e.file.file_name);
  for (const auto& e : expected) want.push_back(e.file.file_name);
  EXPECT_EQ(names, want);
  EXPECT_EQ(names, (std::vector<std::string>{"data-2.parquet", "data-3.parquet", "data-4.parquet",
                                             "data-1.parquet"}));
  // What a cache charges for an entry counts its strings' heap bytes.
  ManifestEntry big = Entry("data-5.parquet");
  big.file.value_stats.min_values.assign(1000, 'x');
  EXPECT_GE(ApproxBytes(big), static_cast<int64_t>(sizeof(ManifestEntry)) + 1000);
}

// ApplyEntries(live, delta) is the merger fed `live` then `delta`, whatever the sequence: random
// adds and deletes of a few names (duplicates, a delete of an absent file, an add then a delete
// and a delete again within the delta) give the same entries in the same order.
TEST(ManifestTest, ApplyEntriesIsTheMergerOverLiveThenDelta) {
  std::mt19937 rng(11);
  for (int round = 0; round < 500; round++) {
    auto random_entries = [&](size_t n, bool deletes) {
      std::vector<ManifestEntry> out;
      for (size_t i = 0; i < n; i++) {
        ManifestEntry e = Entry("data-" + std::to_string(rng() % 6) + ".parquet");
        e.file.row_count = static_cast<int64_t>(rng() % 1000);  // not part of the identifier
        if (deletes && rng() % 3 == 0) e.kind = FileKind::kDelete;
        out.push_back(std::move(e));
      }
      return out;
    };
    // `live` as a merger leaves it (adds only, duplicates possible), then a delta.
    LiveEntryMerger first;
    for (auto& e : random_entries(rng() % 8, true)) first.Add(std::move(e));
    const std::vector<ManifestEntry> live = std::move(first).Finish();
    const std::vector<ManifestEntry> delta = random_entries(rng() % 8, true);
    LiveEntryMerger merger;
    for (const auto& e : live) merger.Add(ManifestEntry(e));
    for (const auto& e : delta) merger.Add(ManifestEntry(e));
    auto describe = [](const std::vector<ManifestEntry>& entries) {
      std::string s;
      for (const auto& e : entries)
        s += e.file.file_name + "/" + std::to_string(e.file.row_count) + " ";
      return s;
    };
    EXPECT_EQ(describe(ApplyEntries(live, delta)), describe(std::move(merger).Finish()))
        << "round " << round << ": live " << describe(live) << "delta " << describe(delta);
  }
}

}  // namespace
}  // namespace tributary::meta
