// End-to-end tests of the storage core through the public API.
#include "tributary/table.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "common/parallel.h"
#include "common/predicate.h"
#include "datafile/test_hooks.h"
#include "io/file_cache.h"
#include "io/file_system.h"
#include "meta/paths.h"
#include "meta/snapshot.h"
#include "meta/snapshot_reader.h"
#include "table/rescale.h"
#include "table/rewrite.h"
#include "table/warehouse_test_base.h"
#include "tributary/catalog.h"
#include "tributary/table_scan.h"
#include "tributary/table_writer.h"

namespace tributary {
namespace {

class TableTest : public WarehouseTest {
 protected:
  std::unique_ptr<Table> Create(const std::string& name, TableSpec spec) {
    Identifier id{"default", name, ""};
    Status st = catalog_->CreateTable(id, spec, false);
    EXPECT_TRUE(st.ok()) << st.ToString();
    auto t = catalog_->GetTable(id);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return std::move(*t);
  }

  static TableSpec KV(std::map<std::string, std::string> options) {
    TableSpec s;
    s.columns = {{0, "id", DataType::BigInt(), ""}, {0, "v", DataType::String(), ""}};
    s.primary_keys = {"id"};
    s.options = std::move(options);
    return s;
  }

  static void WriteRows(Table& t, const std::vector<std::pair<RowKind, Row>>& rows) {
    auto w = t.NewWriter({});
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    for (const auto& [k, r] : rows) ASSERT_TRUE((*w)->Write(k, r).ok());
    auto c = (*w)->Commit();
    ASSERT_TRUE(c.ok()) << c.status().ToString();
  }

  // (bucket, total bucket count) of each live file of `t`.
  static std::vector<std::pair<int32_t, int32_t>> FileBuckets(const Table& t) {
    std::vector<std::pair<int32_t, int32_t>> out;
    for (const auto& e : LatestLiveEntries(t)) out.emplace_back(e.bucket, e.total_buckets);
    return out;
  }

  static std::vector<Row> ReadAll(Table& t, ScanOptions o = {}) { return ReadAllRows(t, o); }

  static Row R(int64_t id, std::string v) { return {Value::Int(id), Value::String(std::move(v))}; }

  // The COMPACT snapshots of table `name` (-1 when its snapshots do not read).
  int Compacts(const std::string& name) {
    auto snaps = catalog_->ReadSystemTable(Identifier{"default", name, "snapshots"});
    EXPECT_TRUE(snaps.ok()) << snaps.status().ToString();
    if (!snaps.ok()) return -1;
    int kind = -1, compacts = 0;
    for (size_t i = 0; i < snaps->fields.size(); i++) {
      if (snaps->fields[i].name == "commit_kind") kind = static_cast<int>(i);
    }
    if (kind < 0) return -1;
    for (const auto& r : snaps->rows) compacts += r[kind].string_value() == "COMPACT";
    return compacts;
  }
};

// snapshot-1 and LATEST of a table dropped (by another process: nothing is erased from this
// one's caches) and created again under the same name are other files: a process that read the
// first table must not answer from what it cached of them.
TEST_F(TableTest, ARecreatedTableIsNotReadFromTheFirstOnesCachedSnapshots) {
  const Identifier id{"default", "again", ""};
  for (int round = 0; round < 3; round++) {
    ASSERT_TRUE(catalog_->CreateTable(id, KV({{"bucket", "1"}}), false).ok());
    auto t = catalog_->GetTable(id);
    ASSERT_TRUE(t.ok());
    const std::string v = "round" + std::to_string(round);
    WriteRows(**t, {{RowKind::kInsert, R(round, v)}});
    EXPECT_EQ(ReadAll(**t), (std::vector<Row>{R(round, v)})) << round;
    ScanOptions first;
    first.snapshot_id = 1;
    EXPECT_EQ(ReadAll(**t, first), (std::vector<Row>{R(round, v)})) << round;
    ASSERT_TRUE(io::LocalFs().RemoveAll((*t)->path()).ok());
  }
}

TEST_F(TableTest, EveryScanSeesTheLatestCommit) {
  // The latest snapshot is cached under the snapshot directory's version once the directory has
  // settled: a commit right after a read, and one long after, are both seen by the next scan.
  auto t = Create("fresh", KV({{"bucket", "1"}}));
  for (int round = 0; round < 6; round++) {
    WriteRows(*t, {{RowKind::kInsert, R(round, "v")}});
    EXPECT_EQ(ReadAll(*t).size(), static_cast<size_t>(round + 1)) << round;
    if (round % 2 == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(80));  // settled: cached
      EXPECT_EQ(ReadAll(*t).size(), static_cast<size_t>(round + 1)) << round;
    }
  }
}

TEST_F(TableTest, UpsertAndDeleteByKey) {
  auto t = Create("t", KV({{"bucket", "4"}}));
  WriteRows(*t, {{RowKind::kInsert, R(1, "a")}, {RowKind::kInsert, R(2, "b")}});
  WriteRows(*t, {{RowKind::kInsert, R(1, "c")}});
  WriteRows(*t, {{RowKind::kDelete, R(2, "b")}});
  EXPECT_EQ(ReadAll(*t), (std::vector<Row>{R(1, "c")}));
}

TEST_F(TableTest, TimeTravelReadsAnOlderSnapshot) {
  auto t = Create("t", KV({{"bucket", "2"}}));
  WriteRows(*t, {{RowKind::kInsert, R(1, "a")}});
  WriteRows(*t, {{RowKind::kInsert, R(1, "b")}});
  ScanOptions o;
  o.snapshot_id = 1;
  EXPECT_EQ(ReadAll(*t, o), (std::vector<Row>{R(1, "a")}));
  EXPECT_EQ(ReadAll(*t), (std::vector<Row>{R(1, "b")}));
}

TEST_F(TableTest, ManyCommitsCompactAndStayCorrect) {
  auto t = Create("t", KV({{"bucket", "1"}}));
  std::map<int64_t, std::string> model;
  std::mt19937 rng(1);
  for (int c = 0; c < 30; c++) {
    std::vector<std::pair<RowKind, Row>> rows;
    for (int i = 0; i < 20; i++) {
      int64_t k = rng() % 50;
      if (rng() % 5 == 0) {
        rows.push_back({RowKind::kDelete, R(k, "")});
        model.erase(k);
      } else {
        std::string v = "v" + std::to_string(rng() % 1000);
        rows.push_back({RowKind::kInsert, R(k, v)});
        model[k] = v;
      }
    }
    WriteRows(*t, rows);
    std::vector<Row> want;
    for (const auto& [k, v] : model) want.push_back(R(k, v));
    ASSERT_EQ(ReadAll(*t), want) << "after commit " << c;
  }
  auto files = catalog_->ReadSystemTable({"default", "t", "files"});
  ASSERT_TRUE(files.ok());
  EXPECT_LT(files->rows.size(), 8u) << "compaction keeps the number of sorted runs bounded";
  auto full = t->CompactFull();
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  files = catalog_->ReadSystemTable({"default", "t", "files"});
  ASSERT_EQ(files->rows.size(), 1u);
  EXPECT_EQ(files->rows[0][5].int_value(), 5);  // level: the top level
  std::vector<Row> want;
  for (const auto& [k, v] : model) want.push_back(R(k, v));
  EXPECT_EQ(ReadAll(*t), want);
}

TEST_F(TableTest, PartitionedAppendTableWithFilters) {
  TableSpec s;
  s.columns = {{0, "dt", DataType::String(), ""}, {0, "x", DataType::Int(), ""}};
  s.partition_keys = {"dt"};
  auto t = Create("logs", s);
  WriteRows(*t, {{RowKind::kInsert, {Value::String("d1"), Value::Int(1)}},
                 {RowKind::kInsert, {Value::String("d2"), Value::Int(2)}},
                 {RowKind::kInsert, {Value::String("d1"), Value::Int(3)}}});
  ScanOptions o;
  o.filters.push_back({0, Predicate::Op::kEq, {Value::String("d1")}});
  o.projection = std::vector<int>{1};
  auto rows = ReadAll(*t, o);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][0].int_value(), 1);
  EXPECT_EQ(rows[1][0].int_value(), 3);
  auto parts = catalog_->ReadSystemTable({"default", "logs", "partitions"});
  ASSERT_TRUE(parts.ok());
  EXPECT_EQ(parts->rows.size(), 2u);
  // Appends reject retractions.
  auto w = t->NewWriter({});
  EXPECT_FALSE((*w)->Write(RowKind::kDelete, {Value::String("d1"), Value::Int(1)}).ok());
}

