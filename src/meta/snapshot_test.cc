#include "meta/snapshot.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "io/file_system.h"
#include "meta/paths.h"

namespace tributary::meta {
namespace {

Snapshot Sample(int64_t id) {
  Snapshot s;
  s.id = id;
  s.schema_id = 2;
  s.base_manifest_list = "manifest-list-base-" + std::to_string(id);
  s.base_manifest_list_size = 100;
  s.delta_manifest_list = "manifest-list-delta-" + std::to_string(id);
  s.delta_manifest_list_size = 50;
  s.index_manifest = "index-manifest-1";
  s.commit_user = "user";
  s.commit_identifier = 7;
  s.commit_kind = CommitKind::kCompact;
  s.time_millis = 1700000000000;
  s.total_record_count = 10;
  s.delta_record_count = 3;
  return s;
}

TEST(SnapshotTest, JsonRoundTrip) {
  Snapshot s = Sample(5);
  auto back = SnapshotFromJson(SnapshotToJson(s), "snapshot-5");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->id, 5);
  EXPECT_EQ(back->schema_id, 2);
  EXPECT_EQ(back->base_manifest_list, s.base_manifest_list);
  EXPECT_EQ(back->delta_manifest_list, s.delta_manifest_list);
  EXPECT_EQ(back->index_manifest, s.index_manifest);
  EXPECT_EQ(back->commit_kind, CommitKind::kCompact);
  EXPECT_EQ(back->total_record_count, 10);
  EXPECT_FALSE(back->changelog_manifest_list);
}

// Manifest list names are file names in manifest/: a snapshot naming a path elsewhere is
// refused, so metadata never leads a read outside the table.
TEST(SnapshotTest, ManifestListNamesMustBePlainNames) {
  for (const char* bad : {"../../victim/manifest-list", "/etc/passwd", "..", "a/b", ""}) {
    Snapshot s = Sample(1);
    s.delta_manifest_list = bad;
    auto r = SnapshotFromJson(SnapshotToJson(s), "snapshot-1");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("snapshot-1"), std::string::npos);
  }
  Snapshot s = Sample(1);
  s.changelog_manifest_list = "../changelog";
  EXPECT_FALSE(SnapshotFromJson(SnapshotToJson(s), "snapshot-1").ok());
}

TEST(SnapshotTest, DamagedJsonIsCorruption) {
  std::string json = SnapshotToJson(Sample(1));
  for (const std::string& bad :
       {json.substr(0, json.size() / 2), std::string("[1, 2]"), std::string("{\"id\": \"x\"}"),
        std::string(5000, '[') + std::string(5000, ']')}) {
    auto r = SnapshotFromJson(bad, "snapshot-1");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << r.status().ToString();
  }
}

