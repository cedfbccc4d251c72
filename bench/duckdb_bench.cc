// DuckDB's side of `make bench`, through DuckDB's C API as DuckDB's own docs drive it from C or
// C++: the native library the npm platform package @duckdb/node-bindings-linux-x64 ships
// (libduckdb.so, found at $DUCKDB_LIB or under bench/node_modules), loaded with dlopen, and the
// few C-API declarations below (duckdb.h's, ABI-stable since 1.0). Per batch of BENCH_BATCH
// rows: an Appender fills a TEMP staging table (in memory, not logged), then one transaction
// INSERT ... SELECT ... ON CONFLICT DO UPDATE moves the batch into the table
// and commits (DuckDB fsyncs its WAL at commit). The batch's duplicate keys are reduced first
// (newest wins), since DuckDB cannot update a row twice in one statement. W4: a prepared
// statement bound per key. W5 / J1: SQL.
//   duckdb_bench W1|W2|W3|W4|W5|J1 <dir>
#include <dlfcn.h>

#include <memory>
#include <string>

#include "bench_common.h"

using bench::Record;

namespace {

// ---- The C API (duckdb.h), declared as the library exports it. ----
using idx_t = uint64_t;
enum duckdb_state { DuckDBSuccess = 0, DuckDBError = 1 };
struct _duckdb_handle {
  void* internal_ptr;
};
using duckdb_database = _duckdb_handle*;
using duckdb_connection = _duckdb_handle*;
using duckdb_prepared_statement = _duckdb_handle*;
using duckdb_appender = _duckdb_handle*;
struct duckdb_result {
  idx_t deprecated_column_count;
  idx_t deprecated_row_count;
  idx_t deprecated_rows_changed;
  void* deprecated_columns;
  char* deprecated_error_message;
  void* internal_data;
};

struct DuckDB {
  duckdb_state (*open)(const char*, duckdb_database*);
  void (*close)(duckdb_database*);
  duckdb_state (*connect)(duckdb_database, duckdb_connection*);
  void (*disconnect)(duckdb_connection*);
  duckdb_state (*query)(duckdb_connection, const char*, duckdb_result*);
  void (*destroy_result)(duckdb_result*);
  const char* (*result_error)(duckdb_result*);
  idx_t (*row_count)(duckdb_result*);
  int64_t (*value_int64)(duckdb_result*, idx_t, idx_t);
  char* (*value_varchar)(duckdb_result*, idx_t, idx_t);
  void (*free)(void*);
  duckdb_state (*prepare)(duckdb_connection, const char*, duckdb_prepared_statement*);
  const char* (*prepare_error)(duckdb_prepared_statement);
  void (*destroy_prepare)(duckdb_prepared_statement*);
  duckdb_state (*bind_int64)(duckdb_prepared_statement, idx_t, int64_t);
  duckdb_state (*execute_prepared)(duckdb_prepared_statement, duckdb_result*);
  duckdb_state (*appender_create_ext)(duckdb_connection, const char*, const char*, const char*,
                                      duckdb_appender*);
  const char* (*appender_error)(duckdb_appender);
  duckdb_state (*appender_flush)(duckdb_appender);
  duckdb_state (*appender_destroy)(duckdb_appender*);
  duckdb_state (*appender_end_row)(duckdb_appender);
  duckdb_state (*append_int64)(duckdb_appender, int64_t);
  duckdb_state (*append_double)(duckdb_appender, double);
  duckdb_state (*append_varchar_length)(duckdb_appender, const char*, idx_t);
  const char* (*library_version)();
};

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "duckdb: %s\n", what.c_str());
  std::exit(1);
}