// A manifest whose partition statistics leave a partition out is not read for it: a scan
// filtered to other partitions, and a writer into them (its restore and its commit), never open
// the manifest of the first commit, which holds only partition d1's file (deleted here to show
// it); a scan that needs d1 fails on the missing manifest.
TEST_F(TableTest, PartitionFiltersSkipManifestsByTheirPartitionStatistics) {
  TableSpec s = KV({{"bucket", "1"}});
  s.columns[0].type = DataType::BigInt().NotNull();
  s.columns.push_back({0, "dt", DataType::String().NotNull(), ""});
  s.primary_keys = {"id", "dt"};
  s.partition_keys = {"dt"};
  auto t = Create("by_day", s);
  for (const char* d : {"d1", "d2", "d3"}) {
    WriteRows(*t, {{RowKind::kInsert, {Value::Int(1), Value::String(d), Value::String(d)}}});
  }
  meta::SnapshotManager snapshots(t->path());
  auto first = snapshots.Read(1);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto metas = meta::ReadManifestList(t->path(), (*first)->delta_manifest_list);
  ASSERT_TRUE(metas.ok()) << metas.status().ToString();
  ASSERT_EQ(metas->size(), 1u);
  ASSERT_EQ(::unlink(meta::ManifestPath(t->path(), (*metas)[0].file_name).c_str()), 0);
  io::FileCache::Instance().EraseUnder(t->path());  // nothing of the table read before

  auto day = [](Predicate::Op op, const char* d) {
    ScanOptions o;
    o.filters.push_back({2, op, {Value::String(d)}});
    return o;
  };
  EXPECT_EQ(ReadAll(*t, day(Predicate::Op::kEq, "d2")),
            (std::vector<Row>{{Value::Int(1), Value::String("d2"), Value::String("d2")}}));
  EXPECT_EQ(ReadAll(*t, day(Predicate::Op::kGt, "d1")).size(), 2u);
  // A write into d3: restored and committed without the d1 manifest.
  io::FileCache::Instance().EraseUnder(t->path());
  WriteRows(*t, {{RowKind::kInsert, {Value::Int(1), Value::String("again"), Value::String("d3")}}});
  EXPECT_EQ(ReadAll(*t, day(Predicate::Op::kEq, "d3")),
            (std::vector<Row>{{Value::Int(1), Value::String("again"), Value::String("d3")}}));
  // d1's rows are in the deleted manifest: a scan that may need them fails.
  io::FileCache::Instance().EraseUnder(t->path());
  for (const ScanOptions& o :
       {day(Predicate::Op::kEq, "d1"), day(Predicate::Op::kLt, "d2"), ScanOptions{}}) {
    Status st = Status::OK();
    auto scan = t->NewScan(o);
    if (scan.ok()) {
      RowBatch b;
      while (st.ok()) {
        auto more = (*scan)->Next(&b);
        st = more.status();
        if (!more.ok() || !*more) break;
      }
    } else {
      st = scan.status();
    }
    EXPECT_FALSE(st.ok());
  }
}

TEST_F(TableTest, OverwriteReplacesAndRescalesBuckets) {
  auto t = Create("t", KV({{"bucket", "2"}}));
  WriteRows(*t, {{RowKind::kInsert, R(1, "a")}, {RowKind::kInsert, R(2, "b")}});
  ASSERT_TRUE(catalog_->AlterTableOptions({"default", "t", ""}, {{"bucket", "3"}}, {}).ok());
  auto t2 = catalog_->GetTable({"default", "t", ""});
  ASSERT_TRUE(t2.ok());
  // Data laid out in 2 buckets keeps its layout: a write goes to the right bucket of 2 (an
  // upsert still replaces its row).
  auto w = (*t2)->NewWriter({});
  ASSERT_TRUE((*w)->Write(RowKind::kInsert, R(2, "b2")).ok());
  ASSERT_TRUE((*w)->Commit().ok());
  EXPECT_EQ(ReadAll(**t2), (std::vector<Row>{R(1, "a"), R(2, "b2")}));
  for (const auto& f : FileBuckets(**t2)) EXPECT_EQ(f.second, 2) << "bucket " << f.first;
  // Rewrite with OVERWRITE: the new layout takes over.
  auto rows = ReadAll(**t2);
  WriteOptions wo;
  wo.overwrite = true;
  auto ow = (*t2)->NewWriter(wo);
  for (const auto& r : rows) ASSERT_TRUE((*ow)->Write(RowKind::kInsert, r).ok());
  ASSERT_TRUE((*ow)->Commit().ok());
  WriteRows(**t2, {{RowKind::kInsert, R(3, "c")}});
  EXPECT_EQ(ReadAll(**t2), (std::vector<Row>{R(1, "a"), R(2, "b2"), R(3, "c")}));
  for (const auto& f : FileBuckets(**t2)) EXPECT_EQ(f.second, 3) << "bucket " << f.first;
}

// A rescale (OVERWRITE into another bucket count of rows read at a snapshot) commits only if
// the partitions it replaces still hold the files of that snapshot: a write committed in between
// is never lost, the rescale fails with Conflict and changes nothing.
TEST_F(TableTest, RescaleFailsWhenItsPartitionChangedMeanwhile) {
  auto t = Create("rs", KV({{"bucket", "2"}}));
  WriteRows(*t, {{RowKind::kInsert, R(1, "a")}, {RowKind::kInsert, R(2, "b")}});
  WriteOptions wo;
  wo.overwrite = true;
  wo.overwrite_buckets = 4;
  wo.overwrite_base_snapshot = 1;
  auto ow = t->NewWriter(wo);
  ASSERT_TRUE(ow.ok()) << ow.status().ToString();
  for (const auto& r : ReadAll(*t)) ASSERT_TRUE((*ow)->Write(RowKind::kInsert, r).ok());
  WriteRows(*t, {{RowKind::kInsert, R(3, "c")}});  // snapshot 2, after the rows were read
  auto c = (*ow)->Commit();
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(c.status().IsConflict()) << c.status().ToString();
  EXPECT_EQ(ReadAll(*t), (std::vector<Row>{R(1, "a"), R(2, "b"), R(3, "c")}));
  for (const auto& f : FileBuckets(*t)) EXPECT_EQ(f.second, 2);
  // Read again and retry: the rescale commits.
  wo.overwrite_base_snapshot = 2;
  auto again = t->NewWriter(wo);
  ASSERT_TRUE(again.ok());
  for (const auto& r : ReadAll(*t)) ASSERT_TRUE((*again)->Write(RowKind::kInsert, r).ok());
  ASSERT_TRUE((*again)->Commit().ok());
  EXPECT_EQ(ReadAll(*t), (std::vector<Row>{R(1, "a"), R(2, "b"), R(3, "c")}));
  for (const auto& f : FileBuckets(*t)) EXPECT_EQ(f.second, 4);
}

TEST_F(TableTest, DynamicBucketsKeepEachKeyInItsBucket) {
  auto t = Create("dyn", KV({{"dynamic-bucket.target-row-num", "10"},
                             {"dynamic-bucket.initial-buckets", "1"}}));
  std::vector<std::pair<RowKind, Row>> rows;
  for (int k = 0; k < 25; k++) rows.push_back({RowKind::kInsert, R(k, "v1")});
  WriteRows(*t, rows);
  auto files = catalog_->ReadSystemTable({"default", "dyn", "files"});
  ASSERT_TRUE(files.ok());
  std::set<int64_t> buckets;
  for (const auto& r : files->rows) buckets.insert(r[1].int_value());
  EXPECT_EQ(buckets, (std::set<int64_t>{0, 1, 2})) << "10 keys per bucket";
  // A second writer (a fresh process would do the same) finds every key's bucket in the HASH
  // index, so updates and deletes do not create a second copy of a key.
  rows.clear();
  for (int k = 0; k < 25; k++) rows.push_back({RowKind::kInsert, R(k, "v2")});
  rows.push_back({RowKind::kDelete, R(7, "")});
  for (int k = 25; k < 30; k++) rows.push_back({RowKind::kInsert, R(k, "new")});
  WriteRows(*t, rows);
  auto all = ReadAll(*t);
  ASSERT_EQ(all.size(), 29u);
  for (const auto& r : all) {
    int64_t k = r[0].int_value();
    EXPECT_NE(k, 7);
    EXPECT_EQ(r[1].string_value(), k < 25 ? "v2" : "new");
  }
  files = catalog_->ReadSystemTable({"default", "dyn", "files"});
  buckets.clear();
  for (const auto& r : files->rows) buckets.insert(r[1].int_value());
  EXPECT_EQ(buckets, (std::set<int64_t>{0, 1, 2})) << "5 new keys fill bucket 2";
}

TEST_F(TableTest, DynamicBucketsStartWithOneBucketPerWriterThread) {
  // Without 'dynamic-bucket.initial-buckets', new keys spread over one bucket per writer thread
  // (Paimon: one per parallel assigner), so dynamic-bucket tables flush and compact in parallel.
  auto t = Create("dyn_threads", KV({{"bucket", "-1"}}));
  std::vector<std::pair<RowKind, Row>> rows;
  for (int k = 0; k < 200; k++) rows.push_back({RowKind::kInsert, R(k, "v")});
  WriteRows(*t, rows);
  auto files = catalog_->ReadSystemTable({"default", "dyn_threads", "files"});
  ASSERT_TRUE(files.ok());
  std::set<int64_t> buckets;
  for (const auto& r : files->rows) buckets.insert(r[1].int_value());
  EXPECT_EQ(buckets.size(), static_cast<size_t>(DefaultParallelism()));
  EXPECT_EQ(ReadAll(*t).size(), 200u);
}

TEST_F(TableTest, LongLivedDynamicBucketWritersSeeEachOthersKeys) {
  // A writer keeps its key -> bucket index across commits; when another writer changed the
  // index meanwhile, it must read it again, or a key would land in a second bucket.
  auto t = Create("dyn_two", KV({{"bucket", "-1"}, {"dynamic-bucket.target-row-num", "30"}}));
  auto w1 = t->NewWriter({});
  auto w2 = t->NewWriter({});
  ASSERT_TRUE(w1.ok() && w2.ok());
  auto write = [](TableWriter& w, int from, int to, const std::string& v) {
    for (int k = from; k < to; k++) ASSERT_TRUE(w.Write(RowKind::kInsert, R(k, v)).ok());
    auto c = w.Commit();
    ASSERT_TRUE(c.ok()) << c.status().ToString();
  };
  write(**w1, 0, 50, "a");
  // w2 first fills buckets w1 does not know about, so it places keys 50..99 elsewhere than w1
  // would with its old index.
  for (int k = 1000; k < 1090; k++) ASSERT_TRUE((*w2)->Write(RowKind::kInsert, R(k, "x")).ok());
  write(**w2, 0, 100, "b");
  write(**w1, 50, 150, "c");
  write(**w1, 0, 10, "d");  // w1's own index is current again
  auto rows = ReadAll(*t);
  ASSERT_EQ(rows.size(), 240u);
  for (const auto& r : rows) {
    int64_t k = r[0].int_value();
    EXPECT_EQ(r[1].string_value(), k >= 1000 ? "x" : k < 10 ? "d" : k < 50 ? "b" : "c") << k;
  }
}

