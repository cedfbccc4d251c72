// Java-written deletion-vector tables: read with 'deletion-vectors.merge-on-read', and written
// (the writes compact Java's leftover level-0 files and keep its vectors).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "commit/snapshot_expire.h"
#include "table/system_tables.h"
#include "tributary/catalog.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"
#include "tributary/table_writer.h"

namespace tributary {
namespace {

// A writable copy of golden table `name` (default pk_table_scan_and_read_dv) as table db.t of a
// fresh warehouse, whose directory it returns (empty when it cannot be made).
std::string CopyGoldenScanAndReadDv(const std::string& name = "pk_table_scan_and_read_dv") {
  char tmpl[] = "/tmp/tributary-golden-dv-test-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return "";
  const std::string dir = tmpl;
  const std::string table = dir + "/db.db/t";
  std::filesystem::create_directories(dir + "/db.db");
  std::filesystem::copy(std::string(TRIBUTARY_GOLDEN_DIR) + "/parquet/" + name + ".db/" + name,
                        table, std::filesystem::copy_options::recursive);
  for (const auto& e : std::filesystem::recursive_directory_iterator(table)) {
    std::filesystem::permissions(e.path(), std::filesystem::perms::owner_write,
                                 std::filesystem::perm_options::add);
  }
  return dir;
}

// Replaces the first `from` in the copied table's schema-0 by `to`; false when it has none.
bool EditSchema(const std::string& table, const std::string& from, const std::string& to) {
  const std::string schema = table + "/schema/schema-0";
  std::stringstream text;
  text << std::ifstream(schema).rdbuf();
  std::string json = text.str();
  const size_t at = json.find(from);
  if (at == std::string::npos) return false;
  json.replace(at, from.size(), to);
  std::ofstream(schema, std::ios::trunc) << json;
  return true;
}

// A copy of golden pk_table_scan_and_read_dv given 'deletion-vectors.merge-on-read' in its
// schema: batch reads merge Java's leftover level-0 files in, giving the README's "full merge
// view" of snapshot 6 (11 rows: Alex deleted, Marco, Marco2, Skye, Skye2 in) instead of 8.
TEST(GoldenDeletionVectorTest, MergeOnReadMergesLevel0In) {
  const std::string dir = CopyGoldenScanAndReadDv();
  ASSERT_FALSE(dir.empty());
  const std::string table = dir + "/db.db/t";
  auto read_rows = [&]() -> Result<size_t> {
    TRIB_ASSIGN_OR_RETURN(auto catalog, Catalog::Open(dir));
    TRIB_ASSIGN_OR_RETURN(auto t, catalog->GetTable(Identifier{"db", "t", ""}));
    TRIB_ASSIGN_OR_RETURN(auto scan, t->NewScan({}));
    size_t rows = 0;
    RowBatch batch;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, scan->Next(&batch));
      if (!more) break;
      rows += batch.rows.size();
    }
    return rows;
  };
  auto before = read_rows();
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  EXPECT_EQ(*before, 8u);  // level-0 files left out

  ASSERT_TRUE(EditSchema(table, "\"options\" : {",
                         "\"options\" : {\n    \"deletion-vectors.merge-on-read\" : \"true\","));
  auto after = read_rows();
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(*after, 11u);
  std::error_code ignored;  // the copied files keep the golden ones' read-only modes
  std::filesystem::remove_all(dir, ignored);
}