const DuckDB& Api() {
  static const DuckDB api = [] {
    const char* env = std::getenv("DUCKDB_LIB");
    std::string path =
        env && *env ? env : "bench/node_modules/@duckdb/node-bindings-linux-x64/libduckdb.so";
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) Die("cannot load " + path + ": " + dlerror());
    DuckDB a{};
    auto sym = [&](auto* fn, const char* name) {
      void* p = dlsym(h, name);
      if (!p) Die(std::string("missing symbol ") + name);
      *fn = reinterpret_cast<std::remove_pointer_t<decltype(fn)>>(p);
    };
    sym(&a.open, "duckdb_open");
    sym(&a.close, "duckdb_close");
    sym(&a.connect, "duckdb_connect");
    sym(&a.disconnect, "duckdb_disconnect");
    sym(&a.query, "duckdb_query");
    sym(&a.destroy_result, "duckdb_destroy_result");
    sym(&a.result_error, "duckdb_result_error");
    sym(&a.row_count, "duckdb_row_count");
    sym(&a.value_int64, "duckdb_value_int64");
    sym(&a.value_varchar, "duckdb_value_varchar");
    sym(&a.free, "duckdb_free");
    sym(&a.prepare, "duckdb_prepare");
    sym(&a.prepare_error, "duckdb_prepare_error");
    sym(&a.destroy_prepare, "duckdb_destroy_prepare");
    sym(&a.bind_int64, "duckdb_bind_int64");
    sym(&a.execute_prepared, "duckdb_execute_prepared");
    sym(&a.appender_create_ext, "duckdb_appender_create_ext");
    sym(&a.appender_error, "duckdb_appender_error");
    sym(&a.appender_flush, "duckdb_appender_flush");
    sym(&a.appender_destroy, "duckdb_appender_destroy");
    sym(&a.appender_end_row, "duckdb_appender_end_row");
    sym(&a.append_int64, "duckdb_append_int64");
    sym(&a.append_double, "duckdb_append_double");
    sym(&a.append_varchar_length, "duckdb_append_varchar_length");
    sym(&a.library_version, "duckdb_library_version");
    return a;
  }();
  return api;
}

const char* kSys = "duckdb";

struct Db {
  duckdb_database db = nullptr;
  duckdb_connection con = nullptr;
  explicit Db(const std::string& dir) {
    std::filesystem::create_directories(dir);
    if (Api().open((dir + "/db.duckdb").c_str(), &db) != DuckDBSuccess) Die("open " + dir);
    if (Api().connect(db, &con) != DuckDBSuccess) Die("connect");
  }
  ~Db() {
    Api().disconnect(&con);
    Api().close(&db);
  }
  void Exec(const std::string& sql) {
    duckdb_result r;
    if (Api().query(con, sql.c_str(), &r) != DuckDBSuccess) {
      std::string err = Api().result_error(&r) ? Api().result_error(&r) : "?";
      Api().destroy_result(&r);
      Die(sql + ": " + err);
    }
    Api().destroy_result(&r);
  }
  int64_t Int(const std::string& sql) {
    duckdb_result r;
    if (Api().query(con, sql.c_str(), &r) != DuckDBSuccess)
      Die(sql + ": " + Api().result_error(&r));
    int64_t v = Api().row_count(&r) > 0 ? Api().value_int64(&r, 0, 0) : 0;
    Api().destroy_result(&r);
    return v;
  }
};

class Appender {
 public:
  Appender(Db& db, const char* catalog, const char* table) {
    if (Api().appender_create_ext(db.con, catalog, "main", table, &a_) != DuckDBSuccess) {
      Die(std::string("appender on ") + table + ": " +
          (a_ ? Api().appender_error(a_) : "no appender"));
    }
  }
  ~Appender() { Api().appender_destroy(&a_); }
  void Int(int64_t v) { Check(Api().append_int64(a_, v)); }
  void Double(double v) { Check(Api().append_double(a_, v)); }
  void Str(const std::string& s) { Check(Api().append_varchar_length(a_, s.data(), s.size())); }
  void EndRow() { Check(Api().appender_end_row(a_)); }
  void Flush() { Check(Api().appender_flush(a_)); }

 private:
  void Check(duckdb_state st) {
    if (st != DuckDBSuccess) Die(std::string("appender: ") + Api().appender_error(a_));
  }
  duckdb_appender a_ = nullptr;
};

