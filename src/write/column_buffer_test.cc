// The column write buffer and DataFileWriter::WriteColumns against the row path they replace.
#include "write/column_buffer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>

#include "common/memory_budget.h"
#include "compact/compaction_job.h"
#include "datafile/data_file.h"
#include "datafile/test_hooks.h"
#include "format/parquet/writer.h"
#include "io/file_system.h"
#include "merge/merge_config.h"

namespace tributary::write {

using compact::CompactUnit;
using compact::RunCompaction;
using datafile::DataFileWriter;
using datafile::FileLayout;
using datafile::GetTestHooks;
using datafile::ReadDataFile;
using merge::ColumnMergeOutput;
using merge::ColumnMergePlan;
using options::FileFormatOptions;
namespace {

std::vector<Field> TestFields() {
  return {{0, "k", DataType::BigInt().NotNull(), ""},
          {1, "name", DataType::String(), ""},
          {2, "a", DataType::Int(), ""},
          {3, "d", DataType::Double(), ""},
          {4, "flag", DataType::Boolean(), ""},
          {5, "price", DataType::Decimal(10, 2), ""},
          {6, "ts", DataType::Timestamp(3), ""}};
}

Row RandomRow(std::mt19937& rng, int64_t k) {
  auto maybe_null = [&](Value v) { return rng() % 5 == 0 ? Value::Null() : std::move(v); };
  double d = static_cast<double>(static_cast<int>(rng() % 2000) - 1000) / 7.0;
  if (rng() % 50 == 0) d = std::nan("");
  if (rng() % 50 == 0) d = -0.0;
  return {Value::Int(k),
          maybe_null(Value::String(std::string(rng() % 30, static_cast<char>('a' + rng() % 26)))),
          maybe_null(Value::Int(static_cast<int32_t>(rng()))),
          maybe_null(Value::Double(d)),
          maybe_null(Value::Bool(rng() % 2 == 0)),
          maybe_null(Value::Dec(Decimal{static_cast<__int128>(rng() % 100000) - 50000})),
          maybe_null(Value::Ts(Timestamp{static_cast<int64_t>(rng() % 1000000), 0}))};
}

TEST(ColumnWriteBuffer, HoldsRowsIncludingANullInTheFirstRecord) {
  ColumnWriteBuffer b(TestFields());
  Row first = {Value::Int(1), Value::Null(), Value::Null(), Value::Null(),
               Value::Null(), Value::Null(), Value::Null()};
  Row second = {Value::Int(2),
                Value::String("x"),
                Value::Int(3),
                Value::Double(1.5),
                Value::Bool(true),
                Value::Dec(Decimal{5}),
                Value::Ts(Timestamp{7, 0})};
  b.Add(RowKind::kInsert, first);
  b.Add(RowKind::kDelete, second);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b.GetRow(0), first);
  EXPECT_EQ(b.GetRow(1), second);
  EXPECT_EQ(b.kind(1), RowKind::kDelete);
  b.Clear();
  EXPECT_TRUE(b.empty());
  b.Add(RowKind::kInsert, second);
  EXPECT_EQ(b.GetRow(0), second);
}

// GrowthOf predicts what each Add adds to bytes(): every vector's doubling (integers, doubles,
// Values, string offsets and bytes, kinds), the NULL flags from the first NULL on.
TEST(ColumnWriteBuffer, GrowthOfIsWhatTheNextAddAdds) {
  std::mt19937 rng(7);
  ColumnWriteBuffer b(TestFields());
  int64_t grew = 0;
  for (int64_t k = 0; k < 20000; k++) {
    Row row = RandomRow(rng, k);
    if (k < 40) {  // NULLs first appear at different records in different columns
      for (size_t c = 1; c < row.size(); c++) {
        if (static_cast<int64_t>(c * 5) > k) row[c] = Value::Null();
      }
    }
    const int64_t before = b.bytes();
    const int64_t growth = b.GrowthOf(row);
    b.Add(RowKind::kInsert, row);
    if (k == 0) continue;  // bytes() is 0 while the buffer is empty
    ASSERT_EQ(b.bytes() - before, growth) << "record " << k;
    if (growth > 0) grew++;
  }
  EXPECT_GT(grew, 20);  // the vectors doubled many times
}

// The newest record of each key in key order, as a deduplicate plan merges the buffer: an
// integer key (the fast sort) and a composite string + integer key (the general one).
std::vector<uint32_t> DeduplicatedRows(ColumnWriteBuffer& b, const std::vector<int>& key) {
  TableSchema schema;
  schema.fields = TestFields();
  schema.primary_keys = {"k"};
  auto config = merge::MergeConfig::Make(schema);
  auto plan = ColumnMergePlan::Make(**config, schema.fields, true);
  ColumnMergeOutput out;
  auto merged = b.Merge(key, 0, &**plan, &out);
  EXPECT_TRUE(merged.ok() && *merged);
  return out.rows;
}

TEST(ColumnWriteBuffer, DeduplicateMergeKeepsTheNewestRecordOfEachKeyInKeyOrder) {
  ColumnWriteBuffer b(TestFields());
  std::vector<int64_t> keys = {5, 3, 5, 9, 3, 1, 5};
  for (int64_t k : keys) {
    Row r(7, Value::Null());
    r[0] = Value::Int(k);
    r[1] = Value::String(k % 2 ? "odd" : "even");
    r[2] = Value::Int(k / 4);
    b.Add(RowKind::kInsert, r);
  }
  EXPECT_EQ(DeduplicatedRows(b, {0}), (std::vector<uint32_t>{5, 4, 6, 3}));
  // (name, a): ("odd", 0) for 1, 3 and 3; ("odd", 1) for 5; ("odd", 2) for 9.
  EXPECT_EQ(DeduplicatedRows(b, {1, 2}), (std::vector<uint32_t>{5, 6, 3}));
}

// The buffered records merged by a partial-update plan: each column's newest non-NULL value,
// the newest record's sequence number, an INSERT.
TEST(ColumnWriteBuffer, PartialUpdateMergeTakesEachColumnsNewestNonNullValue) {
  TableSchema schema;
  schema.fields = {{0, "k", DataType::BigInt().NotNull(), ""},
                   {1, "a", DataType::String(), ""},
                   {2, "b", DataType::Int(), ""}};
  schema.primary_keys = {"k"};
  schema.options = {{"merge-engine", "partial-update"}};
  auto config = merge::MergeConfig::Make(schema);
  ASSERT_TRUE(config.ok());
  auto plan = ColumnMergePlan::Make(**config, schema.fields, true);
  ASSERT_TRUE(plan.ok() && *plan);
  ColumnWriteBuffer b(schema.fields);
  b.Add(RowKind::kInsert, {Value::Int(2), Value::String("old"), Value::Int(1)});
  b.Add(RowKind::kInsert, {Value::Int(1), Value::Null(), Value::Null()});
  b.Add(RowKind::kUpdateAfter, {Value::Int(2), Value::Null(), Value::Int(5)});
  b.Add(RowKind::kInsert, {Value::Int(2), Value::String("new"), Value::Null()});
  ColumnMergeOutput out;
  auto merged = b.Merge({0}, 100, &**plan, &out);
  ASSERT_TRUE(merged.ok() && *merged);
  EXPECT_EQ(out.rows, (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(out.sequences, (std::vector<int64_t>{101, 103}));
  EXPECT_EQ(out.kinds, (std::vector<int64_t>{0, 0}));
  // Key 1 has no values: its columns point at the appended NULL record (4).
  EXPECT_EQ(out.column_rows[1], (std::vector<uint32_t>{4, 3}));
  EXPECT_EQ(out.column_rows[2], (std::vector<uint32_t>{4, 2}));
  EXPECT_EQ(b.GetRow(4), (Row{Value::Null(), Value::Null(), Value::Null()}));
}

// An aggregation plan folds each column's function over the records (retractions retract);
// a first-row plan keeps the oldest record.
TEST(ColumnWriteBuffer, AggregationAndFirstRowMerges) {
  TableSchema schema;
  schema.fields = {{0, "k", DataType::BigInt().NotNull(), ""},
                   {1, "total", DataType::BigInt(), ""},
                   {2, "top", DataType::Int(), ""}};
  schema.primary_keys = {"k"};
  schema.options = {{"merge-engine", "aggregation"},
                    {"fields.total.aggregate-function", "sum"},
                    {"fields.top.aggregate-function", "max"},
                    {"fields.top.ignore-retract", "true"}};
  auto config = merge::MergeConfig::Make(schema);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  auto plan = ColumnMergePlan::Make(**config, schema.fields, true);
  ASSERT_TRUE(plan.ok() && *plan);
  ColumnWriteBuffer b(schema.fields);
  b.Add(RowKind::kInsert, {Value::Int(7), Value::Int(10), Value::Int(3)});
  b.Add(RowKind::kInsert, {Value::Int(5), Value::Null(), Value::Int(1)});
  b.Add(RowKind::kInsert, {Value::Int(7), Value::Int(5), Value::Int(9)});
  b.Add(RowKind::kUpdateBefore, {Value::Int(7), Value::Int(10), Value::Int(3)});
  ColumnMergeOutput out;
  auto merged = b.Merge({0}, 0, &**plan, &out);
  ASSERT_TRUE(merged.ok() && *merged) << merged.status().ToString();
  EXPECT_EQ(out.rows, (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(out.kinds, (std::vector<int64_t>{0, 0}));
  ASSERT_TRUE(out.computed[1] && out.computed[2] && !out.computed[0]);
  EXPECT_EQ(out.computed[1]->Get(0), Value::Null());
  EXPECT_EQ(out.computed[1]->Get(1), Value::Int(5));  // 10 + 5 - 10
  EXPECT_EQ(out.computed[2]->Get(1), Value::Int(9));  // the retraction is ignored

  schema.options = {{"merge-engine", "first-row"}};
  config = merge::MergeConfig::Make(schema);
  ASSERT_TRUE(config.ok());
  plan = ColumnMergePlan::Make(**config, schema.fields, true);
  ASSERT_TRUE(plan.ok() && *plan);
  ColumnWriteBuffer f(schema.fields);
  f.Add(RowKind::kInsert, {Value::Int(7), Value::Int(1), Value::Int(1)});
  f.Add(RowKind::kInsert, {Value::Int(7), Value::Int(2), Value::Int(2)});
  merged = f.Merge({0}, 0, &**plan, &out);
  ASSERT_TRUE(merged.ok() && *merged);
  EXPECT_EQ(out.rows, (std::vector<uint32_t>{0}));
  // A retraction first-row does not take: the row merge reports it.
  f.Add(RowKind::kDelete, {Value::Int(7), Value::Int(2), Value::Int(2)});
  merged = f.Merge({0}, 0, &**plan, &out);
  ASSERT_TRUE(merged.ok());
  EXPECT_FALSE(*merged);
}

// Files written two ways hold the same records, metadata and bytes.
void ExpectSameFiles(const std::string& dir, const FileLayout& layout,
                     const std::vector<meta::DataFileMeta>& want,
                     const std::vector<meta::DataFileMeta>& got) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); i++) {
    const meta::DataFileMeta& a = want[i];
    const meta::DataFileMeta& b = got[i];
    SCOPED_TRACE("file " + std::to_string(i));
    EXPECT_EQ(a.row_count, b.row_count);
    EXPECT_EQ(a.level, b.level);
    EXPECT_EQ(a.min_key, b.min_key);
    EXPECT_EQ(a.max_key, b.max_key);
    EXPECT_EQ(a.key_stats.min_values, b.key_stats.min_values);
    EXPECT_EQ(a.key_stats.max_values, b.key_stats.max_values);
    EXPECT_EQ(a.key_stats.null_counts, b.key_stats.null_counts);
    EXPECT_EQ(a.value_stats.min_values, b.value_stats.min_values);
    EXPECT_EQ(a.value_stats.max_values, b.value_stats.max_values);
    EXPECT_EQ(a.value_stats.null_counts, b.value_stats.null_counts);
    EXPECT_EQ(a.min_sequence_number, b.min_sequence_number);
    EXPECT_EQ(a.max_sequence_number, b.max_sequence_number);
    EXPECT_EQ(a.delete_row_count, b.delete_row_count);
    auto bytes_a = io::LocalFs().ReadFile(io::JoinPath(dir, a.file_name));
    auto bytes_b = io::LocalFs().ReadFile(io::JoinPath(dir, b.file_name));
    ASSERT_TRUE(bytes_a.ok() && bytes_b.ok());
    EXPECT_TRUE(*bytes_a == *bytes_b) << "the files differ";
    auto ra = ReadDataFile(io::JoinPath(dir, a.file_name), layout, a.level);
    auto rb = ReadDataFile(io::JoinPath(dir, b.file_name), layout, b.level);
    ASSERT_TRUE(ra.ok() && rb.ok());
    ASSERT_EQ(ra->size(), rb->size());
    for (size_t r = 0; r < ra->size(); r++) {
      EXPECT_EQ((*ra)[r].sequence, (*rb)[r].sequence);
      EXPECT_EQ((*ra)[r].kind, (*rb)[r].kind);
      ASSERT_EQ((*ra)[r].value.size(), (*rb)[r].value.size());
      for (size_t c = 0; c < (*ra)[r].value.size(); c++) {
        // NaN != NaN: compare as the table orders values.
        EXPECT_EQ(CompareValues((*ra)[r].value[c], (*rb)[r].value[c]), 0)
            << "record " << r << " column " << c;
      }
    }
  }
}

class WriteColumnsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = "/tmp/tributary_column_buffer_test_" + std::to_string(getpid());
    (void)io::LocalFs().RemoveAll(dir_);
  }
  void TearDown() override { (void)io::LocalFs().RemoveAll(dir_); }
  std::string dir_;
};

