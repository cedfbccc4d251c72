// 'write-buffer-spillable' (issue 38, docs/memory.md): a writer whose buffers are full spills
// them to local disk as sorted runs and merges each bucket's runs into its level-0 files at the
// commit. What a user notices: the table holds what the same rows written in memory give, for
// every merge engine and both write buffers; the changelog of 'changelog-producer' = 'input'
// holds every record; a commit writes one level-0 file per bucket, not one per full buffer.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "datafile/spill_file.h"
#include "datafile/test_hooks.h"
#include "table/warehouse_test_base.h"
#include "tributary/stream_scan.h"
#include "tributary/table_writer.h"

namespace tributary {
namespace {

using namespace std::chrono_literals;

std::string RowToString(const Row& row) {
  std::string s = "[";
  for (size_t i = 0; i < row.size(); i++) s += (i ? ", " : "") + DebugString(row[i]);
  return s + "]";
}

class SpillWriteTest : public WarehouseTest {
 protected:
  void TearDown() override {
    datafile::GetTestHooks().row_write_buffer = false;
    WarehouseTest::TearDown();
  }

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
    Status st = catalog_->CreateTable(Identifier{"default", name, ""}, spec, false);
    EXPECT_TRUE(st.ok()) << st.ToString();
    auto t = catalog_->GetTable(Identifier{"default", name, ""});
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? std::move(*t) : nullptr;
  }

