#include "format/parquet/writer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "format/compression.h"
#include "format/parquet/parquet_schema.h"
#include "format/parquet/parquet_values.h"

namespace tributary::format::parquet {

namespace {

constexpr std::string_view kMagic = "PAR1";

Result<Codec> ToParquetCodec(CompressionCodec c) {
  switch (c) {
    case CompressionCodec::kNone:
      return Codec::kUncompressed;
    case CompressionCodec::kSnappy:
      return Codec::kSnappy;
    case CompressionCodec::kGzip:
      return Codec::kGzip;
    case CompressionCodec::kZstd:
      return Codec::kZstd;
    case CompressionCodec::kLz4Raw:
      return Codec::kLz4Raw;
    case CompressionCodec::kDeflate:
    case CompressionCodec::kLz4Frame:
      break;
  }
  return Status::Invalid(std::string("parquet: compression '") + CompressionCodecName(c) +
                         "' is not a Parquet codec");
}

}  // namespace

Result<std::unique_ptr<ParquetWriter>> ParquetWriter::Make(std::vector<Field> columns,
                                                           ParquetWriterOptions options) {
  if (options.page_size <= 0 || options.row_group_size <= 0 || options.page_row_limit <= 0 ||
      options.dictionary_page_size <= 0) {
    return Status::Invalid("parquet: page, row group and dictionary sizes must be positive");
  }
  if (options.data_page_version != 1 && options.data_page_version != 2) {
    return Status::Invalid("parquet: data page version must be 1 or 2");
  }
  TRIB_ASSIGN_OR_RETURN(Codec codec, ToParquetCodec(options.compression));
  ColumnWriterOptions cw;
  cw.codec = codec;
  cw.zstd_level = options.zstd_level;
  cw.page_size = options.page_size;
  cw.page_row_limit = options.page_row_limit;
  cw.dictionary = options.dictionary;
  cw.dictionary_page_size = options.dictionary_page_size;
  cw.data_page_version = options.data_page_version;
  cw.value_encoding = options.value_encoding;

  std::unique_ptr<ParquetWriter> w(new ParquetWriter());
  SchemaElement root;
  root.name = kPaimonMessageName;
  root.num_children = static_cast<int32_t>(columns.size());
  w->schema_.push_back(root);
  for (const Field& f : columns) {
    ColumnPlan plan;
    plan.schema_index = static_cast<int>(w->schema_.size());
    if (f.type.IsNested()) {
      Result<std::vector<SchemaElement>> es = NestedSchemaElements(f);
      if (!es.ok()) return es.status().WithContext("parquet: column '" + f.name + "'");
      for (auto& e : *es) w->schema_.push_back(std::move(e));
    } else {
      Result<SchemaElement> e = ColumnSchemaElement(f);
      if (!e.ok()) return e.status().WithContext("parquet: column '" + f.name + "'");
      w->schema_.push_back(*e);
    }
    w->plans_.push_back(std::move(plan));
  }
  // The leaves and levels of the nested columns, as a reader will see them.
  TRIB_ASSIGN_OR_RETURN(FileSchema fs, FileSchema::Make(w->schema_));
  for (size_t c = 0; c < columns.size(); ++c) {
    const Field& f = columns[c];
    ColumnPlan& plan = w->plans_[c];
    const ParquetColumn& pc = fs.columns()[c];
    plan.first_writer = static_cast<int>(w->writers_.size());
    if (!f.type.IsNested()) {
      w->writers_.push_back(std::make_unique<ColumnChunkWriter>(
          f, w->schema_[static_cast<size_t>(plan.schema_index)], cw));
      w->scratch_.emplace_back();
      continue;
    }
    TRIB_ASSIGN_OR_RETURN(NestedNode root, BuildNestedNode(w->schema_, fs, static_cast<int>(c)));
    TRIB_RETURN_NOT_OK(ApplyNestedType(f.type, &root));
    // Leaf types from the tree (the table's types), in leaf order.
    std::vector<DataType> leaf_types(static_cast<size_t>(pc.num_leaves));
    struct Walk {
      static void Leaves(const NestedNode& n, int base, std::vector<DataType>* out) {
        if (n.kind == NestedNode::Kind::kLeaf) (*out)[n.leaf - base] = n.type;
        for (const NestedNode& k : n.children) Leaves(k, base, out);
      }
    };
    Walk::Leaves(root, pc.first_leaf, &leaf_types);
    for (int l = 0; l < pc.num_leaves; ++l) {
      const LeafColumn& leaf = fs.leaves()[pc.first_leaf + l];
      LeafSpec spec;
      spec.path = leaf.path;
      spec.type = leaf_types[l];
      spec.physical = leaf.physical_type;
      spec.type_length = leaf.type_length;
      spec.max_def = leaf.max_def_level;
      spec.max_rep = leaf.max_rep_level;
      w->writers_.push_back(std::make_unique<ColumnChunkWriter>(std::move(spec), cw));
    }
    plan.nested = std::move(root);
    w->scratch_.emplace_back(static_cast<size_t>(pc.num_leaves));
  }
  w->columns_ = std::move(columns);
  w->options_ = std::move(options);
  w->file_.Add(std::string(kMagic));
  return w;
}

Status ParquetWriter::Append(const Row& row) {
  std::vector<const Value*>& cells = row_cells_;
  cells.clear();
  for (const Value& v : row) cells.push_back(&v);
  return Append(cells);
}

Status ParquetWriter::Append(const std::vector<const Value*>& row_cells) {
  struct Cells {  // row[i] reads *row_cells[i]
    const std::vector<const Value*>& c;
    size_t size() const { return c.size(); }
    const Value& operator[](size_t i) const { return *c[i]; }
  } row{row_cells};
  if (finished_) return Status::Invalid("parquet: Append after Finish");
  if (row.size() != columns_.size()) {
    return Status::Invalid("parquet: row has " + std::to_string(row.size()) + " values, schema " +
                           std::to_string(columns_.size()) + " columns");
  }
  // Validate first so a bad row leaves no partial state behind (nested columns are striped
  // into scratch levels, whose values are checked here too).
  for (size_t i = 0; i < row.size(); ++i) {
    const Value& v = row[i];
    const DataType& t = columns_[i].type;
    const ColumnPlan& plan = plans_[i];
    if (plan.nested) {
      std::vector<LeafLevels>& levels = scratch_[i];
      for (LeafLevels& l : levels) l.clear();
      Status st = v.is_null() && !t.nullable
                      ? Status::Invalid("NULL in NOT NULL column '" + columns_[i].name + "'")
                      : ShredNested(*plan.nested, v, &levels);
      if (!st.ok()) return st.WithContext("column '" + columns_[i].name + "'");
      for (size_t l = 0; l < levels.size(); ++l) {
        const LeafSpec& spec = writers_[plan.first_writer + l]->spec();
        for (const Value& x : levels[l].values) {
          if (x.is_null()) continue;
          PhysicalValues scratch;
          st = AppendPhysical(spec.type, spec.physical, spec.type_length, x, &scratch);
          if (!st.ok()) return st.WithContext("column '" + columns_[i].name + "'");
        }
      }
      continue;
    }
    if (v.is_null()) {
      if (!t.nullable) return Status::Invalid("NULL in NOT NULL column '" + columns_[i].name + "'");
      continue;
    }
    const SchemaElement& e = schema_[static_cast<size_t>(plan.schema_index)];
    Status st = AppendPhysical(t, *e.type, e.type_length.value_or(0), v, nullptr);
    if (!st.ok()) return st.WithContext("column '" + columns_[i].name + "'");
  }
  for (size_t i = 0; i < row.size(); ++i) {
    const ColumnPlan& plan = plans_[i];
    if (!plan.nested) {
      TRIB_RETURN_NOT_OK(writers_[plan.first_writer]->Add(row[i]));
      continue;
    }
    const std::vector<LeafLevels>& levels = scratch_[i];
    for (size_t l = 0; l < levels.size(); ++l) {
      TRIB_RETURN_NOT_OK(writers_[plan.first_writer + l]->AddRow(levels[l].defs, levels[l].reps,
                                                                 levels[l].values));
    }
  }
  ++num_rows_;
  ++group_rows_;
  if (group_rows_ < next_size_check_) return Status::OK();
  return CheckRowGroupSize();
}

Status ParquetWriter::AppendColumns(const std::vector<ColumnValues>& columns, size_t num_rows) {
  if (finished_) return Status::Invalid("parquet: Append after Finish");
  if (columns.size() != columns_.size()) {
    return Status::Invalid("parquet: " + std::to_string(columns.size()) +
                           " columns given, schema " + std::to_string(columns_.size()) +
                           " columns");
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    const ColumnValues& c = columns[i];
    if (plans_[i].nested) {
      return Status::Invalid("parquet: column '" + columns_[i].name +
                             "' is nested; AppendColumns takes flat columns only");
    }
    if (c.nulls == nullptr || columns_[i].type.nullable) continue;
    for (size_t k = 0; k < num_rows; ++k) {
      if (c.nulls[c.SourceRow(k)]) {
        return Status::Invalid("NULL in NOT NULL column '" + columns_[i].name + "'");
      }
    }
  }
  size_t done = 0;
  while (done < num_rows) {
    // Slices end where the row group's size is next checked, as row by row.
    const size_t slice = std::min<size_t>(
        num_rows - done, static_cast<size_t>(std::max<int64_t>(1, next_size_check_ - group_rows_)));
    for (size_t i = 0; i < columns.size(); ++i) {
      const ColumnValues& c = columns[i];
      ColumnChunkWriter& w = *writers_[plans_[i].first_writer];
      TRIB_RETURN_NOT_OK(w.AddValues(c, done, done + slice));
    }
    done += slice;
    num_rows_ += static_cast<int64_t>(slice);
    group_rows_ += static_cast<int64_t>(slice);
    if (group_rows_ >= next_size_check_) TRIB_RETURN_NOT_OK(CheckRowGroupSize());
  }
  return Status::OK();
}

Status ParquetWriter::CheckRowGroupSize() {
  // As parquet-mr: estimating the size walks every column, so the next check is placed halfway
  // to where the average row size says the row group fills up.
  int64_t group_size = 0;
  for (const auto& w : writers_) group_size += w->EstimatedSize();
  if (group_size >= options_.row_group_size) return FlushRowGroup();
  const int64_t per_row = std::max<int64_t>(1, group_size / group_rows_);
  const int64_t rows_left = (options_.row_group_size - group_size) / per_row;
  next_size_check_ = group_rows_ + std::clamp<int64_t>(rows_left / 2, 1, 1000);
  return Status::OK();
}

int64_t ParquetWriter::EstimatedSize() const {
  int64_t size = file_.size;
  for (const auto& w : writers_) size += w->EstimatedSize();
  return size;
}

Status ParquetWriter::FlushRowGroup() {
  if (group_rows_ == 0) return Status::OK();
  RowGroup g;
  g.num_rows = group_rows_;
  g.file_offset = file_.size;
  const int64_t start = file_.size;
  std::vector<ChunkPageIndex> indexes(writers_.size());
  for (size_t i = 0; i < writers_.size(); ++i) {
    auto& w = writers_[i];
    TRIB_ASSIGN_OR_RETURN(ColumnChunk c, w->Finish(&file_, &indexes[i]));
    g.total_byte_size += c.meta_data->total_uncompressed_size;
    g.columns.push_back(std::move(c));
  }
  g.total_compressed_size = file_.size - start;
  g.ordinal = static_cast<int16_t>(row_groups_.size());
  row_groups_.push_back(std::move(g));
  page_indexes_.push_back(std::move(indexes));
  group_rows_ = 0;
  next_size_check_ = 1;
  return Status::OK();
}

Result<std::string> ParquetWriter::Finish() {
  TRIB_ASSIGN_OR_RETURN(FileParts parts, FinishParts());
  return parts.TakeJoined();
}

Result<FileParts> ParquetWriter::FinishParts() {
  if (finished_) return Status::Invalid("parquet: Finish called twice");
  TRIB_RETURN_NOT_OK(FlushRowGroup());
  finished_ = true;
  // The page index after the data, column indexes first, then offset indexes (parquet-mr's
  // layout), each chunk pointing at its own; then the footer. One part for all of them.
  const int64_t index_start = file_.size;
  std::string tail;
  for (size_t g = 0; g < row_groups_.size(); ++g) {
    for (size_t c = 0; c < writers_.size(); ++c) {
      const ChunkPageIndex& index = page_indexes_[g][c];
      if (!index.column_index) continue;
      std::string bytes = EncodeColumnIndex(*index.column_index);
      row_groups_[g].columns[c].column_index_offset =
          index_start + static_cast<int64_t>(tail.size());
      row_groups_[g].columns[c].column_index_length = static_cast<int32_t>(bytes.size());
      tail += bytes;
    }
  }
  for (size_t g = 0; g < row_groups_.size(); ++g) {
    for (size_t c = 0; c < writers_.size(); ++c) {
      std::string bytes = EncodeOffsetIndex(page_indexes_[g][c].offset_index);
      row_groups_[g].columns[c].offset_index_offset =
          index_start + static_cast<int64_t>(tail.size());
      row_groups_[g].columns[c].offset_index_length = static_cast<int32_t>(bytes.size());
      tail += bytes;
    }
  }
  FileMetaData m;
  m.version = 1;
  m.schema = schema_;
  m.num_rows = num_rows_;
  m.row_groups = std::move(row_groups_);
  m.created_by = options_.created_by;
  m.column_orders.assign(writers_.size(), true);
  {
    std::string unsigned_footer = EncodeFileMetaData(m);
    char sum[32];
    std::snprintf(sum, sizeof(sum), "%08x:%lld", Crc32(tail + unsigned_footer),
                  static_cast<long long>(index_start));
    m.key_value_metadata.push_back({kMetadataChecksumKey, std::string(sum)});
  }
  std::string footer = EncodeFileMetaData(m);
  tail += footer;
  uint32_t len = static_cast<uint32_t>(footer.size());
  char b[4];
  std::memcpy(b, &len, 4);
  tail.append(b, 4);
  tail.append(kMagic);
  file_.Add(std::move(tail));
  return std::move(file_);
}

}  // namespace tributary::format::parquet