// The same sorted records written row by row and column by column give the same files: the same
// rolling, metadata and records.
TEST_F(WriteColumnsTest, MatchesTheRowPath) {
  FileLayout layout;
  layout.fields = TestFields();
  layout.key_columns = {0};
  layout.primary_key = true;
  std::mt19937 rng(42);
  ColumnWriteBuffer buffer(layout.fields);
  std::vector<merge::KeyValue> records;
  for (int64_t k = 0; k < 5000; k++) {
    Row r = RandomRow(rng, k * 3);
    RowKind kind = rng() % 10 == 0 ? RowKind::kDelete : RowKind::kInsert;
    buffer.Add(kind, r);
    records.push_back({100 + k, kind, std::move(r), 0, nullptr});
  }
  std::vector<uint32_t> order = DeduplicatedRows(buffer, {0});
  ASSERT_EQ(order.size(), records.size());
  std::vector<int64_t> seqs, kinds;
  for (uint32_t i : order) {
    seqs.push_back(records[i].sequence);
    kinds.push_back(static_cast<int64_t>(records[i].kind));
  }
  FileFormatOptions format;
  format.parquet_page_size = 4096;  // many pages, some dictionary-encoded
  meta::FileNamer rows_namer("rows-", ""), cols_namer("cols-", "");
  // A small target size: both roll into several files at the same records.
  const int64_t target = 40000;
  DataFileWriter by_rows(layout, dir_, &rows_namer, target, 0, meta::FileSource::kAppend, format);
  DataFileWriter by_cols(layout, dir_, &cols_namer, target, 0, meta::FileSource::kAppend, format);
  ASSERT_TRUE(by_cols.CanWriteColumns());
  for (const auto& kv : records) ASSERT_TRUE(by_rows.Write(kv).ok());
  Status st =
      by_cols.WriteColumns(buffer.Columns(), order.data(), seqs.data(), kinds.data(), order.size());
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto row_files = by_rows.Finish();
  auto col_files = by_cols.Finish();
  ASSERT_TRUE(row_files.ok() && col_files.ok());
  ASSERT_GT(row_files->size(), 2u);
  ExpectSameFiles(dir_, layout, *row_files, *col_files);
}

