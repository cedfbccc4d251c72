// Streaming reads through the public API: what a consumer following a table receives for each
// changelog producer and start-up mode.
#include "tributary/stream_scan.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <thread>

#include "datafile/test_hooks.h"
#include "io/file_system.h"
#include "table/warehouse_test_base.h"
#include "tributary/catalog.h"
#include "tributary/table.h"
#include "tributary/table_writer.h"

namespace tributary {
namespace {

using namespace std::chrono_literals;

// A change as a consumer prints it: "+I[1, a]".
std::string Change(RowKind kind, const Row& row) {
  std::string s = kind == RowKind::kInsert         ? "+I["
                  : kind == RowKind::kUpdateBefore ? "-U["
                  : kind == RowKind::kUpdateAfter  ? "+U["
                                                   : "-D[";
  for (size_t i = 0; i < row.size(); i++)
    s += (i ? ", " : "") + (row[i].is_string() ? row[i].string_value() : DebugString(row[i]));
  return s + "]";
}

class StreamScanTest : public WarehouseTest {
 protected:
  Status TryCreate(const std::string& name, TableSpec spec) {
    return catalog_->CreateTable(Identifier{"default", name, ""}, spec, false);
  }
  std::unique_ptr<Table> Create(const std::string& name, std::map<std::string, std::string> options,
                                bool primary_key = true) {
    return CreateWith(name, {{0, "v", DataType::String(), ""}}, std::move(options), primary_key);
  }

  static void Commit(Table& t, const std::vector<std::pair<RowKind, Row>>& rows) {
    auto w = t.NewWriter({});
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    for (const auto& [k, r] : rows) ASSERT_TRUE((*w)->Write(k, r).ok());
    auto c = (*w)->Commit();
    ASSERT_TRUE(c.ok()) << c.status().ToString();
  }
  static Row R(int64_t id, const char* v) { return {Value::Int(id), Value::String(v)}; }
  // A table (id BIGINT NOT NULL primary key, then `columns`) with `options`.
  std::unique_ptr<Table> CreateWith(const std::string& name, std::vector<Field> columns,
                                    std::map<std::string, std::string> options,
                                    bool primary_key = true) {
    TableSpec s;
    s.columns = {{0, "id", DataType::BigInt().NotNull(), ""}};
    for (auto& c : columns) s.columns.push_back(std::move(c));
    if (primary_key) s.primary_keys = {"id"};
    s.options = std::move(options);
    Status st = TryCreate(name, s);
    EXPECT_TRUE(st.ok()) << st.ToString();
    auto t = catalog_->GetTable(Identifier{"default", name, ""});
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return std::move(*t);
  }

  // Every change committed so far (reads until the stream has been idle for 150 ms).
  static std::vector<std::string> Drain(StreamScan& s) {
    std::vector<std::string> out;
    RowBatch b;
    while (true) {
      auto more = s.Next(&b, 150ms);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) return out;
      EXPECT_FALSE(b.rows.empty());
      for (size_t i = 0; i < b.rows.size(); i++) out.push_back(Change(b.kinds[i], b.rows[i]));
    }
  }
  // The same through NextColumns.
  static std::vector<std::string> DrainColumns(StreamScan& s) {
    std::vector<std::string> out;
    ChangeColumns b;
    while (true) {
      auto more = s.NextColumns(&b, 150ms);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) return out;
      EXPECT_EQ(b.columns.num_rows, b.kinds.size());
      EXPECT_EQ(b.columns.columns.size(), s.output_fields().size());
      for (size_t i = 0; i < b.kinds.size(); i++) {
        Row row;
        for (const ColumnVector& c : b.columns.columns) row.push_back(c.Get(i));
        out.push_back(Change(b.kinds[i], row));
      }
    }
  }
  static std::unique_ptr<StreamScan> Open(Table& t, StreamOptions o = {}) {
    auto s = t.NewStreamScan(o);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }
};

using V = std::vector<std::string>;

TEST_F(StreamScanTest, InputProducerPassesTheWrittenRecordsThrough) {
  auto t = Create("t", {{"changelog-producer", "input"}, {"bucket", "1"}});
  StreamOptions o;
  o.startup_mode = "earliest";
  auto s = Open(*t, o);
  Commit(*t, {{RowKind::kInsert, R(1, "a")}, {RowKind::kInsert, R(2, "b")}});
  EXPECT_EQ(Drain(*s), (V{"+I[1, a]", "+I[2, b]"}));
  // The input is the changelog, as written: no before-images are made up.
  Commit(*t, {{RowKind::kUpdateBefore, R(1, "a")},
              {RowKind::kUpdateAfter, R(1, "c")},
              {RowKind::kDelete, R(2, "b")}});
  EXPECT_EQ(Drain(*s), (V{"-U[1, a]", "+U[1, c]", "-D[2, b]"}));
  // A second reader from the start sees the same log.
  auto again = Open(*t, o);
  EXPECT_EQ(Drain(*again), (V{"+I[1, a]", "+I[2, b]", "-U[1, a]", "+U[1, c]", "-D[2, b]"}));
}

