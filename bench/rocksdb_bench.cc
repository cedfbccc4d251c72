// RocksDB's side of `make bench` (Debian librocksdb-dev). Settings: defaults plus a 10-bit bloom
// filter; one WriteBatch per BENCH_BATCH rows written with WriteOptions::sync = true (the WAL is
// fsynced per batch, as Tributary fsyncs each commit); W2/W3 use merge operators.
//   rocksdb_bench W1|W2|W3|W4|W5 <dir>
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/table.h>
#include <rocksdb/transaction_log.h>
#include <rocksdb/version.h>
#include <rocksdb/write_batch.h>

#include <cstring>
#include <memory>
#include <thread>

#include "bench_common.h"

using bench::Record;

namespace {

const char* kSys = "rocksdb";

std::string Key(int64_t id) {
  char b[8];
  uint64_t u = static_cast<uint64_t>(id) ^ (1ULL << 63);  // signed order as bytes
  for (int i = 0; i < 8; i++) b[i] = static_cast<char>(u >> (56 - 8 * i));
  return std::string(b, 8);
}
void PutI64(std::string* s, int64_t v) { s->append(reinterpret_cast<const char*>(&v), 8); }
int64_t GetI64(const char* p) {
  int64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// W1 value: a, b, c (8 bytes each), then s1, s2, s3 with a one-byte length.
std::string EncodeW1(const bench::W1Row& r) {
  std::string v;
  v.reserve(24 + 3 + r.s1.size() + r.s2.size() + r.s3.size());
  PutI64(&v, r.a);
  PutI64(&v, r.b);
  v.append(reinterpret_cast<const char*>(&r.c), 8);
  for (const std::string* s : {&r.s1, &r.s2, &r.s3}) {
    v.push_back(static_cast<char>(s->size()));
    v.append(*s);
  }
  return v;
}
struct W1Value {
  int64_t a, b;
  double c;
  std::string_view s1, s2, s3;
};
W1Value DecodeW1(rocksdb::Slice v) {
  W1Value out;
  out.a = GetI64(v.data());
  out.b = GetI64(v.data() + 8);
  std::memcpy(&out.c, v.data() + 16, 8);
  size_t pos = 24;
  for (std::string_view* s : {&out.s1, &out.s2, &out.s3}) {
    size_t n = static_cast<unsigned char>(v.data()[pos]);
    *s = std::string_view(v.data() + pos + 1, n);
    pos += 1 + n;
  }
  return out;
}

// W2: (sum, max) of v; an operand is (v, v).
class SumMaxOperator : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice&, const rocksdb::Slice* existing, const rocksdb::Slice& value,
             std::string* new_value, rocksdb::Logger*) const override {
    int64_t s = GetI64(value.data()), m = GetI64(value.data() + 8);
    if (existing) {
      s += GetI64(existing->data());
      m = std::max(m, GetI64(existing->data() + 8));
    }
    new_value->clear();
    PutI64(new_value, s);
    PutI64(new_value, m);
    return true;
  }
  const char* Name() const override { return "SumMax"; }
};

// W3: a null mask byte and six int64 columns; an operand's non-null columns overwrite.
class PartialUpdateOperator : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice&, const rocksdb::Slice* existing, const rocksdb::Slice& value,
             std::string* new_value, rocksdb::Logger*) const override {
    if (!existing) {
      new_value->assign(value.data(), value.size());
      return true;
    }
    new_value->assign(existing->data(), existing->size());
    uint8_t mask = static_cast<uint8_t>(value.data()[0]);
    for (int c = 0; c < 6; c++) {
      if (mask & (1 << c)) std::memcpy(&(*new_value)[1 + 8 * c], value.data() + 1 + 8 * c, 8);
    }
    (*new_value)[0] = static_cast<char>(static_cast<uint8_t>((*new_value)[0]) | mask);
    return true;
  }
  const char* Name() const override { return "PartialUpdate"; }
};

std::unique_ptr<rocksdb::DB> Open(const std::string& dir,
                                  std::shared_ptr<rocksdb::MergeOperator> op = nullptr) {
  std::filesystem::create_directories(dir);
  rocksdb::Options o;
  o.create_if_missing = true;
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  // A block cache the size of the other systems' caches (SQLite's 256 MiB page cache,
  // PostgreSQL's 256 MB shared_buffers, Tributary's 256 MiB file cache), as RocksDB's tuning
  // guide sizes it: left unset, RocksDB 7.8 makes an 8 MiB one, and every warm W4 Get and W5 scan
  // read and decompressed its blocks again (issue 40's review).
  t.block_cache = rocksdb::NewLRUCache(size_t{256} << 20);
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  o.merge_operator = std::move(op);
  rocksdb::DB* db = nullptr;
  rocksdb::Status st = rocksdb::DB::Open(o, dir, &db);
  if (!st.ok()) {
    std::fprintf(stderr, "rocksdb open %s: %s\n", dir.c_str(), st.ToString().c_str());
    std::exit(1);
  }
  return std::unique_ptr<rocksdb::DB>(db);
}

