// The process's one memory budget (common/memory_budget.h, issue 38): writers' buffers across
// tables stay within it, and the file cache gives way as they grow.
#include "common/memory_budget.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "common/predicate.h"
#include "io/fault_injection.h"
#include "io/file_cache.h"
#include "io/file_system.h"
#include "meta/partition_marker.h"
#include "meta/snapshot.h"
#include "meta/snapshot_reader.h"
#include "table/warehouse_test_base.h"
#include "tributary/table_scan.h"
#include "tributary/table_writer.h"
#include "write/file_store_writer.h"

namespace tributary {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

// Restores the process's total after a test that lowers it.
class BudgetScope {
 public:
  explicit BudgetScope(int64_t total) : saved_(MemoryBudget::Instance().total()) {
    MemoryBudget::Instance().SetTotalForTesting(total);
  }
  ~BudgetScope() { MemoryBudget::Instance().SetTotalForTesting(saved_); }

 private:
  int64_t saved_;
};

TEST(MemoryBudgetTest, TheCacheGetsWhatTheBuffersLeaveAboveItsFloor) {
  BudgetScope scope(64 * kMiB);
  MemoryBudget& b = MemoryBudget::Instance();
  const int64_t base = b.buffered();
  EXPECT_EQ(b.cache_floor(), 8 * kMiB);  // an eighth of 64 MiB
  EXPECT_EQ(b.buffer_limit(), 56 * kMiB);
  EXPECT_EQ(b.CacheCapacity(256 * kMiB), 64 * kMiB - base);
  EXPECT_EQ(b.CacheCapacity(16 * kMiB), 16 * kMiB);  // never more than its own cap
  b.ChargeBuffers(40 * kMiB);
  EXPECT_EQ(b.CacheCapacity(256 * kMiB), 24 * kMiB - base);
  EXPECT_FALSE(b.BuffersOverLimit());
  b.ChargeBuffers(20 * kMiB);
  EXPECT_TRUE(b.BuffersOverLimit());
  EXPECT_EQ(b.CacheCapacity(256 * kMiB), 8 * kMiB);  // the floor
  EXPECT_LE(io::FileCache::Instance().used(), io::FileCache::Instance().Capacity());
  b.ChargeBuffers(-60 * kMiB);
  EXPECT_EQ(b.buffered(), base);
}

// Query operators charge what they hold (MemoryCharge): they share the buffers' part of the
// total with the writers, and the cache gives way to them as to buffers.
TEST(MemoryBudgetTest, OperatorsShareTheBuffersPartAndTheCacheGivesWay) {
  BudgetScope scope(64 * kMiB);
  MemoryBudget& b = MemoryBudget::Instance();
  const int64_t base_buffers = b.buffered(), base_operators = b.operators();
  const int64_t base = base_buffers + base_operators;
  constexpr int64_t kGiB = int64_t{1} << 30;
  {
    MemoryCharge charge;
    EXPECT_FALSE(charge.Over(3 * kMiB, kGiB));
    EXPECT_TRUE(charge.Over(10 * kMiB, 8 * kMiB));  // its own limit
    EXPECT_FALSE(charge.over_budget());
    EXPECT_FALSE(charge.Over(20 * kMiB, kGiB));
    EXPECT_EQ(b.operators(), base_operators + 20 * kMiB);
    EXPECT_EQ(b.CacheCapacity(256 * kMiB), 44 * kMiB - base);
    b.ChargeBuffers(40 * kMiB);  // buffers and operators: 60 MiB of their 56
    EXPECT_TRUE(b.BuffersOverLimit());
    EXPECT_EQ(b.CacheCapacity(256 * kMiB), 8 * kMiB);  // the floor
    EXPECT_TRUE(charge.Over(20 * kMiB, kGiB));
    EXPECT_TRUE(charge.over_budget());
    EXPECT_FALSE(charge.Over(4 * kMiB, kGiB));  // its minimum grant, whatever the budget
    charge.Set(30 * kMiB);
    b.ChargeBuffers(-40 * kMiB);
    EXPECT_EQ(b.CacheCapacity(256 * kMiB), 34 * kMiB - base);
  }
  EXPECT_EQ(b.operators(), base_operators);  // the charge went with its holder
  EXPECT_EQ(b.buffered(), base_buffers);
}

class MemoryBudgetWriteTest : public WarehouseTest {
 protected:
  // A table (p INT, id BIGINT, v BIGINT) keyed by (p, id), partitioned by p.
  std::unique_ptr<Table> CreatePartitioned(const std::string& name,
                                           std::map<std::string, std::string> options) {
    TableSpec spec;
    spec.columns = {{0, "p", DataType::Int().NotNull(), ""},
                    {1, "id", DataType::BigInt().NotNull(), ""},
                    {2, "v", DataType::BigInt(), ""}};
    spec.primary_keys = {"p", "id"};
    spec.partition_keys = {"p"};
    spec.options = std::move(options);
    EXPECT_TRUE(catalog_->CreateTable(Identifier{"default", name, ""}, spec, false).ok());
    auto t = catalog_->GetTable(Identifier{"default", name, ""});
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? std::move(*t) : nullptr;
  }
};

// A writer into a few partitions of a table of many reads only their live files, and so does
// its commit (issue 38): with nothing cached, writing one partition leaves the table's whole
// live-file list unread; rows still merge with the older ones, a long-lived writer's next commit
// into another partition too (which keeps the whole list from then on), and a writer into more
// partitions than it restores one at a time reads them all. Scans filtered on the partition column
// read the matching partitions alone.
TEST_F(MemoryBudgetWriteTest, AWriterIntoOnePartitionReadsThatPartitionAlone) {
  auto t = CreatePartitioned("parts", {{"bucket", "2"}});
  ASSERT_NE(t, nullptr);
  std::map<std::pair<int32_t, int64_t>, int64_t> want;
  auto write = [&](TableWriter& w, int32_t p, int64_t id, int64_t v) {
    ASSERT_TRUE(w.Write(RowKind::kInsert, {Value::Int(p), Value::Int(id), Value::Int(v)}).ok());
    want[{p, id}] = v;
  };
  {
    auto w = t->NewWriter({});
    ASSERT_TRUE(w.ok());
    for (int32_t p = 0; p < 40; p++) {
      for (int64_t id = 0; id < 4; id++) write(**w, p, id, 0);
    }
    ASSERT_TRUE((*w)->Commit().ok());
  }
  auto latest = [&] {
    auto snap = meta::SnapshotManager(t->path()).Latest();
    EXPECT_TRUE(snap.ok() && *snap);
    return *snap;
  };
  io::FileCache::Instance().EraseUnder(t->path());
  const auto before = latest();
  auto w = t->NewWriter({});
  ASSERT_TRUE(w.ok());
  write(**w, 5, 1, 1);
  ASSERT_TRUE((*w)->Commit().ok());
  EXPECT_FALSE(meta::LiveEntriesCached(t->path(), *before));
  EXPECT_FALSE(meta::LiveEntriesCached(t->path(), *latest()));
  write(**w, 6, 2, 2);  // a partition the writer had not read
  write(**w, 5, 1, 3);
  ASSERT_TRUE((*w)->Commit().ok());
  // A writer that commits again is long-lived: from its second commit on it keeps the whole
  // list, each commit applying its delta (reading only what it writes at every commit would
  // decode each new snapshot's manifests into the cache).
  EXPECT_TRUE(meta::LiveEntriesCached(t->path(), *latest()));
  auto wide = t->NewWriter({});
  ASSERT_TRUE(wide.ok());
  for (int32_t p = 0; p < 20; p++) write(**wide, p, 3, 10 + p);
  ASSERT_TRUE((*wide)->Commit().ok());
  std::map<std::pair<int32_t, int64_t>, int64_t> got;
  for (const Row& r : ReadAllRows(*t)) {
    got[{r[0].int_value(), r[1].int_value()}] = r[2].int_value();
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(got[std::make_pair(5, int64_t{1})], 3);  // the later of the writer's two commits
  // Scans filtered on the partition column read the matching partitions' files alone.
  for (const Predicate& filter :
       {Predicate{0, Predicate::Op::kEq, {Value::Int(5)}},
        Predicate{0, Predicate::Op::kGe, {Value::Int(37)}},
        Predicate{0, Predicate::Op::kIn, {Value::Int(6), Value::Int(19), Value::Int(99)}}}) {
    io::FileCache::Instance().EraseUnder(t->path());
    ScanOptions o;
    o.filters = {filter};
    std::map<std::pair<int32_t, int64_t>, int64_t> scanned, expected;
    for (const Row& r : ReadAllRows(*t, o)) {
      scanned[{r[0].int_value(), r[1].int_value()}] = r[2].int_value();
    }
    for (const auto& [key, v] : want) {
      if (EvalPredicate(filter, Value::Int(key.first))) expected[key] = v;
    }
    EXPECT_FALSE(expected.empty());
    EXPECT_EQ(scanned, expected);
    EXPECT_FALSE(meta::LiveEntriesCached(t->path(), *latest()));
  }
  ReadAllRows(*t);  // unfiltered: every partition's files, kept for the next read
  EXPECT_TRUE(meta::LiveEntriesCached(t->path(), *latest()));
}

// A writer's restore of a partition that fails (a snapshot or manifest unreadable for a
// moment, at each of the operations a restore makes) fails the write that needed it, and the
// writer goes on: the write made again builds on the partition's files (the rows read as
// written, numbered after the bucket's files). Both a new writer and a long-lived one restoring
// again after another process's commit.
TEST_F(MemoryBudgetWriteTest, AFailedRestoreOfAPartitionIsReadAgain) {
  auto t = CreatePartitioned("again", {{"bucket", "1"}});
  ASSERT_NE(t, nullptr);
  std::map<int64_t, int64_t> want;
  auto write = [&](TableWriter& w, int32_t p, int64_t v) {
    Status st = w.Write(RowKind::kInsert, {Value::Int(p), Value::Int(1), Value::Int(v)});
    if (st.ok()) want[p] = v;
    return st;
  };
  auto commit_other = [&](int64_t v) {  // another process, into partitions 0 and 2
    auto w = t->NewWriter({});
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(write(**w, 0, v).ok());
    ASSERT_TRUE(write(**w, 2, v).ok());
    ASSERT_TRUE((*w)->Commit().ok());
  };
  auto long_lived = t->NewWriter({});
  ASSERT_TRUE(long_lived.ok());
  ASSERT_TRUE(write(**long_lived, 1, 1).ok());
  ASSERT_TRUE((*long_lived)->Commit().ok());
  io::FaultInjectingFs faulty(&io::LocalFs());
  int failed = 0;
  for (int fresh = 0; fresh < 2; fresh++) {
    for (int64_t op = 0; op < 12; op++) {
      const std::string where = (fresh ? "a new writer" : "a long-lived writer") +
                                std::string(", fault at operation ") + std::to_string(op);
      commit_other(100 + op);  // the long-lived writer's restored snapshot is no longer the latest
      io::FileCache::Instance().EraseUnder(t->path());  // manifests read from the disk
      std::unique_ptr<TableWriter> made;
      if (fresh) {
        auto w = t->NewWriter({});
        ASSERT_TRUE(w.ok());
        made = std::move(*w);
      }
      TableWriter& w = fresh ? *made : **long_lived;
      const int64_t v = 10 * (fresh + 1) + op;
      faulty.Arm(op, io::FaultInjectingFs::Fault::kIoError);
      io::SetFileSystemForTesting(&faulty);
      Status first = write(w, 1, v);
      io::SetFileSystemForTesting(nullptr);
      if (!first.ok()) {
        failed++;
        ASSERT_TRUE(write(w, 1, v).ok()) << where;
      }
      ASSERT_TRUE(w.Commit().ok()) << where;
      std::map<int64_t, int64_t> got;
      for (const Row& r : ReadAllRows(*t)) got[r[0].int_value()] = r[2].int_value();
      ASSERT_EQ(got, want) << where << " (" << first.ToString() << ")";
      auto snap = meta::SnapshotManager(t->path()).Latest();
      ASSERT_TRUE(snap.ok() && *snap);
      auto live = meta::ReadLiveEntriesShared(t->path(), **snap);
      ASSERT_TRUE(live.ok());
      std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> ranges;  // by partition
      for (const meta::ManifestEntry& e : **live) {
        ranges[e.partition].emplace_back(e.file.min_sequence_number, e.file.max_sequence_number);
      }
      for (auto& [partition, r] : ranges) {
        std::sort(r.begin(), r.end());
        for (size_t i = 1; i < r.size(); i++) {
          ASSERT_GT(r[i].first, r[i - 1].second)
              << where << ": files of one bucket with overlapping sequence numbers";
        }
      }
    }
  }
  EXPECT_GT(failed, 0);
}

// A long-lived writer whose restored snapshot expired (another process committed and expired
// it, removing its manifest lists) restores the latest snapshot when it first writes another
// partition, instead of failing on the removed file.
TEST_F(MemoryBudgetWriteTest, AWriterWhoseRestoredSnapshotExpiredRestoresTheLatest) {
  auto t = CreatePartitioned(
      "expired",
      {{"bucket", "1"}, {"snapshot.num-retained.min", "1"}, {"snapshot.num-retained.max", "1"}});
  ASSERT_NE(t, nullptr);
  auto write = [&](TableWriter& w, int32_t p, int64_t v) {
    return w.Write(RowKind::kInsert, {Value::Int(p), Value::Int(1), Value::Int(v)});
  };
  {
    auto w = t->NewWriter({});
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(write(**w, 0, 1).ok());
    ASSERT_TRUE((*w)->Commit().ok());
  }
  auto slow = t->NewWriter({});
  ASSERT_TRUE(slow.ok());
  ASSERT_TRUE(write(**slow, 0, 2).ok());  // restores snapshot 1 (partition 0)
  for (int64_t v = 3; v < 6; v++) {       // another process: snapshots 2..4, 1..3 expired
    auto other = t->NewWriter({});
    ASSERT_TRUE(other.ok());
    ASSERT_TRUE(write(**other, 1, v).ok());
    ASSERT_TRUE((*other)->Commit().ok());
  }
  io::FileCache::Instance().EraseUnder(t->path());
  Status st = write(**slow, 2, 7);  // a partition snapshot 1 is read for: its lists are gone
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_TRUE((*slow)->Commit().ok());
  std::map<int64_t, int64_t> got;
  for (const Row& r : ReadAllRows(*t)) got[r[0].int_value()] = r[2].int_value();
  EXPECT_EQ(got, (std::map<int64_t, int64_t>{{0, 2}, {1, 5}, {2, 7}}));
}

// A long-lived writer over partitions written one after another (hourly, daily) keeps open the
// buckets its last commit wrote, not every one it ever wrote (issue 38, as Paimon's writers
// close one whose last change is committed); a closed bucket written again reopens on its files
// (a later write still wins); and 'max.partition.num' still refuses the partition past it.
TEST_F(MemoryBudgetWriteTest, AWriterClosesTheBucketsItNoLongerWrites) {
  auto t = CreatePartitioned("hours", {{"bucket", "2"}, {"max.partition.num", "30"}});
  ASSERT_NE(t, nullptr);
  WriteOptions wo;
  wo.async_compaction = true;
  auto w = t->NewWriter(wo);
  ASSERT_TRUE(w.ok());
  auto* writer = dynamic_cast<write::FileStoreWriter*>(w->get());
  ASSERT_NE(writer, nullptr);
  std::map<std::pair<int32_t, int64_t>, int64_t> want;
  auto write = [&](int32_t p, int64_t id, int64_t v) {
    Status st = (*w)->Write(RowKind::kInsert, {Value::Int(p), Value::Int(id), Value::Int(v)});
    if (st.ok()) want[{p, id}] = v;
    return st;
  };
  for (int32_t p = 0; p < 30; p++) {
    for (int64_t id = 0; id < 4; id++) ASSERT_TRUE(write(p, id, p).ok());
    ASSERT_TRUE((*w)->Commit().ok());
    EXPECT_LE(writer->open_buckets(), 2u) << "after the commit of partition " << p;
  }
  ASSERT_TRUE(write(3, 1, 100).ok());  // a closed partition, written again
  ASSERT_TRUE((*w)->Commit().ok());
  ASSERT_TRUE(write(3, 1, 101).ok());
  ASSERT_TRUE((*w)->Commit().ok());
  Status refused = write(30, 0, 0);
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.ToString().find("'max.partition.num' = 30"), std::string::npos)
      << refused.ToString();
  std::map<std::pair<int32_t, int64_t>, int64_t> got;
  for (const Row& r : ReadAllRows(*t)) {
    got[{r[0].int_value(), r[1].int_value()}] = r[2].int_value();
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(got[std::make_pair(3, int64_t{1})], 101);
}

// A writer's partition counts carried over its own commits miss a partition another process
// adds meanwhile (ALTER TABLE ... ADD PARTITION writes no snapshot): it counts again before it
// refuses a row for it, and near 'max.partition.num' before each new partition.
TEST_F(MemoryBudgetWriteTest, APartitionAddedMeanwhileIsCountedBeforeARefusal) {
  auto t = CreatePartitioned(
      "added", {{"bucket", "1"}, {"client.writer.dynamic-create-partition.enabled", "false"}});
  ASSERT_NE(t, nullptr);
  ASSERT_TRUE(meta::MarkPartition(t->path(), "p=0").ok());
  auto w = t->NewWriter({});
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Write(RowKind::kInsert, {Value::Int(0), Value::Int(1), Value::Int(1)}).ok());
  ASSERT_TRUE((*w)->Commit().ok());
  EXPECT_FALSE((*w)->Write(RowKind::kInsert, {Value::Int(5), Value::Int(1), Value::Int(1)}).ok());
  ASSERT_TRUE((*w)->Commit().ok());                         // (nothing to commit)
  ASSERT_TRUE(meta::MarkPartition(t->path(), "p=5").ok());  // "another process"
  Status st = (*w)->Write(RowKind::kInsert, {Value::Int(5), Value::Int(1), Value::Int(1)});
  EXPECT_TRUE(st.ok()) << st.ToString();
  ASSERT_TRUE((*w)->Commit().ok());
  EXPECT_EQ(ReadAllRows(*t).size(), 2u);
  // Near 'max.partition.num' the partitions marked meanwhile count: 3 written + 2 marked = 5.
  ASSERT_TRUE(catalog_
                  ->AlterTableOptions(Identifier{"default", "added", ""},
                                      {{"max.partition.num", "5"},
                                       {"client.writer.dynamic-create-partition.enabled", "true"}},
                                      {})
                  .ok());
  auto again = catalog_->GetTable(Identifier{"default", "added", ""});
  ASSERT_TRUE(again.ok());
  auto w2 = (*again)->NewWriter({});
  ASSERT_TRUE(w2.ok());
  ASSERT_TRUE((*w2)->Write(RowKind::kInsert, {Value::Int(1), Value::Int(2), Value::Int(2)}).ok());
  ASSERT_TRUE((*w2)->Commit().ok());  // counted: 3 partitions, carried over this commit
  for (const char* p : {"p=7", "p=8"}) ASSERT_TRUE(meta::MarkPartition(t->path(), p).ok());
  Status refused = (*w2)->Write(RowKind::kInsert, {Value::Int(6), Value::Int(1), Value::Int(1)});
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.ToString().find("would give the table 6 partitions"), std::string::npos)
      << refused.ToString();
}

