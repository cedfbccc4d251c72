// Table maintenance through the public C++ API (tributary/maintenance.h), as a program using the
// library calls it: compaction, tags, branches, rollback, expiration of snapshots and
// partitions, orphan files, rescale, with their refusals changing nothing.
#include "tributary/maintenance.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "table/warehouse_test_base.h"
#include "tributary/catalog.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"
#include "tributary/table_writer.h"

namespace tributary {
namespace {

class MaintenanceTest : public WarehouseTest {
 protected:
  std::unique_ptr<Table> Open(const std::string& name = "t") {
    auto t = catalog_->GetTable(Identifier{"default", name, ""});
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return std::move(*t);
  }
  std::unique_ptr<Table> Create(std::map<std::string, std::string> options = {}) {
    TableSpec s;
    s.columns = {{0, "id", DataType::BigInt().NotNull(), ""}, {0, "v", DataType::BigInt(), ""}};
    s.primary_keys = {"id"};
    s.options = std::move(options);
    Status st = catalog_->CreateTable(Identifier{"default", "t", ""}, s, false);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return Open();
  }
  // One commit of (id, v).
  static void Put(Table& table, int64_t id, int64_t v) {
    auto w = table.NewWriter({});
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE((*w)->Write(RowKind::kInsert, Row{Value::Int(id), Value::Int(v)}).ok());
    ASSERT_TRUE((*w)->Commit().ok());
  }
};

TEST_F(MaintenanceTest, TagsAndRollback) {
  auto t = Create();
  Put(*t, 1, 10);
  Put(*t, 2, 20);
  auto tagged = CreateTag(*t, "two");
  ASSERT_TRUE(tagged.ok()) << tagged.status().ToString();
  EXPECT_EQ(*tagged, 2);  // the latest snapshot
  ASSERT_TRUE(CreateTag(*t, "one", 1).ok());
  EXPECT_EQ(CreateTag(*t, "one", 1).status().code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(CreateTag(*t, "gone", 99).status().IsNotFound());
  Put(*t, 1, 11);
  EXPECT_EQ(ReadIdValues(*t), (std::map<int64_t, int64_t>{{1, 11}, {2, 20}}));

  // A list naming a missing tag removes none.
  Status st = DeleteTags(*t, {"one", "nope"});
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  EXPECT_NE(st.message().find("nothing was deleted"), std::string::npos) << st.message();
  EXPECT_EQ(*ListTags(*t), (std::vector<std::string>{"one", "two"}));

  auto back = RollbackTo(*t, std::nullopt, "two");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->previous_snapshot, 3);
  EXPECT_EQ(back->current_snapshot, 2);
  EXPECT_EQ(back->snapshots_removed, 1);
  EXPECT_EQ(ReadIdValues(*Open()), (std::map<int64_t, int64_t>{{1, 10}, {2, 20}}));
  EXPECT_FALSE(RollbackTo(*t, 7).ok());  // no such snapshot: nothing changes
  EXPECT_EQ(ReadIdValues(*Open()), (std::map<int64_t, int64_t>{{1, 10}, {2, 20}}));

  ASSERT_TRUE(DeleteTags(*t, {"one", "two"}).ok());
  EXPECT_TRUE(ListTags(*t)->empty());
}

TEST_F(MaintenanceTest, Branches) {
  auto t = Create();
  Put(*t, 1, 10);
  ASSERT_TRUE(CreateTag(*t, "base").ok());
  ASSERT_TRUE(CreateBranch(*t, "dev", std::string("base")).ok());
  EXPECT_EQ(CreateBranch(*t, "dev").code(), StatusCode::kAlreadyExists);
  auto dev = catalog_->GetTable(Identifier{"default", "t", "", "dev"});
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  Put(**dev, 2, 20);
  EXPECT_EQ(ReadIdValues(**dev), (std::map<int64_t, int64_t>{{1, 10}, {2, 20}}));
  EXPECT_EQ(ReadIdValues(*t), (std::map<int64_t, int64_t>{{1, 10}}));

  auto latest = FastForward(*t, "dev");
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  EXPECT_EQ(ReadIdValues(*Open()), (std::map<int64_t, int64_t>{{1, 10}, {2, 20}}));

  Status st = DeleteBranches(*t, {"dev", "nope"});
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  EXPECT_TRUE(catalog_->GetTable(Identifier{"default", "t", "", "dev"}).ok());  // still there
  ASSERT_TRUE(DeleteBranches(*t, {"dev"}).ok());
  EXPECT_FALSE(catalog_->GetTable(Identifier{"default", "t", "", "dev"}).ok());
}

TEST_F(MaintenanceTest, ExpirationAndOrphanFiles) {
  auto t = Create({{"snapshot.num-retained.min", "1"}, {"snapshot.num-retained.max", "100"}});
  for (int i = 0; i < 5; i++) Put(*t, i, i);
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  ExpireSnapshotsOptions keep_two;
  keep_two.retain_max = 2;
  auto expired = ExpireSnapshots(*t, keep_two);
  ASSERT_TRUE(expired.ok()) << expired.status().ToString();
  EXPECT_EQ(expired->snapshots, 3);
  EXPECT_EQ(ReadIdValues(*t).size(), 5u);

  // A file no snapshot names, in a bucket folder: found by a dry run, then removed.
  const std::string orphan = t->path() + "/bucket-0/data-orphan.parquet";
  std::ofstream(orphan) << "not a data file";
  auto found = RemoveOrphanFiles(*t, now + 60000, /*dry_run=*/true);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->files, 1);
  EXPECT_EQ(found->paths, (std::vector<std::string>{"bucket-0/data-orphan.parquet"}));
  EXPECT_TRUE(std::filesystem::exists(orphan));
  std::vector<std::pair<int64_t, int64_t>> listed;  // progress: (folders listed, folders)
  auto removed = RemoveOrphanFiles(*t, now + 60000, false, [&](int64_t done, int64_t total) {
    listed.emplace_back(done, total);
  });
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(removed->files, 1);
  // Each bucket folder listed, counted up to all of them.
  ASSERT_FALSE(listed.empty());
  for (size_t i = 0; i < listed.size(); i++) {
    EXPECT_EQ(listed[i],
              std::make_pair(static_cast<int64_t>(i) + 1, static_cast<int64_t>(listed.size())));
  }
  EXPECT_FALSE(std::filesystem::exists(orphan));
  EXPECT_EQ(ReadIdValues(*t).size(), 5u);

