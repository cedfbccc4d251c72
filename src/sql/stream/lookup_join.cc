// The lookup join operator (MakeLookupJoin) and its caches of the dimension's rows: none (each key
// looked up in the dimension's latest snapshot), partial (looked-up rows kept until they expire,
// as Flink's partial lookup cache) and full (the whole dimension in memory, loaded again after a
// commit to it).
#include <chrono>
#include <list>
#include <unordered_map>

#include "common/clock.h"
#include "common/parallel.h"
#include "options/option_values.h"
#include "sql/binder/cast.h"
#include "sql/exec/operators.h"
#include "sql/exec/vector_eval.h"
#include "sql/stream/streaming_operators.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"

namespace tributary::sql {

Result<LookupCacheOptions> ParseLookupCacheOptions(
    const std::map<std::string, std::string>& options) {
  LookupCacheOptions out;
  auto get = [&](const char* key) -> const std::string* {
    auto it = options.find(key);
    return it == options.end() || it->second.empty() ? nullptr : &it->second;
  };
  auto bad = [](const std::string& key, const std::string& why) {
    return Status::Invalid("option '" + key + "': " + why);
  };
  std::string mode = "AUTO";
  if (const std::string* v = get("lookup.cache")) {
    mode.clear();
    for (char c : *v) mode.push_back(static_cast<char>(toupper(static_cast<unsigned char>(c))));
  }
  if (mode == "PARTIAL") {
    out.mode = LookupCacheOptions::Mode::kPartial;
  } else if (mode == "FULL") {
    out.mode = LookupCacheOptions::Mode::kFull;
  } else if (mode != "AUTO" && mode != "NONE") {
    return bad("lookup.cache", "'" + mode + "' is not one of AUTO, FULL, PARTIAL, NONE");
  }
  const char* partial_keys[] = {"lookup.partial-cache.expire-after-write",
                                "lookup.partial-cache.expire-after-access",
                                "lookup.partial-cache.max-rows"};
  for (const char* key : partial_keys) {
    const std::string* v = get(key);
    if (!v) continue;
    if (out.mode != LookupCacheOptions::Mode::kPartial) {
      return bad(key, "applies only with 'lookup.cache' = 'PARTIAL'");
    }
    if (std::string(key) == "lookup.partial-cache.max-rows") {
      auto n = options::ParseInt64(*v);
      if (!n.ok() || *n < 1) return bad(key, "'" + *v + "' is not a positive number of rows");
      out.max_rows = *n;
    } else {
      auto ms = options::ParseDurationMillis(*v);
      if (!ms.ok() || *ms < 1) return bad(key, "'" + *v + "' is not a positive duration");
      (key == partial_keys[0] ? out.expire_after_write_ms : out.expire_after_access_ms) = *ms;
    }
  }
  if (out.mode == LookupCacheOptions::Mode::kPartial && !out.max_rows &&
      !out.expire_after_write_ms && !out.expire_after_access_ms) {
    // As Flink's partial cache: without a bound it would only ever grow and never see a change.
    return bad("lookup.cache",
               "PARTIAL needs at least one of "
               "'lookup.partial-cache.expire-after-write', "
               "'lookup.partial-cache.expire-after-access' and "
               "'lookup.partial-cache.max-rows'");
  }
  bool async = false;
  if (const std::string* v = get("lookup.async")) {
    if (!options::ParseBool(*v, &async)) {
      return bad("lookup.async", "'" + *v + "' is not true or false");
    }
  }
  if (const std::string* v = get("client.lookup.queue-size")) {
    auto n = options::ParseInt64(*v);
    if (!n.ok() || *n < 1)
      return bad("client.lookup.queue-size", "'" + *v + "' is not a positive number");
    out.max_keys = *n;
  }
  if (const std::string* v = get("lookup.async-thread-number")) {
    // Without 'lookup.async' the number configures nothing (tables may carry it; Paimon's too).
    auto n = options::ParseInt64(*v);
    if (!n.ok() || *n < 1 || *n > 1024) {
      return bad("lookup.async-thread-number", "'" + *v + "' is not a number of threads (1-1024)");
    }
    if (async) out.async_threads = static_cast<int>(*n);
  } else if (async) {
    out.async_threads = 16;  // the option's default
  }
  if (async && out.mode == LookupCacheOptions::Mode::kFull) {
    // FULL finds keys in memory: there is nothing for threads to look up.
    return Status::NotSupported(
        "option 'lookup.async' with 'lookup.cache' = 'FULL' is not "
        "supported (a FULL cache looks keys up in memory)");
  }
  return out;
}

std::string DescribeLookupCache(const LookupCacheOptions& cache) {
  std::string out;
  switch (cache.mode) {
    case LookupCacheOptions::Mode::kNone:
      break;
    case LookupCacheOptions::Mode::kPartial: {
      out = "; lookup.cache PARTIAL (";
      std::string parts;
      auto add = [&](const std::string& p) { parts += (parts.empty() ? "" : ", ") + p; };
      if (cache.max_rows) add("at most " + std::to_string(*cache.max_rows) + " rows");
      if (cache.expire_after_write_ms) {
        add("expire " + std::to_string(*cache.expire_after_write_ms) + " ms after write");
      }
      if (cache.expire_after_access_ms) {
        add("expire " + std::to_string(*cache.expire_after_access_ms) + " ms after access");
      }
      out += parts + ")";
      break;
    }
    case LookupCacheOptions::Mode::kFull:
      out = "; lookup.cache FULL (the whole table in memory, loaded again after each commit to it)";
      break;
  }
  if (cache.async_threads > 1) {
    out += "; a batch's keys looked up by " + std::to_string(cache.async_threads) + " threads";
  }
  if (cache.max_keys > 0 && cache.mode != LookupCacheOptions::Mode::kFull) {
    out += "; at most " + std::to_string(cache.max_keys) + " keys looked up at a time";
  }
  return out;
}

namespace {

int64_t NowMillis() { return SteadyClockMillis(); }

std::string KeyBytes(const Row& key) {
  std::string out;
  for (const Value& v : key) AppendKey(v, &out);
  return out;
}

// Flink's partial lookup cache: rows (and misses) by key, each expiring a time after it was
// loaded and/or last read, the least recently used evicted beyond `max_rows`.
class PartialCache {
 public:
  explicit PartialCache(const LookupCacheOptions& o) : o_(o) {}