// A file of more than 512Ki rows read as rows (TableScan::Next, no batch bound) is read a slice
// at a time, as column scans read it, not whole as rows: batches of at most 65,536 rows, every
// row once.
TEST_F(MemoryBudgetWriteTest, LargeFilesReadAsRowsComeInSlices) {
  TableSpec spec;
  spec.columns = {{0, "id", DataType::BigInt().NotNull(), ""}, {1, "v", DataType::String(), ""}};
  spec.options = {{"bucket", "-1"}};
  ASSERT_TRUE(catalog_->CreateTable(Identifier{"default", "big", ""}, spec, false).ok());
  auto t = catalog_->GetTable(Identifier{"default", "big", ""});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  constexpr int64_t kRows = 600000;
  auto w = (*t)->NewWriter({});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (int64_t i = 0; i < kRows; i++) {
    ASSERT_TRUE((*w)->Write(RowKind::kInsert, {Value::Int(i), Value::String("x")}).ok());
  }
  ASSERT_TRUE((*w)->Commit().ok());
  auto scan = (*t)->NewScan({});
  ASSERT_TRUE(scan.ok()) << scan.status().ToString();
  int64_t rows = 0, sum = 0;
  size_t largest = 0;
  RowBatch batch;
  while (true) {
    auto more = (*scan)->Next(&batch);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!*more) break;
    largest = std::max(largest, batch.rows.size());
    rows += static_cast<int64_t>(batch.rows.size());
    for (const Row& r : batch.rows) sum += r[0].int_value();
  }
  EXPECT_EQ(rows, kRows);
  EXPECT_EQ(sum, kRows * (kRows - 1) / 2);
  EXPECT_LE(largest, 65536u);
}

