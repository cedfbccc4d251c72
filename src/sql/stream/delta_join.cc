// The delta join (operators.h, MakeDeltaJoin): a streaming INNER equi-join of two primary-key
// tables that keeps no join state. Each side's changes, as its stream hands them out one
// snapshot at a time, are joined with the other side's rows as of the last snapshot of it this
// operator has processed, read from the table itself (a scan pinned to that snapshot, filtered on
// the join keys, so it reads only the buckets of the keys). That is the delta rule
// d(A join B) = dA join B_old + A_new join dB: the emitted changes, materialized, are always the
// join of the snapshots processed so far, with exact -U / +U / -D for updates and deletes on
// either side (Fluss's delta join handles insert-only sources; this handles any changelog).
//
// A side's own processed set must equal a snapshot for lookups into it to be exact, so the right
// side's `full` start-up snapshot (read in several batches) is drained first, each batch joined
// with the left side's start-up snapshot, and the left side's start-up rows are skipped (they are
// the state the right side's rows were joined with).
//
// Each side's looked-up rows may be cached by join key ('table.exec.delta-join.cache-enabled',
// '.left.cache-size' / '.right.cache-size': Flink's delta join cache, least recently used keys
// dropped first). A cached key holds its rows as of the side's processed snapshot: the side's
// own changes, which all pass through this operator, are applied to it (by primary key, so an
// upsert without its -U, or a row whose join key changed, moves it), and a side whose stream
// passed an OVERWRITE snapshot (whose removed rows no stream hands out) forgets its cache.
#include <algorithm>
#include <chrono>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "meta/snapshot.h"
#include "meta/snapshot_reader.h"
#include "sql/binder/cast.h"
#include "sql/exec/interrupt.h"
#include "sql/exec/operators.h"
#include "sql/stream/streaming_operators.h"
#include "tributary/stream_scan.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"

namespace tributary::sql {

namespace {

// The stream's metadata columns (StreamOptions::with_change_metadata) after the table's.
constexpr size_t kMetadataColumns = 3;

// One side's rows by join key (AppendKey of the side's own key columns), each key's rows by
// primary key. Capacity: keys kept after Trim (entries put in one batch stay until then, so the
// rows a batch joins with are not dropped under it).
class SideCache {
 public:
  using Rows = std::map<std::string, Row>;  // primary key -> row
  explicit SideCache(size_t capacity) : capacity_(capacity) {}

  bool Contains(const std::string& key) const { return by_key_.count(key) > 0; }
  // The key's rows, the key now the most recently used; nullptr when not cached.
  const Rows* Find(const std::string& key) {
    auto it = by_key_.find(key);
    if (it == by_key_.end()) return nullptr;
    lru_.splice(lru_.begin(), lru_, it->second);
    return &it->second->rows;
  }
  void Put(const std::string& key, Rows rows) {
    if (auto it = by_key_.find(key); it != by_key_.end()) Drop(it->second);
    for (const auto& [pk, row] : rows) key_of_pk_[pk] = key;
    lru_.push_front(Entry{key, std::move(rows)});
    by_key_[key] = lru_.begin();
  }
  // A change of this side's row with primary key `pk` and join key `key` (nullptr: NULL).
  void Change(RowKind kind, const std::string& pk, const std::string* key, const Row& row) {
    if (auto it = key_of_pk_.find(pk); it != key_of_pk_.end()) {
      if (auto e = by_key_.find(it->second); e != by_key_.end()) e->second->rows.erase(pk);
      key_of_pk_.erase(it);
    }
    if (!IsAdd(kind) || key == nullptr) return;
    if (auto e = by_key_.find(*key); e != by_key_.end()) {
      e->second->rows[pk] = row;
      key_of_pk_[pk] = *key;
    }
  }
  void Trim() {
    while (by_key_.size() > capacity_) Drop(std::prev(lru_.end()));
  }
  void Clear() {
    lru_.clear();
    by_key_.clear();
    key_of_pk_.clear();
  }