  // The cached answer for `key` (its rows; none for a cached miss), or nullptr when it is not
  // cached (or expired: then dropped).
  const std::vector<Row>* Find(const std::string& key, int64_t now) {
    auto it = entries_.find(key);
    if (it == entries_.end()) return nullptr;
    Entry& e = it->second;
    if (Expired(e, now)) {
      order_.erase(e.at);
      entries_.erase(it);
      return nullptr;
    }
    e.accessed = now;
    order_.splice(order_.begin(), order_, e.at);
    return &e.row;
  }

  void Put(const std::string& key, std::vector<Row> row, int64_t now) {
    auto [it, inserted] = entries_.try_emplace(key);
    Entry& e = it->second;
    if (inserted) {
      order_.push_front(key);
      e.at = order_.begin();
    } else {
      order_.splice(order_.begin(), order_, e.at);
    }
    e.row = std::move(row);
    e.written = e.accessed = now;
    // Entries expired at the cold end go now, so keys never looked up again do not pile up.
    while (!order_.empty()) {
      auto cold = entries_.find(order_.back());
      if (cold == entries_.end() || !Expired(cold->second, now)) break;
      entries_.erase(cold);
      order_.pop_back();
    }
    if (o_.max_rows) {
      while (entries_.size() > static_cast<size_t>(*o_.max_rows)) {
        entries_.erase(order_.back());
        order_.pop_back();
      }
    }
  }

