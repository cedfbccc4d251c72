// What every C++ peer program of `make bench` shares: the workload parameters (from the
// environment, set by run.sh), the deterministic data generators, timing, peak RSS, bytes on disk
// and the JSON-lines result format that report.py turns into tables.
//
// Every peer program includes this header (duckdb_bench.cc too), so the generators are the same for
// all (report.py compares the W5/W2/W3 check values of every system and flags disagreement).
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <string>
#include <vector>

namespace bench {

// ---------------------------------------------------------------------------------------------
// Parameters. run.sh exports them (scaled by BENCH_SCALE); the defaults here are for running a
// program by hand.
inline int64_t EnvInt(const char* name, int64_t dflt) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoll(v, nullptr, 10) : dflt;
}
inline double EnvDouble(const char* name, double dflt) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtod(v, nullptr) : dflt;
}

struct Params {
  int64_t w1_rows = EnvInt("W1_ROWS", 1000000);
  int64_t batch = EnvInt("BENCH_BATCH", 100000);  // rows per durable commit
  int64_t w2_keys = EnvInt("W2_KEYS", 1000000);
  int64_t w2_events = EnvInt("W2_EVENTS", 4000000);
  int64_t w3_keys = EnvInt("W3_KEYS", 1000000);
  int64_t w4_lookups = EnvInt("W4_LOOKUPS", 1000000);
  double w4_seconds = EnvDouble("W4_SECONDS", 10);  // time cap per system
  int64_t w5_repeat = EnvInt("W5_REPEAT", 9);       // runs per query; the median is reported
  int64_t j1_orders = EnvInt("J1_ORDERS", 1000000);
  int64_t j1_customers = EnvInt("J1_CUSTOMERS", 100000);
  int64_t W1Keyspace() const { return std::max<int64_t>(1, w1_rows / 2); }
};

// ---------------------------------------------------------------------------------------------
// Deterministic data. mulberry32: small, fast, and exactly reproducible in JavaScript with
// Math.imul (see duckdb_bench.mjs).
class Rng {
 public:
  explicit Rng(uint32_t seed) : state_(seed) {}
  uint32_t Next() {
    state_ += kStep;
    return Mix(state_);
  }
  // The output of the (i + 1)-th Next() of Rng(seed), without the calls before it (the state
  // moves by a constant).
  static uint32_t At(uint32_t seed, uint64_t i) {
    return Mix(seed + static_cast<uint32_t>((i + 1) * kStep));
  }

 private:
  static constexpr uint32_t kStep = 0x6D2B79F5u;
  static uint32_t Mix(uint32_t t) {
    t = (t ^ (t >> 15)) * (t | 1u);
    t = (t + (t ^ (t >> 7)) * (t | 61u)) ^ t;
    return t ^ (t >> 14);
  }
  uint32_t state_;
};

inline constexpr char kAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// W1 rows: (id BIGINT key, a BIGINT, b BIGINT, c DOUBLE, s1, s2, s3 STRING of 16-24 bytes).
// Keys are even numbers 2*k, k drawn from [0, keyspace) with keyspace = rows/2, so about half the
// rows update an earlier key; odd numbers are guaranteed misses for W4. `b` is the row index,
// the version: for every key the row with the highest b wins, in every system.
// a is uniform in [0, 1e6): `a < 10000` selects 1%.
struct W1Row {
  int64_t id, a, b;
  double c;
  std::string s1, s2, s3;
};

class W1Generator {
 public:
  explicit W1Generator(int64_t keyspace) : keyspace_(keyspace), keys_(42), cols_(43) {}
  void Next(int64_t index, W1Row* r) {
    r->id = 2 * static_cast<int64_t>(keys_.Next() % static_cast<uint32_t>(keyspace_));
    r->a = cols_.Next() % 1000000;
    r->b = index;
    r->c = static_cast<double>(cols_.Next() % 1000000) / 100.0;
    Str(&r->s1);
    Str(&r->s2);
    Str(&r->s3);
  }
  // Only the key stream (for W4's hit keys).
  int64_t NextId() {
    return 2 * static_cast<int64_t>(keys_.Next() % static_cast<uint32_t>(keyspace_));
  }

 private:
  void Str(std::string* s) {
    int len = 16 + static_cast<int>(cols_.Next() % 9);
    s->resize(len);
    for (int i = 0; i < len; i += 4) {
      uint32_t r = cols_.Next();
      for (int j = 0; j < 4 && i + j < len; j++) (*s)[i + j] = kAlphabet[(r >> (8 * j)) & 63];
    }
  }
  int64_t keyspace_;
  Rng keys_, cols_;
};

