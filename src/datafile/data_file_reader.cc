#include <algorithm>
#include <cstring>

#include "common/evolution_cast.h"
#include "common/predicate.h"
#include "datafile/data_file.h"
#include "datafile/file_format.h"
#include "datafile/parquet_file.h"
#include "format/avro.h"
#include "format/avro_values.h"
#include "format/blob_file.h"
#include "format/parquet/reader.h"
#include "io/file_cache.h"
#include "io/file_system.h"
#include "io/ranged_file.h"

namespace tributary::datafile {

using io::FileCache;

using avro::Datum;
using avro::DatumList;
using merge::KeyValue;

namespace {

// Rows of row group `rg` that the page index (per-page min/max and null counts of the filter
// columns) cannot rule out, for the checks (projected position, predicate) all holding;
// nullopt when no filter column has a usable page index.
Result<std::optional<format::parquet::RowRanges>> PageIndexRows(
    const format::parquet::ParquetReader& reader, int rg, const std::vector<int>& projection,
    const std::vector<std::pair<size_t, const Predicate*>>& checks) {
  using format::parquet::RowRanges;
  const int64_t num_rows = reader.metadata().row_groups[rg].num_rows;
  std::optional<RowRanges> wanted;
  for (const auto& [pos, p] : checks) {
    TRIB_ASSIGN_OR_RETURN(auto pages, reader.PageStatistics(rg, projection[pos]));
    RowRanges ranges;
    int64_t start = 0;
    bool usable = !pages.empty();
    for (const auto& page : pages) {
      if (page.num_values <= 0) {  // no offset index: rows per page unknown
        usable = false;
        break;
      }
      bool may = true;
      if (p->op == Predicate::Op::kIsNull) {
        may = !page.null_count || *page.null_count > 0;
      } else if (page.min && page.max) {
        may = MayMatchRange(*p, *page.min, *page.max);
      } else if (page.null_count && *page.null_count == page.num_values) {
        may = p->op == Predicate::Op::kIsNull;  // only NULLs on the page
      }
      if (may) {
        if (!ranges.empty() && ranges.back().second == start) {
          ranges.back().second = start + page.num_values;
        } else {
          ranges.push_back({start, start + page.num_values});
        }
      }
      start += page.num_values;
    }
    if (!usable || start != num_rows) continue;
    if (!wanted) {
      wanted = std::move(ranges);
      continue;
    }
    RowRanges both;  // intersection of two sorted lists of ranges
    size_t a = 0, b = 0;
    while (a < wanted->size() && b < ranges.size()) {
      int64_t lo = std::max((*wanted)[a].first, ranges[b].first);
      int64_t hi = std::min((*wanted)[a].second, ranges[b].second);
      if (lo < hi) both.push_back({lo, hi});
      ((*wanted)[a].second < ranges[b].second ? a : b)++;
    }
    wanted = std::move(both);
  }
  return wanted;
}

// The rows of a Parquet file: its row groups' (some writers leave FileMetaData.num_rows wrong).
int64_t RowsOf(const format::parquet::ParquetReader& reader) {
  int64_t rows = 0;
  for (const auto& g : reader.metadata().row_groups) rows += g.num_rows;
  return rows;
}

}  // namespace

// Where a read-schema column comes from in a file written with an older schema: the file's field
// with the same id (its name and type then), or nothing (the column was added later: NULL).
const Field* SourceField(const Field& read, const std::vector<Field>* file_fields) {
  if (!file_fields) return &read;
  for (const auto& f : *file_fields) {
    if (f.id == read.id) return &f;
  }
  return nullptr;
}

// A file must hold the rows its manifest entry records: anything else is a damaged or swapped
// file (or manifest), and reading on would return wrong rows.
Status CheckRowCount(const DataFileRef& file, int64_t rows) {
  if (file.row_count < 0 || rows == file.row_count) return Status::OK();
  return Status::Corruption("data file '" + file.path + "' holds " + std::to_string(rows) +
                            " rows but its manifest entry records " +
                            std::to_string(file.row_count));
}

// The file column holding table field `f`: by field id (as Paimon matches across renames), else
// by name; -1 when the file lacks it.
int FileColumnOf(const format::parquet::FileSchema& schema, const Field& f) {
  int c = schema.FindColumnById(f.id);
  return c >= 0 ? c : schema.FindColumn(f.name);
}

std::optional<std::vector<int>> RecordColumns(const format::parquet::ParquetReader& reader,
                                              const FileLayout& layout) {
  const auto& schema = reader.schema();
  std::vector<int> cols = {schema.FindColumn("_SEQUENCE_NUMBER"), schema.FindColumn("_VALUE_KIND")};
  if (cols[0] < 0 || cols[1] < 0) return std::nullopt;
  for (const Field& field : layout.fields) {
    const int c = FileColumnOf(schema, field);
    auto type = c >= 0 ? reader.ColumnType(c) : std::nullopt;
    if (!type || type->id != field.type.id) return std::nullopt;
    cols.push_back(c);
  }
  return cols;
}

Status RecordAt(const std::vector<ColumnVector>& columns, size_t row, const std::string& path,
                int64_t position, int32_t level, merge::KeyValue* out) {
  const Value seq = columns[0].Get(row), kind = columns[1].Get(row);
  if (!seq.is_int() || !kind.is_int() || kind.int_value() < 0 || kind.int_value() > 3) {
    return Status::Corruption("data file '" + path + "': row " + std::to_string(position) +
                              " has no valid sequence number or row kind");
  }
  out->sequence = seq.int_value();
  out->kind = static_cast<RowKind>(kind.int_value());
  out->level = level;
  out->write_mask = nullptr;
  out->value.resize(columns.size() - 2);
  for (size_t t = 2; t < columns.size(); t++) out->value[t - 2] = columns[t].Get(row);
  return Status::OK();
}

// An opened Parquet data file (its mapping, or its bytes read when it is small, and its parsed
// footer), kept in the process-wide cache: data files are immutable, so later reads neither open
// the file nor parse its footer again.
// On object storage a data file is read by range (io::RangedFile): its footer with one request
// at open, then the column chunks a read needs; the bytes fetched stay with the cached reader
// and are charged to the cache as they come.
Result<std::pair<ParquetReaderPtr, int64_t>> OpenRemoteParquet(const std::string& path,
                                                               const std::string& cache_key) {
  TRIB_ASSIGN_OR_RETURN(std::shared_ptr<io::RangedFile> ranged, io::RangedFile::Open(path));
  const io::RangedFile* raw = ranged.get();  // lives as long as the reader
  std::string_view view = ranged->data();
  auto reader = format::parquet::ParquetReader::Open(
      std::move(ranged), view, nullptr,
      [raw](int64_t offset, int64_t length) { return raw->Ensure(offset, length); });
  if (!reader.ok()) return reader.status().WithContext("data file '" + path + "'");
  raw->OnFetch([cache_key](int64_t bytes) { FileCache::Instance().AddCharge(cache_key, bytes); });
  return std::make_pair(ParquetReaderPtr(std::move(*reader)), 4096 + raw->fetched());
}

Result<ParquetReaderPtr> OpenParquet(const DataFileRef& file) {
  const std::string& path = file.path;
  const std::string key = "parquet:" + path;
  TRIB_ASSIGN_OR_RETURN(
      auto cached, FileCache::Instance().GetOrLoad<ParquetReaderPtr>(
                       key, [&]() -> Result<std::pair<ParquetReaderPtr, int64_t>> {
                         if (io::IsObjectStoreUri(path)) return OpenRemoteParquet(path, key);
                         // Small files are read rather than mapped (thousands of buckets'
                         // level-0 files: bench/HISTORY.md), unless the cache is so small that
                         // a file's bytes held in memory would crowd it (then its pages are
                         // read as needed, a point lookup touching a few of them).
                         const size_t read_below = static_cast<size_t>(std::clamp<int64_t>(
                             FileCache::Instance().Capacity() / 64, 0, io::MappedFile::kReadBelow));
                         TRIB_ASSIGN_OR_RETURN(auto file, io::LocalFs().MapFile(path, read_below));
                         std::string_view view = file->data();
                         const io::MappedFile* mapped = file.get();  // lives as long as the reader
                         // A file read (under read_below): its bytes are memory of the
                         // process's, charged to the cache.
                         const int64_t read =
                             mapped->mapped() ? 0 : static_cast<int64_t>(view.size());
                         auto reader = format::parquet::ParquetReader::Open(
                             std::move(file), view, [mapped]() { mapped->ReleasePages(); });
                         if (!reader.ok())
                           return reader.status().WithContext("data file '" + path + "'");
                         // The footer in memory (mapped bytes are the kernel's page cache).
                         int64_t charge = 4096 + read;
                         for (const auto& g : (*reader)->metadata().row_groups) {
                           charge += 256 * static_cast<int64_t>(g.columns.size());
                         }
                         return std::make_pair(ParquetReaderPtr(std::move(*reader)), charge);
                       }));
  TRIB_RETURN_NOT_OK(CheckRowCount(file, RowsOf(**cached)));
  return *cached;
}

// Row groups whose statistics rule out one of `skip_filters` are not decoded: the filter that
// says so, or an empty one.
format::parquet::RowGroupFilter RowGroupFilterFor(const format::parquet::FileSchema& schema,
                                                  const FileLayout& layout,
                                                  const std::vector<Field>* file_fields,
                                                  const std::vector<Predicate>* skip_filters) {
  if (!skip_filters || skip_filters->empty()) return {};
  std::vector<std::pair<int, const Predicate*>> checks;  // file column, predicate
  for (const auto& p : *skip_filters) {
    const Field* src = SourceField(layout.fields[p.column], file_fields);
    if (!src || !src->type.SameKind(layout.fields[p.column].type)) continue;
    int c = FileColumnOf(schema, *src);
    if (c >= 0) checks.push_back({c, &p});
  }
  if (checks.empty()) return {};
  return [checks](const format::parquet::RowGroupStats& stats) {
    for (const auto& [c, p] : checks) {
      if (c >= static_cast<int>(stats.columns.size())) continue;
      const auto& cs = stats.columns[c];
      if (!cs.min || !cs.max) continue;
      if (!MayMatchRange(*p, *cs.min, *cs.max)) return false;
    }
    return true;
  };
}

namespace {

// A record of `n` NULL values (sequence = its position in the file until its own is read).
KeyValue EmptyRecord(int32_t level, const std::shared_ptr<const std::vector<bool>>& mask, size_t n,
                     int64_t position) {
  KeyValue kv;
  kv.level = level;
  kv.write_mask = mask;
  kv.value.resize(n);
  kv.sequence = position;
  return kv;
}

// The records of every row group `opts` keeps, built straight from the decoded column vectors
// (strings moved, not copied; sequence and kind read as integers). `target[i]`: the table column
// of projected file column i (-1 sequence, -2 kind); `cast[i]`: whether it changed type.
Result<std::vector<KeyValue>> ReadParquetRecords(
    const std::string& path, const format::parquet::ParquetReader& reader,
    const format::parquet::ParquetReadOptions& opts, const std::vector<int>& projection,
    const std::vector<int>& target, const std::vector<bool>& cast,
    const std::vector<const Field*>& sources, const FileLayout& layout, int32_t level,
    const std::shared_ptr<const std::vector<bool>>& mask, const TimeZone* time_zone) {
  auto fail = [&](const Status& st) { return st.WithContext("data file '" + path + "'"); };
  std::vector<KeyValue> out;
  int64_t row_number = 0;
  for (int rg = 0; rg < reader.num_row_groups(); rg++) {
    if (opts.row_group_filter && !opts.row_group_filter(reader.RowGroupStatistics(rg))) continue;
    // No column projected (an append file read for its row count): nothing decoded (the
    // reader takes an empty projection as every column).
    auto cols = projection.empty() ? Result<std::vector<ColumnVector>>(std::vector<ColumnVector>())
                                   : reader.ReadRowGroupVectors(rg, projection);
    if (!cols.ok()) return fail(cols.status());
    const size_t n = static_cast<size_t>(reader.metadata().row_groups[rg].num_rows);
    for (const auto& c : *cols) {
      if (c.size() != n) return fail(Status::Corruption("a column chunk's row count differs"));
    }
    out.reserve(out.size() + n);
    for (size_t r = 0; r < n; r++) {
      KeyValue kv = EmptyRecord(level, mask, layout.fields.size(), row_number++);
      for (size_t i = 0; i < target.size(); i++) {
        ColumnVector& col = (*cols)[i];
        if (target[i] < 0) {
          int64_t x = col.rep == ColumnVector::Rep::kInt && !col.IsNull(r) ? col.ints[r] : -1;
          if (target[i] == -1) {
            if (col.rep != ColumnVector::Rep::kInt || col.IsNull(r)) {
              return fail(Status::Corruption("bad _SEQUENCE_NUMBER"));
            }
            kv.sequence = x;
          } else {
            if (x < 0 || x > 3) return fail(Status::Corruption("invalid _VALUE_KIND"));
            kv.kind = static_cast<RowKind>(x);
          }
          continue;
        }
        Value v;
        if (!col.IsNull(r)) {
          switch (col.rep) {
            case ColumnVector::Rep::kInt:
              v = col.type.id == TypeId::kBoolean ? Value::Bool(col.ints[r] != 0)
                                                  : Value::Int(col.ints[r]);
              break;
            case ColumnVector::Rep::kDouble:
              v = Value::Double(col.doubles[r]);
              break;
            case ColumnVector::Rep::kString:
              v = Value::String(std::string(col.strings[r]));
              break;
            case ColumnVector::Rep::kValue:
              v = std::move(col.values[r]);
              break;
          }
        }
        if (cast[i]) {
          auto c = CastEvolvedValue(v, sources[i]->type, layout.fields[target[i]].type, time_zone);
          if (!c.ok()) return fail(c.status());
          v = std::move(*c);
        }
        kv.value[target[i]] = std::move(v);
      }
      out.push_back(std::move(kv));
    }
  }
  return out;
}

// Reads a Parquet data file: table columns are matched by field id (as Paimon does across renames),
// else by name; the system columns by name.
Result<std::vector<KeyValue>> ReadParquetFile(const std::string& path, ParquetReaderPtr reader,
                                              const FileLayout& layout, int32_t level,
                                              const std::shared_ptr<const std::vector<bool>>& mask,
                                              const std::vector<Field>* file_fields,
                                              const ReadPushdown& pushdown) {
  const std::vector<bool>* needed = pushdown.needed;
  const std::vector<Predicate>* skip_filters = pushdown.skip_filters;
  const auto& schema = reader->schema();
  std::vector<int> projection;
  std::vector<int> target;  // table column of each projected column; -1 seq, -2 kind
  std::vector<const Field*> sources;
  for (size_t i = 0; i < layout.fields.size(); i++) {
    if (needed && !(*needed)[i]) continue;
    const Field* src = SourceField(layout.fields[i], file_fields);
    if (!src) continue;
    int c = FileColumnOf(schema, *src);
    if (c < 0) continue;
    const auto& stored = schema.columns()[c].type;
    if (stored && !StoredTypeFits(*stored, src->type)) {
      return Status::Corruption("data file '" + path + "': column '" + src->name +
                                "' is stored as " + stored->ToString() +
                                " but the file's schema declares " + src->type.ToString());
    }
    projection.push_back(c);
    target.push_back(static_cast<int>(i));
    sources.push_back(src);
  }
  if (layout.primary_key) {
    int seq = schema.FindColumn("_SEQUENCE_NUMBER");
    int kind = schema.FindColumn("_VALUE_KIND");
    if (seq < 0 || kind < 0) {
      return Status::Corruption("data file '" + path +
                                "' lacks _SEQUENCE_NUMBER/_VALUE_KIND columns");
    }
    projection.push_back(seq);
    target.push_back(-1);
    projection.push_back(kind);
    target.push_back(-2);
  }
  format::parquet::ParquetReadOptions opts;
  opts.projection = projection;
  opts.row_group_filter = RowGroupFilterFor(schema, layout, file_fields, skip_filters);
  // Whether each column's type changed since the file was written (decided once, not per value).
  // Nested columns are read in the file's shape (no evolution inside nested types yet).
  std::vector<bool> cast(target.size(), false);
  for (size_t i = 0; i < target.size(); i++) {
    if (target[i] < 0) continue;
    const DataType& to = layout.fields[target[i]].type;
    cast[i] = !sources[i]->type.SameKind(to) && !to.IsNested();
  }
  // Late materialization: with row filters on projected, uncast columns, decode those columns
  // first and the others only for the rows that pass.
  std::vector<std::pair<size_t, const Predicate*>> row_checks;  // projected position, predicate
  bool late = pushdown.row_filters && !pushdown.row_filters->empty();
  for (size_t k = 0; late && k < pushdown.row_filters->size(); k++) {
    const Predicate& p = (*pushdown.row_filters)[k];
    auto it = std::find(target.begin(), target.end(), p.column);
    if (it == target.end() || cast[it - target.begin()]) {
      late = false;
    } else {
      row_checks.push_back({static_cast<size_t>(it - target.begin()), &p});
    }
  }
  Result<std::vector<Row>> rows = std::vector<Row>{};
  if (late) {
    std::vector<size_t> filter_pos, other_pos;
    for (size_t i = 0; i < projection.size(); i++) {
      bool f = std::any_of(row_checks.begin(), row_checks.end(),
                           [&](const auto& c) { return c.first == i; });
      (f ? filter_pos : other_pos).push_back(i);
    }
    // Where each check's column lands among the filter columns.
    std::vector<size_t> check_col;
    for (const auto& c : row_checks) {
      check_col.push_back(std::find(filter_pos.begin(), filter_pos.end(), c.first) -
                          filter_pos.begin());
    }
    auto pick = [&](const std::vector<size_t>& pos) {
      std::vector<int> cols;
      for (size_t i : pos) cols.push_back(projection[i]);
      return cols;
    };
    const std::vector<int> filter_cols = pick(filter_pos), other_cols = pick(other_pos);
    for (int rg = 0; rg < reader->num_row_groups(); rg++) {
      if (opts.row_group_filter && !opts.row_group_filter(reader->RowGroupStatistics(rg))) {
        continue;
      }
      // The page index narrows the row group to pages whose statistics allow a match; the
      // other pages are not decoded.
      auto wanted = PageIndexRows(*reader, rg, projection, row_checks);
      if (!wanted.ok()) return wanted.status().WithContext("data file '" + path + "'");
      if (*wanted && (*wanted)->empty()) continue;
      const format::parquet::RowRanges* rows_wanted = *wanted ? &**wanted : nullptr;
      auto fcols = reader->ReadRowGroupColumns(rg, filter_cols, rows_wanted);
      if (!fcols.ok()) return fcols.status().WithContext("data file '" + path + "'");
      // With page ranges the columns hold only the rows of those ranges, all in the same order.
      const size_t n = fcols->empty() ? 0 : (*fcols)[0].size();
      std::vector<uint32_t> selected;
      for (size_t r = 0; r < n; r++) {
        bool pass = true;
        for (size_t k = 0; k < row_checks.size() && pass; k++) {
          pass = EvalPredicate(*row_checks[k].second, (*fcols)[check_col[k]][r]);
        }
        if (pass) selected.push_back(static_cast<uint32_t>(r));
      }
      if (selected.empty()) continue;
      std::vector<std::vector<Value>> ocols;
      if (!other_cols.empty()) {
        auto o = reader->ReadRowGroupColumns(rg, other_cols, rows_wanted);
        if (!o.ok()) return o.status().WithContext("data file '" + path + "'");
        ocols = std::move(*o);
      }
      for (uint32_t r : selected) {
        Row row(projection.size());
        for (size_t j = 0; j < filter_pos.size(); j++)
          row[filter_pos[j]] = std::move((*fcols)[j][r]);
        for (size_t j = 0; j < other_pos.size(); j++) row[other_pos[j]] = std::move(ocols[j][r]);
        rows->push_back(std::move(row));
      }
    }
  } else {
    return ReadParquetRecords(path, *reader, opts, projection, target, cast, sources, layout, level,
                              mask, pushdown.time_zone);
  }
  if (!rows.ok()) return rows.status().WithContext("data file '" + path + "'");
  std::vector<KeyValue> out;
  out.reserve(rows->size());
  int64_t row_number = 0;
  for (auto& r : *rows) {
    KeyValue kv = EmptyRecord(level, mask, layout.fields.size(), row_number++);
    for (size_t i = 0; i < target.size(); i++) {
      if (target[i] >= 0) {
        const DataType& to = layout.fields[target[i]].type;
        if (cast[i]) {
          auto cast = CastEvolvedValue(r[i], sources[i]->type, to, pushdown.time_zone);
          if (!cast.ok()) return cast.status().WithContext("data file '" + path + "'");
          kv.value[target[i]] = std::move(*cast);
        } else {
          kv.value[target[i]] = std::move(r[i]);
        }
      } else if (target[i] == -1) {
        if (!r[i].is_int())
          return Status::Corruption("data file '" + path + "': bad _SEQUENCE_NUMBER");
        kv.sequence = r[i].int_value();
      } else {
        if (!r[i].is_int() || r[i].int_value() < 0 || r[i].int_value() > 3) {
          return Status::Corruption("data file '" + path + "' has an invalid _VALUE_KIND");
        }
        kv.kind = static_cast<RowKind>(r[i].int_value());
      }
    }
    out.push_back(std::move(kv));
  }
  return out;
}
}  // namespace

namespace {
// The records of a `.blob` file (format/blob_file.h) as rows of the one column it holds.
Result<std::vector<KeyValue>> ReadBlobFile(
    const std::string& path, const std::string& bytes, const FileLayout& layout,
    const std::optional<std::vector<std::string>>& write_cols,
    const std::vector<Field>* file_fields, int32_t level) {
  auto bad = [&](const std::string& why) {
    return Status::Corruption("blob file '" + path + "': " + why);
  };
  // The column it holds: the one its _WRITE_COLS names (in the schema it was written with).
  int column = -1;
  if (write_cols && write_cols->size() == 1) {
    const std::vector<Field>& ff = file_fields ? *file_fields : layout.fields;
    for (const auto& f : ff) {
      if (f.name != (*write_cols)[0]) continue;
      for (size_t i = 0; i < layout.fields.size(); i++) {
        if (layout.fields[i].id == f.id) column = static_cast<int>(i);
      }
    }
  }
  if (column < 0) return bad("cannot tell which column it holds");
  auto values = format::ReadBlobValues(bytes);
  if (!values.ok()) return bad(values.status().message());
  std::vector<KeyValue> out;
  for (std::string_view v : *values) {
    KeyValue kv;
    kv.level = level;
    kv.sequence = static_cast<int64_t>(out.size());
    kv.value.resize(layout.fields.size());
    kv.value[column] = Value::String(std::string(v));
    out.push_back(std::move(kv));
  }
  return out;
}
}  // namespace

Result<std::vector<KeyValue>> ReadParquetRecords(
    const DataFileRef& file, const FileLayout& layout, int32_t level,
    const std::shared_ptr<const std::vector<bool>>& mask, const std::vector<Field>* file_fields,
    const ReadPushdown& pushdown) {
  // Mapped, not read: only the pages of the decoded columns are touched.
  TRIB_ASSIGN_OR_RETURN(auto reader, OpenParquet(file));
  return ReadParquetFile(file.path, std::move(reader), layout, level, mask, file_fields, pushdown);
}

Result<std::vector<KeyValue>> ReadBlobRecords(
    const DataFileRef& file, const FileLayout& layout, int32_t level,
    const std::optional<std::vector<std::string>>& write_cols,
    const std::vector<Field>* file_fields) {
  TRIB_ASSIGN_OR_RETURN(std::string bytes, io::LocalFs().ReadFile(file.path));
  return ReadBlobFile(file.path, bytes, layout, write_cols, file_fields, level);
}

Result<std::vector<KeyValue>> ReadAvroRecords(const DataFileRef& file, const FileLayout& layout,
                                              int32_t level,
                                              const std::shared_ptr<const std::vector<bool>>& mask,
                                              const std::vector<Field>* file_fields,
                                              const ReadPushdown& pushdown) {
  const std::string& path = file.path;
  const std::vector<bool>* needed = pushdown.needed;
  auto bytes = io::LocalFs().ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  auto reader = avro::FileReader::Open(std::move(*bytes));
  if (!reader.ok()) return reader.status().WithContext("data file '" + path + "'");
  const avro::Schema& schema = (*reader)->schema()->NonNull();
  // Where each table column sits in the file's records.
  std::vector<DataType> src_types;
  std::vector<int> pos(layout.fields.size(), -1);
  for (size_t i = 0; i < layout.fields.size(); i++) {
    const Field* src =
        (needed && !(*needed)[i]) ? nullptr : SourceField(layout.fields[i], file_fields);
    pos[i] = src ? schema.FieldIndex(src->name) : -1;
    src_types.push_back(src ? src->type : layout.fields[i].type);
  }
  int seq_pos = schema.FieldIndex("_SEQUENCE_NUMBER");
  int kind_pos = schema.FieldIndex("_VALUE_KIND");
  if (layout.primary_key && (seq_pos < 0 || kind_pos < 0)) {
    return Status::Corruption("data file '" + path +
                              "' lacks _SEQUENCE_NUMBER/_VALUE_KIND columns");
  }
  std::vector<KeyValue> out;
  Datum d;
  int64_t row_number = 0;
  while (true) {
    auto more = (*reader)->Next(&d);
    if (!more.ok()) return more.status().WithContext("data file '" + path + "'");
    if (!*more) break;
    const DatumList& rec = d.as_list();
    KeyValue kv;
    kv.level = level;
    kv.write_mask = mask;
    kv.value.resize(layout.fields.size());
    for (size_t i = 0; i < layout.fields.size(); i++) {
      if (pos[i] < 0) continue;
      auto v = avro::FromDatum(rec[pos[i]], src_types[i], path);
      if (!v.ok()) {
        std::string m = v.status().message();
        if (m.rfind(path + ": ", 0) == 0) m = m.substr(path.size() + 2);
        return Status::Corruption("data file '" + path + "': column '" + layout.fields[i].name +
                                  "': " + m);
      }
      kv.value[i] = std::move(*v);
      if (!src_types[i].SameKind(layout.fields[i].type) && !layout.fields[i].type.IsNested()) {
        auto cast =
            CastEvolvedValue(kv.value[i], src_types[i], layout.fields[i].type, pushdown.time_zone);
        if (!cast.ok()) return cast.status().WithContext("data file '" + path + "'");
        kv.value[i] = std::move(*cast);
      }
    }
    if (layout.primary_key) {
      if (!std::holds_alternative<int64_t>(rec[seq_pos].rep) ||
          !std::holds_alternative<int32_t>(rec[kind_pos].rep)) {
        return Status::Corruption("data file '" + path +
                                  "': _SEQUENCE_NUMBER or _VALUE_KIND has the wrong type");
      }
      kv.sequence = std::get<int64_t>(rec[seq_pos].rep);
      int32_t kind = rec[kind_pos].as_int();
      if (kind < 0 || kind > 3) {
        return Status::Corruption("data file '" + path + "' has an invalid _VALUE_KIND " +
                                  std::to_string(kind));
      }
      kv.kind = static_cast<RowKind>(kind);
    } else {
      kv.sequence = row_number;
    }
    row_number++;
    out.push_back(std::move(kv));
  }
  TRIB_RETURN_NOT_OK(CheckRowCount(file, row_number));
  return out;
}

Result<std::vector<KeyValue>> ReadDataFile(
    const DataFileRef& file, const FileLayout& layout, int32_t level,
    const std::optional<std::vector<std::string>>& write_cols,
    const std::vector<Field>* file_fields, const ReadPushdown& pushdown) {
  const std::string& path = file.path;
  std::shared_ptr<const std::vector<bool>> mask;
  if (write_cols) {
    auto m = std::make_shared<std::vector<bool>>(layout.fields.size(), false);
    for (const auto& c : *write_cols) {
      for (size_t i = 0; i < layout.fields.size(); i++) {
        if (layout.fields[i].name == c) (*m)[i] = true;
      }
    }
    mask = std::move(m);
  }
  const FileFormat* format = FileFormatOfPath(path);
  if (!format) {
    const size_t dot = path.rfind('.');
    const std::string ext = dot == std::string::npos ? "" : path.substr(dot);
    return Status::NotSupported("data file '" + path + "' has format '" + ext +
                                "', which Tributary cannot read (it reads .parquet, .avro and "
                                ".blob)");
  }
  return format->Read(file, layout, level, write_cols, mask, file_fields, pushdown);
}

}  // namespace tributary::datafile