// The row buffer (nested columns, partial-column writes, Avro level-0 files) and the column
// buffer write the same changelog.
TEST_F(StreamScanTest, InputChangelogIsTheSameFromTheRowBuffer) {
  std::vector<std::vector<std::string>> logs;
  for (bool rows : {false, true}) {
    datafile::GetTestHooks().row_write_buffer = rows;
    auto t = Create(rows ? "rows" : "columns", {{"changelog-producer", "input"}, {"bucket", "2"}});
    Commit(*t, {{RowKind::kInsert, R(3, "c")},
                {RowKind::kInsert, R(1, "a")},
                {RowKind::kInsert, R(1, "b")},
                {RowKind::kDelete, R(3, "c")},
                {RowKind::kUpdateAfter, R(2, "x")}});
    StreamOptions o;
    o.startup_mode = "earliest";
    auto s = Open(*t, o);
    logs.push_back(Drain(*s));
  }
  datafile::GetTestHooks().row_write_buffer = false;
  EXPECT_EQ(logs[0], logs[1]);
  std::sort(logs[0].begin(), logs[0].end());
  EXPECT_EQ(logs[0], (V{"+I[1, a]", "+I[1, b]", "+I[3, c]", "+U[2, x]", "-D[3, c]"}));
}

TEST_F(StreamScanTest, WithoutAProducerUpdatesAreNormalisedIntoACompleteChangelog) {
  auto t = Create("t", {{"bucket", "2"}});
  Commit(*t, {{RowKind::kInsert, R(1, "a")}, {RowKind::kInsert, R(2, "b")}});
  auto s = Open(*t);  // full: the table as it is, then its changes
  std::vector<std::string> first = Drain(*s);
  std::sort(first.begin(), first.end());
  EXPECT_EQ(first, (V{"+I[1, a]", "+I[2, b]"}));
  Commit(*t, {{RowKind::kInsert, R(1, "c")}, {RowKind::kDelete, R(2, "b")}});
  std::vector<std::string> second = Drain(*s);
  std::sort(second.begin(), second.end());
  EXPECT_EQ(second, (V{"+U[1, c]", "-D[2, b]", "-U[1, a]"}));
  // Writing the same row again changes nothing, so nothing is emitted; a delete of a key that
  // is gone neither.
  Commit(*t, {{RowKind::kInsert, R(1, "c")}, {RowKind::kDelete, R(2, "b")}});
  EXPECT_EQ(Drain(*s), V{});
  Commit(*t, {{RowKind::kInsert, R(3, "x")}});
  EXPECT_EQ(Drain(*s), V{"+I[3, x]"});
}

// StreamOptions::upserts: a table without a producer streams its changes as written (an
// unchanged row and the removal of a key never seen come out too), and NextColumns returns the
// same changes as Next, from Parquet files read as columns and from Avro files read as rows.
TEST_F(StreamScanTest, UpsertsComeAsWrittenAndColumnsEqualRows) {
  for (const char* format : {"parquet", "avro"}) {
    SCOPED_TRACE(format);
    auto t = Create(std::string("t_") + format, {{"bucket", "2"}, {"file.format", format}});
    Commit(*t, {{RowKind::kInsert, R(1, "a")}, {RowKind::kInsert, R(2, "b")}});
    StreamOptions o;
    o.upserts = true;
    StreamOptions filtered = o;
    filtered.projection = std::vector<int>{1, 0};
    Predicate p;
    p.column = 1;
    p.op = Predicate::Op::kNe;
    p.literals = {Value::String("b")};
    filtered.filters = {p};
    auto rows = Open(*t, o);  // full: the table as it is, then its changes
    auto columns = Open(*t, o);
    auto rows_filtered = Open(*t, filtered);
    auto columns_filtered = Open(*t, filtered);
    auto sorted = [](V v) {
      std::sort(v.begin(), v.end());
      return v;
    };
    EXPECT_EQ(sorted(Drain(*rows)), (V{"+I[1, a]", "+I[2, b]"}));
    EXPECT_EQ(sorted(DrainColumns(*columns)), (V{"+I[1, a]", "+I[2, b]"}));
    EXPECT_EQ(DrainColumns(*columns_filtered), Drain(*rows_filtered));
    Commit(*t, {{RowKind::kInsert, R(1, "c")},
                {RowKind::kDelete, R(2, "b")},
                {RowKind::kUpdateAfter, R(3, "x")}});
    Commit(*t, {{RowKind::kInsert, R(1, "c")}, {RowKind::kDelete, R(9, "z")}});
    const V want = Drain(*rows);
    EXPECT_EQ(sorted(want), (V{"+I[1, c]", "+I[1, c]", "+U[3, x]", "-D[2, b]", "-D[9, z]"}));
    EXPECT_EQ(DrainColumns(*columns), want);
    const V want_filtered = Drain(*rows_filtered);
    EXPECT_EQ(sorted(want_filtered), (V{"+I[c, 1]", "+I[c, 1]", "+U[x, 3]", "-D[z, 9]"}));
    EXPECT_EQ(DrainColumns(*columns_filtered), want_filtered);
  }
}