 private:
  struct Entry {
    std::vector<Row> row;
    int64_t written = 0, accessed = 0;
    std::list<std::string>::iterator at;
  };
  bool Expired(const Entry& e, int64_t now) const {
    return (o_.expire_after_write_ms && now - e.written >= *o_.expire_after_write_ms) ||
           (o_.expire_after_access_ms && now - e.accessed >= *o_.expire_after_access_ms);
  }
  LookupCacheOptions o_;
  std::unordered_map<std::string, Entry> entries_;
  std::list<std::string> order_;  // most recently used first
};

class LookupJoinOperator : public Operator {
 public:
  LookupJoinOperator(OperatorPtr child, std::unique_ptr<Table> table,
                     std::vector<BoundExprPtr> keys, std::vector<int> key_columns, bool prefix,
                     std::vector<BoundExprPtr> residual, bool left_outer, LookupCacheOptions cache,
                     std::string description)
      : child_(std::move(child)),
        table_(std::move(table)),
        keys_(std::move(keys)),
        key_columns_(std::move(key_columns)),
        prefix_(prefix),
        residual_(std::move(residual)),
        left_outer_(left_outer),
        cache_(cache),
        partial_(cache),
        description_(std::move(description)) {
    fields_ = child_->fields();
    for (Field f : table_->schema()->fields) {
      if (left_outer_) f.type = f.type.WithNullable(true);
      f.id = static_cast<int32_t>(fields_.size());
      fields_.push_back(std::move(f));
    }
  }
  std::string Describe() const override { return description_; }
  std::vector<const Operator*> children() const override { return {child_.get()}; }
  bool PassesPositions() const override { return true; }
  // Each input batch is joined whole into the batch returned for it: nothing is held back. The
  // input rows before the first undelivered output's were delivered (or matched nothing).
  Status Checkpoint(std::optional<size_t> delivered_of_last) override {
    if (!delivered_of_last || *delivered_of_last >= last_input_of_output_.size()) {
      return child_->Checkpoint(std::nullopt);
    }
    return child_->Checkpoint(last_input_of_output_[*delivered_of_last]);
  }

  // Column by column: the keys evaluated over the batch and each distinct key looked up once;
  // the input's columns copied to the rows they join (typed, never turned into rows), the
  // dimension's columns filled from the rows found, the ON conditions evaluated over the joined
  // candidates as a filter does.
  Result<bool> Next(ColumnBatch* out) override {
    while (true) {
      ColumnBatch in;
      TRIB_ASSIGN_OR_RETURN(bool more, child_->Next(&in));
      if (!more) return false;
      std::vector<ColumnVector> key_columns;
      for (const auto& k : keys_) {
        TRIB_ASSIGN_OR_RETURN(ColumnVector c, EvaluateBatch(*k, in));
        key_columns.push_back(std::move(c));
      }
      // Each row's distinct key (-1: a NULL in it, which matches nothing).
      std::vector<std::optional<Row>> distinct;
      std::vector<int32_t> key_of(in.num_rows, -1);
      std::unordered_map<std::string, int32_t> seen;
      for (size_t r = 0; r < in.num_rows; r++) {
        Row key;
        bool null_key = false;
        for (const ColumnVector& c : key_columns) {
          null_key = null_key || c.IsNull(r);
          key.push_back(c.Get(r));
        }
        if (null_key) continue;
        auto [it, added] = seen.try_emplace(KeyBytes(key), static_cast<int32_t>(distinct.size()));
        if (added) distinct.push_back(std::move(key));
        key_of[r] = it->second;
      }
      std::vector<std::vector<Row>> found;
      TRIB_RETURN_NOT_OK(Find(distinct, &found));
      // Candidates: each input row with each dimension row of its key, in input order.
      Pairs candidates;
      for (size_t r = 0; r < in.num_rows; r++) {
        if (key_of[r] < 0) continue;
        for (const Row& m : found[key_of[r]]) candidates.Add(static_cast<uint32_t>(r), &m);
      }
      ColumnBatch joined = Join(in, candidates);
      TRIB_ASSIGN_OR_RETURN(std::vector<uint32_t> pass, SelectRows(residual_, joined));
      Pairs output;
      if (!left_outer_) {
        for (uint32_t p : pass) output.Add(candidates.input[p], nullptr);
        joined = TakeRows(std::move(joined), pass);
      } else {
        // Each input row's passing candidates, or the row with NULLs when none passed.
        size_t p = 0;
        for (uint32_t r = 0; r < in.num_rows; r++) {
          bool matched = false;
          for (; p < pass.size() && candidates.input[pass[p]] == r; p++) {
            output.Add(r, candidates.match[pass[p]]);
            matched = true;
          }
          if (!matched) output.Add(r, nullptr);
        }
        joined = Join(in, output);
      }
      if (output.input.empty()) continue;
      last_input_of_output_ = std::move(output.input);
      *out = std::move(joined);
      return true;
    }
  }

