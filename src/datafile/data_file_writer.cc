#include <algorithm>
#include <chrono>

#include "common/clock.h"
#include "common/datetime.h"
#include "datafile/data_file.h"
#include "datafile/file_format.h"
#include "format/avro.h"
#include "format/binary_row.h"
#include "format/compression.h"
#include "format/file_index.h"
#include "format/parquet/writer.h"
#include "io/file_system.h"
#include "meta/external_paths.h"

namespace tributary::datafile {

using merge::ColumnMergeOutput;
using options::FileFormatOptions;

using merge::KeyValue;

namespace {

// Running min/max/null-count of a set of columns.
class StatsCollector {
 public:
  explicit StatsCollector(std::vector<DataType> types)
      : types_(std::move(types)),
        min_(types_.size()),
        max_(types_.size()),
        nulls_(types_.size(), 0) {}
  void Add(const Row& row, const std::vector<int>* columns) {
    for (size_t i = 0; i < types_.size(); i++) {
      const Value& v = columns ? row[(*columns)[i]] : row[i];
      if (v.is_null()) {
        nulls_[i]++;
        continue;
      }
      if (min_[i].is_null()) {
        min_[i] = v;
        max_[i] = v;
      } else if (merge::FastCompare(v, min_[i]) < 0) {
        min_[i] = v;
      } else if (merge::FastCompare(v, max_[i]) > 0) {
        max_[i] = v;
      }
    }
  }
  // Folds in the minimum, maximum (NULL: none) and NULL count of column i over more rows.
  void AddColumn(size_t i, const Value& mn, const Value& mx, int64_t nulls) {
    nulls_[i] += nulls;
    if (mn.is_null()) return;
    if (min_[i].is_null()) {
      min_[i] = mn;
      max_[i] = mx;
      return;
    }
    if (merge::FastCompare(mn, min_[i]) < 0) min_[i] = mn;
    if (merge::FastCompare(mx, max_[i]) > 0) max_[i] = mx;
  }
  meta::SimpleStats Finish() const {
    meta::SimpleStats s;
    s.min_values = format::SerializeBinaryRow(types_, min_);
    s.max_values = format::SerializeBinaryRow(types_, max_);
    for (int64_t n : nulls_) s.null_counts.push_back(n);
    return s;
  }

