// A bucket's files merged column by column (merged_columns.cc) give what the row merge gives the
// same records: random Parquet files of overlapping keys (integer and string keys, every row
// kind, ties of sequence numbers across files) read through ReadDeduplicatedColumns and merged
// with an aggregation plan through MergeFilesByColumns, against merge functions fed the records
// ReadDataFile reads.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "common/memory_budget.h"
#include "datafile/data_file.h"
#include "datafile/parquet_file.h"
#include "datafile/point_lookup.h"
#include "datafile/range_reader.h"
#include "format/parquet/reader.h"
#include "io/file_system.h"
#include "merge/merge_config.h"
#include "merge/merge_function.h"
#include "merge/sort_merge_reader.h"

namespace tributary::datafile {
namespace {

class MergedColumnsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = "/tmp/tributary_merged_columns_test_" + std::to_string(getpid());
    (void)io::LocalFs().RemoveAll(dir_);
    ASSERT_TRUE(io::LocalFs().MakeDirs(dir_).ok());
  }
  void TearDown() override { (void)io::LocalFs().RemoveAll(dir_); }

  // One Parquet data file named `prefix`... of the `n` records make(0..n-1), written in that
  // order, with row groups and pages of about the bytes given (0: the defaults). Its metadata
  // (a row count of 0 when it could not be written: the failure is reported).
  meta::DataFileMeta WriteFile(const FileLayout& layout, const std::string& prefix, int64_t n,
                               const std::function<merge::KeyValue(int64_t)>& make,
                               int64_t row_group_bytes = 0, int64_t page_bytes = 0) {
    options::FileFormatOptions o;
    o.format = "parquet";
    if (row_group_bytes > 0) o.parquet_row_group_size = row_group_bytes;
    if (page_bytes > 0) o.parquet_page_size = page_bytes;
    meta::FileNamer namer(prefix, "");
    DataFileWriter w(layout, dir_, &namer, int64_t{1} << 30, 5, meta::FileSource::kAppend, o);
    for (int64_t i = 0; i < n; i++) {
      Status s = w.Write(make(i));
      EXPECT_TRUE(s.ok()) << s.ToString();
      if (!s.ok()) return meta::DataFileMeta();
    }
    auto files = w.Finish();
    EXPECT_TRUE(files.ok()) << files.status().ToString();
    if (!files.ok()) return meta::DataFileMeta();
    EXPECT_EQ(files->size(), 1u);
    return (*files)[0];
  }

  // A table (k key, v BIGINT, s STRING) with `options`; string keys with `string_key`.
  TableSchema Schema(bool string_key, std::map<std::string, std::string> options) {
    TableSchema schema;
    schema.fields = {{0, "k", (string_key ? DataType::String() : DataType::BigInt()).NotNull(), ""},
                     {1, "v", DataType::BigInt(), ""},
                     {2, "s", DataType::String(), ""}};
    schema.primary_keys = {"k"};
    schema.options = std::move(options);
    return schema;
  }

  // `num_files` files in merge order, each keys sorted, sequences rising file by file with ties
  // between neighbours. Returns their paths.
  std::vector<DataFileRef> WriteFiles(const FileLayout& layout, std::mt19937* rng, size_t num_files,
                                      bool string_key, bool retractions) {
    std::vector<DataFileRef> out;
    int64_t seq = 0;
    for (size_t f = 0; f < num_files; f++) {
      options::FileFormatOptions o;
      o.format = "parquet";
      meta::FileNamer namer("data-" + std::to_string(f) + "-", "");
      DataFileWriter w(layout, dir_, &namer, 1 << 30, 0, meta::FileSource::kAppend, o);
      std::map<std::string, merge::KeyValue> sorted;  // by key (strings padded to sort as ints)
      for (int64_t key = 0; key < 60; key++) {
        if ((*rng)() % 3 == 0) continue;
        merge::KeyValue kv;
        kv.sequence = seq + static_cast<int64_t>((*rng)() % 4);
        kv.kind = retractions ? static_cast<RowKind>((*rng)() % 4) : RowKind::kInsert;
        char name[16];
        snprintf(name, sizeof name, "key%03d", static_cast<int>(key));
        kv.value = {string_key ? Value::String(name) : Value::Int(key),
                    (*rng)() % 5 == 0 ? Value::Null() : Value::Int((*rng)() % 100),
                    Value::String("f" + std::to_string(f) + "k" + std::to_string(key))};
        sorted[name] = kv;
      }
      for (const auto& [name, kv] : sorted) EXPECT_TRUE(w.Write(kv).ok());
      seq += 3;  // the next file's sequences tie with this one's highest
      auto files = w.Finish();
      EXPECT_TRUE(files.ok()) << files.status().ToString();
      for (const auto& m : *files) out.push_back({io::JoinPath(dir_, m.file_name), m.row_count});
    }
    return out;
  }