void Check(const rocksdb::Status& st) {
  if (!st.ok()) {
    std::fprintf(stderr, "rocksdb: %s\n", st.ToString().c_str());
    std::exit(1);
  }
}

std::string Version() {
  return std::to_string(ROCKSDB_MAJOR) + "." + std::to_string(ROCKSDB_MINOR) + "." +
         std::to_string(ROCKSDB_PATCH);
}

void W1(const std::string& dir) {
  bench::Params p;
  bench::Timer timer;
  auto db = Open(dir);
  rocksdb::WriteOptions wo;
  wo.sync = true;
  bench::W1Generator gen(p.W1Keyspace());
  bench::W1Row r;
  rocksdb::WriteBatch batch;
  for (int64_t i = 0; i < p.w1_rows; i++) {
    gen.Next(i, &r);
    Check(batch.Put(Key(r.id), EncodeW1(r)));
    if ((i + 1) % p.batch == 0 || i + 1 == p.w1_rows) {
      Check(db->Write(wo, &batch));
      batch.Clear();
    }
  }
  double secs = timer.Seconds();
  db.reset();
  Record(kSys, "W1", "upsert")
      .Int("rows", p.w1_rows)
      .Num("secs", secs)
      .Num("rate", p.w1_rows / secs)
      .Int("bytes", bench::DirBytes(dir))
      .Int("rss_kb", bench::PeakRssKb())
      .Str("version", Version())
      .Print();
}

void W4(const std::string& dir) {
  bench::Params p;
  auto db = Open(dir);
  const bench::W4KeySeq keys = bench::W4Keys(p);
  bench::Latencies lat;
  int64_t hits = 0;
  std::string value;
  bench::Timer total;
  for (int64_t k : keys) {
    bench::Timer t;
    rocksdb::Status st = db->Get(rocksdb::ReadOptions(), Key(k), &value);
    if (st.ok()) {
      hits++;
      W1Value v = DecodeW1(value);
      (void)v;
    } else if (!st.IsNotFound()) {
      Check(st);
    }
    lat.push_back(t.Seconds());
    if ((lat.size() & 1023) == 0 && total.Seconds() >= p.w4_seconds) break;
  }
  double secs = total.Seconds();
  Record(kSys, "W4", "Get")
      .Int("ops", static_cast<int64_t>(lat.size()))
      .Int("hits", hits)
      .Num("secs", secs)
      .Num("rate", lat.size() / secs)
      .Num("p50_us", bench::Percentile(lat, 0.5) * 1e6)
      .Num("p99_us", bench::Percentile(lat, 0.99) * 1e6)
      .Int("rss_kb", bench::PeakRssKb())
      .Print();
}

void W5Scans(rocksdb::DB* db, const std::string& phase) {
  bench::Params p;
  for (const char* name : {"count", "sum", "filter"}) {
    std::vector<double> times;
    int64_t result = 0, scanned = 0;
    for (int64_t rep = 0; rep < p.w5_repeat; rep++) {
      bench::Timer t;
      int64_t n = 0, s = 0, f = 0;
      std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        n++;
        if (name[0] == 's') {
          s += GetI64(it->value().data());
        } else if (name[0] == 'f') {
          W1Value v = DecodeW1(it->value());
          if (v.a < 10000) {
            bench::W1Row row{
                GetI64(it->key().data()), v.a, v.b, v.c, std::string(v.s1), std::string(v.s2),
                std::string(v.s3)};
            f += row.s1.size() > 0;
          }
        }
      }
      Check(it->status());
      times.push_back(t.Seconds());
      scanned = n;
      result = name[0] == 'c' ? n : name[0] == 's' ? s : f;
    }
    double secs = bench::Median(times);
    Record(kSys, "W5", std::string(name) + " " + phase)
        .Num("secs", secs)
        .Num("first_secs", times.front())
        .Int("result", result)
        .Num("rate", scanned / secs)
        .Int("rss_kb", bench::PeakRssKb())
        .Print();
  }
}