// A buffer flushes before a record whose vectors would double past 'write-buffer-size', not
// right after it: the buffers never hold more than the limit (and the charging step), where a
// doubling took them up to half as much again (the doubled memory flushed unused). An append
// table and a primary-key table, each over several flushes, every row committed.
TEST_F(MemoryBudgetWriteTest, BuffersFlushBeforeADoublingPastTheirWriteBufferSize) {
  MemoryBudget& budget = MemoryBudget::Instance();
  const std::string payload(40, 'p');
  for (const bool primary_key : {false, true}) {
    SCOPED_TRACE(primary_key ? "primary key" : "append");
    TableSpec spec;
    spec.columns = {{0, "id", DataType::BigInt().NotNull(), ""},
                    {1, "v", DataType::String(), ""},
                    {2, "d", DataType::Double(), ""}};
    if (primary_key) spec.primary_keys = {"id"};
    spec.options = {{"bucket", primary_key ? "1" : "-1"}, {"write-buffer-size", "4 mb"}};
    const std::string name = primary_key ? "pk" : "append";
    ASSERT_TRUE(catalog_->CreateTable(Identifier{"default", name, ""}, spec, false).ok());
    auto t = catalog_->GetTable(Identifier{"default", name, ""});
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    auto w = (*t)->NewWriter({});
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    const int64_t base = budget.buffered();
    budget.ResetBufferedPeak();
    const int64_t rows = 300000;  // about 20 MiB of buffered records: several flushes
    for (int64_t i = 0; i < rows; i++) {
      ASSERT_TRUE(
          (*w)->Write(RowKind::kInsert, {Value::Int(i), Value::String(payload), Value::Double(1.5)})
              .ok());
    }
    EXPECT_LE(budget.buffered_peak() - base, 4 * kMiB + (64 << 10) + 1024);
    EXPECT_GT(budget.buffered_peak() - base, 2 * kMiB);  // the buffer did fill up
    auto c = (*w)->Commit();
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_EQ(budget.buffered(), base);
    auto count = (*t)->CountFromMetadata(std::nullopt);
    ASSERT_TRUE(count.ok()) << count.status().ToString();
    ASSERT_TRUE(count->has_value());
    EXPECT_EQ(**count, rows);
  }
}