// NextColumns of a normalising reader: Next's changes, column by column.
TEST_F(StreamScanTest, NormalisedChangesComeAsColumnsToo) {
  auto t = Create("t", {{"bucket", "1"}});
  auto rows = Open(*t);
  auto columns = Open(*t);
  Commit(*t, {{RowKind::kInsert, R(1, "a")}, {RowKind::kInsert, R(2, "b")}});
  Commit(*t, {{RowKind::kInsert, R(1, "c")}, {RowKind::kDelete, R(2, "b")}});
  const V want = Drain(*rows);
  EXPECT_EQ(want, (V{"+I[1, a]", "+I[2, b]", "-U[1, a]", "+U[1, c]", "-D[2, b]"}));
  EXPECT_EQ(DrainColumns(*columns), want);
}

TEST_F(StreamScanTest, CompactionsAddNoChanges) {
  auto t = Create("t", {{"bucket", "1"}});
  auto s = Open(*t);
  Commit(*t, {{RowKind::kInsert, R(1, "a")}});
  Commit(*t, {{RowKind::kInsert, R(1, "b")}});
  auto done = t->CompactFull();
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  ASSERT_TRUE(done->has_value());
  EXPECT_EQ(Drain(*s), (V{"+I[1, a]", "-U[1, a]", "+U[1, b]"}));
}

TEST_F(StreamScanTest, NothingIsLostOrDoubledAtTheSeamOfAFullStart) {
  auto t = Create("t", {{"changelog-producer", "input"}, {"bucket", "2"}});
  for (int64_t i = 0; i < 5; i++) Commit(*t, {{RowKind::kInsert, R(i, "old")}});
  auto s = Open(*t);
  for (int64_t i = 5; i < 8; i++) Commit(*t, {{RowKind::kInsert, R(i, "new")}});
  std::vector<std::string> got = Drain(*s);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (V{"+I[0, old]", "+I[1, old]", "+I[2, old]", "+I[3, old]", "+I[4, old]",
                    "+I[5, new]", "+I[6, new]", "+I[7, new]"}));
}

TEST_F(StreamScanTest, StartupModes) {
  auto t = Create("t", {{"changelog-producer", "input"}, {"bucket", "1"}});
  Commit(*t, {{RowKind::kInsert, R(1, "s1")}});  // snapshot 1
  Commit(*t, {{RowKind::kInsert, R(2, "s2")}});  // snapshot 2
  StreamOptions latest;
  latest.startup_mode = "latest";
  auto from_latest = Open(*t, latest);
  StreamOptions from2;
  from2.startup_mode = "from-snapshot";
  from2.startup_snapshot_id = 2;
  auto from_snapshot = Open(*t, from2);
  std::this_thread::sleep_for(20ms);
  const int64_t between = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  std::this_thread::sleep_for(20ms);
  Commit(*t, {{RowKind::kInsert, R(3, "s3")}});  // snapshot 3
  StreamOptions ts;
  ts.startup_mode = "timestamp";
  ts.startup_timestamp_millis = between;
  auto from_time = Open(*t, ts);
  EXPECT_EQ(Drain(*from_latest), V{"+I[3, s3]"});
  EXPECT_EQ(Drain(*from_snapshot), (V{"+I[2, s2]", "+I[3, s3]"}));
  EXPECT_EQ(Drain(*from_time), V{"+I[3, s3]"});
  EXPECT_EQ(from_time->next_snapshot_id(), 4);

  StreamOptions bad;
  bad.startup_mode = "from-snapshot";
  EXPECT_FALSE(t->NewStreamScan(bad).ok());  // needs a snapshot id
  bad.startup_mode = "earliest-offset";
  auto unknown = t->NewStreamScan(bad);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().ToString().find("earliest-offset"), std::string::npos);
}

TEST_F(StreamScanTest, ACommitFromAnotherThreadIsNoticedWhileWaiting) {
  auto t = Create("t", {{"changelog-producer", "input"}, {"bucket", "1"}});
  auto s = Open(*t);
  RowBatch b;
  auto idle = s->Next(&b, 100ms);
  ASSERT_TRUE(idle.ok());
  EXPECT_FALSE(*idle);  // nothing committed: the wait ends empty
  std::thread writer([&]() {
    std::this_thread::sleep_for(100ms);
    Commit(*t, {{RowKind::kInsert, R(7, "late")}});
  });
  auto got = s->Next(&b, 10s);
  writer.join();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(*got);
  ASSERT_EQ(b.rows.size(), 1u);
  EXPECT_EQ(Change(b.kinds[0], b.rows[0]), "+I[7, late]");
}