 private:
  std::vector<uint32_t> last_input_of_output_;  // of the last batch returned

  // Joined rows: an input row and its dimension row (nullptr: NULLs, an outer join's).
  struct Pairs {
    std::vector<uint32_t> input;
    std::vector<const Row*> match;
    void Add(uint32_t r, const Row* m) {
      input.push_back(r);
      match.push_back(m);
    }
  };
  // The batch of `pairs`: the input's columns, then the dimension's.
  ColumnBatch Join(const ColumnBatch& in, const Pairs& pairs) const {
    const size_t width = table_->schema()->fields.size();
    ColumnBatch joined = CopyRows(in, pairs.input);
    for (size_t j = 0; j < width; j++) {
      ColumnVector c;
      c.type = fields_[fields_.size() - width + j].type;
      c.rep = ColumnVector::RepOf(c.type);
      c.Reserve(pairs.match.size());
      for (const Row* m : pairs.match) c.Append(m != nullptr ? (*m)[j] : Value::Null());
      joined.columns.push_back(std::move(c));
    }
    joined.num_rows = pairs.input.size();
    return joined;
  }

  // The dimension's rows of each key (nullopt keys find nothing), as the cache mode finds them.
  Status Find(const std::vector<std::optional<Row>>& keys, std::vector<std::vector<Row>>* found) {
    found->assign(keys.size(), {});
    if (cache_.mode == LookupCacheOptions::Mode::kFull) {
      TRIB_RETURN_NOT_OK(LoadFullIfChanged());
      for (size_t r = 0; r < keys.size(); r++) {
        if (!keys[r]) continue;
        auto it = full_.find(KeyBytes(*keys[r]));
        if (it != full_.end()) (*found)[r] = it->second;
      }
      return Status::OK();
    }
    // The dimension as of now: commits made since the last batch are seen by what is looked up.
    if (prefix_) {
      TRIB_ASSIGN_OR_RETURN(snapshot_, table_->LatestSnapshotId());
    } else {
      if (!lookup_) {
        TRIB_ASSIGN_OR_RETURN(lookup_, table_->NewLookup());
      }
      TRIB_RETURN_NOT_OK(lookup_->Refresh());
    }
    const bool partial = cache_.mode == LookupCacheOptions::Mode::kPartial;
    const int64_t now = partial ? NowMillis() : 0;
    std::vector<Row> wanted;
    std::vector<size_t> wanted_at;
    std::vector<std::string> wanted_bytes;
    for (size_t r = 0; r < keys.size(); r++) {
      if (!keys[r]) continue;
      if (partial) {
        std::string bytes = KeyBytes(*keys[r]);
        if (const std::vector<Row>* hit = partial_.Find(bytes, now)) {
          (*found)[r] = *hit;
          continue;
        }
        wanted_bytes.push_back(std::move(bytes));
      }
      wanted.push_back(*keys[r]);
      wanted_at.push_back(r);
    }
    if (wanted.empty()) return Status::OK();
    std::vector<std::vector<Row>> rows(wanted.size());
    if (prefix_) {
      // Each key a scan of its bucket; with 'lookup.async' up to async_threads scans at once, at
      // most max_keys keys at a time (the Table is shared by the scans, each scan by one thread).
      const size_t piece =
          cache_.max_keys > 0 ? static_cast<size_t>(cache_.max_keys) : wanted.size();
      for (size_t at = 0; at < wanted.size(); at += piece) {
        const size_t end = std::min(wanted.size(), at + piece);
        TRIB_RETURN_NOT_OK(ParallelFor(end - at, std::max(1, cache_.async_threads), [&](size_t w) {
          return ScanPrefix(wanted[at + w], &rows[at + w]);
        }));
      }
    } else {
      // At most max_keys keys at a time.
      const size_t piece =
          cache_.max_keys > 0 ? static_cast<size_t>(cache_.max_keys) : wanted.size();
      for (size_t at = 0; at < wanted.size(); at += piece) {
        const size_t end = std::min(wanted.size(), at + piece);
        std::vector<Row> some(wanted.begin() + at, wanted.begin() + end);
        TRIB_ASSIGN_OR_RETURN(std::vector<std::optional<Row>> one,
                              lookup_->GetAll(some, cache_.async_threads));
        for (size_t w = 0; w < one.size(); w++) {
          if (one[w]) rows[at + w].push_back(std::move(*one[w]));
        }
      }
    }
    for (size_t w = 0; w < wanted.size(); w++) {
      if (partial) partial_.Put(wanted_bytes[w], rows[w], now);
      (*found)[wanted_at[w]] = std::move(rows[w]);
    }
    return Status::OK();
  }

