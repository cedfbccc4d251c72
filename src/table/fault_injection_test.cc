// Fault injection (issue 15 item 3): the write-and-commit path (flush, compaction, commit,
// snapshot expiration) and a full compaction run with the n-th file operation failing, for every
// n and every fault io::FaultInjectingFs makes (an I/O error, a full disk, a failed fsync, a
// short write, a crash that fails every later operation too). After each: the failure was a
// clean error (or none, when the operation's failure is tolerated), nothing committed is lost,
// the table reads as exactly its state before or after the work (never a mix), every retained
// snapshot reads, and doing the work again with the real file system succeeds.
// TRIBUTARY_FAULT_STRIDE=k tries every k-th operation only (default 1: every one).
#include "io/fault_injection.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "io/file_cache.h"
#include "io/file_system.h"
#include "meta/snapshot.h"
#include "table/warehouse_test_base.h"
#include "tributary/catalog.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"
#include "tributary/table_writer.h"

namespace tributary {
namespace {

using Fault = io::FaultInjectingFs::Fault;

// id -> v of every row of `t` (at `snapshot_id`, else the latest).
Result<std::map<int64_t, int64_t>> ReadState(Table& t, std::optional<int64_t> snapshot_id = {}) {
  ScanOptions o;
  o.snapshot_id = snapshot_id;
  TRIB_ASSIGN_OR_RETURN(auto scan, t.NewScan(o));
  std::map<int64_t, int64_t> out;
  RowBatch b;
  while (true) {
    TRIB_ASSIGN_OR_RETURN(bool more, scan->Next(&b));
    if (!more) break;
    for (const Row& r : b.rows) {
      if (!out.emplace(r[0].int_value(), r[1].int_value()).second) {
        return Status::Corruption("key " + std::to_string(r[0].int_value()) + " read twice");
      }
    }
  }
  return out;
}

std::string Describe(const std::map<int64_t, int64_t>& m) {
  std::string s;
  for (const auto& [k, v] : m) s += std::to_string(k) + "=" + std::to_string(v) + " ";
  return s;
}

class FaultInjectionTest : public WarehouseTest {
 public:
  // kAppendWriteAndCommit: an append table whose commit compacts its small files afterwards.
  enum class Work { kWriteAndCommit, kFullCompaction, kAppendWriteAndCommit };

 protected:
  void TearDown() override {
    io::SetFileSystemForTesting(nullptr);
    WarehouseTest::TearDown();
  }

  // A fresh table "t<n>" holding two commits (ids 0..19, v = 1 in the latest): compaction
  // triggers early and two snapshots are kept, so the work below flushes, compacts, commits and
  // expires.
  // An append table instead ("a<n>"): ids 0..9 (v = 0), then 10..19 (v = 1), in two commits
  // whose files the work's commit compacts ('compaction.min.file-num' = 3).
  std::unique_ptr<Table> Setup(int n, Work work = Work::kWriteAndCommit) {
    const bool append = work == Work::kAppendWriteAndCommit;
    const Identifier id{"default", (append ? "a" : "t") + std::to_string(n), ""};
    TableSpec s;
    s.columns = {{0, "id", DataType::BigInt().NotNull(), ""}, {0, "v", DataType::BigInt(), ""}};
    if (!append) s.primary_keys = {"id"};
    s.options = {{"bucket", append ? "1" : "2"},
                 {"snapshot.num-retained.min", "1"},
                 {"snapshot.num-retained.max", "2"}};
    if (append) {
      s.options["bucket-key"] = "id";
      s.options["compaction.min.file-num"] = "3";
    } else {
      s.options["num-sorted-run.compaction-trigger"] = "2";
    }
    Status st = catalog_->CreateTable(id, s, false);
    EXPECT_TRUE(st.ok()) << st.ToString();
    auto t = catalog_->GetTable(id);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    for (int64_t v = 0; v < 2; v++) {
      auto w = (*t)->NewWriter(WriteOptions{});
      EXPECT_TRUE(w.ok());
      for (int64_t k = append ? v * 10 : 0; k < (append ? v * 10 + 10 : 20); k++) {
        EXPECT_TRUE((*w)->Write(RowKind::kInsert, Row{Value::Int(k), Value::Int(v)}).ok());
      }
      auto c = (*w)->Commit();
      EXPECT_TRUE(c.ok()) << c.status().ToString();
    }
    return std::move(*t);
  }

  static std::map<int64_t, int64_t> Before(Work work) {
    std::map<int64_t, int64_t> m;
    for (int64_t k = 0; k < 20; k++) m[k] = work == Work::kAppendWriteAndCommit ? k / 10 : 1;
    return m;
  }
  static std::map<int64_t, int64_t> After(Work work) {
    if (work == Work::kFullCompaction) return Before(work);
    std::map<int64_t, int64_t> m = Before(work);
    for (int64_t k = work == Work::kAppendWriteAndCommit ? 20 : 0; k < 30; k++) m[k] = 7;
    return m;
  }

  // The work under test; the writer is gone when it returns (its clean-up ran under whatever
  // file system is installed, as a process's would).
  static Status DoWork(Table& t, Work work) {
    if (work == Work::kFullCompaction) return t.CompactFull().status();
    TRIB_ASSIGN_OR_RETURN(auto w, t.NewWriter(WriteOptions{}));
    const bool append = work == Work::kAppendWriteAndCommit;
    for (int64_t k = append ? 20 : 0; k < 30; k++) {
      TRIB_RETURN_NOT_OK(w->Write(append ? RowKind::kInsert : RowKind::kUpdateAfter,
                                  Row{Value::Int(k), Value::Int(7)}));
    }
    return w->Commit().status();
  }

