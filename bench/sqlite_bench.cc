// SQLite's side of `make bench` (Debian libsqlite3). Settings: journal_mode=WAL,
// synchronous=FULL (the WAL is fsynced at each commit), a 256 MiB page cache, one transaction per
// BENCH_BATCH rows, prepared INSERT ... ON CONFLICT (id) DO UPDATE statements.
//   sqlite_bench W1|W2|W3|W4|W5 <dir>
#include <sqlite3.h>

#include "bench_common.h"

using bench::Record;

namespace {

const char* kSys = "sqlite";

void Die(sqlite3* db, const char* what) {
  std::fprintf(stderr, "sqlite %s: %s\n", what, db ? sqlite3_errmsg(db) : "?");
  std::exit(1);
}
void Exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::fprintf(stderr, "sqlite: %s: %s\n", sql.c_str(), err ? err : "?");
    std::exit(1);
  }
}
sqlite3_stmt* Prepare(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) Die(db, sql.c_str());
  return st;
}
void StepDone(sqlite3* db, sqlite3_stmt* st) {
  if (sqlite3_step(st) != SQLITE_DONE) Die(db, "step");
  sqlite3_reset(st);
}

sqlite3* Open(const std::string& dir) {
  std::filesystem::create_directories(dir);
  sqlite3* db = nullptr;
  if (sqlite3_open((dir + "/db.sqlite").c_str(), &db) != SQLITE_OK) Die(db, "open");
  Exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA cache_size=-262144");
  return db;
}

int64_t QueryInt(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* st = Prepare(db, sql);
  int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_finalize(st);
  return v;
}

void W1(const std::string& dir) {
  bench::Params p;
  bench::Timer timer;
  sqlite3* db = Open(dir);
  Exec(db,
       "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, c REAL, s1 TEXT, "
       "s2 TEXT, s3 TEXT)");
  sqlite3_stmt* ins =
      Prepare(db,
              "INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (id) DO UPDATE SET "
              "a = excluded.a, b = excluded.b, c = excluded.c, s1 = excluded.s1, s2 = excluded.s2, "
              "s3 = excluded.s3");
  bench::W1Generator gen(p.W1Keyspace());
  bench::W1Row r;
  Exec(db, "BEGIN");
  for (int64_t i = 0; i < p.w1_rows; i++) {
    gen.Next(i, &r);
    sqlite3_bind_int64(ins, 1, r.id);
    sqlite3_bind_int64(ins, 2, r.a);
    sqlite3_bind_int64(ins, 3, r.b);
    sqlite3_bind_double(ins, 4, r.c);
    sqlite3_bind_text(ins, 5, r.s1.data(), static_cast<int>(r.s1.size()), SQLITE_STATIC);
    sqlite3_bind_text(ins, 6, r.s2.data(), static_cast<int>(r.s2.size()), SQLITE_STATIC);
    sqlite3_bind_text(ins, 7, r.s3.data(), static_cast<int>(r.s3.size()), SQLITE_STATIC);
    StepDone(db, ins);
    if ((i + 1) % p.batch == 0 || i + 1 == p.w1_rows) {
      Exec(db, "COMMIT");
      if (i + 1 < p.w1_rows) Exec(db, "BEGIN");
    }
  }
  sqlite3_finalize(ins);
  double secs = timer.Seconds();
  int64_t bytes = bench::DirBytes(dir);  // database plus WAL, as left by the run
  sqlite3_close(db);
  Record(kSys, "W1", "upsert")
      .Int("rows", p.w1_rows)
      .Num("secs", secs)
      .Num("rate", p.w1_rows / secs)
      .Int("bytes", bytes)
      .Int("rss_kb", bench::PeakRssKb())
      .Str("version", sqlite3_libversion())
      .Print();
}

void W4(const std::string& dir) {
  bench::Params p;
  sqlite3* db = Open(dir);
  sqlite3_stmt* q = Prepare(db, "SELECT a, b, c, s1, s2, s3 FROM t WHERE id = ?1");
  const bench::W4KeySeq keys = bench::W4Keys(p);
  bench::Latencies lat;
  int64_t hits = 0;
  bench::Timer total;
  for (int64_t k : keys) {
    bench::Timer t;
    sqlite3_bind_int64(q, 1, k);
    while (sqlite3_step(q) == SQLITE_ROW) {
      hits++;
      std::string s1(reinterpret_cast<const char*>(sqlite3_column_text(q, 3)));
      (void)s1;
    }
    sqlite3_reset(q);
    lat.push_back(t.Seconds());
    if ((lat.size() & 1023) == 0 && total.Seconds() >= p.w4_seconds) break;
  }
  double secs = total.Seconds();
  sqlite3_finalize(q);
  sqlite3_close(db);
  Record(kSys, "W4", "SELECT ... WHERE id = ?")
      .Int("ops", static_cast<int64_t>(lat.size()))
      .Int("hits", hits)
      .Num("secs", secs)
      .Num("rate", lat.size() / secs)
      .Num("p50_us", bench::Percentile(lat, 0.5) * 1e6)
      .Num("p99_us", bench::Percentile(lat, 0.99) * 1e6)
      .Int("rss_kb", bench::PeakRssKb())
      .Print();
}

