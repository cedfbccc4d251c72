#include "io/file_system.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <thread>
#include <vector>

#include "io/fault_injection.h"

namespace tributary::io {
namespace {

class FileSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = "/tmp/tributary_fs_test_" + std::to_string(getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    (void)LocalFs().RemoveAll(dir_);
    ASSERT_TRUE(LocalFs().MakeDirs(dir_).ok());
  }
  void TearDown() override { (void)LocalFs().RemoveAll(dir_); }
  std::string dir_;
};

TEST_F(FileSystemTest, WriteReadListRemove) {
  const std::string a = JoinPath(dir_, "a"), b = JoinPath(JoinPath(dir_, "sub"), "b");
  ASSERT_TRUE(LocalFs().WriteFile(a, "hello").ok());
  ASSERT_TRUE(LocalFs().MakeDirs(ParentPath(b)).ok());
  ASSERT_TRUE(LocalFs().WriteFile(b, "").ok());
  EXPECT_EQ(*LocalFs().ReadFile(a), "hello");
  EXPECT_EQ(*LocalFs().FileSize(a), 5);
  EXPECT_TRUE(*LocalFs().Exists(b));
  auto list = LocalFs().ListDir(dir_);
  ASSERT_TRUE(list.ok());
  std::vector<std::string> names;
  for (const auto& e : *list) names.push_back(e.name + (e.is_dir ? "/" : ""));
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "sub/"}));
  ASSERT_TRUE(LocalFs().Remove(a).ok());
  EXPECT_FALSE(*LocalFs().Exists(a));
  EXPECT_TRUE(LocalFs().ReadFile(a).status().IsNotFound());
  ASSERT_TRUE(LocalFs().RemoveAll(JoinPath(dir_, "sub")).ok());
  EXPECT_FALSE(*LocalFs().Exists(b));
}

// A new file (data file, manifest) is written under its own name, without a temporary file, and
// never replaces one: a name already there is an error that leaves that file whole.
TEST_F(FileSystemTest, WriteNewFileNeverReplaces) {
  const std::string path = JoinPath(dir_, "data-1.parquet");
  ASSERT_TRUE(LocalFs().WriteNewFile(path, "first").ok());
  EXPECT_EQ(*LocalFs().ReadFile(path), "first");
  EXPECT_FALSE(LocalFs().WriteNewFile(path, "second").ok());
  EXPECT_EQ(*LocalFs().ReadFile(path), "first");
  auto list = LocalFs().ListDir(dir_);
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size(), 1u);  // no temporary file left behind
  // The publication after it (syncing the directory first) goes through.
  EXPECT_TRUE(*LocalFs().WriteFileIfAbsent(JoinPath(dir_, "snapshot-1"), "{}"));
}

// A directory a new file went into and that is gone before the next publication (a dropped
// table's bucket, an aborted writer's) holds nothing to sync: the publication goes through, and
// so do the later ones. Before, the directory stayed pending and every later publication of
// the process, in any table, failed with "cannot open directory".
// Both ways of making new files durable: a few files fsynced one by one, many by one syncfs of
// their file system.
TEST_F(FileSystemTest, ADeletedDirectoryDoesNotFailLaterPublications) {
  for (int files : {1, 3, 40}) {
    SCOPED_TRACE(std::to_string(files) + " new files");
    const std::string root = JoinPath(dir_, "dropped-" + std::to_string(files));
    const std::string gone = JoinPath(root, "bucket-0"), kept = JoinPath(dir_, "kept");
    ASSERT_TRUE(LocalFs().MakeDirs(gone).ok());
    ASSERT_TRUE(LocalFs().MakeDirs(kept).ok());
    for (int f = 0; f < files; f++) {
      const std::string name = "data-" + std::to_string(files) + "-" + std::to_string(f);
      ASSERT_TRUE(LocalFs().WriteNewFile(JoinPath(f % 2 ? kept : gone, name), name).ok());
    }
    ASSERT_TRUE(LocalFs().RemoveAll(root).ok());
    for (int n = 0; n < 2; n++) {
      auto published = LocalFs().WriteFileIfAbsent(
          JoinPath(dir_, "snapshot-" + std::to_string(files) + "-" + std::to_string(n)), "{}");
      ASSERT_TRUE(published.ok()) << published.status().ToString();
      EXPECT_TRUE(*published);
    }
    // The files kept are whole.
    for (int f = 1; f < files; f += 2) {
      const std::string name = "data-" + std::to_string(files) + "-" + std::to_string(f);
      EXPECT_EQ(*LocalFs().ReadFile(JoinPath(kept, name)), name);
    }
  }
}

