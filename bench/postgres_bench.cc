// PostgreSQL's side of `make bench` (Debian postgresql, libpq), against the private cluster
// run.sh starts. Per batch of BENCH_BATCH rows, one transaction: COPY into a temporary staging
// table, then INSERT ... SELECT ... ON CONFLICT (id) DO UPDATE (the batch's duplicate keys are
// reduced first, newest wins, since ON CONFLICT cannot touch a row twice); synchronous_commit=on,
// fsync=on. Bytes are pg_total_relation_size (heap + index + TOAST, no WAL); peak RSS is the
// serving backend's VmHWM (it counts the shared buffers it touched).
//   postgres_bench W1|W2|W3|W4|W5|W6|W7 <conninfo>
// SV1, SV4 and SV6 run W1's COPY, W4's prepared lookups and W6's subscription against
// `tributary serve` instead (its SQL), recorded as Tributary's (issue 39).
#include <libpq-fe.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <set>
#include <string_view>
#include <thread>

#include "bench_common.h"

using bench::Record;

namespace {

const char* kSys = "postgresql";

class Conn {
 public:
  // `postgres`: the server is PostgreSQL (its backend's pid is asked for its peak RSS).
  explicit Conn(const std::string& info, bool postgres = true) : c_(PQconnectdb(info.c_str())) {
    if (PQstatus(c_) != CONNECTION_OK) Die("connect");
    if (postgres) backend_pid_ = QueryInt("SELECT pg_backend_pid()");
  }
  ~Conn() { PQfinish(c_); }
  [[noreturn]] void Die(const std::string& what) {
    std::fprintf(stderr, "postgres %s: %s\n", what.c_str(), PQerrorMessage(c_));
    std::exit(1);
  }
  void Exec(const std::string& sql) {
    PGresult* r = PQexec(c_, sql.c_str());
    ExecStatusType s = PQresultStatus(r);
    if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) Die(sql);
    PQclear(r);
  }
  std::string QueryText(const std::string& sql) {
    PGresult* r = PQexec(c_, sql.c_str());
    if (PQresultStatus(r) != PGRES_TUPLES_OK) Die(sql);
    std::string v = PQntuples(r) > 0 && !PQgetisnull(r, 0, 0) ? PQgetvalue(r, 0, 0) : "0";
    PQclear(r);
    return v;
  }
  int64_t QueryInt(const std::string& sql) {
    return std::strtoll(QueryText(sql).c_str(), nullptr, 10);
  }
  // COPY `table` FROM STDIN with text rows already formatted (tab-separated, \n-terminated).
  void Copy(const std::string& table, const std::string& data) {
    PGresult* r = PQexec(c_, ("COPY " + table + " FROM STDIN").c_str());
    if (PQresultStatus(r) != PGRES_COPY_IN) Die("COPY");
    PQclear(r);
    const size_t kChunk = 1 << 20;
    for (size_t off = 0; off < data.size(); off += kChunk) {
      size_t n = std::min(kChunk, data.size() - off);
      if (PQputCopyData(c_, data.data() + off, static_cast<int>(n)) != 1) Die("COPY data");
    }
    if (PQputCopyEnd(c_, nullptr) != 1) Die("COPY end");
    r = PQgetResult(c_);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) Die("COPY result");
    PQclear(r);
    while ((r = PQgetResult(c_)) != nullptr) PQclear(r);
  }
  PGconn* get() { return c_; }
  // Peak resident set of the backend serving this connection, in KiB.
  int64_t BackendPeakRssKb() {
    std::ifstream f("/proc/" + std::to_string(backend_pid_) + "/status");
    std::string line;
    while (std::getline(f, line)) {
      if (line.rfind("VmHWM:", 0) == 0) return std::strtoll(line.c_str() + 6, nullptr, 10);
    }
    return 0;
  }

 private:
  PGconn* c_;
  int64_t backend_pid_ = 0;
};

void AppendInt(std::string* s, int64_t v) {
  char b[24];
  int n = std::snprintf(b, sizeof b, "%lld", static_cast<long long>(v));
  s->append(b, n);
}

// A W1 row as COPY's text format (tab-separated, no line end).
void AppendW1Row(std::string* data, const bench::W1Row& r) {
  AppendInt(data, r.id);
  *data += '\t';
  AppendInt(data, r.a);
  *data += '\t';
  AppendInt(data, r.b);
  char cb[32];
  int n = std::snprintf(cb, sizeof cb, "\t%.17g\t", r.c);
  data->append(cb, n);
  *data += r.s1;
  *data += '\t';
  *data += r.s2;
  *data += '\t';
  *data += r.s3;
}

// W1's rows in batches of BENCH_BATCH as COPY text, each batch handed to `batch`.
void ForEachW1Batch(const bench::Params& p, const std::function<void(const std::string&)>& batch) {
  bench::W1Generator gen(p.W1Keyspace());
  bench::W1Row r;
  std::string data;
  for (int64_t i = 0; i < p.w1_rows; i++) {
    gen.Next(i, &r);
    AppendW1Row(&data, r);
    data += '\n';
    if ((i + 1) % p.batch == 0 || i + 1 == p.w1_rows) {
      batch(data);
      data.clear();
    }
  }
}

