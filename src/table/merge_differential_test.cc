// Randomized differential test: random upserts, deletes and partial-column writes go both to a
// table and to a simple in-memory model of its merge engine; after every commit and after full
// compactions the table must read exactly what the model holds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <random>

#include "datafile/test_hooks.h"
#include "io/file_system.h"
#include "table/warehouse_test_base.h"
#include "tributary/catalog.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"
#include "tributary/table_writer.h"

namespace tributary {
namespace {

using Model = std::map<int64_t, Row>;  // key -> (k, a, b, c)
constexpr int kCols = 4;

struct Op {
  RowKind kind = RowKind::kInsert;
  Row row;
  std::optional<std::vector<std::string>> cols;  // static partial write
};

class DifferentialTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = "/tmp/tributary_diff_" + std::to_string(getpid()) + "_" + GetParam();
    (void)io::LocalFs().RemoveAll(dir_);
    catalog_ = std::move(Catalog::Open(dir_)).value();
  }
  void TearDown() override { (void)io::LocalFs().RemoveAll(dir_); }

  std::vector<Row> Read(Table& t) { return ReadAllRows(t); }

  std::string dir_;
  std::unique_ptr<Catalog> catalog_;
};

Value RandInt(std::mt19937& rng, int null_pct = 20) {
  if (static_cast<int>(rng() % 100) < null_pct) return Value();
  return Value::Int(static_cast<int64_t>(rng() % 100));
}