void W5(const std::string& dir) {
  auto db = Open(dir);
  W5Scans(db.get(), "before");
  int64_t before = bench::DirBytes(dir);
  bench::Timer t;
  rocksdb::CompactRangeOptions co;
  co.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  Check(db->CompactRange(co, nullptr, nullptr));
  Record(kSys, "W5", "compact")
      .Str("how", "CompactRange(all, force bottommost)")
      .Num("secs", t.Seconds())
      .Int("bytes_before", before)
      .Int("bytes_after", bench::DirBytes(dir))
      .Print();
  W5Scans(db.get(), "after");
}

void W2(const std::string& dir) {
  bench::Params p;
  bench::Timer timer;
  auto db = Open(dir, std::make_shared<SumMaxOperator>());
  rocksdb::WriteOptions wo;
  wo.sync = true;
  bench::W2Generator gen(p.w2_keys);
  rocksdb::WriteBatch batch;
  std::string v;
  for (int64_t i = 0; i < p.w2_events; i++) {
    bench::W2Event e = gen.Next();
    v.clear();
    PutI64(&v, e.v);
    PutI64(&v, e.v);
    Check(batch.Merge(Key(e.id), v));
    if ((i + 1) % p.batch == 0 || i + 1 == p.w2_events) {
      Check(db->Write(wo, &batch));
      batch.Clear();
    }
  }
  double secs = timer.Seconds();
  int64_t n = 0, s = 0, m = 0;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    n++;
    s += GetI64(it->value().data());
    m += GetI64(it->value().data() + 8);
  }
  it.reset();
  db.reset();
  Record(kSys, "W2", "sum+max")
      .Int("rows", p.w2_events)
      .Num("secs", secs)
      .Num("rate", p.w2_events / secs)
      .Int("bytes", bench::DirBytes(dir))
      .Int("rss_kb", bench::PeakRssKb())
      .Str("check", "keys=" + std::to_string(n) + " sum_s=" + std::to_string(s) +
                        " sum_m=" + std::to_string(m))
      .Str("how", "Merge with an associative (sum, max) operator")
      .Print();
}

void W3(const std::string& dir) {
  bench::Params p;
  bench::Timer timer;
  auto db = Open(dir, std::make_shared<PartialUpdateOperator>());
  rocksdb::WriteOptions wo;
  wo.sync = true;
  int64_t next[3] = {0, 0, 0};
  rocksdb::WriteBatch batch;
  while (next[2] < p.w3_keys) {
    for (int w = 0; w < 3; w++) {
      int64_t end = std::min(p.w3_keys, next[w] + p.batch);
      for (int64_t j = next[w]; j < end; j++) {
        int64_t key = bench::W3Key(p.w3_keys, w, j);
        std::string v(49, '\0');
        v[0] = static_cast<char>(3 << (2 * w));
        int64_t x = bench::W3Value(key, 2 * w + 1), y = bench::W3Value(key, 2 * w + 2);
        std::memcpy(&v[1 + 8 * (2 * w)], &x, 8);
        std::memcpy(&v[1 + 8 * (2 * w + 1)], &y, 8);
        Check(batch.Merge(Key(key), v));
      }
      next[w] = end;
      Check(db->Write(wo, &batch));
      batch.Clear();
    }
  }
  double secs = timer.Seconds();
  int64_t n = 0, s = 0;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    n++;
    uint8_t mask = static_cast<uint8_t>(it->value().data()[0]);
    for (int c = 0; c < 6; c++) {
      if (mask & (1 << c)) s += GetI64(it->value().data() + 1 + 8 * c);
    }
  }
  it.reset();
  db.reset();
  Record(kSys, "W3", "3 writers")
      .Int("rows", 3 * p.w3_keys)
      .Num("secs", secs)
      .Num("rate", 3 * p.w3_keys / secs)
      .Int("bytes", bench::DirBytes(dir))
      .Int("rss_kb", bench::PeakRssKb())
      .Str("check", "keys=" + std::to_string(n) + " sum=" + std::to_string(s))
      .Str("how", "Merge with a column-overwrite operator")
      .Print();
}

// W6: the W1 upserts of Tributary's W6 (W6_ROWS rows, W6_BATCH per synced WriteBatch) while a
// consumer thread follows the WAL with GetUpdatesSince (RocksDB's change feed, as replication
// built on it reads it, polling for new batches), the DB keeping its WAL for it
// (WAL_ttl_seconds). Each batch carries its commit number as log data. RocksDB records no
// before-image: its changes are the puts (an update is one), so its count differs from
// Tributary's and PostgreSQL's.
using bench::NowMicros;

struct W6Handler : rocksdb::WriteBatch::Handler {
  int64_t puts = 0;
  int64_t commit = -2;
  rocksdb::Status PutCF(uint32_t, const rocksdb::Slice&, const rocksdb::Slice&) override {
    puts++;
    return rocksdb::Status::OK();
  }
  void LogData(const rocksdb::Slice& blob) override {
    commit = std::strtoll(blob.ToString().c_str(), nullptr, 10);
  }
};