TEST_F(TableTest, DynamicBucketWriterCommittingOnlyACompactionStillSeesOtherWriters) {
  // Writer a's commit that publishes only its background compaction lists the index manifest
  // writer b committed; a must still read b's assignments before assigning again.
  auto t = Create("dyn_retain", KV({{"bucket", "-1"},
                                    {"dynamic-bucket.target-row-num", "30"},
                                    {"dynamic-bucket.initial-buckets", "1"},
                                    {"num-sorted-run.compaction-trigger", "2"}}));
  WriteOptions async;
  async.async_compaction = true;
  auto a = t->NewWriter(async);
  auto b = t->NewWriter({});
  ASSERT_TRUE(a.ok() && b.ok());
  auto write = [](TableWriter& w, int from, int to, const std::string& v) {
    for (int k = from; k < to; k++) ASSERT_TRUE(w.Write(RowKind::kInsert, R(k, v)).ok());
  };
  write(**a, 0, 60, "a1");
  ASSERT_TRUE((*a)->Commit().ok());
  write(**a, 0, 60, "a2");
  ASSERT_TRUE((*a)->Commit().ok());  // two runs per bucket: a compaction starts behind it
  write(**b, 1000, 1030, "b");       // fills a bucket a does not know of
  write(**b, 2000, 2001, "b");
  ASSERT_TRUE((*b)->Commit().ok());
  auto done = (*a)->CommitAndWaitForCompaction();  // only the compaction
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  auto snaps = catalog_->ReadSystemTable({"default", "dyn_retain", "snapshots"});
  ASSERT_TRUE(snaps.ok());
  ASSERT_EQ(snaps->rows.back()[4].string_value(), "COMPACT");
  write(**a, 2000, 2001, "a3");
  ASSERT_TRUE((*a)->Commit().ok());
  auto rows = ReadAll(*t);
  ASSERT_EQ(rows.size(), 91u);  // key 2000 once
  EXPECT_EQ(rows.back()[1].string_value(), "a3");
}

TEST_F(TableTest, PointLookupsSeeThePinnedSnapshot) {
  for (std::string bucket : {"3", "-1"}) {
    auto t = Create("lk" + bucket.substr(bucket.size() - 1), KV({{"bucket", bucket}}));
    std::map<int64_t, std::string> model;
    std::mt19937 rng(5);
    for (int c = 0; c < 8; c++) {
      std::vector<std::pair<RowKind, Row>> rows;
      for (int i = 0; i < 30; i++) {
        int64_t k = rng() % 60;
        if (rng() % 5 == 0) {
          rows.push_back({RowKind::kDelete, R(k, "")});
          model.erase(k);
        } else {
          std::string v = "v" + std::to_string(c) + "_" + std::to_string(i);
          rows.push_back({RowKind::kInsert, R(k, v)});
          model[k] = v;
        }
      }
      WriteRows(*t, rows);
      if (c == 5) {
        ASSERT_TRUE(t->CompactFull().ok());
      }
    }
    auto lookup = t->NewLookup();
    ASSERT_TRUE(lookup.ok()) << lookup.status().ToString();
    for (int64_t k = 0; k < 70; k++) {
      auto r = (*lookup)->Get({Value::Int(k)});
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      auto it = model.find(k);
      if (it == model.end()) {
        EXPECT_FALSE(r->has_value()) << "key " << k;
      } else {
        ASSERT_TRUE(r->has_value()) << "key " << k;
        EXPECT_EQ((**r)[1].string_value(), it->second);
      }
    }
    // Many keys at once, on one thread or several: what Get gives each, in the keys' order.
    std::vector<Row> keys;
    for (int64_t k = 69; k >= 0; k -= 1) keys.push_back({Value::Int(k)});
    keys.push_back({Value::Int(3)});  // a key twice
    for (int threads : {1, 4}) {
      auto all = (*lookup)->GetAll(keys, threads);
      ASSERT_TRUE(all.ok()) << all.status().ToString();
      ASSERT_EQ(all->size(), keys.size());
      for (size_t i = 0; i < keys.size(); i++) {
        auto one = (*lookup)->Get(keys[i]);
        ASSERT_TRUE(one.ok());
        EXPECT_EQ((*all)[i], *one) << "key " << keys[i][0].int_value() << ", threads " << threads;
      }
    }
    EXPECT_FALSE((*lookup)->GetAll({{Value::Int(1)}, {Value::String("x")}}, 2).ok());
    // A commit after the lookup was created is seen only after Refresh().
    WriteRows(*t, {{RowKind::kInsert, R(1000, "late")}});
    EXPECT_FALSE((*lookup)->Get({Value::Int(1000)})->has_value());
    ASSERT_TRUE((*lookup)->Refresh().ok());
    EXPECT_TRUE((*lookup)->Get({Value::Int(1000)})->has_value());
    EXPECT_FALSE((*lookup)->Get({Value::String("x")}).ok());
  }
}

TEST_F(TableTest, PointLookupsReturnEveryTypeAsAScanDoes) {
  // Lookups keep files packed as BinaryRows: every flat type must come back exactly.
  TableSpec s;
  s.columns = {{0, "id", DataType::BigInt().NotNull(), ""},
               {0, "b", DataType::Boolean(), ""},
               {0, "i", DataType::Int(), ""},
               {0, "f", DataType::Float(), ""},
               {0, "d", DataType::Double(), ""},
               {0, "s", DataType::String(), ""},
               {0, "bin", DataType::Bytes(), ""},
               {0, "dec", DataType::Decimal(10, 2), ""},
               {0, "big", DataType::Decimal(30, 5), ""},
               {0, "day", DataType::Date(), ""},
               {0, "ts", DataType::Timestamp(9), ""},
               {0, "lts", DataType::TimestampLtz(3), ""}};
  s.primary_keys = {"id"};
  s.options = {{"bucket", "2"}};
  auto t = Create("lookup_types", s);
  std::vector<std::pair<RowKind, Row>> rows;
  for (int64_t k = 0; k < 60; k++) {
    auto nul = [&](int m) { return k % m == 1; };
    rows.push_back({RowKind::kInsert,
                    {Value::Int(k), nul(5) ? Value::Null() : Value::Bool(k % 2 == 0),
                     Value::Int(-k * 1000), Value::Double(static_cast<float>(k) / 4),
                     nul(7) ? Value::Null() : Value::Double(k * 1.5e10),
                     Value::String(std::string(static_cast<size_t>(k % 20), 'x') + "end"),
                     Value::String(std::string("\0\1", 2) + std::to_string(k)),
                     Value::Dec(Decimal{k * 12345 - 7}),
                     Value::Dec(Decimal{static_cast<__int128>(k) * 1000000000000000000LL}),
                     Value::Int(19000 + k), Value::Ts(Timestamp{1700000000000 + k, 123456}),
                     Value::Ts(Timestamp{1600000000000 + k * 1000, 0})}});
  }
  rows.push_back({RowKind::kDelete, rows[10].second});
  WriteRows(*t, rows);
  auto lookup = t->NewLookup();
  ASSERT_TRUE(lookup.ok()) << lookup.status().ToString();
  for (const auto& row : ReadAll(*t)) {
    auto got = (*lookup)->Get({row[0]});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_TRUE(got->has_value()) << row[0].int_value();
    EXPECT_EQ(**got, row) << row[0].int_value();
  }
  auto gone = (*lookup)->Get({Value::Int(10)});
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
}

TEST_F(TableTest, DropAndCreateAgainInOneProcessReadsTheNewTable) {
  // Snapshot names repeat across a DROP and CREATE; nothing cached may leak from the old table.
  for (const char* v : {"old", "new"}) {
    auto t = Create("again", KV({{"bucket", "1"}}));
    WriteRows(*t, {{RowKind::kInsert, R(1, v)}});
    EXPECT_EQ(ReadAll(*t), (std::vector<Row>{R(1, v)}));
    auto lookup = t->NewLookup();
    ASSERT_TRUE(lookup.ok());
    EXPECT_EQ((**(*lookup)->Get({Value::Int(1)}))[1].string_value(), v);
    ASSERT_TRUE(catalog_->DropTable({"default", "again", ""}, false).ok());
  }
  EXPECT_EQ(*catalog_->ListTables("default"), std::vector<std::string>{});
}

TEST_F(TableTest, NamesThatLeaveTheWarehouseAreRefusedByEveryCall) {
  Create("t", KV({{"bucket", "1"}}));
  for (const Identifier& id :
       {Identifier{"default", "../default.db/t", ""}, Identifier{"default", "..", ""},
        Identifier{"..", "t", ""}, Identifier{"default", ".t", ""},
        Identifier{"default/..", "t", ""}, Identifier{"default", "a\\b", ""}}) {
    EXPECT_FALSE(catalog_->GetTable(id).ok()) << id.ToString();
    EXPECT_FALSE(catalog_->TableExists(id).ok()) << id.ToString();
    EXPECT_FALSE(catalog_->DropTable(id, true).ok()) << id.ToString();
    EXPECT_FALSE(catalog_->AlterTableOptions(id, {{"bucket", "2"}}, {}).ok()) << id.ToString();
    Identifier sys = id;
    sys.system_table = "snapshots";
    EXPECT_FALSE(catalog_->ReadSystemTable(sys).ok()) << id.ToString();
  }
  for (const char* db : {"..", ".", "../x", ".hidden"}) {
    EXPECT_FALSE(catalog_->CreateDatabase(db, true).ok()) << db;
    EXPECT_FALSE(catalog_->DropDatabase(db, true, true).ok()) << db;
    EXPECT_FALSE(catalog_->DatabaseExists(db).ok()) << db;
  }
  // The table the traversing names pointed at is untouched.
  EXPECT_TRUE(*catalog_->TableExists({"default", "t", ""}));
}