  // Writes `records` through one writer and commits once.
  static void Write(Table& t, const std::vector<std::pair<RowKind, Row>>& records) {
    auto w = t.NewWriter({});
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    for (const auto& [kind, row] : records) {
      Status st = (*w)->Write(kind, row);
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    auto c = (*w)->Commit();
    ASSERT_TRUE(c.ok()) << c.status().ToString();
  }

  static std::vector<std::string> Rows(Table& t) {
    std::vector<std::string> out;
    auto scan = t.NewScan({});
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    if (!scan.ok()) return out;
    RowBatch b;
    while (true) {
      auto more = (*scan)->Next(&b);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) break;
      for (const Row& r : b.rows) out.push_back(RowToString(r));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // Every change from the first snapshot on (until the stream is idle for 150 ms), sorted.
  static std::vector<std::string> Changelog(Table& t) {
    StreamOptions o;
    o.startup_mode = "earliest";
    auto s = t.NewStreamScan(o);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    std::vector<std::string> out;
    if (!s.ok()) return out;
    RowBatch b;
    while (true) {
      auto more = (*s)->Next(&b, 150ms);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) break;
      for (size_t i = 0; i < b.rows.size(); i++) {
        out.push_back(std::string(RowKindShortString(b.kinds[i])) + RowToString(b.rows[i]));
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // Data files of the latest snapshot.
  static size_t LiveFiles(const Table& t) { return LatestLiveEntries(t).size(); }
};

// Random records over few keys (many records per key, across runs): inserts and updates, with
// deletes where `deletes`.
std::vector<std::pair<RowKind, Row>> RandomRecords(size_t n, bool deletes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::pair<RowKind, Row>> out;
  const std::string pad(60, 'p');
  for (size_t i = 0; i < n; i++) {
    const int64_t id = static_cast<int64_t>(rng() % 3000);
    const uint64_t dice = rng() % 10;
    RowKind kind = dice == 0 && deletes ? RowKind::kDelete : RowKind::kInsert;
    Row row{
        Value::Int(id),
        rng() % 7 == 0 ? Value::Null() : Value::String("v" + std::to_string(rng() % 100000) + pad),
        Value::Int(static_cast<int64_t>(rng() % 1000)),
        Value::Int(static_cast<int64_t>(rng() % 50))};
    out.push_back({kind, std::move(row)});
  }
  return out;
}

// Spilled under a 64 KiB buffer, merged at the commit: the same table as one buffer in memory,
// for every engine, from the column buffer and from the row buffer; and each bucket gets one
// level-0 file (the runs merged), where flushing would have written dozens.
TEST_F(SpillWriteTest, SpilledWritesEqualWritesInMemory) {
  for (bool row_buffer : {false, true}) {
    datafile::GetTestHooks().row_write_buffer = row_buffer;
    for (const EngineCase& e : Engines()) {
      SCOPED_TRACE(std::string(e.name) + (row_buffer ? " (row buffer)" : " (column buffer)"));
      const auto records = RandomRecords(40000, e.deletes, 11);
      auto memory_options = e.options;
      memory_options["write-buffer-size"] = "256 mb";
      memory_options["write-only"] = "true";  // the files as the commit wrote them
      auto in_memory =
          Create(std::string("m_") + e.name + (row_buffer ? "_r" : "_c"), memory_options);
      auto spill_options = e.options;
      spill_options["write-buffer-size"] = "64 kb";
      spill_options["write-buffer-spillable"] = "true";
      spill_options["write-only"] = "true";
      auto spilled = Create(std::string("s_") + e.name + (row_buffer ? "_r" : "_c"), spill_options);
      const int64_t spill_files = datafile::SpillFilesTotal();
      const int64_t spilled_bytes = datafile::SpilledBytesTotal();
      Write(*in_memory, records);
      Write(*spilled, records);
      EXPECT_GT(datafile::SpillFilesTotal(), spill_files);
      EXPECT_GT(datafile::SpilledBytesTotal() - spilled_bytes, 256 << 10);  // many runs
      const auto want = Rows(*in_memory);
      EXPECT_GT(want.size(), 2000u);
      EXPECT_EQ(Rows(*spilled), want);
      EXPECT_EQ(LiveFiles(*spilled), 2u);  // one level-0 file per bucket
    }
  }
}

// Off (unset, on local disk), a full buffer is flushed to a level-0 file as before.
TEST_F(SpillWriteTest, UnsetOnLocalDiskFlushesLevelZeroFiles) {
  auto t = Create("t", {{"write-buffer-size", "64 kb"}, {"write-only", "true"}});
  const int64_t spill_files = datafile::SpillFilesTotal();
  Write(*t, RandomRecords(40000, true, 3));
  EXPECT_EQ(datafile::SpillFilesTotal(), spill_files);
  EXPECT_GT(LiveFiles(*t), 10u);
}

// 'changelog-producer' = 'input': the commit writes every record of the spilled runs and the
// buffer to the changelog, as one flush of them all would (one file per bucket).
TEST_F(SpillWriteTest, TheInputChangelogHoldsEveryRecord) {
  const auto records = RandomRecords(20000, true, 5);
  auto in_memory = Create("m", {{"changelog-producer", "input"}});
  auto spilled = Create("s", {{"changelog-producer", "input"},
                              {"write-buffer-size", "64 kb"},
                              {"write-buffer-spillable", "true"}});
  Write(*in_memory, records);
  Write(*spilled, records);
  const auto log = Changelog(*spilled);
  EXPECT_EQ(log.size(), records.size());
  EXPECT_EQ(log, Changelog(*in_memory));
  EXPECT_EQ(Rows(*spilled), Rows(*in_memory));
  // Written at the commit from the runs, not a file per spill: one per bucket.
  size_t changelog_files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(spilled->path())) {
    changelog_files += entry.path().filename().string().rfind("changelog-", 0) == 0;
  }
  EXPECT_EQ(changelog_files, 2u);
}

// The producers and tables that read a commit's level-0 files back: 'changelog-producer' =
// 'lookup' (the changes of the commit's keys) and deletion vectors (the keys the files
// replace) see the runs' merge as they see a buffer's flush; two commits, so the second one's
// keys have values before them.
TEST_F(SpillWriteTest, LookupChangelogAndDeletionVectorsSeeTheMergedRuns) {
  for (const char* mode : {"lookup", "dv"}) {
    SCOPED_TRACE(mode);
    std::map<std::string, std::string> options;
    if (std::string(mode) == "lookup") {
      options["changelog-producer"] = "lookup";
    } else {
      options["deletion-vectors.enabled"] = "true";
    }
    auto spill_options = options;
    spill_options["write-buffer-size"] = "64 kb";
    spill_options["write-buffer-spillable"] = "true";
    auto in_memory = Create(std::string("m_") + mode, options);
    auto spilled = Create(std::string("s_") + mode, spill_options);
    for (uint64_t seed : {21, 22}) {
      const auto records = RandomRecords(20000, true, seed);
      Write(*in_memory, records);
      Write(*spilled, records);
    }
    EXPECT_EQ(Rows(*spilled), Rows(*in_memory));
    if (std::string(mode) == "lookup") {
      const auto log = Changelog(*spilled);
      EXPECT_GT(log.size(), 2000u);
      EXPECT_EQ(log, Changelog(*in_memory));
    }
  }
}

// 'write-buffer-spill.max-disk-size': once the spill file holds that much, full buffers are
// flushed to level-0 files instead; the table is still the same.
TEST_F(SpillWriteTest, PastTheDiskLimitBuffersAreFlushed) {
  const auto records = RandomRecords(40000, true, 9);
  auto in_memory = Create("m", {});
  auto t = Create("t", {{"write-buffer-size", "64 kb"},
                        {"write-buffer-spillable", "true"},
                        {"write-buffer-spill.max-disk-size", "256 kb"},
                        {"write-only", "true"}});
  Write(*in_memory, records);
  Write(*t, records);
  EXPECT_GT(LiveFiles(*t), 4u);  // flushed files besides each bucket's merged runs
  EXPECT_EQ(Rows(*t), Rows(*in_memory));
}

// 'spill-compression' (Paimon's key): the codec of the spilled segments; the table is the same
// whichever it is, and compressible rows take less disk compressed than not.
TEST_F(SpillWriteTest, SpillCompressionCodecs) {
  const auto records = RandomRecords(20000, true, 13);
  auto in_memory = Create("m", {});
  Write(*in_memory, records);
  std::map<std::string, int64_t> spilled;
  for (const char* codec : {"none", "lz4", "zstd"}) {
    SCOPED_TRACE(codec);
    auto t = Create(std::string("t_") + codec, {{"write-buffer-size", "64 kb"},
                                                {"write-buffer-spillable", "true"},
                                                {"spill-compression", codec}});
    const int64_t before = datafile::SpilledBytesTotal();
    Write(*t, records);
    spilled[codec] = datafile::SpilledBytesTotal() - before;
    EXPECT_EQ(Rows(*t), Rows(*in_memory));
  }
  EXPECT_GT(spilled["none"], spilled["lz4"]);
  EXPECT_GT(spilled["none"], spilled["zstd"]);
}

// A writer dropped before its commit leaves nothing: no snapshot, no data or changelog file.
TEST_F(SpillWriteTest, AnAbandonedWriterLeavesNoFiles) {
  auto t = Create("t", {{"changelog-producer", "input"},
                        {"write-buffer-size", "64 kb"},
                        {"write-buffer-spillable", "true"}});
  {
    auto w = t->NewWriter({});
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    for (const auto& [kind, row] : RandomRecords(20000, true, 1)) {
      ASSERT_TRUE((*w)->Write(kind, row).ok());
    }
  }
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(t->path())) {
    const std::string name = entry.path().filename().string();
    files += name.rfind("data-", 0) == 0 || name.rfind("changelog-", 0) == 0;
  }
  EXPECT_EQ(files, 0u);
  EXPECT_TRUE(Rows(*t).empty());
}

}  // namespace
}  // namespace tributary