// Two writers, each allowed 256 MiB by 'write-buffer-size', in a process whose budget leaves
// their buffers 8 MiB together: they flush as they go, the buffers stay within the budget, and
// every row is committed.
TEST_F(MemoryBudgetWriteTest, WritersOfSeveralTablesStayWithinTheProcessBudget) {
  BudgetScope scope(16 * kMiB);
  MemoryBudget& budget = MemoryBudget::Instance();
  const int64_t base = budget.buffered();
  std::vector<std::unique_ptr<Table>> tables;
  std::vector<std::unique_ptr<TableWriter>> writers;
  for (const char* name : {"a", "b"}) {
    TableSpec spec;
    spec.columns = {{0, "id", DataType::BigInt().NotNull(), ""}, {1, "v", DataType::String(), ""}};
    spec.primary_keys = {"id"};
    spec.options = {{"bucket", "2"}, {"write-buffer-size", "256 mb"}};
    ASSERT_TRUE(catalog_->CreateTable(Identifier{"default", name, ""}, spec, false).ok());
    auto t = catalog_->GetTable(Identifier{"default", name, ""});
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    auto w = (*t)->NewWriter({});
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    tables.push_back(std::move(*t));
    writers.push_back(std::move(*w));
  }
  const std::string payload(1000, 'x');
  const int64_t rows = 12000;  // about 12 MiB a table, 24 MiB in all
  int64_t most = 0;
  for (int64_t i = 0; i < rows; i++) {
    for (auto& w : writers) {
      ASSERT_TRUE(w->Write(RowKind::kInsert, {Value::Int(i), Value::String(payload)}).ok());
    }
    most = std::max(most, budget.buffered() - base);
  }
  // Over the limit by at most what a writer adds before it charges and flushes: its 64 KiB
  // charging step and one row, for each writer.
  EXPECT_LE(most, budget.buffer_limit() + 2 * (64 << 10) + 2 * 2048);
  EXPECT_GT(most, 4 * kMiB);  // the buffers did fill up to near the limit
  for (auto& w : writers) {
    auto c = w->Commit();
    ASSERT_TRUE(c.ok()) << c.status().ToString();
  }
  EXPECT_EQ(budget.buffered(), base);
  for (auto& t : tables) {
    auto count = t->CountFromMetadata(std::nullopt);
    ASSERT_TRUE(count.ok()) << count.status().ToString();
    int64_t n = 0;
    auto scan = t->NewScan({});
    ASSERT_TRUE(scan.ok());
    RowBatch batch;
    while (true) {
      auto more = (*scan)->Next(&batch);
      ASSERT_TRUE(more.ok()) << more.status().ToString();
      if (!*more) break;
      n += static_cast<int64_t>(batch.rows.size());
    }
    EXPECT_EQ(n, rows);
  }
  writers.clear();
  EXPECT_EQ(budget.buffered(), base);
}