// Column batches of a bounded size (results streamed to an output): files that need no merge
// are read a slice at a time, merged buckets whole and handed out in slices; either way the
// rows are those of a scan without a bound.
TEST_F(TableTest, BoundedColumnBatchesReadTheSameRows) {
  auto columns = [](Table& t, ScanOptions o, size_t* largest) {
    auto s = t.NewScan(o);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    std::vector<Row> out;
    ColumnBatch b;
    while (true) {
      auto more = (*s)->NextColumns(&b);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) break;
      *largest = std::max(*largest, b.num_rows);
      for (size_t r = 0; r < b.num_rows; r++) {
        Row row;
        for (const auto& c : b.columns) row.push_back(c.Get(r));
        out.push_back(std::move(row));
      }
    }
    SortByFirstColumn(&out);
    return out;
  };
  // Two buckets: one of a single file (sliced), one whose two files are merged.
  auto t =
      Create("sliced",
             KV({{"bucket", "2"}, {"parquet.page.size", "256 b"}, {"parquet.block.size", "2 kb"}}));
  std::vector<std::pair<RowKind, Row>> rows;
  for (int64_t i = 0; i < 500; i++) {
    rows.push_back({RowKind::kInsert, i % 7 == 0 ? Row{Value::Int(i), Value::Null()}
                                                 : R(i, "v" + std::to_string(i))});
  }
  WriteRows(*t, rows);
  WriteRows(*t, {{RowKind::kInsert, R(3, "again")}, {RowKind::kDelete, R(5, "")}});
  for (const std::vector<Predicate>& filters :
       {std::vector<Predicate>{},
        std::vector<Predicate>{Predicate{1, Predicate::Op::kGt, {Value::String("v3")}}}}) {
    ScanOptions whole;
    whole.filters = filters;
    ScanOptions sliced = whole;
    sliced.max_batch_rows = 7;
    size_t largest_whole = 0, largest_sliced = 0;
    std::vector<Row> expected = columns(*t, whole, &largest_whole);
    EXPECT_EQ(columns(*t, sliced, &largest_sliced), expected);
    EXPECT_EQ(expected, ReadAll(*t, whole));
    EXPECT_GT(largest_whole, 7u);
    EXPECT_LE(largest_sliced, 7u);  // a merged bucket is read whole but handed out in slices
    EXPECT_EQ(ReadAll(*t, sliced), expected);  // rows, bounded the same way
  }
  // After a full compaction every bucket is one file: every batch holds at most 7 rows.
  ASSERT_TRUE(t->CompactFull().ok());
  ScanOptions sliced;
  sliced.max_batch_rows = 7;
  size_t largest = 0;
  std::vector<Row> got = columns(*t, sliced, &largest);
  EXPECT_EQ(got, ReadAll(*t));
  EXPECT_EQ(got.size(), 499u);
  EXPECT_LE(largest, 7u);
}

TEST_F(TableTest, FiltersOnValueColumnsMatchAFullScan) {
  // Filters are applied while decoding single-file buckets and append files (late
  // materialization), and after the merge elsewhere: every path must agree with a full scan.
  auto t = Create("flt", KV({{"bucket", "2"}, {"parquet.block.size", "4 kb"}}));
  std::vector<std::pair<RowKind, Row>> rows;
  for (int64_t k = 0; k < 3000; k++)
    rows.push_back({RowKind::kInsert, R(k, "v" + std::to_string(k % 97))});
  WriteRows(*t, rows);
  rows.clear();
  for (int64_t k = 0; k < 3000; k += 3)
    rows.push_back({RowKind::kInsert, R(k, "w" + std::to_string(k % 89))});
  WriteRows(*t, rows);
  for (bool compacted : {false, true}) {
    if (compacted) {
      ASSERT_TRUE(t->CompactFull().ok());
    }
    ScanOptions o;
    o.filters.push_back({1, Predicate::Op::kLt, {Value::String("v2")}});
    o.projection = std::vector<int>{1, 0};
    auto got = ReadAll(*t, o);
    std::vector<Row> want;
    for (const auto& r : ReadAll(*t)) {
      if (r[1].string_value() < "v2") want.push_back({r[1], r[0]});
    }
    auto by_id = [](const Row& a, const Row& b) { return a[1].int_value() < b[1].int_value(); };
    std::sort(got.begin(), got.end(), by_id);
    std::sort(want.begin(), want.end(), by_id);
    ASSERT_FALSE(want.empty());
    EXPECT_EQ(got, want) << (compacted ? "after" : "before") << " compaction";
  }
}

TEST_F(TableTest, PageIndexFiltersMatchAFullScan) {
  // Small Parquet pages: filters on an append table use the page index to leave pages out,
  // and must still return exactly the rows a full scan keeps (nulls, ranges, several filters).
  TableSpec s;
  s.columns = {{0, "id", DataType::BigInt(), ""},
               {0, "v", DataType::String(), ""},
               {0, "d", DataType::Double(), ""}};
  s.options = {{"parquet.page.size", "1 kb"}};
  auto t = Create("pages", s);
  std::vector<std::pair<RowKind, Row>> rows;
  for (int64_t k = 0; k < 6000; k++) {
    rows.push_back(
        {RowKind::kInsert,
         {Value::Int(k),
          k >= 2000 && k < 2600 ? Value::Null() : Value::String("s" + std::to_string(k % 50)),
          k % 11 == 0 ? Value::Null() : Value::Double(static_cast<double>(k))}});
  }
  WriteRows(*t, rows);
  using Op = Predicate::Op;
  const std::vector<std::vector<Predicate>> cases = {
      {{0, Op::kGe, {Value::Int(1234)}}, {0, Op::kLt, {Value::Int(1300)}}},
      {{1, Op::kIsNull, {}}},
      {{1, Op::kIsNull, {}}, {0, Op::kGt, {Value::Int(2500)}}},
      {{0, Op::kIn, {Value::Int(5), Value::Int(4321), Value::Int(5999)}}},
      {{2, Op::kIsNull, {}}, {0, Op::kLe, {Value::Int(100)}}},
      {{0, Op::kEq, {Value::Int(7000)}}},
      {{1, Op::kEq, {Value::String("s7")}}, {0, Op::kGe, {Value::Int(5900)}}},
  };
  const auto all = ReadAll(*t);
  ASSERT_EQ(all.size(), 6000u);
  for (size_t c = 0; c < cases.size(); c++) {
    ScanOptions o;
    o.filters = cases[c];
    auto got = ReadAll(*t, o);
    std::vector<Row> want;
    for (const auto& r : all) {
      bool keep = true;
      for (const auto& p : cases[c]) {
        const Value& v = r[p.column];
        switch (p.op) {
          case Op::kIsNull:
            keep &= v.is_null();
            break;
          case Op::kEq:
            keep &= !v.is_null() && v == p.literals[0];
            break;
          case Op::kGe:
            keep &= !v.is_null() && v.int_value() >= p.literals[0].int_value();
            break;
          case Op::kGt:
            keep &= !v.is_null() && v.int_value() > p.literals[0].int_value();
            break;
          case Op::kLt:
            keep &= !v.is_null() && v.int_value() < p.literals[0].int_value();
            break;
          case Op::kLe:
            keep &= !v.is_null() && v.int_value() <= p.literals[0].int_value();
            break;
          case Op::kIn:
            keep &= std::find(p.literals.begin(), p.literals.end(), v) != p.literals.end();
            break;
          default:
            FAIL();
        }
      }
      if (keep) want.push_back(r);
    }
    auto by_id = [](const Row& a, const Row& b) { return a[0].int_value() < b[0].int_value(); };
    std::sort(got.begin(), got.end(), by_id);
    EXPECT_EQ(got, want) << "case " << c;
  }
}

TEST_F(TableTest, InterleavedWritersInOneProcessKeepCommitOrderAndCompact) {
  // Two writers buffer the same keys; whichever commits later wins (its buffered records move
  // above the sequence numbers the other writer committed meanwhile), and commits compact.
  auto t = Create("inter", KV({{"bucket", "2"}, {"num-sorted-run.compaction-trigger", "3"}}));
  auto w1 = t->NewWriter({});
  auto w2 = t->NewWriter({});
  ASSERT_TRUE(w1.ok() && w2.ok());
  for (int round = 0; round < 6; round++) {
    for (int64_t k = 0; k < 40; k++) {
      ASSERT_TRUE((*w1)->Write(RowKind::kInsert, R(k, "w1-" + std::to_string(round))).ok());
      ASSERT_TRUE((*w2)->Write(RowKind::kInsert, R(k, "w2-" + std::to_string(round))).ok());
    }
    // w2 commits first in even rounds, w1 in odd ones.
    auto& first = round % 2 == 0 ? *w2 : *w1;
    auto& second = round % 2 == 0 ? *w1 : *w2;
    ASSERT_TRUE(first->Commit().ok());
    ASSERT_TRUE(second->Commit().ok());
    const std::string winner = (round % 2 == 0 ? "w1-" : "w2-") + std::to_string(round);
    auto rows = ReadAll(*t);
    ASSERT_EQ(rows.size(), 40u);
    for (const auto& r : rows) ASSERT_EQ(r[1].string_value(), winner) << "round " << round;
  }
  EXPECT_GE(Compacts("inter"), 2);
}