void W1(const std::string& info) {
  bench::Params p;
  bench::Timer timer;
  Conn c(info);
  c.Exec("DROP TABLE IF EXISTS t");
  c.Exec(
      "CREATE TABLE t (id BIGINT PRIMARY KEY, a BIGINT, b BIGINT, c DOUBLE PRECISION, "
      "s1 TEXT, s2 TEXT, s3 TEXT)");
  c.Exec("CREATE TEMP TABLE stage (LIKE t)");
  ForEachW1Batch(p, [&](const std::string& data) {
    c.Exec("BEGIN");
    c.Exec("TRUNCATE stage");
    c.Copy("stage", data);
    c.Exec(
        "INSERT INTO t SELECT DISTINCT ON (id) * FROM stage ORDER BY id, b DESC "
        "ON CONFLICT (id) DO UPDATE SET a = excluded.a, b = excluded.b, c = excluded.c, "
        "s1 = excluded.s1, s2 = excluded.s2, s3 = excluded.s3");
    c.Exec("COMMIT");
  });
  double secs = timer.Seconds();
  Record(kSys, "W1", "upsert")
      .Int("rows", p.w1_rows)
      .Num("secs", secs)
      .Num("rate", p.w1_rows / secs)
      .Int("bytes", c.QueryInt("SELECT pg_total_relation_size('t')"))
      .Int("rss_kb", c.BackendPeakRssKb())
      .Str("version", c.QueryText("SHOW server_version"))
      .Print();
}

// W4's lookups: `prepared`'s SELECT by key (declared `type`, 0: unspecified) run per key for
// W4_SECONDS at most, recorded as `sys`'s with peak RSS `rss_kb()`.
void PreparedLookups(Conn& c, Oid type, const char* sys, const char* workload, const char* kase,
                     const std::function<int64_t()>& rss_kb) {
  bench::Params p;
  PGresult* prep = PQprepare(c.get(), "get", "SELECT a, b, c, s1, s2, s3 FROM t WHERE id = $1",
                             type ? 1 : 0, type ? &type : nullptr);
  if (PQresultStatus(prep) != PGRES_COMMAND_OK) c.Die("prepare");
  PQclear(prep);
  const bench::W4KeySeq keys = bench::W4Keys(p);
  bench::Latencies lat;
  int64_t hits = 0;
  bench::Timer total;
  for (int64_t k : keys) {
    bench::Timer t;
    std::string ks = std::to_string(k);
    const char* params[1] = {ks.c_str()};
    PGresult* r = PQexecPrepared(c.get(), "get", 1, params, nullptr, nullptr, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) c.Die("get");
    hits += PQntuples(r) > 0;
    PQclear(r);
    lat.push_back(t.Seconds());
    if ((lat.size() & 255) == 0 && total.Seconds() >= p.w4_seconds) break;
  }
  double secs = total.Seconds();
  Record(sys, workload, kase)
      .Int("ops", static_cast<int64_t>(lat.size()))
      .Int("hits", hits)
      .Num("secs", secs)
      .Num("rate", lat.size() / secs)
      .Num("p50_us", bench::Percentile(lat, 0.5) * 1e6)
      .Num("p99_us", bench::Percentile(lat, 0.99) * 1e6)
      .Int("rss_kb", rss_kb())
      .Print();
}

void W4(const std::string& info) {
  Conn c(info);
  PreparedLookups(c, 0, kSys, "W4", "prepared SELECT ... WHERE id = $1",
                  [&] { return c.BackendPeakRssKb(); });
}

void W5Scans(Conn& c, const std::string& phase) {
  bench::Params p;
  int64_t rows = c.QueryInt("SELECT COUNT(*) FROM t");
  struct Q {
    const char* name;
    const char* sql;
  };
  for (const Q& q : {Q{"count", "SELECT COUNT(*) FROM t"}, Q{"sum", "SELECT SUM(a) FROM t"},
                     Q{"filter", "SELECT * FROM t WHERE a < 10000"}}) {
    std::vector<double> times;
    int64_t result = 0;
    for (int64_t rep = 0; rep < p.w5_repeat; rep++) {
      bench::Timer t;
      PGresult* r = PQexec(c.get(), q.sql);
      if (PQresultStatus(r) != PGRES_TUPLES_OK) c.Die(q.sql);
      result = q.name[0] == 'f' ? PQntuples(r) : std::strtoll(PQgetvalue(r, 0, 0), nullptr, 10);
      PQclear(r);
      times.push_back(t.Seconds());
    }
    double secs = bench::Median(times);
    Record(kSys, "W5", std::string(q.name) + " " + phase)
        .Num("secs", secs)
        .Num("first_secs", times.front())
        .Int("result", result)
        .Num("rate", rows / secs)
        .Int("rss_kb", c.BackendPeakRssKb())
        .Print();
  }
}