// A small 'write-buffer-size': a buffer flushed because the writer reached it gives its memory
// back, so the next record does not find the buffer full again (before, the capacity kept
// across the flush counted as full and every following record was flushed to a file of its
// own: 100,000 rows made 50,000 files).
TEST_F(MemoryBudgetWriteTest, ASmallWriteBufferFlushesFilesOfItsSize) {
  TableSpec spec;
  spec.columns = {{0, "id", DataType::BigInt().NotNull(), ""}, {1, "v", DataType::String(), ""}};
  spec.primary_keys = {"id"};
  spec.options = {{"bucket", "2"}, {"write-buffer-size", "1 mb"}};
  ASSERT_TRUE(catalog_->CreateTable(Identifier{"default", "small", ""}, spec, false).ok());
  auto t = catalog_->GetTable(Identifier{"default", "small", ""});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  auto w = (*t)->NewWriter({});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const std::string payload(40, 'x');
  for (int64_t i = 0; i < 100000; i++) {
    ASSERT_TRUE((*w)->Write(RowKind::kInsert, {Value::Int(i), Value::String(payload)}).ok());
  }
  // About 6 MiB of records flushed a MiB at a time: a handful of level-0 files per bucket
  // before the commit's compaction.
  int64_t flushed = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator((*t)->path())) {
    flushed += entry.path().filename().string().rfind("data-", 0) == 0;
  }
  EXPECT_GT(flushed, 2);
  EXPECT_LT(flushed, 40);
  auto c = (*w)->Commit();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto scan = (*t)->NewScan({});
  ASSERT_TRUE(scan.ok());
  ColumnBatch batch;
  size_t n = 0;
  while (true) {
    auto more = (*scan)->NextColumns(&batch);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!*more) break;
    n += batch.num_rows;
  }
  EXPECT_EQ(n, 100000u);
}