// A long-lived writer keeps what it restored current by applying its own commits (no manifest
// read per commit while nothing else commits): its compactions keep finding exactly the live
// files (none dropped, so level 0 stays bounded), and a commit of another writer in between
// makes it read the snapshot again (its rows then win, being newer).
TEST_F(TableTest, ALongLivedWriterFollowsItsOwnCommitsAndOthers) {
  auto t = Create("follow", KV({{"bucket", "2"}, {"num-sorted-run.compaction-trigger", "3"}}));
  auto w = t->NewWriter({});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (int round = 0; round < 24; round++) {
    const std::string v = "w-" + std::to_string(round);
    for (int64_t k = 0; k < 30; k++) ASSERT_TRUE((*w)->Write(RowKind::kInsert, R(k, v)).ok());
    if (round % 7 == 3) WriteRows(*t, {{RowKind::kInsert, R(round % 30, "other")}});
    auto c = (*w)->Commit();
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    const auto rows = ReadAll(*t);
    ASSERT_EQ(rows.size(), 30u);
    for (const auto& r : rows) ASSERT_EQ(r[1].string_value(), v) << "round " << round;
    // Each bucket holds at most the trigger's runs (each level-0 file one) and the levels above.
    std::map<int32_t, int> files;
    for (const auto& e : LatestLiveEntries(*t)) files[e.bucket]++;
    for (const auto& [bucket, n] : files)
      EXPECT_LE(n, 4) << "round " << round << " bucket " << bucket;
  }
  // Every compaction picked lands: 14 here (one picked from a file the writer's own commit had
  // compacted away is dropped, and the bucket compacts a commit later: 12 then).
  EXPECT_GE(Compacts("follow"), 14);
}

TEST_F(TableTest, AsyncCompactionCommitsLaterAndLeavesNoStrayFiles) {
  // A long-lived writer compacts in the background: each compaction is committed by a later
  // commit, sorted runs stay below the stop trigger, every commit reads right, and compactions
  // still running when the writer goes are removed, not left behind.
  auto t = Create("async", KV({{"bucket", "2"},
                               {"num-sorted-run.compaction-trigger", "3"},
                               {"num-sorted-run.stop-trigger", "5"}}));
  WriteOptions wo;
  wo.async_compaction = true;
  std::map<int64_t, std::string> model;
  {
    auto w = t->NewWriter(wo);
    ASSERT_TRUE(w.ok());
    for (int round = 0; round < 12; round++) {
      for (int64_t k = 0; k < 300; k += 1 + round % 3) {
        std::string v = "r" + std::to_string(round) + "-" + std::to_string(k);
        ASSERT_TRUE((*w)->Write(RowKind::kInsert, R(k, v)).ok());
        model[k] = v;
      }
      auto c = (*w)->Commit();
      ASSERT_TRUE(c.ok()) << c.status().ToString();
      if (round == 2) {
        // The third commit reaches the trigger: its compaction runs after it, so no COMPACT
        // snapshot exists yet (a synchronous writer would have committed one right away).
        auto snaps = catalog_->ReadSystemTable({"default", "async", "snapshots"});
        ASSERT_TRUE(snaps.ok());
        for (const auto& r : snaps->rows) EXPECT_EQ(r[4].string_value(), "APPEND");
        // The end of an input waits for it and publishes it.
        auto done = (*w)->CommitAndWaitForCompaction();
        ASSERT_TRUE(done.ok()) << done.status().ToString();
        snaps = catalog_->ReadSystemTable({"default", "async", "snapshots"});
        ASSERT_TRUE(snaps.ok());
        EXPECT_EQ(snaps->rows.back()[4].string_value(), "COMPACT");
      }
      auto rows = ReadAll(*t);
      ASSERT_EQ(rows.size(), model.size()) << "round " << round;
      for (const auto& r : rows) ASSERT_EQ(r[1].string_value(), model[r[0].int_value()]);
      auto files = catalog_->ReadSystemTable({"default", "async", "files"});
      ASSERT_TRUE(files.ok());
      // Sorted runs per bucket: each level-0 file, plus each level above 0.
      std::map<int64_t, int> l0;
      std::map<int64_t, std::set<int64_t>> levels;
      for (const auto& r : files->rows) {
        int64_t bucket = r[1].int_value(), level = r[5].int_value();
        if (level == 0)
          l0[bucket]++;
        else
          levels[bucket].insert(level);
      }
      for (const auto& [b, n] : l0) {
        EXPECT_LE(n + static_cast<int>(levels[b].size()), 5)
            << "bucket " << b << " round " << round;
      }
    }
  }  // the writer goes: running compactions are abandoned
  auto snaps = catalog_->ReadSystemTable({"default", "async", "snapshots"});
  ASSERT_TRUE(snaps.ok());
  std::set<std::string> referenced;
  int compacts = 0;
  for (const auto& r : snaps->rows) {
    compacts += r[4].string_value() == "COMPACT";
    auto snap = meta::SnapshotManager(t->path()).Read(r[0].int_value());
    ASSERT_TRUE(snap.ok());
    auto live = meta::ReadLiveEntries(t->path(), **snap);
    ASSERT_TRUE(live.ok());
    for (const auto& e : *live) referenced.insert(e.file.file_name);
  }
  EXPECT_GE(compacts, 2);
  for (int b = 0; b < 2; b++) {
    auto listing = io::LocalFs().ListDir(t->path() + "/bucket-" + std::to_string(b));
    ASSERT_TRUE(listing.ok());
    for (const auto& f : *listing) {
      EXPECT_TRUE(referenced.count(f.name)) << f.name << " belongs to no snapshot";
    }
  }
}

