// FileStoreCommit on its own: snapshots published from commit messages (files described by their
// metas; the commit never opens them), compactions replacing files, a compaction that lost its
// inputs to a concurrent commit dropped, OVERWRITE of one partition, and a failed precondition
// publishing nothing; the live files a commit keeps in memory equal its manifests read back; a
// commit into a few partitions reads their live files alone when the whole list is not cached.
#include "commit/file_store_commit.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "format/binary_row.h"
#include "io/file_cache.h"
#include "io/file_system.h"
#include "meta/paths.h"
#include "meta/snapshot_reader.h"

namespace tributary::commit {
namespace {

class FileStoreCommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = "/tmp/tributary_commit_test_" + std::to_string(getpid());
    (void)io::LocalFs().RemoveAll(path_);
    ASSERT_TRUE(io::LocalFs().MakeDirs(meta::SchemaDir(path_)).ok());
    auto schema = std::make_shared<TableSchema>();
    schema->fields = {{0, "p", DataType::Int().NotNull(), ""}, {1, "v", DataType::String(), ""}};
    schema->partition_keys = {"p"};
    schema_ = schema;
  }
  void TearDown() override { (void)io::LocalFs().RemoveAll(path_); }

  static std::string Partition(int32_t p) {
    return format::SerializeBinaryRow({DataType::Int()}, {Value::Int(p)});
  }
  static meta::DataFileMeta File(const std::string& name, int64_t rows, int32_t level = 0) {
    meta::DataFileMeta f;
    f.file_name = name;
    f.file_size = rows * 10;
    f.row_count = rows;
    f.level = level;
    f.file_source = meta::FileSource::kAppend;
    return f;
  }
  // Live file names of the latest snapshot, sorted, and its kind.
  std::vector<std::string> Live(meta::CommitKind* kind = nullptr) {
    meta::SnapshotManager snapshots(path_);
    auto id = snapshots.LatestId();
    EXPECT_TRUE(id.ok() && id->has_value());
    auto snap = snapshots.Read(**id);
    EXPECT_TRUE(snap.ok());
    if (kind) *kind = (*snap)->commit_kind;
    auto live = meta::ReadLiveEntries(path_, **snap);
    EXPECT_TRUE(live.ok()) << live.status().ToString();
    std::vector<std::string> names;
    for (const auto& e : *live) names.push_back(e.file.file_name);
    std::sort(names.begin(), names.end());
    return names;
  }
  // A message of new files for bucket 0 of partition `p` (one bucket).
  static CommitMessage NewFiles(int32_t p, std::vector<meta::DataFileMeta> files) {
    CommitMessage m;
    m.partition = Partition(p);
    m.total_buckets = 1;
    m.new_files = std::move(files);
    return m;
  }
  static CommitRequest Req(CommitMessage m) {
    CommitRequest r;
    r.messages.push_back(std::move(m));
    return r;
  }
  Result<CommitResult> Commit(CommitRequest req) {
    return FileStoreCommit(path_, schema_, "test-user").Commit(req);
  }

  std::string path_;
  std::shared_ptr<const TableSchema> schema_;
};

TEST_F(FileStoreCommitTest, PublishesFilesThenCompactionsAsTheirOwnSnapshots) {
  CommitMessage m = NewFiles(1, {File("data-a.parquet", 3), File("data-b.parquet", 4)});
  auto r = Commit(Req(m));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->last_snapshot, 1);
  EXPECT_EQ(r->snapshots, 1);
  meta::CommitKind kind;
  EXPECT_EQ(Live(&kind), (std::vector<std::string>{"data-a.parquet", "data-b.parquet"}));
  EXPECT_EQ(kind, meta::CommitKind::kAppend);

  // New files and a compaction of the earlier ones in one request: APPEND, then COMPACT.
  CommitMessage n = m;
  n.new_files = {File("data-c.parquet", 1)};
  n.compact_before = m.new_files;
  n.compact_after = {File("data-ab.parquet", 7, 5)};
  r = Commit(Req(n));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->first_snapshot, 2);
  EXPECT_EQ(r->last_snapshot, 3);
  EXPECT_FALSE(r->compaction_dropped);
  EXPECT_EQ(Live(&kind), (std::vector<std::string>{"data-ab.parquet", "data-c.parquet"}));
  EXPECT_EQ(kind, meta::CommitKind::kCompact);
  auto snap = meta::SnapshotManager(path_).Read(3);
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ((*snap)->total_record_count, 8);

  // Nothing to commit publishes nothing.
  r = Commit(CommitRequest{});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->last_snapshot.has_value());
}