// A copy of golden pk_table_scan_and_read_dv (partition f1, two buckets by f2, Java's level-0
// files in partition 10 bucket 1 left uncompacted, invisible to batch reads): a write into that
// bucket compacts them, so the rows become what Java's merged view at snapshot 6 shows (Alex
// deleted; Marco, Marco2, Skye, Skye2 in), and a DELETE of Alice in bucket 0 marks her row in
// Java's files beside Java's own mark. Each bucket keeps one deletion-vector file.
TEST(GoldenDeletionVectorTest, WritesCompactJavaLevel0FilesAndKeepItsVectors) {
  const std::string dir = CopyGoldenScanAndReadDv();
  ASSERT_FALSE(dir.empty());
  const std::string table = dir + "/db.db/t";
  auto catalog = Catalog::Open(dir);
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  auto names = [&]() -> Result<std::vector<std::string>> {
    TRIB_ASSIGN_OR_RETURN(auto t, (*catalog)->GetTable(Identifier{"db", "t", ""}));
    TRIB_ASSIGN_OR_RETURN(auto scan, t->NewScan({}));
    std::vector<std::string> out;
    RowBatch batch;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, scan->Next(&batch));
      if (!more) break;
      for (const auto& r : batch.rows) {
        char value[32];
        snprintf(value, sizeof(value), "%.1f", r[3].double_value());
        out.push_back(r[0].string_value().substr(0, 9) + "/" + value);
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  auto write = [&](RowKind kind, Row row) -> Status {
    TRIB_ASSIGN_OR_RETURN(auto t, (*catalog)->GetTable(Identifier{"db", "t", ""}));
    TRIB_ASSIGN_OR_RETURN(auto w, t->NewWriter({}));
    TRIB_RETURN_NOT_OK(w->Write(kind, std::move(row)));
    return w->Commit().status();
  };
  auto before = names();
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  EXPECT_EQ(before->size(), 8u);  // Java's level-0 files invisible
  ASSERT_TRUE(write(RowKind::kInsert,
                    {Value::String("Zed"), Value::Int(10), Value::Int(0), Value::Double(1.5)})
                  .ok());
  auto after = names();
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(*after,
            (std::vector<std::string>{"Alice/19.1", "Bob/12.1", "David/17.1", "Emily/13.1",
                                      "Lucy/14.1", "Marco/21.1", "Marco2/31.1", "Paul/18.1",
                                      "Skye/21.0", "Skye2/31.0", "Two roads/11.0", "Zed/1.5"}));
  ASSERT_TRUE(write(RowKind::kDelete,
                    {Value::String("Alice"), Value::Int(10), Value::Int(1), Value::Double(19.1)})
                  .ok());
  after = names();
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->size(), 11u);
  EXPECT_EQ(std::count(after->begin(), after->end(), "Alice/19.1"), 0);
  auto indexes = table::ReadSystemTable(table, "table_indexes", {});
  ASSERT_TRUE(indexes.ok()) << indexes.status().ToString();
  std::set<std::pair<std::string, int64_t>> buckets;
  int64_t marked = 0;
  for (const auto& r : indexes->rows) {
    EXPECT_TRUE(buckets.insert({r[0].string_value(), r[1].int_value()}).second)
        << r[0].string_value();
    for (const auto& range : r[6].array_elements()) marked += range.struct_fields()[3].int_value();
  }
  EXPECT_EQ(buckets.size(), 2u);
  // Java's mark of Tony in bucket 0, and Alice's older row there (her 19.1 file's and, from
  // Java's compaction, her 11.1 row was already marked or rewritten away).
  EXPECT_GE(marked, 2);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

// Writes Bob (10, 0, 99.0) and deletes Alice (10, 1) in one commit of golden table db.t.
void WriteBobDeleteAlice(Table& t) {
  auto w = t.NewWriter({});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->Write(RowKind::kInsert, {Value::String("Bob"), Value::Int(10), Value::Int(0),
                                             Value::Double(99.0)})
                  .ok());
  ASSERT_TRUE((*w)->Write(RowKind::kDelete, {Value::String("Alice"), Value::Int(10), Value::Int(1),
                                             Value::Double(19.1)})
                  .ok());
  auto c = (*w)->Commit();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
}

// Calls `fn` with each row a batch read of `t` gives.
void ForEachRow(Table& t, const std::function<void(const Row&)>& fn) {
  auto scan = t.NewScan({});
  EXPECT_TRUE(scan.ok()) << scan.status().ToString();
  RowBatch batch;
  while (scan.ok()) {
    auto more = (*scan)->Next(&batch);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    for (const auto& r : batch.rows) fn(r);
  }
}