  // The rows merge functions give the files' records, in key order (retractions dropped).
  std::vector<Row> RowMerge(const TableSchema& schema, const FileLayout& layout,
                            const std::vector<DataFileRef>& files) {
    auto config = merge::MergeConfig::Make(schema);
    EXPECT_TRUE(config.ok());
    std::map<Row, std::vector<merge::KeyValue>, bool (*)(const Row&, const Row&)> by_key(
        [](const Row& a, const Row& b) { return CompareKeys(a, b) < 0; });
    for (const auto& f : files) {
      auto records = ReadDataFile(f, layout, 0);
      EXPECT_TRUE(records.ok()) << records.status().ToString();
      for (auto& kv : *records) by_key[{kv.value[0]}].push_back(kv);
    }
    std::vector<Row> out;
    for (auto& [key, records] : by_key) {
      std::stable_sort(records.begin(), records.end(),
                       [](const auto& a, const auto& b) { return a.sequence < b.sequence; });
      auto fn = merge::MakeMergeFunction(*config, schema);
      EXPECT_TRUE(fn.ok());
      (*fn)->Reset();
      for (const auto& kv : records) EXPECT_TRUE((*fn)->Add(kv).ok());
      EXPECT_TRUE((*fn)->Complete().ok());
      auto merged = (*fn)->Result();
      if (merged && !IsRetract(merged->kind)) out.push_back(merged->value);
    }
    return out;
  }

  std::string dir_;
};

TEST_F(MergedColumnsTest, DeduplicatedColumnsAgreeWithTheRowMerge) {
  std::mt19937 rng(11);
  for (int round = 0; round < 24; round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    const bool string_key = round % 2 == 1;
    const size_t num_files = 1 + round % 4;  // two files take their own merge
    const TableSchema schema = Schema(string_key, {});
    const FileLayout layout = FileLayout::Of(schema);
    const auto files = WriteFiles(layout, &rng, num_files, string_key, /*retractions=*/true);
    const std::vector<Row> expected = RowMerge(schema, layout, files);
    auto batch = ReadDeduplicatedColumns(files, layout, {0, 1, 2}, nullptr, nullptr);
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    ASSERT_TRUE(batch->has_value()) << "the column path did not read the files";
    const ColumnBatch& b = **batch;
    ASSERT_EQ(b.num_rows, expected.size());
    for (size_t r = 0; r < expected.size(); r++) {
      for (size_t c = 0; c < 3; c++) {
        EXPECT_EQ(b.columns[c].Get(r), expected[r][c]) << "row " << r << " column " << c;
      }
    }
    for (const auto& f : files) (void)io::LocalFs().Remove(f.path);
  }
}