TEST_F(FileStoreCommitTest, ACompactionWhoseInputsAreGoneIsDropped) {
  CommitMessage m = NewFiles(1, {File("data-a.parquet", 3)});
  ASSERT_TRUE(Commit(Req(m)).ok());
  // Another writer's compaction replaced data-a first.
  CommitMessage other = m;
  other.new_files.clear();
  other.compact_before = m.new_files;
  other.compact_after = {File("data-x.parquet", 3, 5)};
  ASSERT_TRUE(Commit(Req(other)).ok());
  // This compaction of data-a lost the race: nothing of it is published.
  CommitMessage late = other;
  late.compact_after = {File("data-y.parquet", 3, 5)};
  auto r = Commit(Req(late));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->compaction_dropped);
  EXPECT_EQ(Live(), (std::vector<std::string>{"data-x.parquet"}));
}

TEST_F(FileStoreCommitTest, OverwriteReplacesOnlyThePartitionsItNames) {
  for (int p : {1, 2}) {
    CommitMessage m = NewFiles(p, {File("data-p" + std::to_string(p) + ".parquet", 2)});
    ASSERT_TRUE(Commit(Req(m)).ok());
  }
  CommitMessage m = NewFiles(1, {File("data-p1-new.parquet", 5)});
  CommitRequest req = Req(m);
  req.overwrite = true;
  const std::string one = Partition(1);
  req.overwrite_filter = [one](const std::string& partition) { return partition == one; };
  auto r = Commit(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  meta::CommitKind kind;
  EXPECT_EQ(Live(&kind), (std::vector<std::string>{"data-p1-new.parquet", "data-p2.parquet"}));
  EXPECT_EQ(kind, meta::CommitKind::kOverwrite);
}

TEST_F(FileStoreCommitTest, AFailedPreconditionPublishesNothing) {
  CommitMessage m = NewFiles(1, {File("data-a.parquet", 3)});
  ASSERT_TRUE(Commit(Req(m)).ok());
  CommitMessage n = m;
  n.new_files = {File("data-b.parquet", 3)};
  CommitRequest req = Req(n);
  size_t seen = 0;
  req.precondition = [&](const std::vector<meta::ManifestEntry>& live) {
    seen = live.size();
    return Status::Conflict("the partition changed");
  };
  auto r = Commit(req);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("the partition changed"), std::string::npos);
  EXPECT_EQ(seen, 1u);  // it was shown the live files
  EXPECT_EQ(Live(), (std::vector<std::string>{"data-a.parquet"}));
  EXPECT_EQ(*meta::SnapshotManager(path_).LatestId(), 1);
}