// J1 (a TPC-H-like join): customer (custkey, nation 0..24, name of 16-24 bytes) and orders
// (orderkey, custkey, amount 0..9999); an order's custkey is drawn from 110% of the customers'
// keys, so about 9% of the orders join no customer.
struct J1Customer {
  int64_t custkey, nation;
  std::string name;
};
struct J1Order {
  int64_t orderkey, custkey, amount;
};
class J1Generator {
 public:
  explicit J1Generator(int64_t customers) : customers_(customers), rng_(45) {}
  void Customer(int64_t i, J1Customer* c) {
    c->custkey = i;
    c->nation = rng_.Next() % 25;
    int len = 16 + static_cast<int>(rng_.Next() % 9);
    c->name.resize(len);
    for (int k = 0; k < len; k++) c->name[k] = kAlphabet[rng_.Next() & 63];
  }
  void Order(int64_t i, J1Order* o) {
    o->orderkey = i;
    o->custkey = rng_.Next() % static_cast<uint32_t>(customers_ * 11 / 10);
    o->amount = rng_.Next() % 10000;
  }

 private:
  int64_t customers_;
  Rng rng_;
};
inline constexpr char kJ1Query[] =
    "SELECT COUNT(*), SUM(o.amount), SUM(c.nation) FROM orders o JOIN customer c "
    "ON o.custkey = c.custkey";

// W4 lookup keys: 90% are ids of W1 rows (hits), 10% odd numbers (misses). Made as they are
// iterated (a W1 row's id from its index: W1Generator's key stream is Rng(42)'s), so the harness
// holds no array of them: an in-process engine's peak RSS is its own, as a server's is.
class W4KeySeq {
 public:
  explicit W4KeySeq(const Params& p)
      : rows_(p.w1_rows), keyspace_(p.W1Keyspace()), count_(p.w4_lookups) {}
  class iterator {
   public:
    iterator(const W4KeySeq* seq, int64_t at) : seq_(seq), at_(at) {
      if (at_ < seq_->count_) key_ = Make();
    }
    int64_t operator*() const { return key_; }
    iterator& operator++() {
      if (++at_ < seq_->count_) key_ = Make();
      return *this;
    }
    bool operator!=(const iterator& o) const { return at_ != o.at_; }

   private:
    int64_t Make() {
      const auto keyspace = static_cast<uint32_t>(seq_->keyspace_);
      if (rng_.Next() % 10 == 0) return 2 * static_cast<int64_t>(rng_.Next() % keyspace) + 1;
      const uint32_t row = rng_.Next() % static_cast<uint32_t>(seq_->rows_);
      return 2 * static_cast<int64_t>(Rng::At(42, row) % keyspace);  // W1 row `row`'s id
    }
    const W4KeySeq* seq_;
    int64_t at_;
    Rng rng_{7};
    int64_t key_ = 0;
  };
  iterator begin() const { return iterator(this, 0); }
  iterator end() const { return iterator(this, count_); }
  size_t size() const { return static_cast<size_t>(count_); }

 private:
  int64_t rows_, keyspace_, count_;
};
inline W4KeySeq W4Keys(const Params& p) { return W4KeySeq(p); }

// W2 events: (id, v) with id uniform in [0, keys) and v in [0, 1000); the table keeps
// s = SUM(v) and m = MAX(v) per id.
struct W2Event {
  int64_t id, v;
};
class W2Generator {
 public:
  explicit W2Generator(int64_t keys) : keys_(keys), rng_(44) {}
  W2Event Next() {
    W2Event e;
    e.id = rng_.Next() % static_cast<uint32_t>(keys_);
    e.v = rng_.Next() % 1000;
    return e;
  }

 private:
  int64_t keys_;
  Rng rng_;
};

// W3: three writers; writer w (0, 1, 2) writes every key once, in its own order, filling columns
// c(2w+1) and c(2w+2) of (id, c1..c6) with id*10 + column number. Writers take turns, one batch
// each, each batch its own durable commit.
inline int64_t W3Stride(int64_t keys) {
  int64_t p = 1000003;
  while (std::gcd(p, keys) != 1) p += 2;
  return p;
}
inline int64_t W3Key(int64_t keys, int writer, int64_t j) {
  return (j * W3Stride(keys) + writer * 12345) % keys;
}
inline int64_t W3Value(int64_t id, int column) { return id * 10 + column; }  // column 1..6