// The commit protocol: of several writers publishing one name, exactly one wins and the file
// holds its bytes whole.
TEST_F(FileSystemTest, WriteIfAbsentHasOneWinner) {
  const std::string path = JoinPath(dir_, "snapshot-1");
  std::vector<int> won(8, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; i++) {
    threads.emplace_back([&, i] {
      auto r = LocalFs().WriteFileIfAbsent(path, std::string(10000, static_cast<char>('a' + i)));
      won[i] = r.ok() && *r;
    });
  }
  for (auto& t : threads) t.join();
  int winners = 0, winner = -1;
  for (int i = 0; i < 8; i++) {
    if (won[i]) winner = i, winners++;
  }
  ASSERT_EQ(winners, 1);
  EXPECT_EQ(*LocalFs().ReadFile(path), std::string(10000, static_cast<char>('a' + winner)));
}

// A copy (the input changelog that is also a data file) reads as the original and outlives it;
// a copy where the source is missing (as on a file system without links) still gets the bytes.
TEST_F(FileSystemTest, WriteCopyIsAnIndependentFile) {
  const std::string data = JoinPath(dir_, "data-1.parquet");
  const std::string copy = JoinPath(dir_, "changelog-1.parquet");
  ASSERT_TRUE(LocalFs().WriteFile(data, "file bytes").ok());
  FileParts parts;
  parts.Add("file ");
  parts.Add("bytes");
  ASSERT_TRUE(LocalFs().WriteCopy(data, copy, parts).ok());
  EXPECT_EQ(*LocalFs().ReadFile(copy), "file bytes");
  ASSERT_TRUE(LocalFs().Remove(data).ok());
  EXPECT_EQ(*LocalFs().ReadFile(copy), "file bytes");
  const std::string other = JoinPath(dir_, "changelog-2.parquet");
  ASSERT_TRUE(LocalFs().WriteCopy(data, other, parts).ok());
  EXPECT_EQ(*LocalFs().ReadFile(other), "file bytes");
}

// A file written from parts holds them joined, in order: empty parts, parts larger than one
// write(2) piece, more parts than one writev(2) takes, and a file of no parts at all.
TEST_F(FileSystemTest, WriteNewFilePartsJoinsTheParts) {
  FileParts parts;
  std::string expected;
  auto add = [&](std::string s) {
    expected += s;
    parts.Add(std::move(s));
  };
  add("PAR1");
  add("");
  add(std::string(3 << 20, 'x'));  // three pieces of 1 MiB
  for (int i = 0; i < 3000; i++) add(std::to_string(i) + (i % 7 == 0 ? "" : ","));
  add(std::string((1 << 20) - 5, 'y'));
  add("");
  add("tail");
  const std::string path = JoinPath(dir_, "data-parts.parquet");
  ASSERT_TRUE(LocalFs().WriteNewFileParts(path, &parts).ok());
  EXPECT_EQ(parts.size, static_cast<int64_t>(expected.size()));
  EXPECT_TRUE(*LocalFs().ReadFile(path) == expected);
  EXPECT_TRUE(parts.Joined() == expected);
  // Written once under a new name: a second write of it fails and leaves the first.
  EXPECT_FALSE(LocalFs().WriteNewFileParts(path, &parts).ok());
  EXPECT_EQ(*LocalFs().FileSize(path), static_cast<int64_t>(expected.size()));
  // Object storage's way (the default, here through a file system that does not override it):
  // the parts joined into one, which stays the file's bytes.
  FaultInjectingFs joining(&LocalFs());
  FileParts copy = parts;
  const std::string joined = JoinPath(dir_, "data-joined.parquet");
  ASSERT_TRUE(joining.WriteNewFileParts(joined, &copy).ok());
  EXPECT_TRUE(*LocalFs().ReadFile(joined) == expected);
  ASSERT_EQ(copy.parts.size(), 1u);
  EXPECT_TRUE(copy.parts[0] == expected);
  EXPECT_EQ(copy.size, static_cast<int64_t>(expected.size()));
  const std::string empty = JoinPath(dir_, "empty");
  FileParts none;
  ASSERT_TRUE(LocalFs().WriteNewFileParts(empty, &none).ok());
  EXPECT_EQ(*LocalFs().ReadFile(empty), "");
}

