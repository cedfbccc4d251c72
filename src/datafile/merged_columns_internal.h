// The pieces of datafile/merged_columns.cc that datafile/merge_chunks.cc shares: a bucket's
// Parquet files merged column by column (their key, sequence and kind columns), the key groups
// of their records in merge order, and the loading of the files for a merge by chunks of keys.
// Internal to src/datafile. Thread-safety: single-threaded (one merge's state).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/predicate.h"
#include "datafile/data_file.h"
#include "datafile/parquet_file.h"
#include "merge/column_merge.h"
#include "merge/deduplicate.h"
#include "tributary/column_batch.h"
#include "tributary/result.h"

namespace tributary::datafile {

using merge::ColumnMergeOutput;
using merge::ColumnMergePlan;

// Integers of one file column over the row groups read: the decoded chunk itself (from the
// process-wide cache for reads) when one row group was read, else their concatenation.
struct IntColumn {
  std::vector<std::shared_ptr<const ColumnVector>> held;
  std::vector<int64_t> owned;
  const int64_t* data = nullptr;
  size_t n = 0;
  int64_t operator[](size_t i) const { return data[i]; }
  size_t size() const { return n; }
  // False when a chunk is not integers without NULLs.
  bool Set(std::vector<std::shared_ptr<const ColumnVector>> chunks) {
    for (const auto& c : chunks) {
      if (c->rep != ColumnVector::Rep::kInt || !c->nulls.empty()) return false;
    }
    held = std::move(chunks);
    if (held.size() == 1) {
      data = held[0]->ints.data();
      n = held[0]->ints.size();
      return true;
    }
    for (const auto& c : held) owned.insert(owned.end(), c->ints.begin(), c->ints.end());
    held.clear();
    data = owned.data();
    n = owned.size();
    return true;
  }
};

// One Parquet file of a bucket merged column by column: its key, sequence and kind columns over
// the row groups read.
struct DedupFile {
  std::string path;
  ParquetReaderPtr reader;
  std::vector<int> groups;
  std::vector<int64_t> group_rows;        // rows of each of `groups`
  IntColumn keys;                         // a key of one integer column: its values
  std::vector<ColumnVector> key_columns;  // any other key: its columns
  IntColumn seqs, kinds;
  size_t size() const { return seqs.size(); }
};

// The records of one key across files (ForEachKeyGroup's members: file, position), in merge
// order, as ColumnMergePlan::Merge reads them; `base[f]` numbers file f's first record among all.
struct KeyGroup {
  const std::vector<DedupFile>* files;
  const std::vector<uint32_t>* base;
  const std::vector<std::pair<uint32_t, uint32_t>>* members;
  size_t size() const { return members->size(); }
  RowKind kind(size_t m) const {
    const auto& [f, pos] = (*members)[m];
    return static_cast<RowKind>((*files)[f].kinds[pos]);
  }
  int64_t seq(size_t m) const {
    const auto& [f, pos] = (*members)[m];
    return (*files)[f].seqs[pos];
  }
  uint32_t row(size_t m) const {
    const auto& [f, pos] = (*members)[m];
    return (*base)[f] + pos;
  }
};

// A KeyGroup whose records' columns are `columns` (every table column, rows numbered as row(m)).
struct ValueGroup : KeyGroup {
  const std::vector<ColumnVector>* columns;
  bool IsNull(size_t c, size_t m) const {
    const ColumnVector& col = (*columns)[c];
    const uint32_t r = row(m);
    return col.IsNull(r) || (col.rep == ColumnVector::Rep::kValue && col.values[r].is_null());
  }
  Value Get(size_t c, size_t m) const { return (*columns)[c].Get(row(m)); }
};

// -1, 0, 1 as CompareValues orders value i of `a` and value j of `b` (same type and rep).
int CompareCells(const ColumnVector& a, size_t i, const ColumnVector& b, size_t j);
// -1, 0, 1 as record i of `a` and record j of `b` order by key.
int CompareKeyAt(const DedupFile& a, size_t i, const DedupFile& b, size_t j);

// The winning record of each key, in key order: file run_of[w], position pos_of[w], by the
// deduplicate engine's rule (merge/deduplicate.h); a winning retraction removes the key unless
// `keep_retracts`.
using Winners = merge::RunWinners;
Result<Winners> MergeLatest(const std::vector<DedupFile>& files, bool keep_retracts);

// The records of each key in key order, as (file, position) pairs in merge order (ascending
// sequence, a later file on equal sequences), one key at a time.
class KeyGroupCursor {
 public:
  explicit KeyGroupCursor(const std::vector<DedupFile>& files)
      : files_(files),
        pos_(files.size(), 0),
        int_keys_(!files.empty() && files[0].key_columns.empty()) {}