TEST_F(StreamScanTest, FiltersApplyAfterNormalisingSoAnUpdateLeavingThemRetracts) {
  auto t = Create("t", {{"bucket", "1"}});
  StreamOptions o;
  o.projection = std::vector<int>{1};
  Predicate p;
  p.column = 1;
  p.op = Predicate::Op::kEq;
  p.literals = {Value::String("a")};
  o.filters = {p};
  auto s = Open(*t, o);
  Commit(*t, {{RowKind::kInsert, R(1, "a")}, {RowKind::kInsert, R(2, "b")}});
  EXPECT_EQ(Drain(*s), V{"+I[a]"});
  Commit(*t, {{RowKind::kInsert, R(1, "z")}});
  EXPECT_EQ(Drain(*s), V{"-U[a]"});
}

TEST_F(StreamScanTest, AppendTablesStreamTheirRowsInWriteOrder) {
  auto t = Create("t", {{"bucket", "1"}}, /*primary_key=*/false);
  auto s = Open(*t);
  Commit(*t, {{RowKind::kInsert, R(3, "c")}, {RowKind::kInsert, R(1, "a")}});
  Commit(*t, {{RowKind::kInsert, R(2, "b")}, {RowKind::kInsert, R(1, "a")}});
  EXPECT_EQ(Drain(*s), (V{"+I[3, c]", "+I[1, a]", "+I[2, b]", "+I[1, a]"}));
}

// Oracle cases 23 (LookupChangelogMergeFunctionWrapperTest, deduplicate) through the table.
TEST_F(StreamScanTest, LookupProducerEmitsTheExactChangeOfEachKey) {
  auto t = Create("t", {{"changelog-producer", "lookup"}, {"bucket", "1"}});
  StreamOptions o;
  o.startup_mode = "earliest";
  auto s = Open(*t, o);
  Commit(*t, {{RowKind::kInsert, R(1, "a")}, {RowKind::kInsert, R(2, "b")}});
  EXPECT_EQ(Drain(*s), (V{"+I[1, a]", "+I[2, b]"}));
  // An UPDATE's new row alone is enough: the before-image comes from the table.
  Commit(*t, {{RowKind::kUpdateAfter, R(1, "c")}, {RowKind::kDelete, R(2, "b")}});
  EXPECT_EQ(Drain(*s), (V{"-U[1, a]", "+U[1, c]", "-D[2, b]"}));
  // Several records of a key in one commit: one change, against the committed value.
  Commit(*t, {{RowKind::kInsert, R(1, "d")},
              {RowKind::kInsert, R(1, "e")},
              {RowKind::kInsert, R(3, "x")},
              {RowKind::kDelete, R(3, "x")}});
  EXPECT_EQ(Drain(*s), (V{"-U[1, c]", "+U[1, e]"}));
  // A retraction of a key that is not there changes nothing; a row written again is an update
  // (without row-deduplicate).
  Commit(*t, {{RowKind::kUpdateBefore, R(9, "z")}, {RowKind::kInsert, R(1, "e")}});
  EXPECT_EQ(Drain(*s), (V{"-U[1, e]", "+U[1, e]"}));
  // After a compaction the before-images still come out right.
  ASSERT_TRUE(t->CompactFull().ok());
  Commit(*t, {{RowKind::kInsert, R(1, "f")}, {RowKind::kInsert, R(2, "again")}});
  EXPECT_EQ(Drain(*s), (V{"-U[1, e]", "+U[1, f]", "+I[2, again]"}));
}

TEST_F(StreamScanTest, LookupRowDeduplicateDropsNoOpUpdates) {
  auto t = Create("t", {{"changelog-producer", "lookup"},
                        {"changelog-producer.row-deduplicate", "true"},
                        {"bucket", "1"}});
  auto s = Open(*t);
  Commit(*t, {{RowKind::kInsert, R(1, "a")}});
  Commit(*t, {{RowKind::kInsert, R(1, "a")}});
  Commit(*t, {{RowKind::kInsert, R(1, "b")}});
  EXPECT_EQ(Drain(*s), (V{"+I[1, a]", "-U[1, a]", "+U[1, b]"}));
}