// Point lookups by an integer primary key in files too large to decode whole into the file cache
// (more than an eighth of it, at 64 bytes a record: here a 16 MiB process, a cache of 8 MiB,
// files of 100,000 rows) read the pages the key column's page index points at and decode only
// the rows found: the same rows as a lookup through whole decoded files, retractions and
// updates across files included, by a filtered scan and by TableLookup, and the cache holds
// next to nothing of the files afterwards.
TEST_F(MemoryBudgetWriteTest, PointLookupsInFilesLargerThanTheCacheReadPagesOfThem) {
  TableSpec spec;
  spec.columns = {{0, "id", DataType::BigInt().NotNull(), ""}, {1, "v", DataType::String(), ""}};
  spec.primary_keys = {"id"};
  spec.options = {{"bucket", "1"}};
  ASSERT_TRUE(catalog_->CreateTable(Identifier{"default", "big", ""}, spec, false).ok());
  auto t = catalog_->GetTable(Identifier{"default", "big", ""});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  std::map<int64_t, std::string> model;
  for (int round = 0; round < 2; round++) {  // two level-0 files: the second updates and deletes
    auto w = (*t)->NewWriter({});
    ASSERT_TRUE(w.ok());
    for (int64_t i = 0; i < 100000; i++) {
      const int64_t id = round == 0 ? i : i * 3;
      if (round == 1 && i % 7 == 0) {
        ASSERT_TRUE((*w)->Write(RowKind::kDelete, {Value::Int(id), Value::Null()}).ok());
        model.erase(id);
        continue;
      }
      const std::string v = "r" + std::to_string(round) + "-" + std::to_string(id);
      ASSERT_TRUE((*w)->Write(RowKind::kInsert, {Value::Int(id), Value::String(v)}).ok());
      model[id] = v;
    }
    ASSERT_TRUE((*w)->Commit().ok());
  }
  auto lookup = [&](int64_t id) -> std::string {
    ScanOptions o;
    o.filters.push_back({0, Predicate::Op::kEq, {Value::Int(id)}});
    auto scan = (*t)->NewScan(o);
    EXPECT_TRUE(scan.ok());
    RowBatch batch;
    std::string out = "(none)";
    while (true) {
      auto more = (*scan)->Next(&batch);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) break;
      for (const Row& r : batch.rows) out = r[1].string_value();
    }
    return out;
  };
  // Keys on page boundaries (20,000 rows a page) among them.
  const std::vector<int64_t> ids = {0,      1,      3,     7,     21,    42,     99999, 100002,
                                    299997, 150000, 5,     -1,    19999, 20000,  59997, 60000,
                                    60003,  80000,  79999, 39999, 40002, 299999, 300000};
  for (const bool small : {false, true}) {
    BudgetScope scope(small ? 16 * kMiB : 512 * kMiB);
    // Empty (what earlier tests of the process left counts as used too).
    io::FileCache::Instance().EraseUnder("/");
    auto table_lookup = (*t)->NewLookup();
    ASSERT_TRUE(table_lookup.ok()) << table_lookup.status().ToString();
    for (int64_t id : ids) {
      auto it = model.find(id);
      const std::string want = it == model.end() ? "(none)" : it->second;
      EXPECT_EQ(lookup(id), want) << "id " << id << (small ? " (pages)" : " (whole files)");
      auto got = (*table_lookup)->Get({Value::Int(id)});
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(*got ? (**got)[1].string_value() : "(none)", want)
          << "TableLookup, id " << id << (small ? " (pages)" : " (whole files)");
    }
    if (small) {
      // Footers and page bounds only: a file's key column alone would be 800 KB.
      EXPECT_LT(io::FileCache::Instance().used(), 400 * 1024);
    }
  }
}