void W5(const std::string& info) {
  Conn c(info);
  W5Scans(c, "before");
  int64_t before = c.QueryInt("SELECT pg_total_relation_size('t')");
  bench::Timer t;
  c.Exec("VACUUM (FULL, ANALYZE) t");
  Record(kSys, "W5", "compact")
      .Str("how", "VACUUM (FULL, ANALYZE)")
      .Num("secs", t.Seconds())
      .Int("bytes_before", before)
      .Int("bytes_after", c.QueryInt("SELECT pg_total_relation_size('t')"))
      .Print();
  W5Scans(c, "after");
}

void W2(const std::string& info) {
  bench::Params p;
  bench::Timer timer;
  Conn c(info);
  c.Exec("DROP TABLE IF EXISTS w2");
  c.Exec("CREATE TABLE w2 (id BIGINT PRIMARY KEY, s BIGINT, m BIGINT)");
  c.Exec("CREATE TEMP TABLE stage2 (id BIGINT, v BIGINT)");
  bench::W2Generator gen(p.w2_keys);
  std::string data;
  for (int64_t i = 0; i < p.w2_events; i++) {
    bench::W2Event e = gen.Next();
    AppendInt(&data, e.id);
    data += '\t';
    AppendInt(&data, e.v);
    data += '\n';
    if ((i + 1) % p.batch == 0 || i + 1 == p.w2_events) {
      c.Exec("BEGIN");
      c.Exec("TRUNCATE stage2");
      c.Copy("stage2", data);
      c.Exec(
          "INSERT INTO w2 SELECT id, SUM(v), MAX(v) FROM stage2 GROUP BY id "
          "ON CONFLICT (id) DO UPDATE SET s = w2.s + excluded.s, "
          "m = GREATEST(w2.m, excluded.m)");
      c.Exec("COMMIT");
      data.clear();
    }
  }
  double secs = timer.Seconds();
  Record(kSys, "W2", "sum+max")
      .Int("rows", p.w2_events)
      .Num("secs", secs)
      .Num("rate", p.w2_events / secs)
      .Int("bytes", c.QueryInt("SELECT pg_total_relation_size('w2')"))
      .Int("rss_kb", c.BackendPeakRssKb())
      .Str("check", "keys=" + c.QueryText("SELECT COUNT(*) FROM w2") +
                        " sum_s=" + c.QueryText("SELECT SUM(s) FROM w2") +
                        " sum_m=" + c.QueryText("SELECT SUM(m) FROM w2"))
      .Str("how", "COPY, then INSERT ... SELECT SUM, MAX GROUP BY ... ON CONFLICT")
      .Print();
}

void W3(const std::string& info) {
  bench::Params p;
  bench::Timer timer;
  Conn c(info);
  c.Exec("DROP TABLE IF EXISTS w3");
  c.Exec(
      "CREATE TABLE w3 (id BIGINT PRIMARY KEY, c1 BIGINT, c2 BIGINT, c3 BIGINT, c4 BIGINT, "
      "c5 BIGINT, c6 BIGINT)");
  c.Exec("CREATE TEMP TABLE stage3 (id BIGINT, x BIGINT, y BIGINT)");
  int64_t next[3] = {0, 0, 0};
  std::string data;
  while (next[2] < p.w3_keys) {
    for (int w = 0; w < 3; w++) {
      int64_t end = std::min(p.w3_keys, next[w] + p.batch);
      data.clear();
      for (int64_t j = next[w]; j < end; j++) {
        int64_t key = bench::W3Key(p.w3_keys, w, j);
        AppendInt(&data, key);
        data += '\t';
        AppendInt(&data, bench::W3Value(key, 2 * w + 1));
        data += '\t';
        AppendInt(&data, bench::W3Value(key, 2 * w + 2));
        data += '\n';
      }
      next[w] = end;
      std::string x = "c" + std::to_string(2 * w + 1), y = "c" + std::to_string(2 * w + 2);
      c.Exec("BEGIN");
      c.Exec("TRUNCATE stage3");
      c.Copy("stage3", data);
      c.Exec("INSERT INTO w3 (id, " + x + ", " + y +
             ") SELECT id, x, y FROM stage3 "
             "ON CONFLICT (id) DO UPDATE SET " +
             x + " = excluded." + x + ", " + y + " = excluded." + y);
      c.Exec("COMMIT");
    }
  }
  double secs = timer.Seconds();
  Record(kSys, "W3", "3 writers")
      .Int("rows", 3 * p.w3_keys)
      .Num("secs", secs)
      .Num("rate", 3 * p.w3_keys / secs)
      .Int("bytes", c.QueryInt("SELECT pg_total_relation_size('w3')"))
      .Int("rss_kb", c.BackendPeakRssKb())
      .Str("check", "keys=" + c.QueryText("SELECT COUNT(*) FROM w3") + " sum=" +
                        c.QueryText("SELECT SUM(c1) + SUM(c2) + SUM(c3) + SUM(c4) + SUM(c5) + "
                                    "SUM(c6) FROM w3"))
      .Str("how", "COPY, then INSERT ... ON CONFLICT of the writer's two columns")
      .Print();
}

}  // namespace

