#include <algorithm>

#include "common/predicate.h"
#include "datafile/data_file.h"
#include "datafile/file_format.h"
#include "datafile/parquet_file.h"
#include "format/avro.h"
#include "format/parquet/reader.h"
#include "io/file_cache.h"

namespace tributary::datafile {

using io::FileCache;

// Integer comparisons with an integer literal run on the raw vector; everything else through
// EvalPredicate.
void FilterColumn(const Predicate& p, const ColumnVector& col, std::vector<uint8_t>* keep) {
  const size_t n = keep->size();
  const bool raw = col.rep == ColumnVector::Rep::kInt && col.type.IsInteger() &&
                   p.literals.size() == 1 && p.literals[0].is_int() && p.op != Predicate::Op::kIn &&
                   p.op != Predicate::Op::kIsNull && p.op != Predicate::Op::kIsNotNull;
  if (!raw) {
    for (size_t r = 0; r < n; r++) {
      if ((*keep)[r] && !EvalPredicate(p, col.Get(r))) (*keep)[r] = 0;
    }
    return;
  }
  const int64_t lit = p.literals[0].int_value();
  const int64_t* v = col.ints.data();
  uint8_t* k = keep->data();
  switch (p.op) {
    case Predicate::Op::kEq:
      for (size_t r = 0; r < n; r++) k[r] &= v[r] == lit;
      break;
    case Predicate::Op::kNe:
      for (size_t r = 0; r < n; r++) k[r] &= v[r] != lit;
      break;
    case Predicate::Op::kLt:
      for (size_t r = 0; r < n; r++) k[r] &= v[r] < lit;
      break;
    case Predicate::Op::kLe:
      for (size_t r = 0; r < n; r++) k[r] &= v[r] <= lit;
      break;
    case Predicate::Op::kGt:
      for (size_t r = 0; r < n; r++) k[r] &= v[r] > lit;
      break;
    case Predicate::Op::kGe:
      for (size_t r = 0; r < n; r++) k[r] &= v[r] >= lit;
      break;
    default:
      break;
  }
  if (!col.nulls.empty()) {
    for (size_t r = 0; r < n; r++) k[r] &= !col.nulls[r];  // a comparison with NULL fails
  }
}

Result<std::shared_ptr<const ColumnVector>> ReadWholeChunk(
    const format::parquet::ParquetReader& reader, const std::string& path, int rg, int col,
    bool cache) {
  auto decode = [&]() -> Result<ColumnVector> {
    auto one = reader.ReadRowGroupVectors(rg, {col});
    if (!one.ok()) return one.status().WithContext("data file '" + path + "'");
    return std::move((*one)[0]);
  };
  auto type = reader.ColumnType(col);
  auto rep = type ? ColumnVector::RepOf(*type) : ColumnVector::Rep::kValue;
  if (!cache || !ChunkCacheable(rep)) {
    TRIB_ASSIGN_OR_RETURN(ColumnVector v, decode());
    return std::make_shared<const ColumnVector>(std::move(v));
  }
  return FileCache::Instance().GetOrLoad<ColumnVector>(
      "column:" + path + ":" + std::to_string(rg) + ":" + std::to_string(col),
      [&]() -> Result<std::pair<ColumnVector, int64_t>> {
        TRIB_ASSIGN_OR_RETURN(ColumnVector c, decode());
        // The chunk is held decoded from now on: the pages of the mapped file it was read from
        // need not stay in the process's resident memory (they come back if read again).
        reader.ReleasePages();
        int64_t size = 64 + static_cast<int64_t>(c.ints.capacity() * 8 + c.doubles.capacity() * 8 +
                                                 c.strings.memory_bytes() + c.nulls.capacity());
        return std::make_pair(std::move(c), size);
      });
}

format::parquet::RowRanges RangesOf(const std::vector<uint32_t>& rows, int64_t offset) {
  format::parquet::RowRanges out;
  for (uint32_t r : rows) {
    const int64_t at = offset + r;
    if (!out.empty() && out.back().second == at) {
      out.back().second++;
    } else {
      out.push_back({at, at + 1});
    }
  }
  return out;
}

struct ColumnFileReader::State {
  DataFileRef file{std::string()};
  const FileLayout* layout = nullptr;
  std::vector<int> columns;
  std::vector<Predicate> filters;
  ParquetReaderPtr reader;
  std::vector<int> table_cols;  // the output columns, then filter columns
  std::vector<int> file_col;    // file column of each
  int kind_col = -1;
  std::vector<size_t> first_pos, other_pos;  // positions in table_cols
  std::vector<int> first_cols, other_cols;   // their file columns (first: + the row kind)
  format::parquet::RowGroupFilter group_filter;
  int rg = -1;                                    // the row group being read
  int64_t rg_rows = 0;                            // its rows
  int64_t rg_first = 0;                           // the file position of its first row
  int64_t at = 0;                                 // the next row of it to read
  const std::vector<int64_t>* deleted = nullptr;  // positions dropped (a deletion vector)
  bool with_kinds = false;                        // retractions kept, kinds returned
};

ColumnFileReader::ColumnFileReader() = default;
ColumnFileReader::~ColumnFileReader() = default;

Result<std::unique_ptr<ColumnFileReader>> ColumnFileReader::Open(
    const DataFileRef& file, const FileLayout& layout, const std::vector<int>& columns,
    const std::vector<Predicate>* skip_filters, const std::vector<Predicate>* row_filters,
    const std::vector<int64_t>* deleted, bool with_kinds) {
  const std::string& path = file.path;
  if (!ReadsColumns(path)) return std::unique_ptr<ColumnFileReader>();
  auto st = std::make_unique<State>();
  st->file = file;
  st->with_kinds = with_kinds && layout.primary_key;
  st->deleted = deleted && !deleted->empty() ? deleted : nullptr;
  st->layout = &layout;
  st->columns = columns;
  if (row_filters) st->filters = *row_filters;
  TRIB_ASSIGN_OR_RETURN(st->reader, OpenParquet(file));
  const auto& schema = st->reader->schema();
  st->table_cols = columns;
  for (const auto& p : st->filters) {
    if (std::find(st->table_cols.begin(), st->table_cols.end(), p.column) == st->table_cols.end()) {
      st->table_cols.push_back(p.column);
    }
  }
  st->file_col.resize(st->table_cols.size());
  for (size_t i = 0; i < st->table_cols.size(); i++) {
    const Field& f = layout.fields[st->table_cols[i]];
    int c = FileColumnOf(schema, f);
    if (c < 0)
      return std::unique_ptr<ColumnFileReader>();  // missing columns read as NULL: the row path
                                                   // does that
    auto type = st->reader->ColumnType(c);
    // The file was written with the read schema; its Parquet type may still say less (STRING
    // for VARCHAR(n)), so only the kind of value is compared.
    if (!type || type->id != f.type.id) return std::unique_ptr<ColumnFileReader>();
    st->file_col[i] = c;
  }
  // A file whose manifest entry counts no retraction: every record is kept, its kinds unread.
  if (layout.primary_key && (st->with_kinds || file.delete_rows != 0)) {
    st->kind_col = schema.FindColumn("_VALUE_KIND");
    if (st->kind_col < 0) {
      return Status::Corruption("data file '" + path + "' lacks the _VALUE_KIND column");
    }
  }
  // Filter columns (and the row kind) are decoded first.
  for (size_t i = 0; i < st->table_cols.size(); i++) {
    bool f = std::any_of(st->filters.begin(), st->filters.end(),
                         [&](const Predicate& p) { return p.column == st->table_cols[i]; });
    (f ? st->first_pos : st->other_pos).push_back(i);
  }
  for (size_t i : st->first_pos) st->first_cols.push_back(st->file_col[i]);
  if (st->kind_col >= 0) st->first_cols.push_back(st->kind_col);
  for (size_t i : st->other_pos) st->other_cols.push_back(st->file_col[i]);
  st->group_filter = RowGroupFilterFor(schema, layout, nullptr, skip_filters);
  std::unique_ptr<ColumnFileReader> r(new ColumnFileReader());
  r->state_ = std::move(st);
  return r;
}

Result<bool> ColumnFileReader::Next(size_t max_rows, ColumnBatch* out) {
  State& st = *state_;
  const auto& reader = st.reader;
  const std::string& path = st.file.path;
  auto fail = [&](const Status& s) { return s.WithContext("data file '" + path + "'"); };
  while (true) {
    if (st.rg < 0 || st.at >= st.rg_rows) {
      // The next row group the statistics keep.
      do {
        if (st.rg >= 0) st.rg_first += reader->metadata().row_groups[st.rg].num_rows;
        st.rg++;
        if (st.rg >= reader->num_row_groups()) return false;
      } while (st.group_filter && !st.group_filter(reader->RowGroupStatistics(st.rg)));
      st.rg_rows = reader->metadata().row_groups[st.rg].num_rows;
      st.at = 0;
      if (st.rg_rows == 0) continue;
    }
    const int rg = st.rg;
    // A slice of the row group, or all of it.
    const bool whole = max_rows == 0 || st.rg_rows <= static_cast<int64_t>(max_rows);
    const int64_t begin = st.at;
    const int64_t end = whole ? st.rg_rows : std::min<int64_t>(st.rg_rows, begin + max_rows);
    st.at = end;
    const format::parquet::RowRanges slice = {{begin, end}};
    const size_t n = static_cast<size_t>(end - begin);
    std::vector<ColumnVector> got(st.table_cols.size());
    std::vector<bool> picked(st.table_cols.size(), false);  // holds only the selected rows
    // Decodes file columns `cols` into got[pos[k]] (a trailing extra column stays in *rest).
    // Chunks of a flat representation read whole come from the process-wide cache
    // (ReadWholeChunk), with `rows` only the rows selected copied out; other columns, with
    // `sel` (the same rows as ranges), only for the rows selected (their values alone are
    // copied out of the pages).
    auto decode = [&](const std::vector<int>& cols, const std::vector<size_t>& pos,
                      std::vector<ColumnVector>* rest, const format::parquet::RowRanges* sel,
                      const std::vector<uint32_t>* rows, size_t sel_rows) -> Status {
      rest->assign(cols.size(), ColumnVector());
      std::vector<bool> partial(cols.size(), false);
      std::vector<int> fresh;
      std::vector<size_t> fresh_at;
      for (size_t k = 0; k < cols.size(); k++) {
        auto type = reader->ColumnType(cols[k]);
        auto rep = type ? ColumnVector::RepOf(*type) : ColumnVector::Rep::kValue;
        if (!whole || !ChunkCacheable(rep)) {
          fresh.push_back(cols[k]);
          fresh_at.push_back(k);
          continue;
        }
        TRIB_ASSIGN_OR_RETURN(auto cached, ReadWholeChunk(*reader, path, rg, cols[k]));
        if (rows) {
          ColumnVector& v = (*rest)[k];
          v.type = cached->type;
          v.rep = cached->rep;
          v.AppendRows(*cached, *rows);
          partial[k] = true;
        } else {
          (*rest)[k] = *cached;
        }
      }
      if (!fresh.empty()) {
        auto decoded = reader->ReadRowGroupVectors(rg, fresh, sel ? sel : whole ? nullptr : &slice);
        if (!decoded.ok()) return decoded.status().WithContext("data file '" + path + "'");
        for (size_t k = 0; k < fresh.size(); k++) {
          (*rest)[fresh_at[k]] = std::move((*decoded)[k]);
          partial[fresh_at[k]] = sel != nullptr;
        }
      }
      for (size_t k = 0; k < rest->size(); k++) {
        if ((*rest)[k].size() != (partial[k] ? sel_rows : n)) {
          return Status::Corruption("data file '" + path + "': a column chunk's row count differs");
        }
      }
      for (size_t k = 0; k < pos.size(); k++) {
        got[pos[k]] = std::move((*rest)[k]);
        picked[pos[k]] = partial[k];
      }
      return Status::OK();
    };
    // Which rows are kept: by kinds, filters and the deletion vector (none read: every row).
    std::vector<uint8_t> keep(st.first_cols.empty() && !st.deleted ? 0 : n, 1);
    ColumnVector kinds_read;  // with_kinds
    if (!st.first_cols.empty()) {
      std::vector<ColumnVector> first;
      Status s = decode(st.first_cols, st.first_pos, &first, nullptr, nullptr, 0);
      if (!s.ok()) return fail(s);
      if (st.kind_col >= 0) {
        const ColumnVector& kinds = first.back();
        bool bad = kinds.rep != ColumnVector::Rep::kInt || !kinds.nulls.empty();
        if (!bad) {
          // Kinds 0..3; the adds (+I 0, +U 2) are the even ones.
          const int64_t* k = kinds.ints.data();
          uint8_t* kp = keep.data();
          uint64_t out_of_range = 0;
          for (size_t r = 0; r < n; r++) {
            out_of_range |= static_cast<uint64_t>(k[r]) > 3;
            kp[r] = st.with_kinds || (k[r] & 1) == 0;
          }
          bad = out_of_range != 0;
        }
        for (size_t r = 0; bad && r < n; r++) {
          int64_t kind =
              kinds.rep == ColumnVector::Rep::kInt && !kinds.IsNull(r) ? kinds.ints[r] : -1;
          if (kind < 0 || kind > 3) {
            return fail(Status::Corruption("invalid _VALUE_KIND in row " +
                                           std::to_string(begin + static_cast<int64_t>(r))));
          }
        }
        if (st.with_kinds) kinds_read = std::move(first.back());
      }
      for (const auto& p : st.filters) {
        size_t i =
            std::find(st.table_cols.begin(), st.table_cols.end(), p.column) - st.table_cols.begin();
        FilterColumn(p, got[i], &keep);
      }
    }
    if (st.deleted && !keep.empty()) {
      // The rows a deletion vector deletes, by their position in the file.
      const int64_t first = st.rg_first + begin;
      auto it = std::lower_bound(st.deleted->begin(), st.deleted->end(), first);
      for (; it != st.deleted->end() && *it < first + static_cast<int64_t>(n); ++it) {
        keep[static_cast<size_t>(*it - first)] = 0;
      }
    }
    size_t kept = keep.empty() ? n : 0;
    for (size_t r = 0; r < keep.size(); r++) kept += keep[r];
    if (kept == 0) continue;
    std::vector<uint32_t> selected;  // the rows kept, when not all are
    if (kept < n) {
      // Branch-free: every row is written, only the kept ones advance.
      selected.resize(n + 1);
      size_t j = 0;
      for (size_t r = 0; r < n; r++) {
        selected[j] = static_cast<uint32_t>(r);
        j += keep[r];
      }
      selected.resize(j);
    }
    if (!st.other_cols.empty()) {
      std::vector<ColumnVector> other;
      // Rows dropped: the other columns are decoded for the selected rows alone (as ranges of
      // rows for the columns decoded from pages; a cached chunk takes the row list).
      const bool sparse = kept < n;
      bool ranges = !whole;
      for (int c : st.other_cols) {
        auto type = reader->ColumnType(c);
        ranges = ranges ||
                 !ChunkCacheable(type ? ColumnVector::RepOf(*type) : ColumnVector::Rep::kValue);
      }
      const format::parquet::RowRanges sel =
          sparse && ranges ? RangesOf(selected, begin) : format::parquet::RowRanges();
      Status s = decode(st.other_cols, st.other_pos, &other, sparse && ranges ? &sel : nullptr,
                        sparse ? &selected : nullptr, selected.size());
      if (!s.ok()) return fail(s);
    }
    ColumnBatch batch;
    batch.num_rows = kept;
    for (size_t i = 0; i < st.columns.size(); i++) {
      ColumnVector& v = got[i];
      // Values read with the file's type; the column's declared type (nullability, length) is
      // the table's.
      v.type = st.layout->fields[st.columns[i]].type;
      if (kept == n || picked[i]) {
        batch.columns.push_back(std::move(v));
      } else {
        ColumnVector picked;
        picked.type = v.type;
        picked.rep = v.rep;
        picked.AppendRows(v, selected);
        batch.columns.push_back(std::move(picked));
      }
    }
    if (st.with_kinds) {
      if (kept < n) kinds_read.KeepRows(selected);
      batch.columns.push_back(std::move(kinds_read));
    }
    *out = std::move(batch);
    return true;
  }
}

Result<std::optional<std::vector<ColumnBatch>>> ReadDataFileColumns(
    const DataFileRef& file, const FileLayout& layout, const std::vector<int>& columns,
    const std::vector<Predicate>* skip_filters, const std::vector<Predicate>* row_filters,
    const std::vector<int64_t>* deleted) {
  using Batches = std::optional<std::vector<ColumnBatch>>;
  TRIB_ASSIGN_OR_RETURN(auto reader, ColumnFileReader::Open(file, layout, columns, skip_filters,
                                                            row_filters, deleted));
  if (!reader) return Batches();
  std::vector<ColumnBatch> out;
  ColumnBatch b;
  while (true) {
    TRIB_ASSIGN_OR_RETURN(bool more, reader->Next(0, &b));
    if (!more) break;
    out.push_back(std::move(b));
  }
  return Batches(std::move(out));
}

}  // namespace tributary::datafile