// ---------------------------------------------------------------------------------------------
// Measurement.
class Timer {
 public:
  Timer() : start_(std::chrono::steady_clock::now()) {}
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Wall-clock microseconds since the epoch: comparable between processes on one machine (the
// changelog and join benchmarks time a commit in one process and its arrival in another).
inline int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The q-quantile (0..1) of ascending `sorted` (0 when empty): the latency percentiles.
inline double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  return sorted[std::min(sorted.size() - 1, static_cast<size_t>(q * sorted.size()))];
}

inline int64_t PeakRssKb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

// Sum of the sizes of the regular files under `dir`.
inline int64_t DirBytes(const std::string& dir) {
  int64_t n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->is_regular_file(ec)) n += static_cast<int64_t>(it->file_size(ec));
  }
  return n;
}

inline double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())));
  return v[i];
}
inline double Median(std::vector<double> v) { return Percentile(std::move(v), 0.5); }

// Per-operation latencies as a histogram (not a value each: the harness's memory stays out of
// the peak RSS it reports): in nanoseconds, exact below 128 ns, else within 1/64 (the middle of
// a bucket is reported). Percentile ranks as Percentile of a vector does.
class Latencies {
 public:
  void reserve(size_t) {}
  void push_back(double seconds) {
    const uint64_t ns = seconds <= 0 ? 0 : static_cast<uint64_t>(seconds * 1e9);
    counts_[Index(ns)]++;
    n_++;
  }
  size_t size() const { return n_; }
  double Quantile(double q) const {
    if (n_ == 0) return 0;
    const size_t rank = std::min(n_ - 1, static_cast<size_t>(q * static_cast<double>(n_)));
    size_t seen = 0;
    for (size_t i = 0; i < counts_.size(); i++) {
      seen += counts_[i];
      if (seen > rank) return static_cast<double>(Middle(i)) / 1e9;
    }
    return 0;
  }

 private:
  static size_t Index(uint64_t ns) {
    if (ns < 128) return ns;
    const int e = 63 - __builtin_clzll(ns) - 6;  // ns >> e is in [64, 128)
    return 128 + static_cast<size_t>(e - 1) * 64 + static_cast<size_t>((ns >> e) - 64);
  }
  static uint64_t Middle(size_t i) {
    if (i < 128) return i;
    const int e = static_cast<int>((i - 128) / 64) + 1;
    const uint64_t low = ((i - 128) % 64 + 64) << e;
    return low + (uint64_t{1} << e) / 2;
  }
  std::array<size_t, 128 + 57 * 64> counts_{};
  size_t n_ = 0;
};
inline double Percentile(const Latencies& l, double q) { return l.Quantile(q); }

// One result: a flat JSON object on its own line of stdout. Values are numbers or strings.
class Record {
 public:
  Record(const std::string& sys, const std::string& workload, const std::string& kase) {
    Str("sys", sys);
    Str("w", workload);
    Str("case", kase);
  }
  Record& Num(const std::string& k, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    fields_.push_back("\"" + k + "\": " + buf);
    return *this;
  }
  Record& Int(const std::string& k, int64_t v) {
    fields_.push_back("\"" + k + "\": " + std::to_string(v));
    return *this;
  }
  Record& Str(const std::string& k, const std::string& v) {
    std::string e;
    for (char ch : v) {
      if (ch == '"' || ch == '\\') e += '\\';
      if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
      e += ch;
    }
    fields_.push_back("\"" + k + "\": \"" + e + "\"");
    return *this;
  }
  void Print() const {
    std::string s = "{";
    for (size_t i = 0; i < fields_.size(); i++) s += (i ? ", " : "") + fields_[i];
    std::printf("%s}\n", s.c_str());
    std::fflush(stdout);
  }

 private:
  std::vector<std::string> fields_;
};

// A workload that cannot run on this system (yet): printed as a note in the tables.
inline void PrintError(const std::string& sys, const std::string& workload, const std::string& kase,
                       const std::string& message) {
  Record(sys, workload, kase).Str("error", message).Print();
}

// A peer program's main: `prog WORKLOAD TARGET` runs workloads[WORKLOAD](TARGET) (TARGET: a
// data directory, or PostgreSQL's connection string); 2 for a wrong call.
using Workload = void (*)(const std::string&);
inline int RunWorkload(int argc, char** argv,
                       const std::vector<std::pair<std::string, Workload>>& workloads,
                       const char* target = "<dir>") {
  std::string names;
  for (const auto& [name, fn] : workloads) names += (names.empty() ? "" : "|") + name;
  if (argc >= 3) {
    for (const auto& [name, fn] : workloads) {
      if (argv[1] == name) {
        fn(argv[2]);
        return 0;
      }
    }
  }
  std::fprintf(stderr, "usage: %s %s %s\n", argv[0], names.c_str(), target);
  return 2;
}

}  // namespace bench