  // Nothing kept beyond the snapshots: no long-lived changelog to expire.
  auto changelogs = ExpireChangelogs(*t);
  ASSERT_TRUE(changelogs.ok()) << changelogs.status().ToString();
  EXPECT_EQ(*changelogs, 0);
}

TEST_F(MaintenanceTest, RescaleKeepsTheRows) {
  auto t = Create({{"bucket", "2"}});
  for (int i = 0; i < 20; i++) Put(*t, i, i * 10);
  RescaleOptions to_three;
  to_three.buckets = 3;
  auto rescaled = Rescale(*t, to_three);
  ASSERT_TRUE(rescaled.ok()) << rescaled.status().ToString();
  ASSERT_TRUE(rescaled->snapshot.has_value());
  auto reopened = Open();
  EXPECT_EQ(ReadIdValues(*reopened).size(), 20u);
  EXPECT_EQ(ReadIdValues(*reopened).at(7), 70);
  // Files of three buckets now, none of the old two-bucket layout's other than those three.
  std::set<std::string> buckets;
  for (const auto& e : std::filesystem::directory_iterator(reopened->path())) {
    const std::string name = e.path().filename().string();
    if (name.rfind("bucket-", 0) == 0) buckets.insert(name);
  }
  EXPECT_TRUE(buckets.count("bucket-2")) << "no file was written into a third bucket";
  Put(*reopened, 100, 1000);  // later writes land in the new layout
  EXPECT_EQ(ReadIdValues(*Open()).size(), 21u);

  RescaleOptions zero;
  zero.buckets = 0;
  EXPECT_FALSE(Rescale(*t, zero).ok());
}

TEST_F(MaintenanceTest, RescaleRefusesDynamicBuckets) {
  auto t = Create();  // 'bucket' = -1
  Put(*t, 1, 1);
  RescaleOptions o;
  o.buckets = 4;
  auto r = Rescale(*t, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("fixed-bucket"), std::string::npos) << r.status().message();
  EXPECT_EQ(ReadIdValues(*Open()).size(), 1u);
}

TEST_F(MaintenanceTest, CompactMergesEachBucketWithProgress) {
  auto t = Create({{"bucket", "2"}});
  for (int i = 0; i < 6; i++) Put(*t, i, i);
  Put(*t, 1, 100);
  const int64_t before = **Open()->LatestSnapshotId();
  CompactOptions options;
  std::vector<std::pair<int64_t, int64_t>> calls;
  options.progress = [&](int64_t done, int64_t total) { calls.emplace_back(done, total); };
  auto compacted = Compact(*t, options);
  ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
  EXPECT_EQ(compacted->snapshot, before + 1);
  EXPECT_EQ(calls, (std::vector<std::pair<int64_t, int64_t>>{{0, 2}, {1, 2}, {2, 2}}));
  EXPECT_EQ(ReadIdValues(*Open()),
            (std::map<int64_t, int64_t>{{0, 0}, {1, 100}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}));
  // Each bucket is one file now: a second compaction has nothing to merge.
  auto again = Compact(*Open());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->snapshot.has_value());

