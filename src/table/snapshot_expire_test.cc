// Snapshot expiration through the public API: retention options bound the snapshots, every file
// left on disk is one a retained snapshot uses, the table reads right, and a streaming reader
// that keeps up never misses a change.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "commit/orphan_files.h"
#include "io/file_system.h"
#include "meta/branches.h"
#include "meta/paths.h"
#include "meta/snapshot.h"
#include "meta/snapshot_reader.h"
#include "meta/tags.h"
#include "table/warehouse_test_base.h"
#include "tributary/catalog.h"
#include "tributary/stream_scan.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"
#include "tributary/table_writer.h"

namespace tributary {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class SnapshotExpireTest : public WarehouseTest {
 protected:
  std::unique_ptr<Table> Create(std::map<std::string, std::string> options) {
    TableSpec s;
    s.columns = {{0, "id", DataType::BigInt().NotNull(), ""}, {0, "v", DataType::BigInt(), ""}};
    s.primary_keys = {"id"};
    s.options = std::move(options);
    Status st = catalog_->CreateTable(Identifier{"default", "t", ""}, s, false);
    EXPECT_TRUE(st.ok()) << st.ToString();
    auto t = catalog_->GetTable(Identifier{"default", "t", ""});
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return std::move(*t);
  }

  // Every file under data, changelog and manifest folders that a retained snapshot uses.
  static std::set<std::string> Referenced(const std::string& table_path) {
    std::set<std::string> names;
    meta::SnapshotManager snapshots(table_path);
    auto ids = snapshots.ListIds();
    EXPECT_TRUE(ids.ok());
    for (int64_t id : *ids) {
      auto s = snapshots.Read(id);
      EXPECT_TRUE(s.ok()) << s.status().ToString();
      std::vector<std::string> lists = {(*s)->base_manifest_list, (*s)->delta_manifest_list};
      if ((*s)->changelog_manifest_list) lists.push_back(*(*s)->changelog_manifest_list);
      for (const auto& l : lists) {
        names.insert(l);
        auto metas = meta::ReadManifestList(table_path, l);
        EXPECT_TRUE(metas.ok()) << metas.status().ToString();
        for (const auto& m : *metas) {
          names.insert(m.file_name);
          auto entries = meta::ReadManifest(table_path, m.file_name);
          EXPECT_TRUE(entries.ok());
          for (const auto& e : *entries) names.insert(e.file.file_name);
        }
      }
    }
    return names;
  }
};

TEST_F(SnapshotExpireTest, ManyCommitsKeepAtMostTheRetainedSnapshotsAndNoUnusedFile) {
  auto t = Create({{"bucket", "2"},
                   {"changelog-producer", "input"},
                   {"snapshot.num-retained.min", "3"},
                   {"snapshot.num-retained.max", "5"}});
  // A reader that keeps up with the commits, and the model it must rebuild.
  StreamOptions o;
  o.startup_mode = "earliest";
  auto stream = t->NewStreamScan(o);
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  std::map<int64_t, int64_t> model, streamed;
  std::mt19937 rng(7);
  for (int c = 0; c < 200; c++) {
    auto w = t->NewWriter({});
    ASSERT_TRUE(w.ok());
    for (int i = 0; i < 5; i++) {
      const int64_t id = rng() % 40;
      if (rng() % 4 == 0) {
        if (!model.count(id)) continue;
        ASSERT_TRUE((*w)->Write(RowKind::kDelete, Row{Value::Int(id), Value::Int(model[id])}).ok());
        model.erase(id);
      } else {
        const int64_t v = c * 10 + i;
        ASSERT_TRUE((*w)->Write(RowKind::kInsert, Row{Value::Int(id), Value::Int(v)}).ok());
        model[id] = v;
      }
    }
    auto committed = (*w)->Commit();
    ASSERT_TRUE(committed.ok()) << committed.status().ToString();
    if (c % 50 == 49) {
      ASSERT_TRUE(t->CompactFull().ok());
    }
    RowBatch b;
    while (true) {
      auto more = (*stream)->Next(&b, 0ms);
      ASSERT_TRUE(more.ok()) << "commit " << c << ": " << more.status().ToString();
      if (!*more) break;
      for (size_t i = 0; i < b.rows.size(); i++) {
        const int64_t id = b.rows[i][0].int_value();
        if (IsAdd(b.kinds[i])) {
          streamed[id] = b.rows[i][1].int_value();
        } else {
          streamed.erase(id);
        }
      }
    }
  }
  EXPECT_EQ(streamed, model);
  meta::SnapshotManager snapshots(t->path());
  auto ids = snapshots.ListIds();
  ASSERT_TRUE(ids.ok());
  EXPECT_LE(ids->size(), 5u);
  EXPECT_GE(ids->size(), 3u);
  // No data, changelog or manifest file is left that no retained snapshot uses.
  const std::set<std::string> used = Referenced(t->path());
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(t->path())) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    const std::string parent = entry.path().parent_path().filename().string();
    if (parent == "snapshot" || parent == "schema") continue;
    // Writers' lock files at the table root (.bucket-layout.lock, .dynamic-bucket.lock).
    if (name.front() == '.' && name.size() > 5 && name.compare(name.size() - 5, 5, ".lock") == 0) {
      continue;
    }
    files++;
    EXPECT_TRUE(used.count(name)) << "unused file left behind: " << entry.path();
  }
  EXPECT_GT(files, 0);
  // The table reads as the model says.
  auto scan = t->NewScan({});
  ASSERT_TRUE(scan.ok());
  std::map<int64_t, int64_t> read;
  RowBatch b;
  while (true) {
    auto more = (*scan)->Next(&b);
    ASSERT_TRUE(more.ok());
    if (!*more) break;
    for (const Row& r : b.rows) read[r[0].int_value()] = r[1].int_value();
  }
  EXPECT_EQ(read, model);
  // A reader that fell behind the oldest snapshot is told so instead of skipping changes.
  StreamOptions from1;
  from1.startup_mode = "from-snapshot";
  from1.startup_snapshot_id = 1;
  auto late = t->NewStreamScan(from1);
  ASSERT_TRUE(late.ok());
  auto r = (*late)->Next(&b, 0ms);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("expired"), std::string::npos) << r.status().ToString();
}