// W6: the W1 upserts of Tributary's W6 (W6_ROWS rows in commits of W6_BATCH, each row with its
// commit number), written as W1 writes them, while a consumer follows them through logical
// decoding as pg_recvlogical does: a replication connection streaming the slot (the
// test_decoding plugin; REPLICA IDENTITY FULL, so an update carries its old row as Tributary's -U
// does), in a thread of this program (the decoding itself runs in the server's walsender).
// Changes counted as Tributary counts them: an insert one, an update two (old and new row).
// Needs wal_level = logical (run.sh restarts the cluster so for W6 only).
using bench::NowMicros;

uint64_t ReadU64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

void PutU64(std::string* s, uint64_t v) {
  for (int i = 7; i >= 0; i--) s->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// Follows logical replication slot `slot` (test_decoding) over a replication connection, as
// pg_recvlogical does, handing each decoded line to `on_text` (with its arrival time) until it
// returns false, answering the server's keepalives. Returns what went wrong, or "".
std::string FollowSlot(const std::string& info, const std::string& slot,
                       const std::function<bool(std::string_view text, int64_t at)>& on_text) {
  PGconn* c = PQconnectdb((info + " replication=database").c_str());
  if (PQstatus(c) != CONNECTION_OK) {
    std::string error = std::string("replication connect: ") + PQerrorMessage(c);
    PQfinish(c);
    return error;
  }
  PGresult* r = PQexec(
      c, ("START_REPLICATION SLOT " + slot + " LOGICAL 0/0 (\"skip-empty-xacts\" '1')").c_str());
  if (PQresultStatus(r) != PGRES_COPY_BOTH) {
    std::string error = std::string("START_REPLICATION: ") + PQerrorMessage(c);
    PQclear(r);
    PQfinish(c);
    return error;
  }
  PQclear(r);
  uint64_t received = 0;
  std::string error;
  bool more = true;
  while (more) {
    char* buf = nullptr;
    const int n = PQgetCopyData(c, &buf, 0);
    if (n < 0) {
      error = std::string("replication stream ended: ") + PQerrorMessage(c);
      break;
    }
    if (n == 0) continue;
    const int64_t at = NowMicros();
    bool reply = false;
    if (buf[0] == 'k' && n >= 18) {  // keepalive: walEnd, time, reply requested
      received = std::max<uint64_t>(received, ReadU64(buf + 1));
      reply = buf[17] != 0;
    } else if (buf[0] == 'w' && n > 25) {  // XLogData: start, end, time, then the plugin's text
      received = std::max<uint64_t>(received, ReadU64(buf + 1));
      more = on_text(std::string_view(buf + 25, static_cast<size_t>(n - 25)), at);
    }
    PQfreemem(buf);
    if (more && reply) {  // standby status update: written, flushed, applied, time, no reply
      std::string msg = "r";
      PutU64(&msg, received);
      PutU64(&msg, received);
      PutU64(&msg, received);
      PutU64(&msg, 0);
      msg.push_back(0);
      if (PQputCopyData(c, msg.data(), static_cast<int>(msg.size())) != 1 || PQflush(c) != 0) {
        error = "cannot send the standby status";
        break;
      }
    }
  }
  PQfinish(c);
  return error;
}

// Appends commit `k`'s rows (up to `batch` of the `rows`, from *i on) as COPY text, each W1 row
// followed by the commit number.
void AppendNumberedBatch(bench::W1Generator& gen, int64_t k, int64_t rows, int64_t batch,
                         int64_t* i, std::string* data) {
  bench::W1Row r;
  for (int64_t j = 0; j < batch && *i < rows; j++, ++*i) {
    gen.Next(*i, &r);
    AppendW1Row(data, r);
    *data += '\t';
    AppendInt(data, k);
    *data += '\n';
  }
}

// The source of W6 and W7: `rows` W1 upserts into `table` (keys from half as many) in
// transactions of `batch` rows, each row carrying its commit number (commit_no, the last
// column), as W1 writes them (COPY into a stage, INSERT ... ON CONFLICT), then `end_row` (COPY
// text, commit number -1) in a transaction of its own. Returns when each commit returned;
// *start: the first write.
std::vector<int64_t> WriteNumberedUpserts(Conn& c, const std::string& table, int64_t rows,
                                          int64_t batch, const std::string& end_row,
                                          int64_t* start) {
  const int64_t commits = (rows + batch - 1) / batch;
  c.Exec("CREATE TEMP TABLE stage (LIKE " + table + ")");
  std::vector<int64_t> committed(static_cast<size_t>(commits));
  bench::W1Generator gen(std::max<int64_t>(1, rows / 2));
  std::string data;
  auto flush = [&](const std::string& rows_text) {
    c.Exec("BEGIN");
    c.Exec("TRUNCATE stage");
    c.Copy("stage", rows_text);
    c.Exec("INSERT INTO " + table +
           " SELECT DISTINCT ON (id) * FROM stage ORDER BY id, b DESC "
           "ON CONFLICT (id) DO UPDATE SET a = excluded.a, b = excluded.b, c = excluded.c, "
           "s1 = excluded.s1, s2 = excluded.s2, s3 = excluded.s3, commit_no = excluded.commit_no");
    c.Exec("COMMIT");
  };
  *start = NowMicros();
  int64_t i = 0;
  for (int64_t k = 0; k < commits; k++) {
    AppendNumberedBatch(gen, k, rows, batch, &i, &data);
    flush(data);
    data.clear();
    committed[static_cast<size_t>(k)] = NowMicros();
  }
  flush(end_row);
  return committed;
}

// Drops replication slot `slot` once the walsender has let it go (a moment after the
// consumer's connection closes).
void DropSlot(Conn& c, const std::string& slot) {
  for (int i = 0; i < 100 && c.QueryText("SELECT active FROM pg_replication_slots WHERE "
                                         "slot_name = '" +
                                         slot + "'") == "t";
       i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  c.Exec("SELECT pg_drop_replication_slot('" + slot + "')");
}

// The latencies (ms, sorted) from committed[k] to at[k] for each commit k that arrived.
std::vector<double> Latencies(const std::vector<int64_t>& committed,
                              const std::vector<int64_t>& at) {
  std::vector<double> out;
  for (size_t k = 0; k < committed.size(); k++) {
    if (at[k] == 0) continue;  // a commit whose rows all repeated earlier values decodes nothing
    out.push_back(std::max<int64_t>(0, at[k] - committed[k]) / 1000.0);
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct W6Seen {
  std::vector<int64_t> first_arrival;  // per commit number, 0 until seen
  int64_t changes = 0;
  int64_t last = 0;  // arrival of the sentinel (commit number -1)
  std::string error;
};

// The record of a W6-style run (exits when the consumer failed): rows, commits, changes, the
// rate from the first write to the end marker's arrival, and the commit-to-arrival latencies.
Record W6Figures(const std::string& sys, const std::string& w, const std::string& kase,
                 int64_t rows, const W6Seen& seen, const std::vector<int64_t>& committed,
                 int64_t start) {
  if (!seen.error.empty() || seen.last == 0) {
    std::fprintf(stderr, "%s %s consumer: %s\n", sys.c_str(), w.c_str(), seen.error.c_str());
    std::exit(1);
  }
  const std::vector<double> latency_ms = Latencies(committed, seen.first_arrival);
  const double secs = std::max<int64_t>(1, seen.last - start) / 1e6;
  Record r(sys, w, kase);
  r.Int("rows", rows)
      .Int("commits", static_cast<int64_t>(committed.size()))
      .Int("changes", seen.changes)
      .Num("secs", secs)
      .Num("changes_per_sec", seen.changes / secs)
      .Num("p50_ms", bench::Quantile(latency_ms, 0.50))
      .Num("p99_ms", bench::Quantile(latency_ms, 0.99));
  return r;
}

void W6Consumer(const std::string& info, W6Seen* seen) {
  const std::string kCommit = "commit_no[bigint]:";
  seen->error = FollowSlot(info, "w6", [&](std::string_view text, int64_t at) {
    const bool insert = text.find(": INSERT: ") != std::string_view::npos;
    const bool update = text.find(": UPDATE: ") != std::string_view::npos;
    if (!insert && !update) return true;
    const size_t k = text.rfind(kCommit);
    const int64_t commit =
        k == std::string_view::npos
            ? -2
            : std::strtoll(std::string(text.substr(k + kCommit.size(), 24)).c_str(), nullptr, 10);
    if (commit == -1) {
      seen->last = at;
      return false;
    }
    seen->changes += update ? 2 : 1;
    if (commit >= 0 && static_cast<size_t>(commit) < seen->first_arrival.size() &&
        seen->first_arrival[static_cast<size_t>(commit)] == 0) {
      seen->first_arrival[static_cast<size_t>(commit)] = at;
    }
    return true;
  });
}

void W6(const std::string& info) {
  bench::Params p;
  const int64_t rows = bench::EnvInt("W6_ROWS", std::max<int64_t>(1, p.w1_rows / 5));
  const int64_t batch = std::max<int64_t>(1, bench::EnvInt("W6_BATCH", 2000));
  const int64_t commits = (rows + batch - 1) / batch;
  Conn c(info);
  if (c.QueryText("SHOW wal_level") != "logical") {
    std::fprintf(stderr, "postgres W6 needs wal_level = logical\n");
    std::exit(1);
  }
  c.Exec("DROP TABLE IF EXISTS w6");
  c.Exec(
      "CREATE TABLE w6 (id BIGINT PRIMARY KEY, a BIGINT, b BIGINT, c DOUBLE PRECISION, "
      "s1 TEXT, s2 TEXT, s3 TEXT, commit_no BIGINT)");
  c.Exec("ALTER TABLE w6 REPLICA IDENTITY FULL");
  c.Exec("SELECT pg_create_logical_replication_slot('w6', 'test_decoding')");
  W6Seen seen;
  seen.first_arrival.assign(static_cast<size_t>(commits), 0);
  std::thread consumer(W6Consumer, info, &seen);
  int64_t start = 0;
  const std::vector<int64_t> committed =
      WriteNumberedUpserts(c, "w6", rows, batch, "-1\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t-1\n", &start);
  consumer.join();
  DropSlot(c, "w6");
  W6Figures(kSys, "W6", "logical decoding", rows, seen, committed, start)
      .Int("rss_kb", c.BackendPeakRssKb())
      .Str("how",
           "W1's batch upsert; test_decoding over a replication connection "
           "(START_REPLICATION ... LOGICAL, as pg_recvlogical), REPLICA IDENTITY FULL")
      .Str("version", c.QueryText("SHOW server_version"))
      .Print();
}

// W7: W6's upserts (W7_ROWS rows in commits of W7_BATCH) into w7src while a consumer applies
// them, as one keeps a second table up to date in PostgreSQL without a stream processor: the
// logical decoding stream of W6 (test_decoding over a replication connection), each source
// transaction's new rows filtered (b % 10 <> 0), joined with the 1,000-row w7dim and upserted
// into w7sink (a row whose new values fail the filter deleted from it) in one transaction on a
// second connection. Latency: from a source commit's return to the commit of its applied rows.
struct W7Change {
  int64_t id = 0, a = 0, b = 0, commit_no = 0;
  bool a_null = true, b_null = true;
  std::string s1;
  bool s1_null = true;
};

// The fields of one test_decoding tuple ("id[bigint]:1 s1[text]:'x y' ..."), from `text`.
W7Change ParseTuple(std::string_view text) {
  W7Change c;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') i++;
    const size_t open = text.find('[', i);
    if (open == std::string_view::npos) break;
    const std::string_view name = text.substr(i, open - i);
    const size_t colon = text.find("]:", open);
    if (colon == std::string_view::npos) break;
    i = colon + 2;
    std::string value;
    bool null = false;
    if (i < text.size() && text[i] == '\'') {
      i++;
      while (i < text.size()) {
        if (text[i] == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
          value += '\'';
          i += 2;
        } else if (text[i] == '\'') {
          i++;
          break;
        } else {
          value += text[i++];
        }
      }
    } else {
      const size_t end = std::min(text.find(' ', i), text.size());
      value = std::string(text.substr(i, end - i));
      null = value == "null";
      i = end;
    }
    const int64_t n = null ? 0 : std::strtoll(value.c_str(), nullptr, 10);
    if (name == "id") c.id = n;
    if (name == "a") c.a = n, c.a_null = null;
    if (name == "b") c.b = n, c.b_null = null;
    if (name == "commit_no") c.commit_no = n;
    if (name == "s1") c.s1 = value, c.s1_null = null;
  }
  return c;
}

struct W7Applied {
  std::vector<int64_t> applied;  // per commit number: when its rows were committed to w7sink
  int64_t rows = 0;
  int64_t last = 0;
  std::string error;
};

void W7Consumer(const std::string& info, W7Applied* out) {
  Conn apply(info);
  apply.Exec("CREATE TEMP TABLE w7stage (id BIGINT, a BIGINT, s1 TEXT, commit_no BIGINT)");
  std::string upserts;           // COPY text of the transaction's rows that pass
  std::vector<int64_t> deletes;  // ids whose new row fails the filter
  std::set<int64_t> commit_nos;  // the source commits the transaction carries
  bool done = false;             // the last row (commit number -1) was decoded
  out->error = FollowSlot(info, "w7", [&](std::string_view text, int64_t) {
    size_t at = text.find(": INSERT: ");
    size_t skip = 10;
    if (at == std::string_view::npos) {
      at = text.find("new-tuple: ");
      skip = 11;
    }
    if (at != std::string_view::npos && text.rfind("table public.w7src:", 0) == 0) {
      const W7Change ch = ParseTuple(text.substr(at + skip));
      if (ch.commit_no == -1) done = true;
      commit_nos.insert(ch.commit_no);
      if (!ch.b_null && ch.b % 10 != 0) {
        AppendInt(&upserts, ch.id);
        upserts += '\t';
        if (ch.a_null) {
          upserts += "\\N";
        } else {
          AppendInt(&upserts, ch.a);
        }
        upserts += '\t';
        upserts += ch.s1_null ? "\\N" : ch.s1;
        upserts += '\t';
        AppendInt(&upserts, ch.commit_no);
        upserts += '\n';
      } else {
        deletes.push_back(ch.id);
      }
      return true;
    }
    if (text.rfind("COMMIT", 0) != 0 || commit_nos.empty()) return true;
    // The source transaction ends: its rows applied in one transaction.
    apply.Exec("BEGIN");
    apply.Exec("TRUNCATE w7stage");
    if (!upserts.empty()) apply.Copy("w7stage", upserts);
    apply.Exec(
        "INSERT INTO w7sink SELECT DISTINCT ON (s.id) s.id, s.a, s.s1, d.name, s.commit_no "
        "FROM w7stage s JOIN w7dim d ON d.k = s.a % 1000 ORDER BY s.id "
        "ON CONFLICT (id) DO UPDATE SET a = excluded.a, s1 = excluded.s1, "
        "name = excluded.name, commit_no = excluded.commit_no");
    if (!deletes.empty()) {
      std::string list;
      for (int64_t id : deletes) list += (list.empty() ? "" : ",") + std::to_string(id);
      apply.Exec("DELETE FROM w7sink WHERE id IN (" + list + ")");
    }
    apply.Exec("COMMIT");
    const int64_t now = NowMicros();
    for (int64_t k : commit_nos) {
      if (k >= 0 && static_cast<size_t>(k) < out->applied.size()) {
        out->applied[static_cast<size_t>(k)] = now;
      }
    }
    out->rows += static_cast<int64_t>(std::count(upserts.begin(), upserts.end(), '\n'));
    upserts.clear();
    deletes.clear();
    commit_nos.clear();
    if (done) out->last = now;
    return !done;
  });
}

void W7(const std::string& info) {
  bench::Params p;
  const int64_t rows = bench::EnvInt("W7_ROWS", std::max<int64_t>(1, p.w1_rows / 5));
  const int64_t batch = std::max<int64_t>(1, bench::EnvInt("W7_BATCH", 2000));
  const int64_t commits = (rows + batch - 1) / batch;
  Conn c(info);
  if (c.QueryText("SHOW wal_level") != "logical") {
    std::fprintf(stderr, "postgres W7 needs wal_level = logical\n");
    std::exit(1);
  }
  for (const char* t : {"w7src", "w7dim", "w7sink"})
    c.Exec(std::string("DROP TABLE IF EXISTS ") + t);
  c.Exec(
      "CREATE TABLE w7src (id BIGINT PRIMARY KEY, a BIGINT, b BIGINT, c DOUBLE PRECISION, "
      "s1 TEXT, s2 TEXT, s3 TEXT, commit_no BIGINT)");
  c.Exec("ALTER TABLE w7src REPLICA IDENTITY FULL");
  c.Exec("CREATE TABLE w7dim (k BIGINT PRIMARY KEY, name TEXT)");
  c.Exec("INSERT INTO w7dim SELECT k, 'name-' || k FROM generate_series(0, 999) k");
  c.Exec(
      "CREATE TABLE w7sink (id BIGINT PRIMARY KEY, a BIGINT, s1 TEXT, name TEXT, "
      "commit_no BIGINT)");
  c.Exec("SELECT pg_create_logical_replication_slot('w7', 'test_decoding')");
  W7Applied applied;
  applied.applied.assign(static_cast<size_t>(commits), 0);
  std::thread consumer(W7Consumer, info, &applied);
  int64_t start = 0;
  const std::vector<int64_t> committed =
      WriteNumberedUpserts(c, "w7src", rows, batch, "-1\t0\t1\t\\N\t\\N\t\\N\t\\N\t-1\n", &start);
  consumer.join();
  DropSlot(c, "w7");
  if (!applied.error.empty() || applied.last == 0) {
    std::fprintf(stderr, "postgres W7 consumer: %s\n", applied.error.c_str());
    std::exit(1);
  }
  const std::vector<double> latency_ms = Latencies(committed, applied.applied);
  auto pct = [&](double q) { return bench::Quantile(latency_ms, q); };
  const double secs = std::max<int64_t>(1, applied.last - start) / 1e6;
  Record(kSys, "W7", "logical decoding applied")
      .Int("rows", rows)
      .Int("commits", commits)
      .Int("sink_rows", c.QueryInt("SELECT COUNT(*) FROM w7sink"))
      .Num("secs", secs)
      .Num("rows_per_sec", rows / secs)
      .Num("p50_ms", pct(0.50))
      .Num("p99_ms", pct(0.99))
      .Int("rss_kb", c.BackendPeakRssKb())
      .Str("how",
           "W6's upserts; a consumer thread on test_decoding (as W6) applying each source "
           "transaction's rows, filtered and joined with w7dim, to w7sink in one transaction "
           "(COPY into a stage, INSERT ... ON CONFLICT, DELETE of rows filtered out)")
      .Str("version", c.QueryText("SHOW server_version"))
      .Print();
}

// ---- `tributary serve` through libpq (issue 39's bench): the same client, Tributary's SQL.

// The server's peak RSS (VmHWM of the process named by TRIBUTARY_SERVE_PID), 0 unknown.
int64_t ServerPeakRssKb() {
  const char* pid = std::getenv("TRIBUTARY_SERVE_PID");
  if (!pid) return 0;
  std::FILE* f = std::fopen((std::string("/proc/") + pid + "/status").c_str(), "r");
  if (!f) return 0;
  char line[256];
  int64_t kb = 0;
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "VmHWM:", 6) == 0) kb = std::atoll(line + 6);
  }
  std::fclose(f);
  return kb;
}