TEST_F(TableTest, LongLivedAppendWritersCompactSmallFilesInTheBackground) {
  // An append table written by a long-lived writer: the small-file compaction a commit triggers
  // runs on its own and commits itself (a COMPACT snapshot appears with no further call on the
  // writer), the writer keeps committing meanwhile, and no row is lost or doubled.
  TableSpec s;
  s.columns = {{0, "id", DataType::BigInt(), ""}, {0, "v", DataType::String(), ""}};
  s.options = {{"bucket", "1"}, {"bucket-key", "id"}, {"compaction.max.file-num", "4"}};
  auto t = Create("queue", s);
  WriteOptions wo;
  wo.async_compaction = true;
  auto w = t->NewWriter(wo);
  ASSERT_TRUE(w.ok());
  int64_t next = 0;
  auto commit_one = [&]() {
    ASSERT_TRUE((*w)->Write(RowKind::kInsert, {Value::Int(next), Value::String("x")}).ok());
    next++;
    auto c = (*w)->Commit();
    ASSERT_TRUE(c.ok()) << c.status().ToString();
  };
  auto compact_snapshots = [&]() {
    auto snaps = catalog_->ReadSystemTable({"default", "queue", "snapshots"});
    EXPECT_TRUE(snaps.ok());
    int n = 0;
    for (const auto& r : snaps->rows) n += r[4].string_value() == "COMPACT";
    return n;
  };
  // The fourth small file triggers a compaction, held back here: the commit returns without
  // waiting for it (a synchronous writer would wait, then commit it first).
  datafile::GetTestHooks().hold_append_compaction = true;
  for (int i = 0; i < 4; i++) commit_one();
  EXPECT_EQ(compact_snapshots(), 0);
  datafile::GetTestHooks().hold_append_compaction = false;
  bool compacted = false;
  for (int wait = 0; wait < 500 && !compacted; wait++) {
    compacted = compact_snapshots() > 0;
    if (!compacted) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(compacted) << "no COMPACT snapshot within 10 s of the triggering commit";
  for (int i = 0; i < 9; i++) commit_one();
  auto done = (*w)->CommitAndWaitForCompaction();
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  auto rows = ReadAll(*t);
  ASSERT_EQ(rows.size(), static_cast<size_t>(next));
  for (int64_t i = 0; i < next; i++) EXPECT_EQ(rows[i][0].int_value(), i);  // queue order kept
  auto files = catalog_->ReadSystemTable({"default", "queue", "files"});
  ASSERT_TRUE(files.ok());
  // 13 single-row files compacted along the way (a compaction rewrites one window of at most
  // 'compaction.max.file-num' files per bucket, so up to that many may remain).
  EXPECT_LE(files->rows.size(), 4u);
}

TEST_F(TableTest, EndOfInputCompactsLikeASynchronousWriter) {
  // As Paimon's prepareCommit(waitCompaction): the commit that ends the input takes in the
  // running background compaction, then picks the next one and waits for it. The table is left
  // at most at the compaction trigger, as a writer compacting at every commit leaves it, and the
  // outputs compacted again in that commit are deleted, not left behind.
  auto t = Create("eoi", KV({{"bucket", "1"},
                             {"num-sorted-run.compaction-trigger", "3"},
                             {"num-sorted-run.stop-trigger", "50"}}));
  WriteOptions wo;
  wo.async_compaction = true;
  std::map<int64_t, std::string> model;
  {
    auto w = t->NewWriter(wo);
    ASSERT_TRUE(w.ok());
    // Four large commits reach the trigger: a long background compaction starts. Four small
    // commits follow while it runs; the last one ends the input with five sorted runs, one more
    // compaction's worth.
    for (int round = 0; round < 8; round++) {
      const int64_t n = round < 4 ? 40000 : 1;
      for (int64_t k = 0; k < n; k++) {
        std::string v = "r" + std::to_string(round) + "-" + std::to_string(k);
        ASSERT_TRUE((*w)->Write(RowKind::kInsert, R(k * 3 + round, v)).ok());
        model[k * 3 + round] = v;
      }
      auto c = round == 7 ? (*w)->CommitAndWaitForCompaction() : (*w)->Commit();
      ASSERT_TRUE(c.ok()) << c.status().ToString();
    }
  }
  auto rows = ReadAll(*t);
  ASSERT_EQ(rows.size(), model.size());
  for (const auto& r : rows) ASSERT_EQ(r[1].string_value(), model[r[0].int_value()]);
  auto files = catalog_->ReadSystemTable({"default", "eoi", "files"});
  ASSERT_TRUE(files.ok());
  int l0 = 0;
  std::set<int64_t> levels;
  std::set<std::string> live;
  for (const auto& r : files->rows) {
    if (r[5].int_value() == 0)
      l0++;
    else
      levels.insert(r[5].int_value());
  }
  std::string layout;
  for (const auto& r : files->rows) {
    layout += " L" + std::to_string(r[5].int_value()) + ":" + std::to_string(r[6].int_value());
  }
  // Universal compaction runs when a bucket has more sorted runs than the trigger.
  EXPECT_LE(l0 + static_cast<int>(levels.size()), 3)
      << "sorted runs left at the end of input:" << layout;
  auto snaps = catalog_->ReadSystemTable({"default", "eoi", "snapshots"});
  ASSERT_TRUE(snaps.ok());
  EXPECT_EQ(snaps->rows.back()[4].string_value(), "COMPACT");
  std::set<std::string> referenced;
  for (const auto& r : snaps->rows) {
    auto snap = meta::SnapshotManager(t->path()).Read(r[0].int_value());
    ASSERT_TRUE(snap.ok());
    auto entries = meta::ReadLiveEntries(t->path(), **snap);
    ASSERT_TRUE(entries.ok());
    for (const auto& e : *entries) referenced.insert(e.file.file_name);
  }
  auto listing = io::LocalFs().ListDir(t->path() + "/bucket-0");
  ASSERT_TRUE(listing.ok());
  for (const auto& f : *listing) {
    EXPECT_TRUE(referenced.count(f.name)) << f.name << " belongs to no snapshot";
  }
}

TEST_F(TableTest, ColumnWriteBuffersWriteWhatRowBuffersWrite) {
  // Deduplicate, partial-update, aggregation and first-row tables buffer columns (keys repeated
  // within a commit, NULLs, strings, doubles, retractions); the same commits through row buffers
  // (TestHooks::row_write_buffer) give the same rows and the same file statistics.
  for (const std::string engine : {"deduplicate", "partial-update", "aggregation", "first-row"}) {
    SCOPED_TRACE(engine);
    TableSpec spec;
    spec.columns = {{0, "id", DataType::BigInt().NotNull(), ""},
                    {0, "s", DataType::String(), ""},
                    {0, "d", DataType::Double(), ""},
                    {0, "n", DataType::Int(), ""}};
    spec.primary_keys = {"id"};
    spec.options = {{"bucket", "2"}, {"merge-engine", engine}};
    if (engine == "aggregation") {
      spec.options["fields.d.aggregate-function"] = "sum";
      spec.options["fields.n.aggregate-function"] = "max";
      spec.options["fields.n.ignore-retract"] = "true";
    }
    const std::string name = engine.substr(0, 5);
    auto by_cols = Create("c_" + name, spec);
    auto by_rows = Create("r_" + name, spec);
    std::mt19937 rng(5);
    for (int commit = 0; commit < 6; commit++) {
      std::vector<std::pair<RowKind, Row>> rows;
      for (int i = 0; i < 300; i++) {
        auto maybe = [&](Value v) { return rng() % 3 == 0 ? Value() : std::move(v); };
        Row r = {Value::Int(static_cast<int64_t>(rng() % 200)),
                 maybe(Value::String(std::string(1 + rng() % 20, 'a' + rng() % 26))),
                 maybe(Value::Double(static_cast<double>(rng() % 1000) / 8)),
                 maybe(Value::Int(static_cast<int32_t>(rng() % 100000)))};
        RowKind kind = RowKind::kInsert;
        if (engine == "deduplicate" && rng() % 10 == 0) kind = RowKind::kDelete;
        if (engine == "aggregation" && rng() % 10 == 0) kind = RowKind::kUpdateBefore;
        rows.push_back({kind, std::move(r)});
      }
      WriteRows(*by_cols, rows);
      datafile::GetTestHooks().row_write_buffer = true;
      WriteRows(*by_rows, rows);
      datafile::GetTestHooks().row_write_buffer = false;
    }
    auto a = ReadAll(*by_cols), b = ReadAll(*by_rows);
    ASSERT_EQ(a.size(), b.size());
    ASSERT_GT(a.size(), 50u);
    for (size_t i = 0; i < a.size(); i++) {
      for (size_t c = 0; c < a[i].size(); c++) EXPECT_EQ(CompareValues(a[i][c], b[i][c]), 0);
    }
    auto stats = [&](const std::string& name) {
      auto files = catalog_->ReadSystemTable({"default", name, "files"});
      EXPECT_TRUE(files.ok());
      std::multiset<std::string> out;  // per file: bucket, level, rows, key range, statistics
      for (const auto& r : files->rows) {
        std::string line;
        for (int c : {1, 5, 6, 8, 9, 10, 11, 12}) line += DebugString(r[c]) + "|";
        out.insert(line);
      }
      return out;
    };
    EXPECT_EQ(stats("c_" + name), stats("r_" + name));
  }
}

TEST_F(TableTest, IgnoreDeleteDropsRetractionsForEveryEngine) {
  // As Paimon's table writer: with 'ignore-delete' the writer drops DELETE and UPDATE_BEFORE
  // rows, so an aggregation table's sum is not retracted (it was before) and a deduplicate
  // table keeps the row.
  for (const std::string engine : {"aggregation", "deduplicate"}) {
    SCOPED_TRACE(engine);
    TableSpec spec;
    spec.columns = {{0, "id", DataType::BigInt().NotNull(), ""}, {0, "s", DataType::BigInt(), ""}};
    spec.primary_keys = {"id"};
    spec.options = {{"bucket", "1"}, {"merge-engine", engine}, {"ignore-delete", "true"}};
    if (engine == "aggregation") spec.options["fields.s.aggregate-function"] = "sum";
    auto t = Create("ig_" + engine.substr(0, 3), spec);
    WriteRows(*t, {{RowKind::kInsert, {Value::Int(1), Value::Int(7)}},
                   {RowKind::kInsert, {Value::Int(2), Value::Int(4)}}});
    WriteRows(*t, {{RowKind::kDelete, {Value::Int(1), Value::Int(7)}},
                   {RowKind::kUpdateBefore, {Value::Int(2), Value::Int(4)}}});
    EXPECT_EQ(ReadAll(*t),
              (std::vector<Row>{{Value::Int(1), Value::Int(7)}, {Value::Int(2), Value::Int(4)}}));
    ASSERT_TRUE(t->CompactFull().ok());
    EXPECT_EQ(ReadAll(*t),
              (std::vector<Row>{{Value::Int(1), Value::Int(7)}, {Value::Int(2), Value::Int(4)}}));
  }
}

TEST_F(TableTest, ColumnBatchesHoldTheRowsOfARowScan) {
  // NextColumns reads append files and single-file primary-key buckets column by column and
  // everything else through rows: every type, NULLs, filters, projections, retractions.
  auto types = [](TableSpec s) {
    s.columns = {{0, "id", DataType::BigInt().NotNull(), ""},
                 {0, "i", DataType::Int(), ""},
                 {0, "b", DataType::Boolean(), ""},
                 {0, "d", DataType::Double(), ""},
                 {0, "f", DataType::Float(), ""},
                 {0, "s", DataType{TypeId::kVarChar, true, 12}, ""},
                 {0, "dec", DataType::Decimal(10, 2), ""},
                 {0, "ts", DataType::Timestamp(3), ""},
                 {0, "day", DataType::Date(), ""}};
    return s;
  };
  auto row = [](int64_t k, int salt) {
    auto nul = [&](int m) { return (k + salt) % m == 0; };
    return Row{Value::Int(k),
               nul(5) ? Value::Null() : Value::Int(k * 7 % 1000 - salt),
               nul(6) ? Value::Null() : Value::Bool(k % 2 == 0),
               nul(7) ? Value::Null() : Value::Double(k * 0.5 + salt),
               Value::Double(static_cast<float>(k % 100) + 0.25),
               nul(4) ? Value::Null() : Value::String("s" + std::to_string((k + salt) % 37)),
               nul(3) ? Value::Null() : Value::Dec(Decimal{k * 101 + salt}),
               Value::Ts(Timestamp{1700000000000 + k * 1000, 0}),
               Value::Int(19000 + k % 300)};
  };
  using Op = Predicate::Op;
  const std::vector<std::vector<Predicate>> filters = {
      {},
      {{1, Op::kLt, {Value::Int(300)}}},
      {{5, Op::kEq, {Value::String("s3")}}},
      {{3, Op::kIsNull, {}}},
      {{1, Op::kGe, {Value::Int(100)}}, {2, Op::kEq, {Value::Bool(true)}}},
      {{0, Op::kIn, {Value::Int(3), Value::Int(77), Value::Int(1999)}}},
  };
  auto check = [&](Table& t, const char* what) {
    for (size_t c = 0; c < filters.size(); c++) {
      for (bool project : {false, true}) {
        ScanOptions o;
        o.filters = filters[c];
        if (project) o.projection = std::vector<int>{0, 6, 3, 5};
        auto want = ReadAll(t, o);
        auto got = ReadAllColumns(t, o);
        EXPECT_EQ(got, want) << what << ", filter case " << c << (project ? ", projected" : "");
        if (c == 0) {
          EXPECT_FALSE(want.empty()) << what;
        }
      }
      // No column projected (what SQL's COUNT(*) reads): batches and rows of no value, as
      // many as the rows the filters keep.
      ScanOptions o;
      o.filters = filters[c];
      o.projection = std::vector<int>{};
      ScanOptions all_columns;
      all_columns.filters = filters[c];
      const size_t want = ReadAll(t, all_columns).size();
      for (bool by_columns : {true, false}) {
        auto s = t.NewScan(o);
        ASSERT_TRUE(s.ok()) << s.status().ToString();
        size_t got = 0;
        while (true) {
          ColumnBatch b;
          RowBatch rows;
          auto more = by_columns ? (*s)->NextColumns(&b) : (*s)->Next(&rows);
          ASSERT_TRUE(more.ok()) << more.status().ToString();
          EXPECT_TRUE(b.columns.empty()) << what;
          for (const Row& r : rows.rows) EXPECT_TRUE(r.empty()) << what;
          got += by_columns ? b.num_rows : rows.rows.size();
          if (!*more) break;
        }
        EXPECT_EQ(got, want) << what << ", filter case " << c << ", no column, "
                             << (by_columns ? "batches" : "rows");
      }
    }
  };
  TableSpec append_spec = types({});
  append_spec.options = {{"parquet.block.size", "8 kb"}};
  auto append = Create("cols_append", append_spec);
  for (int salt = 0; salt < 2; salt++) {
    std::vector<std::pair<RowKind, Row>> rows;
    for (int64_t k = 0; k < 2000; k++) rows.push_back({RowKind::kInsert, row(k, salt)});
    WriteRows(*append, rows);
  }
  check(*append, "append table");

  TableSpec pk_spec = types({});
  pk_spec.primary_keys = {"id"};
  pk_spec.options = {{"bucket", "2"}, {"parquet.block.size", "8 kb"}};
  auto pk = Create("cols_pk", pk_spec);
  std::vector<std::pair<RowKind, Row>> rows;
  for (int64_t k = 0; k < 2000; k++) rows.push_back({RowKind::kInsert, row(k, 0)});
  WriteRows(*pk, rows);
  check(*pk, "primary-key table, one file per bucket");
  rows.clear();
  for (int64_t k = 0; k < 2000; k += 3) rows.push_back({RowKind::kInsert, row(k, 1)});
  for (int64_t k = 1; k < 2000; k += 10) rows.push_back({RowKind::kDelete, row(k, 0)});
  WriteRows(*pk, rows);
  check(*pk, "primary-key table, merged");
  rows.clear();
  for (int64_t k = 1; k < 2000; k += 7) rows.push_back({RowKind::kInsert, row(k, 2)});
  for (int64_t k = 2; k < 2000; k += 13) rows.push_back({RowKind::kDelete, row(k, 1)});
  WriteRows(*pk, rows);
  check(*pk, "primary-key table, merged from three files");
  ASSERT_TRUE(pk->CompactFull().ok());
  check(*pk, "primary-key table, compacted");

  // A bucket whose only file holds retractions next to inserts (level 0, no merge needed).
  auto del = Create("cols_del", [&] {
    TableSpec s = pk_spec;
    s.options = {{"bucket", "1"}};
    return s;
  }());
  rows.clear();
  for (int64_t k = 0; k < 50; k++) {
    rows.push_back({k % 4 == 0 ? RowKind::kDelete : RowKind::kInsert, row(k, 0)});
  }
  WriteRows(*del, rows);
  auto got = ReadAllColumns(*del);
  EXPECT_EQ(got, ReadAll(*del));
  EXPECT_EQ(got.size(), 37u);

  // Partial-update buckets of several files merge column by column: each column's newest
  // non-NULL value.
  TableSpec pu_spec = pk_spec;
  pu_spec.options["merge-engine"] = "partial-update";
  auto pu = Create("cols_pu", pu_spec);
  std::map<int64_t, Row> model;
  for (int salt = 0; salt < 3; salt++) {
    rows.clear();
    for (int64_t k = salt; k < 2000; k += 1 + salt) {
      Row r = row(k, salt);
      auto& m = model.try_emplace(k, Row(r.size())).first->second;
      for (size_t c = 0; c < r.size(); c++) {
        if (!r[c].is_null()) m[c] = r[c];
      }
      rows.push_back({RowKind::kInsert, std::move(r)});
    }
    WriteRows(*pu, rows);
  }
  check(*pu, "partial-update table, merged");
  std::vector<Row> want;
  for (auto& [k, r] : model) want.push_back(r);
  EXPECT_EQ(ReadAll(*pu), want);
  EXPECT_EQ(ReadAllColumns(*pu), want);
}

// How many of this process's mappings are of files under `dir`.
int MappingsUnder(const std::string& dir) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  int n = 0;
  while (std::getline(maps, line)) n += line.find(dir + "/") != std::string::npos;
  return n;
}