// A TEMP staging table filled by an Appender, emptied after each batch the way DuckDB's own
// engineers would: dropped and created again with a new Appender. `DELETE FROM stage` leaves the
// deleted rows behind in DuckDB 1.5 (every later INSERT ... SELECT from it reads past them): W2
// ran at 287k events/s that way against 1.19M events/s with the table re-created (issue 40,
// measured on this machine in one window).
class Stage {
 public:
  Stage(Db& db, std::string name, std::string columns)
      : db_(db), name_(std::move(name)), columns_(std::move(columns)) {
    Create();
  }
  Appender& appender() { return *appender_; }
  // After the batch's INSERT ... SELECT: an empty staging table again.
  void Reset() {
    appender_.reset();
    db_.Exec("DROP TABLE " + name_);
    Create();
  }

 private:
  void Create() {
    db_.Exec("CREATE TEMP TABLE " + name_ + " (" + columns_ + ")");
    appender_ = std::make_unique<Appender>(db_, "temp", name_.c_str());
  }
  Db& db_;
  std::string name_, columns_;
  std::unique_ptr<Appender> appender_;
};

void W1(const std::string& dir) {
  bench::Params p;
  bench::Timer timer;
  Db db(dir);
  db.Exec(
      "CREATE TABLE t (id BIGINT PRIMARY KEY, a BIGINT, b BIGINT, c DOUBLE, s1 VARCHAR, "
      "s2 VARCHAR, s3 VARCHAR)");
  {
    Stage stage(db, "stage",
                "id BIGINT, a BIGINT, b BIGINT, c DOUBLE, s1 VARCHAR, s2 VARCHAR, "
                "s3 VARCHAR");
    bench::W1Generator gen(p.W1Keyspace());
    bench::W1Row r;
    for (int64_t i = 0; i < p.w1_rows; i++) {
      gen.Next(i, &r);
      stage.appender().Int(r.id);
      stage.appender().Int(r.a);
      stage.appender().Int(r.b);
      stage.appender().Double(r.c);
      stage.appender().Str(r.s1);
      stage.appender().Str(r.s2);
      stage.appender().Str(r.s3);
      stage.appender().EndRow();
      if ((i + 1) % p.batch == 0 || i + 1 == p.w1_rows) {
        stage.appender().Flush();
        db.Exec("BEGIN");
        db.Exec(
            "INSERT INTO t SELECT * FROM stage "
            "QUALIFY row_number() OVER (PARTITION BY id ORDER BY b DESC) = 1 "
            "ON CONFLICT (id) DO UPDATE SET a = excluded.a, b = excluded.b, c = excluded.c, "
            "s1 = excluded.s1, s2 = excluded.s2, s3 = excluded.s3");
        db.Exec("COMMIT");
        stage.Reset();
      }
    }
  }
  double secs = timer.Seconds();
  Record(kSys, "W1", "upsert")
      .Int("rows", p.w1_rows)
      .Num("secs", secs)
      .Num("rate", p.w1_rows / secs)
      .Int("bytes", bench::DirBytes(dir))
      .Int("rss_kb", bench::PeakRssKb())
      .Str("version", Api().library_version())
      .Str("how", "C API: Appender into a TEMP table, INSERT ... ON CONFLICT DO UPDATE per batch")
      .Print();
}

void W4(const std::string& dir) {
  bench::Params p;
  Db db(dir);
  duckdb_prepared_statement q = nullptr;
  if (Api().prepare(db.con, "SELECT a, b, c, s1, s2, s3 FROM t WHERE id = $1", &q) !=
      DuckDBSuccess) {
    Die(std::string("prepare: ") + Api().prepare_error(q));
  }
  const bench::W4KeySeq keys = bench::W4Keys(p);
  bench::Latencies lat;
  int64_t hits = 0;
  bench::Timer total;
  for (int64_t k : keys) {
    bench::Timer t;
    Api().bind_int64(q, 1, k);
    duckdb_result r;
    if (Api().execute_prepared(q, &r) != DuckDBSuccess) Die("execute");
    if (Api().row_count(&r) > 0) {
      hits++;
      char* s1 = Api().value_varchar(&r, 3, 0);
      Api().free(s1);
    }
    Api().destroy_result(&r);
    lat.push_back(t.Seconds());
    if ((lat.size() & 255) == 0 && total.Seconds() >= p.w4_seconds) break;
  }
  double secs = total.Seconds();
  Api().destroy_prepare(&q);
  Record(kSys, "W4", "C API prepared SELECT ... WHERE id = $1")
      .Int("ops", static_cast<int64_t>(lat.size()))
      .Int("hits", hits)
      .Num("secs", secs)
      .Num("rate", lat.size() / secs)
      .Num("p50_us", bench::Percentile(lat, 0.5) * 1e6)
      .Num("p99_us", bench::Percentile(lat, 0.99) * 1e6)
      .Int("rss_kb", bench::PeakRssKb())
      .Print();
}