// The rows of golden table db.t (the pk_dv_index_* shape) by the first 9 characters of f0, f3 each.
std::map<std::string, double> RowsByName(Table& t) {
  std::map<std::string, double> rows;
  ForEachRow(t,
             [&](const Row& r) { rows[r[0].string_value().substr(0, 9)] = r[3].double_value(); });
  return rows;
}

// What the pk_dv_index_* tables read after WriteBobDeleteAlice.
const std::map<std::string, double> kAfterBobAndAlice = {
    {"Alex", 16.1}, {"Bob", 99.0},  {"David", 17.1},    {"Emily", 13.1},
    {"Lucy", 14.1}, {"Paul", 18.1}, {"Two roads", 11.0}};

// A copy of golden pk_dv_index_in_data_no_external ('index-file-in-data-file-dir' = 'true': Java
// wrote its deletion-vector files into the bucket directories) takes an INSERT and a DELETE: the
// new vectors go into the bucket directories too (no index/ folder appears), the rows are the
// model's, and expiring the old snapshots removes Java's replaced index files from there.
TEST(GoldenDeletionVectorTest, IndexFilesInTheDataDirectoryStayThere) {
  const std::string dir = CopyGoldenScanAndReadDv("pk_dv_index_in_data_no_external");
  ASSERT_FALSE(dir.empty());
  const std::string table = dir + "/db.db/t";
  auto catalog = Catalog::Open(dir);
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  auto t = (*catalog)->GetTable(Identifier{"db", "t", ""});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  auto index_files = [&]() {
    std::set<std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(table)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("index-", 0) == 0 && name.rfind("index-manifest", 0) != 0) {
        out.insert(e.path().parent_path().filename().string() + "/" + name);
      }
    }
    return out;
  };
  const std::set<std::string> java = index_files();
  ASSERT_EQ(java.size(), 2u);
  WriteBobDeleteAlice(**t);
  EXPECT_FALSE(std::filesystem::exists(table + "/index"));
  const std::set<std::string> after = index_files();
  EXPECT_EQ(after.size(), 4u);  // Java's two and one new file in each bucket of partition 10
  for (const auto& f : after) EXPECT_EQ(f.rfind("bucket-", 0), 0u) << f;
  EXPECT_EQ(RowsByName(**t), kAfterBobAndAlice);
  // Expiring every snapshot but the last removes the index files only older ones listed.
  TableSchema schema = *(*t)->schema();
  schema.options["snapshot.num-retained.min"] = "1";
  schema.options["snapshot.num-retained.max"] = "1";
  auto expired = commit::ExpireAfterCommit(table, schema);
  ASSERT_TRUE(expired.ok()) << expired.ToString();
  const std::set<std::string> left = index_files();
  EXPECT_EQ(left.size(), 2u);
  for (const auto& f : java) EXPECT_EQ(left.count(f), 0u) << f;
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