  // A prefix lookup: the rows of the latest snapshot (as of this batch) whose key columns hold
  // `key` (the bucket key fixes the bucket, so the scan reads one bucket of one partition).
  Status ScanPrefix(const Row& key, std::vector<Row>* out) {
    if (!snapshot_) return Status::OK();  // an empty table
    ScanOptions o;
    o.snapshot_id = snapshot_;
    for (size_t k = 0; k < key_columns_.size(); k++) {
      o.filters.push_back(Predicate{key_columns_[k], Predicate::Op::kEq, {key[k]}});
    }
    TRIB_ASSIGN_OR_RETURN(auto scan, table_->NewScan(o));
    RowBatch batch;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, scan->Next(&batch));
      if (!more) return Status::OK();
      for (Row& row : batch.rows) out->push_back(std::move(row));
    }
  }

  // FULL: the dimension's rows by key, read again whenever its latest snapshot changed.
  Status LoadFullIfChanged() {
    TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> latest, table_->LatestSnapshotId());
    if (loaded_ && latest == loaded_snapshot_) return Status::OK();
    std::unordered_map<std::string, std::vector<Row>> rows;
    if (latest) {
      ScanOptions o;
      o.snapshot_id = latest;
      TRIB_ASSIGN_OR_RETURN(auto scan, table_->NewScan(o));
      RowBatch batch;
      while (true) {
        TRIB_ASSIGN_OR_RETURN(bool more, scan->Next(&batch));
        if (!more) break;
        for (Row& row : batch.rows) {
          Row key;
          for (int i : key_columns_) key.push_back(row[i]);
          rows[KeyBytes(key)].push_back(std::move(row));
        }
      }
    }
    full_ = std::move(rows);
    loaded_ = true;
    loaded_snapshot_ = latest;
    return Status::OK();
  }

  OperatorPtr child_;
  std::unique_ptr<Table> table_;
  std::unique_ptr<TableLookup> lookup_;
  std::vector<BoundExprPtr> keys_;
  std::vector<int> key_columns_;
  bool prefix_;
  std::vector<BoundExprPtr> residual_;
  bool left_outer_;
  LookupCacheOptions cache_;
  PartialCache partial_;
  std::optional<int64_t> snapshot_;  // prefix lookups: the snapshot of this batch
  std::unordered_map<std::string, std::vector<Row>> full_;
  bool loaded_ = false;
  std::optional<int64_t> loaded_snapshot_;
  std::string description_;
};

}  // namespace

OperatorPtr MakeLookupJoin(OperatorPtr child, std::unique_ptr<Table> table,
                           std::vector<BoundExprPtr> keys, std::vector<int> key_columns,
                           bool prefix, std::vector<BoundExprPtr> residual, bool left_outer,
                           LookupCacheOptions cache, std::string description) {
  return std::make_unique<LookupJoinOperator>(std::move(child), std::move(table), std::move(keys),
                                              std::move(key_columns), prefix, std::move(residual),
                                              left_outer, cache, std::move(description));
}

}  // namespace tributary::sql