TEST_F(FileSystemTest, MappedFileSeesTheBytes) {
  const std::string path = JoinPath(dir_, "data");
  ASSERT_TRUE(LocalFs().WriteFile(path, "parquet bytes").ok());
  auto m = MappedFile::Open(path);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)->data(), "parquet bytes");
  EXPECT_FALSE(MappedFile::Open(JoinPath(dir_, "missing")).ok());
}

// A file under the size given is read into memory, a larger one mapped; either way the bytes
// are the file's.
TEST_F(FileSystemTest, SmallFilesAreReadAndLargeOnesMapped) {
  for (size_t size : {size_t{1}, MappedFile::kReadBelow - 1, MappedFile::kReadBelow,
                      MappedFile::kReadBelow + 4097}) {
    const std::string path = JoinPath(dir_, "f" + std::to_string(size));
    std::string bytes(size, '\0');
    for (size_t i = 0; i < size; i++) bytes[i] = static_cast<char>(i * 7 + (i >> 9));
    ASSERT_TRUE(LocalFs().WriteFile(path, bytes).ok());
    auto m = MappedFile::Open(path, MappedFile::kReadBelow);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    EXPECT_EQ((*m)->mapped(), size >= MappedFile::kReadBelow) << size;
    EXPECT_TRUE((*m)->data() == bytes) << size;
    (*m)->ReleasePages();
    EXPECT_TRUE((*m)->data() == bytes) << size;
    // A read file is not among the process's mappings; a mapped one is.
    std::ifstream maps("/proc/self/maps");
    std::string line;
    bool listed = false;
    while (std::getline(maps, line)) {
      listed = listed || (line.size() >= path.size() &&
                          line.compare(line.size() - path.size(), path.size(), path) == 0);
    }
    EXPECT_EQ(listed, size >= MappedFile::kReadBelow) << size;
  }
  const std::string empty = JoinPath(dir_, "empty");
  ASSERT_TRUE(LocalFs().WriteFile(empty, "").ok());
  auto m = MappedFile::Open(empty, MappedFile::kReadBelow);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)->data(), "");
  auto one = MappedFile::Open(JoinPath(dir_, "f1"));  // (nothing read by default)
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_TRUE((*one)->mapped());
}

// The mapped pages' share of this process's resident memory (kB), from /proc/self/status.
int64_t RssFileKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("RssFile:", 0) == 0) return std::stoll(line.substr(8));
  }
  return -1;
}

// A compaction lets the pages of its inputs go after each chunk and may read them again: the
// process's memory shrinks, and the bytes come back unchanged however many times.
TEST_F(FileSystemTest, ReleasedPagesLeaveMemoryAndReadBackTheSameBytes) {
  const std::string path = JoinPath(dir_, "big");
  std::string bytes(16 << 20, '\0');
  for (size_t i = 0; i < bytes.size(); i++) bytes[i] = static_cast<char>(i * 131 + (i >> 12));
  ASSERT_TRUE(LocalFs().WriteFile(path, bytes).ok());
  auto m = MappedFile::Open(path);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  for (int round = 0; round < 3; round++) {
    EXPECT_EQ((*m)->data(), bytes);  // every page touched
    const int64_t touched = RssFileKb();
    (*m)->ReleasePages();
    const int64_t released = RssFileKb();
    EXPECT_GE(touched - released, 8 << 10) << "round " << round;
  }
  EXPECT_EQ((*m)->data(), bytes);
}

TEST(PathTest, JoinAndParent) {
  EXPECT_EQ(JoinPath("a/b", "c"), "a/b/c");
  EXPECT_EQ(JoinPath("a/b/", "c"), "a/b/c");
  EXPECT_EQ(ParentPath("a/b/c"), "a/b");
}

}  // namespace
}  // namespace tributary::io