TEST_F(MergedColumnsTest, AggregationByColumnsAgreesWithTheRowMerge) {
  std::mt19937 rng(12);
  for (int round = 0; round < 12; round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    const TableSchema schema = Schema(round % 2 == 1, {{"merge-engine", "aggregation"},
                                                       {"fields.v.aggregate-function", "sum"},
                                                       {"fields.s.aggregate-function", "max"}});
    const FileLayout layout = FileLayout::Of(schema);
    const auto files = WriteFiles(layout, &rng, 1 + round % 4, round % 2 == 1, false);
    const std::vector<Row> expected = RowMerge(schema, layout, files);
    auto config = merge::MergeConfig::Make(schema);
    ASSERT_TRUE(config.ok());
    auto plan = merge::ColumnMergePlan::Make(**config, layout.fields, /*keep_retracts=*/false);
    ASSERT_TRUE(plan.ok() && plan->has_value());
    auto merged = MergeFilesByColumns(files, layout, &**plan);
    ASSERT_TRUE(merged.ok()) << merged.status().ToString();
    ASSERT_TRUE(merged->has_value());
    const MergedColumns& m = **merged;
    ASSERT_EQ(m.merged.size(), expected.size());
    for (size_t r = 0; r < expected.size(); r++) {
      EXPECT_EQ(m.columns[0].Get(m.merged.SourceRow(0, r)), expected[r][0]) << "row " << r;
      for (size_t c = 1; c < 3; c++) {
        ASSERT_TRUE(m.merged.computed[c].has_value());
        EXPECT_EQ(m.merged.computed[c]->Get(r), expected[r][c]) << "row " << r << " col " << c;
      }
    }
    // A few keys at a time (MergeFilesByColumnChunks): the same rows, the merge charged to the
    // process's budget while it runs and released after.
    const int64_t before = MemoryBudget::Instance().operators();
    const int64_t keys = static_cast<int64_t>(expected.size());  // at most the records
    std::vector<Row> chunked;
    auto done = MergeFilesByColumnChunks(
        files, layout, &**plan, nullptr, nullptr, 7, [&](const MergedColumns& chunk) {
          EXPECT_GE(MemoryBudget::Instance().operators() - before, keys * 32);
          for (size_t r = 0; r < chunk.merged.size(); r++) {
            chunked.push_back({chunk.columns[0].Get(chunk.merged.SourceRow(0, r)),
                               chunk.merged.computed[1]->Get(r), chunk.merged.computed[2]->Get(r)});
          }
          return true;
        });
    ASSERT_TRUE(done.ok()) << done.status().ToString();
    EXPECT_TRUE(*done);
    EXPECT_EQ(chunked, expected);
    EXPECT_EQ(MemoryBudget::Instance().operators(), before);
    // A chunk larger than the files is charged for what they hold (at most a record of each
    // file a key: 96 bytes a record in all), not for the chunk's size.
    const int64_t most = 96 * keys * static_cast<int64_t>(files.size());
    done = MergeFilesByColumnChunks(
        files, layout, &**plan, nullptr, nullptr, 65536, [&](const MergedColumns&) {
          EXPECT_LE(MemoryBudget::Instance().operators() - before, most);
          return true;
        });
    ASSERT_TRUE(done.ok()) << done.status().ToString();
    // fn's false stops the merge after its chunk (a read that has its LIMIT): keys of 2 chunks
    // or more are merged once.
    int calls = 0;
    done = MergeFilesByColumnChunks(files, layout, &**plan, nullptr, nullptr, 2,
                                    [&](const MergedColumns&) { return ++calls == 0; });
    ASSERT_TRUE(done.ok()) << done.status().ToString();
    EXPECT_TRUE(*done);
    EXPECT_EQ(calls, expected.empty() ? 0 : 1);
    for (const auto& f : files) (void)io::LocalFs().Remove(f.path);
  }
}