 private:
  struct Entry {
    std::string key;
    Rows rows;
  };
  void Drop(std::list<Entry>::iterator it) {
    for (const auto& [pk, row] : it->rows) key_of_pk_.erase(pk);
    by_key_.erase(it->key);
    lru_.erase(it);
  }
  size_t capacity_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> by_key_;
  std::unordered_map<std::string, std::string> key_of_pk_;
};

class DeltaJoinOperator : public Operator {
 public:
  DeltaJoinOperator(DeltaJoinSide left, DeltaJoinSide right, std::vector<BoundExprPtr> condition,
                    std::optional<std::chrono::milliseconds> idle_timeout, std::string description)
      : condition_(std::move(condition)),
        idle_timeout_(idle_timeout),
        description_(std::move(description)) {
    sides_[0] = std::move(left);
    sides_[1] = std::move(right);
    for (int s = 0; s < 2; s++) {
      if (sides_[s].cache_size > 0) cache_[s] = std::make_unique<SideCache>(sides_[s].cache_size);
      for (const auto& k : sides_[s].table->schema()->primary_keys) {
        pk_columns_[s].push_back(sides_[s].table->schema()->FieldIndex(k));
      }
    }
    fields_.push_back(Field{0, "op", DataType::String().NotNull(), ""});
    for (const auto& side : sides_) {
      for (Field f : side.table->schema()->fields) {
        f.id = static_cast<int32_t>(fields_.size());
        fields_.push_back(std::move(f));
      }
    }
    for (int s = 0; s < 2; s++) processed_[s] = sides_[s].stream->next_snapshot_id() - 1;
  }
  std::string Describe() const override { return description_; }
  // No join state: what it has emitted is the join of each side's snapshots up to its stream's
  // position, so those positions say exactly what was delivered once every batch was; a
  // restart from them (each side processed up to the snapshot before it) continues exactly.
  // A batch delivered in part moves nothing.
  bool PassesPositions() const override { return true; }
  Status Checkpoint(std::optional<size_t> delivered_of_last) override {
    if (delivered_of_last) return Status::OK();
    for (auto& side : sides_) TRIB_RETURN_NOT_OK(side.stream->Checkpoint());
    return Status::OK();
  }

  Result<bool> Next(ColumnBatch* out) override {
    const auto poll = std::chrono::milliseconds(50);
    auto deadline = Deadline();
    std::vector<Row> rows;
    while (rows.empty()) {
      if (Interrupted()) return false;
      bool any = false;
      if (!right_drained_) {
        // The right side's start-up rows, every batch of them, before anything else.
        RowBatch batch;
        TRIB_ASSIGN_OR_RETURN(bool more,
                              sides_[1].stream->Next(&batch, std::chrono::milliseconds(0)));
        if (!more) TRIB_RETURN_NOT_OK(Processed(1));
        if (!more || !IsStartup(batch)) right_drained_ = true;
        if (more) {
          TRIB_RETURN_NOT_OK(Apply(1, &batch, &rows));
          any = true;
        }
        continue;
      }
      for (int s = 0; s < 2; s++) {
        RowBatch batch;
        TRIB_ASSIGN_OR_RETURN(bool more,
                              sides_[s].stream->Next(&batch, std::chrono::milliseconds(0)));
        if (!more) {
          // Snapshots the stream passed without a change (compactions, upserts of equal rows)
          // change nothing this side joins with: it is processed up to them, so lookups into it
          // do not stay pinned to a snapshot that expiration may remove.
          TRIB_RETURN_NOT_OK(Processed(s));
          continue;
        }
        any = true;
        // The left side's start-up rows are the state the right side was joined with.
        if (s == 0 && IsStartup(batch)) continue;
        TRIB_RETURN_NOT_OK(Apply(s, &batch, &rows));
      }
      if (any) {
        deadline = Deadline();
        continue;
      }
      if (Polling()) {
        SetPollFoundNothing();
        return false;
      }
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) return false;
      // Nothing came: what was handed out before is delivered (a streaming job commits here).
      TRIB_RETURN_NOT_OK(RunStreamIdleHook());
      std::this_thread::sleep_for(
          std::min<std::chrono::steady_clock::duration>(poll, deadline - now));
    }
    *out = RowsToBatch(fields_, rows.begin(), rows.end());
    return true;
  }

