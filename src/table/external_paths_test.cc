// 'data-file.external-paths' (docs/external-paths.md): new data and changelog files under other
// roots than the table's directory, their full paths in the manifests; reads, compactions,
// expiration and orphan cleanup follow them there.
#include "meta/external_paths.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "commit/orphan_files.h"
#include "commit/snapshot_expire.h"
#include "table/warehouse_test_base.h"
#include "tributary/catalog.h"
#include "tributary/table.h"
#include "tributary/table_writer.h"

namespace tributary {
namespace {

TEST(ExternalRootTest, PrintedAsPaimonPrintsThem) {
  EXPECT_EQ(*meta::NormalizeExternalRoot("FILE:///tmp/external"), "FILE:/tmp/external");
  EXPECT_EQ(*meta::NormalizeExternalRoot(" file:/a//b/ "), "file:/a/b");
  EXPECT_EQ(*meta::NormalizeExternalRoot("s3://bkt/x/"), "s3://bkt/x");
  EXPECT_FALSE(meta::NormalizeExternalRoot("/tmp/x").ok());  // no scheme
  EXPECT_EQ(meta::ExternalPaths::LocalOf("FILE:/tmp/external/f=1/bucket-0"),
            "/tmp/external/f=1/bucket-0");
  EXPECT_EQ(meta::ExternalPaths::LocalOf("s3://bkt/x"), "s3://bkt/x");
}

class ExternalPathsTest : public WarehouseTest {
 protected:
  std::unique_ptr<Table> Create(const std::string& name, bool primary_key,
                                std::map<std::string, std::string> options) {
    TableSpec s;
    s.columns = {{0, "id", DataType::BigInt(), ""}, {0, "v", DataType::BigInt(), ""}};
    if (primary_key) s.primary_keys = {"id"};
    s.options = std::move(options);
    Identifier id{"default", name, ""};
    Status st = catalog_->CreateTable(id, s, false);
    EXPECT_TRUE(st.ok()) << st.ToString();
    auto t = catalog_->GetTable(id);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? std::move(*t) : nullptr;
  }
  static void Write(Table& t, const std::vector<std::pair<RowKind, Row>>& rows) {
    auto w = t.NewWriter({});
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    for (const auto& [k, r] : rows) ASSERT_TRUE((*w)->Write(k, r).ok());
    auto c = (*w)->Commit();
    ASSERT_TRUE(c.ok()) << c.status().ToString();
  }
  // Regular files under `dir` (relative paths), or none when it does not exist.
  static std::set<std::string> FilesUnder(const std::string& dir) {
    std::set<std::string> out;
    if (!std::filesystem::exists(dir)) return out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
      if (e.is_regular_file()) out.insert(std::filesystem::relative(e.path(), dir).string());
    }
    return out;
  }
  static std::set<std::string> DataFilesInTable(const Table& t) {
    std::set<std::string> out;
    for (const std::string& f : FilesUnder(t.path())) {
      const size_t slash = f.rfind('/');  // a file inside a bucket-<n> directory
      if (slash != std::string::npos && f.find("bucket-") < slash) out.insert(f);
    }
    return out;
  }
};

TEST_F(ExternalPathsTest, NewFilesGoUnderTheRootsInTurnAndEverythingFollowsThem) {
  const std::string ext1 = dir_ + "/ext1", ext2 = dir_ + "/ext2";
  auto t = Create("t", true,
                  {{"bucket", "4"},
                   {"changelog-producer", "lookup"},
                   {"data-file.external-paths", "file://" + ext1 + ", file://" + ext2 + "/"},
                   {"data-file.external-paths.strategy", "round-robin"},
                   {"snapshot.num-retained.min", "1"},
                   {"snapshot.num-retained.max", "1"}});
  ASSERT_NE(t, nullptr);
  std::map<int64_t, int64_t> model;
  for (int round = 0; round < 4; round++) {
    std::vector<std::pair<RowKind, Row>> rows;
    for (int64_t k = round; k < 40; k += 2) {
      rows.push_back({RowKind::kInsert, {Value::Int(k), Value::Int(round * 100 + k)}});
      model[k] = round * 100 + k;
    }
    if (round == 3) {
      rows.push_back({RowKind::kDelete, {Value::Int(5), Value::Int(0)}});
      model.erase(5);
    }
    Write(*t, rows);
  }
  EXPECT_EQ(ReadIdValues(*t), model);
  // No data file inside the table; the four bucket writers' files in both roots, each recorded
  // with its full path.
  EXPECT_TRUE(DataFilesInTable(*t).empty()) << *DataFilesInTable(*t).begin();
  EXPECT_FALSE(FilesUnder(ext1).empty());
  EXPECT_FALSE(FilesUnder(ext2).empty());
  for (const auto& e : LatestLiveEntries(*t)) {
    ASSERT_TRUE(e.file.external_path.has_value()) << e.file.file_name;
    const std::string& p = *e.file.external_path;
    EXPECT_TRUE(p.rfind("file:" + ext1 + "/bucket-", 0) == 0 ||
                p.rfind("file:" + ext2 + "/bucket-", 0) == 0)
        << p;
    EXPECT_TRUE(std::filesystem::exists(meta::ExternalPaths::LocalOf(p))) << p;
  }
  // A full compaction writes there too; expiration removes what only old snapshots used.
  auto compacted = t->CompactFull();
  ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
  EXPECT_EQ(ReadIdValues(*t), model);
  std::set<std::string> live;
  for (const auto& e : LatestLiveEntries(*t)) {
    ASSERT_TRUE(e.file.external_path.has_value());
    live.insert(meta::ExternalPaths::LocalOf(*e.file.external_path));
  }
  std::set<std::string> on_disk;
  for (const std::string& root : {ext1, ext2}) {
    for (const std::string& f : FilesUnder(root)) {
      if (f.find("/data-") != std::string::npos) on_disk.insert(root + "/" + f);
    }
  }
  EXPECT_EQ(on_disk, live);  // (changelog files of expired snapshots went with them)
  EXPECT_TRUE(DataFilesInTable(*t).empty());

  // Orphan cleanup looks under the roots: a stray file there goes, the live ones stay.
  const std::string stray = ext1 + "/bucket-0/data-stray.parquet";
  std::filesystem::create_directories(ext1 + "/bucket-0");
  std::ofstream(stray) << "x";
  auto cleaned = commit::RemoveOrphanFiles(t->path(), /*older_than_millis=*/INT64_MAX,
                                           /*dry_run=*/false);
  ASSERT_TRUE(cleaned.ok()) << cleaned.status().ToString();
  EXPECT_FALSE(std::filesystem::exists(stray));
  EXPECT_EQ(ReadIdValues(*t), model);
}

TEST_F(ExternalPathsTest, AppendTablesAndTheNoneStrategy) {
  const std::string ext = dir_ + "/ext";
  auto t = Create("a", false,
                  {{"bucket", "-1"},
                   {"data-file.external-paths", "file://" + ext},
                   {"data-file.external-paths.strategy", "specific-fs"},
                   {"data-file.external-paths.specific-fs", "FILE"}});
  ASSERT_NE(t, nullptr);
  std::map<int64_t, int64_t> model;
  for (int64_t k = 0; k < 30; k++) {
    Write(*t, {{RowKind::kInsert, {Value::Int(k), Value::Int(k)}}});
    model[k] = k;
  }
  EXPECT_EQ(ReadIdValues(*t), model);
  EXPECT_TRUE(DataFilesInTable(*t).empty());
  auto compacted = t->CompactFull();  // external inputs rewritten into external outputs
  ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
  EXPECT_EQ(ReadIdValues(*t), model);
  EXPECT_LT(LatestLiveEntries(*t).size(), 30u);
  for (const auto& e : LatestLiveEntries(*t)) EXPECT_TRUE(e.file.external_path.has_value());

  // The default strategy, 'none': the roots are not used (as in Paimon).
  auto n = Create("n", true, {{"bucket", "1"}, {"data-file.external-paths", "file://" + ext}});
  ASSERT_NE(n, nullptr);
  Write(*n, {{RowKind::kInsert, {Value::Int(1), Value::Int(1)}}});
  EXPECT_FALSE(DataFilesInTable(*n).empty());
  for (const auto& e : LatestLiveEntries(*n)) EXPECT_FALSE(e.file.external_path.has_value());
}

TEST_F(ExternalPathsTest, FullCompactionChangelogsGoThereToo) {
  const std::string ext = dir_ + "/ext";
  auto t = Create("f", true,
                  {{"bucket", "2"},
                   {"changelog-producer", "full-compaction"},
                   {"data-file.external-paths", "file://" + ext},
                   {"data-file.external-paths.strategy", "round-robin"}});
  ASSERT_NE(t, nullptr);
  for (int round = 0; round < 3; round++) {
    Write(*t, {{RowKind::kInsert, {Value::Int(1), Value::Int(round)}},
               {RowKind::kInsert, {Value::Int(2), Value::Int(round)}}});
  }
  EXPECT_EQ(ReadIdValues(*t), (std::map<int64_t, int64_t>{{1, 2}, {2, 2}}));
  // Data and changelog files (the full compactions' changelog-*) only under the root.
  EXPECT_TRUE(DataFilesInTable(*t).empty()) << *DataFilesInTable(*t).begin();
  int changelogs = 0;
  for (const std::string& f : FilesUnder(ext)) changelogs += f.find("/changelog-") != f.npos;
  EXPECT_GT(changelogs, 0);
}

TEST_F(ExternalPathsTest, BadRootsAndStrategiesAreRefusedAtCreate) {
  auto refused = [&](std::map<std::string, std::string> options, const std::string& words) {
    TableSpec s;
    s.columns = {{0, "id", DataType::BigInt(), ""}};
    s.options = std::move(options);
    Status st = catalog_->CreateTable(Identifier{"default", "bad", ""}, s, false);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find(words), std::string::npos) << st.ToString();
  };
  refused({{"data-file.external-paths", "/tmp/x"},
           {"data-file.external-paths.strategy", "round-robin"}},
          "has no scheme");
  refused({{"data-file.external-paths", "hdfs://nn/x"},
           {"data-file.external-paths.strategy", "round-robin"}},
          "not supported yet");
  refused({{"data-file.external-paths", "file:///tmp/x"},
           {"data-file.external-paths.strategy", "specific-fs"}},
          "data-file.external-paths.specific-fs");
  refused({{"data-file.external-paths", "file:///tmp/x"},
           {"data-file.external-paths.strategy", "specific-fs"},
           {"data-file.external-paths.specific-fs", "s3"}},
          "names no root");
  refused({{"data-file.external-paths", "file:///tmp/x"},
           {"data-file.external-paths.strategy", "round-robbin"}},
          "round-robin");
}

}  // namespace
}  // namespace tributary
