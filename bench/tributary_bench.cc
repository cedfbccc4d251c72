// Tributary's side of `make bench`, through the public library API only (one process per
// workload so that peak RSS is the workload's own).
//   tributary_bench W1 <warehouse> fixed|dynamic
//   tributary_bench W4|W5|W2|W3 <warehouse>
// Prints JSON lines (bench_common.h). W4 and W5 read the table W1 `fixed` wrote.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "bench_common.h"
#include "io/file_system.h"
#include "meta/snapshot.h"
#include "sql/exec/operators.h"
#include "sql/session/prepared.h"
#include "sql/session/session.h"
#include "tributary/catalog.h"
#include "tributary/sql.h"
#include "tributary/stream_scan.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"
#include "tributary/table_writer.h"

using namespace tributary;
using bench::Record;

namespace {

const char* kSys = "tributary";

#define CHECK_OK(expr)                \
  do {                                \
    ::tributary::Status _st = (expr); \
    if (!_st.ok()) return _st;        \
  } while (0)
#define ASSIGN_OR_RETURN(lhs, expr)           \
  auto lhs##_r = (expr);                      \
  if (!lhs##_r.ok()) return lhs##_r.status(); \
  auto lhs = std::move(lhs##_r).value()

Field Col(const char* name, DataType t) { return Field{0, name, t, ""}; }

// Bytes of the files the latest snapshot refers to (t$files), next to the whole table directory
// (which also holds files of older snapshots until they expire).
Result<int64_t> LiveBytes(Catalog& catalog, const std::string& table) {
  ASSIGN_OR_RETURN(data, catalog.ReadSystemTable(Identifier{"default", table, "files"}));
  int col = -1;
  for (size_t i = 0; i < data.fields.size(); i++) {
    if (data.fields[i].name == "file_size_in_bytes") col = static_cast<int>(i);
  }
  int64_t n = 0;
  for (const Row& r : data.rows) {
    if (col >= 0 && r[col].is_int()) n += r[col].int_value();
  }
  return n;
}

// Runs `scan` to the end; calls f(row) on every row.
template <typename F>
Status Drain(Table& table, ScanOptions opts, F&& f) {
  // Rows handed out a bounded batch at a time, as a reader of a whole table would ask for them.
  if (opts.max_batch_rows == 0) opts.max_batch_rows = 65536;
  ASSIGN_OR_RETURN(scan, table.NewScan(opts));
  RowBatch batch;
  while (true) {
    ASSIGN_OR_RETURN(more, scan->Next(&batch));
    if (!more) break;
    for (const Row& r : batch.rows) f(r);
  }
  return Status::OK();
}

// W1's rows (W1_ROWS of bench::W1Generator) through a long-lived writer (background compaction,
// as a streaming ingest runs one) with a commit every BENCH_BATCH rows, the last one waiting for
// compaction (Paimon's writers). With `partitions` > 0 each row gets an eighth column, its
// partition: its id % `partitions` (R3). Returns the number of commits.
Result<int64_t> WriteW1Rows(Table& table, const bench::Params& p, int64_t partitions) {
  WriteOptions wo;
  wo.async_compaction = true;
  ASSIGN_OR_RETURN(writer, table.NewWriter(wo));
  bench::W1Generator gen(p.W1Keyspace());
  bench::W1Row r;
  int64_t commits = 0;
  for (int64_t i = 0; i < p.w1_rows; i++) {
    gen.Next(i, &r);
    Row row{Value::Int(r.id),    Value::Int(r.a),     Value::Int(r.b),    Value::Double(r.c),
            Value::String(r.s1), Value::String(r.s2), Value::String(r.s3)};
    if (partitions > 0) row.push_back(Value::Int(static_cast<int32_t>(r.id % partitions)));
    CHECK_OK(writer->Write(RowKind::kInsert, std::move(row)));
    if ((i + 1) % p.batch == 0 || i + 1 == p.w1_rows) {
      ASSIGN_OR_RETURN(
          snap, i + 1 == p.w1_rows ? writer->CommitAndWaitForCompaction() : writer->Commit());
      (void)snap;
      commits++;
    }
  }
  return commits;
}

Status W1(const std::string& warehouse, const std::string& kase) {
  bench::Params p;
  ASSIGN_OR_RETURN(catalog, Catalog::Open(warehouse));
  std::string name = "w1_" + kase;
  TableSpec spec;
  spec.columns = {Col("id", DataType::BigInt().NotNull()),
                  Col("a", DataType::BigInt()),
                  Col("b", DataType::BigInt()),
                  Col("c", DataType::Double()),
                  Col("s1", DataType::String()),
                  Col("s2", DataType::String()),
                  Col("s3", DataType::String())};
  spec.primary_keys = {"id"};
  // "fixed_dv": the fixed-bucket table in merge-on-write mode (deletion vectors), what the
  // writer's lookups cost against "fixed" (issue 37).
  spec.options = {{"bucket", kase == "dynamic" ? "-1" : "4"}};
  if (kase == "fixed_dv") spec.options["deletion-vectors.enabled"] = "true";
  // W1 with a changelog producer (input, lookup): what keeping a complete changelog costs.
  if (const char* producer = std::getenv("W1_CHANGELOG_PRODUCER"); producer && *producer) {
    spec.options["changelog-producer"] = producer;
    name += std::string("_") + producer;
  }
  Identifier id{"default", name, ""};
  CHECK_OK(catalog->CreateTable(id, spec, false));
  ASSIGN_OR_RETURN(table, catalog->GetTable(id));
  bench::Timer timer;
  // A long-lived writer, as a streaming ingest runs one: compaction in the background, and the
  // end of the input waits for it (Paimon's writers), leaving the table as compacted as a writer
  // that compacts at every commit.
  ASSIGN_OR_RETURN(commits, WriteW1Rows(*table, p, 0));
  double secs = timer.Seconds();
  ASSIGN_OR_RETURN(live, LiveBytes(*catalog, name));
  std::string label = kase == "fixed"      ? "4 buckets"
                      : kase == "fixed_dv" ? "4 buckets, deletion vectors"
                                           : "dynamic (bucket=-1)";
  if (const char* producer = std::getenv("W1_CHANGELOG_PRODUCER"); producer && *producer) {
    label += std::string(", changelog-producer ") + producer;
  }
  Record(kSys, "W1", label)
      .Int("rows", p.w1_rows)
      .Num("secs", secs)
      .Num("rate", p.w1_rows / secs)
      .Int("commits", commits)
      .Int("bytes", bench::DirBytes(table->path()))
      .Int("live_bytes", live)
      .Int("rss_kb", bench::PeakRssKb())
      .Print();
  return Status::OK();
}

// R3 (issue 38): W1's rows and commit interval into a table PARTITIONED BY (p) with 'bucket' =
// '4', p = id % `partitions`: 1 x 4, 50 x 4 or 500 x 4 active partitions x buckets, each case in
// a process of its own (its peak RSS its own). Time and peak RSS against 1 x 4, the same run.
Status R3(const std::string& warehouse, const std::string& kase) {
  bench::Params p;
  const int64_t partitions = std::max<int64_t>(1, std::atoll(kase.c_str()));
  ASSIGN_OR_RETURN(catalog, Catalog::Open(warehouse));
  const std::string name = "r3_" + std::to_string(partitions);
  TableSpec spec;
  spec.columns = {Col("id", DataType::BigInt().NotNull()),
                  Col("a", DataType::BigInt()),
                  Col("b", DataType::BigInt()),
                  Col("c", DataType::Double()),
                  Col("s1", DataType::String()),
                  Col("s2", DataType::String()),
                  Col("s3", DataType::String()),
                  Col("p", DataType::Int().NotNull())};
  spec.primary_keys = {"id", "p"};
  spec.partition_keys = {"p"};
  spec.options = {{"bucket", "4"}};
  Identifier id{"default", name, ""};
  CHECK_OK(catalog->CreateTable(id, spec, false));
  ASSIGN_OR_RETURN(table, catalog->GetTable(id));
  bench::Timer timer;
  ASSIGN_OR_RETURN(commits, WriteW1Rows(*table, p, partitions));
  const double secs = timer.Seconds();
  Record(kSys, "R3", std::to_string(partitions) + " x 4")
      .Int("partitions", partitions)
      .Int("rows", p.w1_rows)
      .Num("secs", secs)
      .Num("rate", p.w1_rows / secs)
      .Int("commits", commits)
      .Int("bytes", bench::DirBytes(table->path()))
      .Int("rss_kb", bench::PeakRssKb())
      .Print();
  return Status::OK();
}

// Point lookups of W4's keys, one thread: through TableLookup (the point-lookup API: a pinned
// snapshot, the key's bucket, binary search in cached files), and through the SQL engine: the
// statement SQLite runs, `SELECT a, b, c, s1, s2, s3 FROM w1_fixed WHERE id = ?`, prepared once
// (sql::Prepare) and run per key (each run checks for a newer snapshot), each for at most
// W4_SECONDS.
Status W4(const std::string& warehouse) {
  bench::Params p;
  ASSIGN_OR_RETURN(catalog, Catalog::Open(warehouse));
  ASSIGN_OR_RETURN(table, catalog->GetTable(Identifier{"default", "w1_fixed", ""}));
  const bench::W4KeySeq keys = bench::W4Keys(p);
  for (const char* how : {"TableLookup::Get", "SQL prepared SELECT ... WHERE id = ?"}) {
    bool api = std::string(how) == "TableLookup::Get";
    std::unique_ptr<TableLookup> lookup;
    std::unique_ptr<sql::Session> session;
    std::unique_ptr<sql::PreparedStatement> statement;
    if (api) {
      ASSIGN_OR_RETURN(l, table->NewLookup());
      lookup = std::move(l);
    } else {
      ASSIGN_OR_RETURN(s, sql::Session::Open(warehouse));
      session = std::move(s);
      ASSIGN_OR_RETURN(prepared, sql::Prepare(session.get(),
                                              "SELECT a, b, c, s1, s2, s3 FROM w1_fixed "
                                              "WHERE id = ?"));
      statement = std::move(prepared);
    }
    bench::Latencies lat;
    int64_t hits = 0;
    bench::Timer total;
    for (int64_t k : keys) {
      if (total.Seconds() >= p.w4_seconds) break;
      bench::Timer t;
      bool found = false;
      if (api) {
        auto r = lookup->Get({Value::Int(k)});
        CHECK_OK(r.status());
        found = r->has_value();
      } else {
        auto r = statement->Execute({Value::Int(k)});
        CHECK_OK(r.status());
        std::vector<Row> rows = std::move(r->rows.rows);
        if (r->cursor) {
          auto read = sql::CollectRows(*r->cursor);
          CHECK_OK(read.status());
          rows = std::move(*read);
        }
        for (const Row& row : rows) {
          std::string s1 = row[3].string_value();
          (void)s1;
          found = true;
        }
      }
      hits += found;
      lat.push_back(t.Seconds());
    }
    double secs = total.Seconds();
    auto rec = Record(kSys, "W4", how);
    if (statement) rec.Str("plan", statement->Describe());
    rec.Int("ops", static_cast<int64_t>(lat.size()))
        .Int("hits", hits)
        .Num("secs", secs)
        .Num("rate", lat.size() / secs)
        .Num("p50_us", bench::Percentile(lat, 0.5) * 1e6)
        .Num("p99_us", bench::Percentile(lat, 0.99) * 1e6)
        .Int("rss_kb", bench::PeakRssKb())
        .Print();
  }
  return Status::OK();
}

// W4F: what Paimon's bloom-filter file index buys point lookups of absent keys. Two tables of
// W4F_ROWS rows with even ids (4 buckets, compacted), one with 'file-index.bloom-filter.columns'
// = 'id' sized to the rows of a bucket's file (fpp 0.01); W4F_LOOKUPS lookups of odd ids (inside
// every file's key range, so only the filter can rule a file out) through a fresh TableLookup
// each, the index's table first. Reported: lookups/s, and the index bytes written.
Status W4F(const std::string& warehouse) {
  const int64_t rows = bench::EnvInt("W4F_ROWS", 1000000);
  const int64_t lookups = bench::EnvInt("W4F_LOOKUPS", 200000);
  ASSIGN_OR_RETURN(catalog, Catalog::Open(warehouse));
  double with_rate = 0;
  for (const bool bloom : {true, false}) {
    const std::string name = bloom ? "w4f_bloom" : "w4f_plain";
    TableSpec spec;
    spec.columns = {Col("id", DataType::BigInt().NotNull()), Col("v", DataType::String())};
    spec.primary_keys = {"id"};
    spec.options = {{"bucket", "4"}};
    if (bloom) {
      spec.options["file-index.bloom-filter.columns"] = "id";
      spec.options["file-index.bloom-filter.id.items"] = std::to_string(rows / 4);
      spec.options["file-index.bloom-filter.id.fpp"] = "0.01";
    }
    Identifier id{"default", name, ""};
    CHECK_OK(catalog->CreateTable(id, spec, false));
    ASSIGN_OR_RETURN(table, catalog->GetTable(id));
    {
      ASSIGN_OR_RETURN(writer, table->NewWriter({}));
      for (int64_t i = 0; i < rows; i++) {
        std::string v = std::to_string(i);
        v.insert(v.begin(), 'v');  // ("v" + ...) trips GCC 12's -Wrestrict false positive
        CHECK_OK(
            writer->Write(RowKind::kInsert, Row{Value::Int(2 * i), Value::String(std::move(v))}));
      }
      ASSIGN_OR_RETURN(snap, writer->Commit());
      (void)snap;
    }
    ASSIGN_OR_RETURN(compacted, table->CompactFull());
    (void)compacted;
    int64_t index_bytes = 0;
    for (int b = 0; b < 4; b++) {
      auto files = io::LocalFs().ListDir(table->path() + "/bucket-" + std::to_string(b));
      if (!files.ok()) continue;
      for (const auto& f : *files) {
        if (f.name.ends_with(".index")) index_bytes += f.size;
      }
    }
    ASSIGN_OR_RETURN(lookup, table->NewLookup());
    std::mt19937_64 rng(17);
    int64_t hits = 0;
    bench::Timer timer;
    for (int64_t i = 0; i < lookups; i++) {
      const int64_t k = 2 * static_cast<int64_t>(rng() % static_cast<uint64_t>(rows)) + 1;
      auto r = lookup->Get({Value::Int(k)});
      CHECK_OK(r.status());
      hits += r->has_value();
    }
    const double secs = timer.Seconds();
    if (bloom) with_rate = lookups / secs;
    auto rec = Record(kSys, "W4F", bloom ? "misses, bloom filter on id" : "misses, no file index");
    rec.Int("ops", lookups)
        .Int("hits", hits)
        .Num("secs", secs)
        .Num("rate", lookups / secs)
        .Int("index_bytes", index_bytes)
        .Int("rss_kb", bench::PeakRssKb());
    if (!bloom) rec.Num("bloom_speedup", with_rate / (lookups / secs));
    rec.Print();
  }
  return Status::OK();
}

// COUNT(*), SUM(a), and `a < 10000` (all columns of the matching rows), each W5_REPEAT times.
// `phase`: "before" or "after" compaction, and " dv" for the deletion-vector table.
Status W5Scans(Table& table, const std::string& phase) {
  bench::Params p;
  struct Query {
    const char* name;
    ScanOptions opts;
  };
  ScanOptions count, sum, filter;
  count.projection = std::vector<int>{};  // COUNT(*) reads no column, as SQL plans it
  sum.projection = std::vector<int>{1};
  filter.filters.push_back(Predicate{1, Predicate::Op::kLt, {Value::Int(10000)}});
  // W5_QUERIES (e.g. "sum,filter"): only these queries, for profiling one of them.
  const char* only = std::getenv("W5_QUERIES");
  for (auto& [name, opts] :
       std::vector<Query>{{"count", count}, {"sum", sum}, {"filter", filter}}) {
    if (only && !std::strstr(only, name)) continue;
    std::vector<double> times;
    int64_t result = 0, scanned = 0;
    for (int64_t rep = 0; rep < p.w5_repeat; rep++) {
      bench::Timer t;
      int64_t n = 0, s = 0;
      // COUNT(*) as SQL runs it: from file metadata when that is exact, else a scan.
      std::optional<int64_t> meta_count;
      if (std::strcmp(name, "count") == 0) {
        auto c = table.CountFromMetadata(std::nullopt);
        CHECK_OK(c.status());
        meta_count = *c;
      }
      if (meta_count) {
        n = *meta_count;
      } else {
        // Analytic reads take column batches (TableScan::NextColumns), as a column store's
        // executor would.
        ASSIGN_OR_RETURN(scan, table.NewScan(opts));
        ColumnBatch batch;
        while (true) {
          ASSIGN_OR_RETURN(more, scan->NextColumns(&batch));
          if (!more) break;
          n += static_cast<int64_t>(batch.num_rows);
          if (std::strcmp(name, "sum") == 0) {
            const ColumnVector& a = batch.columns[0];
            if (a.rep == ColumnVector::Rep::kInt && a.nulls.empty()) {
              for (int64_t v : a.ints) s += v;  // no NULL in the batch: a plain (vector) loop
            } else if (a.rep == ColumnVector::Rep::kInt) {
              for (size_t i = 0; i < a.ints.size(); i++) s += a.IsNull(i) ? 0 : a.ints[i];
            }
          }
        }
      }
      times.push_back(t.Seconds());
      result = std::strcmp(name, "sum") == 0 ? s : n;
      if (std::strcmp(name, "count") == 0 && !meta_count) scanned = n;  // rows actually read
    }
    double secs = bench::Median(times);
    Record r(kSys, "W5", std::string(name) + " " + phase);
    r.Num("secs", secs).Num("first_secs", times.front()).Int("result", result);
    if (scanned) r.Num("rate", scanned / secs);
    r.Int("rss_kb", bench::PeakRssKb()).Print();
  }
  return Status::OK();
}

// W5 over W1's table `name`: w1_fixed (merge-on-read), or w1_fixed_dv (deletion vectors: its
// cases end in " dv").
Status W5(const std::string& warehouse, const std::string& name) {
  const std::string dv = name == "w1_fixed_dv" ? " dv" : "";
  ASSIGN_OR_RETURN(catalog, Catalog::Open(warehouse));
  ASSIGN_OR_RETURN(table, catalog->GetTable(Identifier{"default", name, ""}));
  CHECK_OK(W5Scans(*table, "before" + dv));
  ASSIGN_OR_RETURN(live_before, LiveBytes(*catalog, name));
  bench::Timer t;
  ASSIGN_OR_RETURN(snap, table->CompactFull());
  (void)snap;
  double secs = t.Seconds();
  ASSIGN_OR_RETURN(live_after, LiveBytes(*catalog, name));
  Record(kSys, "W5", "compact" + dv)
      .Str("how", "Table::CompactFull()")
      .Num("secs", secs)
      .Int("bytes_before", live_before)
      .Int("bytes_after", live_after)
      .Print();
  return W5Scans(*table, "after" + dv);
}

// J1: orders x customer through the SQL engine (what `tributary sql` runs), both tables
// written through the library and fully compacted first.
Status J1(const std::string& warehouse) {
  bench::Params p;
  ASSIGN_OR_RETURN(catalog, Catalog::Open(warehouse));
  TableSpec cs;
  cs.columns = {Col("custkey", DataType::BigInt().NotNull()), Col("nation", DataType::BigInt()),
                Col("name", DataType::String())};
  cs.primary_keys = {"custkey"};
  cs.options = {{"bucket", "4"}};
  TableSpec os;
  os.columns = {Col("orderkey", DataType::BigInt().NotNull()), Col("custkey", DataType::BigInt()),
                Col("amount", DataType::BigInt())};
  os.primary_keys = {"orderkey"};
  os.options = {{"bucket", "4"}};
  CHECK_OK(catalog->CreateTable(Identifier{"default", "customer", ""}, cs, false));
  CHECK_OK(catalog->CreateTable(Identifier{"default", "orders", ""}, os, false));
  bench::J1Generator gen(p.j1_customers);
  // Writes `n` rows of table `name` (row i from make(i)) in one commit, then compacts it fully.
  auto load = [&](const char* name, int64_t n, const std::function<Row(int64_t)>& make) -> Status {
    ASSIGN_OR_RETURN(table, catalog->GetTable(Identifier{"default", name, ""}));
    ASSIGN_OR_RETURN(writer, table->NewWriter(WriteOptions()));
    for (int64_t i = 0; i < n; i++) CHECK_OK(writer->Write(RowKind::kInsert, make(i)));
    ASSIGN_OR_RETURN(snap, writer->Commit());
    (void)snap;
    ASSIGN_OR_RETURN(compacted, table->CompactFull());
    (void)compacted;
    return Status::OK();
  };
  bench::J1Customer c;
  CHECK_OK(load("customer", p.j1_customers, [&](int64_t i) {
    gen.Customer(i, &c);
    return Row{Value::Int(c.custkey), Value::Int(c.nation), Value::String(c.name)};
  }));
  bench::J1Order o;
  CHECK_OK(load("orders", p.j1_orders, [&](int64_t i) {
    gen.Order(i, &o);
    return Row{Value::Int(o.orderkey), Value::Int(o.custkey), Value::Int(o.amount)};
  }));
  ASSIGN_OR_RETURN(session, sql::Session::Open(warehouse));
  std::vector<double> times;
  std::string check;
  for (int64_t rep = 0; rep < p.w5_repeat; rep++) {
    bench::Timer t;
    ASSIGN_OR_RETURN(result, session->ExecuteText(bench::kJ1Query, sql::Pos{}));
    ASSIGN_OR_RETURN(rows, sql::CollectRows(*result.cursor));
    times.push_back(t.Seconds());
    check = "count=" + std::to_string(rows[0][0].int_value()) +
            " sum_amount=" + std::to_string(rows[0][1].is_null() ? 0 : rows[0][1].int_value()) +
            " sum_nation=" + std::to_string(rows[0][2].is_null() ? 0 : rows[0][2].int_value());
  }
  Record(kSys, "J1", "join")
      .Num("secs", bench::Median(times))
      .Str("check", check)
      .Str("how", "SQL engine (sql::Session), hash join, both tables compacted")
      .Int("rss_kb", bench::PeakRssKb())
      .Print();
  return Status::OK();
}

Status W2(const std::string& warehouse) {
  bench::Params p;
  ASSIGN_OR_RETURN(catalog, Catalog::Open(warehouse));
  TableSpec spec;
  spec.columns = {Col("id", DataType::BigInt().NotNull()), Col("s", DataType::BigInt()),
                  Col("m", DataType::BigInt())};
  spec.primary_keys = {"id"};
  spec.options = {{"bucket", "4"},
                  {"merge-engine", "aggregation"},
                  {"fields.s.aggregate-function", "sum"},
                  {"fields.m.aggregate-function", "max"}};
  Identifier id{"default", "w2", ""};
  CHECK_OK(catalog->CreateTable(id, spec, false).WithContext("CREATE TABLE"));
  ASSIGN_OR_RETURN(table, catalog->GetTable(id));
  bench::Timer timer;
  ASSIGN_OR_RETURN(writer, table->NewWriter({}));
  bench::W2Generator gen(p.w2_keys);
  Row row(3);
  for (int64_t i = 0; i < p.w2_events; i++) {
    bench::W2Event e = gen.Next();
    row[0] = Value::Int(e.id);
    row[1] = Value::Int(e.v);
    row[2] = Value::Int(e.v);
    CHECK_OK(writer->Write(RowKind::kInsert, row));
    if ((i + 1) % p.batch == 0 || i + 1 == p.w2_events) {
      ASSIGN_OR_RETURN(snap, writer->Commit());
      (void)snap;
    }
  }
  double secs = timer.Seconds();
  int64_t n = 0, s = 0, m = 0;
  CHECK_OK(Drain(*table, {}, [&](const Row& r) {
    n++;
    s += r[1].is_int() ? r[1].int_value() : 0;
    m += r[2].is_int() ? r[2].int_value() : 0;
  }));
  Record(kSys, "W2", "sum+max")
      .Int("rows", p.w2_events)
      .Num("secs", secs)
      .Num("rate", p.w2_events / secs)
      .Int("bytes", bench::DirBytes(table->path()))
      .Int("rss_kb", bench::PeakRssKb())
      .Str("check", "keys=" + std::to_string(n) + " sum_s=" + std::to_string(s) +
                        " sum_m=" + std::to_string(m))
      .Print();
  return Status::OK();
}

Status W3(const std::string& warehouse) {
  bench::Params p;
  ASSIGN_OR_RETURN(catalog, Catalog::Open(warehouse));
  TableSpec spec;
  spec.columns = {Col("id", DataType::BigInt().NotNull())};
  for (const char* c : {"c1", "c2", "c3", "c4", "c5", "c6"}) {
    spec.columns.push_back(Col(c, DataType::BigInt()));
  }
  spec.primary_keys = {"id"};
  spec.options = {{"bucket", "4"}, {"merge-engine", "partial-update"}};
  Identifier id{"default", "w3", ""};
  CHECK_OK(catalog->CreateTable(id, spec, false).WithContext("CREATE TABLE"));
  ASSIGN_OR_RETURN(table, catalog->GetTable(id));
  bench::Timer timer;
  std::vector<std::unique_ptr<TableWriter>> writers;
  for (int w = 0; w < 3; w++) {
    WriteOptions wo;
    wo.commit_user = "bench-writer-" + std::to_string(w);
    ASSIGN_OR_RETURN(writer, table->NewWriter(wo));
    writers.push_back(std::move(writer));
  }
  int64_t next[3] = {0, 0, 0};
  while (next[2] < p.w3_keys) {
    for (int w = 0; w < 3; w++) {
      int64_t end = std::min(p.w3_keys, next[w] + p.batch);
      for (int64_t j = next[w]; j < end; j++) {
        int64_t key = bench::W3Key(p.w3_keys, w, j);
        Row row(7);
        row[0] = Value::Int(key);
        row[2 * w + 1] = Value::Int(bench::W3Value(key, 2 * w + 1));
        row[2 * w + 2] = Value::Int(bench::W3Value(key, 2 * w + 2));
        CHECK_OK(writers[w]->Write(RowKind::kInsert, row));
      }
      next[w] = end;
      ASSIGN_OR_RETURN(snap, writers[w]->Commit());
      (void)snap;
    }
  }
  double secs = timer.Seconds();
  int64_t n = 0, s = 0;
  CHECK_OK(Drain(*table, {}, [&](const Row& r) {
    n++;
    for (int c = 1; c <= 6; c++) s += r[c].is_int() ? r[c].int_value() : 0;
  }));
  Record(kSys, "W3", "3 writers")
      .Int("rows", 3 * p.w3_keys)
      .Num("secs", secs)
      .Num("rate", 3 * p.w3_keys / secs)
      .Int("bytes", bench::DirBytes(table->path()))
      .Int("rss_kb", bench::PeakRssKb())
      .Str("check", "keys=" + std::to_string(n) + " sum=" + std::to_string(s))
      .Print();
  return Status::OK();
}

using bench::NowMicros;

// Starts `cmd` (a reader mode of this program) and waits for its "ready" line.
Result<FILE*> StartReader(const std::string& cmd) {
  FILE* reader = ::popen(cmd.c_str(), "r");
  if (!reader) return Status::IOError("cannot start the reader");
  char line[256];
  if (!std::fgets(line, sizeof line, reader) || std::string(line) != "ready\n") {
    ::pclose(reader);
    return Status::IOError("the reader did not start");
  }
  return reader;
}

// Freshness: a writer commits one small batch at a time (F_COMMITS commits of F_ROWS rows each)
// to a table with changelog-producer F_PRODUCER (default input) while a streaming reader in
// another process (this program, mode Freader) follows it; each commit's latency is the time
// from the commit returning to the reader holding its rows (system clock, same machine).
Status Freshness(const std::string& warehouse, const std::string& self) {
  const int64_t commits = std::getenv("F_COMMITS") ? std::atoll(std::getenv("F_COMMITS")) : 1000;
  const int64_t rows = std::getenv("F_ROWS") ? std::atoll(std::getenv("F_ROWS")) : 10;
  const std::string producer = std::getenv("F_PRODUCER") ? std::getenv("F_PRODUCER") : "input";
  ASSIGN_OR_RETURN(catalog, Catalog::Open(warehouse));
  TableSpec spec;
  spec.columns = {Col("id", DataType::BigInt().NotNull()), Col("commit_no", DataType::BigInt())};
  spec.primary_keys = {"id"};
  spec.options = {{"bucket", "1"}, {"changelog-producer", producer}};
  Identifier id{"default", "freshness", ""};
  CHECK_OK(catalog->CreateTable(id, spec, false));
  ASSIGN_OR_RETURN(table, catalog->GetTable(id));
  // The reader starts, positions itself at the latest snapshot and says so on its stdout.
  ASSIGN_OR_RETURN(
      reader, StartReader(self + " Freader " + warehouse + " " + std::to_string(commits * rows)));
  char line[256];
  std::vector<int64_t> committed(static_cast<size_t>(commits));
  ASSIGN_OR_RETURN(writer, table->NewWriter(WriteOptions{}));
  bench::Timer timer;
  for (int64_t c = 0; c < commits; c++) {
    for (int64_t r = 0; r < rows; r++) {
      CHECK_OK(writer->Write(RowKind::kInsert, Row{Value::Int(c * rows + r), Value::Int(c)}));
    }
    ASSIGN_OR_RETURN(snap, writer->Commit());
    (void)snap;
    committed[static_cast<size_t>(c)] = NowMicros();
  }
  const double secs = timer.Seconds();
  // The reader prints "<commit_no> <arrival micros>" for the first row of each commit.
  std::vector<double> latency_ms;
  while (std::fgets(line, sizeof line, reader)) {
    long long c = 0, at = 0;
    if (std::sscanf(line, "%lld %lld", &c, &at) != 2 || c < 0 || c >= commits) continue;
    latency_ms.push_back(std::max<int64_t>(0, at - committed[static_cast<size_t>(c)]) / 1000.0);
  }
  const int status = ::pclose(reader);
  if (status != 0 || static_cast<int64_t>(latency_ms.size()) != commits) {
    return Status::IOError("the reader saw " + std::to_string(latency_ms.size()) + " of " +
                           std::to_string(commits) + " commits (exit " + std::to_string(status) +
                           ")");
  }
  std::sort(latency_ms.begin(), latency_ms.end());
  auto pct = [&](double q) { return bench::Quantile(latency_ms, q); };
  Record(kSys, "F", "changelog-producer " + producer)
      .Int("commits", commits)
      .Int("rows_per_commit", rows)
      .Num("secs", secs)
      .Num("commits_per_sec", commits / secs)
      .Num("p50_ms", pct(0.50))
      .Num("p99_ms", pct(0.99))
      .Num("max_ms", latency_ms.back())
      .Print();
  return Status::OK();
}

// J2: the streaming delta join (ords JOIN lines ON oid, both primary-key tables, no join state)
// as `tributary sql` runs it, in a reader process (this program, mode J2reader) while this one
// commits to `lines`: J2_COMMITS commits of J2_ROWS rows, each commit's latency being the time
// from its commit returning to the reader holding its first joined row; then one commit of
// J2_BULK rows, whose joined rows per second (from the commit returning to the last one arriving)
// is the join's throughput. Every row of `lines` joins one row of `ords` (J2_ORDERS of them).
Status J2(const std::string& warehouse, const std::string& self) {
  auto env = [](const char* k, int64_t d) {
    return std::getenv(k) ? std::atoll(std::getenv(k)) : d;
  };
  const int64_t commits = env("J2_COMMITS", 200), rows = env("J2_ROWS", 10);
  const int64_t bulk = env("J2_BULK", 100000), orders = env("J2_ORDERS", 100000);
  ASSIGN_OR_RETURN(catalog, Catalog::Open(warehouse));
  TableSpec os;
  os.columns = {Col("oid", DataType::BigInt().NotNull()), Col("amount", DataType::BigInt())};
  os.primary_keys = {"oid"};
  os.options = {{"bucket", "4"}};
  TableSpec ls;
  ls.columns = {Col("oid", DataType::BigInt().NotNull()), Col("line", DataType::BigInt().NotNull()),
                Col("commit_no", DataType::BigInt())};
  ls.primary_keys = {"oid", "line"};
  ls.options = {{"bucket", "4"}, {"bucket-key", "oid"}};
  CHECK_OK(catalog->CreateTable(Identifier{"default", "ords", ""}, os, false));
  CHECK_OK(catalog->CreateTable(Identifier{"default", "lines", ""}, ls, false));
  {
    ASSIGN_OR_RETURN(ords, catalog->GetTable(Identifier{"default", "ords", ""}));
    ASSIGN_OR_RETURN(w, ords->NewWriter(WriteOptions{}));
    for (int64_t i = 0; i < orders; i++)
      CHECK_OK(w->Write(RowKind::kInsert, Row{Value::Int(i), Value::Int(i % 97)}));
    ASSIGN_OR_RETURN(snap, w->Commit());
    (void)snap;
  }
  ASSIGN_OR_RETURN(lines, catalog->GetTable(Identifier{"default", "lines", ""}));
  const int64_t total = commits * rows + bulk;
  ASSIGN_OR_RETURN(reader,
                   StartReader(self + " J2reader " + warehouse + " " + std::to_string(total)));
  char line[256];
  std::vector<int64_t> committed(static_cast<size_t>(commits + 1));
  ASSIGN_OR_RETURN(writer, lines->NewWriter(WriteOptions{}));
  int64_t next_line = 0;
  for (int64_t c = 0; c <= commits; c++) {
    const int64_t n = c < commits ? rows : bulk;
    for (int64_t r = 0; r < n; r++, next_line++) {
      CHECK_OK(writer->Write(RowKind::kInsert, Row{Value::Int(next_line % orders),
                                                   Value::Int(next_line), Value::Int(c)}));
    }
    ASSIGN_OR_RETURN(snap, writer->Commit());
    (void)snap;
    committed[static_cast<size_t>(c)] = NowMicros();
  }
  // The reader prints "<commit_no> <first arrival> <last arrival>" per commit.
  std::vector<double> latency_ms;
  double bulk_secs = 0;
  while (std::fgets(line, sizeof line, reader)) {
    long long c = 0, first = 0, last = 0;
    if (std::sscanf(line, "%lld %lld %lld", &c, &first, &last) != 3 || c < 0 || c > commits)
      continue;
    if (c == commits) {
      bulk_secs = std::max<int64_t>(1, last - committed[static_cast<size_t>(c)]) / 1e6;
    } else {
      latency_ms.push_back(std::max<int64_t>(0, first - committed[static_cast<size_t>(c)]) /
                           1000.0);
    }
  }
  const int status = ::pclose(reader);
  if (status != 0 || static_cast<int64_t>(latency_ms.size()) != commits || bulk_secs == 0) {
    return Status::IOError("the reader saw " + std::to_string(latency_ms.size()) + " of " +
                           std::to_string(commits) + " commits (exit " + std::to_string(status) +
                           ")");
  }
  std::sort(latency_ms.begin(), latency_ms.end());
  auto pct = [&](double q) { return bench::Quantile(latency_ms, q); };
  Record(kSys, "J2", "delta join")
      .Int("commits", commits)
      .Int("rows_per_commit", rows)
      .Num("p50_ms", pct(0.50))
      .Num("p99_ms", pct(0.99))
      .Int("bulk_rows", bulk)
      .Num("bulk_secs", bulk_secs)
      .Num("changes_per_sec", bulk / bulk_secs)
      .Str("how", "SQL engine (sql::Session), streaming SELECT ... FROM ords JOIN lines ON oid")
      .Print();
  return Status::OK();
}

// W6 and W7's source: `rows` W1 upserts (keys from half as many) in commits of `batch`, each row
// carrying its commit number (the last column), then `end_row` in a commit of its own (the
// readers stop at commit number -1). committed[c]: when commit c returned; *start: the first
// write.
Status WriteNumberedCommits(TableWriter& writer, int64_t rows, int64_t batch, Row end_row,
                            std::vector<int64_t>* committed, int64_t* start) {
  const int64_t commits = (rows + batch - 1) / batch;
  committed->assign(static_cast<size_t>(commits), 0);
  bench::W1Generator gen(std::max<int64_t>(1, rows / 2));
  bench::W1Row r;
  *start = NowMicros();
  int64_t i = 0;
  for (int64_t c = 0; c < commits; c++) {
    for (int64_t k = 0; k < batch && i < rows; k++, i++) {
      gen.Next(i, &r);
      CHECK_OK(writer.Write(
          RowKind::kInsert,
          Row{Value::Int(r.id), Value::Int(r.a), Value::Int(r.b), Value::Double(r.c),
              Value::String(r.s1), Value::String(r.s2), Value::String(r.s3), Value::Int(c)}));
    }
    ASSIGN_OR_RETURN(snap, writer.Commit());
    (void)snap;
    (*committed)[static_cast<size_t>(c)] = NowMicros();
  }
  CHECK_OK(writer.Write(RowKind::kInsert, std::move(end_row)));
  ASSIGN_OR_RETURN(last_snap, writer.Commit());
  (void)last_snap;
  return Status::OK();
}

// What a reader of commit numbers (FollowCommitNumbers) printed: each commit's latency from
// committed[c] to its first arrival (sorted), the changes it counted and its last arrival.
// An error unless the reader exited cleanly having seen every commit.
Status ReadArrivals(FILE* reader, const std::vector<int64_t>& committed,
                    std::vector<double>* latency_ms, int64_t* changes, int64_t* last) {
  const int64_t commits = static_cast<int64_t>(committed.size());
  char line[256];
  while (std::fgets(line, sizeof line, reader)) {
    long long c = 0, at = 0, n = 0, l = 0;
    if (std::sscanf(line, "end %lld %lld", &n, &l) == 2) {
      *changes = n;
      *last = l;
      continue;
    }
    if (std::sscanf(line, "%lld %lld", &c, &at) != 2 || c < 0 || c >= commits) continue;
    latency_ms->push_back(std::max<int64_t>(0, at - committed[static_cast<size_t>(c)]) / 1000.0);
  }
  const int status = ::pclose(reader);
  if (status != 0 || static_cast<int64_t>(latency_ms->size()) != commits) {
    return Status::IOError("the reader saw " + std::to_string(latency_ms->size()) + " of " +
                           std::to_string(commits) + " commits (exit " + std::to_string(status) +
                           ")");
  }
  std::sort(latency_ms->begin(), latency_ms->end());
  return Status::OK();
}

// A reader of W6 / W7: follows `table` from 'latest' and prints "<commit number> <first
// arrival>" for each commit number (column `column`) it meets first, then, after the batch
// holding commit number -1, "end <changes> <arrival>". `adds_only`: retractions (-U, -D) are
// neither counted nor looked at.
Status FollowCommitNumbers(const std::string& warehouse, const std::string& table_name, int column,
                           bool adds_only) {
  ASSIGN_OR_RETURN(catalog, Catalog::Open(warehouse));
  ASSIGN_OR_RETURN(table, catalog->GetTable(Identifier{"default", table_name, ""}));
  StreamOptions o;
  o.startup_mode = "latest";
  o.projection = std::vector<int>{column};
  // Only when each commit's rows first arrive is looked at: a table without a changelog
  // producer (W7's sink) is read as written, not normalised (the measuring reader then takes
  // little of the two cores the job under measurement runs on).
  o.upserts = adds_only;
  ASSIGN_OR_RETURN(stream, table->NewStreamScan(o));
  std::printf("ready\n");
  std::fflush(stdout);
  // A commit's first change is the first row carrying its number (a -U carries the number of
  // the commit that wrote the row it retracts, already seen).
  int64_t changes = 0;
  std::set<int64_t> seen;
  ChangeColumns batch;  // column by column: the one column read is the one decoded
  while (true) {
    ASSIGN_OR_RETURN(more, stream->NextColumns(&batch, std::chrono::seconds(120)));
    if (!more) return Status::IOError("no change for 120 s");
    const int64_t at = NowMicros();
    bool end = false;  // the last row: after the rest of its batch
    const ColumnVector& numbers = batch.columns.columns[0];
    for (size_t k = 0; k < batch.kinds.size(); k++) {
      if (adds_only && IsRetract(batch.kinds[k])) continue;
      const int64_t c = numbers.Get(k).int_value();
      if (c == -1) {
        end = true;
        continue;
      }
      if (seen.insert(c).second) {
        std::printf("%lld %lld\n", static_cast<long long>(c), static_cast<long long>(at));
      }
      changes++;
    }
    if (end) {
      std::printf("end %lld %lld\n", static_cast<long long>(changes), static_cast<long long>(at));
      return Status::OK();
    }
  }
}

// W6 (issue 17): W1's upserts written with 'changelog-producer' = 'lookup' while a reader in
// another process (this program, mode W6reader) follows the table's changelog through the
// library's StreamScan (from 'latest'): W6_ROWS rows (default W1_ROWS / 5, keys from half as many,
// so about half are updates: -U and +U) in commits of W6_BATCH rows. Changes per second end to
// end (from the first write to the last change read), and each commit's latency from its return
// to its first change at the reader. A last commit of one row (commit_no -1) ends the reader.
Status W6(const std::string& warehouse, const std::string& self) {
  bench::Params p;
  auto env = [](const char* k, int64_t d) {
    return std::getenv(k) ? std::atoll(std::getenv(k)) : d;
  };
  const int64_t rows = env("W6_ROWS", std::max<int64_t>(1, p.w1_rows / 5));
  const int64_t batch = std::max<int64_t>(1, env("W6_BATCH", 2000));
  const int64_t commits = (rows + batch - 1) / batch;
  ASSIGN_OR_RETURN(catalog, Catalog::Open(warehouse));
  TableSpec spec;
  spec.columns = {Col("id", DataType::BigInt().NotNull()),
                  Col("a", DataType::BigInt()),
                  Col("b", DataType::BigInt()),
                  Col("c", DataType::Double()),
                  Col("s1", DataType::String()),
                  Col("s2", DataType::String()),
                  Col("s3", DataType::String()),
                  Col("commit_no", DataType::BigInt())};
  spec.primary_keys = {"id"};
  spec.options = {{"bucket", "4"}, {"changelog-producer", "lookup"}};
  CHECK_OK(catalog->CreateTable(Identifier{"default", "w6", ""}, spec, false));
  ASSIGN_OR_RETURN(table, catalog->GetTable(Identifier{"default", "w6", ""}));
  ASSIGN_OR_RETURN(reader, StartReader(self + " W6reader " + warehouse));
  WriteOptions wo;
  wo.async_compaction = true;
  ASSIGN_OR_RETURN(writer, table->NewWriter(wo));
  std::vector<int64_t> committed;
  int64_t start = 0;
  CHECK_OK(WriteNumberedCommits(
      *writer, rows, batch,
      Row{Value::Int(-1), Value(), Value(), Value(), Value(), Value(), Value(), Value::Int(-1)},
      &committed, &start));
  std::vector<double> latency_ms;
  int64_t changes = 0, last = 0;
  CHECK_OK(ReadArrivals(reader, committed, &latency_ms, &changes, &last));
  if (changes == 0) return Status::IOError("the reader counted no change");
  auto pct = [&](double q) { return bench::Quantile(latency_ms, q); };
  const double secs = std::max<int64_t>(1, last - start) / 1e6;
  Record(kSys, "W6", "changelog")
      .Int("rows", rows)
      .Int("commits", commits)
      .Int("changes", changes)
      .Num("secs", secs)
      .Num("changes_per_sec", changes / secs)
      .Num("p50_ms", pct(0.50))
      .Num("p99_ms", pct(0.99))
      .Int("rss_kb", bench::PeakRssKb())
      .Str("how",
           "'changelog-producer' = 'lookup', a long-lived writer (async compaction); "
           "the reader a StreamScan from 'latest' in another process")
      .Print();
  return Status::OK();
}

Status W6Reader(const std::string& warehouse) {
  return FollowCommitNumbers(warehouse, "w6", 7, /*adds_only=*/false);
}

// W7 (issue 36): a streaming job (a filter and a lookup join into a primary-key sink) following
// W6's upsert stream: W7_ROWS rows (default W1_ROWS / 5, keys from half as many) committed to
// w7src in commits of W7_BATCH rows while the job (SqlSession::StartJob, its commit interval
// 'execution.checkpointing.interval', default 1 s) writes each change through the join with the
// 1,000-row w7dim into w7sink; a reader in another process (mode W7reader) follows w7sink and
// reports when each source commit's first row reached it. Rows per second end to end (first
// write to the last row at the reader) and the latency from each source commit's return to its
// rows in the sink's committed snapshot (plus the reader's discovery, at most 50 ms).
// Case "projection" (issue 36: a job keeps up with W1's ingest for a stateless projection): W1's
// rows and commit interval (W1_ROWS, BENCH_BATCH) into a source without a changelog producer (the
// job normalises its changes) and a job that only projects; reported beside the source writer's
// own rate, with the same latency.
Status W7(const std::string& warehouse, const std::string& self, const std::string& kase) {
  bench::Params p;
  auto env = [](const char* k, int64_t d) {
    return std::getenv(k) ? std::atoll(std::getenv(k)) : d;
  };
  const bool projection = kase == "projection";
  const int64_t rows = projection ? p.w1_rows : env("W7_ROWS", std::max<int64_t>(1, p.w1_rows / 5));
  const int64_t batch = std::max<int64_t>(1, projection ? p.batch : env("W7_BATCH", 2000));
  const int64_t commits = (rows + batch - 1) / batch;
  const std::string interval =
      std::getenv("W7_INTERVAL") ? std::getenv("W7_INTERVAL") : std::string("1 s");
  ASSIGN_OR_RETURN(session, SqlSession::Open(warehouse));
  for (const std::string& sql : std::vector<std::string>{
           "CREATE TABLE w7src (id BIGINT NOT NULL, a BIGINT, b BIGINT, c DOUBLE, s1 STRING, "
           "s2 STRING, s3 STRING, commit_no BIGINT, pt AS PROCTIME(), PRIMARY KEY (id) NOT "
           "ENFORCED) WITH ('bucket' = '4'" +
               std::string(projection ? "" : ", 'changelog-producer' = 'lookup'") + ")",
           "CREATE TABLE w7dim (k BIGINT NOT NULL, name STRING, PRIMARY KEY (k) NOT ENFORCED) "
           "WITH ('bucket' = '1')",
           "CREATE TABLE w7sink (id BIGINT NOT NULL, a BIGINT, s1 STRING, name STRING, "
           "commit_no BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '4')",
           "SET 'execution.checkpointing.interval' = '" + interval + "'",
           "SET 'pipeline.name' = 'w7'"}) {
    ASSIGN_OR_RETURN(r, session->Execute(sql));
    (void)r;
  }
  {
    std::string dim = "INSERT INTO w7dim VALUES ";
    for (int k = 0; k < 1000; k++) {
      dim += (k ? ", (" : "(") + std::to_string(k) + ", 'name-" + std::to_string(k) + "')";
    }
    ASSIGN_OR_RETURN(r, session->Execute(dim));
    (void)r;
  }
  ASSIGN_OR_RETURN(catalog, Catalog::Open(warehouse));
  ASSIGN_OR_RETURN(table, catalog->GetTable(Identifier{"default", "w7src", ""}));
  ASSIGN_OR_RETURN(reader, StartReader(self + " W7reader " + warehouse));
  ASSIGN_OR_RETURN(
      job,
      session->StartJob(
          projection
              ? "INSERT INTO w7sink SELECT id, a, s1, s2, commit_no FROM w7src /*+ "
                "OPTIONS('scan.startup.mode' = 'latest') */"
              : "INSERT INTO w7sink SELECT o.id, o.a, o.s1, d.name, o.commit_no FROM w7src /*+ "
                "OPTIONS('scan.startup.mode' = 'latest') */ AS o JOIN w7dim FOR SYSTEM_TIME AS "
                "OF o.pt AS d ON o.a % 1000 = d.k WHERE o.b % 10 <> 0"));
  // The job is reading once it has registered its consumer on the source.
  for (int i = 0; i < 1000 && job->positions().empty() && job->running(); i++) {
    if (io::LocalFs().FileExists(table->path() + "/consumer/consumer-job-w7-0").ValueOr(false)) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  WriteOptions wo;
  wo.async_compaction = true;
  ASSIGN_OR_RETURN(writer, table->NewWriter(wo));
  std::vector<int64_t> committed;
  int64_t start = 0;
  // The end: a row that passes the filter and the join.
  CHECK_OK(WriteNumberedCommits(*writer, rows, batch,
                                Row{Value::Int(-1), Value::Int(0), Value::Int(1), Value(), Value(),
                                    Value(), Value(), Value::Int(-1)},
                                &committed, &start));
  std::vector<double> latency_ms;
  int64_t changes = 0, last = 0;
  Status arrivals = ReadArrivals(reader, committed, &latency_ms, &changes, &last);
  job->Stop();
  ASSIGN_OR_RETURN(said, job->Wait());
  if (!arrivals.ok()) return Status::IOError(arrivals.message() + "; the job said: " + said);
  auto pct = [&](double q) { return bench::Quantile(latency_ms, q); };
  const double secs = std::max<int64_t>(1, last - start) / 1e6;
  const double ingest_secs = std::max<int64_t>(1, committed.back() - start) / 1e6;
  Record(kSys, "W7", projection ? "projection" : "job")
      .Int("rows", rows)
      .Num("ingest_rows_per_sec", rows / ingest_secs)
      .Int("commits", commits)
      .Int("changes_read", job->changes_read())
      .Int("changes_written", job->changes_written())
      .Int("sink_commits", job->commits())
      .Num("secs", secs)
      .Num("rows_per_sec", rows / secs)
      .Num("p50_ms", pct(0.50))
      .Num("p99_ms", pct(0.99))
      .Str("interval", interval)
      .Int("rss_kb", bench::PeakRssKb())
      .Str("how",
           projection
               ? "a streaming job (SqlSession::StartJob) projecting W1's upserts (its rows and "
                 "commit interval, no changelog producer: the job normalises) into a "
                 "primary-key sink; latency to the sink's committed snapshot, seen by a "
                 "StreamScan in another process"
               : "a streaming job (SqlSession::StartJob): filter + lookup join (FOR SYSTEM_TIME "
                 "AS OF) into a primary-key sink; the source written like W6 "
                 "('changelog-producer' = 'lookup'); latency to the sink's committed snapshot, "
                 "seen by a StreamScan in another process")
      .Print();
  return Status::OK();
}

// W7's reader: the first arrival of each source commit's rows at the sink.
Status W7Reader(const std::string& warehouse) {
  return FollowCommitNumbers(warehouse, "w7sink", 4, /*adds_only=*/true);
}

Status J2Reader(const std::string& warehouse, int64_t total) {
  ASSIGN_OR_RETURN(session, sql::Session::Open(warehouse));
  session->set_stream_idle_timeout(std::chrono::seconds(60));
  ASSIGN_OR_RETURN(set,
                   session->ExecuteText("SET 'execution.runtime-mode' = 'streaming'", sql::Pos{}));
  (void)set;
  // J2_DELTA_CACHE=false: the join without its cache of looked-up rows (an ablation).
  if (const char* cache = std::getenv("J2_DELTA_CACHE"); cache && *cache) {
    ASSIGN_OR_RETURN(c,
                     session->ExecuteText(
                         std::string("SET 'table.exec.delta-join.cache-enabled' = '") + cache + "'",
                         sql::Pos{}));
    (void)c;
  }
  ASSIGN_OR_RETURN(
      result,
      session->ExecuteText(
          "SELECT l.commit_no FROM ords /*+ OPTIONS('scan.startup.mode' = 'latest') */ AS o "
          "JOIN lines /*+ OPTIONS('scan.startup.mode' = 'latest') */ AS l ON o.oid = l.oid",
          sql::Pos{}));
  std::printf("ready\n");
  std::fflush(stdout);
  int64_t seen = 0, current = -1, first = 0, last = 0;
  ColumnBatch batch;
  while (seen < total) {
    ASSIGN_OR_RETURN(more, result.cursor->Next(&batch));
    if (!more) return Status::IOError("the join ended after " + std::to_string(seen) + " rows");
    const int64_t at = NowMicros();
    for (size_t r = 0; r < batch.num_rows; r++) {
      const int64_t c = batch.columns[1].Get(r).int_value();
      if (c != current) {
        if (current >= 0)
          std::printf("%lld %lld %lld\n", static_cast<long long>(current),
                      static_cast<long long>(first), static_cast<long long>(last));
        current = c;
        first = at;
      }
      last = at;
      seen++;
    }
  }
  std::printf("%lld %lld %lld\n", static_cast<long long>(current), static_cast<long long>(first),
              static_cast<long long>(last));
  return Status::OK();
}

// Streaming read throughput: the changelog of the table W1 wrote with W1_CHANGELOG_PRODUCER
// (input, lookup), read from the earliest snapshot to the latest, against a batch scan of the
// same table (rows/s each: a change and a row are both one row handed to the reader).
Status StreamRead(const std::string& warehouse, const std::string& table_name) {
  ASSIGN_OR_RETURN(catalog, Catalog::Open(warehouse));
  ASSIGN_OR_RETURN(table, catalog->GetTable(Identifier{"default", table_name, ""}));
  StreamOptions o;
  o.startup_mode = "earliest";
  bench::Timer stream_timer;
  ASSIGN_OR_RETURN(stream, table->NewStreamScan(o));
  int64_t changes = 0;
  RowBatch batch;
  while (true) {
    ASSIGN_OR_RETURN(more, stream->Next(&batch, std::chrono::milliseconds(0)));
    if (!more) break;
    changes += static_cast<int64_t>(batch.rows.size());
  }
  const double stream_secs = stream_timer.Seconds();
  bench::Timer scan_timer;
  int64_t rows = 0;
  CHECK_OK(Drain(*table, {}, [&](const Row&) { rows++; }));
  const double scan_secs = scan_timer.Seconds();
  Record(kSys, "S", table_name)
      .Int("changes", changes)
      .Num("stream_secs", stream_secs)
      .Num("stream_rate", changes / stream_secs)
      .Int("rows", rows)
      .Num("scan_secs", scan_secs)
      .Num("scan_rate", rows / scan_secs)
      .Print();
  return Status::OK();
}

Status FreshnessReader(const std::string& warehouse, int64_t rows) {
  ASSIGN_OR_RETURN(catalog, Catalog::Open(warehouse));
  ASSIGN_OR_RETURN(table, catalog->GetTable(Identifier{"default", "freshness", ""}));
  StreamOptions o;
  o.startup_mode = "latest";
  ASSIGN_OR_RETURN(stream, table->NewStreamScan(o));
  std::printf("ready\n");
  std::fflush(stdout);
  int64_t seen = 0, last_commit = -1;
  RowBatch batch;
  while (seen < rows) {
    ASSIGN_OR_RETURN(more, stream->Next(&batch, std::chrono::seconds(60)));
    if (!more) return Status::IOError("no change for 60 s");
    const int64_t at = NowMicros();
    for (const Row& r : batch.rows) {
      const int64_t c = r[1].int_value();
      if (c != last_commit)
        std::printf("%lld %lld\n", static_cast<long long>(c), static_cast<long long>(at));
      last_commit = c;
      seen++;
    }
  }
  return Status::OK();
}

}  // namespace

// R1 and R2's table: W1's columns in partition dt, primary key (id, dt), 4 buckets.
TableSpec RescaleSpec() {
  TableSpec spec;
  spec.columns = {Col("id", DataType::BigInt().NotNull()),
                  Col("dt", DataType::String().NotNull()),
                  Col("a", DataType::BigInt()),
                  Col("b", DataType::BigInt()),
                  Col("c", DataType::Double()),
                  Col("s1", DataType::String()),
                  Col("s2", DataType::String()),
                  Col("s3", DataType::String())};
  spec.primary_keys = {"id", "dt"};
  spec.partition_keys = {"dt"};
  spec.options = {{"bucket", "4"}};
  return spec;
}

// A row of RescaleSpec's table in partition 'p': key `id`, W1's values `r`.
Row RescaleRow(int64_t id, const bench::W1Row& r) {
  return Row{Value::Int(id),     Value::String("p"),  Value::Int(r.a),     Value::Int(r.b),
             Value::Double(r.c), Value::String(r.s1), Value::String(r.s2), Value::String(r.s3)};
}

// R1: a rescale of a 1M-row partition (W1's rows, keys unique) from 4 to 8 buckets, against the
// plain ingest of the same rows (issue 12: goal >= 1x). The rescale is what CALL sys.rescale runs:
// a scan of the partition at the latest snapshot and one OVERWRITE into the new count that
// commits only if the partition is unchanged.
Status R1(const std::string& warehouse) {
  bench::Params p;
  ASSIGN_OR_RETURN(catalog, Catalog::Open(warehouse));
  const TableSpec spec = RescaleSpec();
  Identifier id{"default", "r1", ""};
  CHECK_OK(catalog->CreateTable(id, spec, false));
  ASSIGN_OR_RETURN(table, catalog->GetTable(id));
  bench::W1Generator gen(p.W1Keyspace());
  bench::W1Row r;
  bench::Timer ingest_timer;
  {
    ASSIGN_OR_RETURN(writer, table->NewWriter({}));
    for (int64_t i = 0; i < p.w1_rows; i++) {
      gen.Next(i, &r);
      CHECK_OK(writer->Write(RowKind::kInsert, RescaleRow(i, r)));
      if ((i + 1) % p.batch == 0 || i + 1 == p.w1_rows) {
        ASSIGN_OR_RETURN(
            snap, i + 1 == p.w1_rows ? writer->CommitAndWaitForCompaction() : writer->Commit());
        (void)snap;
      }
    }
  }
  const double ingest_secs = ingest_timer.Seconds();
  bench::Timer rescale_timer;
  ASSIGN_OR_RETURN(latest, meta::SnapshotManager(table->path()).LatestId());
  ScanOptions so;
  so.snapshot_id = latest;
  so.max_batch_rows = 65536;
  ASSIGN_OR_RETURN(scan, table->NewScan(so));
  WriteOptions wo;
  wo.overwrite = true;
  wo.overwrite_buckets = 8;
  wo.overwrite_base_snapshot = latest;
  ASSIGN_OR_RETURN(writer, table->NewWriter(wo));
  RowBatch batch;
  int64_t rows = 0;
  while (true) {
    ASSIGN_OR_RETURN(more, scan->Next(&batch));
    if (!more) break;
    for (Row& row : batch.rows) {
      CHECK_OK(writer->Write(RowKind::kInsert, std::move(row)));
      rows++;
    }
  }
  ASSIGN_OR_RETURN(committed, writer->CommitAndWaitForCompaction());
  (void)committed;
  const double rescale_secs = rescale_timer.Seconds();
  if (rows != p.w1_rows) return Status::Internal("rescaled " + std::to_string(rows) + " rows");
  Record(kSys, "R1", "4 -> 8 buckets")
      .Int("rows", rows)
      .Num("ingest_secs", ingest_secs)
      .Num("secs", rescale_secs)
      .Num("rate", rows / rescale_secs)
      .Num("vs_ingest", ingest_secs / rescale_secs)
      .Str("how",
           "scan at the latest snapshot + OVERWRITE with overwrite_buckets (CALL sys.rescale)")
      .Print();
  return Status::OK();
}

// R2: writes during a rescale (issue 12: at least half their normal throughput). A long-lived
// writer upserts R2_ROWS rows (W1's keys and values) into the partition of R1's table, a commit
// every R2_BATCH rows, first alone, then while another thread runs CALL sys.rescale on the
// same partition over and over (4 -> 8 -> 4 buckets ...; each retries when a commit of the
// writer lands in between, as the procedure does). Rows/s of the writer both times, and how
// many rescales committed.
Status R2(const std::string& warehouse) {
  bench::Params p;
  const int64_t rows = bench::EnvInt("R2_ROWS", p.w1_rows / 2);
  const int64_t batch = bench::EnvInt("R2_BATCH", 20000);
  ASSIGN_OR_RETURN(catalog, Catalog::Open(warehouse));
  const TableSpec spec = RescaleSpec();
  Identifier id{"default", "r2", ""};
  CHECK_OK(catalog->CreateTable(id, spec, false));
  ASSIGN_OR_RETURN(table, catalog->GetTable(id));
  bench::W1Generator gen(p.W1Keyspace());
  bench::W1Row r;
  // Upserts `n` rows (row numbers from `first`; `load`: keys 0, 2, 4, ... in order instead of
  // W1's random ones) through one long-lived writer: seconds taken.
  auto write = [&](int64_t first, int64_t n, bool load) -> Result<double> {
    WriteOptions wo;
    wo.async_compaction = true;
    TRIB_ASSIGN_OR_RETURN(auto writer, table->NewWriter(wo));
    bench::Timer t;
    for (int64_t i = first; i < first + n; i++) {
      gen.Next(i, &r);
      TRIB_RETURN_NOT_OK(writer->Write(RowKind::kInsert, RescaleRow(load ? 2 * i : r.id, r)));
      if ((i + 1 - first) % batch == 0 || i + 1 == first + n) {
        TRIB_ASSIGN_OR_RETURN(auto snap, i + 1 == first + n ? writer->CommitAndWaitForCompaction()
                                                            : writer->Commit());
        (void)snap;
      }
    }
    return t.Seconds();
  };
  // The table first holds W1's keyspace once (the partition a rescale rewrites).
  ASSIGN_OR_RETURN(load_secs, write(0, p.W1Keyspace(), /*load=*/true));
  (void)load_secs;
  ASSIGN_OR_RETURN(alone_secs, write(0, rows, false));
  // The writer's rate while rescales run in a loop with `extra` procedure arguments.
  struct During {
    double secs = 0;
    int64_t rescales = 0, failed = 0;
    std::string last_error;
  };
  int64_t first_row = rows;
  auto during = [&](const std::string& extra) -> Result<During> {
    During d;
    std::atomic<bool> done{false};
    std::thread rescaler([&] {
      auto session = sql::Session::Open(warehouse);
      if (!session.ok()) {
        d.last_error = session.status().ToString();
        return;
      }
      int32_t buckets = 8;
      while (!done.load()) {
        auto res = (*session)->ExecuteText(
            "CALL sys.rescale(`table` => 'default.r2', bucket_num => " + std::to_string(buckets) +
                ", `partition` => 'dt=p'" + extra + ")",
            sql::Pos{});
        if (res.ok()) {
          d.rescales++;
          buckets = buckets == 8 ? 4 : 8;
        } else {
          d.failed++;
          d.last_error = res.status().ToString();
        }
      }
    });
    auto secs = write(first_row, rows, false);
    done = true;
    rescaler.join();
    first_row += rows;
    if (!secs.ok()) return secs.status();
    d.secs = *secs;
    return d;
  };
  ASSIGN_OR_RETURN(all_cores, during(""));
  ASSIGN_OR_RETURN(one_core, during(", scan_parallelism => 1, sink_parallelism => 1"));
  ASSIGN_OR_RETURN(check, table->NewScan({}));
  int64_t total = 0;
  RowBatch b;
  while (true) {
    ASSIGN_OR_RETURN(more, check->Next(&b));
    if (!more) break;
    total += static_cast<int64_t>(b.rows.size());
  }
  if (total != p.W1Keyspace()) {
    return Status::Internal("the table holds " + std::to_string(total) + " rows, not " +
                            std::to_string(p.W1Keyspace()));
  }
  for (const auto& [what, d] :
       {std::pair<const char*, const During*>{"every core", &all_cores},
        std::pair<const char*, const During*>{"parallelism 1", &one_core}}) {
    Record(kSys, "R2", std::string("writes during rescales (") + what + ")")
        .Int("rows", rows)
        .Num("alone_rate", rows / alone_secs)
        .Num("during_rate", rows / d->secs)
        .Num("ratio", alone_secs / d->secs)
        .Int("rescales", d->rescales)
        .Int("rescales_failed", d->failed)
        .Str("last_error", d->last_error)
        .Str("how",
             "one long-lived writer (async compaction), a commit every R2_BATCH rows; "
             "CALL sys.rescale in a loop on another thread")
        .Print();
  }
  return Status::OK();
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(
        stderr,
        "usage: %s W1|W2|W3|W4|W5|W6|W7|J1|J2|R1|R2|R3|F|S <warehouse> [fixed|fixed_dv|dynamic | "
        "partitions (R3)]\n",
        argv[0]);
    return 2;
  }
  std::string w = argv[1], warehouse = argv[2];
  Status st;
  if (w == "Freader" || w == "J2reader" || w == "W6reader" || w == "W7reader") {
    const int64_t n = argc > 3 ? std::atoll(argv[3]) : 0;
    Status r = w == "Freader"    ? FreshnessReader(warehouse, n)
               : w == "W6reader" ? W6Reader(warehouse)
               : w == "W7reader" ? W7Reader(warehouse)
                                 : J2Reader(warehouse, n);
    if (!r.ok()) std::fprintf(stderr, "reader: %s\n", r.ToString().c_str());
    return r.ok() ? 0 : 1;
  }
  if (w == "F")
    st = Freshness(warehouse, argv[0]);
  else if (w == "J2")
    st = J2(warehouse, argv[0]);
  else if (w == "W6")
    st = W6(warehouse, argv[0]);
  else if (w == "W7")
    st = W7(warehouse, argv[0], argc > 3 ? argv[3] : "job");
  else if (w == "R3")
    st = R3(warehouse, argc > 3 ? argv[3] : "1");
  else if (w == "S")
    st = StreamRead(warehouse, argc > 3 ? argv[3] : "w1_fixed_input");
  else if (w == "W1")
    st = W1(warehouse, argc > 3 ? argv[3] : "fixed");
  else if (w == "W2")
    st = W2(warehouse);
  else if (w == "W3")
    st = W3(warehouse);
  else if (w == "W4")
    st = W4(warehouse);
  else if (w == "W4F")
    st = W4F(warehouse);
  else if (w == "W5")
    st = W5(warehouse, argc > 3 ? argv[3] : "w1_fixed");
  else if (w == "J1")
    st = J1(warehouse);
  else if (w == "R1")
    st = R1(warehouse);
  else if (w == "R2")
    st = R2(warehouse);
  else
    st = Status::Invalid("unknown workload " + w);
  if (!st.ok()) {
    std::string kase;
    if (w == "W1") {
      kase = argc > 3 && std::string(argv[3]) == "dynamic" ? "dynamic (bucket=-1)" : "4 buckets";
    } else if (w == "W2") {
      kase = "sum+max";
    } else if (w == "W3") {
      kase = "3 writers";
    } else if (w == "W4") {
      kase = "SQL prepared SELECT ... WHERE id = ?";
    }
    bench::PrintError(kSys, w, kase, st.ToString());
    return 0;  // a workload Tributary cannot run yet is a result, not a failure of the run
  }
  return 0;
}
