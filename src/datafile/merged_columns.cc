#include <algorithm>
#include <type_traits>

#include "common/column_rep.h"
#include "common/memory_budget.h"
#include "common/predicate.h"
#include "datafile/data_file.h"
#include "datafile/file_format.h"
#include "datafile/parquet_file.h"
#include "datafile/range_reader.h"
#include "format/avro.h"
#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "io/file_cache.h"
#include "merge/deduplicate.h"

namespace tributary::datafile {

using merge::ColumnMergeOutput;
using merge::ColumnMergePlan;

namespace {

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
int CompareCells(const ColumnVector& a, size_t i, const ColumnVector& b, size_t j) {
  const bool na = a.IsNull(i), nb = b.IsNull(j);
  if (na || nb) return na == nb ? 0 : (na ? -1 : 1);
  switch (a.rep) {
    case ColumnVector::Rep::kInt:
      return a.ints[i] < b.ints[j] ? -1 : (a.ints[i] > b.ints[j] ? 1 : 0);
    case ColumnVector::Rep::kString: {
      int c = a.strings[i].compare(b.strings[j]);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    default:
      return CompareValues(a.Get(i), b.Get(j));
  }
}

// -1, 0, 1 as record i of `a` and record j of `b` order by key.
int CompareKeyAt(const DedupFile& a, size_t i, const DedupFile& b, size_t j) {
  if (a.key_columns.empty()) return a.keys[i] < b.keys[j] ? -1 : (a.keys[i] > b.keys[j] ? 1 : 0);
  for (size_t c = 0; c < a.key_columns.size(); c++) {
    int r = CompareCells(a.key_columns[c], i, b.key_columns[c], j);
    if (r != 0) return r;
  }
  return 0;
}

Result<bool> CheckDedupKeys(const DedupFile& f);

// Opens `path` and reads its key, sequence and kind columns over the row groups `skip_filters`
// keep; with `cache`, integer columns come from (and stay in) the process-wide file cache (reads;
// a compaction's inputs are read once). False: the file holds something this path does not read
// (not Parquet, columns missing or of other types, NULL sequence numbers or kinds).
Result<bool> LoadDedupKeys(const DataFileRef& ref, const FileLayout& layout,
                           const std::vector<Predicate>* skip_filters, bool cache,
                           DedupFile* file) {
  const std::string& path = ref.path;
  if (layout.key_columns.empty()) return false;
  if (!ReadsColumns(path)) return false;
  file->path = path;
  TRIB_ASSIGN_OR_RETURN(file->reader, OpenParquet(ref));
  const auto& schema = file->reader->schema();
  std::vector<int> cols;  // the key columns, then _SEQUENCE_NUMBER and _VALUE_KIND
  for (int k : layout.key_columns) {
    const Field& f = layout.fields[k];
    int c = FileColumnOf(schema, f);
    auto type = c >= 0 ? file->reader->ColumnType(c) : std::nullopt;
    if (!type || type->id != f.type.id || f.type.IsNested()) return false;
    cols.push_back(c);
  }
  const size_t nk = cols.size();
  cols.push_back(schema.FindColumn("_SEQUENCE_NUMBER"));
  cols.push_back(schema.FindColumn("_VALUE_KIND"));
  if (cols[nk] < 0 || cols[nk + 1] < 0) return false;
  const bool int_key = nk == 1 && layout.fields[layout.key_columns[0]].type.IsInteger();
  if (!int_key) file->key_columns.resize(nk);
  std::vector<std::vector<std::shared_ptr<const ColumnVector>>> chunks(cols.size());
  auto group_filter = RowGroupFilterFor(schema, layout, nullptr, skip_filters);
  for (int rg = 0; rg < file->reader->num_row_groups(); rg++) {
    if (group_filter && !group_filter(file->reader->RowGroupStatistics(rg))) continue;
    file->groups.push_back(rg);
    file->group_rows.push_back(file->reader->metadata().row_groups[rg].num_rows);
    for (size_t i = 0; i < cols.size(); i++) {
      if (i < nk && !int_key) {
        auto v = file->reader->ReadRowGroupVectors(rg, {cols[i]});
        if (!v.ok()) return v.status().WithContext("data file '" + path + "'");
        ColumnVector& col = (*v)[0];
        if (file->key_columns[i].size() == 0) {
          file->key_columns[i] = std::move(col);
        } else if (col.rep != file->key_columns[i].rep) {
          return false;
        } else {
          file->key_columns[i].AppendAll(std::move(col));
        }
        continue;
      }
      TRIB_ASSIGN_OR_RETURN(auto chunk, ReadWholeChunk(*file->reader, path, rg, cols[i], cache));
      chunks[i].push_back(std::move(chunk));
    }
  }
  if (int_key && !file->keys.Set(std::move(chunks[0]))) return false;
  if (!file->seqs.Set(std::move(chunks[nk])) || !file->kinds.Set(std::move(chunks[nk + 1]))) {
    return false;
  }
  const size_t n = file->size();
  if ((int_key ? file->keys.size() : file->key_columns[0].size()) != n || file->kinds.size() != n) {
    return Status::Corruption("data file '" + path + "': column lengths differ");
  }
  // The checks below read every row; a file read whole through the cache is checked once (its
  // columns never change), its answer kept in the cache beside them.
  if (cache && int_key &&
      file->groups.size() == static_cast<size_t>(file->reader->num_row_groups())) {
    TRIB_ASSIGN_OR_RETURN(
        auto ordered, io::FileCache::Instance().GetOrLoad<bool>(
                          "dedup-keys-checked:" + path, [&]() -> Result<std::pair<bool, int64_t>> {
                            TRIB_ASSIGN_OR_RETURN(bool ok, CheckDedupKeys(*file));
                            return std::make_pair(ok, int64_t{64});
                          }));
    return *ordered;
  }
  return CheckDedupKeys(*file);
}

// Whether `file`'s kinds are valid row kinds (else an error) and its keys strictly ascending.
Result<bool> CheckDedupKeys(const DedupFile& f) {
  const DedupFile* file = &f;
  const std::string& path = f.path;
  const size_t n = f.size();
  const bool int_key = f.key_columns.empty();
  uint64_t out_of_range = 0;  // branch-free, so the loop vectorizes
  for (size_t i = 0; i < n; i++) out_of_range |= static_cast<uint64_t>(file->kinds[i]) > 3;
  for (size_t i = 0; out_of_range && i < n; i++) {
    const int64_t kind = file->kinds[i];
    if (kind < 0 || kind > 3) {
      return Status::Corruption("data file '" + path + "' has an invalid _VALUE_KIND " +
                                std::to_string(kind));
    }
  }
  // Keys strictly ascending; anything else (keys that compare equal, like -0.0 and 0.0 of a
  // DOUBLE key, in a file another writer wrote) is left to the row merge.
  if (int_key) {
    const int64_t* k = file->keys.data;
    uint64_t unordered = 0;
    for (size_t i = 1; i < n; i++) unordered |= k[i - 1] >= k[i];
    return unordered == 0;
  }
  for (size_t i = 1; i < n; i++) {
    if (CompareKeyAt(*file, i - 1, *file, i) >= 0) return false;
  }
  return true;
}

// Whether the files' key columns decoded to the same representations (CompareCells compares
// across files by the first one's).
bool SameKeyReps(const std::vector<DedupFile>& files) {
  for (const DedupFile& f : files) {
    if (f.key_columns.size() != files[0].key_columns.size()) return false;
    for (size_t k = 0; k < f.key_columns.size(); k++) {
      if (f.size() > 0 && files[0].size() > 0 &&
          f.key_columns[k].rep != files[0].key_columns[k].rep) {
        return false;
      }
    }
  }
  return true;
}

// The records of each key in key order, as (file, position) pairs in merge order (ascending
// sequence, a later file on equal sequences), passed to fn(members); fn returns false to stop.
template <typename Fn>
Status ForEachKeyGroup(const std::vector<DedupFile>& files, Fn&& fn) {
  std::vector<size_t> pos(files.size(), 0);
  std::vector<std::pair<uint32_t, uint32_t>> members;
  const bool int_keys = !files.empty() && files[0].key_columns.empty();
  auto compare = [&](size_t f, size_t i, size_t g, size_t j) {
    if (int_keys) {
      const int64_t x = files[f].keys[i], y = files[g].keys[j];
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    return CompareKeyAt(files[f], i, files[g], j);
  };
  while (true) {
    int lowest = -1;
    for (size_t f = 0; f < files.size(); f++) {
      if (pos[f] >= files[f].size()) continue;
      if (lowest < 0 || compare(f, pos[f], static_cast<size_t>(lowest), pos[lowest]) < 0) {
        lowest = static_cast<int>(f);
      }
    }
    if (lowest < 0) return Status::OK();
    const size_t at = static_cast<size_t>(lowest), at_pos = pos[at];
    members.clear();
    for (size_t f = 0; f < files.size(); f++) {
      if (pos[f] >= files[f].size()) continue;
      if (f != at && compare(f, pos[f], at, at_pos) != 0) continue;
      const int64_t kind = files[f].kinds[pos[f]];
      if (kind < 0 || kind > 3) {
        return Status::Corruption("data file '" + files[f].path + "' has an invalid _VALUE_KIND " +
                                  std::to_string(kind));
      }
      members.push_back({static_cast<uint32_t>(f), static_cast<uint32_t>(pos[f])});
      pos[f]++;
    }
    // Files are in order already: a stable sort by sequence keeps a later file later on ties.
    if (members.size() > 1) {
      std::stable_sort(members.begin(), members.end(), [&](const auto& x, const auto& y) {
        return files[x.first].seqs[x.second] < files[y.first].seqs[y.second];
      });
    }
    if (!fn(members)) return Status::OK();
  }
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

// The winning record of each key, in key order: file run_of[w], position pos_of[w], by the
// deduplicate engine's rule (merge/deduplicate.h); a winning retraction removes the key unless
// `keep_retracts`.
using Winners = merge::RunWinners;
Result<Winners> MergeLatest(const std::vector<DedupFile>& files, bool keep_retracts) {
  const bool int_keys = !files.empty() && files[0].key_columns.empty();
  if (int_keys && files.size() <= 64) {  // a k-way merge on the raw keys
    std::vector<merge::KeyRun> runs(files.size());
    for (size_t f = 0; f < files.size(); f++) {
      runs[f] = merge::KeyRun{files[f].keys.data, files[f].seqs.data, files[f].kinds.data,
                              files[f].size()};
    }
    return merge::DeduplicateRuns(runs, keep_retracts);
  }
  Winners w;
  TRIB_RETURN_NOT_OK(ForEachKeyGroup(files, [&](const auto& members) {
    const KeyGroup g{&files, nullptr, &members};
    if (auto m = merge::DeduplicateWinner(g, /*ignore_delete=*/false, keep_retracts)) {
      w.run_of.push_back(members[*m].first);
      w.pos_of.push_back(members[*m].second);
    }
    return true;
  }));
  return w;
}

// MergeLatest(files, false), kept in the process-wide cache under the files' paths when every
// file was read whole: the files are immutable, so the winners of one list of files never
// change, and a repeated scan of a bucket does not merge it again. Files read in part (row
// groups skipped) are merged every time.
Result<std::shared_ptr<const Winners>> LatestOf(const std::vector<DedupFile>& files) {
  std::string key = "winners";
  bool whole = true;
  for (const DedupFile& f : files) {
    whole = whole && f.groups.size() == static_cast<size_t>(f.reader->num_row_groups());
    key += "\n" + f.path;
  }
  auto merge = [&]() -> Result<std::pair<Winners, int64_t>> {
    TRIB_ASSIGN_OR_RETURN(Winners w, MergeLatest(files, /*keep_retracts=*/false));
    const int64_t bytes =
        64 + static_cast<int64_t>(key.size() + w.run_of.capacity() * 4 + w.pos_of.capacity() * 4);
    return std::make_pair(std::move(w), bytes);
  };
  if (!whole) {
    TRIB_ASSIGN_OR_RETURN(auto merged, merge());
    return std::make_shared<const Winners>(std::move(merged.first));
  }
  return io::FileCache::Instance().GetOrLoad<Winners>(key, merge);
}

// File column `file_col` over the row groups read, concatenated (positions as LoadDedupKeys').
Result<ColumnVector> ReadDedupColumn(const DedupFile& file, int file_col) {
  ColumnVector all;
  bool first = true;
  for (int rg : file.groups) {
    auto one = file.reader->ReadRowGroupVectors(rg, {file_col});
    if (!one.ok()) return one.status().WithContext("data file '" + file.path + "'");
    if (first) {
      all = std::move((*one)[0]);
      first = false;
    } else {
      all.AppendAll(std::move((*one)[0]));
    }
  }
  if (all.size() != file.size()) {
    return Status::Corruption("data file '" + file.path + "': column lengths differ");
  }
  return all;
}

// Rows `sel` (ascending positions over the row groups read; null: every row) of file column
// `c`: only the selected rows' values are copied out of the pages decoded. Columns read whole
// come from the process-wide cache when their representation is flat (ChunkCacheable).
Result<std::shared_ptr<const ColumnVector>> ReadDedupRows(const DedupFile& file, int c,
                                                          const std::vector<uint32_t>* sel) {
  ColumnVector all;
  bool first = true;
  int64_t at = 0;   // position of the current row group's first row
  size_t next = 0;  // the first of `sel` not yet read
  for (size_t g = 0; g < file.groups.size(); g++) {
    const int rg = file.groups[g];
    const int64_t rows = file.group_rows[g];
    std::shared_ptr<const ColumnVector> part;
    if (!sel) {
      TRIB_ASSIGN_OR_RETURN(part, ReadWholeChunk(*file.reader, file.path, rg, c));
      if (file.groups.size() == 1) return part;
    } else {
      format::parquet::RowRanges ranges;
      while (next < sel->size() && (*sel)[next] < at + rows) {
        const int64_t r = (*sel)[next++] - at;
        if (!ranges.empty() && ranges.back().second == r) {
          ranges.back().second++;
        } else {
          ranges.push_back({r, r + 1});
        }
      }
      at += rows;
      if (ranges.empty()) continue;
      auto v = file.reader->ReadRowGroupVectors(rg, {c}, &ranges);
      if (!v.ok()) return v.status().WithContext("data file '" + file.path + "'");
      part = std::make_shared<const ColumnVector>(std::move((*v)[0]));
    }
    if (first) {
      all = *part;
      first = false;
    } else {
      if (part->rep != all.rep) {
        return Status::Corruption("data file '" + file.path + "': row groups disagree");
      }
      ColumnVector copy = *part;
      all.AppendAll(std::move(copy));
    }
  }
  if (all.size() != (sel ? sel->size() : file.size())) {
    return Status::Corruption("data file '" + file.path + "': column lengths differ");
  }
  return std::make_shared<const ColumnVector>(std::move(all));
}

// Appends row at[k] of src[from[k]] for k < m to `out` (of the sources' representation);
// `nulls`: some source has NULLs.
void GatherRows(const std::vector<std::shared_ptr<const ColumnVector>>& src, const uint32_t* from,
                const uint32_t* at, size_t m, bool nulls, ColumnVector* out) {
  auto raw = [&](auto member) {  // each source's data() of one typed vector
    using T = std::remove_cv_t<std::remove_reference_t<decltype(*((*src[0]).*member).data())>>;
    std::vector<const T*> data(src.size(), nullptr);
    for (size_t f = 0; f < src.size(); f++) {
      if (src[f]) data[f] = ((*src[f]).*member).data();
    }
    return data;
  };
  switch (out->rep) {
    case ColumnVector::Rep::kInt: {
      const auto data = raw(&ColumnVector::ints);
      out->ints.resize(m);
      for (size_t k = 0; k < m; k++) out->ints[k] = data[from[k]][at[k]];
      break;
    }
    case ColumnVector::Rep::kDouble: {
      const auto data = raw(&ColumnVector::doubles);
      out->doubles.resize(m);
      for (size_t k = 0; k < m; k++) out->doubles[k] = data[from[k]][at[k]];
      break;
    }
    case ColumnVector::Rep::kString:
      out->strings.reserve(m);
      for (size_t k = 0; k < m; k++) out->strings.push_back(src[from[k]]->strings[at[k]]);
      break;
    case ColumnVector::Rep::kValue:
      out->values.reserve(m);
      for (size_t k = 0; k < m; k++) out->values.push_back(src[from[k]]->values[at[k]]);
      break;
  }
  if (nulls) {
    out->nulls.resize(m);
    for (size_t k = 0; k < m; k++) out->nulls[k] = src[from[k]]->IsNull(at[k]) ? 1 : 0;
  }
}

// The winners a read returns, in key order: file from[k], position at[k], k < n; per_file[f] of
// them in file f. `all`: every winner (no filter removed one).
struct Picked {
  const uint32_t* from = nullptr;
  const uint32_t* at = nullptr;
  size_t n = 0;
  std::vector<size_t> per_file;
  bool all = true;
};

// The picked winners' values of file columns `cols` (one per file), as a column of `type`;
// nullopt when a file's column decodes to another representation.
Result<std::optional<ColumnVector>> GatherWinners(const std::vector<DedupFile>& files,
                                                  const std::vector<int>& cols,
                                                  const Picked& picked, const DataType& type) {
  using Out = std::optional<ColumnVector>;
  const size_t nf = files.size();
  std::vector<std::shared_ptr<const ColumnVector>> src(nf);
  std::vector<bool> by_pos(nf, true);  // src holds every row (else only the picked ones, in order)
  ColumnVector out;
  out.type = type;
  out.rep = ColumnVector::RepOf(type);
  bool nulls = false;
  for (size_t f = 0; f < nf; f++) {
    if (picked.per_file[f] == 0) continue;
    // Flat columns come whole from the decoded-column cache; other values, when few rows are
    // wanted, from their rows alone.
    const auto file_type = files[f].reader->ColumnType(cols[f]);
    const auto rep = file_type ? ColumnVector::RepOf(*file_type) : ColumnVector::Rep::kValue;
    const bool sparse =
        !picked.all && !ChunkCacheable(rep) && picked.per_file[f] * 4 < files[f].size();
    if (sparse) {
      std::vector<uint32_t> sel;  // the file's picked positions, ascending (key order)
      sel.reserve(picked.per_file[f]);
      for (size_t k = 0; k < picked.n; k++) {
        if (picked.from[k] == f) sel.push_back(picked.at[k]);
      }
      TRIB_ASSIGN_OR_RETURN(src[f], ReadDedupRows(files[f], cols[f], &sel));
    } else {
      TRIB_ASSIGN_OR_RETURN(src[f], ReadDedupRows(files[f], cols[f], nullptr));
    }
    by_pos[f] = !sparse;
    if (src[f]->rep != out.rep) return Out();
    nulls = nulls || !src[f]->nulls.empty();
  }
  if (std::all_of(by_pos.begin(), by_pos.end(), [](bool b) { return b; })) {
    GatherRows(src, picked.from, picked.at, picked.n, nulls, &out);
    return Out(std::move(out));
  }
  // Where each picked winner's value sits in its file's src.
  std::vector<uint32_t> cursor(nf, 0);
  std::vector<uint32_t> at(picked.n);
  for (size_t k = 0; k < picked.n; k++) {
    const uint32_t f = picked.from[k];
    at[k] = by_pos[f] ? picked.at[k] : cursor[f]++;
  }
  GatherRows(src, picked.from, at.data(), picked.n, nulls, &out);
  return Out(std::move(out));
}

// Loads the files' keys, sequences and kinds (LoadDedupKeys) and finds each needed table
// column (null: all) in each file (`file_cols`; -1: not needed). False when a file or column
// cannot be merged column by column, checked before anything is merged.
Result<bool> LoadForChunks(const std::vector<DataFileRef>& paths, const FileLayout& layout,
                           const std::vector<Predicate>* skip_filters,
                           const std::vector<bool>* needed, std::vector<DedupFile>* files,
                           std::vector<std::vector<int>>* file_cols) {
  files->assign(paths.size(), DedupFile());
  file_cols->assign(paths.size(), {});
  size_t total = 0;
  for (size_t f = 0; f < paths.size(); f++) {
    TRIB_ASSIGN_OR_RETURN(bool readable, LoadDedupKeys(paths[f], layout, skip_filters,
                                                       /*cache=*/false, &(*files)[f]));
    if (!readable) return false;
    total += (*files)[f].size();
    for (size_t t = 0; t < layout.fields.size(); t++) {
      const Field& field = layout.fields[t];
      int c = needed != nullptr && !(*needed)[t]
                  ? -1
                  : FileColumnOf((*files)[f].reader->schema(), field);
      auto type = c >= 0 ? (*files)[f].reader->ColumnType(c) : std::nullopt;
      if (c >= 0 && (!type || type->id != field.type.id || type->IsNested())) return false;
      if (c < 0 && (needed == nullptr || (*needed)[t])) return false;
      (*file_cols)[f].push_back(c);
    }
  }
  return total < UINT32_MAX && SameKeyReps(*files);  // rows: 32-bit numbers
}

}  // namespace

Result<std::optional<std::vector<merge::KeyValue>>> FindIntKeysInFile(
    const DataFileRef& ref, const FileLayout& layout, int32_t level,
    const std::vector<int64_t>& keys) {
  using Out = std::optional<std::vector<merge::KeyValue>>;
  if (layout.key_columns.size() != 1 || !layout.fields[layout.key_columns[0]].type.IsInteger()) {
    return Out();
  }
  DedupFile file;
  TRIB_ASSIGN_OR_RETURN(bool readable, LoadDedupKeys(ref, layout, nullptr, /*cache=*/true, &file));
  if (!readable) return Out();
  // The positions of the keys asked for (both sides ascending).
  std::vector<uint32_t> sel;
  const int64_t* file_keys = file.keys.data;
  const size_t n = file.keys.size();
  size_t at = 0;
  for (int64_t k : keys) {
    at = static_cast<size_t>(std::lower_bound(file_keys + at, file_keys + n, k) - file_keys);
    if (at == n) break;
    if (file_keys[at] == k) sel.push_back(static_cast<uint32_t>(at));
  }
  std::vector<merge::KeyValue> out(sel.size());
  if (sel.empty()) return Out(std::move(out));
  for (auto& kv : out) kv.value.reserve(layout.fields.size());
  for (size_t t = 0; t < layout.fields.size(); t++) {
    const Field& field = layout.fields[t];
    const int c = FileColumnOf(file.reader->schema(), field);
    auto type = c >= 0 ? file.reader->ColumnType(c) : std::nullopt;
    if (!type || type->id != field.type.id) return Out();
    TRIB_ASSIGN_OR_RETURN(auto column, ReadDedupRows(file, c, &sel));
    for (size_t k = 0; k < sel.size(); k++) out[k].value.push_back(column->Get(k));
  }
  for (size_t k = 0; k < sel.size(); k++) {
    out[k].sequence = file.seqs[sel[k]];
    out[k].kind = static_cast<RowKind>(file.kinds[sel[k]]);
    out[k].level = level;
  }
  return Out(std::move(out));
}

// The key, sequence and kind columns of a file whose key is one integer column (the key column
// from the file cache); false when the key is not one integer or the file is not read this way.
Result<bool> LoadIntKeys(const DataFileRef& ref, const FileLayout& layout, DedupFile* file) {
  if (layout.key_columns.size() != 1 || !layout.fields[layout.key_columns[0]].type.IsInteger()) {
    return false;
  }
  return LoadDedupKeys(ref, layout, nullptr, /*cache=*/true, file);
}

Result<std::optional<std::vector<int64_t>>> ReadIntKeys(const DataFileRef& ref,
                                                        const FileLayout& layout) {
  using Out = std::optional<std::vector<int64_t>>;
  DedupFile file;
  TRIB_ASSIGN_OR_RETURN(bool readable, LoadIntKeys(ref, layout, &file));
  if (!readable) return Out();
  return Out(std::vector<int64_t>(file.keys.data, file.keys.data + file.keys.size()));
}

Result<std::optional<std::vector<int64_t>>> FindIntKeyPositions(const DataFileRef& ref,
                                                                const FileLayout& layout,
                                                                const std::vector<int64_t>& keys) {
  using Out = std::optional<std::vector<int64_t>>;
  DedupFile file;
  TRIB_ASSIGN_OR_RETURN(bool readable, LoadIntKeys(ref, layout, &file));
  if (!readable) return Out();
  std::vector<int64_t> out(keys.size(), -1);
  const int64_t* file_keys = file.keys.data;
  const size_t n = file.keys.size();
  size_t at = 0;
  for (size_t i = 0; i < keys.size(); i++) {
    at = static_cast<size_t>(std::lower_bound(file_keys + at, file_keys + n, keys[i]) - file_keys);
    if (at == n) break;
    if (file_keys[at] == keys[i]) out[i] = static_cast<int64_t>(at);
  }
  return Out(std::move(out));
}

Result<std::optional<ColumnBatch>> ReadDeduplicatedColumns(
    const std::vector<DataFileRef>& paths, const FileLayout& layout,
    const std::vector<int>& columns, const std::vector<Predicate>* skip_filters,
    const std::vector<Predicate>* row_filters) {
  using Out = std::optional<ColumnBatch>;
  const std::vector<Predicate> no_filters;
  const std::vector<Predicate>& filters = row_filters ? *row_filters : no_filters;
  // Table columns to gather: the output columns, then the filter columns.
  std::vector<int> table_cols = columns;
  for (const auto& p : filters) {
    if (std::find(table_cols.begin(), table_cols.end(), p.column) == table_cols.end()) {
      table_cols.push_back(p.column);
    }
  }
  std::vector<DedupFile> files(paths.size());
  std::vector<std::vector<int>> file_cols(paths.size());  // file column of table_cols[i]
  for (size_t f = 0; f < paths.size(); f++) {
    TRIB_ASSIGN_OR_RETURN(bool readable,
                          LoadDedupKeys(paths[f], layout, skip_filters, /*cache=*/true, &files[f]));
    if (!readable) return Out();
    for (int t : table_cols) {
      int c = FileColumnOf(files[f].reader->schema(), layout.fields[t]);
      auto type = c >= 0 ? files[f].reader->ColumnType(c) : std::nullopt;
      if (!type || type->id != layout.fields[t].type.id) return Out();
      file_cols[f].push_back(c);
    }
  }
  if (!SameKeyReps(files)) return Out();
  TRIB_ASSIGN_OR_RETURN(const std::shared_ptr<const Winners> latest, LatestOf(files));
  const Winners& winners = *latest;
  // Filters on the winners' values: each filter evaluated over its files' columns (every row,
  // in vector loops), then looked up for each winner.
  std::vector<uint8_t> keep;
  for (const auto& p : filters) {
    const size_t i = std::find(table_cols.begin(), table_cols.end(), p.column) - table_cols.begin();
    const ColumnVector::Rep rep = ColumnVector::RepOf(layout.fields[p.column].type);
    std::vector<std::vector<uint8_t>> pass(files.size());
    for (size_t f = 0; f < files.size(); f++) {
      if (files[f].size() == 0) continue;
      TRIB_ASSIGN_OR_RETURN(auto col, ReadDedupRows(files[f], file_cols[f][i], nullptr));
      if (col->rep != rep) return Out();
      pass[f].assign(files[f].size(), 1);
      FilterColumn(p, *col, &pass[f]);
    }
    if (keep.empty()) keep.assign(winners.size(), 1);
    for (size_t w = 0; w < winners.size(); w++) {
      keep[w] &= pass[winners.run_of[w]][winners.pos_of[w]];
    }
  }
  Picked picked;
  picked.per_file.assign(files.size(), 0);
  std::vector<uint32_t> from, at;  // the kept winners, when a filter removed some
  for (uint8_t k : keep) picked.all = picked.all && k;
  if (picked.all) {
    picked.from = winners.run_of.data();
    picked.at = winners.pos_of.data();
    picked.n = winners.size();
    for (uint32_t f : winners.run_of) picked.per_file[f]++;
  } else {
    for (size_t w = 0; w < winners.size(); w++) {
      if (!keep[w]) continue;
      from.push_back(winners.run_of[w]);
      at.push_back(winners.pos_of[w]);
      picked.per_file[winners.run_of[w]]++;
    }
    picked.from = from.data();
    picked.at = at.data();
    picked.n = from.size();
  }
  ColumnBatch batch;
  batch.num_rows = picked.n;
  for (size_t i = 0; i < columns.size(); i++) {
    std::vector<int> cols;
    for (size_t f = 0; f < files.size(); f++) cols.push_back(file_cols[f][i]);
    TRIB_ASSIGN_OR_RETURN(auto col,
                          GatherWinners(files, cols, picked, layout.fields[columns[i]].type));
    if (!col) return Out();
    batch.columns.push_back(std::move(*col));
  }
  return Out(std::move(batch));
}

Result<std::optional<MergedColumns>> MergeFilesByColumns(
    const std::vector<DataFileRef>& paths, const FileLayout& layout, ColumnMergePlan* plan,
    const std::vector<bool>* needed, const std::vector<Predicate>* skip_filters) {
  using Out = std::optional<MergedColumns>;
  std::vector<DedupFile> files;
  std::vector<std::vector<int>> file_cols;
  TRIB_ASSIGN_OR_RETURN(bool readable,
                        LoadForChunks(paths, layout, skip_filters, needed, &files, &file_cols));
  if (!readable) return Out();
  size_t total = 0;
  for (const DedupFile& file : files) total += file.size();
  MergedColumns out;
  // Every table column of every file, concatenated, then one NULL row (partial-update columns
  // without a value point at it); the merged records index into them.
  std::vector<uint32_t> base(files.size(), 0);
  for (size_t f = 1; f < files.size(); f++) {
    base[f] = base[f - 1] + static_cast<uint32_t>(files[f - 1].size());
  }
  const uint32_t null_row = static_cast<uint32_t>(total);
  const bool partial_update = plan->kind() == ColumnMergePlan::Kind::kPartialUpdate;
  for (size_t t = 0; t < layout.fields.size(); t++) {
    const Field& field = layout.fields[t];
    ColumnVector all;
    all.type = field.type;
    all.rep = ColumnVector::RepOf(field.type);
    if (needed != nullptr && !(*needed)[t]) {
      out.columns.push_back(std::move(all));  // not read: no rows
      continue;
    }
    all.Reserve(total + 1);  // no regrowth while the files are appended
    for (size_t f = 0; f < files.size(); f++) {
      if (files[f].size() == 0) continue;  // every row group skipped: nothing to read
      TRIB_ASSIGN_OR_RETURN(ColumnVector one, ReadDedupColumn(files[f], file_cols[f][t]));
      if (one.rep != all.rep) return Out();
      all.AppendAll(std::move(one));
    }
    if (partial_update) all.Append(Value::Null());
    out.columns.push_back(std::move(all));
  }
  // The records of one key across the files, in merge order, with every file's columns.
  plan->Start(layout.fields.size(), &out.merged);
  TRIB_ASSIGN_OR_RETURN(
      bool merged,
      MergeEveryKey(files, plan, needed, null_row, &out.merged, [&](const auto& members) {
        return ValueGroup{{&files, &base, &members}, &out.columns};
      }));
  if (!merged) return Out();
  return Out(std::move(out));
}

namespace {

// Per file, per table column: its reader over the file's rows (nullopt: not read).
using RangeReaders = std::vector<std::vector<std::optional<ColumnRangeReader>>>;

// The readers of `file_cols` (-1: not read) over the row groups each file's keys came from.
RangeReaders OpenRanges(const std::vector<DedupFile>& files,
                        const std::vector<std::vector<int>>& file_cols) {
  RangeReaders readers(files.size());
  for (size_t f = 0; f < files.size(); f++) {
    for (int c : file_cols[f]) {
      readers[f].emplace_back();
      if (c >= 0) readers[f].back().emplace(files[f].reader, files[f].groups, c, files[f].path);
    }
  }
  return readers;
}

// Every table column (`readers`; nullopt: not read, left empty) of rows [lo[f], hi[f]] of each
// file f (hi[f] < 0: none), concatenated in file order; `start[f]` is set to where file f's rows
// begin. Ranges of a file ascend from call to call: each page is decoded once.
Result<std::vector<ColumnVector>> ReadDedupRanges(const std::vector<DedupFile>& files,
                                                  RangeReaders& readers, const FileLayout& layout,
                                                  const std::vector<int64_t>& lo,
                                                  const std::vector<int64_t>& hi,
                                                  std::vector<uint32_t>* start) {
  start->assign(files.size(), 0);
  uint32_t next = 0;
  for (size_t f = 0; f < files.size(); f++) {
    (*start)[f] = next;
    if (hi[f] >= 0) next += static_cast<uint32_t>(hi[f] - lo[f] + 1);
  }
  std::vector<ColumnVector> columns(layout.fields.size());
  for (size_t t = 0; t < layout.fields.size(); t++) {
    ColumnVector& all = columns[t];
    all.type = layout.fields[t].type;
    all.rep = ColumnVector::RepOf(all.type);
    if (!files.empty() && !readers[0][t]) continue;  // not needed
    all.Reserve(next + 1);
    for (size_t f = 0; f < files.size(); f++) {
      if (hi[f] < 0) continue;
      TRIB_ASSIGN_OR_RETURN(ColumnVector one, readers[f][t]->Read(lo[f], hi[f] + 1));
      if (one.rep != all.rep) one = Canonical(std::move(one));
      if (one.rep != all.rep) {
        return Status::Corruption("data file '" + files[f].path + "': column '" +
                                  layout.fields[t].name + "' changed its representation");
      }
      all.AppendAll(std::move(one));
    }
  }
  // Each input is read once: the pages this chunk touched need not stay in memory.
  for (const DedupFile& file : files) file.reader->ReleasePages();
  return columns;
}

// The files' key groups merged by `plan` `chunk_keys` keys at a time, each chunk over the
// columns of the rows its keys hold (one range of each file's rows: files and groups are in key
// order), handed to fn(MergedColumns&) -> Result<bool> in key order; fn's false stops the merge
// there (the keys after its chunk are not merged). False, with fn never called, when a key
// would need the row merge (a retraction the plan does not take).
template <typename Fn>
Result<bool> MergeKeyChunks(const std::vector<DedupFile>& files,
                            const std::vector<std::vector<int>>& file_cols,
                            const FileLayout& layout, ColumnMergePlan* plan,
                            const std::vector<bool>* needed, size_t chunk_keys, const Fn& fn) {
  if (!plan->TakesRetractions()) {
    // Known before any chunk is handed out.
    for (const DedupFile& file : files) {
      for (size_t i = 0; i < file.size(); i++) {
        if (IsRetract(static_cast<RowKind>(file.kinds[i]))) return false;
      }
    }
  }
  const bool partial_update = plan->kind() == ColumnMergePlan::Kind::kPartialUpdate;
  std::vector<std::pair<uint32_t, uint32_t>> members;  // the chunk's records (file, position)
  std::vector<size_t> ends;                            // where each key's records end in it
  std::vector<std::pair<uint32_t, uint32_t>> one;      // the records of one key
  MergedColumns chunk;
  RangeReaders readers = OpenRanges(files, file_cols);
  auto merge_chunk = [&]() -> Result<bool> {
    std::vector<int64_t> lo(files.size(), INT64_MAX), hi(files.size(), -1);
    for (const auto& [f, pos] : members) {
      lo[f] = std::min<int64_t>(lo[f], pos);
      hi[f] = std::max<int64_t>(hi[f], pos);
    }
    std::vector<uint32_t> start;
    TRIB_ASSIGN_OR_RETURN(chunk.columns, ReadDedupRanges(files, readers, layout, lo, hi, &start));
    uint32_t null_row = 0;  // after the chunk's rows
    for (size_t f = 0; f < files.size(); f++) {
      if (hi[f] >= 0) null_row += static_cast<uint32_t>(hi[f] - lo[f] + 1);
    }
    if (partial_update) {
      for (ColumnVector& c : chunk.columns) {
        if (c.size() > 0) c.Append(Value::Null());
      }
    }
    // KeyGroup numbers record (f, pos) base[f] + pos: here start[f] + pos - lo[f], which the
    // unsigned sum gives (modulo 2^32) whatever the order of the terms.
    std::vector<uint32_t> base(files.size(), 0);
    for (size_t f = 0; f < files.size(); f++) {
      if (hi[f] >= 0) base[f] = start[f] - static_cast<uint32_t>(lo[f]);
    }
    plan->Start(layout.fields.size(), &chunk.merged);
    size_t begin = 0;
    for (size_t end : ends) {
      one.assign(members.begin() + static_cast<std::ptrdiff_t>(begin),
                 members.begin() + static_cast<std::ptrdiff_t>(end));
      begin = end;
      TRIB_ASSIGN_OR_RETURN(bool merged,
                            plan->Merge(ValueGroup{{&files, &base, &one}, &chunk.columns}, needed,
                                        null_row, &chunk.merged));
      if (!merged) return Status::Internal("a key checked for the column merge needs rows");
    }
    members.clear();
    ends.clear();
    return fn(chunk);
  };
  Status failed;
  bool more = true;
  TRIB_RETURN_NOT_OK(ForEachKeyGroup(files, [&](const auto& group) {
    members.insert(members.end(), group.begin(), group.end());
    ends.push_back(members.size());
    if (ends.size() < chunk_keys) return true;
    auto merged = merge_chunk();
    failed = merged.status();
    more = merged.ok() && *merged;
    return more;
  }));
  TRIB_RETURN_NOT_OK(failed);
  if (more && !ends.empty()) TRIB_RETURN_NOT_OK(merge_chunk().status());
  return true;
}

}  // namespace

Result<bool> MergeFilesByColumnChunks(const std::vector<DataFileRef>& paths,
                                      const FileLayout& layout, ColumnMergePlan* plan,
                                      const std::vector<bool>* needed,
                                      const std::vector<Predicate>* skip_filters, size_t chunk_keys,
                                      const std::function<Result<bool>(MergedColumns&)>& fn) {
  std::vector<DedupFile> files;
  std::vector<std::vector<int>> file_cols;
  TRIB_ASSIGN_OR_RETURN(bool readable,
                        LoadForChunks(paths, layout, skip_filters, needed, &files, &file_cols));
  if (!readable) return false;
  // Charged to the process's budget while it runs, as a query operator: the keys, sequences and
  // kinds (about 32 bytes a record) and a chunk's columns (at most a record of each file a key,
  // and never more than every record).
  int64_t records = 0;
  for (const DedupFile& file : files) records += static_cast<int64_t>(file.size());
  MemoryCharge charge;
  charge.Set(records * 32 +
             std::min<int64_t>(records, static_cast<int64_t>(chunk_keys * files.size())) * 64);
  return MergeKeyChunks(files, file_cols, layout, plan, needed, chunk_keys, fn);
}

Result<bool> CompactFilesByChunks(const std::vector<DataFileRef>& paths, const FileLayout& layout,
                                  ColumnMergePlan* plan, size_t chunk_rows,
                                  DataFileWriter* writer) {
  std::vector<DedupFile> files;
  // Every column of every file must be readable column by column before anything is written.
  std::vector<std::vector<int>> file_cols;
  TRIB_ASSIGN_OR_RETURN(bool readable,
                        LoadForChunks(paths, layout, nullptr, nullptr, &files, &file_cols));
  if (!readable) return false;
  if (plan->kind() != ColumnMergePlan::Kind::kDeduplicate &&
      plan->kind() != ColumnMergePlan::Kind::kFirstRow) {
    // Their merges read values: merged a chunk of keys at a time.
    return MergeKeyChunks(
        files, file_cols, layout, plan, nullptr, chunk_rows,
        [&](const MergedColumns& chunk) -> Result<bool> {
          std::vector<format::ColumnValues> sources;
          for (const auto& c : chunk.columns) sources.push_back(ColumnValuesOf(c));
          TRIB_RETURN_NOT_OK(writer->WriteMerged(std::move(sources), chunk.merged));
          return true;
        });
  }
  std::vector<uint32_t> base(files.size(), 0);
  for (size_t f = 1; f < files.size(); f++) {
    base[f] = base[f - 1] + static_cast<uint32_t>(files[f - 1].size());
  }
  // The merge on keys, sequences and kinds alone: which record of which file wins.
  struct Group : KeyGroup {
    bool IsNull(size_t, size_t) const { return false; }  // not asked by these engines
    Value Get(size_t, size_t) const { return Value::Null(); }
  };
  ColumnMergeOutput merged;
  plan->Start(layout.fields.size(), &merged);
  TRIB_ASSIGN_OR_RETURN(bool done,
                        MergeEveryKey(files, plan, nullptr, 0, &merged, [&](const auto& members) {
                          return Group{{&files, &base, &members}};
                        }));
  if (!done) return false;
  // The winners' columns, a chunk of merged records at a time: within a chunk each file's
  // records are one range of its rows (files and merge are in key order).
  auto file_of = [&](uint32_t row) {
    return static_cast<size_t>(std::upper_bound(base.begin(), base.end(), row) - base.begin() - 1);
  };
  std::vector<uint32_t> local(std::min(chunk_rows, merged.size()));
  RangeReaders readers = OpenRanges(files, file_cols);
  for (size_t k0 = 0; k0 < merged.size(); k0 += chunk_rows) {
    const size_t k1 = std::min(merged.size(), k0 + chunk_rows);
    std::vector<int64_t> lo(files.size(), INT64_MAX), hi(files.size(), -1);
    for (size_t k = k0; k < k1; k++) {
      const uint32_t r = merged.rows[k];
      const size_t f = file_of(r);
      const int64_t pos = r - base[f];
      lo[f] = std::min(lo[f], pos);
      hi[f] = std::max(hi[f], pos);
    }
    std::vector<uint32_t> start;  // where each file's range starts among the chunk's rows
    TRIB_ASSIGN_OR_RETURN(std::vector<ColumnVector> columns,
                          ReadDedupRanges(files, readers, layout, lo, hi, &start));
    for (size_t k = k0; k < k1; k++) {
      const uint32_t r = merged.rows[k];
      const size_t f = file_of(r);
      local[k - k0] = start[f] + static_cast<uint32_t>(r - base[f] - lo[f]);
    }
    std::vector<format::ColumnValues> sources;
    for (const auto& c : columns) sources.push_back(ColumnValuesOf(c));
    TRIB_RETURN_NOT_OK(writer->WriteColumns(sources, local.data(), merged.sequences.data() + k0,
                                            merged.kinds.data() + k0, k1 - k0));
  }
  return true;
}

}  // namespace tributary::datafile