TEST_F(WriteColumnsTest, NullInANotNullColumnIsRefused) {
  FileLayout layout;
  layout.fields = TestFields();
  layout.key_columns = {0};
  layout.primary_key = true;
  ColumnWriteBuffer buffer(layout.fields);
  Row r(7, Value::Null());
  buffer.Add(RowKind::kInsert, r);  // k is NOT NULL
  meta::FileNamer namer("x-", "");
  DataFileWriter w(layout, dir_, &namer, 1 << 20, 0, meta::FileSource::kAppend, {});
  std::vector<uint32_t> order = {0};
  std::vector<int64_t> seqs = {1}, kinds = {0};
  Status st = w.WriteColumns(buffer.Columns(), order.data(), seqs.data(), kinds.data(), 1);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("NULL in NOT NULL column '_KEY_k'"), std::string::npos)
      << st.ToString();
  w.Abort();
}

// While writers' buffers (a charge standing for them) hold the process's budget, a compaction of
// `unit` takes the row merge, which holds a slice of each input, and writes `want`.
void ExpectRowMergeUnderPressure(const TableSchema& schema, const CompactUnit& unit,
                                 int32_t highest, const FileFormatOptions& format,
                                 const std::vector<meta::DataFileMeta>& want,
                                 const std::string& dir) {
  MemoryBudget& budget = MemoryBudget::Instance();
  const int64_t saved = budget.total();
  budget.SetTotalForTesting(int64_t{64} << 20);
  const int64_t taken = budget.buffer_limit() - budget.buffered() - budget.operators();
  budget.ChargeBuffers(taken);
  meta::FileNamer namer("pressed-" + std::to_string(highest) + "-", "");
  auto pressed = RunCompaction(dir, schema, dir, unit, highest, 30000, format, &namer);
  budget.ChargeBuffers(-taken);
  budget.SetTotalForTesting(saved);
  ASSERT_TRUE(pressed.ok()) << pressed.status().ToString();
  EXPECT_FALSE(pressed->by_columns);
  ExpectSameFiles(dir, FileLayout::Of(schema), want, pressed->after);
}