// Oracle case 21 (FirstRowITCase#testStreamingRead): only keys seen for the first time change.
TEST_F(StreamScanTest, FirstRowWithLookupEmitsInsertsOfNewKeysOnly) {
  auto t = Create(
      "t", {{"merge-engine", "first-row"}, {"changelog-producer", "lookup"}, {"bucket", "1"}});
  auto s = Open(*t);
  Commit(*t, {{RowKind::kInsert, R(1, "1")},
              {RowKind::kInsert, R(2, "2")},
              {RowKind::kInsert, R(1, "3")},
              {RowKind::kInsert, R(1, "4")}});
  EXPECT_EQ(Drain(*s), (V{"+I[1, 1]", "+I[2, 2]"}));
  Commit(*t, {{RowKind::kInsert, R(1, "5")}, {RowKind::kInsert, R(2, "6")}});
  EXPECT_EQ(Drain(*s), V{});
  Commit(*t, {{RowKind::kInsert, R(3, "7")}, {RowKind::kInsert, R(1, "8")}});
  EXPECT_EQ(Drain(*s), V{"+I[3, 7]"});
}

// Oracle case 26 (FullChangelogMergeFunctionWrapperTestBase, deduplicate) through the table: each
// commit ends its input, so a full compaction follows and its changes are the changelog.
TEST_F(StreamScanTest, FullCompactionProducerEmitsWhatEachFullCompactionChanged) {
  auto t = Create("t", {{"changelog-producer", "full-compaction"}, {"bucket", "1"}});
  StreamOptions o;
  o.startup_mode = "earliest";
  auto s = Open(*t, o);
  Commit(*t, {{RowKind::kInsert, R(1, "1")}});  // [L0 +I 1] -> +I 1
  EXPECT_EQ(Drain(*s), V{"+I[1, 1]"});
  Commit(*t, {{RowKind::kDelete, R(2, "x")}});  // [L0 -D] -> nothing
  EXPECT_EQ(Drain(*s), V{});
  Commit(*t, {{RowKind::kInsert, R(1, "1")}});  // [L3 +I 1, L0 +I 1] -> -U 1, +U 1
  EXPECT_EQ(Drain(*s), (V{"-U[1, 1]", "+U[1, 1]"}));
  Commit(*t, {{RowKind::kInsert, R(1, "-3")}});  // [L3 +I 1, L0 +I -3] -> -U 1, +U -3
  EXPECT_EQ(Drain(*s), (V{"-U[1, 1]", "+U[1, -3]"}));
  Commit(*t, {{RowKind::kUpdateBefore, R(1, "-3")}});  // [L3 +I -3, L0 -U] -> -D -3
  EXPECT_EQ(Drain(*s), V{"-D[1, -3]"});
  Commit(*t, {{RowKind::kInsert, R(3, "3")}, {RowKind::kDelete, R(3, "3")}});  // -> nothing
  EXPECT_EQ(Drain(*s), V{});
}

// A long-lived writer compacts fully every 'full-compaction.delta-commits' commits; CALL
// sys.compact is a full compaction too.
TEST_F(StreamScanTest, FullCompactionEveryDeltaCommitsWithRowDeduplicate) {
  auto t = Create("t", {{"changelog-producer", "full-compaction"},
                        {"full-compaction.delta-commits", "2"},
                        {"changelog-producer.row-deduplicate", "true"},
                        {"bucket", "1"}});
  StreamOptions o;
  o.startup_mode = "earliest";
  auto s = Open(*t, o);
  auto w = t->NewWriter({});
  ASSERT_TRUE(w.ok());
  auto commit = [&](RowKind kind, Row row) {
    ASSERT_TRUE((*w)->Write(kind, row).ok());
    auto c = (*w)->Commit();
    ASSERT_TRUE(c.ok()) << c.status().ToString();
  };
  commit(RowKind::kInsert, R(1, "a"));
  EXPECT_EQ(Drain(*s), V{});  // no full compaction yet
  commit(RowKind::kInsert, R(2, "b"));
  EXPECT_EQ(Drain(*s), (V{"+I[1, a]", "+I[2, b]"}));
  commit(RowKind::kInsert, R(1, "a"));
  commit(RowKind::kInsert, R(2, "c"));
  EXPECT_EQ(Drain(*s), (V{"-U[2, b]", "+U[2, c]"}));  // (1, a) written again: no change
  commit(RowKind::kDelete, R(1, "a"));
  EXPECT_EQ(Drain(*s), V{});
  ASSERT_TRUE(t->CompactFull().ok());
  EXPECT_EQ(Drain(*s), V{"-D[1, a]"});
}