  // Runs `work` once per operation it makes, failing that operation with `fault`.
  void RunUnderFaults(Work work, Fault fault) {
    io::FaultInjectingFs faulty(&io::LocalFs());
    // How many operations the work makes without a fault.
    int64_t total = 0;
    {
      auto t = Setup(0, work);
      faulty.Arm(-1, Fault::kNone);
      io::SetFileSystemForTesting(&faulty);
      Status st = DoWork(*t, work);
      io::SetFileSystemForTesting(nullptr);
      ASSERT_TRUE(st.ok()) << st.ToString();
      total = faulty.ops();
      ASSERT_GT(total, 0);
    }
    const char* stride_env = std::getenv("TRIBUTARY_FAULT_STRIDE");
    const int64_t stride = std::max<int64_t>(1, stride_env ? std::atoll(stride_env) : 1);
    int failures = 0, fired = 0;
    for (int64_t op = 0; op < total; op += stride) {
      const int n = static_cast<int>(op) + 1;
      auto table = Setup(n, work);
      const std::string path = table->path();
      faulty.Arm(op, fault);
      io::SetFileSystemForTesting(&faulty);
      Status st = DoWork(*table, work);
      table.reset();  // a crashed process's objects go with it
      io::SetFileSystemForTesting(nullptr);
      fired += faulty.fired() ? 1 : 0;
      failures += st.ok() ? 0 : 1;
      const std::string where = std::string(io::FaultInjectingFs::FaultName(fault)) +
                                " at operation " + std::to_string(op) + " of " +
                                std::to_string(total) + " (" + st.ToString() + ")";
      // A new process: nothing cached.
      io::FileCache::Instance().EraseUnder(path);
      auto reopened = catalog_->GetTable(Identifier{
          "default", (work == Work::kAppendWriteAndCommit ? "a" : "t") + std::to_string(n), ""});
      ASSERT_TRUE(reopened.ok()) << where << ": " << reopened.status().ToString();
      Table& t = **reopened;
      auto state = ReadState(t);
      ASSERT_TRUE(state.ok()) << where
                              << ": the table does not read: " << state.status().ToString();
      if (st.ok()) {
        EXPECT_EQ(*state, After(work)) << where << ": " << Describe(*state);
      } else if (fault == Fault::kCrash) {
        // The process died: whatever it had published stands.
        EXPECT_TRUE(*state == Before(work) || *state == After(work))
            << where << ": a mix of before and after: " << Describe(*state);
      } else {
        // A failed commit published nothing: what fails after the snapshot is published
        // (compaction, expiration) is a warning of a commit that succeeded.
        EXPECT_EQ(*state, Before(work))
            << where << ": the work failed but changed the table: " << Describe(*state);
        EXPECT_FALSE(st.message().empty()) << where;
      }
      auto ids = meta::SnapshotManager(path).ListIds();
      ASSERT_TRUE(ids.ok()) << where;
      for (int64_t id : *ids) {
        auto s = ReadState(t, id);
        EXPECT_TRUE(s.ok()) << where << ": snapshot " << id
                            << " does not read: " << s.status().ToString();
      }
      // Again with the real file system: it succeeds and ends in the state after the work. (Rows
      // appended once are not appended again.)
      if (work == Work::kAppendWriteAndCommit && *state != Before(work)) continue;
      Status again = DoWork(t, work);
      ASSERT_TRUE(again.ok()) << where << ": the retry failed: " << again.ToString();
      auto final_state = ReadState(t);
      ASSERT_TRUE(final_state.ok()) << where;
      EXPECT_EQ(*final_state, After(work)) << where << ": after the retry";
      if (::testing::Test::HasFailure()) return;
    }
    EXPECT_GT(fired, 0);
    EXPECT_GT(failures, 0) << "no injected " << io::FaultInjectingFs::FaultName(fault)
                           << " made the work fail";
  }
};

struct FaultCase {
  const char* name;
  FaultInjectionTest::Work work;
  Fault fault;
};

class FaultInjectionCases : public FaultInjectionTest,
                            public ::testing::WithParamInterface<FaultCase> {};

TEST_P(FaultInjectionCases, EveryOperationFailingLeavesTheTableWhole) {
  RunUnderFaults(GetParam().work, GetParam().fault);
}

using W = FaultInjectionTest::Work;
INSTANTIATE_TEST_SUITE_P(
    , FaultInjectionCases,
    ::testing::Values(
        FaultCase{"WriteAndCommitIoError", W::kWriteAndCommit, Fault::kIoError},
        FaultCase{"WriteAndCommitNoSpace", W::kWriteAndCommit, Fault::kNoSpace},
        FaultCase{"WriteAndCommitFsync", W::kWriteAndCommit, Fault::kSyncError},
        FaultCase{"WriteAndCommitShortWrite", W::kWriteAndCommit, Fault::kShortWrite},
        FaultCase{"WriteAndCommitCrash", W::kWriteAndCommit, Fault::kCrash},
        FaultCase{"FullCompactionIoError", W::kFullCompaction, Fault::kIoError},
        FaultCase{"FullCompactionShortWrite", W::kFullCompaction, Fault::kShortWrite},
        FaultCase{"FullCompactionCrash", W::kFullCompaction, Fault::kCrash},
        FaultCase{"AppendWriteAndCommitNoSpace", W::kAppendWriteAndCommit, Fault::kNoSpace},
        FaultCase{"AppendWriteAndCommitCrash", W::kAppendWriteAndCommit, Fault::kCrash}),
    [](const ::testing::TestParamInfo<FaultCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tributary