TEST_F(TableTest, DroppedTablesLeaveNoFilesMapped) {
  // Scans keep data files mapped in the process-wide cache; DROP TABLE lets them go, so the
  // disk space of the removed files is freed while the process runs on. (Files under 1 MiB are
  // read, not mapped: these hold values that do not compress, 3 MiB a bucket.)
  auto t = Create("mapped", KV({{"bucket", "2"}}));
  std::vector<std::pair<RowKind, Row>> rows;
  uint64_t x = 88172645463325252ull;
  for (int64_t k = 0; k < 384; k++) {
    std::string v(16 << 10, ' ');
    for (char& c : v) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      c = static_cast<char>('!' + x % 90);
    }
    rows.push_back({RowKind::kInsert, R(k, v)});
  }
  WriteRows(*t, rows);
  EXPECT_EQ(ReadAllColumns(*t).size(), 384u);
  EXPECT_GT(MappingsUnder(dir_), 0);
  t.reset();
  ASSERT_TRUE(catalog_->DropTable(Identifier{"default", "mapped", ""}, false).ok());
  EXPECT_EQ(MappingsUnder(dir_), 0);
}

// Small data files (thousands of buckets' level-0 files) are read into memory when opened, not
// mapped (unmapping each cost a TLB flush on every core), and their bytes count in the file
// cache's share of the process's budget.
TEST_F(TableTest, SmallDataFilesAreReadAndCountInTheCache) {
  auto t = Create("small", KV({{"bucket", "2"}}));
  std::vector<std::pair<RowKind, Row>> rows;
  for (int64_t k = 0; k < 2000; k++) rows.push_back({RowKind::kInsert, R(k, std::to_string(k))});
  WriteRows(*t, rows);
  int64_t bytes = 0;
  int files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(t->path())) {
    if (e.path().filename().string().rfind("data-", 0) == 0) {
      bytes += static_cast<int64_t>(e.file_size());
      files++;
    }
  }
  ASSERT_EQ(files, 2);
  io::FileCache::Instance().EraseUnder("/");
  EXPECT_EQ(ReadAllColumns(*t).size(), 2000u);
  EXPECT_EQ(MappingsUnder(dir_), 0);
  // Each file: its bytes, and its footer counted at 4 KiB.
  EXPECT_GE(io::FileCache::Instance().used(), bytes + 2 * 4096);
}

TEST_F(TableTest, BadInputChangesNothing) {
  auto t = Create("t", KV({{"bucket", "1"}}));
  auto w = t->NewWriter({});
  EXPECT_FALSE((*w)->Write(RowKind::kInsert, {Value(), Value::String("x")}).ok());
  EXPECT_FALSE((*w)->Write(RowKind::kInsert, {Value::Int(1)}).ok());
  EXPECT_FALSE((*w)->Write(RowKind::kInsert, {Value::String("1"), Value::String("x")}).ok());
  TableSpec bad = KV({{"bucket", "1"}, {"changelog-produce", "input"}});
  Status st = catalog_->CreateTable({"default", "bad", ""}, bad, false);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("changelog-producer"), std::string::npos) << st.message();
  auto tables = catalog_->ListTables("default");
  ASSERT_TRUE(tables.ok());
  EXPECT_EQ(*tables, std::vector<std::string>{"t"});
}

}  // namespace
}  // namespace tributary

namespace tributary {
namespace {

// Scans whose filters fix the whole primary key with IN lists (a composite key, several buckets,
// deleted and missing keys) are served as point lookups and return what a full scan filtered
// row by row returns.
TEST_F(TableTest, InListsOfKeysReadAsAFilteredFullScanDoes) {
  TableSpec spec;
  spec.columns = {{0, "a", DataType::BigInt().NotNull(), ""},
                  {0, "b", DataType::String().NotNull(), ""},
                  {0, "v", DataType::BigInt(), ""}};
  spec.primary_keys = {"a", "b"};
  spec.options = {{"bucket", "3"}};
  auto t = Create("in_keys", spec);
  std::vector<std::pair<RowKind, Row>> rows;
  for (int64_t a = 0; a < 20; a++) {
    for (const char* b : {"x", "y"})
      rows.push_back({RowKind::kInsert, {Value::Int(a), Value::String(b), Value::Int(a * 10)}});
  }
  WriteRows(*t, rows);
  WriteRows(*t, {{RowKind::kDelete, {Value::Int(3), Value::String("x"), Value::Int(30)}},
                 {RowKind::kInsert, {Value::Int(4), Value::String("y"), Value::Int(-4)}}});
  Predicate in_a;
  in_a.column = 0;
  in_a.op = Predicate::Op::kIn;
  in_a.literals = {Value::Int(3), Value::Int(4), Value::Int(4), Value::Int(99), Value::Int(17)};
  Predicate in_b;
  in_b.column = 1;
  in_b.op = Predicate::Op::kIn;
  in_b.literals = {Value::String("x"), Value::String("y")};
  ScanOptions lookup;
  lookup.filters = {in_a, in_b};
  std::vector<Row> expected;
  for (const Row& r : ReadAll(*t)) {
    if (EvalPredicate(in_a, r[0]) && EvalPredicate(in_b, r[1])) expected.push_back(r);
  }
  std::vector<Row> got = ReadAll(*t, lookup);
  auto by_key = [](const Row& x, const Row& y) {
    const int c = CompareValues(x[0], y[0]);
    return c != 0 ? c < 0 : CompareValues(x[1], y[1]) < 0;
  };
  std::sort(expected.begin(), expected.end(), by_key);
  std::sort(got.begin(), got.end(), by_key);
  EXPECT_EQ(expected.size(), 5u);  // (3,y), (4,x), (4,y), (17,x), (17,y)
  EXPECT_EQ(got, expected);
}

}  // namespace
}  // namespace tributary