// MergedChunkReader hands out a merge's chunks one call at a time: the rows the row merge gives,
// for deduplicate (its winners found on the keys, their columns gathered a chunk at a time,
// retractions dropped), partial-update and aggregation; the merge charged to the process's
// budget while the reader is open and released after its last chunk, or when it is dropped
// early (a read that stops).
TEST_F(MergedColumnsTest, ChunkReaderHandsOutTheMergeAChunkAtATime) {
  std::mt19937 rng(13);
  const std::vector<std::map<std::string, std::string>> engines = {
      {},
      {{"merge-engine", "partial-update"}},
      {{"merge-engine", "aggregation"},
       {"fields.v.aggregate-function", "sum"},
       {"fields.s.aggregate-function", "max"}}};
  for (int round = 0; round < 18; round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    const auto& options = engines[round % 3];
    const bool string_key = round % 2 == 1;
    const bool deduplicate = options.empty();
    const TableSchema schema = Schema(string_key, options);
    const FileLayout layout = FileLayout::Of(schema);
    const auto files = WriteFiles(layout, &rng, 2 + round % 3, string_key, deduplicate);
    const std::vector<Row> expected = RowMerge(schema, layout, files);
    auto config = merge::MergeConfig::Make(schema);
    ASSERT_TRUE(config.ok());
    auto plan = merge::ColumnMergePlan::Make(**config, layout.fields, /*keep_retracts=*/false);
    ASSERT_TRUE(plan.ok() && plan->has_value());
    const int64_t before = MemoryBudget::Instance().operators();
    auto reader = MergedChunkReader::Open(
        files, layout, std::make_unique<merge::ColumnMergePlan>(std::move(**plan)), std::nullopt,
        nullptr, 5);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    ASSERT_TRUE(*reader != nullptr) << "the files need the row merge";
    std::vector<Row> got;
    int chunks = 0;
    while (true) {
      auto chunk = (*reader)->Next();
      ASSERT_TRUE(chunk.ok()) << chunk.status().ToString();
      if (*chunk == nullptr) break;
      chunks++;
      EXPECT_GT(MemoryBudget::Instance().operators(), before);
      const MergedColumns& m = **chunk;
      EXPECT_LE(m.merged.size(), 5u);
      // At most a chunk's keys of rows of each file, however many keys between two winners
      // were deleted or overwritten (+1: partial-update's NULL row).
      EXPECT_LE(m.columns[0].size(), 5 * files.size() + 1);
      for (size_t r = 0; r < m.merged.size(); r++) {
        Row row;
        for (size_t c = 0; c < 3; c++) {
          const bool computed = c < m.merged.computed.size() && m.merged.computed[c];
          row.push_back(computed ? m.merged.computed[c]->Get(r)
                                 : m.columns[c].Get(m.merged.SourceRow(c, r)));
        }
        got.push_back(std::move(row));
      }
    }
    EXPECT_EQ(got, expected);
    EXPECT_GE(chunks, static_cast<int>(expected.size() / 5));
    EXPECT_EQ(MemoryBudget::Instance().operators(), before);  // released after the last chunk
    // Dropped after one chunk: released too.
    auto again =
        MergedChunkReader::Open(files, layout,
                                std::make_unique<merge::ColumnMergePlan>(
                                    **merge::ColumnMergePlan::Make(**config, layout.fields, false)),
                                std::nullopt, nullptr, 5);
    ASSERT_TRUE(again.ok() && *again != nullptr);
    ASSERT_TRUE((*again)->Next().ok());
    EXPECT_GT(MemoryBudget::Instance().operators(), before);
    again->reset();
    EXPECT_EQ(MemoryBudget::Instance().operators(), before);
    for (const auto& f : files) (void)io::LocalFs().Remove(f.path);
  }
}

// A deletion-vector read (ReadDataFileColumns with deleted positions): a file of many row
// groups, some skipped by a filter's statistics, gives the rows the row reader gives less the
// deleted positions (counted over the whole file) and the retractions.
TEST_F(MergedColumnsTest, DeletedPositionsCountOverTheWholeFileWhateverGroupsAreSkipped) {
  TableSchema schema = Schema(false, {});
  FileLayout layout = FileLayout::Of(schema);
  std::mt19937 rng(7);
  const meta::DataFileMeta f = WriteFile(
      layout, "data-dv-", 3000,
      [](int64_t key) {
        merge::KeyValue kv;
        kv.sequence = key;
        kv.kind = key % 17 == 0 ? RowKind::kDelete : RowKind::kInsert;
        kv.value = {Value::Int(key), Value::Int(key), Value::String("s" + std::to_string(key))};
        return kv;
      },
      /*row_group_bytes=*/2048);  // many row groups
  ASSERT_EQ(f.row_count, 3000);
  const DataFileRef ref{io::JoinPath(dir_, f.file_name), f.row_count};
  std::vector<int64_t> deleted;
  for (int64_t p = 0; p < 3000; p++) {
    if (rng() % 4 == 0) deleted.push_back(p);
  }
  // v >= 2000: the statistics skip the row groups before it.
  std::vector<Predicate> filters = {Predicate{1, Predicate::Op::kGe, {Value::Int(2000)}}};
  for (const std::vector<Predicate>* f : {static_cast<const std::vector<Predicate>*>(nullptr),
                                          static_cast<const std::vector<Predicate>*>(&filters)}) {
    auto batches = ReadDataFileColumns(ref, layout, {0, 2}, f, f, &deleted);
    ASSERT_TRUE(batches.ok()) << batches.status().ToString();
    ASSERT_TRUE(batches->has_value());
    EXPECT_GT(batches->value().size(), 2u);  // several row groups
    std::vector<int64_t> got;
    for (const auto& b : **batches) {
      for (size_t r = 0; r < b.num_rows; r++) {
        got.push_back(b.columns[0].Get(r).int_value());
        EXPECT_EQ(b.columns[1].Get(r).string_value(), "s" + std::to_string(got.back()));
      }
    }
    auto records = ReadDataFile(ref, layout, 5, std::nullopt, nullptr);
    ASSERT_TRUE(records.ok());
    std::vector<int64_t> want;
    for (size_t p = 0; p < records->size(); p++) {
      const auto& kv = (*records)[p];
      if (std::binary_search(deleted.begin(), deleted.end(), static_cast<int64_t>(p))) continue;
      if (IsRetract(kv.kind) || (f && kv.value[1].int_value() < 2000)) continue;
      want.push_back(kv.value[0].int_value());
    }
    EXPECT_EQ(got, want);
  }
}