 private:
  std::chrono::steady_clock::time_point Deadline() const {
    return idle_timeout_ ? std::chrono::steady_clock::now() + *idle_timeout_
                         : std::chrono::steady_clock::time_point::max();
  }

  // A batch of a `full` start-up snapshot (its rows have no log offset).
  static bool IsStartup(const RowBatch& batch) {
    if (batch.rows.empty()) return false;
    const Row& r = batch.rows[0];
    return r.size() >= kMetadataColumns && r[r.size() - kMetadataColumns].is_null();
  }

  // The changes of side `s` in `batch` joined with the other side as processed so far; then
  // side `s` is processed up to the snapshot the batch came from.
  Status Apply(int s, RowBatch* batch, std::vector<Row>* out) {
    const int o = 1 - s;
    const DeltaJoinSide& me = sides_[s];
    const DeltaJoinSide& other = sides_[o];
    const size_t width = me.table->schema()->fields.size();
    for (Row& r : batch->rows) r.resize(width);  // the metadata columns go
    // Each change's key as the other side's values (empty: a NULL or unconvertible key column,
    // which joins nothing).
    std::vector<std::string> change_keys(batch->rows.size());
    std::vector<bool> null_key(batch->rows.size(), false);
    // The other side's rows of the keys not cached (all of them without a cache), read as of its
    // processed snapshot: each key column IN its values, the exact key matched below.
    SideCache batch_only(SIZE_MAX);
    SideCache* rows_of = cache_[o] ? cache_[o].get() : &batch_only;
    std::vector<std::vector<Value>> wanted(other.key_columns.size());
    std::vector<std::string> missing;
    std::unordered_map<std::string, bool> listed;
    for (size_t i = 0; i < batch->rows.size(); i++) {
      std::vector<Value> key;
      for (size_t k = 0; k < me.key_columns.size() && !null_key[i]; k++) {
        const Value& v = batch->rows[i][me.key_columns[k]];
        auto cast = CastValue(v, me.table->schema()->fields[me.key_columns[k]].type,
                              other.table->schema()->fields[other.key_columns[k]].type,
                              CastMode::kExplicit);
        if (!cast.ok() || cast->is_null()) {
          null_key[i] = true;
        } else {
          key.push_back(std::move(*cast));
        }
      }
      if (null_key[i]) continue;
      for (const Value& v : key) AppendKey(v, &change_keys[i]);
      if (rows_of->Contains(change_keys[i]) || !listed.emplace(change_keys[i], true).second) {
        continue;
      }
      missing.push_back(change_keys[i]);
      for (size_t k = 0; k < key.size(); k++) wanted[k].push_back(std::move(key[k]));
    }
    std::unordered_map<std::string, SideCache::Rows> found;
    // One scan for the whole batch (a scan sorts an IN list once and checks rows by binary
    // search), or one per `lookup_batch` keys.
    const size_t piece = other.lookup_batch > 0 ? static_cast<size_t>(other.lookup_batch)
                                                : std::max<size_t>(missing.size(), 1);
    for (size_t at = 0; processed_[o] >= 1 && at < missing.size(); at += piece) {
      const size_t end = std::min(missing.size(), at + piece);
      ScanOptions opts;
      opts.snapshot_id = processed_[o];
      for (size_t k = 0; k < other.key_columns.size(); k++) {
        std::vector<Value> values(wanted[k].begin() + at, wanted[k].begin() + end);
        opts.filters.push_back(
            Predicate{other.key_columns[k], Predicate::Op::kIn, std::move(values)});
      }
      TRIB_ASSIGN_OR_RETURN(std::unique_ptr<TableScan> scan, other.table->NewScan(opts));
      RowBatch rows;
      while (true) {
        TRIB_ASSIGN_OR_RETURN(bool more, scan->Next(&rows));
        if (!more) break;
        for (Row& r : rows.rows) {
          std::string key = KeyOf(o, r);
          std::string pk = PrimaryKeyOf(o, r);
          found[key].emplace(std::move(pk), std::move(r));
        }
      }
    }
    for (const std::string& key : missing) {
      auto it = found.find(key);
      rows_of->Put(key, it == found.end() ? SideCache::Rows() : std::move(it->second));
    }
    for (size_t i = 0; i < batch->rows.size(); i++) {
      if (null_key[i]) continue;
      const SideCache::Rows* matches = rows_of->Find(change_keys[i]);
      if (matches == nullptr) continue;
      for (const auto& [pk, match] : *matches) {
        const Row& left = s == 0 ? batch->rows[i] : match;
        const Row& right = s == 0 ? match : batch->rows[i];
        Row joined;
        joined.reserve(left.size() + right.size());
        joined.insert(joined.end(), left.begin(), left.end());
        joined.insert(joined.end(), right.begin(), right.end());
        bool keep = true;
        for (const auto& c : condition_) {
          TRIB_ASSIGN_OR_RETURN(keep, EvaluatePredicate(*c, joined));
          if (!keep) break;
        }
        if (!keep) continue;
        Row row;
        row.reserve(joined.size() + 1);
        row.push_back(Value::String(std::string(RowKindShortString(batch->kinds[i]))));
        for (Value& v : joined) row.push_back(std::move(v));
        out->push_back(std::move(row));
      }
    }
    rows_of->Trim();
    // This side's cached keys follow its changes.
    if (cache_[s]) {
      for (size_t i = 0; i < batch->rows.size(); i++) {
        const Row& r = batch->rows[i];
        bool null = false;
        for (int c : me.key_columns) null = null || r[c].is_null();
        const std::string key = null ? std::string() : KeyOf(s, r);
        cache_[s]->Change(batch->kinds[i], PrimaryKeyOf(s, r), null ? nullptr : &key, r);
      }
    }
    return Processed(s);
  }