// A commit keeps the new snapshot's live files in the process's cache (the next commit and
// reads use them): they must be what the manifests give, in order, through appends, compactions,
// overwrites and base manifests merged into one (past 16).
TEST_F(FileStoreCommitTest, TheLiveFilesACommitKeepsAreItsManifests) {
  auto from_manifests = [&](const meta::Snapshot& snap) {
    meta::LiveEntryMerger merger;
    for (const std::string& list : {snap.base_manifest_list, snap.delta_manifest_list}) {
      auto metas = meta::ReadManifestList(path_, list);
      EXPECT_TRUE(metas.ok()) << metas.status().ToString();
      for (const auto& m : *metas) {
        auto entries = meta::ReadManifest(path_, m.file_name);
        EXPECT_TRUE(entries.ok()) << entries.status().ToString();
        for (auto& e : *entries) merger.Add(std::move(e));
      }
    }
    return std::move(merger).Finish();
  };
  auto check = [&](const std::string& step) {
    meta::SnapshotManager snapshots(path_);
    auto id = snapshots.LatestId();
    ASSERT_TRUE(id.ok() && id->has_value());
    for (int64_t i = 1; i <= **id; i++) {
      auto snap = snapshots.Read(i);
      ASSERT_TRUE(snap.ok());
      if (i < **id) continue;
      auto kept = meta::ReadLiveEntriesShared(path_, **snap);
      ASSERT_TRUE(kept.ok()) << kept.status().ToString();
      // Both encoded as one manifest, compared but for Avro's random sync markers.
      auto encode = [](const std::vector<meta::ManifestEntry>& entries) {
        auto bytes = meta::EncodeManifest(entries, "null");
        EXPECT_TRUE(bytes.ok());
        std::string out = bytes.ValueOr("");
        const std::string sync = out.substr(out.size() - 16);
        for (size_t at = out.find(sync); at != std::string::npos; at = out.find(sync, at))
          out.replace(at, 16, 16, '#');
        return out;
      };
      EXPECT_EQ(encode(**kept), encode(from_manifests(**snap)))
          << step << ": " << (*kept)->size() << " kept entries";
    }
  };
  std::vector<meta::DataFileMeta> all;
  for (int i = 0; i < 20; i++) {
    CommitMessage m = NewFiles(i % 3, {File("data-" + std::to_string(i) + ".parquet", 1 + i)});
    ASSERT_TRUE(Commit(Req(m)).ok());
    check("append " + std::to_string(i));
  }
  // A compaction of partition 0's files.
  CommitMessage c = NewFiles(0, {});
  for (int i = 0; i < 20; i += 3)
    c.compact_before.push_back(File("data-" + std::to_string(i) + ".parquet", 1 + i));
  c.compact_after = {File("data-c0.parquet", 70, 5)};
  ASSERT_TRUE(Commit(Req(c)).ok());
  check("compaction");
  CommitMessage o = NewFiles(1, {File("data-o1.parquet", 9)});
  CommitRequest req = Req(o);
  req.overwrite = true;
  const std::string one = Partition(1);
  req.overwrite_filter = [one](const std::string& partition) { return partition == one; };
  ASSERT_TRUE(Commit(req).ok());
  check("overwrite");
  EXPECT_EQ(Live(), (std::vector<std::string>{
                        "data-11.parquet", "data-14.parquet", "data-17.parquet", "data-2.parquet",
                        "data-5.parquet", "data-8.parquet", "data-c0.parquet", "data-o1.parquet"}));
}