void W5Scans(sqlite3* db, const std::string& phase) {
  bench::Params p;
  int64_t rows = QueryInt(db, "SELECT COUNT(*) FROM t");
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
      sqlite3_stmt* st = Prepare(db, q.sql);
      int64_t n = 0, v = 0;
      while (sqlite3_step(st) == SQLITE_ROW) {
        n++;
        v = sqlite3_column_int64(st, 0);
        if (q.name[0] == 'f') {
          std::string s(reinterpret_cast<const char*>(sqlite3_column_text(st, 6)));
          (void)s;
        }
      }
      sqlite3_finalize(st);
      times.push_back(t.Seconds());
      result = q.name[0] == 'f' ? n : v;
    }
    double secs = bench::Median(times);
    Record(kSys, "W5", std::string(q.name) + " " + phase)
        .Num("secs", secs)
        .Num("first_secs", times.front())
        .Int("result", result)
        .Num("rate", rows / secs)
        .Int("rss_kb", bench::PeakRssKb())
        .Print();
  }
}

void W5(const std::string& dir) {
  sqlite3* db = Open(dir);
  W5Scans(db, "before");
  Exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  int64_t before = bench::DirBytes(dir);
  bench::Timer t;
  Exec(db, "VACUUM");
  Exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  Record(kSys, "W5", "compact")
      .Str("how", "VACUUM")
      .Num("secs", t.Seconds())
      .Int("bytes_before", before)
      .Int("bytes_after", bench::DirBytes(dir))
      .Print();
  W5Scans(db, "after");
  sqlite3_close(db);
}

void J1(const std::string& dir) {
  bench::Params p;
  sqlite3* db = Open(dir);
  Exec(db, "CREATE TABLE customer (custkey INTEGER PRIMARY KEY, nation INTEGER, name TEXT)");
  Exec(db, "CREATE TABLE orders (orderkey INTEGER PRIMARY KEY, custkey INTEGER, amount INTEGER)");
  bench::J1Generator gen(p.j1_customers);
  Exec(db, "BEGIN");
  sqlite3_stmt* ins = Prepare(db, "INSERT INTO customer VALUES (?1, ?2, ?3)");
  bench::J1Customer c;
  for (int64_t i = 0; i < p.j1_customers; i++) {
    gen.Customer(i, &c);
    sqlite3_bind_int64(ins, 1, c.custkey);
    sqlite3_bind_int64(ins, 2, c.nation);
    sqlite3_bind_text(ins, 3, c.name.data(), static_cast<int>(c.name.size()), SQLITE_TRANSIENT);
    StepDone(db, ins);
  }
  sqlite3_finalize(ins);
  ins = Prepare(db, "INSERT INTO orders VALUES (?1, ?2, ?3)");
  bench::J1Order o;
  for (int64_t i = 0; i < p.j1_orders; i++) {
    gen.Order(i, &o);
    sqlite3_bind_int64(ins, 1, o.orderkey);
    sqlite3_bind_int64(ins, 2, o.custkey);
    sqlite3_bind_int64(ins, 3, o.amount);
    StepDone(db, ins);
  }
  sqlite3_finalize(ins);
  Exec(db, "COMMIT");
  Exec(db, "ANALYZE");
  std::vector<double> times;
  std::string check;
  for (int64_t rep = 0; rep < p.w5_repeat; rep++) {
    bench::Timer t;
    sqlite3_stmt* st = Prepare(db, bench::kJ1Query);
    if (sqlite3_step(st) == SQLITE_ROW) {
      check = "count=" + std::to_string(sqlite3_column_int64(st, 0)) +
              " sum_amount=" + std::to_string(sqlite3_column_int64(st, 1)) +
              " sum_nation=" + std::to_string(sqlite3_column_int64(st, 2));
    }
    sqlite3_finalize(st);
    times.push_back(t.Seconds());
  }
  Record(kSys, "J1", "join")
      .Num("secs", bench::Median(times))
      .Str("check", check)
      .Str("how", "SQL (the customer key is the rowid: an index lookup per order)")
      .Int("rss_kb", bench::PeakRssKb())
      .Print();
  sqlite3_close(db);
}