// A compaction of `unit` merged column by column a few keys (partial-update, aggregation) or
// merged records (deduplicate, first-row) at a time writes `want`: each file's rows of a chunk
// are read as a range, pages decoded again where chunks meet.
void ExpectSameFilesByChunks(const std::string& dir, const TableSchema& schema,
                             const CompactUnit& unit, int32_t highest,
                             const FileFormatOptions& format, int64_t target,
                             const std::vector<meta::DataFileMeta>& want) {
  for (size_t chunk : {1, 97, 1000}) {
    SCOPED_TRACE("chunks of " + std::to_string(chunk));
    meta::FileNamer namer("chunks-" + std::to_string(highest) + "-" + std::to_string(chunk) + "-",
                          "");
    GetTestHooks().compaction_chunk_rows = chunk;
    auto by_chunks = RunCompaction(dir, schema, dir, unit, highest, target, format, &namer);
    GetTestHooks().compaction_chunk_rows = 0;
    ASSERT_TRUE(by_chunks.ok()) << by_chunks.status().ToString();
    EXPECT_TRUE(by_chunks->by_columns);
    ExpectSameFiles(dir, FileLayout::Of(schema), want, by_chunks->after);
  }
}

// A deduplicate compaction merged column by column writes what the row merge writes: the newest
// record per key (the later file on equal sequence numbers), retractions kept below the top
// level and dropped at it.
TEST_F(WriteColumnsTest, ColumnCompactionMatchesTheRowMerge) {
  TableSchema schema;
  schema.fields = TestFields();
  schema.primary_keys = {"k"};
  FileLayout layout = FileLayout::Of(schema);
  std::mt19937 rng(7);
  FileFormatOptions format;
  format.parquet_page_size = 4096;
  meta::FileNamer namer("in-", "");
  std::vector<meta::DataFileMeta> inputs;
  int64_t seq = 0;
  for (int file = 0; file < 4; file++) {
    // Overlapping key ranges; the last file repeats the sequence numbers of the one before.
    if (file == 3) seq -= 3000;
    std::vector<merge::KeyValue> records;
    for (int64_t k = file * 500; k < file * 500 + 3000; k += 1 + static_cast<int64_t>(rng() % 3)) {
      RowKind kind = rng() % 8 == 0 ? RowKind::kDelete : RowKind::kInsert;
      records.push_back({seq++, kind, RandomRow(rng, k), 0, nullptr});
    }
    DataFileWriter w(layout, dir_, &namer, 1 << 30, 0, meta::FileSource::kAppend, format);
    for (const auto& kv : records) ASSERT_TRUE(w.Write(kv).ok());
    auto files = w.Finish();
    ASSERT_TRUE(files.ok());
    for (auto& f : *files) inputs.push_back(f);
  }
  for (int32_t highest : {5, 2}) {  // output level 2 below level 5 (keeps retractions), or the top
    SCOPED_TRACE("highest level " + std::to_string(highest));
    CompactUnit unit{2, inputs, {}};
    meta::FileNamer row_namer("rows-", ""), col_namer("cols-", "");
    GetTestHooks().row_compaction = true;
    auto by_rows = RunCompaction(dir_, schema, dir_, unit, highest, 30000, format, &row_namer);
    GetTestHooks().row_compaction = false;
    auto by_cols = RunCompaction(dir_, schema, dir_, unit, highest, 30000, format, &col_namer);
    ASSERT_TRUE(by_rows.ok()) << by_rows.status().ToString();
    ASSERT_TRUE(by_cols.ok()) << by_cols.status().ToString();
    EXPECT_FALSE(by_rows->by_columns);
    EXPECT_TRUE(by_cols->by_columns);
    ASSERT_GT(by_rows->after.size(), 1u);
    int64_t deletes = 0;
    for (const auto& f : by_rows->after) deletes += f.delete_row_count.value_or(0);
    EXPECT_EQ(deletes > 0, highest == 5);
    ExpectSameFiles(dir_, layout, by_rows->after, by_cols->after);
    ExpectRowMergeUnderPressure(schema, unit, highest, format, by_rows->after, dir_);
    ExpectSameFilesByChunks(dir_, schema, unit, highest, format, 30000, by_rows->after);
  }
}