void W5Scans(Db& db, const std::string& phase) {
  bench::Params p;
  int64_t rows = db.Int("SELECT COUNT(*) FROM t");
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
      duckdb_result r;
      if (Api().query(db.con, q.sql, &r) != DuckDBSuccess) Die(q.sql);
      // The result is materialized in DuckDB's chunks; its rows are counted, as the other
      // peers step through theirs.
      result = q.name[0] == 'f' ? static_cast<int64_t>(Api().row_count(&r))
                                : Api().value_int64(&r, 0, 0);
      Api().destroy_result(&r);
      times.push_back(t.Seconds());
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
  Db db(dir);
  W5Scans(db, "before");
  int64_t before = bench::DirBytes(dir);
  bench::Timer t;
  db.Exec("CHECKPOINT");
  Record(kSys, "W5", "compact")
      .Str("how", "CHECKPOINT")
      .Num("secs", t.Seconds())
      .Int("bytes_before", before)
      .Int("bytes_after", bench::DirBytes(dir))
      .Print();
  W5Scans(db, "after");
}

void W2(const std::string& dir) {
  bench::Params p;
  bench::Timer timer;
  Db db(dir);
  db.Exec("CREATE TABLE w2 (id BIGINT PRIMARY KEY, s BIGINT, m BIGINT)");
  {
    Stage stage(db, "stage2", "id BIGINT, v BIGINT");
    bench::W2Generator gen(p.w2_keys);
    for (int64_t i = 0; i < p.w2_events; i++) {
      bench::W2Event e = gen.Next();
      stage.appender().Int(e.id);
      stage.appender().Int(e.v);
      stage.appender().EndRow();
      if ((i + 1) % p.batch == 0 || i + 1 == p.w2_events) {
        stage.appender().Flush();
        db.Exec("BEGIN");
        db.Exec(
            "INSERT INTO w2 SELECT id, SUM(v)::BIGINT, MAX(v) FROM stage2 GROUP BY id "
            "ON CONFLICT (id) DO UPDATE SET s = s + excluded.s, m = greatest(m, excluded.m)");
        db.Exec("COMMIT");
        stage.Reset();
      }
    }
  }
  double secs = timer.Seconds();
  std::string check = "keys=" + std::to_string(db.Int("SELECT COUNT(*) FROM w2")) +
                      " sum_s=" + std::to_string(db.Int("SELECT SUM(s) FROM w2")) +
                      " sum_m=" + std::to_string(db.Int("SELECT SUM(m) FROM w2"));
  Record(kSys, "W2", "sum+max")
      .Int("rows", p.w2_events)
      .Num("secs", secs)
      .Num("rate", p.w2_events / secs)
      .Int("bytes", bench::DirBytes(dir))
      .Int("rss_kb", bench::PeakRssKb())
      .Str("check", check)
      .Str("how", "C API: Appender, then INSERT ... SELECT SUM, MAX GROUP BY ... ON CONFLICT")
      .Print();
}

