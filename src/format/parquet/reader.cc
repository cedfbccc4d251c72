#include "format/parquet/reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "format/compression.h"

namespace tributary::format::parquet {

namespace {

constexpr std::string_view kMagic = "PAR1";
constexpr std::string_view kEncryptedMagic = "PARE";

// Whether the deprecated min/max fields (compared as signed values by old writers) order
// this column correctly: only for types whose sort order is signed and not byte-wise.
bool DeprecatedStatsUsable(const LeafColumn& leaf, const DataType& type) {
  switch (leaf.physical_type) {
    case PhysicalType::kBoolean:
    case PhysicalType::kFloat:
    case PhysicalType::kDouble:
      return true;
    case PhysicalType::kInt32:
    case PhysicalType::kInt64:
      // Unsigned integers were compared as signed by old writers.
      return !(leaf.converted_type >= ConvertedType::kUint8 &&
               leaf.converted_type <= ConvertedType::kUint64) &&
             !(leaf.logical_type && leaf.logical_type->kind == LogicalType::kInteger &&
               !leaf.logical_type->is_signed);
    default:
      return false;
  }
}

// Checks kMetadataChecksumKey when the file has it (files we wrote): the page index and the
// footer as written, so a flipped statistic or offset cannot silently skip or misread rows.
// `ensure` makes the bytes it covers readable (a file read by range).
Status VerifyMetadataChecksum(std::string_view file, size_t footer_start, const FileMetaData& m,
                              const std::function<Status(int64_t, int64_t)>& ensure) {
  auto it = std::find_if(m.key_value_metadata.begin(), m.key_value_metadata.end(),
                         [](const KeyValue& kv) { return kv.key == kMetadataChecksumKey; });
  if (it == m.key_value_metadata.end()) return Status::OK();
  auto bad = [](const std::string& why) {
    return Status::Corruption("parquet: footer or page index damaged (" + why + ")");
  };
  unsigned int crc = 0;
  size_t start = 0;
  if (!it->value || std::sscanf(it->value->c_str(), "%8x:%zu", &crc, &start) != 2 ||
      start > footer_start) {
    return bad("unreadable checksum entry");
  }
  TRIB_RETURN_NOT_OK(
      ensure(static_cast<int64_t>(start), static_cast<int64_t>(footer_start - start)));
  FileMetaData unsigned_meta = m;
  unsigned_meta.key_value_metadata.erase(unsigned_meta.key_value_metadata.begin() +
                                         (it - m.key_value_metadata.begin()));
  std::string bytes(file.substr(start, footer_start - start));
  bytes += EncodeFileMetaData(unsigned_meta);
  if (Crc32(bytes) != crc) return bad("checksum mismatch");
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<ParquetReader>> ParquetReader::Open(std::string file_bytes) {
  auto owner = std::make_shared<const std::string>(std::move(file_bytes));
  std::string_view view = *owner;
  return Open(std::move(owner), view);
}

Status ParquetReader::EnsureRange(int64_t offset, int64_t length) const {
  if (!ensure_) return Status::OK();
  const int64_t size = static_cast<int64_t>(file_.size());
  offset = std::clamp<int64_t>(offset, 0, size);
  length = std::clamp<int64_t>(length, 0, size - offset);
  return ensure_(offset, length);
}

Result<std::unique_ptr<ParquetReader>> ParquetReader::Open(
    std::shared_ptr<const void> owner, std::string_view file, std::function<void()> release,
    std::function<Status(int64_t, int64_t)> ensure) {
  std::unique_ptr<ParquetReader> r(new ParquetReader());
  r->owner_ = std::move(owner);
  r->release_ = std::move(release);
  r->ensure_ = std::move(ensure);
  r->file_ = file;
  std::string_view f = r->file_;
  if (f.size() < 12)
    return Status::Corruption("parquet: file too short (" + std::to_string(f.size()) + " bytes)");
  TRIB_RETURN_NOT_OK(r->EnsureRange(static_cast<int64_t>(f.size()) - 8, 8));
  std::string_view tail = f.substr(f.size() - 4);
  if (tail == kEncryptedMagic)
    return Status::NotSupported("parquet: encrypted files are not supported");
  if ((!r->ensure_ && f.substr(0, 4) != kMagic) || tail != kMagic) {
    return Status::Corruption("parquet: bad magic");
  }
  uint32_t footer_len;
  std::memcpy(&footer_len, f.data() + f.size() - 8, 4);
  if (footer_len == 0 || footer_len > f.size() - 12) {
    return Status::Corruption("parquet: footer length " + std::to_string(footer_len) +
                              " does not fit the file");
  }
  TRIB_RETURN_NOT_OK(r->EnsureRange(static_cast<int64_t>(f.size() - 8 - footer_len), footer_len));
  std::string_view footer = f.substr(f.size() - 8 - footer_len, footer_len);
  Status st = DecodeFileMetaData(footer, &r->metadata_);
  if (!st.ok()) return st.WithContext("parquet footer");
  TRIB_RETURN_NOT_OK(VerifyMetadataChecksum(
      f, f.size() - 8 - footer_len, r->metadata_,
      [&r](int64_t offset, int64_t length) { return r->EnsureRange(offset, length); }));
  TRIB_ASSIGN_OR_RETURN(r->schema_, FileSchema::Make(r->metadata_.schema));
  const size_t num_leaves = r->schema_.leaves().size();
  int64_t rows = 0;
  for (const RowGroup& g : r->metadata_.row_groups) {
    if (g.columns.size() != num_leaves) {
      return Status::Corruption("parquet: row group has " + std::to_string(g.columns.size()) +
                                " column chunks for " + std::to_string(num_leaves) + " leaves");
    }
    if (g.num_rows < 0) return Status::Corruption("parquet: negative row count");
    rows += g.num_rows;
  }
  if (r->metadata_.num_rows < 0) return Status::Corruption("parquet: negative row count");
  (void)rows;  // some writers leave FileMetaData.num_rows inconsistent; row groups decide
  for (size_t i = 0; i < r->schema_.columns().size(); ++i) {
    const ParquetColumn& c = r->schema_.columns()[i];
    r->nested_.emplace_back();
    r->nested_errors_.emplace_back();
    if (c.nested) {
      Result<NestedNode> node =
          BuildNestedNode(r->metadata_.schema, r->schema_, static_cast<int>(i));
      if (!node.ok()) {
        r->nested_errors_.back() = node.status().message();
      } else {
        NestedPlan plan;
        plan.root = std::move(*node);
        Status st;
        for (int l = plan.root.first_leaf; l < plan.root.end_leaf && st.ok(); ++l) {
          Result<ValueConverter> conv = ValueConverter::Make(r->schema_.leaves()[l]);
          if (conv.ok()) {
            plan.leaf_converters.push_back(*conv);
          } else {
            st = conv.status();
          }
        }
        if (st.ok()) {
          r->nested_.back() = std::move(plan);
        } else {
          r->nested_errors_.back() = st.message();
        }
      }
    }
    if (c.type) {
      Result<ValueConverter> conv = ValueConverter::Make(r->schema_.leaves()[c.first_leaf]);
      if (conv.ok()) {
        r->converters_.push_back(*conv);
        continue;
      }
    }
    r->converters_.push_back(std::nullopt);
  }
  return r;
}

const std::string& ParquetReader::created_by() const {
  static const std::string kEmpty;
  return metadata_.created_by ? *metadata_.created_by : kEmpty;
}

RowGroupStats ParquetReader::RowGroupStatistics(int rg) const {
  RowGroupStats out;
  out.index = rg;
  const RowGroup& g = metadata_.row_groups[rg];
  out.num_rows = g.num_rows;
  for (size_t c = 0; c < schema_.columns().size(); ++c) {
    const ParquetColumn& col = schema_.columns()[c];
    ColumnStats cs;
    const ColumnChunk& chunk = g.columns[col.first_leaf];
    if (chunk.meta_data) cs.num_values = chunk.meta_data->num_values;
    if (!col.nested && converters_[c] && chunk.meta_data && chunk.meta_data->statistics) {
      const Statistics& s = *chunk.meta_data->statistics;
      const LeafColumn& leaf = schema_.leaves()[col.first_leaf];
      cs.null_count = s.null_count;
      const std::string* lo = nullptr;
      const std::string* hi = nullptr;
      bool type_order = metadata_.column_orders.empty() ||
                        (static_cast<size_t>(col.first_leaf) < metadata_.column_orders.size() &&
                         metadata_.column_orders[col.first_leaf]);
      if (s.min_value && s.max_value && type_order) {
        lo = &*s.min_value;
        hi = &*s.max_value;
      } else if (s.min && s.max && DeprecatedStatsUsable(leaf, *col.type)) {
        lo = &*s.min;
        hi = &*s.max;
      }
      if (lo && hi && leaf.physical_type != PhysicalType::kInt96) {
        cs.min = converters_[c]->ConvertStat(*lo);
        cs.max = converters_[c]->ConvertStat(*hi);
        // NaN bounds say nothing; a zero bound may hide either sign of zero.
        auto bad = [](const std::optional<Value>& v) {
          return !v || (v->is_double() && std::isnan(v->double_value()));
        };
        if (bad(cs.min) || bad(cs.max)) {
          cs.min.reset();
          cs.max.reset();
        } else if (cs.min->is_double()) {
          if (cs.min->double_value() == 0) cs.min = Value::Double(-0.0);
          if (cs.max->double_value() == 0) cs.max = Value::Double(0.0);
        }
      }
    }
    out.columns.push_back(std::move(cs));
  }
  return out;
}

Result<std::vector<int>> ParquetReader::ResolveProjection(
    const std::vector<int>& projection) const {
  std::vector<int> cols = projection;
  if (cols.empty()) {
    for (size_t i = 0; i < schema_.columns().size(); ++i) cols.push_back(static_cast<int>(i));
  }
  for (int c : cols) {
    if (c < 0 || static_cast<size_t>(c) >= schema_.columns().size()) {
      return Status::Invalid("parquet: projected column " + std::to_string(c) + " out of range");
    }
    const ParquetColumn& col = schema_.columns()[c];
    if (!converters_[c] && !nested_[c]) {
      const std::string& why = nested_errors_[c].empty() ? col.type_error : nested_errors_[c];
      return Status::NotSupported("parquet: column '" + col.name + "': " + why);
    }
  }
  return cols;
}

std::optional<DataType> ParquetReader::ColumnType(int column) const {
  if (column < 0 || static_cast<size_t>(column) >= schema_.columns().size()) return std::nullopt;
  if (nested_[column]) return nested_[column]->root.type;
  if (converters_[column]) return schema_.columns()[column].type;
  return std::nullopt;
}

namespace {

// Rows of `ranges` below `n`.
int64_t CountRows(const RowRanges& ranges, int64_t n) {
  int64_t total = 0;
  for (const auto& [b, e] : ranges) total += std::max<int64_t>(0, std::min(e, n) - b);
  return total;
}

}  // namespace

Result<ColumnChunkData> ParquetReader::ReadLeafChunk(int rg, int leaf,
                                                     const RowRanges* rows) const {
  if (rg < 0 || rg >= num_row_groups() || leaf < 0 ||
      static_cast<size_t>(leaf) >= schema_.leaves().size()) {
    return Status::Invalid("parquet: row group or leaf out of range");
  }
  const RowGroup& g = metadata_.row_groups[rg];
  if (ensure_ && g.columns[leaf].meta_data) {
    const auto [start, size] = ColumnChunkByteRange(*g.columns[leaf].meta_data);
    TRIB_RETURN_NOT_OK(EnsureRange(start, size));
  }
  // Rows of a flat leaf in a local file: its pages that hold none of them are stepped over by
  // the offset index (a missing or damaged index only loses the shortcut; a file read by range
  // walks the chunk it fetched rather than fetch its index too).
  std::optional<OffsetIndex> pages;
  if (rows && !ensure_ && schema_.leaves()[leaf].max_rep_level == 0) {
    auto index = ReadPageIndex(rg, leaf);
    if (index.ok()) pages = std::move(index->offset_index);
  }
  return ReadColumnChunk(file_, g.columns[leaf], schema_.leaves()[leaf], g.num_rows, rows,
                         verified_.get(), pages ? &*pages : nullptr);
}

Status ParquetReader::Prefetch(int rg, const std::vector<int>& projection) const {
  if (!ensure_ || rg < 0 || rg >= num_row_groups()) return Status::OK();
  TRIB_ASSIGN_OR_RETURN(std::vector<int> cols, ResolveProjection(projection));
  const RowGroup& g = metadata_.row_groups[rg];
  // The chunks' span, fetched whole when what lies between them is small next to them (else
  // each chunk is fetched when read).
  int64_t first = INT64_MAX, last = 0, wanted = 0;
  for (int c : cols) {
    const ParquetColumn& col = schema_.columns()[c];
    for (int l = col.first_leaf; l < col.first_leaf + col.num_leaves; ++l) {
      if (static_cast<size_t>(l) >= g.columns.size() || !g.columns[l].meta_data) continue;
      const auto [start, size] = ColumnChunkByteRange(*g.columns[l].meta_data);
      if (start < 0 || size <= 0) continue;
      first = std::min(first, start);
      last = std::max(last, start + size);
      wanted += size;
    }
  }
  if (wanted == 0) return Status::OK();
  constexpr int64_t kSmallGap = int64_t{1} << 20;
  if (last - first - wanted > std::max(wanted, kSmallGap)) return Status::OK();
  return EnsureRange(first, last - first);
}

Result<std::vector<std::vector<Value>>> ParquetReader::ReadRowGroupColumns(
    int rg, const std::vector<int>& projection, const RowRanges* rows) const {
  TRIB_ASSIGN_OR_RETURN(std::vector<int> cols, ResolveProjection(projection));
  if (rg < 0 || rg >= num_row_groups()) return Status::Invalid("parquet: row group out of range");
  TRIB_RETURN_NOT_OK(Prefetch(rg, cols));
  std::vector<std::vector<Value>> out;
  out.reserve(cols.size());
  for (int c : cols) {
    const ParquetColumn& col = schema_.columns()[c];
    if (nested_[c]) {
      const NestedPlan& plan = *nested_[c];
      std::vector<ColumnChunkData> chunks;
      for (int l = plan.root.first_leaf; l < plan.root.end_leaf; ++l) {
        Result<ColumnChunkData> data = ReadLeafChunk(rg, l);
        if (!data.ok()) {
          return data.status().WithContext("row group " + std::to_string(rg) + ", column '" +
                                           col.name + "'");
        }
        chunks.push_back(std::move(*data));
      }
      Result<std::vector<Value>> values = AssembleNested(plan.root, chunks, plan.leaf_converters,
                                                         metadata_.row_groups[rg].num_rows);
      if (!values.ok()) {
        return values.status().WithContext("row group " + std::to_string(rg) + ", column '" +
                                           col.name + "'");
      }
      if (rows) {
        std::vector<Value> kept;
        for (const auto& [b, e] : *rows) {
          for (int64_t r = b; r < e && r < static_cast<int64_t>(values->size()); ++r) {
            kept.push_back(std::move((*values)[r]));
          }
        }
        values = std::move(kept);
      }
      out.push_back(std::move(*values));
      continue;
    }
    const LeafColumn& leaf = schema_.leaves()[col.first_leaf];
    Result<ColumnChunkData> data = ReadLeafChunk(rg, col.first_leaf, rows);
    if (!data.ok()) {
      return data.status().WithContext("row group " + std::to_string(rg) + ", column '" + col.name +
                                       "'");
    }
    const ValueConverter& conv = *converters_[c];
    const int64_t n = data->num_levels;
    std::vector<Value> values;
    values.reserve(static_cast<size_t>(rows ? CountRows(*rows, n) : n));
    size_t next = 0, skip = 0, want = 0, level = 0;  // level: of the rows decoded
    for (int64_t r = 0; r < n; ++r) {
      while (skip < data->skipped.size() && data->skipped[skip].second <= r) ++skip;
      if (skip < data->skipped.size() && data->skipped[skip].first <= r) {
        // A page left undecoded: none of its rows is wanted and it holds no values.
        r = data->skipped[skip].second - 1;
        continue;
      }
      bool present = leaf.max_def_level == 0 || data->def_levels[level++] == leaf.max_def_level;
      bool wanted = true;
      if (rows) {
        while (want < rows->size() && (*rows)[want].second <= r) ++want;
        wanted = want < rows->size() && (*rows)[want].first <= r;
      }
      if (wanted) values.push_back(present ? conv.Convert(data->values, next) : Value::Null());
      if (present && (wanted || !data->wanted_only)) ++next;
    }
    out.push_back(std::move(values));
  }
  return out;
}

Result<std::vector<ColumnVector>> ParquetReader::ReadRowGroupVectors(
    int rg, const std::vector<int>& projection, const RowRanges* rows) const {
  TRIB_ASSIGN_OR_RETURN(std::vector<int> cols, ResolveProjection(projection));
  if (rg < 0 || rg >= num_row_groups()) return Status::Invalid("parquet: row group out of range");
  TRIB_RETURN_NOT_OK(Prefetch(rg, cols));
  std::vector<ColumnVector> out;
  out.reserve(cols.size());
  for (int c : cols) {
    ColumnVector v;
    const ValueConverter* conv = converters_[c] ? &*converters_[c] : nullptr;
    v.type = conv ? conv->type() : *ColumnType(c);
    v.rep = ColumnVector::RepOf(v.type);
    const bool direct =
        !nested_[c] && conv && conv->IsDirect() && v.rep != ColumnVector::Rep::kValue;
    if (!direct) {
      TRIB_ASSIGN_OR_RETURN(auto values, ReadRowGroupColumns(rg, {c}, rows));
      v.rep = ColumnVector::Rep::kValue;
      v.values = std::move(values[0]);
      for (size_t i = 0; i < v.values.size(); i++) {
        if (!v.values[i].is_null()) continue;
        if (v.nulls.empty()) v.nulls.assign(v.values.size(), 0);
        v.nulls[i] = 1;
      }
      out.push_back(std::move(v));
      continue;
    }
    const ParquetColumn& col = schema_.columns()[c];
    const LeafColumn& leaf = schema_.leaves()[col.first_leaf];
    Result<ColumnChunkData> data = ReadLeafChunk(rg, col.first_leaf, rows);
    if (!data.ok()) {
      return data.status().WithContext("row group " + std::to_string(rg) + ", column '" + col.name +
                                       "'");
    }
    if (rows) {
      // Only the wanted rows: walk the levels as ReadRowGroupColumns does.
      const int64_t n = data->num_levels;
      PhysicalValues& pv = data->values;
      v.Reserve(static_cast<size_t>(CountRows(*rows, n)));
      size_t next = 0, skip = 0, want = 0, level = 0;  // level: of the rows decoded
      for (int64_t r = 0; r < n; ++r) {
        while (skip < data->skipped.size() && data->skipped[skip].second <= r) ++skip;
        if (skip < data->skipped.size() && data->skipped[skip].first <= r) {
          r = data->skipped[skip].second - 1;  // an undecoded page: none of its rows is wanted
          continue;
        }
        const bool present =
            leaf.max_def_level == 0 || data->def_levels[level++] == leaf.max_def_level;
        while (want < rows->size() && (*rows)[want].second <= r) ++want;
        const bool wanted = want < rows->size() && (*rows)[want].first <= r;
        if (wanted) {
          if (!present) {
            if (v.nulls.empty()) v.nulls.assign(v.size(), 0);
          } else if (!v.nulls.empty()) {
            v.nulls.push_back(0);
          }
          if (!present) v.nulls.push_back(1);
          const bool ok = v.rep == ColumnVector::Rep::kInt ? next < pv.ints.size() || !present
                          : v.rep == ColumnVector::Rep::kDouble
                              ? next < pv.doubles.size() || !present
                              : next < pv.bytes.size() || !present;
          if (!ok)
            return Status::Corruption("parquet: column '" + col.name + "' has too few values");
          switch (v.rep) {
            case ColumnVector::Rep::kInt:
              v.ints.push_back(present ? pv.ints[next] : 0);
              break;
            case ColumnVector::Rep::kDouble:
              v.doubles.push_back(present ? pv.doubles[next] : 0.0);
              break;
            default:
              v.strings.push_back(present ? pv.bytes[next] : std::string_view());
              break;
          }
        }
        if (present && (wanted || !data->wanted_only)) ++next;
      }
      out.push_back(std::move(v));
      continue;
    }
    PhysicalValues& pv = data->values;
    const size_t n = static_cast<size_t>(data->num_levels);
    // The chunk's values are the present ones; with NULLs they are spread over the rows.
    auto spread = [&](auto& from, auto& to, auto placeholder) -> Status {
      if (from.size() == n) {
        to = std::move(from);
        return Status::OK();
      }
      if (leaf.max_def_level == 0 || data->def_levels.size() != n) {
        return Status::Corruption("parquet: column '" + col.name + "' has " +
                                  std::to_string(from.size()) + " values for " + std::to_string(n) +
                                  " rows");
      }
      to.reserve(n);
      v.nulls.assign(n, 0);
      size_t next = 0;
      for (size_t r = 0; r < n; r++) {
        if (data->def_levels[r] == leaf.max_def_level && next < from.size()) {
          to.push_back(std::move(from[next++]));
        } else {
          to.push_back(placeholder);
          v.nulls[r] = 1;
        }
      }
      if (next != from.size())
        return Status::Corruption("parquet: column '" + col.name + "' has more values than rows");
      return Status::OK();
    };
    switch (v.rep) {
      case ColumnVector::Rep::kInt:
        TRIB_RETURN_NOT_OK(spread(pv.ints, v.ints, int64_t{0}));
        break;
      case ColumnVector::Rep::kDouble:
        TRIB_RETURN_NOT_OK(spread(pv.doubles, v.doubles, 0.0));
        break;
      default:
        TRIB_RETURN_NOT_OK(spread(pv.bytes, v.strings, std::string_view()));
        break;
    }
    out.push_back(std::move(v));
  }
  return out;
}

Result<std::vector<Row>> ParquetReader::ReadRows(const ParquetReadOptions& options) const {
  TRIB_ASSIGN_OR_RETURN(std::vector<int> cols, ResolveProjection(options.projection));
  std::vector<Row> rows;
  for (int rg = 0; rg < num_row_groups(); ++rg) {
    if (options.row_group_filter && !options.row_group_filter(RowGroupStatistics(rg))) continue;
    TRIB_ASSIGN_OR_RETURN(std::vector<std::vector<Value>> columns, ReadRowGroupColumns(rg, cols));
    int64_t n = metadata_.row_groups[rg].num_rows;
    // With columns, their chunks were checked to hold n values; without, n is unchecked.
    if (cols.empty() && n > kMaxPageValues) return Status::Corruption("parquet: bad row count");
    size_t base = rows.size();
    rows.resize(base + static_cast<size_t>(n));
    for (size_t r = base; r < rows.size(); ++r) rows[r].reserve(cols.size());
    for (auto& column : columns) {
      for (int64_t i = 0; i < n; ++i) rows[base + i].push_back(std::move(column[i]));
    }
  }
  return rows;
}

Result<PageIndex> ParquetReader::ReadPageIndex(int rg, int leaf) const {
  if (rg < 0 || rg >= num_row_groups() || leaf < 0 ||
      static_cast<size_t>(leaf) >= schema_.leaves().size()) {
    return Status::Invalid("parquet: row group or leaf out of range");
  }
  const ColumnChunk& c = metadata_.row_groups[rg].columns[leaf];
  auto slice = [&](std::optional<int64_t> offset, std::optional<int32_t> length,
                   std::string_view* out) -> Status {
    if (!offset || !length) return Status::OK();
    if (*offset < 0 || *length <= 0 || *offset > static_cast<int64_t>(file_.size()) ||
        *length > static_cast<int64_t>(file_.size()) - *offset) {
      return Status::Corruption("parquet: page index outside the file");
    }
    TRIB_RETURN_NOT_OK(EnsureRange(*offset, *length));
    *out = file_.substr(static_cast<size_t>(*offset), static_cast<size_t>(*length));
    return Status::OK();
  };
  PageIndex index;
  std::string_view ci, oi;
  TRIB_RETURN_NOT_OK(slice(c.column_index_offset, c.column_index_length, &ci));
  TRIB_RETURN_NOT_OK(slice(c.offset_index_offset, c.offset_index_length, &oi));
  if (!ci.empty()) {
    index.column_index.emplace();
    TRIB_RETURN_NOT_OK(DecodeColumnIndex(ci, &*index.column_index));
    const ColumnIndex& x = *index.column_index;
    if (x.min_values.size() != x.null_pages.size() || x.max_values.size() != x.null_pages.size() ||
        (!x.null_counts.empty() && x.null_counts.size() != x.null_pages.size())) {
      return Status::Corruption("parquet: column index lists of different lengths");
    }
  }
  if (!oi.empty()) {
    index.offset_index.emplace();
    TRIB_RETURN_NOT_OK(DecodeOffsetIndex(oi, &*index.offset_index));
  }
  return index;
}

Result<std::vector<ColumnStats>> ParquetReader::PageStatistics(int rg, int column) const {
  if (column < 0 || static_cast<size_t>(column) >= schema_.columns().size()) {
    return Status::Invalid("parquet: column out of range");
  }
  const ParquetColumn& col = schema_.columns()[column];
  std::vector<ColumnStats> out;
  if (!converters_[column]) return out;
  TRIB_ASSIGN_OR_RETURN(PageIndex index, ReadPageIndex(rg, col.first_leaf));
  if (!index.column_index) return out;
  const ColumnIndex& ci = *index.column_index;
  const int64_t rows = metadata_.row_groups[rg].num_rows;
  const std::vector<PageLocation>* pages =
      index.offset_index && index.offset_index->page_locations.size() == ci.null_pages.size()
          ? &index.offset_index->page_locations
          : nullptr;
  for (size_t p = 0; p < ci.null_pages.size(); ++p) {
    ColumnStats s;
    if (!ci.null_counts.empty()) s.null_count = ci.null_counts[p];
    if (!ci.null_pages[p]) {
      s.min = converters_[column]->ConvertStat(ci.min_values[p]);
      s.max = converters_[column]->ConvertStat(ci.max_values[p]);
      if (!s.min || !s.max) {
        s.min.reset();
        s.max.reset();
      }
    }
    if (pages != nullptr) {
      int64_t end = p + 1 < pages->size() ? (*pages)[p + 1].first_row_index : rows;
      s.num_values = end - (*pages)[p].first_row_index;
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace tributary::format::parquet