// A column read in ascending ranges (ColumnRangeReader: a page decoded once, its rows past a
// range kept for the next) gives the rows of the column read whole: ranges within a page, across
// pages and row groups, with gaps, over row groups of which some are not read.
TEST_F(MergedColumnsTest, RangeReadsGiveTheColumnsRows) {
  TableSchema schema = Schema(false, {});
  FileLayout layout = FileLayout::Of(schema);
  const meta::DataFileMeta f = WriteFile(
      layout, "data-ranges-", 5000,
      [](int64_t key) {
        return merge::KeyValue{
            key,
            RowKind::kInsert,
            {Value::Int(key), Value::Int(key * 3),
             key % 7 == 0 ? Value::Null() : Value::String("s" + std::to_string(key))},
            0,
            nullptr};
      },
      /*row_group_bytes=*/16384, /*page_bytes=*/512);  // several row groups, many pages in each
  ASSERT_EQ(f.row_count, 5000);
  auto reader = OpenParquet({io::JoinPath(dir_, f.file_name), f.row_count});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ASSERT_GT((*reader)->num_row_groups(), 3);
  // Every row group but the second: positions count the rows of the groups read.
  std::vector<int> groups;
  for (int rg = 0; rg < (*reader)->num_row_groups(); rg++) {
    if (rg != 1) groups.push_back(rg);
  }
  for (int column : {(*reader)->schema().FindColumn("v"), (*reader)->schema().FindColumn("s")}) {
    ASSERT_GE(column, 0);
    ColumnVector whole;
    for (int rg : groups) {
      auto v = (*reader)->ReadRowGroupVectors(rg, {column});
      ASSERT_TRUE(v.ok()) << v.status().ToString();
      if (whole.size() == 0) {
        whole = std::move((*v)[0]);
      } else {
        whole.AppendAll(std::move((*v)[0]));
      }
    }
    std::mt19937 rng(static_cast<uint32_t>(column));
    for (int64_t step : {1, 3, 37, 600, 2500}) {
      SCOPED_TRACE("ranges of up to " + std::to_string(step) + " rows, column " +
                   std::to_string(column));
      ColumnRangeReader ranges(*reader, groups, column, "test");
      int64_t at = 0;
      const int64_t n = static_cast<int64_t>(whole.size());
      while (at < n) {
        if (rng() % 4 == 0) at += static_cast<int64_t>(rng() % 50);  // a gap
        const int64_t end = std::min(n, at + 1 + static_cast<int64_t>(rng() % step));
        if (at >= end) break;
        auto got = ranges.Read(at, end);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        ASSERT_EQ(static_cast<int64_t>(got->size()), end - at);
        for (int64_t r = at; r < end; r++) {
          ASSERT_EQ(CompareValues(got->Get(static_cast<size_t>(r - at)), whole.Get(r)), 0)
              << "position " << r;
        }
        at = end;
      }
    }
  }
}