// A writer into a few partitions of a table of thousands neither merges nor keeps every
// partition's live files (issue 38): without the whole list cached, a commit reads the live
// entries of the partitions it writes alone; they and the layout counts must be what the whole
// list gives.
TEST_F(FileStoreCommitTest, ACommitIntoSomePartitionsReadsTheirLiveFilesAlone) {
  for (int i = 0; i < 20; i++) {
    CommitMessage m = NewFiles(i % 3, {File("data-" + std::to_string(i) + ".parquet", 1 + i)});
    ASSERT_TRUE(Commit(Req(m)).ok());
  }
  CommitMessage c = NewFiles(0, {});
  for (int i = 0; i < 20; i += 3)
    c.compact_before.push_back(File("data-" + std::to_string(i) + ".parquet", 1 + i));
  c.compact_after = {File("data-c0.parquet", 70, 5)};
  ASSERT_TRUE(Commit(Req(c)).ok());
  auto latest = [&] {
    meta::SnapshotManager snapshots(path_);
    auto id = snapshots.LatestId();
    EXPECT_TRUE(id.ok() && id->has_value());
    auto snap = snapshots.Read(**id);
    EXPECT_TRUE(snap.ok());
    return *snap;
  };
  auto names = [](const std::vector<meta::ManifestEntry>& entries) {
    std::vector<std::string> out;
    for (const auto& e : entries) out.push_back(e.file.file_name);
    return out;
  };
  auto check = [&](const std::string& step) {
    auto snap = latest();
    for (const std::set<std::string>& parts :
         {std::set<std::string>{Partition(0)}, std::set<std::string>{Partition(1)},
          std::set<std::string>{Partition(0), Partition(2)}, std::set<std::string>{}}) {
      io::FileCache::Instance().EraseUnder(path_);
      auto scoped = meta::ReadLivePartitionEntries(path_, *snap, parts);
      ASSERT_TRUE(scoped.ok()) << scoped.status().ToString();
      EXPECT_FALSE(meta::LiveEntriesCached(path_, *snap)) << step;
      auto layout = meta::CountLiveLayout(path_, *snap);
      ASSERT_TRUE(layout.ok()) << layout.status().ToString();
      auto all = meta::ReadLiveEntriesShared(path_, *snap);  // cached from here on
      ASSERT_TRUE(all.ok());
      EXPECT_TRUE(meta::LiveEntriesCached(path_, *snap));
      std::vector<meta::ManifestEntry> filtered;
      std::set<std::pair<std::string, int32_t>> buckets;
      std::set<std::string> partitions;
      for (const auto& e : **all) {
        if (parts.count(e.partition)) filtered.push_back(e);
        buckets.insert({e.partition, e.bucket});
        partitions.insert(e.partition);
      }
      EXPECT_EQ(names(*scoped), names(filtered)) << step << ", from the manifests";
      auto cached = meta::ReadLivePartitionEntries(path_, *snap, parts);
      ASSERT_TRUE(cached.ok());
      EXPECT_EQ(names(*cached), names(filtered)) << step << ", from the cached list";
      EXPECT_EQ(layout->partitions, partitions) << step;
      EXPECT_EQ(layout->buckets, static_cast<int64_t>(buckets.size())) << step;
      auto counted = meta::CountLiveLayout(path_, *snap);
      ASSERT_TRUE(counted.ok());
      EXPECT_EQ(counted->partitions, partitions) << step;
      EXPECT_EQ(counted->buckets, static_cast<int64_t>(buckets.size())) << step;
    }
  };
  check("after the compaction");
  // A commit into partition 1 without the whole list cached: published right, nothing whole kept.
  io::FileCache::Instance().EraseUnder(path_);
  ASSERT_TRUE(Commit(Req(NewFiles(1, {File("data-n1.parquet", 3)}))).ok());
  EXPECT_FALSE(meta::LiveEntriesCached(path_, *latest()));
  check("after a commit into one partition");
  // A compaction whose inputs are gone is still dropped when only its partition is read.
  io::FileCache::Instance().EraseUnder(path_);
  CommitMessage stale = NewFiles(2, {});
  stale.compact_before = {File("data-0.parquet", 1)};  // partition 0's, compacted above
  stale.compact_after = {File("data-c2.parquet", 1, 5)};
  auto dropped = Commit(Req(stale));
  ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
  EXPECT_TRUE(dropped->compaction_dropped);
  EXPECT_EQ(Live(), (std::vector<std::string>{
                        "data-1.parquet", "data-10.parquet", "data-11.parquet", "data-13.parquet",
                        "data-14.parquet", "data-16.parquet", "data-17.parquet", "data-19.parquet",
                        "data-2.parquet", "data-4.parquet", "data-5.parquet", "data-7.parquet",
                        "data-8.parquet", "data-c0.parquet", "data-n1.parquet"}));
}

}  // namespace
}  // namespace tributary::commit