namespace tributary {
namespace {

// Paimon's bloom-filter file index: a point lookup of a key the filter rules out, and a scan
// whose equality filter it rules out, never read the data file. Shown by damaging the data files
// (not their indexes): what must read them fails, what the filters answer does not.
class FileIndexTest : public TableTest {
 protected:
  // Whether a scan with `o` fails, when it is opened or while read to its end.
  static bool ScanFails(Table& t, const ScanOptions& o) {
    auto scan = t.NewScan(o);
    if (!scan.ok()) return true;
    RowBatch batch;
    Result<bool> more = true;
    while (more.ok() && *more) more = (*scan)->Next(&batch);
    return !more.ok();
  }
  static void Damage(const std::string& dir) {
    auto files = io::LocalFs().ListDir(dir);
    ASSERT_TRUE(files.ok());
    for (const io::FileInfo& info : *files) {
      const std::string& n = info.name;
      if (n.ends_with(".parquet")) {
        ASSERT_TRUE(io::LocalFs().WriteFile(io::JoinPath(dir, n), std::string(64, 'x')).ok());
        io::FileCache::Instance().EraseFile(io::JoinPath(dir, n));
      }
    }
  }
};

TEST_F(FileIndexTest, LookupMissesAndFilteredScansReadNoDataFile) {
  for (const char* items : {"100", "1000000"}) {  // embedded in the manifest; a '.index' file
    SCOPED_TRACE(items);
    const std::string name = std::string("fi") + items;
    auto t = Create(name, KV({{"bucket", "1"},
                              {"file-index.bloom-filter.columns", "id,v"},
                              {"file-index.bloom-filter.id.items", items},
                              {"file-index.bloom-filter.id.fpp", "0.001"},
                              {"file-index.bloom-filter.v.items", items},
                              {"file-index.bloom-filter.v.fpp", "0.01"}}));
    std::vector<std::pair<RowKind, Row>> rows;
    for (int64_t k = 0; k < 200; k += 2)
      rows.push_back({RowKind::kInsert, R(k, "v" + std::to_string(k))});
    WriteRows(*t, rows);
    auto lookup = t->NewLookup();
    ASSERT_TRUE(lookup.ok()) << lookup.status().ToString();
    Damage(io::JoinPath(t->path(), "bucket-0"));
    // Odd keys lie inside the file's key range: only the bloom filter keeps the file unread.
    int answered = 0;
    for (int64_t k = 1; k < 200; k += 2) {
      auto miss = (*lookup)->Get({Value::Int(k)});
      if (miss.ok()) {
        EXPECT_FALSE(miss->has_value());
        answered++;
      }
    }
    EXPECT_GE(answered, 80);  // a few false positives read the (damaged) file
    EXPECT_FALSE((*lookup)->Get({Value::Int(10)}).ok()) << "a key in the file reads it";
    // A scan filtering a key no file holds reads nothing; one that needs the file fails. (On a
    // primary-key table only key filters use the index: a non-key value missing from one file
    // does not rule out the records of its keys.)
    ScanOptions none;
    none.filters.push_back(Predicate{0, Predicate::Op::kIn, {Value::Int(1), Value::Int(3)}});
    ScanOptions some;
    some.filters.push_back(Predicate{0, Predicate::Op::kEq, {Value::Int(10)}});
    // (Planning reads embedded indexes, as Paimon's manifest-level filter; a filter fixing the
    // whole key is then a point lookup in the split, which reads '.index' files too.)
    {
      auto scan = t->NewScan(none);
      ASSERT_TRUE(scan.ok());
      RowBatch batch;
      auto more = (*scan)->Next(&batch);
      ASSERT_TRUE(more.ok()) << more.status().ToString();
      EXPECT_TRUE(batch.rows.empty());
    }
    {  // 'file-index.read.enabled' = false: the same scan reads the file
      ScanOptions off = none;
      off.dynamic_options["file-index.read.enabled"] = "false";
      EXPECT_TRUE(ScanFails(*t, off)) << "with the index turned off the scan must read the file";
    }
    EXPECT_TRUE(ScanFails(*t, some)) << "a scan that needs the damaged file read it";
  }
}

// A data file's '.index' file goes with it when snapshot expiration deletes the file.
TEST_F(FileIndexTest, IndexFilesExpireWithTheirDataFiles) {
  auto t = Create("fi_expire", KV({{"bucket", "1"},
                                   {"file-index.bloom-filter.columns", "v"},
                                   {"snapshot.num-retained.min", "1"},
                                   {"snapshot.num-retained.max", "1"}}));
  for (int64_t k = 0; k < 4; k++) WriteRows(*t, {{RowKind::kInsert, R(k, "v")}});
  ASSERT_TRUE(t->CompactFull().ok());
  WriteRows(*t,
            {{RowKind::kInsert, R(9, "w")}});  // its commit expires what the compaction replaced
  auto files = io::LocalFs().ListDir(io::JoinPath(t->path(), "bucket-0"));
  ASSERT_TRUE(files.ok());
  std::set<std::string> names;
  for (const auto& f : *files) names.insert(f.name);
  int data = 0, index = 0;
  for (const std::string& n : names) {
    if (n.ends_with(".index")) {
      index++;
      EXPECT_TRUE(names.count(n.substr(0, n.size() - 6))) << n << " outlived its data file";
    } else if (n.ends_with(".parquet")) {
      data++;
      EXPECT_TRUE(names.count(n + ".index")) << n << " has no index file";
    }
  }
  EXPECT_EQ(data, 2);  // the compacted file and the last commit's
  EXPECT_EQ(index, 2);
}

}  // namespace
}  // namespace tributary

namespace tributary {
namespace {

// 'scan.watermark' reads the earliest snapshot whose watermark is at or after the value, as
// Paimon; snapshots written by a Flink job with watermarks carry one (here set in the files).
TEST_F(TableTest, ScanWatermarkReadsTheFirstSnapshotAtOrAfterIt) {
  auto t = Create("wm", KV({{"bucket", "1"}}));
  for (int64_t k = 1; k <= 3; k++) WriteRows(*t, {{RowKind::kInsert, R(k, "v")}});
  meta::SnapshotManager snapshots(t->path());
  for (int64_t id : {2, 3}) {
    auto s = snapshots.Read(id);
    ASSERT_TRUE(s.ok());
    meta::Snapshot copy = **s;
    copy.watermark = id * 100;
    ASSERT_TRUE(io::LocalFs()
                    .WriteFile(meta::SnapshotPath(t->path(), id), meta::SnapshotToJson(copy))
                    .ok());
  }
  ScanOptions at;
  at.dynamic_options["scan.watermark"] = "150";  // snapshot 2 (200) is the first at or after it
  EXPECT_EQ(ReadAll(*t, at), (std::vector<Row>{R(1, "v"), R(2, "v")}));
  at.dynamic_options["scan.watermark"] = "200";
  EXPECT_EQ(ReadAll(*t, at).size(), 2u);
  at.dynamic_options["scan.watermark"] = "301";
  auto scan = t->NewScan(at);  // none at or after 301: an error (at planning or the first read)
  bool failed = !scan.ok();
  if (scan.ok()) {
    RowBatch b;
    failed = !(*scan)->Next(&b).ok();
  }
  EXPECT_TRUE(failed);
}

// Table maintenance from the library, below SQL (table/rescale.h, table/rewrite.h): a C++
// program rescales a table, and a rewrite whose commit meets a write committed meanwhile reads
// the rows again instead of losing that write.
TEST_F(TableTest, RescaleFromTheLibraryKeepsEveryRowInTheNewBuckets) {
  auto t = Create("r", KV({{"bucket", "2"}}));
  std::vector<std::pair<RowKind, Row>> rows;
  std::vector<Row> want;
  for (int64_t i = 0; i < 50; i++) {
    rows.push_back({RowKind::kInsert, R(i, "v" + std::to_string(i))});
    want.push_back(R(i, "v" + std::to_string(i)));
  }
  WriteRows(*t, rows);
  table::RescaleRequest request;
  request.buckets = 4;
  auto done = table::Rescale(*t, request);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  ASSERT_TRUE(done->snapshot.has_value());
  for (const auto& [bucket, total] : FileBuckets(*t)) {
    EXPECT_EQ(total, 4);
    EXPECT_LT(bucket, 4);
  }
  EXPECT_EQ(ReadAll(*t), want);
}

TEST_F(TableTest, ARewriteThatConflictsReadsTheRowsAgain) {
  auto t = Create("c", KV({{"bucket", "1"}}));
  WriteRows(*t, {{RowKind::kInsert, R(1, "a")}});
  int attempts = 0;
  auto done = table::RewriteLatest(t->path(), "rewritten", [&](int64_t latest) {
    attempts++;
    std::vector<Row> read = ReadAll(*t, [&] {
      ScanOptions o;
      o.snapshot_id = latest;
      return o;
    }());
    if (attempts == 1) WriteRows(*t, {{RowKind::kInsert, R(2, "b")}});  // another writer
    WriteOptions wo;
    wo.overwrite = true;
    wo.overwrite_base_snapshot = latest;
    auto w = t->NewWriter(wo);
    EXPECT_TRUE(w.ok());
    for (Row& r : read) EXPECT_TRUE((*w)->Write(RowKind::kInsert, r).ok());
    return table::CommitRewrite(**w);
  });
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(attempts, 2);
  EXPECT_EQ(ReadAll(*t), (std::vector<Row>{R(1, "a"), R(2, "b")}));
}

}  // namespace
}  // namespace tributary