// A file read a slice of rows at a time (OpenSlicedRecords: what a compaction's row merge and a
// point lookup's packing read) gives the records read whole, less the rows a deletion vector
// deletes: slices across pages and row groups, more rows than a slice.
TEST_F(MergedColumnsTest, SlicedRecordsGiveTheFilesRecords) {
  TableSchema schema = Schema(false, {});
  FileLayout layout = FileLayout::Of(schema);
  const int64_t n = 40000;
  const meta::DataFileMeta f = WriteFile(
      layout, "data-sliced-", n,
      [](int64_t key) {
        return merge::KeyValue{
            key * 2,
            static_cast<RowKind>(key % 4),
            {Value::Int(key), key % 11 == 0 ? Value::Null() : Value::Int(key * 3),
             Value::String("s" + std::to_string(key))},
            0,
            nullptr};
      },
      /*row_group_bytes=*/60000, /*page_bytes=*/4096);  // several row groups, many pages in each
  ASSERT_EQ(f.row_count, n);
  const DataFileRef ref{io::JoinPath(dir_, f.file_name), f.row_count};
  auto reader = OpenParquet(ref);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ASSERT_GT((*reader)->num_row_groups(), 2);
  auto whole = ReadDataFile(ref, layout, 3);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  ASSERT_EQ(static_cast<int64_t>(whole->size()), n);
  std::set<int64_t> deleted;
  for (int64_t r = 0; r < n; r += 7) deleted.insert(r);
  deleted.insert(16383);
  deleted.insert(16384);
  auto sliced = OpenSlicedRecords(ref, layout, 3, &deleted);
  ASSERT_TRUE(sliced.ok()) << sliced.status().ToString();
  ASSERT_NE(*sliced, nullptr);
  size_t at = 0;
  merge::KeyValue kv;
  while (true) {
    auto more = (*sliced)->Next(&kv);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!*more) break;
    while (deleted.count(static_cast<int64_t>(at))) at++;
    ASSERT_LT(at, whole->size());
    const merge::KeyValue& want = (*whole)[at];
    ASSERT_EQ(kv.sequence, want.sequence) << at;
    ASSERT_EQ(kv.kind, want.kind) << at;
    ASSERT_EQ(kv.level, 3) << at;
    ASSERT_EQ(kv.value, want.value) << at;
    at++;
  }
  while (deleted.count(static_cast<int64_t>(at))) at++;
  EXPECT_EQ(at, whole->size());
}

// A point lookup packs a file it decodes whole (PackedRecords) and binary-searches it; a file
// whose keys do not ascend (damaged, or written by something that did not sort) is an error naming
// it, not a search that answers wrongly. The same file sorted is found key by key.
TEST_F(MergedColumnsTest, PointLookupsRefuseAFileWhoseKeysDoNotAscend) {
  TableSchema schema = Schema(false, {});
  schema.id = 0;
  FileLayout layout = FileLayout::Of(schema);
  for (bool sorted : {true, false}) {
    const meta::DataFileMeta f =
        WriteFile(layout, sorted ? "data-sorted-" : "data-unsorted-", 100, [sorted](int64_t i) {
          const int64_t key = sorted ? i : (i * 37) % 100;
          return merge::KeyValue{i,
                                 RowKind::kInsert,
                                 {Value::Int(key), Value::Int(key * 3), Value::String("s")},
                                 0,
                                 nullptr};
        });
    ASSERT_EQ(f.row_count, 100);
    const std::string path = io::JoinPath(dir_, f.file_name);
    auto loaded = LoadSortedFile(path, layout, f, schema.id, nullptr);
    if (!sorted) {
      ASSERT_FALSE(loaded.ok());
      EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption);
      EXPECT_NE(loaded.status().ToString().find("keys out of order"), std::string::npos)
          << loaded.status().ToString();
      EXPECT_NE(loaded.status().ToString().find(f.file_name), std::string::npos);
      continue;
    }
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    ASSERT_TRUE((*loaded)->packed.has_value());
    for (int64_t key = 0; key < 100; key++) {
      std::vector<merge::KeyValue> found;
      ASSERT_TRUE(SearchSorted(**loaded, layout, {Value::Int(key)}, &found).ok());
      ASSERT_EQ(found.size(), 1u) << key;
      EXPECT_EQ(found[0].value[1], Value::Int(key * 3));
      EXPECT_EQ(found[0].sequence, key);
    }
  }
}

}  // namespace
}  // namespace tributary::datafile