// 'changelog-file.format' / '.compression' encode the changelog files, whatever the data files use.
TEST_F(StreamScanTest, ChangelogFilesTakeTheirOwnFormat) {
  for (const char* producer : {"input", "lookup", "full-compaction"}) {
    SCOPED_TRACE(producer);
    auto t = Create(std::string("t_") + (producer[0] == 'f' ? "full" : producer),
                    {{"changelog-producer", producer},
                     {"bucket", "1"},
                     {"changelog-file.format", "avro"},
                     {"changelog-file.compression", "snappy"}});
    StreamOptions o;
    o.startup_mode = "earliest";
    auto s = Open(*t, o);
    Commit(*t, {{RowKind::kInsert, R(1, "a")}});
    Commit(*t, {{RowKind::kInsert, R(1, "b")}});
    const V expected = std::string(producer) == "input" ? V{"+I[1, a]", "+I[1, b]"}
                                                        : V{"+I[1, a]", "-U[1, a]", "+U[1, b]"};
    EXPECT_EQ(Drain(*s), expected);
    int avro = 0, parquet = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(t->path())) {
      const std::string name = e.path().filename().string();
      if (name.rfind("changelog-", 0) != 0) continue;
      (e.path().extension() == ".avro" ? avro : parquet)++;
    }
    EXPECT_GT(avro, 0);
    EXPECT_EQ(parquet, 0);
  }
}

// 'full-compaction.delta-commits' compacts fully every n commits of a writer, whatever the
// changelog producer.
TEST_F(StreamScanTest, DeltaCommitsCompactFullyEveryNCommits) {
  auto t = Create("t", {{"full-compaction.delta-commits", "2"}, {"bucket", "1"}});
  auto w = t->NewWriter({});
  ASSERT_TRUE(w.ok());
  for (int i = 0; i < 4; i++) {
    ASSERT_TRUE((*w)->Write(RowKind::kInsert, R(i, "x")).ok());
    ASSERT_TRUE((*w)->Commit().ok());
  }
  auto snapshots = catalog_->ReadSystemTable(Identifier{"default", "t", "snapshots"});
  ASSERT_TRUE(snapshots.ok());
  int compact = 0;
  size_t kind_col = 0;
  for (size_t i = 0; i < snapshots->fields.size(); i++) {
    if (snapshots->fields[i].name == "commit_kind") kind_col = i;
  }
  for (const Row& r : snapshots->rows) compact += r[kind_col].string_value() == "COMPACT";
  EXPECT_EQ(compact, 2);
}

// A normalising reader that starts after the first snapshot knows the rows before its first
// change: a delete of one of them is a -D, an update a -U/+U.
TEST_F(StreamScanTest, ANormalisingReaderStartingLaterKnowsTheRowsBefore) {
  auto t = Create("t", {{"bucket", "1"}});
  Commit(*t, {{RowKind::kInsert, R(1, "a")}, {RowKind::kInsert, R(2, "b")}});
  Commit(*t, {{RowKind::kInsert, R(3, "c")}});
  StreamOptions o;
  o.startup_mode = "from-snapshot";
  o.startup_snapshot_id = 3;
  auto s = Open(*t, o);
  Commit(*t, {{RowKind::kDelete, R(1, "a")}, {RowKind::kInsert, R(2, "b2")}});
  std::vector<std::string> got = Drain(*s);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (V{"+U[2, b2]", "-D[1, a]", "-U[2, b]"}));
}

// Without a changelog producer the reader can only follow deduplicate tables: a merge that
// combines records (aggregation, partial-update) or keeps the first one needs a producer.
TEST_F(StreamScanTest, MergesTheNormaliserCannotFollowNeedAProducer) {
  for (const char* engine : {"aggregation", "partial-update", "first-row"}) {
    SCOPED_TRACE(engine);
    auto t = Create(std::string("t_") + (engine[0] == 'a'   ? "agg"
                                         : engine[0] == 'p' ? "pu"
                                                            : "fr"),
                    {{"merge-engine", engine}, {"bucket", "1"}});
    auto s = t->NewStreamScan({});
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.status().ToString().find("not supported yet"), std::string::npos)
        << s.status().ToString();
  }
}