// A reader with a consumer id that stops while writers go on: expiration keeps the snapshots it
// has not read, and the reader opened again with its id resumes without a gap.
TEST_F(SnapshotExpireTest, AConsumerKeepsWhatItHasNotReadAndResumes) {
  auto t = Create({{"bucket", "1"},
                   {"changelog-producer", "input"},
                   {"snapshot.num-retained.min", "1"},
                   {"snapshot.num-retained.max", "2"}});
  auto commit = [&](int64_t id) {
    auto w = t->NewWriter({});
    ASSERT_TRUE((*w)->Write(RowKind::kInsert, Row{Value::Int(id), Value::Int(id)}).ok());
    ASSERT_TRUE((*w)->Commit().ok());
  };
  auto drain = [&](StreamScan& s) {
    std::vector<int64_t> ids;
    RowBatch b;
    while (true) {
      auto more = s.Next(&b, 0ms);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) return ids;
      for (const Row& r : b.rows) ids.push_back(r[0].int_value());
      EXPECT_TRUE(s.Checkpoint().ok());  // delivered
    }
  };
  StreamOptions o;
  o.startup_mode = "earliest";
  o.consumer_id = "billing";
  commit(1);
  {
    // Handed out but not delivered (no Checkpoint): a resumed reader gets it again.
    auto s = t->NewStreamScan(o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    RowBatch b;
    ASSERT_TRUE(*(*s)->Next(&b, 0ms));
  }
  {
    auto s = t->NewStreamScan(o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(drain(**s), std::vector<int64_t>{1});
  }  // the reader stops after snapshot 1
  for (int64_t id = 2; id <= 8; id++) commit(id);
  // Without the consumer only two snapshots would be left; the consumer keeps 2 onwards.
  auto ids = meta::SnapshotManager(t->path()).ListIds();
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(ids->front(), 2);
  auto again = t->NewStreamScan(o);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(drain(**again), (std::vector<int64_t>{2, 3, 4, 5, 6, 7, 8}));
  // Caught up: the next commit's expiration lets the old snapshots go.
  commit(9);
  ids = meta::SnapshotManager(t->path()).ListIds();
  EXPECT_LE(ids->size(), 2u);
  StreamOptions bad;
  bad.consumer_id = "../escape";
  EXPECT_FALSE(t->NewStreamScan(bad).ok());
}

// A tag keeps its snapshot readable while expiration goes on around it, and the index files
// of a dynamic-bucket table (a HASH index per bucket, rewritten by each commit) go with the
// snapshots that used them: afterwards no file is left that no snapshot or tag uses.
TEST_F(SnapshotExpireTest, TagsStayReadableAndIndexFilesExpire) {
  auto t = Create({{"bucket", "-1"},
                   {"snapshot.num-retained.min", "2"},
                   {"snapshot.num-retained.max", "4"},
                   {"num-sorted-run.compaction-trigger", "2"}});
  auto read = [&](std::map<std::string, std::string> hints) { return ReadIdValues(*t, hints); };
  std::map<int64_t, int64_t> model, at_tag;
  for (int c = 0; c < 60; c++) {
    auto w = t->NewWriter({});
    ASSERT_TRUE(w.ok());
    for (int i = 0; i < 4; i++) {
      const int64_t id = (c * 7 + i * 13) % 50;
      ASSERT_TRUE((*w)->Write(RowKind::kInsert, Row{Value::Int(id), Value::Int(c)}).ok());
      model[id] = c;
    }
    auto committed = (*w)->Commit();
    ASSERT_TRUE(committed.ok()) << committed.status().ToString();
    if (c == 10) {
      auto s = meta::SnapshotManager(t->path()).Read(**committed);
      ASSERT_TRUE(s.ok());
      ASSERT_TRUE(meta::CreateTag(t->path(), "day1", **s, "2026-12-01T00:00:00").ok());
      at_tag = model;
    }
  }
  ASSERT_TRUE(t->CompactFull().ok());
  EXPECT_LE(meta::SnapshotManager(t->path()).ListIds()->size(), 4u);
  EXPECT_EQ(read({}), model);
  EXPECT_EQ(read({{"scan.tag-name", "day1"}}), at_tag);
  // Nothing left that no snapshot or tag uses: index files included.
  auto orphans = commit::RemoveOrphanFiles(t->path(), INT64_MAX, /*dry_run=*/true);
  ASSERT_TRUE(orphans.ok()) << orphans.status().ToString();
  std::string names;
  for (const auto& p : orphans->paths) names += " " + p;
  EXPECT_EQ(orphans->files, 0) << names;
  int index_files = 0;
  for (const auto& e : fs::directory_iterator(t->path() + "/index"))
    index_files += e.is_regular_file();
  EXPECT_LE(index_files, 4 * 2 + 2);  // a few retained snapshots' and the tag's, not 60
  // Once the tag is gone, its files are orphans that CALL sys.remove_orphan_files removes.
  ASSERT_TRUE(meta::DeleteTag(t->path(), "day1").ok());
  orphans = commit::RemoveOrphanFiles(t->path(), INT64_MAX, /*dry_run=*/false);
  ASSERT_TRUE(orphans.ok());
  EXPECT_GT(orphans->files, 0);
  EXPECT_EQ(read({}), model);
}

// Main and its branches share manifests and data files: each one's expiration (and orphan
// cleanup on either) leaves alone what the others use, also when the tag the branch started
// from is gone; once the branch is deleted its files are orphans.
TEST_F(SnapshotExpireTest, BranchesKeepWhatTheyUseThroughExpirationAndOrphanCleanup) {
  auto t = Create({{"bucket", "2"},
                   {"snapshot.num-retained.min", "1"},
                   {"snapshot.num-retained.max", "2"},
                   {"num-sorted-run.compaction-trigger", "2"}});
  auto read = [&](Table& table) { return ReadIdValues(table); };
  auto commit = [&](Table& table, int c, std::map<int64_t, int64_t>* model) {
    auto w = table.NewWriter({});
    ASSERT_TRUE(w.ok());
    for (int i = 0; i < 5; i++) {
      const int64_t id = (c * 7 + i * 13) % 40;
      ASSERT_TRUE((*w)->Write(RowKind::kInsert, Row{Value::Int(id), Value::Int(c)}).ok());
      (*model)[id] = c;
    }
    auto committed = (*w)->Commit();
    ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  };
  std::map<int64_t, int64_t> main_model;
  for (int c = 0; c < 5; c++) commit(*t, c, &main_model);
  auto latest = meta::SnapshotManager(t->path()).Read(*t->LatestSnapshotId().value());
  ASSERT_TRUE(latest.ok());
  ASSERT_TRUE(meta::CreateTag(t->path(), "start", **latest, "2026-12-02T00:00:00").ok());
  ASSERT_TRUE(meta::CreateBranch(t->path(), "dev", "start").ok());
  ASSERT_TRUE(meta::DeleteTag(t->path(), "start").ok());
  auto dev = catalog_->GetTable(Identifier{"default", "t", "", "dev"});
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  std::map<int64_t, int64_t> dev_model = main_model;
  // Main compacts the tag's files away and expires the snapshots that had them.
  for (int c = 5; c < 30; c++) commit(*t, c, &main_model);
  EXPECT_EQ(read(**dev), dev_model);
  // The branch's own commits (and compactions, and expiration) leave main's files alone.
  for (int c = 100; c < 104; c++) commit(**dev, c, &dev_model);
  for (int c = 30; c < 35; c++) commit(*t, c, &main_model);
  EXPECT_LE(meta::SnapshotManager(t->path()).ListIds()->size(), 2u);
  EXPECT_LE(meta::SnapshotManager((*dev)->path()).ListIds()->size(), 2u);
  EXPECT_EQ(read(*t), main_model);
  EXPECT_EQ(read(**dev), dev_model);
  for (const std::string& path : {t->path(), (*dev)->path()}) {
    auto orphans = commit::RemoveOrphanFiles(path, INT64_MAX, /*dry_run=*/false);
    ASSERT_TRUE(orphans.ok()) << orphans.status().ToString();
    std::string names;
    for (const auto& p : orphans->paths) names += " " + p;
    EXPECT_EQ(orphans->files, 0) << path << ":" << names;
  }
  EXPECT_EQ(read(*t), main_model);
  EXPECT_EQ(read(**dev), dev_model);
  ASSERT_TRUE(meta::DeleteBranch(t->path(), "dev").ok());
  auto orphans = commit::RemoveOrphanFiles(t->path(), INT64_MAX, /*dry_run=*/false);
  ASSERT_TRUE(orphans.ok()) << orphans.status().ToString();
  EXPECT_GT(orphans->files, 0);
  EXPECT_EQ(read(*t), main_model);
}

// 'changelog.num-retained.*' beyond the snapshots': expired snapshots leave their changes as
// long-lived changelogs (changelog/changelog-<id>) that a streaming reader from the earliest
// reads on into the snapshots, until the changelog retention lets them go too; no file is left
// that nothing uses. With a producer (its changelog files) and without (the data files APPEND
// snapshots added, kept though compactions replaced them).
TEST_F(SnapshotExpireTest, AChangelogOutlivesItsSnapshots) {
  for (const char* producer : {"input", "none"}) {
    SCOPED_TRACE(producer);
    const std::string name = std::string("cl_") + producer;
    TableSpec spec;
    spec.columns = {{0, "id", DataType::BigInt().NotNull(), ""}, {0, "v", DataType::BigInt(), ""}};
    spec.primary_keys = {"id"};
    spec.options = {{"bucket", "1"},
                    {"changelog-producer", producer},
                    {"num-sorted-run.compaction-trigger", "2"},
                    {"snapshot.num-retained.min", "1"},
                    {"snapshot.num-retained.max", "3"},
                    {"changelog.num-retained.max", "12"}};
    ASSERT_TRUE(catalog_->CreateTable(Identifier{"default", name, ""}, spec, false).ok());
    auto got = catalog_->GetTable(Identifier{"default", name, ""});
    ASSERT_TRUE(got.ok());
    auto t = std::move(*got);
    std::map<int64_t, int64_t> model;
    for (int64_t c = 1; c <= 30; c++) {
      auto w = t->NewWriter({});
      ASSERT_TRUE((*w)->Write(RowKind::kInsert, Row{Value::Int(c % 4), Value::Int(c)}).ok());
      auto committed = (*w)->Commit();
      ASSERT_TRUE(committed.ok()) << committed.status().ToString();
      model[c % 4] = c;
    }
    auto snapshot_ids = *meta::SnapshotManager(t->path()).ListIds();
    auto changelog_ids = *meta::ListLongLivedChangelogIds(t->path());
    EXPECT_LE(snapshot_ids.size(), 3u);
    ASSERT_FALSE(changelog_ids.empty());
    EXPECT_EQ(changelog_ids.back() + 1, snapshot_ids.front());  // no gap
    const int64_t latest = snapshot_ids.back();
    EXPECT_GE(changelog_ids.front(), latest - 12 + 1);  // at most 12 snapshots' changes
    EXPECT_LE(changelog_ids.front(), latest - 9);
    // A reader from the earliest: every change of the retained range, in order.
    StreamOptions o;
    o.startup_mode = "earliest";
    auto s = t->NewStreamScan(o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    std::map<int64_t, int64_t> streamed;
    std::vector<int64_t> values;
    RowBatch b;
    while (true) {
      auto more = (*s)->Next(&b, 0ms);
      ASSERT_TRUE(more.ok()) << more.status().ToString();
      if (!*more) break;
      for (size_t i = 0; i < b.rows.size(); i++) {
        if (IsAdd(b.kinds[i])) {
          streamed[b.rows[i][0].int_value()] = b.rows[i][1].int_value();
          values.push_back(b.rows[i][1].int_value());
        }
      }
    }
    EXPECT_EQ(streamed, model);
    // The changes of the first retained commit on (commit c made snapshot c, plus compactions).
    ASSERT_FALSE(values.empty());
    EXPECT_EQ(values.back(), 30);
    EXPECT_TRUE(std::is_sorted(values.begin(), values.end()));
    // Nothing left that no snapshot, changelog or tag uses.
    auto orphans = commit::RemoveOrphanFiles(t->path(), INT64_MAX, /*dry_run=*/true);
    ASSERT_TRUE(orphans.ok()) << orphans.status().ToString();
    std::string names;
    for (const auto& p : orphans->paths) names += " " + p;
    EXPECT_EQ(orphans->files, 0) << names;
    // The changelog retention reset: the kept changelogs expire with the next commits, and
    // until then a reader from the earliest still reads every change without a gap.
    ASSERT_TRUE(
        catalog_
            ->AlterTableOptions(Identifier{"default", name, ""}, {}, {"changelog.num-retained.max"})
            .ok());
    auto reopened = catalog_->GetTable(Identifier{"default", name, ""});
    ASSERT_TRUE(reopened.ok());
    for (int64_t c = 31; c <= 34; c++) {
      auto w = (*reopened)->NewWriter({});
      ASSERT_TRUE((*w)->Write(RowKind::kInsert, Row{Value::Int(c % 4), Value::Int(c)}).ok());
      ASSERT_TRUE((*w)->Commit().ok());
      model[c % 4] = c;
      auto later = (*reopened)->NewStreamScan(o);
      ASSERT_TRUE(later.ok()) << later.status().ToString();
      std::map<int64_t, int64_t> seen;
      while (true) {
        auto more = (*later)->Next(&b, 0ms);
        ASSERT_TRUE(more.ok()) << "commit " << c << ": " << more.status().ToString();
        if (!*more) break;
        for (size_t i = 0; i < b.rows.size(); i++) {
          if (IsAdd(b.kinds[i])) seen[b.rows[i][0].int_value()] = b.rows[i][1].int_value();
        }
      }
      // The changes of the retained range (which shrinks to the snapshots'): each key seen ends
      // at its current value.
      EXPECT_FALSE(seen.empty());
      for (const auto& [k, v] : seen) EXPECT_EQ(model[k], v) << "after commit " << c;
    }
    EXPECT_TRUE(meta::ListLongLivedChangelogIds(t->path())->empty());
    orphans = commit::RemoveOrphanFiles(t->path(), INT64_MAX, /*dry_run=*/true);
    ASSERT_TRUE(orphans.ok()) << orphans.status().ToString();
    EXPECT_EQ(orphans->files, 0);
  }
}

// A consumer reading from the latest snapshot on holds its place from the moment it opens, also
// before it has read anything and on an empty table: writers committing fast, with two
// snapshots retained, never expire what it is about to read (issue 33 item 2).
TEST_F(SnapshotExpireTest, AConsumerIsRegisteredWhenItOpens) {
  auto t = Create({{"bucket", "1"},
                   {"changelog-producer", "input"},
                   {"snapshot.num-retained.min", "1"},
                   {"snapshot.num-retained.max", "2"}});
  auto commit = [&](int64_t id) {
    auto w = t->NewWriter({});
    ASSERT_TRUE((*w)->Write(RowKind::kInsert, Row{Value::Int(id), Value::Int(id)}).ok());
    ASSERT_TRUE((*w)->Commit().ok());
  };
  StreamOptions o;
  o.startup_mode = "latest";
  o.consumer_id = "late";
  auto s = t->NewStreamScan(o);  // an empty table
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(fs::exists(t->path() + "/consumer/consumer-late"));
  for (int64_t id = 1; id <= 10; id++) commit(id);
  std::vector<int64_t> got;
  RowBatch b;
  while (true) {
    auto more = (*s)->Next(&b, 0ms);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!*more) break;
    for (const Row& r : b.rows) got.push_back(r[0].int_value());
    ASSERT_TRUE((*s)->Checkpoint().ok());
  }
  EXPECT_EQ(got, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
}

// 'consumer.expiration-time': a consumer idle that long is removed at the next commit and holds
// nothing back any more; 'consumer.ignore-progress' starts by the start-up mode.
TEST_F(SnapshotExpireTest, IdleConsumersExpireAndProgressCanBeIgnored) {
  auto t = Create({{"bucket", "1"},
                   {"changelog-producer", "input"},
                   {"snapshot.num-retained.min", "1"},
                   {"snapshot.num-retained.max", "2"},
                   {"consumer.expiration-time", "300 ms"}});
  auto commit = [&](int64_t id) {
    auto w = t->NewWriter({});
    ASSERT_TRUE((*w)->Write(RowKind::kInsert, Row{Value::Int(id), Value::Int(id)}).ok());
    ASSERT_TRUE((*w)->Commit().ok());
  };
  // The first change a reader opened with `o` returns (-1: none).
  auto first = [&](StreamOptions o) -> int64_t {
    auto s = t->NewStreamScan(o);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    RowBatch b;
    auto more = (*s)->Next(&b, 0ms);
    EXPECT_TRUE(more.ok());
    EXPECT_TRUE((*s)->Checkpoint().ok());
    return more.ok() && *more && !b.rows.empty() ? b.rows[0][0].int_value() : -1;
  };
  StreamOptions o;
  o.startup_mode = "earliest";
  o.consumer_id = "billing";
  commit(1);
  EXPECT_EQ(first(o), 1);  // stops after snapshot 1; its position says 2
  const std::string consumer = t->path() + "/consumer/consumer-billing";
  for (int64_t id = 2; id <= 4; id++) commit(id);
  EXPECT_TRUE(fs::exists(consumer));  // young: it holds snapshot 2 onwards
  EXPECT_EQ(meta::SnapshotManager(t->path()).ListIds()->front(), 2);
  // Resumed, it starts from its position whatever the start-up mode.
  StreamOptions latest = o;
  latest.startup_mode = "latest";
  EXPECT_EQ(first(latest), 2);
  // Ignoring its progress, the consumer starts by its start-up mode: nothing after the latest;
  // and that start is its position from then on (registered as it opens).
  latest.consumer_ignore_progress = true;
  EXPECT_EQ(first(latest), -1);
  latest.consumer_ignore_progress = false;
  EXPECT_EQ(first(latest), -1);
  std::this_thread::sleep_for(400ms);
  commit(5);
  EXPECT_FALSE(fs::exists(consumer));  // idle 400 ms > 300 ms: gone, and holds nothing back
  EXPECT_LE(meta::SnapshotManager(t->path()).ListIds()->size(), 2u);
}

TEST_F(SnapshotExpireTest, YoungSnapshotsStayUntilTheyAreOlderThanTheRetainedTime) {
  auto t = Create({{"bucket", "1"}, {"snapshot.num-retained.min", "1"}});
  for (int c = 0; c < 4; c++) {
    auto w = t->NewWriter({});
    ASSERT_TRUE((*w)->Write(RowKind::kInsert, Row{Value::Int(c), Value::Int(c)}).ok());
    ASSERT_TRUE((*w)->Commit().ok());
  }
  // Default 'snapshot.time-retained' is 1 h: nothing expired yet.
  auto ids = meta::SnapshotManager(t->path()).ListIds();
  EXPECT_EQ(ids->size(), 4u);
}

// A deletion-vector table's commits move each new level-0 file up a level (a DELETE and an ADD
// of the same file in one snapshot): expiring the snapshot before never removes that file (the
// snapshot that stays lists it; expiration looks up the deleted files' partitions in it).
TEST_F(SnapshotExpireTest, AFileMovedUpALevelOutlivesTheSnapshotThatAddedIt) {
  auto t = Create({{"bucket", "1"},
                   {"deletion-vectors.enabled", "true"},
                   {"snapshot.num-retained.min", "1"},
                   {"snapshot.num-retained.max", "1"}});
  std::vector<Row> want;
  for (int64_t c = 0; c < 6; c++) {
    auto w = t->NewWriter({});
    ASSERT_TRUE((*w)->Write(RowKind::kInsert, Row{Value::Int(c), Value::Int(10 * c)}).ok());
    ASSERT_TRUE((*w)->Commit().ok());
    want.push_back(Row{Value::Int(c), Value::Int(10 * c)});
    EXPECT_EQ(ReadAllRows(*t), want) << "after commit " << c;
  }
  EXPECT_EQ(meta::SnapshotManager(t->path()).ListIds()->size(), 1u);
}

TEST_F(SnapshotExpireTest, ContradictoryRetentionIsRefusedAtCreate) {
  TableSpec s;
  s.columns = {{0, "id", DataType::BigInt().NotNull(), ""}};
  s.primary_keys = {"id"};
  s.options = {{"snapshot.num-retained.min", "10"}, {"snapshot.num-retained.max", "5"}};
  Status st = catalog_->CreateTable(Identifier{"default", "bad", ""}, s, false);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("snapshot.num-retained.max"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace tributary