  // A sort compaction with no strategy or an unknown one is refused and commits nothing.
  CompactOptions sorted;
  sorted.sort_columns = {"v"};
  EXPECT_TRUE(Compact(*t, sorted).status().code() == StatusCode::kInvalidArgument);
  sorted.sort_strategy = "spiral";
  EXPECT_FALSE(Compact(*t, sorted).ok());
  EXPECT_EQ(*Open()->LatestSnapshotId(), before + 1);
}

TEST_F(MaintenanceTest, ExpirePartitions) {
  TableSpec s;
  s.columns = {{0, "dt", DataType::String().NotNull(), ""},
               {0, "id", DataType::BigInt().NotNull(), ""},
               {0, "v", DataType::BigInt(), ""}};
  s.primary_keys = {"dt", "id"};
  s.partition_keys = {"dt"};
  s.options = {{"bucket", "1"}};
  ASSERT_TRUE(catalog_->CreateTable(Identifier{"default", "p", ""}, s, false).ok());
  auto t = Open("p");
  auto w = t->NewWriter({});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (const char* dt : {"2020-01-01", "2020-01-02", "2999-01-01"}) {
    ASSERT_TRUE(
        (*w)->Write(RowKind::kInsert, Row{Value::String(dt), Value::Int(1), Value::Int(1)}).ok());
  }
  ASSERT_TRUE((*w)->Commit().ok());
  // No expiration time, from the options or the table: refused.
  auto none = ExpirePartitions(*t);
  EXPECT_TRUE(none.status().code() == StatusCode::kInvalidArgument) << none.status().ToString();
  ExpirePartitionsOptions bad;
  bad.expiration_time = "1 d";
  bad.strategy = "never";
  EXPECT_TRUE(ExpirePartitions(*t, bad).status().code() == StatusCode::kInvalidArgument);
  EXPECT_EQ(*Open("p")->LatestSnapshotId(), 1);

  ExpirePartitionsOptions options;
  options.expiration_time = "1 d";
  auto expired = ExpirePartitions(*t, options);
  ASSERT_TRUE(expired.ok()) << expired.status().ToString();
  EXPECT_EQ(*expired, (std::vector<std::string>{"dt=2020-01-01", "dt=2020-01-02"}));
  auto scan = Open("p")->NewScan({});
  ASSERT_TRUE(scan.ok());
  RowBatch b;
  std::vector<std::string> left;
  while (*(*scan)->Next(&b)) {
    for (const Row& r : b.rows) left.push_back(r[0].string_value());
  }
  EXPECT_EQ(left, (std::vector<std::string>{"2999-01-01"}));

  // Automatic partitions are Fluss's option: a table without it is refused.
  EXPECT_TRUE(MaintainAutoPartitions(*t).status().code() == StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tributary