void W6(const std::string& dir) {
  bench::Params p;
  const int64_t rows = bench::EnvInt("W6_ROWS", std::max<int64_t>(1, p.w1_rows / 5));
  const int64_t batch_rows = std::max<int64_t>(1, bench::EnvInt("W6_BATCH", 2000));
  const int64_t commits = (rows + batch_rows - 1) / batch_rows;
  std::filesystem::create_directories(dir);
  rocksdb::Options o;
  o.create_if_missing = true;
  o.WAL_ttl_seconds = 3600;  // archived, not deleted, so the feed can read it
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  rocksdb::DB* raw = nullptr;
  Check(rocksdb::DB::Open(o, dir, &raw));
  std::unique_ptr<rocksdb::DB> db(raw);
  std::vector<int64_t> first_arrival(static_cast<size_t>(commits), 0);
  int64_t changes = 0, last = 0;
  std::string error;
  std::thread consumer([&] {
    rocksdb::SequenceNumber next = db->GetLatestSequenceNumber() + 1;
    while (true) {
      std::unique_ptr<rocksdb::TransactionLogIterator> it;
      rocksdb::Status st = db->GetUpdatesSince(next, &it);
      bool progressed = false;
      for (; st.ok() && it->Valid(); it->Next()) {
        rocksdb::BatchResult b = it->GetBatch();
        const int64_t at = NowMicros();
        W6Handler h;
        if (!b.writeBatchPtr->Iterate(&h).ok()) {
          error = "cannot iterate a batch";
          return;
        }
        next = b.sequence + b.writeBatchPtr->Count();
        progressed = true;
        if (h.commit == -1) {
          last = at;
          return;
        }
        changes += h.puts;
        if (h.commit >= 0 && h.commit < commits &&
            first_arrival[static_cast<size_t>(h.commit)] == 0) {
          first_arrival[static_cast<size_t>(h.commit)] = at;
        }
      }
      if (!progressed) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  rocksdb::WriteOptions wo;
  wo.sync = true;
  bench::W1Generator gen(std::max<int64_t>(1, rows / 2));
  bench::W1Row r;
  rocksdb::WriteBatch batch;
  std::vector<int64_t> committed(static_cast<size_t>(commits));
  const int64_t start = NowMicros();
  int64_t i = 0;
  for (int64_t c = 0; c < commits; c++) {
    Check(batch.PutLogData(std::to_string(c)));
    for (int64_t k = 0; k < batch_rows && i < rows; k++, i++) {
      gen.Next(i, &r);
      Check(batch.Put(Key(r.id), EncodeW1(r)));
    }
    Check(db->Write(wo, &batch));
    batch.Clear();
    committed[static_cast<size_t>(c)] = NowMicros();
  }
  Check(batch.PutLogData("-1"));
  Check(batch.Put(Key(-1), ""));
  Check(db->Write(wo, &batch));
  consumer.join();
  if (!error.empty() || last == 0) {
    std::fprintf(stderr, "rocksdb W6 consumer: %s\n", error.c_str());
    std::exit(1);
  }
  std::vector<double> latency_ms;
  for (int64_t c = 0; c < commits; c++) {
    const int64_t at = first_arrival[static_cast<size_t>(c)];
    if (at)
      latency_ms.push_back(std::max<int64_t>(0, at - committed[static_cast<size_t>(c)]) / 1000.0);
  }
  std::sort(latency_ms.begin(), latency_ms.end());
  auto pct = [&](double q) { return bench::Quantile(latency_ms, q); };
  const double secs = std::max<int64_t>(1, last - start) / 1e6;
  db.reset();
  Record(kSys, "W6", "GetUpdatesSince")
      .Int("rows", rows)
      .Int("commits", commits)
      .Int("puts", changes)
      .Num("secs", secs)
      .Num("changes_per_sec", changes / secs)
      .Num("p50_ms", pct(0.50))
      .Num("p99_ms", pct(0.99))
      .Int("rss_kb", bench::PeakRssKb())
      .Str("how",
           "a synced WriteBatch per commit; a thread polls GetUpdatesSince (1 ms when "
           "idle); puts counted (no before-images)")
      .Str("version", Version())
      .Print();
}

}  // namespace

int main(int argc, char** argv) {
  return bench::RunWorkload(
      argc, argv, {{"W1", W1}, {"W2", W2}, {"W3", W3}, {"W4", W4}, {"W5", W5}, {"W6", W6}});
}