  // The next key's records into *members; false after the last key, or when a record's kind is
  // invalid (status() says so).
  bool Next(std::vector<std::pair<uint32_t, uint32_t>>* members) {
    int lowest = -1;
    for (size_t f = 0; f < files_.size(); f++) {
      if (pos_[f] >= files_[f].size()) continue;
      if (lowest < 0 || Compare(f, pos_[f], static_cast<size_t>(lowest), pos_[lowest]) < 0) {
        lowest = static_cast<int>(f);
      }
    }
    if (lowest < 0) return false;
    const size_t at = static_cast<size_t>(lowest), at_pos = pos_[at];
    members->clear();
    for (size_t f = 0; f < files_.size(); f++) {
      if (pos_[f] >= files_[f].size()) continue;
      if (f != at && Compare(f, pos_[f], at, at_pos) != 0) continue;
      const int64_t kind = files_[f].kinds[pos_[f]];
      if (kind < 0 || kind > 3) {
        status_ = Status::Corruption("data file '" + files_[f].path +
                                     "' has an invalid _VALUE_KIND " + std::to_string(kind));
        return false;
      }
      members->push_back({static_cast<uint32_t>(f), static_cast<uint32_t>(pos_[f])});
      pos_[f]++;
    }
    // Files are in order already: a stable sort by sequence keeps a later file later on ties.
    if (members->size() > 1) {
      std::stable_sort(members->begin(), members->end(), [&](const auto& x, const auto& y) {
        return files_[x.first].seqs[x.second] < files_[y.first].seqs[y.second];
      });
    }
    return true;
  }
  const Status& status() const { return status_; }

 private:
  int Compare(size_t f, size_t i, size_t g, size_t j) const {
    if (int_keys_) {
      const int64_t x = files_[f].keys[i], y = files_[g].keys[j];
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    return CompareKeyAt(files_[f], i, files_[g], j);
  }

  const std::vector<DedupFile>& files_;
  std::vector<size_t> pos_;
  bool int_keys_;
  Status status_;
};

// Every key group of `files` (KeyGroupCursor) passed to fn(members) in key order; fn returns
// false to stop.
template <typename Fn>
Status ForEachKeyGroup(const std::vector<DedupFile>& files, Fn&& fn) {
  KeyGroupCursor cursor(files);
  std::vector<std::pair<uint32_t, uint32_t>> members;
  while (cursor.Next(&members)) {
    if (!fn(members)) return Status::OK();
  }
  return cursor.status();
}

// plan->Merge over every key group of `files`, each seen through make_group(members); false
// (stopping at once) when a key needs the row merge.
template <typename MakeGroup>
Result<bool> MergeEveryKey(const std::vector<DedupFile>& files, ColumnMergePlan* plan,
                           const std::vector<bool>* needed, uint32_t null_row,
                           ColumnMergeOutput* out, const MakeGroup& make_group) {
  bool row_merge = false;
  Status failed;
  TRIB_RETURN_NOT_OK(ForEachKeyGroup(files, [&](const auto& members) {
    auto merged = plan->Merge(make_group(members), needed, null_row, out);
    if (!merged.ok()) {
      failed = merged.status();
      return false;
    }
    row_merge = !*merged;
    return !row_merge;
  }));
  TRIB_RETURN_NOT_OK(failed);
  return !row_merge;
}

// Loads the files' keys, sequences and kinds and finds each needed table column (null: all) in
// each file (`file_cols`; -1: not needed). False when a file or column cannot be merged column
// by column, checked before anything is merged.
Result<bool> LoadForChunks(const std::vector<DataFileRef>& paths, const FileLayout& layout,
                           const std::vector<Predicate>* skip_filters,
                           const std::vector<bool>* needed, std::vector<DedupFile>* files,
                           std::vector<std::vector<int>>* file_cols);

}  // namespace tributary::datafile
