// 'sort-spill-threshold' (issue 38, docs/memory.md): a read or a compaction of a bucket merging
// more sorted runs than the threshold merges the smallest consecutive runs through a spill file
// first. What a user notices: the rows are those the same merge gives without spilling, for
// every merge engine, through row and column scans and through a full compaction; spill files
// are made only past the threshold; a threshold under 2 is refused.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/memory_budget.h"
#include "datafile/spill_file.h"
#include "table/warehouse_test_base.h"
#include "tributary/maintenance.h"
#include "tributary/table_scan.h"
#include "tributary/table_writer.h"

namespace tributary {
namespace {

std::string RowToString(const Row& row) {
  std::string s = "[";
  for (size_t i = 0; i < row.size(); i++) s += (i ? ", " : "") + DebugString(row[i]);
  return s + "]";
}

class SortSpillTest : public WarehouseTest {
 protected:
  std::unique_ptr<Table> Create(const std::string& name,
                                std::map<std::string, std::string> options) {
    TableSpec spec;
    spec.columns = {{0, "id", DataType::BigInt().NotNull(), ""},
                    {1, "v", DataType::String(), ""},
                    {2, "n", DataType::BigInt(), ""},
                    {3, "ts", DataType::BigInt(), ""}};
    spec.primary_keys = {"id"};
    spec.options = std::move(options);
    spec.options["bucket"] = "2";
    spec.options["write-only"] = "true";  // every commit's files stay level-0 runs
    Status st = catalog_->CreateTable(Identifier{"default", name, ""}, spec, false);
    EXPECT_TRUE(st.ok()) << st.ToString();
    auto t = catalog_->GetTable(Identifier{"default", name, ""});
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? std::move(*t) : nullptr;
  }

  // `commits` commits of `per` random records each (a level-0 run per bucket per commit).
  static void WriteRuns(Table& t, int commits, int per, bool deletes, uint64_t seed,
                        uint64_t keys = 400) {
    std::mt19937_64 rng(seed);
    for (int c = 0; c < commits; c++) {
      auto w = t.NewWriter({});
      ASSERT_TRUE(w.ok()) << w.status().ToString();
      for (int i = 0; i < per; i++) {
        const int64_t id = static_cast<int64_t>(rng() % keys);
        const RowKind kind = deletes && rng() % 8 == 0 ? RowKind::kDelete : RowKind::kInsert;
        Row row{Value::Int(id),
                rng() % 5 == 0 ? Value::Null() : Value::String("v" + std::to_string(rng() % 1000)),
                Value::Int(static_cast<int64_t>(rng() % 100)),
                Value::Int(static_cast<int64_t>(rng() % 30))};
        Status st = (*w)->Write(kind, row);
        ASSERT_TRUE(st.ok()) << st.ToString();
      }
      auto done = (*w)->Commit();
      ASSERT_TRUE(done.ok()) << done.status().ToString();
    }
  }