// The same for keys that are not one integer column: a string key, and a key of a string and an
// integer (the page bounds of its first column pick the pages; the whole key is compared in
// them). Lookups through the page index give what lookups through whole files give.
TEST_F(MemoryBudgetWriteTest, PointLookupsByStringAndCompositeKeysReadPagesToo) {
  for (const bool composite : {false, true}) {
    SCOPED_TRACE(composite ? "key (name, n)" : "key (name)");
    TableSpec spec;
    spec.columns = {{0, "name", DataType::String().NotNull(), ""},
                    {1, "n", DataType::BigInt().NotNull(), ""},
                    {2, "v", DataType::String(), ""}};
    spec.primary_keys =
        composite ? std::vector<std::string>{"name", "n"} : std::vector<std::string>{"name"};
    spec.options = {{"bucket", "1"}};
    const std::string table = composite ? "composite" : "strings";
    ASSERT_TRUE(catalog_->CreateTable(Identifier{"default", table, ""}, spec, false).ok());
    auto t = catalog_->GetTable(Identifier{"default", table, ""});
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    // name: 'k' + a zero-padded number (in key order), n: 1 or 2 (composite keys share names).
    auto name_of = [](int64_t i) {
      std::string digits = std::to_string(i);
      return "k" + std::string(7 - digits.size(), '0') + digits;
    };
    std::map<std::pair<std::string, int64_t>, std::string> model;
    for (int round = 0; round < 2; round++) {
      auto w = (*t)->NewWriter({});
      ASSERT_TRUE(w.ok());
      for (int64_t i = 0; i < 100000; i++) {
        const int64_t id = round == 0 ? i : i * 3;
        const std::string name = name_of(id / (composite ? 2 : 1));
        const int64_t n = composite ? 1 + id % 2 : 1;
        if (round == 1 && i % 7 == 0) {
          ASSERT_TRUE(
              (*w)->Write(RowKind::kDelete, {Value::String(name), Value::Int(n), Value::Null()})
                  .ok());
          model.erase({name, n});
          continue;
        }
        const std::string v = "r" + std::to_string(round) + "-" + std::to_string(id);
        ASSERT_TRUE(
            (*w)->Write(RowKind::kInsert, {Value::String(name), Value::Int(n), Value::String(v)})
                .ok());
        model[{name, n}] = v;
      }
      ASSERT_TRUE((*w)->Commit().ok());
    }
    std::vector<std::pair<std::string, int64_t>> keys;
    for (int64_t id :
         {0, 1, 3, 7, 42, 99999, 100002, 19999, 20000, 40001, 150000, 299997, -5, 300001}) {
      keys.push_back({id < 0 ? "a" : name_of(id / (composite ? 2 : 1)), 1});
      if (composite) keys.push_back({name_of(id < 0 ? 0 : id / 2), 2});
    }
    keys.push_back({"zzz", 1});
    for (const bool small : {false, true}) {
      BudgetScope scope(small ? 16 * kMiB : 512 * kMiB);
      io::FileCache::Instance().EraseUnder("/");
      auto lookup = (*t)->NewLookup();
      ASSERT_TRUE(lookup.ok()) << lookup.status().ToString();
      for (const auto& [name, n] : keys) {
        auto it = model.find({name, n});
        const std::string want = it == model.end() ? "(none)" : it->second;
        Row key = {Value::String(name)};
        if (composite) key.push_back(Value::Int(n));
        auto got = (*lookup)->Get(key);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        EXPECT_EQ(*got ? (**got)[2].string_value() : "(none)", want)
            << name << "/" << n << (small ? " (pages)" : " (whole files)");
      }
      if (small) {
        EXPECT_LT(io::FileCache::Instance().used(), 600 * 1024);
      }
    }
  }
}