// A long-lived writer keeps what its commits left for the lookup producer's before-images; a
// commit by another writer in between makes it look the keys up in the files again. Random
// upserts and deletes over many commits, with a cache that holds every key and one so small
// that it keeps starting again: the changelog always adds up to the table, each -U / -D
// retracting exactly the row the stream holds. A write buffer so small that a commit's records
// are flushed in several pieces makes the producer read them back from the files (a single
// flush hands its merged buffer over instead).
TEST_F(StreamScanTest, LookupProducerOfALongLivedWriterStaysExactBesideOtherWriters) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"256 mb", "256 mb"}, {"1 kb", "256 mb"}, {"256 mb", "50 b"}};
  for (size_t n = 0; n < cases.size(); n++) {
    const auto& [budget, buffer] = cases[n];
    SCOPED_TRACE(std::string(budget) + ", write buffer " + buffer);
    const std::string name = "t" + std::to_string(n);
    auto t = Create(name, {{"changelog-producer", "lookup"},
                           {"bucket", "2"},
                           {"num-sorted-run.compaction-trigger", "2"},
                           {"lookup.cache-max-memory-size", budget},
                           {"write-buffer-size", buffer}});
    StreamOptions o;
    o.startup_mode = "earliest";
    auto s = Open(*t, o);
    WriteOptions wo;
    wo.async_compaction = true;
    auto writer = t->NewWriter(wo);
    ASSERT_TRUE(writer.ok());
    std::map<int64_t, std::string> model, streamed;
    std::mt19937 rng(11);
    for (int c = 0; c < 20; c++) {
      const bool other = c % 5 == 2;  // now and then another writer commits in between
      std::unique_ptr<TableWriter> second;
      if (other) {
        auto w = t->NewWriter({});
        ASSERT_TRUE(w.ok());
        second = std::move(*w);
      }
      TableWriter& w = other ? *second : **writer;
      for (int i = 0; i < 6; i++) {
        const int64_t id = rng() % 25;
        if (rng() % 5 == 0) {
          if (!model.count(id)) continue;
          ASSERT_TRUE(w.Write(RowKind::kDelete, R(id, model[id].c_str())).ok());
          model.erase(id);
        } else {
          std::string v = "c" + std::to_string(c) + "-" + std::to_string(i);
          ASSERT_TRUE(w.Write(RowKind::kInsert, R(id, v.c_str())).ok());
          model[id] = v;
        }
      }
      auto committed = w.Commit();
      ASSERT_TRUE(committed.ok()) << committed.status().ToString();
      for (const std::string& change : Drain(*s)) {
        // "+I[id, v]"
        const std::string op = change.substr(0, 2);
        const size_t comma = change.find(", ");
        const int64_t id = std::stoll(change.substr(3, comma - 3));
        const std::string v = change.substr(comma + 2, change.size() - comma - 3);
        if (op == "+I" || op == "+U") {
          if (op == "+I") {
            EXPECT_FALSE(streamed.count(id)) << "commit " << c << ": " << change;
          }
          streamed[id] = v;
        } else {
          EXPECT_EQ(streamed[id], v) << "commit " << c << ": " << change;
          streamed.erase(id);
        }
      }
      EXPECT_EQ(streamed, model) << "after commit " << c;
    }
  }
}

// Oracle case 19
// (LookupChangelogWithAggITCase#testLookupChangelogProducerWithOutOfOrderSequenceField): the before
// and after of the aggregated row, records merged in 'sequence.field' order.
TEST_F(StreamScanTest, LookupProducerWithAggregationAndOutOfOrderSequenceField) {
  auto t = CreateWith("t", {{0, "seq", DataType::Int(), ""}, {0, "v", DataType::Int(), ""}},
                      {{"merge-engine", "aggregation"},
                       {"fields.v.aggregate-function", "sum"},
                       {"sequence.field", "seq"},
                       {"changelog-producer", "lookup"},
                       {"bucket", "1"}});
  auto s = Open(*t);
  auto row = [](int64_t k, int64_t seq, int64_t v) {
    return Row{Value::Int(k), Value::Int(seq), Value::Int(v)};
  };
  Commit(*t, {{RowKind::kInsert, row(1, 7, 7)}});
  EXPECT_EQ(Drain(*s), V{"+I[1, 7, 7]"});
  Commit(*t, {{RowKind::kInsert, row(1, 8, 8)}});
  EXPECT_EQ(Drain(*s), (V{"-U[1, 7, 7]", "+U[1, 8, 15]"}));
  Commit(*t, {{RowKind::kInsert, row(1, 6, 6)}});
  EXPECT_EQ(Drain(*s), (V{"-U[1, 8, 15]", "+U[1, 8, 21]"}));
}