  // The table's rows, sorted, by Next (rows) or NextColumns (column batches).
  static std::vector<std::string> Rows(Table& t, bool columns) {
    std::vector<std::string> out;
    auto scan = t.NewScan({});
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    if (!scan.ok()) return out;
    while (true) {
      if (columns) {
        ColumnBatch b;
        auto more = (*scan)->NextColumns(&b);
        EXPECT_TRUE(more.ok()) << more.status().ToString();
        if (!more.ok() || !*more) break;
        for (size_t r = 0; r < b.num_rows; r++) {
          Row row;
          for (const auto& c : b.columns) row.push_back(c.Get(r));
          out.push_back(RowToString(row));
        }
      } else {
        RowBatch b;
        auto more = (*scan)->Next(&b);
        EXPECT_TRUE(more.ok()) << more.status().ToString();
        if (!more.ok() || !*more) break;
        for (const Row& r : b.rows) out.push_back(RowToString(r));
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }
};

// 70 level-0 runs per bucket (more than 8 x 8: the spilled runs are merged again) read with a
// threshold of 3 give the rows the same runs give unspilled (a threshold above their count),
// through both scans and after a full compaction, and only the spilling table makes spill files.
TEST_F(SortSpillTest, SpilledMergesEqualMergesInMemory) {
  for (const EngineCase& e : Engines()) {
    SCOPED_TRACE(e.name);
    auto low = e.options;
    low["sort-spill-threshold"] = "3";
    auto high = e.options;
    high["sort-spill-threshold"] = "1000";
    auto spilling = Create(std::string("s_") + e.name, low);
    auto reference = Create(std::string("r_") + e.name, high);
    ASSERT_TRUE(spilling && reference);
    WriteRuns(*spilling, 70, 60, e.deletes, 7);
    WriteRuns(*reference, 70, 60, e.deletes, 7);

    int64_t files = datafile::SpillFilesTotal();
    const auto want = Rows(*reference, false);
    EXPECT_EQ(datafile::SpillFilesTotal(), files) << "the reference merge spilled";
    EXPECT_FALSE(want.empty());
    files = datafile::SpillFilesTotal();
    EXPECT_EQ(Rows(*spilling, false), want);
    EXPECT_GT(datafile::SpillFilesTotal(), files) << "the merge of 70 runs did not spill";
    files = datafile::SpillFilesTotal();
    EXPECT_EQ(Rows(*spilling, true), want);
    EXPECT_GT(datafile::SpillFilesTotal(), files) << "the column scan did not spill";
    EXPECT_EQ(Rows(*reference, true), want);

    // A full compaction merges the 70 runs of each bucket: through a spill file past the
    // threshold, into the same rows.
    files = datafile::SpillFilesTotal();
    auto compacted = Compact(*spilling);
    ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
    EXPECT_GT(datafile::SpillFilesTotal(), files) << "the compaction did not spill";
    ASSERT_TRUE(Compact(*reference).ok());
    EXPECT_EQ(Rows(*spilling, false), want);
    EXPECT_EQ(Rows(*reference, false), want);
  }
}

// Runs above level 0 (a full compaction's) under level-0 runs of thousands of records each: the
// window spills runs of several segments (4,096 records each), a level counts as one run, and
// reads and a compaction of every engine (and of a table whose compaction looks keys up below,
// 'changelog-producer' = 'lookup') give what the merge in memory gives.
TEST_F(SortSpillTest, MixedLevelsAndRunsOfManySegments) {
  std::vector<EngineCase> cases = Engines();
  cases.push_back({"lookup", {{"changelog-producer", "lookup"}}, true});
  for (const EngineCase& e : cases) {
    SCOPED_TRACE(e.name);
    auto low = e.options;
    low["sort-spill-threshold"] = "3";
    auto high = e.options;
    high["sort-spill-threshold"] = "1000";
    auto spilling = Create(std::string("ms_") + e.name, low);
    auto reference = Create(std::string("mr_") + e.name, high);
    ASSERT_TRUE(spilling && reference);
    for (Table* t : {spilling.get(), reference.get()}) {
      WriteRuns(*t, 3, 6000, e.deletes, 21, 50000);
      auto compacted = Compact(*t);  // one run at the top level
      ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
      WriteRuns(*t, 6, 6000, e.deletes, 22, 50000);  // level-0 runs of about 5,700 records
    }
    const auto want = Rows(*reference, false);
    int64_t files = datafile::SpillFilesTotal();
    EXPECT_EQ(Rows(*spilling, false), want);
    EXPECT_EQ(Rows(*spilling, true), want);
    EXPECT_GT(datafile::SpillFilesTotal(), files) << "7 runs did not spill at a threshold of 3";
    for (Table* t : {spilling.get(), reference.get()}) {
      auto compacted = Compact(*t);
      ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
    }
    EXPECT_EQ(Rows(*spilling, false), want);
    EXPECT_EQ(Rows(*reference, false), want);
  }
}

// 'sort-spill-buffer-size' bounds the segments a spilling merge holds: with '64 kb' each is cut
// at 6.4 KB of records (about 50 of these), so the same merge writes many more, smaller
// segments than at the default 64 mb (4,096 records each) and gives the same rows; a size
// under 1 kb is refused.
TEST_F(SortSpillTest, SpillBufferSizeCutsTheSegments) {
  auto small =
      Create("small_buf", {{"sort-spill-threshold", "3"}, {"sort-spill-buffer-size", "64 kb"}});
  auto large = Create("large_buf", {{"sort-spill-threshold", "3"}});
  ASSERT_TRUE(small && large);
  WriteRuns(*small, 12, 3000, true, 5, 20000);
  WriteRuns(*large, 12, 3000, true, 5, 20000);
  int64_t before = datafile::SpillSegmentsTotal();
  const auto want = Rows(*large, false);
  const int64_t large_segments = datafile::SpillSegmentsTotal() - before;
  before = datafile::SpillSegmentsTotal();
  EXPECT_EQ(Rows(*small, false), want);
  const int64_t small_segments = datafile::SpillSegmentsTotal() - before;
  EXPECT_GT(large_segments, 0);
  EXPECT_GT(small_segments, 10 * large_segments);
  before = datafile::SpillSegmentsTotal();
  ASSERT_TRUE(Compact(*small).ok());
  EXPECT_GT(datafile::SpillSegmentsTotal() - before, 10 * large_segments);
  EXPECT_EQ(Rows(*small, true), want);

  TableSpec spec;
  spec.columns = {{0, "id", DataType::BigInt().NotNull(), ""}};
  spec.primary_keys = {"id"};
  spec.options = {{"bucket", "1"}, {"sort-spill-buffer-size", "100 b"}};
  Status st = catalog_->CreateTable(Identifier{"default", "tiny_buf", ""}, spec, false);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("sort-spill-buffer-size"), std::string::npos) << st.ToString();
}

// Unset, the threshold is Paimon's, 'num-sorted-run.stop-trigger' + 1 (8 + 1), for merges of
// more rows than a sixteenth of the memory budget holds at 64 bytes a row: 9 runs merge in
// memory, 10 spill; 10 runs of fewer rows merge in memory.
TEST_F(SortSpillTest, DefaultThresholdIsTheStopTriggerPlusOneForLargeMerges) {
  // Reads under a 1 MiB budget: merges of more than 1,024 rows (writes under the usual one).
  const int64_t total = MemoryBudget::Instance().total();
  auto read = [total](Table& t, bool columns) {
    MemoryBudget::Instance().SetTotalForTesting(1 << 20);
    auto rows = Rows(t, columns);
    MemoryBudget::Instance().SetTotalForTesting(total);
    return rows;
  };
  auto t = Create("d", {});
  ASSERT_TRUE(t);
  WriteRuns(*t, 9, 600, true, 3);  // about 200 rows a bucket a run
  int64_t files = datafile::SpillFilesTotal();
  read(*t, true);
  EXPECT_EQ(datafile::SpillFilesTotal(), files) << "9 runs spilled";
  WriteRuns(*t, 1, 600, true, 4);
  files = datafile::SpillFilesTotal();
  const auto ten = read(*t, true);
  EXPECT_GT(datafile::SpillFilesTotal(), files) << "10 runs did not spill";
  EXPECT_EQ(Rows(*t, false), ten);  // the same rows merged in memory (the usual budget)

  auto small = Create("small", {});
  ASSERT_TRUE(small);
  WriteRuns(*small, 10, 100, true, 3);  // at most 500 rows a bucket
  files = datafile::SpillFilesTotal();
  read(*small, true);
  EXPECT_EQ(datafile::SpillFilesTotal(), files) << "a small merge of 10 runs spilled";
}

// A bucket of more than 512Ki records is read by column scans a part at a time: merged a chunk
// of keys at a time (its merge by columns), or, past the spill threshold, merged whole and
// handed out a slice at a time. Either way every key comes out once, as the row scan gives it
// (a slice handed out was once handed out again whole: 65,536 rows twice).
TEST_F(SortSpillTest, LargeMergedBucketsGiveEveryRowOnceThroughColumnScans) {
  for (const char* threshold : {"", "100"}) {
    SCOPED_TRACE(std::string("sort-spill-threshold ") + (*threshold ? threshold : "unset"));
    TableSpec spec;
    spec.columns = {{0, "id", DataType::BigInt().NotNull(), ""}, {1, "n", DataType::BigInt(), ""}};
    spec.primary_keys = {"id"};
    spec.options = {{"bucket", "1"}, {"write-only", "true"}};
    if (*threshold) spec.options["sort-spill-threshold"] = threshold;
    const std::string name = *threshold ? "in_memory" : "spilled";
    ASSERT_TRUE(catalog_->CreateTable(Identifier{"default", name, ""}, spec, false).ok());
    auto t = catalog_->GetTable(Identifier{"default", name, ""});
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    constexpr int64_t kKeys = 70000;           // more than one slice (65,536) of merged rows
    for (int64_t run = 1; run <= 11; run++) {  // 770,000 records in 11 runs
      auto w = (*t)->NewWriter({});
      ASSERT_TRUE(w.ok()) << w.status().ToString();
      for (int64_t id = 0; id < kKeys; id++) {
        ASSERT_TRUE((*w)->Write(RowKind::kInsert, {Value::Int(id), Value::Int(id * run)}).ok());
      }
      ASSERT_TRUE((*w)->Commit().ok());
    }
    const int64_t files = datafile::SpillFilesTotal();
    const auto columns = Rows(**t, true);
    EXPECT_EQ(datafile::SpillFilesTotal() > files, !*threshold) << "spilled as expected";
    ASSERT_EQ(columns.size(), static_cast<size_t>(kKeys));
    EXPECT_EQ(columns, Rows(**t, false));
    EXPECT_EQ(columns.front(), "[0, 0]");
  }
}

TEST_F(SortSpillTest, ThresholdUnderTwoIsRefused) {
  TableSpec spec;
  spec.columns = {{0, "id", DataType::BigInt().NotNull(), ""}};
  spec.primary_keys = {"id"};
  spec.options = {{"sort-spill-threshold", "1"}};
  Status st = catalog_->CreateTable(Identifier{"default", "bad", ""}, spec, false);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("sort-spill-threshold"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace tributary
