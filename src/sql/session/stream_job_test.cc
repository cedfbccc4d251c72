// Streaming jobs through the public SQL API (tributary/sql.h SqlJob): started, fed by another
// session, stopped, and restarted where they left off. The kill -9 cases are in
// tests/crash/stream_job_test.py.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "tributary/sql.h"

namespace tributary {
namespace {

class SqlJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tributary-sql-job-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto s = SqlSession::Open(dir_ + "/warehouse");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    writer_ = std::move(*s);
    Run(*writer_, "CREATE TABLE src (id INT PRIMARY KEY NOT ENFORCED, v INT)");
    Run(*writer_, "CREATE TABLE snk (id INT PRIMARY KEY NOT ENFORCED, v INT)");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::vector<Row> Run(SqlSession& s, const std::string& sql) {
    auto r = s.Execute(sql);
    EXPECT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
    if (!r.ok()) return {};
    auto rows = r->ReadAll();
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<Row>{};
  }
  // The sink's rows once it has `n` of them (a job commits within its interval).
  std::vector<Row> SinkRows(size_t n) {
    std::vector<Row> rows;
    for (int i = 0; i < 200; i++) {
      rows = Run(*writer_, "SELECT id, v FROM snk ORDER BY id");
      if (rows.size() >= n) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return rows;
  }

  std::string dir_;
  std::unique_ptr<SqlSession> writer_;
};

TEST_F(SqlJobTest, StartStopWaitAndResume) {
  auto session = SqlSession::Open(dir_ + "/warehouse");
  ASSERT_TRUE(session.ok());
  Run(**session, "SET 'execution.checkpointing.interval' = '100 ms'");
  Run(**session, "SET 'pipeline.name' = 'copy'");
  auto job = (*session)->StartJob("INSERT INTO snk SELECT id, v * 10 FROM src WHERE v > 0");
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  Run(*writer_, "INSERT INTO src VALUES (1, 1), (2, 0), (3, 3)");
  std::vector<Row> rows = SinkRows(2);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][1].int_value(), 10);
  EXPECT_EQ(rows[1][1].int_value(), 30);
  EXPECT_TRUE((*job)->running());
  EXPECT_EQ((*job)->name(), "copy");
  // The job reports a commit once it has also moved its consumers, a moment after the sink's
  // snapshot is visible.
  for (int i = 0; i < 200 && (*job)->commits() < 1; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_GE((*job)->commits(), 1);
  std::vector<JobPosition> at = (*job)->positions();
  ASSERT_EQ(at.size(), 1u);
  EXPECT_EQ(at[0].table, "default.src");
  EXPECT_EQ(at[0].next_snapshot, 2);  // the insert was the source's snapshot 1

  (*job)->Stop();
  auto said = (*job)->Wait();
  ASSERT_TRUE(said.ok()) << said.status().ToString();
  EXPECT_NE(said->find("Job 'copy' stopped"), std::string::npos) << *said;
  EXPECT_FALSE((*job)->running());
  job->reset();

  // The session is its own again (batch mode as before); a restart resumes after snapshot 1.
  Run(*writer_, "INSERT INTO src VALUES (4, 4)");
  auto again = (*session)->StartJob("INSERT INTO snk SELECT id, v * 10 FROM src WHERE v > 0");
  ASSERT_TRUE(again.ok());
  rows = SinkRows(3);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2][1].int_value(), 40);
  (*again)->Stop();
  said = (*again)->Wait();
  ASSERT_TRUE(said.ok()) << said.status().ToString();
  EXPECT_NE(said->find("1 change(s) written"), std::string::npos) << *said;
}

TEST_F(SqlJobTest, ADeletionVectorSinkThatDoesNotWaitIsWholeWhenTheJobStops) {
  // 'lookup-wait' = 'false': the job's commits publish level-0 files and compact them in the
  // background (batch reads see the rows once a later commit takes the compaction in); the
  // stop ends the job's input, so its last commit waits: nothing is left in level 0.
  Run(*writer_,
      "CREATE TABLE dv (id INT PRIMARY KEY NOT ENFORCED, v INT) WITH ("
      "'deletion-vectors.enabled' = 'true', 'lookup-wait' = 'false', 'bucket' = '2')");
  auto session = SqlSession::Open(dir_ + "/warehouse");
  ASSERT_TRUE(session.ok());
  Run(**session, "SET 'execution.checkpointing.interval' = '50 ms'");
  auto job = (*session)->StartJob("INSERT INTO dv SELECT id, v FROM src");
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  for (int round = 0; round < 5; round++) {
    std::string values;
    for (int id = 0; id < 20; id++) {
      values += (values.empty() ? "(" : ", (") + std::to_string(id) + ", " +
                std::to_string(round * 100 + id) + ")";
    }
    Run(*writer_, "INSERT INTO src VALUES " + values);
  }
  // Every change reaches the batch view while the job runs (the last round's values).
  std::vector<Row> rows;
  for (int i = 0; i < 200; i++) {
    rows = Run(*writer_, "SELECT id, v FROM dv WHERE v >= 400 ORDER BY id");
    if (rows.size() == 20) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(rows.size(), 20u);
  Run(*writer_, "DELETE FROM src WHERE id < 5");
  (*job)->Stop();
  auto said = (*job)->Wait();
  ASSERT_TRUE(said.ok()) << said.status().ToString();
  rows = Run(*writer_, "SELECT count(*), min(id), min(v) FROM dv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0].int_value(), 15);
  EXPECT_EQ(rows[0][1].int_value(), 5);
  EXPECT_EQ(rows[0][2].int_value(), 405);
  rows = Run(*writer_, "SELECT count(*) FROM dv$files WHERE level = 0");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0].int_value(), 0);
}

TEST_F(SqlJobTest, RefusalsComeBackFromStartOrWait) {
  auto session = SqlSession::Open(dir_ + "/warehouse");
  ASSERT_TRUE(session.ok());
  auto select = (*session)->StartJob("SELECT * FROM src");
  EXPECT_FALSE(select.ok());
  auto job = (*session)->StartJob("INSERT INTO snk SELECT id FROM src");
  ASSERT_TRUE(job.ok());
  auto said = (*job)->Wait();
  ASSERT_FALSE(said.ok());
  EXPECT_NE(said.status().message().find("expects 2 columns"), std::string::npos)
      << said.status().ToString();
}

}  // namespace
}  // namespace tributary