// Oracle case 20 (LookupChangelogWithAggITCase#testMultipleCompaction): sums over 3 buckets,
// compacted along the way; adding 0 is an update only without row-deduplicate.
TEST_F(StreamScanTest, LookupProducerWithAggregationAcrossCompactions) {
  for (bool dedup : {false, true}) {
    SCOPED_TRACE(dedup ? "row-deduplicate" : "no row-deduplicate");
    auto t = CreateWith(dedup ? "t_dedup" : "t", {{0, "v", DataType::Int(), ""}},
                        {{"merge-engine", "aggregation"},
                         {"fields.v.aggregate-function", "sum"},
                         {"changelog-producer", "lookup"},
                         {"bucket", "3"},
                         {"num-sorted-run.compaction-trigger", "2"},
                         {"changelog-producer.row-deduplicate", dedup ? "true" : "false"}});
    auto s = Open(*t);
    auto row = [](int64_t k, int64_t v) { return Row{Value::Int(k), Value::Int(v)}; };
    auto sorted = [](V v) {
      std::sort(v.begin(), v.end());
      return v;
    };
    Commit(*t, {{RowKind::kInsert, row(1, 1)}, {RowKind::kInsert, row(2, 2)}});
    EXPECT_EQ(sorted(Drain(*s)), (V{"+I[1, 1]", "+I[2, 2]"}));
    for (int64_t i = 2; i <= 5; i++) {
      Commit(*t, {{RowKind::kInsert, row(1, 1)}, {RowKind::kInsert, row(2, 2)}});
      EXPECT_EQ(sorted(Drain(*s)),
                sorted({"-U[1, " + std::to_string(i - 1) + "]", "+U[1, " + std::to_string(i) + "]",
                        "-U[2, " + std::to_string(2 * (i - 1)) + "]",
                        "+U[2, " + std::to_string(2 * i) + "]"}));
    }
    Commit(*t, {{RowKind::kInsert, row(1, 0)}});
    EXPECT_EQ(Drain(*s), dedup ? V{} : (V{"-U[1, 5]", "+U[1, 5]"}));
    // Compacted fully, then written again: the sums carry on from the merged values.
    ASSERT_TRUE(t->CompactFull().ok());
    Commit(*t, {{RowKind::kInsert, row(1, 1)}, {RowKind::kInsert, row(2, 2)}});
    EXPECT_EQ(sorted(Drain(*s)), sorted({"-U[1, 5]", "+U[1, 6]", "-U[2, 10]", "+U[2, 12]"}));
  }
}

// (id, a, b) with NULL for a missing string.
Row row(int64_t k, const char* a, const char* b) {
  return Row{Value::Int(k), a ? Value::String(a) : Value(), b ? Value::String(b) : Value()};
}

// Oracle case 27 (PartialUpdateITCase#testIgnoreDelete) with the lookup producer.
TEST_F(StreamScanTest, LookupProducerWithPartialUpdateIgnoringDeletes) {
  auto t = CreateWith("t", {{0, "a", DataType::String(), ""}, {0, "b", DataType::String(), ""}},
                      {{"merge-engine", "partial-update"},
                       {"partial-update.ignore-delete", "true"},
                       {"changelog-producer", "lookup"},
                       {"bucket", "1"}});
  auto s = Open(*t);
  Commit(*t, {{RowKind::kInsert, row(1, nullptr, "apple")}});
  Commit(*t, {{RowKind::kDelete, row(1, nullptr, "apple")}});
  Commit(*t, {{RowKind::kInsert, row(1, "A", nullptr)}});
  EXPECT_EQ(Drain(*s), (V{"+I[1, NULL, apple]", "-U[1, NULL, apple]", "+U[1, A, apple]"}));
}

// Oracle case 28 (PartialUpdateITCase#testRemoveRecordOnDeleteLookup).
TEST_F(StreamScanTest, LookupProducerWithPartialUpdateRemovingRecordsOnDelete) {
  auto t = CreateWith("t", {{0, "a", DataType::String(), ""}, {0, "b", DataType::String(), ""}},
                      {{"merge-engine", "partial-update"},
                       {"partial-update.remove-record-on-delete", "true"},
                       {"changelog-producer", "lookup"},
                       {"bucket", "1"}});
  auto s = Open(*t);
  Commit(*t, {{RowKind::kInsert, row(1, nullptr, "apple")}});
  Commit(*t, {{RowKind::kDelete, row(1, nullptr, "apple")}});
  Commit(*t, {{RowKind::kInsert, row(1, nullptr, "apache")}});
  Commit(*t, {{RowKind::kInsert, row(1, "A", nullptr)}});
  EXPECT_EQ(Drain(*s), (V{"+I[1, NULL, apple]", "-D[1, NULL, apple]", "+I[1, NULL, apache]",
                          "-U[1, NULL, apache]", "+U[1, A, apache]"}));
}

TEST_F(StreamScanTest, ProducersPaimonRefusesAreRefusedAtCreate) {
  TableSpec agg;
  agg.columns = {{0, "id", DataType::BigInt().NotNull(), ""}, {0, "n", DataType::BigInt(), ""}};
  agg.primary_keys = {"id"};
  agg.options = {{"changelog-producer", "lookup"}, {"full-compaction.delta-commits", "3"}};
  EXPECT_FALSE(TryCreate("agg2", agg).ok());
  TableSpec append;
  append.columns = {{0, "id", DataType::BigInt(), ""}};
  append.options = {{"changelog-producer", "input"}};
  Status st = TryCreate("a", append);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("primary key"), std::string::npos) << st.ToString();
  TableSpec first_row;
  first_row.columns = {{0, "id", DataType::BigInt().NotNull(), ""}};
  first_row.primary_keys = {"id"};
  first_row.options = {{"merge-engine", "first-row"}, {"changelog-producer", "input"}};
  st = TryCreate("f", first_row);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("first-row"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace tributary