TEST_P(DifferentialTest, TableMatchesModel) {
  const std::string engine = GetParam();
  TableSpec spec;
  spec.columns = {{0, "k", DataType::BigInt(), ""},
                  {0, "a", DataType::BigInt(), ""},
                  {0, "b", DataType::BigInt(), ""},
                  {0, "c", DataType::BigInt(), ""}};
  spec.primary_keys = {"k"};
  spec.options = {{"bucket", "2"}, {"num-sorted-run.compaction-trigger", "3"}};
  if (engine == "partial-update") spec.options["merge-engine"] = "partial-update";
  if (engine == "aggregation") {
    spec.options["merge-engine"] = "aggregation";
    spec.options["fields.a.aggregate-function"] = "sum";
    spec.options["fields.b.aggregate-function"] = "max";
    spec.options["fields.b.ignore-retract"] = "true";
    spec.options["fields.c.aggregate-function"] = "count";
  }
  if (engine == "first-row") spec.options["merge-engine"] = "first-row";
  if (engine == "versioned") {
    spec.options["merge-engine"] = "versioned";
    spec.options["table.merge-engine.versioned.ver-column"] = "c";
  }
  ASSERT_TRUE(catalog_->CreateTable({"default", "t", ""}, spec, false).ok());
  auto table = std::move(catalog_->GetTable({"default", "t", ""})).value();

  std::mt19937 rng(engine.size() * 7919 + 3);
  Model model;
  auto apply = [&](const Op& op) {
    int64_t k = op.row[0].int_value();
    auto it = model.find(k);
    bool exists = it != model.end();
    if (engine == "deduplicate" || engine == "partial-update") {
      if (op.kind == RowKind::kDelete) {
        model.erase(k);
        return;
      }
      Row base = exists ? it->second : Row{Value::Int(k), Value(), Value(), Value()};
      for (int i = 1; i < kCols; i++) {
        bool listed = !op.cols || std::find(op.cols->begin(), op.cols->end(),
                                            spec.columns[i].name) != op.cols->end();
        if (!listed) continue;
        if (engine == "partial-update" && !op.cols && op.row[i].is_null()) continue;
        base[i] = op.row[i];
      }
      model[k] = base;
    } else if (engine == "aggregation") {
      Row base = exists ? it->second : Row{Value::Int(k), Value(), Value(), Value()};
      bool add = IsAdd(op.kind);
      const Value& a = op.row[1];
      if (!a.is_null()) {
        int64_t cur = base[1].is_null() ? 0 : base[1].int_value();
        if (base[1].is_null() && add)
          base[1] = a;
        else
          base[1] = Value::Int(add ? cur + a.int_value() : cur - a.int_value());
      }
      if (add && !op.row[2].is_null() &&
          (base[2].is_null() || op.row[2].int_value() > base[2].int_value())) {
        base[2] = op.row[2];
      }
      int64_t cnt = base[3].is_null() ? 0 : base[3].int_value();
      int64_t ind = op.row[3].is_null() ? 0 : 1;
      base[3] = Value::Int(add ? cnt + ind : cnt - ind);
      model[k] = base;
    } else if (engine == "first-row") {
      if (!exists) model[k] = op.row;
    } else if (engine == "versioned") {
      if (!exists || CompareValues(op.row[3], it->second[3]) >= 0) model[k] = op.row;
    }
  };

  for (int commit = 0; commit < 25; commit++) {
    auto w = table->NewWriter({});
    ASSERT_TRUE(w.ok());
    std::optional<std::vector<std::string>> cols;
    bool partial = (engine == "deduplicate" || engine == "partial-update") && rng() % 3 == 0;
    if (partial) {
      cols = std::vector<std::string>{"k"};
      for (const char* c : {"a", "b", "c"}) {
        if (rng() % 2) cols->push_back(c);
      }
      // Listing every column is an ordinary write, not a partial one.
      if (cols->size() == kCols) cols.reset();
      if (cols) {
        WriteOptions wo;
        wo.write_columns = cols;
        w = table->NewWriter(wo);
        ASSERT_TRUE(w.ok()) << w.status().ToString();
      } else {
        partial = false;
      }
    }
    int n = 1 + rng() % 30;
    for (int i = 0; i < n; i++) {
      Op op;
      op.cols = cols;
      int64_t k = rng() % 40;
      op.row = {Value::Int(k), RandInt(rng), RandInt(rng), RandInt(rng)};
      if (engine == "versioned") op.row[3] = RandInt(rng, 10);
      bool can_delete = !partial && (engine == "deduplicate" || engine == "aggregation");
      if (can_delete && rng() % 6 == 0) {
        op.kind = RowKind::kDelete;
        if (engine == "deduplicate" && model.count(k)) op.row = model[k];
      }
      if (cols) {
        for (int c = 1; c < kCols; c++) {
          if (std::find(cols->begin(), cols->end(), spec.columns[c].name) == cols->end()) {
            op.row[c] = Value();
          }
        }
      }
      Status st = (*w)->Write(op.kind, op.row);
      ASSERT_TRUE(st.ok()) << st.ToString();
      apply(op);
    }
    auto c = (*w)->Commit();
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    if (commit % 8 == 7) {
      ASSERT_TRUE(table->CompactFull().ok());
    }
    std::vector<Row> want;
    for (const auto& [k, r] : model) want.push_back(r);
    ASSERT_EQ(Read(*table), want) << engine << " after commit " << commit;
    ASSERT_EQ(ReadAllColumns(*table), want) << engine << " after commit " << commit;
    // Merges by columns a few keys at a time (each chunk reads a range of each file's rows):
    // the same rows, as rows and as column batches.
    datafile::GetTestHooks().read_merge_chunk_keys = 3;
    std::vector<Row> rows = Read(*table), columns = ReadAllColumns(*table);
    datafile::GetTestHooks().read_merge_chunk_keys = 0;
    ASSERT_EQ(rows, want) << engine << " in chunks, after commit " << commit;
    ASSERT_EQ(columns, want) << engine << " in chunks, after commit " << commit;
    // Streamed as SQL's scans read (batches of a bounded size): a merged bucket handed out as
    // each chunk is merged (SplitRead::OpenMergedSlices), in batches of at most 2 rows.
    ScanOptions streamed;
    streamed.max_batch_rows = 2;
    ASSERT_EQ(ReadAllColumns(*table, streamed), want) << engine << " streamed, commit " << commit;
    datafile::GetTestHooks().read_merge_chunk_keys = 3;
    columns = ReadAllColumns(*table, streamed);
    datafile::GetTestHooks().read_merge_chunk_keys = 0;
    ASSERT_EQ(columns, want) << engine << " streamed in chunks, after commit " << commit;
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, DifferentialTest,
                         ::testing::Values("deduplicate", "partial-update", "aggregation",
                                           "first-row", "versioned"),
                         [](const auto& info) {
                           std::string n = info.param;
                           n.erase(std::remove(n.begin(), n.end(), '-'), n.end());
                           return n;
                         });

}  // namespace
}  // namespace tributary