// A partial-update compaction merged column by column writes what the row merge writes: each
// column's newest non-NULL value per key, as an INSERT with the newest sequence number.
TEST_F(WriteColumnsTest, PartialUpdateColumnCompactionMatchesTheRowMerge) {
  TableSchema schema;
  schema.fields = TestFields();
  schema.primary_keys = {"k"};
  schema.options = {{"merge-engine", "partial-update"}};
  FileLayout layout = FileLayout::Of(schema);
  std::mt19937 rng(11);
  FileFormatOptions format;
  format.parquet_page_size = 4096;
  meta::FileNamer namer("in-", "");
  std::vector<meta::DataFileMeta> inputs;
  int64_t seq = 0;
  auto write_file = [&](int file, RowKind kind) {
    std::vector<merge::KeyValue> records;
    for (int64_t k = file * 400; k < file * 400 + 2500; k += 1 + static_cast<int64_t>(rng() % 3)) {
      // Each writer fills some columns; RandomRow's NULLs leave others to older records.
      Row r = RandomRow(rng, k);
      for (size_t c = 1; c < r.size(); c++) {
        if ((c + static_cast<size_t>(file)) % 3 == 0) r[c] = Value::Null();
      }
      records.push_back(
          {seq++, rng() % 5 == 0 ? RowKind::kUpdateAfter : kind, std::move(r), 0, nullptr});
    }
    DataFileWriter w(layout, dir_, &namer, 1 << 30, 0, meta::FileSource::kAppend, format);
    for (const auto& kv : records) ASSERT_TRUE(w.Write(kv).ok());
    auto files = w.Finish();
    ASSERT_TRUE(files.ok());
    for (auto& f : *files) inputs.push_back(f);
  };
  for (int file = 0; file < 4; file++) write_file(file, RowKind::kInsert);
  CompactUnit unit{3, inputs, {}};
  meta::FileNamer row_namer("rows-", ""), col_namer("cols-", "");
  GetTestHooks().row_compaction = true;
  auto by_rows = RunCompaction(dir_, schema, dir_, unit, 5, 30000, format, &row_namer);
  GetTestHooks().row_compaction = false;
  auto by_cols = RunCompaction(dir_, schema, dir_, unit, 5, 30000, format, &col_namer);
  ASSERT_TRUE(by_rows.ok()) << by_rows.status().ToString();
  ASSERT_TRUE(by_cols.ok()) << by_cols.status().ToString();
  EXPECT_FALSE(by_rows->by_columns);
  EXPECT_TRUE(by_cols->by_columns);
  ASSERT_GT(by_rows->after.size(), 1u);
  ExpectSameFiles(dir_, layout, by_rows->after, by_cols->after);
  ExpectSameFilesByChunks(dir_, schema, unit, 5, format, 30000, by_rows->after);
  // While writers' buffers hold the process's budget, the merge takes the row merge: the same
  // files.
  ExpectRowMergeUnderPressure(schema, unit, 5, format, by_rows->after, dir_);
  // A file with a retraction (written before the table refused them, say) takes the row merge.
  write_file(4, RowKind::kDelete);
  CompactUnit with_delete{3, inputs, {}};
  for (size_t chunk : {0, 7}) {  // chunks of keys: the retraction is found before any is written
    GetTestHooks().compaction_chunk_rows = chunk;
    meta::FileNamer namer2("again-" + std::to_string(chunk) + "-", "");
    auto again = RunCompaction(dir_, schema, dir_, with_delete, 5, 30000, format, &namer2);
    GetTestHooks().compaction_chunk_rows = 0;
    EXPECT_FALSE(again.ok() && again->by_columns);
  }
}