void W2(const std::string& dir) {
  bench::Params p;
  bench::Timer timer;
  sqlite3* db = Open(dir);
  Exec(db, "CREATE TABLE t (id INTEGER PRIMARY KEY, s INTEGER, m INTEGER)");
  sqlite3_stmt* ins = Prepare(db,
                              "INSERT INTO t VALUES (?1, ?2, ?2) ON CONFLICT (id) DO UPDATE "
                              "SET s = s + excluded.s, m = max(m, excluded.m)");
  bench::W2Generator gen(p.w2_keys);
  Exec(db, "BEGIN");
  for (int64_t i = 0; i < p.w2_events; i++) {
    bench::W2Event e = gen.Next();
    sqlite3_bind_int64(ins, 1, e.id);
    sqlite3_bind_int64(ins, 2, e.v);
    StepDone(db, ins);
    if ((i + 1) % p.batch == 0 || i + 1 == p.w2_events) {
      Exec(db, "COMMIT");
      if (i + 1 < p.w2_events) Exec(db, "BEGIN");
    }
  }
  sqlite3_finalize(ins);
  double secs = timer.Seconds();
  int64_t bytes = bench::DirBytes(dir);
  std::string check = "keys=" + std::to_string(QueryInt(db, "SELECT COUNT(*) FROM t")) +
                      " sum_s=" + std::to_string(QueryInt(db, "SELECT SUM(s) FROM t")) +
                      " sum_m=" + std::to_string(QueryInt(db, "SELECT SUM(m) FROM t"));
  sqlite3_close(db);
  Record(kSys, "W2", "sum+max")
      .Int("rows", p.w2_events)
      .Num("secs", secs)
      .Num("rate", p.w2_events / secs)
      .Int("bytes", bytes)
      .Int("rss_kb", bench::PeakRssKb())
      .Str("check", check)
      .Str("how", "UPSERT s = s + excluded.s, m = max(m, excluded.m)")
      .Print();
}

void W3(const std::string& dir) {
  bench::Params p;
  bench::Timer timer;
  sqlite3* db = Open(dir);
  Exec(db,
       "CREATE TABLE t (id INTEGER PRIMARY KEY, c1 INTEGER, c2 INTEGER, c3 INTEGER, "
       "c4 INTEGER, c5 INTEGER, c6 INTEGER)");
  sqlite3_stmt* ins[3];
  for (int w = 0; w < 3; w++) {
    std::string x = "c" + std::to_string(2 * w + 1), y = "c" + std::to_string(2 * w + 2);
    ins[w] = Prepare(db, "INSERT INTO t (id, " + x + ", " + y +
                             ") VALUES (?1, ?2, ?3) "
                             "ON CONFLICT (id) DO UPDATE SET " +
                             x + " = excluded." + x + ", " + y + " = excluded." + y);
  }
  int64_t next[3] = {0, 0, 0};
  while (next[2] < p.w3_keys) {
    for (int w = 0; w < 3; w++) {
      int64_t end = std::min(p.w3_keys, next[w] + p.batch);
      Exec(db, "BEGIN");
      for (int64_t j = next[w]; j < end; j++) {
        int64_t key = bench::W3Key(p.w3_keys, w, j);
        sqlite3_bind_int64(ins[w], 1, key);
        sqlite3_bind_int64(ins[w], 2, bench::W3Value(key, 2 * w + 1));
        sqlite3_bind_int64(ins[w], 3, bench::W3Value(key, 2 * w + 2));
        StepDone(db, ins[w]);
      }
      Exec(db, "COMMIT");
      next[w] = end;
    }
  }
  for (auto* st : ins) sqlite3_finalize(st);
  double secs = timer.Seconds();
  int64_t bytes = bench::DirBytes(dir);
  std::string check =
      "keys=" + std::to_string(QueryInt(db, "SELECT COUNT(*) FROM t")) + " sum=" +
      std::to_string(QueryInt(db,
                              "SELECT SUM(c1) + SUM(c2) + SUM(c3) + SUM(c4) + SUM(c5) + "
                              "SUM(c6) FROM t"));
  sqlite3_close(db);
  Record(kSys, "W3", "3 writers")
      .Int("rows", 3 * p.w3_keys)
      .Num("secs", secs)
      .Num("rate", 3 * p.w3_keys / secs)
      .Int("bytes", bytes)
      .Int("rss_kb", bench::PeakRssKb())
      .Str("check", check)
      .Str("how", "UPSERT of the writer's two columns")
      .Print();
}

}  // namespace

int main(int argc, char** argv) {
  return bench::RunWorkload(
      argc, argv, {{"W1", W1}, {"W2", W2}, {"W3", W3}, {"W4", W4}, {"W5", W5}, {"J1", J1}});
}