TEST(SnapshotManagerTest, PublishesOnceAndFindsTheLatest) {
  const std::string dir = "/tmp/tributary_snapshot_test_" + std::to_string(getpid());
  (void)io::LocalFs().RemoveAll(dir);
  SnapshotManager m(dir);
  EXPECT_FALSE(*m.LatestId());
  // No snapshot goes into a directory that holds no table (one dropped under its writer).
  auto orphan = m.TryCommit(Sample(1));
  ASSERT_FALSE(orphan.ok());
  EXPECT_TRUE(orphan.status().IsNotFound()) << orphan.status().ToString();
  EXPECT_FALSE(*io::LocalFs().Exists(dir));
  ASSERT_TRUE(io::LocalFs().MakeDirs(SchemaDir(dir)).ok());
  ASSERT_TRUE(*m.TryCommit(Sample(1)));
  ASSERT_TRUE(*m.TryCommit(Sample(2)));
  EXPECT_FALSE(*m.TryCommit(Sample(2)));  // another writer published it first
  EXPECT_EQ(*m.LatestId(), 2);
  EXPECT_EQ(*m.EarliestId(), 1);
  EXPECT_EQ(*m.ListIds(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ((*m.Read(2))->base_manifest_list, "manifest-list-base-2");
  EXPECT_FALSE(m.Read(3).ok());
  (void)io::LocalFs().RemoveAll(dir);
}

// A reader waiting for a table's next snapshot is woken by this process's publication of one,
// not by another table's, nor by a publication that lost the race for its id.
TEST(SnapshotManagerTest, PublicationsWakeWaitersOfTheirTable) {
  const std::string dir = "/tmp/tributary_snapshot_wake_" + std::to_string(getpid());
  const std::string other = dir + "_other";
  (void)io::LocalFs().RemoveAll(dir);
  (void)io::LocalFs().RemoveAll(other);
  ASSERT_TRUE(io::LocalFs().MakeDirs(SchemaDir(dir)).ok());
  ASSERT_TRUE(io::LocalFs().MakeDirs(SchemaDir(other)).ok());
  SnapshotManager m(dir);
  const uint64_t before = PublishedGeneration(dir);
  ASSERT_TRUE(*SnapshotManager(other).TryCommit(Sample(1)));
  EXPECT_EQ(PublishedGeneration(dir), before);
  // (Another table's publication does not end the wait: it times out, a moment from now.)
  WaitForPublished(dir, before, std::chrono::steady_clock::now() + std::chrono::milliseconds(20));
  EXPECT_EQ(PublishedGeneration(dir), before);
  // The wait below ends when the publication comes, long before its deadline.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(*m.TryCommit(Sample(1)));
  });
  WaitForPublished(dir, before, deadline);
  EXPECT_EQ(PublishedGeneration(dir), before + 1);
  EXPECT_LT(std::chrono::steady_clock::now(), deadline);
  writer.join();
  EXPECT_FALSE(*m.TryCommit(Sample(1)));  // lost: nothing published
  EXPECT_EQ(PublishedGeneration(dir), before + 1);
  (void)io::LocalFs().RemoveAll(dir);
  (void)io::LocalFs().RemoveAll(other);
}

// A table is followed while a reader of the process follows it, by path.
TEST(SnapshotManagerTest, FollowedWhileAReaderFollows) {
  const std::string a = "/tmp/tributary_followed_a", b = "/tmp/tributary_followed_b";
  EXPECT_FALSE(IsFollowed(a));
  {
    FollowingTable one(a);
    {
      FollowingTable two(a);
      EXPECT_TRUE(IsFollowed(a));
    }
    EXPECT_TRUE(IsFollowed(a));  // one reader is left
    EXPECT_FALSE(IsFollowed(b));
  }
  EXPECT_FALSE(IsFollowed(a));
}

// Hints are written in place without fsync (io::WriteHintFile): whatever a crash or a reader
// racing the write leaves in them (nothing, a short number, an old one, garbage), the latest and
// earliest snapshots are still found.
TEST(SnapshotManagerTest, DamagedOrStaleHintsAreVerified) {
  const std::string dir = "/tmp/tributary_snapshot_hint_test_" + std::to_string(getpid());
  (void)io::LocalFs().RemoveAll(dir);
  ASSERT_TRUE(io::LocalFs().MakeDirs(SchemaDir(dir)).ok());
  SnapshotManager m(dir);
  for (int64_t id = 1; id <= 12; id++) ASSERT_TRUE(*m.TryCommit(Sample(id)));
  const std::string latest = LatestHintPath(SnapshotDir(dir));
  const std::string earliest = EarliestHintPath(SnapshotDir(dir));
  for (const char* text : {"", "1", "3", "12x", "99", "-4", "\n"}) {
    ASSERT_TRUE(io::WriteHintFile(latest, text).ok());
    ASSERT_TRUE(io::WriteHintFile(earliest, text).ok());
    EXPECT_EQ(*m.LatestId(), 12) << "LATEST = '" << text << "'";
    EXPECT_EQ(*m.EarliestId(), 1) << "EARLIEST = '" << text << "'";
  }
  ASSERT_TRUE(io::LocalFs().Remove(SnapshotPath(dir, 1)).ok());
  ASSERT_TRUE(io::WriteHintFile(earliest, "1").ok());
  EXPECT_EQ(*m.EarliestId(), 2);
  ASSERT_TRUE(*m.TryCommit(Sample(13)));
  EXPECT_EQ(*m.LatestId(), 13);
  (void)io::LocalFs().RemoveAll(dir);
}

}  // namespace
}  // namespace tributary::meta
