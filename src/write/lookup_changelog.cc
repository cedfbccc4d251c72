#include "write/lookup_changelog.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "compact/full_changelog.h"
#include "datafile/point_lookup.h"
#include "format/binary_row.h"
#include "format/parquet/writer.h"
#include "io/file_system.h"
#include "merge/merge_function.h"
#include "meta/schema_manager.h"
#include "meta/snapshot_reader.h"
#include "write/column_buffer.h"

namespace tributary::write {

using datafile::DataFileWriter;
using merge::KeyValue;

namespace {

// The merged record of `found` (a key's records in the committed files) in merge order, or
// nullopt when the key is absent or deleted.
Result<std::optional<KeyValue>> MergeCommitted(std::vector<KeyValue> found,
                                               const merge::SequenceOrder& order,
                                               merge::MergeFunction* fn) {
  if (found.empty()) return std::optional<KeyValue>();
  std::stable_sort(found.begin(), found.end(),
                   [&](const auto& a, const auto& b) { return order.Compare(a, b) < 0; });
  fn->Reset();
  int64_t max_seq = INT64_MIN;
  for (auto& kv : found) {
    max_seq = std::max(max_seq, kv.sequence);
    TRIB_RETURN_NOT_OK(fn->AddOwned(std::move(kv)));
  }
  TRIB_RETURN_NOT_OK(fn->Complete());
  auto r = fn->TakeResult();
  if (!r || IsRetract(r->kind)) return std::optional<KeyValue>();
  r->sequence = max_seq;
  r->level = 1;  // from the committed files: older than anything this commit wrote
  r->write_mask = nullptr;
  return r;
}

}  // namespace

struct LookupValueCache::Maps {
  absl::flat_hash_map<int64_t, Entry> ints;
  absl::flat_hash_map<std::string, Entry> bytes;
};

struct LookupValueCache::ColumnFace {
  static constexpr uint32_t kAbsent = UINT32_MAX;
  // One per table column; rows of replaced values stay until Repack.
  std::vector<ColumnVector> columns;
  absl::flat_hash_map<int64_t, uint32_t> row_of;  // key -> row of `columns`, or kAbsent
  size_t live = 0;                                // entries of row_of that are not kAbsent
  // Every key the committed files hold is in row_of: the face started with the bucket empty and
  // has followed every commit since (a key it does not know is absent, not searched for).
  bool complete = false;
  size_t rows() const { return columns.empty() ? 0 : columns[0].size(); }
  void Clear() {
    columns.clear();
    row_of.clear();
    live = 0;
    complete = false;
  }
  // Bytes the face takes (what the budget bounds).
  int64_t Bytes() const {
    int64_t b = static_cast<int64_t>(row_of.size()) * 16;
    for (const ColumnVector& c : columns) {
      b += static_cast<int64_t>(c.ints.size() * 8 + c.doubles.size() * 8 + c.strings.bytes() +
                                c.strings.size() * 8 + c.values.size() * 48 + c.nulls.size());
    }
    return b;
  }
  // Drops the rows no key uses once they outnumber the used ones, in place: the vectors keep
  // their storage for the next commits' rows (a fresh copy costs its page faults again).
  void Repack() {
    if (rows() < 2 * live + 4096) return;
    std::vector<uint32_t> moved_to(rows(), kAbsent);
    for (const auto& [key, row] : row_of) {
      if (row != kAbsent) moved_to[row] = 0;
    }
    std::vector<uint32_t> keep;
    keep.reserve(live);
    for (uint32_t r = 0; r < moved_to.size(); r++) {
      if (moved_to[r] == kAbsent) continue;
      moved_to[r] = static_cast<uint32_t>(keep.size());
      keep.push_back(r);
    }
    for (auto& [key, row] : row_of) {
      if (row != kAbsent) row = moved_to[row];
    }
    for (ColumnVector& c : columns) c.KeepRows(keep);
  }
};

namespace {
int64_t EntryBytes(const LookupValueCache::Key& key, const LookupValueCache::Entry& e) {
  return static_cast<int64_t>(key.bytes.size() + (e.row ? e.row->size() + 32 : 0)) + 48;
}
}  // namespace

LookupValueCache::LookupValueCache(std::atomic<int64_t>* used, int64_t budget)
    : maps_(std::make_unique<Maps>()), used_(used), budget_(budget) {}

LookupValueCache::~LookupValueCache() { Clear(); }

void LookupValueCache::UsePacked() {
  if (face_ && !face_->row_of.empty()) Clear();
}

LookupValueCache::ColumnFace& LookupValueCache::UseColumns() {
  if (!maps_->ints.empty() || !maps_->bytes.empty()) Clear();
  if (!face_) face_ = std::make_unique<ColumnFace>();
  return *face_;
}

bool LookupValueCache::ResizeColumns(int64_t bytes) {
  const int64_t others = used_->load(std::memory_order_relaxed) - (bytes_ - unsettled_);
  if (others + bytes > budget_) {
    Clear();
    return false;
  }
  used_->fetch_add(bytes - (bytes_ - unsettled_), std::memory_order_relaxed);
  bytes_ = bytes;
  unsettled_ = 0;
  return true;
}

const LookupValueCache::Entry* LookupValueCache::Find(const Key& key) const {
  if (key.is_int) {
    auto it = maps_->ints.find(key.int_key);
    return it == maps_->ints.end() ? nullptr : &it->second;
  }
  auto it = maps_->bytes.find(key.bytes);
  return it == maps_->bytes.end() ? nullptr : &it->second;
}

void LookupValueCache::Put(const Key& key, Entry e) {
  const int64_t size = EntryBytes(key, e);
  if (used_->load(std::memory_order_relaxed) + unsettled_ + size > budget_) {
    Clear();  // over the budget: this bucket starts again
    if (size > budget_) return;
  }
  Entry* slot;
  bool inserted;
  if (key.is_int) {
    auto [it, ins] = maps_->ints.try_emplace(key.int_key);
    slot = &it->second;
    inserted = ins;
  } else {
    auto [it, ins] = maps_->bytes.try_emplace(key.bytes);
    slot = &it->second;
    inserted = ins;
  }
  const int64_t old = inserted ? 0 : EntryBytes(key, *slot);
  *slot = std::move(e);
  bytes_ += size - old;
  unsettled_ += size - old;
}

void LookupValueCache::Settle() {
  used_->fetch_add(unsettled_, std::memory_order_relaxed);
  unsettled_ = 0;
}

void LookupValueCache::Clear() {
  used_->fetch_sub(bytes_ - unsettled_, std::memory_order_relaxed);
  bytes_ = unsettled_ = 0;
  maps_->ints.clear();
  maps_->bytes.clear();
  if (face_) face_->Clear();
}

namespace {

// The changelog of a deduplicate table with one integer key column and flat columns, column by
// column: the commit's files are merged on their key, sequence and kind columns; each key's
// before-image is a row of the cache's columnar face (looked up in the committed files when the
// face does not know the key); the commit's values are appended to the face, and the changes
// are written as rows of it. Nothing is turned into rows but the before-images found in files.
// nullopt, writing nothing, when the table or its files need the row path.
Result<std::optional<std::vector<meta::DataFileMeta>>> WriteDeduplicateChangelog(
    const LookupChangelogInput& in, meta::FileNamer* namer) {
  using Out = std::optional<std::vector<meta::DataFileMeta>>;
  using Face = LookupValueCache::ColumnFace;
  const datafile::FileLayout& layout = *in.layout;
  if (in.merge_config->engine != "deduplicate" || in.row_deduplicate ||
      layout.key_columns.size() != 1 || !layout.fields[layout.key_columns[0]].type.IsInteger()) {
    return Out();
  }
  for (const Field& f : layout.fields) {
    if (f.type.IsNested()) return Out();
  }
  const int key_column = layout.key_columns[0];
  DataFileWriter writer(layout, in.bucket_dir, namer, in.target_file_size, 0,
                        meta::FileSource::kAppend, *in.format);
  if (!writer.CanWriteColumns()) return Out();
  TRIB_ASSIGN_OR_RETURN(auto plan, merge::ColumnMergePlan::Make(*in.merge_config, layout.fields,
                                                                /*keep_retracts=*/true));
  if (!plan || plan->kind() != merge::ColumnMergePlan::Kind::kDeduplicate) return Out();
  std::vector<const meta::DataFileMeta*> files;
  for (const auto& f : *in.new_files) {
    if (f.level != 0 || f.write_cols) return Out();
    files.push_back(&f);
  }
  if (files.empty()) return Out(std::vector<meta::DataFileMeta>());
  std::stable_sort(files.begin(), files.end(), [](const auto* a, const auto* b) {
    return a->max_sequence_number < b->max_sequence_number;
  });
  std::vector<datafile::DataFileRef> paths;
  for (const auto* f : files) {
    paths.emplace_back(datafile::WrittenFilePath(in.bucket_dir, *f), f->row_count);
  }
  std::optional<datafile::MergedColumns> read;
  const std::vector<ColumnVector>* commit_columns = in.flushed_columns;
  const merge::ColumnMergeOutput* commit_merge = in.flushed_merge;
  if (commit_columns == nullptr || commit_merge == nullptr) {
    TRIB_ASSIGN_OR_RETURN(read, datafile::MergeFilesByColumns(paths, layout, &*plan));
    if (!read) return Out();
    commit_columns = &read->columns;
    commit_merge = &read->merged;
  }
  if ((*commit_columns)[key_column].rep != ColumnVector::Rep::kInt) return Out();
  const merge::ColumnMergeOutput& merged = *commit_merge;
  const std::vector<int64_t>& keys = (*commit_columns)[key_column].ints;

  Face local;
  Face& face = in.cache ? in.cache->UseColumns() : local;
  // On failure the face forgets everything (it may hold values this commit did not publish).
  auto forget = [&] { in.cache ? in.cache->Clear() : face.Clear(); };
  bool same_columns = face.columns.size() == (*commit_columns).size();
  for (size_t c = 0; same_columns && c < face.columns.size(); c++) {
    same_columns = face.columns[c].rep == (*commit_columns)[c].rep &&
                   face.columns[c].type == (*commit_columns)[c].type;
  }
  if (!same_columns) {
    face.Clear();
    for (const ColumnVector& c : (*commit_columns)) {
      face.columns.emplace_back();
      face.columns.back().type = c.type;
      face.columns.back().rep = c.rep;
    }
  }
  // A face that starts on an empty bucket knows every key from then on.
  if (face.row_of.empty() && in.committed->empty()) face.complete = true;
  // Before-images the face does not know, from the committed files (keys ascending, once).
  // Each key's entry in row_of, found once: with room reserved for every key of the commit, no
  // insertion moves the entries.
  face.row_of.reserve(face.row_of.size() + merged.size());
  std::vector<uint32_t*> slots(merged.size());
  std::vector<Row> search;
  std::vector<uint32_t*> search_slots;
  for (size_t k = 0; k < merged.size(); k++) {
    const int64_t key = keys[merged.rows[k]];
    auto [it, inserted] = face.row_of.try_emplace(key, Face::kAbsent);
    slots[k] = &it->second;
    if (inserted && !face.complete) {
      search.push_back(Row{Value::Int(key)});
      search_slots.push_back(&it->second);
    }
  }
  if (!search.empty()) {
    datafile::BucketFileSearch committed(in.table_path, in.bucket_dir, layout, *in.schema,
                                         *in.committed);
    if (in.deletion_vectors) committed.SetDeletionVectors(in.deletion_vectors);
    std::vector<std::vector<KeyValue>> found;
    Status st = committed.FindAllSorted(search, &found);
    if (!st.ok()) {
      forget();
      return st;
    }
    // (The searched keys' entries say "absent" until found: any failure forgets the face.)
    auto fn = merge::MakeMergeFunction(in.merge_config, *in.schema);
    if (!fn.ok()) {
      forget();
      return fn.status();
    }
    merge::SequenceOrder order(in.merge_config);
    for (size_t s = 0; s < search.size(); s++) {
      auto before = MergeCommitted(std::move(found[s]), order, fn->get());
      if (!before.ok()) {
        forget();
        return before.status();
      }
      uint32_t row = Face::kAbsent;
      if (*before) {
        row = static_cast<uint32_t>(face.rows());
        for (size_t c = 0; c < face.columns.size(); c++)
          face.columns[c].Append((**before).value[c]);
        ++face.live;
      }
      *search_slots[s] = row;
    }
  }
  // The commit's values join the face (they are the keys' values from now on) in key order, the
  // order the changes are written in (so the writer reads the face's new rows front to back).
  std::vector<uint32_t> added;
  for (size_t k = 0; k < merged.size(); k++) {
    if (IsAdd(static_cast<RowKind>(merged.kinds[k]))) added.push_back(merged.rows[k]);
  }
  uint32_t next = static_cast<uint32_t>(face.rows());
  for (size_t c = 0; c < face.columns.size(); c++)
    face.columns[c].AppendRows((*commit_columns)[c], added);
  std::vector<uint32_t> rows;
  std::vector<int64_t> sequences, kinds;
  for (size_t k = 0; k < merged.size(); k++) {
    uint32_t& slot = *slots[k];
    const uint32_t before = slot;
    auto emit = [&](RowKind kind, uint32_t row) {
      rows.push_back(row);
      sequences.push_back(merged.sequences[k]);
      kinds.push_back(static_cast<int64_t>(kind));
    };
    if (IsAdd(static_cast<RowKind>(merged.kinds[k]))) {
      const uint32_t after = next++;
      if (before == Face::kAbsent) {
        emit(RowKind::kInsert, after);
      } else {
        emit(RowKind::kUpdateBefore, before);
        emit(RowKind::kUpdateAfter, after);
      }
      slot = after;
      face.live += before == Face::kAbsent;
    } else {
      if (before != Face::kAbsent) emit(RowKind::kDelete, before);
      face.live -= before != Face::kAbsent;
      slot = Face::kAbsent;
    }
  }
  Status st;
  if (!rows.empty()) {
    std::vector<format::ColumnValues> columns;
    for (const ColumnVector& c : face.columns) columns.push_back(datafile::ColumnValuesOf(c));
    st = writer.WriteColumns(columns, rows.data(), sequences.data(), kinds.data(), rows.size());
  }
  auto written = st.ok() ? writer.Finish() : Result<std::vector<meta::DataFileMeta>>(st);
  if (!written.ok()) {
    writer.Abort();
    forget();
    return written.status();
  }
  face.Repack();
  if (in.cache) in.cache->ResizeColumns(face.Bytes());
  return Out(std::move(*written));
}

}  // namespace

Result<std::vector<meta::DataFileMeta>> WriteLookupChangelog(const LookupChangelogInput& in,
                                                             meta::FileNamer* namer) {
  TRIB_ASSIGN_OR_RETURN(auto by_columns, WriteDeduplicateChangelog(in, namer));
  if (by_columns) return std::move(*by_columns);
  if (in.cache) in.cache->UsePacked();
  const datafile::FileLayout& layout = *in.layout;
  // This commit's records of the bucket, in key order, then merge order.
  std::vector<KeyValue> records;
  for (const auto& f : *in.new_files) {
    TRIB_ASSIGN_OR_RETURN(auto part, datafile::ReadDataFile(
                                         {datafile::WrittenFilePath(in.bucket_dir, f), f.row_count},
                                         layout, f.level, f.write_cols));
    for (auto& kv : part) records.push_back(std::move(kv));
  }
  if (records.empty()) return std::vector<meta::DataFileMeta>();
  merge::KeyComparator key_order(layout.key_columns);
  merge::SequenceOrder order(in.merge_config);
  merge::SortWriteBuffer(&records, key_order, order);
  TRIB_ASSIGN_OR_RETURN(auto fn, merge::MakeMergeFunction(in.merge_config, *in.schema));
  const bool first_row = in.merge_config->engine == "first-row";
  std::vector<bool> ignored(layout.fields.size(), false);
  for (size_t i = 0; i < layout.fields.size(); i++) {
    ignored[i] = in.ignore_fields.count(layout.fields[i].name) > 0;
  }
  // The committed files: each key's records found by key range, then binary search.
  datafile::BucketFileSearch committed(in.table_path, in.bucket_dir, layout, *in.schema,
                                       *in.committed);
  if (in.deletion_vectors) committed.SetDeletionVectors(in.deletion_vectors);
  DataFileWriter writer(layout, in.bucket_dir, namer, in.target_file_size, 0,
                        meta::FileSource::kAppend, *in.format);
  // The changes come in key order: gathered column by column and written at the end when the
  // format takes columns (Parquet, flat columns), else written record by record.
  std::optional<ColumnWriteBuffer> changes;
  std::vector<int64_t> change_seqs, change_kinds;
  if (writer.CanWriteColumns() && ColumnWriteBuffer::Supports(layout.fields)) {
    changes.emplace(layout.fields);
  }
  auto emit = [&](RowKind kind, const Row& row, int64_t sequence) -> Status {
    if (changes) {
      changes->Add(kind, row);
      change_seqs.push_back(sequence);
      change_kinds.push_back(static_cast<int64_t>(kind));
      return Status::OK();
    }
    KeyValue kv;
    kv.kind = kind;
    kv.value = row;
    kv.sequence = sequence;
    return writer.Write(kv);
  };
  // The keys this commit wrote (each once, ascending) and where their records start.
  std::vector<Row> keys;
  std::vector<size_t> starts;
  for (size_t i = 0; i < records.size();) {
    size_t j = i + 1;
    while (j < records.size() && key_order.Compare(records[i].value, records[j].value) == 0) j++;
    Row key;
    for (int c : layout.key_columns) key.push_back(records[i].value[c]);
    keys.push_back(std::move(key));
    starts.push_back(i);
    i = j;
  }
  starts.push_back(records.size());
  // Before: each key's value as this writer's cache holds it, else from its records in the
  // committed files.
  const std::vector<DataType> types = layout.FieldTypes();
  const std::vector<DataType> key_types = layout.KeyTypes();
  LookupValueCache* cache = in.cache && std::none_of(types.begin(), types.end(),
                                                     [](const DataType& t) { return t.IsNested(); })
                                ? in.cache
                                : nullptr;
  std::vector<LookupValueCache::Key> cache_keys(cache ? keys.size() : 0);
  const bool int_key = key_types.size() == 1 && key_types[0].IsInteger();
  std::vector<std::optional<KeyValue>> befores(keys.size());
  std::vector<Row> search;
  std::vector<size_t> search_of;
  for (size_t g = 0; g < keys.size(); g++) {
    if (cache) {
      LookupValueCache::Key& ck = cache_keys[g];
      ck.is_int = int_key && keys[g][0].is_int();
      if (ck.is_int) {
        ck.int_key = keys[g][0].int_value();
      } else {
        ck.bytes = format::EncodeBinaryRow(key_types, keys[g]);
      }
      if (const LookupValueCache::Entry* e = cache->Find(cache_keys[g])) {
        if (e->row) {
          KeyValue kv;
          kv.sequence = e->sequence;
          kv.level = 1;  // older than anything this commit wrote
          TRIB_ASSIGN_OR_RETURN(kv.value, format::DecodeBinaryRow(*e->row, types));
          befores[g] = std::move(kv);
        }
        continue;
      }
    }
    search.push_back(keys[g]);
    search_of.push_back(g);
  }
  {
    std::vector<std::vector<KeyValue>> found;
    TRIB_RETURN_NOT_OK(committed.FindAllSorted(search, &found));
    for (size_t s = 0; s < search.size(); s++) {
      TRIB_ASSIGN_OR_RETURN(befores[search_of[s]],
                            MergeCommitted(std::move(found[s]), order, fn.get()));
    }
  }
  // What the key holds once this commit is in.
  auto remember = [&](size_t g, const Row* row, int64_t sequence) {
    if (!cache) return;
    LookupValueCache::Entry e;
    e.sequence = sequence;
    if (row) e.row = format::EncodeBinaryRow(types, *row);
    cache->Put(cache_keys[g], std::move(e));
  };
  Status st;
  for (size_t g = 0; st.ok() && g < keys.size(); g++) {
    const size_t i = starts[g], j = starts[g + 1];
    const std::optional<KeyValue>* before = &befores[g];
    int64_t seq = INT64_MIN;
    for (size_t k = i; k < j; k++) seq = std::max(seq, records[k].sequence);
    if (first_row) {
      // First-row keeps the first row ever written: only a key seen for the first time changes.
      if (!*before) {
        fn->Reset();
        for (size_t k = i; k < j && st.ok(); k++) st = fn->Add(records[k]);
        if (st.ok()) st = fn->Complete();
        if (!st.ok()) break;
        auto after = fn->TakeResult();
        const bool has = after && IsAdd(after->kind);
        if (has) st = emit(RowKind::kInsert, after->value, seq);
        remember(g, has ? &after->value : nullptr, seq);
      }
      continue;
    }
    // After: the before value merged with this commit's records, in merge order.
    std::vector<const KeyValue*> group;
    if (*before) group.push_back(&**before);
    for (size_t k = i; k < j; k++) group.push_back(&records[k]);
    std::stable_sort(group.begin(), group.end(), [&](const KeyValue* a, const KeyValue* b) {
      return order.Compare(*a, *b) < 0;
    });
    fn->Reset();
    for (const KeyValue* kv : group) {
      st = fn->Add(*kv);
      if (!st.ok()) break;
    }
    if (st.ok()) st = fn->Complete();
    if (!st.ok()) break;
    auto after = fn->TakeResult();
    const bool had = before->has_value();
    const bool has = after && IsAdd(after->kind);
    remember(g, has ? &after->value : nullptr, seq);
    if (!had && has) {
      st = emit(RowKind::kInsert, after->value, seq);
    } else if (had && !has) {
      st = emit(RowKind::kDelete, (*before)->value, seq);
    } else if (had && has) {
      if (!(in.row_deduplicate &&
            compact::SameRowIgnoring((*before)->value, after->value, ignored))) {
        st = emit(RowKind::kUpdateBefore, (*before)->value, seq);
        if (st.ok()) st = emit(RowKind::kUpdateAfter, after->value, seq);
      }
    }
  }
  if (cache) cache->Settle();
  if (st.ok() && changes && !changes->empty()) {
    std::vector<uint32_t> rows(changes->size());
    for (size_t k = 0; k < rows.size(); k++) rows[k] = static_cast<uint32_t>(k);
    st = writer.WriteColumns(changes->Columns(), rows.data(), change_seqs.data(),
                             change_kinds.data(), rows.size());
  }
  if (!st.ok()) {
    writer.Abort();
    return st;
  }
  return writer.Finish();
}

}  // namespace tributary::write