// Copies of Java's tables with 'data-file.external-paths' (round-robin; Java's files under
// /tmp/external, shipped in <db>.db/external, where reads find them) take an INSERT and a
// DELETE: the root is moved to a directory of the test's, new data files (and, with
// 'index-file-in-data-file-dir', new index files, as Paimon 1.3 writes them) go there and
// nowhere else, and the rows are the model's. The same of pk_dv_index_not_in_data_no_external,
// whose files stay in the table.
TEST(GoldenDeletionVectorTest, ExternalPathTablesTakeWrites) {
  for (const std::string name :
       {"pk_dv_index_not_in_data_with_external", "pk_dv_index_in_data_with_external",
        "pk_dv_index_not_in_data_no_external"}) {
    const bool external = name.find("with_external") != std::string::npos;
    SCOPED_TRACE(name);
    const std::string dir = CopyGoldenScanAndReadDv(name);
    ASSERT_FALSE(dir.empty());
    const std::string table = dir + "/db.db/t";
    const std::string golden_db = std::string(TRIBUTARY_GOLDEN_DIR) + "/parquet/" + name + ".db";
    const std::string root = dir + "/newext";
    if (external) {
      std::filesystem::copy(golden_db + "/external", dir + "/db.db/external",
                            std::filesystem::copy_options::recursive);
      for (const auto& e : std::filesystem::recursive_directory_iterator(dir + "/db.db/external")) {
        std::filesystem::permissions(e.path(), std::filesystem::perms::owner_write,
                                     std::filesystem::perm_options::add);
      }
      ASSERT_TRUE(EditSchema(table, "FILE:///tmp/external", "FILE://" + root));
    }
    auto table_files = [&]() {
      std::set<std::string> out;
      for (const auto& e : std::filesystem::recursive_directory_iterator(table)) {
        if (e.is_regular_file() && e.path().string().find("/bucket-") != std::string::npos) {
          out.insert(e.path().string());
        }
      }
      return out;
    };
    const std::set<std::string> before = table_files();
    auto catalog = Catalog::Open(dir);
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    auto t = (*catalog)->GetTable(Identifier{"db", "t", ""});
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    WriteBobDeleteAlice(**t);
    if (external) {
      EXPECT_EQ(table_files(), before);  // nothing new inside the table's bucket directories
      std::set<std::string> data, index;
      for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
        const std::string f = e.path().filename().string();
        if (f.rfind("data-", 0) == 0) data.insert(f);
        if (f.rfind("index-", 0) == 0) index.insert(f);
      }
      EXPECT_GE(data.size(), 2u);  // a file for each bucket written in partition 10
      EXPECT_EQ(index.size(), name.find("index_in_data") != std::string::npos ? 2u : 0u);
    } else {
      EXPECT_GT(table_files().size(), before.size());
    }
    EXPECT_EQ(RowsByName(**t), kAfterBobAndAlice);
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
}

// A copy of Java's pk_with_bitmap_dv (one bucket, deletion vectors, bitmap file indexes) takes
// a DELETE, an INSERT, an UPDATE and a full compaction, and reads as a model of its rows says.
// (Tributary writes no bitmap index into its new files yet: readers read those files whole.)
TEST(GoldenDeletionVectorTest, BitmapIndexedTableTakesWritesAndCompaction) {
  const std::string dir = CopyGoldenScanAndReadDv("pk_with_bitmap_dv");
  ASSERT_FALSE(dir.empty());
  auto catalog = Catalog::Open(dir);
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  auto t = (*catalog)->GetTable(Identifier{"db", "t", ""});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  auto rows = [&]() {
    std::map<int64_t, std::string> out;
    ForEachRow(**t, [&](const Row& r) {
      char v[32];
      std::snprintf(v, sizeof(v), "/%.1f", r[4].double_value());
      out[r[0].int_value()] = r[1].string_value() + v;
    });
    return out;
  };
  // Java's rows (README: keys 0 and 4 deleted by its second commit).
  std::map<int64_t, std::string> model = {{1, "Bob/12.1"}, {2, "Emily/13.1"}, {3, "Tony/14.1"},
                                          {5, "Bob/16.1"}, {6, "Tony/17.1"},  {7, "Alice/18.1"}};
  ASSERT_EQ(rows(), model);
  auto w = (*t)->NewWriter({});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  auto row = [](int64_t k, const char* name, double v) {
    return Row{Value::Int(k), Value::String(name), Value::Int(10), Value::Int(1), Value::Double(v)};
  };
  ASSERT_TRUE((*w)->Write(RowKind::kDelete, row(2, "Emily", 13.1)).ok());
  ASSERT_TRUE((*w)->Write(RowKind::kInsert, row(9, "Zed", 9.5)).ok());
  ASSERT_TRUE((*w)->Write(RowKind::kInsert, row(3, "Tony", 30.5)).ok());  // an update
  auto c = (*w)->Commit();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  w->reset();
  model.erase(2);
  model[9] = "Zed/9.5";
  model[3] = "Tony/30.5";
  EXPECT_EQ(rows(), model);
  auto compacted = (*t)->CompactFull();
  ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
  EXPECT_EQ(rows(), model);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

}  // namespace
}  // namespace tributary