  // Side `s` is processed up to the snapshot before its stream's next one. Its cache forgets
  // everything when one of the snapshots passed is an OVERWRITE (or can no longer be read).
  Status Processed(int s) {
    const int64_t to = sides_[s].stream->next_snapshot_id() - 1;
    if (cache_[s]) {
      for (int64_t id = processed_[s] + 1; id <= to; id++) {
        auto snap = meta::ReadSnapshotCached(sides_[s].table->path(), id);
        if (!snap.ok() || (*snap)->commit_kind == meta::CommitKind::kOverwrite) {
          cache_[s]->Clear();
          break;
        }
      }
    }
    processed_[s] = to;
    return Status::OK();
  }

  std::string KeyOf(int s, const Row& r) const {
    std::string key;
    for (int c : sides_[s].key_columns) AppendKey(r[c], &key);
    return key;
  }
  std::string PrimaryKeyOf(int s, const Row& r) const {
    std::string key;
    for (int c : pk_columns_[s]) AppendKey(r[c], &key);
    return key;
  }

  DeltaJoinSide sides_[2];
  std::unique_ptr<SideCache> cache_[2];  // null: no cache of that side's rows
  std::vector<int> pk_columns_[2];
  int64_t processed_[2] = {0, 0};  // the last snapshot of each side processed
  bool right_drained_ = false;     // the right side's start-up snapshot is processed
  std::vector<BoundExprPtr> condition_;
  std::optional<std::chrono::milliseconds> idle_timeout_;
  std::string description_;
};

}  // namespace

OperatorPtr MakeDeltaJoin(DeltaJoinSide left, DeltaJoinSide right,
                          std::vector<BoundExprPtr> condition,
                          std::optional<std::chrono::milliseconds> idle_timeout,
                          std::string description) {
  return std::make_unique<DeltaJoinOperator>(std::move(left), std::move(right),
                                             std::move(condition), idle_timeout,
                                             std::move(description));
}

}  // namespace tributary::sql
