// Deletion-vector tables with 'lookup-wait' = 'false': a long-lived writer's commits publish
// level-0 files without waiting for their lookup compaction, which runs in the background and
// is taken in by a later commit; the end of the input waits.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "meta/snapshot.h"
#include "meta/snapshot_reader.h"
#include "table/warehouse_test_base.h"
#include "tributary/catalog.h"
#include "tributary/table.h"
#include "tributary/table_writer.h"

namespace tributary {
namespace {

class DeletionVectorsAsyncTest : public WarehouseTest {
 protected:
  std::unique_ptr<Table> Create(const std::string& name, bool lookup_wait) {
    TableSpec s;
    s.columns = {{0, "id", DataType::BigInt(), ""}, {0, "v", DataType::BigInt(), ""}};
    s.primary_keys = {"id"};
    s.options = {{"bucket", "2"},
                 {"deletion-vectors.enabled", "true"},
                 {"lookup-wait", lookup_wait ? "true" : "false"}};
    Identifier id{"default", name, ""};
    Status st = catalog_->CreateTable(id, s, false);
    EXPECT_TRUE(st.ok()) << st.ToString();
    auto t = catalog_->GetTable(id);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return std::move(*t);
  }

  // Levels of the live files of `t`'s latest snapshot: how many at level 0, how many above.
  static std::pair<int, int> Levels(const Table& t) {
    std::pair<int, int> out{0, 0};
    for (const auto& e : LatestLiveEntries(t)) (e.file.level == 0 ? out.first : out.second)++;
    return out;
  }
};

TEST_F(DeletionVectorsAsyncTest, CommitsDoNotWaitAndALaterCommitPublishesTheCompaction) {
  auto t = Create("t", /*lookup_wait=*/false);
  WriteOptions wo;
  wo.async_compaction = true;
  auto w = t->NewWriter(wo);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  std::map<int64_t, int64_t> model;
  for (int64_t k = 0; k < 100; k++) {
    ASSERT_TRUE((*w)->Write(RowKind::kInsert, {Value::Int(k), Value::Int(k)}).ok());
    model[k] = k;
  }
  auto c = (*w)->Commit();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  // Published in level 0, not compacted: batch reads of a deletion-vector table leave level 0
  // out, so the rows are not visible yet.
  EXPECT_EQ(Levels(*t), std::make_pair(2, 0));
  EXPECT_TRUE(ReadIdValues(*t).empty());

  // Later commits (with or without rows of their own) take the finished compaction in.
  std::map<int64_t, int64_t> seen;
  for (int i = 0; i < 200 && seen != model; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    c = (*w)->Commit();
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    seen = ReadIdValues(*t);
  }
  EXPECT_EQ(seen, model);
  EXPECT_EQ(Levels(*t).first, 0);

  // Updates and deletes over several commits: each commit leaves its rows in level 0 while the
  // compaction of the previous ones runs; the end of the input waits, and then the table reads
  // as the model, every row once.
  for (int round = 0; round < 8; round++) {
    for (int64_t k = round; k < 100; k += 3) {
      if (k % 7 == round % 7) {
        ASSERT_TRUE((*w)->Write(RowKind::kDelete, {Value::Int(k), Value::Int(model[k])}).ok());
        model.erase(k);
      } else {
        ASSERT_TRUE(
            (*w)->Write(RowKind::kInsert, {Value::Int(k), Value::Int(k * 10 + round)}).ok());
        model[k] = k * 10 + round;
      }
    }
    c = (*w)->Commit();
    ASSERT_TRUE(c.ok()) << c.status().ToString();
  }
  c = (*w)->CommitAndWaitForCompaction();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(Levels(*t).first, 0);
  EXPECT_EQ(ReadIdValues(*t), model);
}

TEST_F(DeletionVectorsAsyncTest, WaitingCommitsCompactAtOnce) {
  // The default ('lookup-wait' = 'true'): every commit of the same writer compacts, so its rows
  // are visible when it returns.
  auto t = Create("t", /*lookup_wait=*/true);
  WriteOptions wo;
  wo.async_compaction = true;
  auto w = t->NewWriter(wo);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (int64_t k = 0; k < 50; k++) {
    ASSERT_TRUE((*w)->Write(RowKind::kInsert, {Value::Int(k), Value::Int(k)}).ok());
  }
  auto c = (*w)->Commit();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(Levels(*t).first, 0);
  EXPECT_EQ(ReadIdValues(*t).size(), 50u);
}

TEST_F(DeletionVectorsAsyncTest, AWriterGoingAwayLeavesNoStrayFiles) {
  // A background compaction still running (or finished, not taken in) when the writer goes is
  // abandoned: its data and index files are removed; the committed level-0 files stay, and the
  // next writer's commit compacts them.
  auto t = Create("t", /*lookup_wait=*/false);
  WriteOptions wo;
  wo.async_compaction = true;
  {
    auto w = t->NewWriter(wo);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    for (int round = 0; round < 3; round += 2) {
      for (int64_t k = 0; k < (round == 0 ? 400 : 40); k++) {
        ASSERT_TRUE((*w)->Write(RowKind::kInsert, {Value::Int(k), Value::Int(round)}).ok());
      }
      auto c = (*w)->Commit();
      ASSERT_TRUE(c.ok()) << c.status().ToString();
      // The first round's compaction is taken in, so the later ones' mark rows above level 0
      // (a single level-0 file moves up as it is, its replaced rows marked in a new vector).
      for (int i = 0; i < 200 && round == 0 && Levels(*t).first > 0; i++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        ASSERT_TRUE((*w)->Commit().ok());
      }
      ASSERT_EQ(Levels(*t).first, round == 0 ? 0 : 2);
    }
    // (Time for the last compaction to finish: it is dropped finished, not before it ran.)
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  std::set<std::string> referenced;
  meta::SnapshotManager snapshots(t->path());
  auto latest = snapshots.LatestId();
  ASSERT_TRUE(latest.ok() && *latest);
  for (int64_t id = 1; id <= **latest; id++) {
    auto snap = snapshots.Read(id);
    ASSERT_TRUE(snap.ok());
    auto live = meta::ReadLiveEntries(t->path(), **snap);
    ASSERT_TRUE(live.ok());
    for (const auto& e : *live) referenced.insert(e.file.file_name);
    auto indexes = meta::ReadLiveIndexEntries(t->path(), **snap, "DELETION_VECTORS");
    ASSERT_TRUE(indexes.ok()) << indexes.status().ToString();
    for (const auto& e : *indexes) referenced.insert(e.file_name);
  }
  for (const std::string dir : {"/bucket-0", "/bucket-1", "/index"}) {
    auto listing = io::LocalFs().ListDir(t->path() + dir);
    if (!listing.ok()) continue;  // (no index file was ever committed)
    for (const auto& f : *listing) {
      EXPECT_TRUE(referenced.count(f.name)) << dir << "/" << f.name << " belongs to no snapshot";
    }
  }
  // The next writer's statement (its commit ends its input) compacts what was left in the
  // buckets it writes.
  auto w = t->NewWriter({});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (int64_t k = 1000; k < 1040; k++) {
    ASSERT_TRUE((*w)->Write(RowKind::kInsert, {Value::Int(k), Value::Int(1)}).ok());
  }
  auto c = (*w)->CommitAndWaitForCompaction();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(Levels(*t).first, 0);
  auto rows = ReadIdValues(*t);
  EXPECT_EQ(rows.size(), 440u);
  for (int64_t k = 0; k < 400; k++) EXPECT_EQ(rows[k], k < 40 ? 2 : 0) << k;
}

}  // namespace
}  // namespace tributary