 private:
  std::vector<DataType> types_;
  Row min_, max_;
  std::vector<int64_t> nulls_;
};

int64_t NowMillis() { return WallClockMillis(); }

// Value statistics cover the flat columns only: BinaryRows hold no nested values. When a table
// has nested columns, the files name the columns their statistics cover (_VALUE_STATS_COLS).
std::optional<std::vector<int>> StatsColumns(const FileLayout& l) {
  bool nested = false;
  std::vector<int> flat;
  for (size_t i = 0; i < l.fields.size(); i++) {
    if (l.fields[i].type.IsNested()) {
      nested = true;
    } else {
      flat.push_back(static_cast<int>(i));
    }
  }
  if (!nested) return std::nullopt;
  return flat;
}

std::vector<DataType> StatsTypes(const FileLayout& l, const std::optional<std::vector<int>>& c) {
  if (!c) return l.FieldTypes();
  std::vector<DataType> t;
  for (int i : *c) t.push_back(l.fields[i].type);
  return t;
}
}  // namespace

struct DataFileWriter::OpenFile {
  std::string name;
  std::unique_ptr<FormatWriter> writer;
  int64_t EstimatedSize() const { return writer->EstimatedSize(); }
  Result<FileParts> Finish() { return writer->FinishParts(); }
  StatsCollector key_stats;
  StatsCollector value_stats;
  Row min_key, max_key;
  int64_t rows = 0;
  int64_t deletes = 0;
  int64_t min_seq = INT64_MAX, max_seq = INT64_MIN;
  std::optional<std::vector<int>> stats_columns;  // set when the table has nested columns
  // Bloom filters of the columns 'file-index.bloom-filter.columns' names: (table column, filter).
  std::vector<std::pair<int, format::BloomFilter64>> blooms;
  OpenFile(const FileLayout& l, std::optional<std::vector<int>> stats)
      : key_stats(l.KeyTypes()),
        value_stats(StatsTypes(l, stats)),
        stats_columns(std::move(stats)) {}
};

DataFileWriter::DataFileWriter(FileLayout layout, std::string bucket_dir, meta::FileNamer* namer,
                               int64_t target_file_size, int32_t level, meta::FileSource source,
                               const FileFormatOptions& format,
                               std::optional<std::vector<std::string>> write_cols)
    : layout_(std::move(layout)),
      dir_(NewFileDir(*namer, bucket_dir)),
      namer_(namer),
      target_file_size_(target_file_size),
      level_(level),
      source_(source),
      format_(format),
      write_cols_(std::move(write_cols)) {}

DataFileWriter::~DataFileWriter() = default;

Status DataFileWriter::Open() {
  auto f = std::make_unique<OpenFile>(layout_, StatsColumns(layout_));
  const std::string name = format_.FormatForLevel(level_);
  const FileFormat* format = FindFileFormat(name);
  if (!format) {
    return Status::NotSupported("file.format '" + name + "' cannot be written (Tributary writes " +
                                WritableFormatNames() + ")");
  }
  TRIB_ASSIGN_OR_RETURN(f->writer, format->NewWriter(layout_.PhysicalFields(), format_));
  f->name = namer_->Next() + std::string(format->extension());
  for (const auto& b : format_.bloom_filter_columns) {
    for (size_t c = 0; c < layout_.fields.size(); c++) {
      if (layout_.fields[c].name == b.column &&
          format::BloomFilterSupports(layout_.fields[c].type)) {
        f->blooms.emplace_back(static_cast<int>(c), format::BloomFilter64(b.items, b.fpp));
      }
    }
  }
  file_ = std::move(f);
  return Status::OK();
}

Status DataFileWriter::Write(const KeyValue& kv) {
  if (!file_) TRIB_RETURN_NOT_OK(Open());
  OpenFile& f = *file_;
  // The physical row points at the record's values: nothing is copied or moved.
  std::vector<const Value*>& cells = cells_;
  cells.clear();
  if (layout_.primary_key) {
    for (int c : layout_.key_columns) cells.push_back(&kv.value[c]);
    seq_value_ = Value::Int(kv.sequence);
    kind_value_ = Value::Int(static_cast<int64_t>(kv.kind));
    cells.push_back(&seq_value_);
    cells.push_back(&kind_value_);
  }
  for (const auto& v : kv.value) cells.push_back(&v);
  TRIB_RETURN_NOT_OK(f.writer->Append(cells));
  if (layout_.primary_key) {
    // The key of the last record written (assigned in place: no allocation per record).
    f.max_key.resize(layout_.key_columns.size());
    for (size_t i = 0; i < layout_.key_columns.size(); i++) {
      f.max_key[i] = kv.value[layout_.key_columns[i]];
    }
    if (f.rows == 0) f.min_key = f.max_key;
    f.key_stats.Add(kv.value, &layout_.key_columns);
  }
  f.value_stats.Add(kv.value, f.stats_columns ? &*f.stats_columns : nullptr);
  for (auto& [c, bloom] : f.blooms) {
    if (auto h = format::BloomFilterHash(kv.value[c], layout_.fields[c].type)) bloom.AddHash(*h);
  }
  f.rows++;
  if (IsRetract(kv.kind)) f.deletes++;
  f.min_seq = std::min(f.min_seq, kv.sequence);
  f.max_seq = std::max(f.max_seq, kv.sequence);
  // As Paimon's rolling writer: the size is checked every 1000 records (estimating it walks
  // every column writer).
  if (f.rows % 1000 == 0 && f.EstimatedSize() >= target_file_size_) return Roll();
  return Status::OK();
}

namespace {

// Minimum, maximum (NULL when every value is NULL) and NULL count of rows[0..n) of a column,
// ordered as StatsCollector orders Values.
void ColumnStats(const format::ColumnValues& c, const DataType& type, const uint32_t* rows,
                 size_t n, Value* mn, Value* mx, int64_t* nulls) {
  *nulls = 0;
  size_t lo = SIZE_MAX, hi = SIZE_MAX;  // source rows of the extremes
  auto track = [&](auto less) {
    for (size_t k = 0; k < n; ++k) {
      const size_t r = rows[k];
      if (c.nulls != nullptr && c.nulls[r]) {
        ++*nulls;
      } else if (lo == SIZE_MAX) {
        lo = hi = r;
      } else if (less(r, lo)) {
        lo = r;
      } else if (less(hi, r)) {
        hi = r;
      }
    }
  };
  if (c.ints != nullptr && type.id != TypeId::kBoolean) {
    track([&](size_t a, size_t b) { return c.ints[a] < c.ints[b]; });
  } else if (c.HasBytes()) {
    track([&](size_t a, size_t b) { return c.Bytes(a) < c.Bytes(b); });
  } else {  // doubles and Values (flat types: no allocation per Value)
    track(
        [&](size_t a, size_t b) { return merge::FastCompare(c.Get(a, type), c.Get(b, type)) < 0; });
  }
  *mn = lo == SIZE_MAX ? Value::Null() : c.Get(lo, type);
  *mx = hi == SIZE_MAX ? Value::Null() : c.Get(hi, type);
}

// Adds rows[0..n) of a column to a bloom filter (NULLs are not added).
void AddToBloom(const format::ColumnValues& c, const DataType& type, const uint32_t* rows, size_t n,
                format::BloomFilter64* bloom) {
  const bool plain_ints = c.ints != nullptr && type.id != TypeId::kFloat &&
                          type.id != TypeId::kDouble && !type.IsTimestamp();
  for (size_t k = 0; k < n; ++k) {
    const size_t r = rows[k];
    if (c.nulls != nullptr && c.nulls[r]) continue;
    if (plain_ints) {
      bloom->AddHash(format::BloomFilterHashInt(c.ints[r]));
    } else if (c.HasBytes()) {
      bloom->AddHash(format::BloomFilterHashBytes(c.Bytes(r)));
    } else if (auto h = format::BloomFilterHash(c.Get(r, type), type)) {
      bloom->AddHash(*h);
    }
  }
}

}  // namespace

bool DataFileWriter::CanWriteColumns() const {
  const FileFormat* format = FindFileFormat(format_.FormatForLevel(level_));
  if (!format || !format->WritesColumns()) return false;
  for (const Field& f : layout_.fields) {
    if (f.type.IsNested()) return false;
  }
  return true;
}

Status DataFileWriter::WriteColumns(const std::vector<format::ColumnValues>& columns,
                                    const uint32_t* rows, const int64_t* sequences,
                                    const int64_t* kinds, size_t n) {
  if (!CanWriteColumns()) {
    return Status::Internal("data file writer: these files cannot be written column by column");
  }
  if (columns.size() != layout_.fields.size()) {
    return Status::Internal("data file writer: " + std::to_string(columns.size()) +
                            " columns given for " + std::to_string(layout_.fields.size()));
  }
  // The physical columns: of a primary-key table the key columns, _SEQUENCE_NUMBER and
  // _VALUE_KIND, then every column (their rows are set per slice).
  const bool pk = layout_.primary_key;
  std::vector<format::ColumnValues> physical;
  if (pk) {
    for (int c : layout_.key_columns) physical.push_back(columns[c]);
    physical.emplace_back();
    physical.emplace_back();
  }
  for (const auto& c : columns) physical.push_back(c);
  const size_t first_col = pk ? layout_.key_columns.size() + 2 : 0;
  size_t done = 0;
  Value mn, mx;
  int64_t nulls = 0;
  while (done < n) {
    if (!file_) TRIB_RETURN_NOT_OK(Open());
    OpenFile& f = *file_;
    // Slices end where Write checks the file's size (every 1000 records).
    const size_t slice = std::min<size_t>(n - done, 1000 - static_cast<size_t>(f.rows % 1000));
    // Rows of table column c for this slice.
    auto slice_rows = [&](int c) { return (columns[c].rows ? columns[c].rows : rows) + done; };
    if (pk) {
      for (size_t i = 0; i < layout_.key_columns.size(); ++i) {
        physical[i].rows = slice_rows(layout_.key_columns[i]);
      }
      physical[first_col - 2].ints = sequences + done;
      physical[first_col - 1].ints = kinds + done;
    }
    for (size_t c = 0; c < columns.size(); ++c) {
      physical[first_col + c].rows = slice_rows(static_cast<int>(c));
    }
    TRIB_RETURN_NOT_OK(f.writer->AppendColumns(physical, slice));
    // Keys (none in an append table): the records are in key order.
    f.max_key.resize(layout_.key_columns.size());
    for (size_t i = 0; i < layout_.key_columns.size(); ++i) {
      const int c = layout_.key_columns[i];
      const uint32_t* r = slice_rows(c);
      f.max_key[i] = columns[c].Get(r[slice - 1], layout_.fields[c].type);
      if (f.rows == 0) f.min_key.push_back(columns[c].Get(r[0], layout_.fields[c].type));
    }
    for (size_t i = 0; i < layout_.key_columns.size(); ++i) {
      const int c = layout_.key_columns[i];
      ColumnStats(columns[c], layout_.fields[c].type, slice_rows(c), slice, &mn, &mx, &nulls);
      f.key_stats.AddColumn(i, mn, mx, nulls);
    }
    const size_t stats_count = f.stats_columns ? f.stats_columns->size() : layout_.fields.size();
    for (size_t i = 0; i < stats_count; ++i) {
      const int c = f.stats_columns ? (*f.stats_columns)[i] : static_cast<int>(i);
      ColumnStats(columns[c], layout_.fields[c].type, slice_rows(c), slice, &mn, &mx, &nulls);
      f.value_stats.AddColumn(i, mn, mx, nulls);
    }
    for (auto& [c, bloom] : f.blooms)
      AddToBloom(columns[c], layout_.fields[c].type, slice_rows(c), slice, &bloom);
    for (size_t k = done; k < done + slice; ++k) {
      if (IsRetract(static_cast<RowKind>(kinds[k]))) f.deletes++;
      f.min_seq = std::min(f.min_seq, sequences[k]);
      f.max_seq = std::max(f.max_seq, sequences[k]);
    }
    f.rows += static_cast<int64_t>(slice);
    done += slice;
    if (f.rows % 1000 == 0 && f.EstimatedSize() >= target_file_size_) TRIB_RETURN_NOT_OK(Roll());
  }
  return Status::OK();
}

Status DataFileWriter::WriteMerged(std::vector<format::ColumnValues> sources,
                                   const ColumnMergeOutput& merged) {
  // Computed columns (aggregates) hold one value per merged record, in order.
  std::vector<uint32_t> in_order;
  for (size_t c = 0; c < sources.size(); c++) {
    if (c < merged.computed.size() && merged.computed[c]) {
      if (in_order.empty()) {
        in_order.resize(merged.size());
        for (uint32_t k = 0; k < in_order.size(); k++) in_order[k] = k;
      }
      sources[c] = ColumnValuesOf(*merged.computed[c]);
      sources[c].rows = in_order.data();
    } else if (c < merged.column_rows.size() && !merged.column_rows[c].empty()) {
      sources[c].rows = merged.column_rows[c].data();
    }
  }
  return WriteColumns(sources, merged.rows.data(), merged.sequences.data(), merged.kinds.data(),
                      merged.size());
}

Status DataFileWriter::Roll() {
  if (!file_) return Status::OK();
  std::unique_ptr<OpenFile> f = std::move(file_);
  // The file's parts (a Parquet file's pages as its column writers made them) go to the file
  // system as they are: the file is never also held as one joined copy.
  TRIB_ASSIGN_OR_RETURN(FileParts bytes, f->Finish());
  TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(dir_));
  std::string path = io::JoinPath(dir_, f->name);
  // Data files are written once under a fresh name; they and their directory entries are made
  // durable before the snapshot that names them is published (io::FileSystem::WriteNewFile).
  TRIB_RETURN_NOT_OK(io::LocalFs().WriteNewFileParts(path, &bytes));
  meta::DataFileMeta m;
  m.file_name = f->name;
  if (namer_->external_dir()) m.external_path = *namer_->external_dir() + "/" + m.file_name;
  m.file_size = bytes.size;
  m.row_count = f->rows;
  std::vector<DataType> key_types = layout_.KeyTypes();
  m.min_key = format::SerializeBinaryRow(key_types, f->min_key);
  m.max_key = format::SerializeBinaryRow(key_types, f->max_key);
  m.key_stats = f->key_stats.Finish();
  m.value_stats = f->value_stats.Finish();
  if (f->stats_columns) {
    m.value_stats_cols.emplace();
    for (int c : *f->stats_columns) m.value_stats_cols->push_back(layout_.fields[c].name);
  }
  m.min_sequence_number = f->min_seq;
  m.max_sequence_number = f->max_seq;
  m.schema_id = layout_.schema_id;
  m.level = level_;
  // A local wall-clock time, as Paimon writes it (Timestamp.fromLocalDateTime(now)).
  const int64_t now = NowMillis();
  m.creation_time_millis = now + MachineUtcOffsetMillis(now);
  m.delete_row_count = f->deletes;
  m.file_source = source_;
  m.write_cols = write_cols_;
  if (!f->blooms.empty()) {
    // Paimon's file index: in the manifest entry when small, else in '<data file>.index'.
    std::vector<format::FileIndexColumn> columns;
    for (const auto& [c, bloom] : f->blooms) {
      columns.push_back(
          {layout_.fields[c].name, {{format::kBloomFilterIndexType, bloom.Serialize()}}});
    }
    std::string index = format::SerializeFileIndex(std::move(columns), /*checksum=*/true);
    if (static_cast<int64_t>(index.size()) <= format_.file_index_in_manifest_threshold) {
      m.embedded_file_index = std::move(index);
    } else {
      const std::string index_name = f->name + ".index";
      if (Status st = io::LocalFs().WriteNewFile(io::JoinPath(dir_, index_name), index); !st.ok()) {
        RemoveDataFile(dir_, f->name);  // not in done_ yet: Abort would not find it
        return st;
      }
      m.extra_files.push_back(index_name);
    }
  }
  done_.push_back(m);
  if (copy_namer_ != nullptr) {
    m.embedded_file_index.reset();  // changelog files have no index (as Paimon's)
    m.extra_files.clear();
    m.file_name = copy_namer_->Next() + f->name.substr(f->name.rfind('.'));
    m.external_path.reset();
    if (copy_namer_->external_dir())
      m.external_path = *copy_namer_->external_dir() + "/" + m.file_name;
    TRIB_RETURN_NOT_OK(io::LocalFs().WriteCopy(path, io::JoinPath(dir_, m.file_name), bytes));
    copies_.push_back(std::move(m));
  }
  return Status::OK();
}

