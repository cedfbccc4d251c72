#include <algorithm>
#include <type_traits>

#include "common/column_rep.h"
#include "common/memory_budget.h"
#include "common/predicate.h"
#include "datafile/data_file.h"
#include "datafile/file_format.h"
#include "datafile/merged_columns_internal.h"
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

}  // namespace

// The winning record of each key, in key order: file run_of[w], position pos_of[w], by the
// deduplicate engine's rule (merge/deduplicate.h); a winning retraction removes the key unless
// `keep_retracts`.
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
  if (columns.empty()) {
    // No column asked for (COUNT(*)): the winners kept are the rows; none is gathered.
    ColumnBatch batch;
    batch.num_rows = keep.empty() ? winners.size()
                                  : static_cast<size_t>(std::count(keep.begin(), keep.end(), 1));
    return Out(std::move(batch));
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

}  // namespace tributary::datafile