void W3(const std::string& dir) {
  bench::Params p;
  bench::Timer timer;
  Db db(dir);
  db.Exec(
      "CREATE TABLE w3 (id BIGINT PRIMARY KEY, c1 BIGINT, c2 BIGINT, c3 BIGINT, c4 BIGINT, "
      "c5 BIGINT, c6 BIGINT)");
  {
    Stage stage(db, "stage3", "id BIGINT, x BIGINT, y BIGINT");
    int64_t next[3] = {0, 0, 0};
    while (next[2] < p.w3_keys) {
      for (int w = 0; w < 3; w++) {
        int64_t end = std::min(p.w3_keys, next[w] + p.batch);
        for (int64_t j = next[w]; j < end; j++) {
          int64_t key = bench::W3Key(p.w3_keys, w, j);
          stage.appender().Int(key);
          stage.appender().Int(bench::W3Value(key, 2 * w + 1));
          stage.appender().Int(bench::W3Value(key, 2 * w + 2));
          stage.appender().EndRow();
        }
        next[w] = end;
        stage.appender().Flush();
        std::string x = "c" + std::to_string(2 * w + 1), y = "c" + std::to_string(2 * w + 2);
        db.Exec("BEGIN");
        db.Exec("INSERT INTO w3 (id, " + x + ", " + y +
                ") SELECT id, x, y FROM stage3 "
                "ON CONFLICT (id) DO UPDATE SET " +
                x + " = excluded." + x + ", " + y + " = excluded." + y);
        db.Exec("COMMIT");
        stage.Reset();
      }
    }
  }
  double secs = timer.Seconds();
  std::string check =
      "keys=" + std::to_string(db.Int("SELECT COUNT(*) FROM w3")) + " sum=" +
      std::to_string(db.Int("SELECT SUM(c1) + SUM(c2) + SUM(c3) + SUM(c4) + SUM(c5) + SUM(c6) "
                            "FROM w3"));
  Record(kSys, "W3", "3 writers")
      .Int("rows", 3 * p.w3_keys)
      .Num("secs", secs)
      .Num("rate", 3 * p.w3_keys / secs)
      .Int("bytes", bench::DirBytes(dir))
      .Int("rss_kb", bench::PeakRssKb())
      .Str("check", check)
      .Str("how", "C API: Appender, then INSERT ... ON CONFLICT of the writer's two columns")
      .Print();
}

void J1(const std::string& dir) {
  bench::Params p;
  Db db(dir);
  db.Exec("CREATE TABLE customer (custkey BIGINT PRIMARY KEY, nation BIGINT, name VARCHAR)");
  db.Exec("CREATE TABLE orders (orderkey BIGINT PRIMARY KEY, custkey BIGINT, amount BIGINT)");
  bench::J1Generator gen(p.j1_customers);
  {
    Appender ap(db, nullptr, "customer");
    bench::J1Customer c;
    for (int64_t i = 0; i < p.j1_customers; i++) {
      gen.Customer(i, &c);
      ap.Int(c.custkey);
      ap.Int(c.nation);
      ap.Str(c.name);
      ap.EndRow();
    }
  }
  {
    Appender ap(db, nullptr, "orders");
    bench::J1Order o;
    for (int64_t i = 0; i < p.j1_orders; i++) {
      gen.Order(i, &o);
      ap.Int(o.orderkey);
      ap.Int(o.custkey);
      ap.Int(o.amount);
      ap.EndRow();
    }
  }
  db.Exec("CHECKPOINT");
  std::vector<double> times;
  std::string check;
  for (int64_t rep = 0; rep < p.w5_repeat; rep++) {
    bench::Timer t;
    duckdb_result r;
    if (Api().query(db.con, bench::kJ1Query, &r) != DuckDBSuccess) Die("J1 query");
    check = "count=" + std::to_string(Api().value_int64(&r, 0, 0)) +
            " sum_amount=" + std::to_string(Api().value_int64(&r, 1, 0)) +
            " sum_nation=" + std::to_string(Api().value_int64(&r, 2, 0));
    Api().destroy_result(&r);
    times.push_back(t.Seconds());
  }
  Record(kSys, "J1", "join")
      .Num("secs", bench::Median(times))
      .Str("check", check)
      .Str("how", "C API: SQL over tables loaded by the Appender, after CHECKPOINT")
      .Int("rss_kb", bench::PeakRssKb())
      .Print();
}

}  // namespace

int main(int argc, char** argv) {
  return bench::RunWorkload(
      argc, argv, {{"W1", W1}, {"W2", W2}, {"W3", W3}, {"W4", W4}, {"W5", W5}, {"J1", J1}});
}