// SV1: W1's rows through `tributary serve`: per batch of BENCH_BATCH rows one COPY t FROM STDIN
// (the table's primary key makes it an upsert; one commit per COPY), the rows formatted as W1's
// PostgreSQL client formats them.
void SV1(const std::string& info) {
  bench::Params p;
  bench::Timer timer;
  Conn c(info, /*postgres=*/false);
  c.Exec("DROP TABLE IF EXISTS t");
  c.Exec(
      "CREATE TABLE t (id BIGINT NOT NULL, a BIGINT, b BIGINT, c DOUBLE, s1 STRING, s2 STRING, "
      "s3 STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '4')");
  ForEachW1Batch(p, [&](const std::string& data) { c.Copy("t", data); });
  double secs = timer.Seconds();
  Record("tributary", "SV1", "COPY through tributary serve")
      .Int("rows", p.w1_rows)
      .Num("secs", secs)
      .Num("rate", p.w1_rows / secs)
      .Int("rss_kb", ServerPeakRssKb())
      .Str("how",
           "libpq: one COPY t FROM STDIN per BENCH_BATCH rows (one commit each; the primary key "
           "makes it an upsert), into `tributary serve` on loopback; peak RSS the server's")
      .Print();
}

// SV4: W4's lookups through `tributary serve`: the prepared SELECT's parameter declared int8
// (as JDBC's setLong and psycopg's ints declare it).
void SV4(const std::string& info) {
  Conn c(info, /*postgres=*/false);
  PreparedLookups(c, 20 /* int8 */, "tributary", "SV4",
                  "prepared SELECT ... WHERE id = $1 through tributary serve", ServerPeakRssKb);
}