// Keys other than one integer column (a string and an integer here) merge column by column too,
// for every engine.
TEST_F(WriteColumnsTest, CompositeStringKeysCompactByColumns) {
  for (const std::string variant : {"deduplicate", "partial-update", "aggregation", "first-row",
                                    "deduplicate ignore-delete", "aggregation ignore-delete"}) {
    SCOPED_TRACE(variant);
    const std::string engine = variant.substr(0, variant.find(' '));
    const bool ignore_delete = variant.find("ignore-delete") != std::string::npos;
    TableSchema schema;
    schema.fields = TestFields();
    schema.fields[1].type = DataType::String().NotNull();
    schema.primary_keys = {"name", "k"};
    schema.options = {{"merge-engine", engine}};
    if (ignore_delete) schema.options["ignore-delete"] = "true";
    if (engine == "aggregation") {
      // Defaults (last_non_null_value) for the others; sums of small integers cannot overflow.
      schema.options["fields.a.aggregate-function"] = "sum";
      schema.options["fields.d.aggregate-function"] = "max";
      schema.options["fields.price.aggregate-function"] = "min";
    }
    FileLayout layout = FileLayout::Of(schema);
    std::mt19937 rng(3);
    FileFormatOptions format;
    const std::string tag = engine + (ignore_delete ? "-ig" : "");
    meta::FileNamer namer(tag + "-in-", "");
    std::vector<meta::DataFileMeta> inputs;
    int64_t seq = 0;
    for (int file = 0; file < 3; file++) {
      std::vector<merge::KeyValue> records;
      for (int64_t k = 0; k < 1500; k += 1 + static_cast<int64_t>(rng() % 2)) {
        Row r = RandomRow(rng, k % 300);
        r[1] = Value::String("n" + std::to_string(k % 7));
        // Retractions in files (written before 'ignore-delete' was set, for those variants).
        RowKind kind = (engine == "deduplicate" || ignore_delete) && rng() % 9 == 0
                           ? RowKind::kDelete
                           : RowKind::kInsert;
        if (engine == "aggregation") r[2] = Value::Int(static_cast<int32_t>(rng() % 1000));
        records.push_back({seq++, kind, std::move(r), 0, nullptr});
      }
      // Files hold each key once, sorted by (name, k).
      std::sort(records.begin(), records.end(), [](const auto& a, const auto& b) {
        int c = CompareValues(a.value[1], b.value[1]);
        return c != 0 ? c < 0 : CompareValues(a.value[0], b.value[0]) < 0;
      });
      records.erase(std::unique(records.begin(), records.end(),
                                [](const auto& a, const auto& b) {
                                  return CompareValues(a.value[1], b.value[1]) == 0 &&
                                         CompareValues(a.value[0], b.value[0]) == 0;
                                }),
                    records.end());
      DataFileWriter w(layout, dir_, &namer, 1 << 30, 0, meta::FileSource::kAppend, format);
      for (const auto& kv : records) ASSERT_TRUE(w.Write(kv).ok());
      auto files = w.Finish();
      ASSERT_TRUE(files.ok());
      for (auto& f : *files) inputs.push_back(f);
    }
    CompactUnit unit{2, inputs, {}};
    meta::FileNamer row_namer(tag + "-rows-", ""), col_namer(tag + "-cols-", "");
    GetTestHooks().row_compaction = true;
    auto by_rows = RunCompaction(dir_, schema, dir_, unit, 5, 1 << 30, format, &row_namer);
    GetTestHooks().row_compaction = false;
    auto by_cols = RunCompaction(dir_, schema, dir_, unit, 5, 1 << 30, format, &col_namer);
    ASSERT_TRUE(by_rows.ok()) << by_rows.status().ToString();
    ASSERT_TRUE(by_cols.ok()) << by_cols.status().ToString();
    EXPECT_TRUE(by_cols->by_columns);
    ASSERT_EQ(by_rows->after.size(), 1u);
    EXPECT_GT(by_rows->after[0].row_count, 1000);
    ExpectSameFiles(dir_, layout, by_rows->after, by_cols->after);
    ExpectSameFilesByChunks(dir_, schema, unit, 5, format, 1 << 30, by_rows->after);
  }
}

