#include "server/jobs.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

#include "server/connection.h"
#include "server/tags.h"
#include "sql/parser/lexer.h"
#include "tributary/sql.h"

namespace tributary::server {

struct ServerJobs::Job {
  std::string id;
  int64_t start_millis = 0;
  std::unique_ptr<SqlSession> session;  // the job's; it outlives the job
  std::unique_ptr<SqlJob> job;
  std::mutex mu;
  std::condition_variable ended_cv;
  bool ended = false;
  std::string status = "RUNNING";
  std::string message;
};

namespace {

std::mutex jobs_mu;
// Oldest first. Never destroyed: a job's threads may outlive static destruction at exit.
std::deque<std::shared_ptr<ServerJobs::Job>>& Jobs() {
  static auto* jobs = new std::deque<std::shared_ptr<ServerJobs::Job>>();
  return *jobs;
}
bool stopping = false;  // StopAll has run: no job starts (jobs_mu)
std::atomic<int64_t> jobs_running{0};
constexpr size_t kEndedKept = 100;

// A job id as Flink writes them: 32 hexadecimal digits.
std::string NewJobId() {
  static std::mutex mu;
  static std::mt19937_64 random{std::random_device{}()};
  std::lock_guard<std::mutex> lock(mu);
  static const char* kHex = "0123456789abcdef";
  std::string id;
  for (int part = 0; part < 2; part++) {
    uint64_t v = random();
    for (int i = 0; i < 16; i++, v >>= 4) id.push_back(kHex[v & 15]);
  }
  return id;
}

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Quoted(const std::string& text, char quote) {
  std::string out(1, quote);
  for (char c : text) {
    out.push_back(c);
    if (c == quote) out.push_back(c);
  }
  out.push_back(quote);
  return out;
}

}  // namespace

ServerJobs& ServerJobs::Instance() {
  static ServerJobs jobs;
  return jobs;
}

Result<std::string> ServerJobs::Start(const std::string& warehouse, const std::string& database,
                                      const std::map<std::string, std::string>& options,
                                      const std::string& statement) {
  {
    std::lock_guard<std::mutex> lock(jobs_mu);
    if (stopping) return Status::Invalid("the server is stopping: no job starts");
  }
  auto job = std::make_shared<Job>();
  TRIB_ASSIGN_OR_RETURN(job->session, SqlSession::Open(warehouse));
  TRIB_RETURN_NOT_OK(job->session->Execute("USE " + Quoted(database, '`')).status());
  for (const auto& [key, value] : options) {
    if (key == "execution.runtime-mode") continue;  // (a job is streaming)
    TRIB_RETURN_NOT_OK(
        job->session->Execute("SET " + Quoted(key, '\'') + " = " + Quoted(value, '\'')).status());
  }
  TRIB_ASSIGN_OR_RETURN(job->job, job->session->StartJob(statement));
  // Planned and running once it has its name; a statement that cannot start ends first.
  while (job->job->running() && job->job->name().empty()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (!job->job->running()) {
    auto said = job->job->Wait();
    if (!said.ok()) return said.status();
  }
  job->id = NewJobId();
  job->start_millis = NowMillis();
  jobs_running++;
  // A thread waits for the job's end and records it.
  std::thread([j = job] {
    auto said = j->job->Wait();
    const std::string status = said.ok() ? "FINISHED" : "FAILED";
    const std::string message = said.ok() ? *said : said.status().message();
    Log("job " + j->id + " (" + j->job->name() + ") " + status + ": " + message);
    std::lock_guard<std::mutex> lock(j->mu);
    j->status = status;
    j->message = message;
    j->ended = true;
    jobs_running--;
    j->ended_cv.notify_all();
  }).detach();
  Log("job " + job->id + " (" + job->job->name() + ") started: " + statement);
  std::lock_guard<std::mutex> lock(jobs_mu);
  auto& jobs = Jobs();
  if (stopping) job->job->Stop();  // (StopAll ran meanwhile: it stops at once, and is listed)
  jobs.push_back(std::move(job));
  // Ended jobs past the most recent kEndedKept go (their threads have finished).
  size_t ended = 0;
  for (auto it = jobs.rbegin(); it != jobs.rend(); ++it) {
    std::lock_guard<std::mutex> held((*it)->mu);
    if ((*it)->ended) ended++;
  }
  for (auto it = jobs.begin(); ended > kEndedKept && it != jobs.end();) {
    bool gone = false;
    {
      std::lock_guard<std::mutex> held((*it)->mu);
      gone = (*it)->ended;
    }
    if (gone) {
      it = jobs.erase(it);
      ended--;
    } else {
      ++it;
    }
  }
  return jobs.back()->id;
}

std::vector<ServerJobs::Info> ServerJobs::List() const {
  std::lock_guard<std::mutex> lock(jobs_mu);
  std::vector<Info> out;
  for (const auto& j : Jobs()) {
    Info info;
    info.id = j->id;
    info.name = j->job->name();
    info.start_millis = j->start_millis;
    info.changes_read = j->job->changes_read();
    info.changes_written = j->job->changes_written();
    info.commits = j->job->commits();
    std::lock_guard<std::mutex> held(j->mu);
    info.status = j->status;
    info.message = j->message;
    out.push_back(std::move(info));
  }
  return out;
}

Result<std::string> ServerJobs::Stop(const std::string& id) {
  std::shared_ptr<Job> job;
  {
    std::lock_guard<std::mutex> lock(jobs_mu);
    for (const auto& j : Jobs()) {
      if (j->id == id) job = j;
    }
  }
  if (!job) return Status::NotFound("job '" + id + "' does not exist (SHOW JOBS lists them)");
  job->job->Stop();
  std::unique_lock<std::mutex> held(job->mu);
  job->ended_cv.wait(held, [&] { return job->ended; });
  if (job->status == "FAILED") return Status::Invalid("job '" + id + "' failed: " + job->message);
  return job->message;
}

void ServerJobs::StopAll() {
  std::vector<std::shared_ptr<Job>> jobs;
  {
    std::lock_guard<std::mutex> lock(jobs_mu);
    stopping = true;
    jobs.assign(Jobs().begin(), Jobs().end());
  }
  for (const auto& j : jobs) j->job->Stop();
  for (const auto& j : jobs) {
    std::unique_lock<std::mutex> held(j->mu);
    j->ended_cv.wait(held, [&] { return j->ended; });
  }
}

int64_t ServerJobs::running() const { return jobs_running.load(); }

bool IsJobStatement(const std::string& text, bool streaming) {
  const std::vector<std::string> w = LeadingWords(text, 2);
  if (w.size() == 2 && ((w[0] == "SHOW" && w[1] == "JOBS") || (w[0] == "STOP" && w[1] == "JOB"))) {
    return true;
  }
  return streaming && !w.empty() && (w[0] == "INSERT" || w[0] == "EXECUTE" || w[0] == "BEGIN");
}

namespace {
Field Column(const std::string& name, DataType type) {
  Field f;
  f.name = name;
  f.type = std::move(type);
  return f;
}
}  // namespace

Result<JobAnswer> RunJobStatement(const std::string& text, const std::string& warehouse,
                                  const std::string& database,
                                  const std::map<std::string, std::string>& options) {
  TRIB_ASSIGN_OR_RETURN(std::vector<sql::Token> t, sql::Tokenize(text));
  while (!t.empty() && (t.back().type == sql::TokenType::kEnd || t.back().IsSymbol(";"))) {
    t.pop_back();
  }
  if (t.empty()) return Status::Invalid("an empty statement");
  JobAnswer a;
  if (t[0].Is("SHOW")) {
    if (t.size() != 2) return Status::Invalid("SHOW JOBS takes nothing more");
    a.fields = {
        Column("job id", DataType::String()),       Column("job name", DataType::String()),
        Column("status", DataType::String()),       Column("start time", DataType::TimestampLtz(3)),
        Column("changes read", DataType::BigInt()), Column("changes written", DataType::BigInt()),
        Column("commits", DataType::BigInt()),      Column("message", DataType::String())};
    for (const ServerJobs::Info& j : ServerJobs::Instance().List()) {
      a.rows.push_back({Value::String(j.id), Value::String(j.name), Value::String(j.status),
                        Value::Ts(Timestamp{j.start_millis, 0}), Value::Int(j.changes_read),
                        Value::Int(j.changes_written), Value::Int(j.commits),
                        j.message.empty() ? Value::Null() : Value::String(j.message)});
    }
    a.tag = "SELECT " + std::to_string(a.rows.size());
    return a;
  }
  if (t[0].Is("STOP")) {
    if (t.size() < 3 || t[2].type != sql::TokenType::kString) {
      return Status::Invalid("STOP JOB takes the job's id as a string: STOP JOB '<id>'");
    }
    if (t.size() > 3) {
      return Status::NotSupported(
          "STOP JOB ... WITH SAVEPOINT / WITH DRAIN is not supported yet: a stopped job commits "
          "what it has read, and the same INSERT started again resumes from there");
    }
    TRIB_ASSIGN_OR_RETURN(std::string said, ServerJobs::Instance().Stop(t[2].text));
    a.fields = {Column("result", DataType::String())};
    a.rows.push_back({Value::String(said)});
    a.tag = "SELECT 1";
    return a;
  }
  if (!t[0].Is("INSERT")) {
    return Status::NotSupported(
        "a statement set as a job through the server is not supported yet: start one job per "
        "INSERT INTO ... SELECT");
  }
  TRIB_ASSIGN_OR_RETURN(std::string id,
                        ServerJobs::Instance().Start(warehouse, database, options, text));
  a.fields = {Column("job id", DataType::String())};
  a.rows.push_back({Value::String(id)});
  a.tag = "INSERT 0 0";
  return a;
}

}  // namespace tributary::server