// SV6: W6 through `tributary serve`: W6's upserts (W6_ROWS rows in commits of W6_BATCH, each
// with its commit number) written by one connection, one COPY per commit, into a table with
// 'changelog-producer' = 'lookup' (as Tributary's W6), while a subscriber on a second connection
// follows the table (streaming mode, DECLARE ... CURSOR, FETCH in a loop) and notes when each
// commit number first arrives. Changes counted as W6 counts them (-U and +U both).
void SV6(const std::string& info) {
  bench::Params p;
  const int64_t rows = bench::EnvInt("W6_ROWS", std::max<int64_t>(1, p.w1_rows / 5));
  const int64_t batch = std::max<int64_t>(1, bench::EnvInt("W6_BATCH", 2000));
  const int64_t commits = (rows + batch - 1) / batch;
  Conn c(info, /*postgres=*/false);
  c.Exec("DROP TABLE IF EXISTS sv6");
  c.Exec(
      "CREATE TABLE sv6 (id BIGINT NOT NULL, a BIGINT, b BIGINT, c DOUBLE, s1 STRING, "
      "s2 STRING, s3 STRING, commit_no BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH "
      "('bucket' = '4', 'changelog-producer' = 'lookup')");
  W6Seen seen;
  seen.first_arrival.assign(static_cast<size_t>(commits), 0);
  std::atomic<bool> subscribed{false};
  std::thread subscriber([&] {
    Conn s(info, /*postgres=*/false);
    s.Exec("SET 'execution.runtime-mode' = 'streaming'");
    s.Exec("DECLARE c CURSOR FOR SELECT commit_no FROM sv6");
    subscribed = true;
    while (seen.last == 0) {
      PGresult* r = PQexec(s.get(), "FETCH 10000 FROM c");
      const int64_t at = NowMicros();
      if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        seen.error = PQerrorMessage(s.get());
        PQclear(r);
        return;
      }
      for (int i = 0; i < PQntuples(r); i++) {
        const std::string op = PQgetvalue(r, i, 0);
        const int64_t commit = std::strtoll(PQgetvalue(r, i, 1), nullptr, 10);
        if (commit == -1) {
          seen.last = at;
          break;
        }
        seen.changes++;
        if (commit >= 0 && commit < commits && seen.first_arrival[commit] == 0 && op != "-U") {
          seen.first_arrival[commit] = at;
        }
      }
      PQclear(r);
    }
  });
  while (!subscribed) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::vector<int64_t> committed(static_cast<size_t>(commits));
  bench::W1Generator gen(std::max<int64_t>(1, rows / 2));
  std::string data;
  const int64_t start = NowMicros();
  int64_t i = 0;
  for (int64_t k = 0; k < commits; k++) {
    AppendNumberedBatch(gen, k, rows, batch, &i, &data);
    c.Copy("sv6", data);
    data.clear();
    committed[static_cast<size_t>(k)] = NowMicros();
  }
  c.Copy("sv6", "-1\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t-1\n");
  subscriber.join();
  W6Figures("tributary", "SV6", "subscription through tributary serve", rows, seen, committed,
            start)
      .Int("rss_kb", ServerPeakRssKb())
      .Str("how",
           "libpq: one COPY per commit into a table with the lookup changelog producer; a second "
           "connection in streaming mode, DECLARE c CURSOR FOR SELECT ..., FETCH 10000 in a loop; "
           "latency from each COPY's return to the FETCH that brought its first row")
      .Print();
}

int main(int argc, char** argv) {
  return bench::RunWorkload(argc, argv,
                            {{"W1", W1},
                             {"W2", W2},
                             {"W3", W3},
                             {"W4", W4},
                             {"W5", W5},
                             {"W6", W6},
                             {"W7", W7},
                             {"SV1", SV1},
                             {"SV4", SV4},
                             {"SV6", SV6}},
                            "<conninfo>");
}