Result<std::vector<meta::DataFileMeta>> DataFileWriter::Finish() {
  TRIB_RETURN_NOT_OK(Roll());
  return std::move(done_);
}

void DataFileWriter::Abort() {
  file_.reset();
  for (const auto& m : done_) RemoveDataFile(dir_, m);
  for (const auto& m : copies_) (void)io::LocalFs().Remove(io::JoinPath(dir_, m.file_name));
  done_.clear();
  copies_.clear();
}

std::string NewFileDir(const meta::FileNamer& namer, const std::string& bucket_dir) {
  return namer.external_dir() ? meta::ExternalPaths::LocalOf(*namer.external_dir()) : bucket_dir;
}

std::string WrittenFilePath(const std::string& dir, const meta::DataFileMeta& f) {
  return f.external_path ? meta::ExternalPaths::LocalOf(*f.external_path)
                         : io::JoinPath(dir, f.file_name);
}

void RemoveDataFile(const std::string& dir, const meta::DataFileMeta& f) {
  const std::string path = WrittenFilePath(dir, f);
  (void)io::LocalFs().Remove(path);
  const std::string beside = io::ParentPath(path);
  for (const auto& extra : f.extra_files) (void)io::LocalFs().Remove(io::JoinPath(beside, extra));
}

void RemoveDataFile(const std::string& dir, const std::string& file_name) {
  (void)io::LocalFs().Remove(io::JoinPath(dir, file_name));
  (void)io::LocalFs().Remove(io::JoinPath(dir, file_name + ".index"));
}

format::ColumnValues ColumnValuesOf(const ColumnVector& c) {
  format::ColumnValues v;
  switch (c.rep) {
    case ColumnVector::Rep::kInt:
      v.ints = c.ints.data();
      break;
    case ColumnVector::Rep::kDouble:
      v.doubles = c.doubles.data();
      break;
    case ColumnVector::Rep::kString:
      v.chars = c.strings.chars();
      v.offsets = c.strings.offsets();
      break;
    case ColumnVector::Rep::kValue:
      v.values = c.values.data();
      break;
  }
  if (!c.nulls.empty()) v.nulls = c.nulls.data();
  return v;
}

}  // namespace tributary::datafile