// A file whose keys are not strictly ascending by CompareValues (-0.0 and 0.0 of a DOUBLE key,
// as another writer may store them) is left to the row merge, not refused.
TEST_F(WriteColumnsTest, KeysThatCompareEqualInOneFileTakeTheRowMerge) {
  TableSchema schema;
  schema.fields = {{0, "k", DataType::Double().NotNull(), ""}, {1, "v", DataType::Int(), ""}};
  schema.primary_keys = {"k"};
  FileLayout layout = FileLayout::Of(schema);
  meta::FileNamer namer("eq-", "");
  std::vector<meta::DataFileMeta> inputs;
  for (int file = 0; file < 2; file++) {
    DataFileWriter w(layout, dir_, &namer, 1 << 30, 0, meta::FileSource::kAppend, {});
    std::vector<merge::KeyValue> records = {
        {file * 10 + 1, RowKind::kInsert, {Value::Double(-0.0), Value::Int(file)}, 0, nullptr},
        {file * 10 + 2, RowKind::kInsert, {Value::Double(0.0), Value::Int(file + 5)}, 0, nullptr},
        {file * 10 + 3, RowKind::kInsert, {Value::Double(1.5), Value::Int(file + 9)}, 0, nullptr}};
    for (const auto& kv : records) ASSERT_TRUE(w.Write(kv).ok());
    auto files = w.Finish();
    ASSERT_TRUE(files.ok());
    for (auto& f : *files) inputs.push_back(f);
  }
  CompactUnit unit{5, inputs, {}};
  auto done = RunCompaction(dir_, schema, dir_, unit, 5, 1 << 30, {}, &namer);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_FALSE(done->by_columns);
  ASSERT_EQ(done->after.size(), 1u);
}

}  // namespace
}  // namespace tributary::write