// What TableLookup holds stays within the budget: the files it decoded are the file cache's (a
// file the cache drops is read back through it on the next lookup, never kept aside), and a
// file too large for the cache that must be searched whole (a DOUBLE key: no page search) is
// held by the lookup but charged to the process's budget while it is.
TEST_F(MemoryBudgetWriteTest, WhatTableLookupHoldsIsTheCachesOrCharged) {
  // Values that do not compress to nothing: the DOUBLE table's file is about 2 MB.
  auto V = [](int64_t i) {
    return "v" + std::to_string(i) + "-" + std::to_string(i * 2654435761 % 1000000007);
  };
  auto make = [&](const std::string& name, const DataType& key_type, int64_t rows) {
    TableSpec spec;
    spec.columns = {{0, "id", key_type.NotNull(), ""}, {1, "v", DataType::String(), ""}};
    spec.primary_keys = {"id"};
    spec.options = {{"bucket", "1"}};
    EXPECT_TRUE(catalog_->CreateTable(Identifier{"default", name, ""}, spec, false).ok());
    auto t = catalog_->GetTable(Identifier{"default", name, ""});
    EXPECT_TRUE(t.ok());
    auto w = (*t)->NewWriter({});
    EXPECT_TRUE(w.ok());
    for (int64_t i = 0; i < rows; i++) {
      const Value key = key_type.IsInteger() ? Value::Int(i) : Value::Double(i * 0.5);
      EXPECT_TRUE((*w)->Write(RowKind::kInsert, {key, Value::String(V(i))}).ok());
    }
    EXPECT_TRUE((*w)->Commit().ok());
    return std::move(*t);
  };
  auto ints = make("ints", DataType::BigInt(), 100000);
  auto doubles = make("doubles", DataType::Double(), 300000);
  io::FileCache& cache = io::FileCache::Instance();
  {
    cache.EraseUnder("/");
    auto lookup = ints->NewLookup();
    ASSERT_TRUE(lookup.ok());
    auto got = (*lookup)->Get({Value::Int(4242)});
    ASSERT_TRUE(got.ok() && *got) << got.status().ToString();
    EXPECT_EQ((**got)[1].string_value(), V(4242));
    const int64_t loaded = cache.used();
    EXPECT_GT(loaded, 1 << 20);  // the file, packed
    cache.EraseUnder("/");
    EXPECT_LT(cache.used(), loaded / 10);
    got = (*lookup)->Get({Value::Int(99999)});
    ASSERT_TRUE(got.ok() && *got) << got.status().ToString();
    EXPECT_EQ((**got)[1].string_value(), V(99999));
    EXPECT_GT(cache.used(), loaded / 2) << "the lookup kept the file it decoded";
  }
  {
    BudgetScope scope(16 * kMiB);  // a cache of 8 MiB: the decoded file does not fit
    cache.EraseUnder("/");
    MemoryBudget& budget = MemoryBudget::Instance();
    const int64_t before = budget.operators();
    auto lookup = doubles->NewLookup();
    ASSERT_TRUE(lookup.ok());
    for (int64_t i : {0, 77777, 299999, 300001}) {
      auto got = (*lookup)->Get({Value::Double(i * 0.5)});
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      if (i >= 300000) {
        EXPECT_FALSE(*got);
        continue;
      }
      ASSERT_TRUE(*got) << i;
      EXPECT_EQ((**got)[1].string_value(), V(i));
    }
    EXPECT_LT(cache.used(), 1 << 20);
    EXPECT_GT(budget.operators() - before, 8 * kMiB) << "held outside the budget";
    lookup->reset();
    EXPECT_EQ(budget.operators(), before);
  }
}

}  // namespace
}  // namespace tributary
