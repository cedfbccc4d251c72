#include "datafile/file_format.h"

#include <array>

#include "datafile/parquet_file.h"
#include "format/avro.h"
#include "format/avro_values.h"
#include "format/compression.h"
#include "format/parquet/writer.h"

namespace tributary::datafile {

using merge::KeyValue;

Status FormatWriter::AppendColumns(const std::vector<format::ColumnValues>&, size_t) {
  return Status::Internal("this file format does not write column by column");
}

Result<FileParts> FormatWriter::FinishParts() {
  TRIB_ASSIGN_OR_RETURN(std::string bytes, Finish());
  FileParts parts;
  parts.Add(std::move(bytes));
  return parts;
}

Result<std::unique_ptr<FormatWriter>> FileFormat::NewWriter(
    const std::vector<Field>&, const options::FileFormatOptions&) const {
  return Status::NotSupported("file.format '" + std::string(name()) +
                              "' cannot be written (Tributary writes " + WritableFormatNames() +
                              ")");
}

namespace {

// ---- Parquet (format/parquet/)

class ParquetFormatWriter : public FormatWriter {
 public:
  explicit ParquetFormatWriter(std::unique_ptr<format::parquet::ParquetWriter> w)
      : w_(std::move(w)) {}
  Status Append(const std::vector<const Value*>& cells) override { return w_->Append(cells); }
  Status AppendColumns(const std::vector<format::ColumnValues>& columns, size_t n) override {
    return w_->AppendColumns(columns, n);
  }
  int64_t EstimatedSize() const override { return w_->EstimatedSize(); }
  Result<std::string> Finish() override { return w_->Finish(); }
  Result<FileParts> FinishParts() override { return w_->FinishParts(); }

 private:
  std::unique_ptr<format::parquet::ParquetWriter> w_;
};

class ParquetFormat : public FileFormat {
 public:
  std::string_view name() const override { return "parquet"; }
  std::string_view extension() const override { return ".parquet"; }
  bool WritesColumns() const override { return true; }
  bool ReadsColumns() const override { return true; }
  Result<std::unique_ptr<FormatWriter>> NewWriter(
      const std::vector<Field>& fields, const options::FileFormatOptions& o) const override {
    format::parquet::ParquetWriterOptions po;
    TRIB_ASSIGN_OR_RETURN(
        po.compression,
        format::CompressionCodecFromName(o.compression == "none" ? "uncompressed" : o.compression));
    po.zstd_level = o.zstd_level;
    po.page_size = o.parquet_page_size;
    po.row_group_size = o.parquet_row_group_size;
    po.dictionary = o.parquet_dictionary;
    TRIB_ASSIGN_OR_RETURN(auto w, format::parquet::ParquetWriter::Make(fields, po));
    return std::unique_ptr<FormatWriter>(new ParquetFormatWriter(std::move(w)));
  }
  Result<std::vector<KeyValue>> Read(const DataFileRef& file, const FileLayout& layout,
                                     int32_t level, const std::optional<std::vector<std::string>>&,
                                     const std::shared_ptr<const std::vector<bool>>& mask,
                                     const std::vector<Field>* file_fields,
                                     const ReadPushdown& pushdown) const override {
    return ReadParquetRecords(file, layout, level, mask, file_fields, pushdown);
  }
};

// ---- Avro (format/avro.h, the values as Paimon's AvroSchemaConverter maps them)

class AvroFormatWriter : public FormatWriter {
 public:
  AvroFormatWriter(std::unique_ptr<avro::FileWriter> w, std::vector<DataType> types)
      : w_(std::move(w)), types_(std::move(types)) {}
  Status Append(const std::vector<const Value*>& cells) override {
    avro::DatumList rec;
    rec.reserve(cells.size());
    for (size_t i = 0; i < cells.size(); i++) rec.push_back(avro::ToDatum(*cells[i], types_[i]));
    return w_->Append(avro::Datum(std::move(rec)));
  }
  int64_t EstimatedSize() const override { return static_cast<int64_t>(w_->EstimatedSize()); }
  Result<std::string> Finish() override { return w_->Finish(); }

 private:
  std::unique_ptr<avro::FileWriter> w_;
  std::vector<DataType> types_;  // of the physical fields
};

class AvroFormat : public FileFormat {
 public:
  std::string_view name() const override { return "avro"; }
  std::string_view extension() const override { return ".avro"; }
  int32_t MaxTimestampPrecision() const override { return 6; }  // Avro's timestamp-micros
  Result<std::unique_ptr<FormatWriter>> NewWriter(
      const std::vector<Field>& fields, const options::FileFormatOptions& o) const override {
    TRIB_ASSIGN_OR_RETURN(avro::SchemaPtr schema, avro::PaimonRecordSchema(fields));
    avro::Codec codec = avro::Codec::kZstandard;
    if (o.compression == "none") codec = avro::Codec::kNull;
    if (o.compression == "snappy") codec = avro::Codec::kSnappy;
    if (o.compression == "gzip" || o.compression == "deflate") codec = avro::Codec::kDeflate;
    TRIB_ASSIGN_OR_RETURN(auto w, avro::FileWriter::Make(schema, codec, 64 * 1024, o.zstd_level));
    std::vector<DataType> types;
    for (const auto& f : fields) types.push_back(f.type);
    return std::unique_ptr<FormatWriter>(new AvroFormatWriter(std::move(w), std::move(types)));
  }
  Result<std::vector<KeyValue>> Read(const DataFileRef& file, const FileLayout& layout,
                                     int32_t level, const std::optional<std::vector<std::string>>&,
                                     const std::shared_ptr<const std::vector<bool>>& mask,
                                     const std::vector<Field>* file_fields,
                                     const ReadPushdown& pushdown) const override {
    return ReadAvroRecords(file, layout, level, mask, file_fields, pushdown);
  }
};

// ---- Paimon's `.blob` files (format/blob_file.h): read only

class BlobFormat : public FileFormat {
 public:
  std::string_view name() const override { return "blob"; }
  std::string_view extension() const override { return ".blob"; }
  bool Writable() const override { return false; }
  Result<std::vector<KeyValue>> Read(const DataFileRef& file, const FileLayout& layout,
                                     int32_t level,
                                     const std::optional<std::vector<std::string>>& write_cols,
                                     const std::shared_ptr<const std::vector<bool>>&,
                                     const std::vector<Field>* file_fields,
                                     const ReadPushdown&) const override {
    return ReadBlobRecords(file, layout, level, write_cols, file_fields);
  }
};

const std::array<const FileFormat*, 3>& Formats() {
  static const ParquetFormat parquet;
  static const AvroFormat avro_format;
  static const BlobFormat blob;
  static const std::array<const FileFormat*, 3> all = {&parquet, &avro_format, &blob};
  return all;
}

}  // namespace

const FileFormat* FindFileFormat(std::string_view name) {
  for (const FileFormat* f : Formats()) {
    if (f->name() == name) return f;
  }
  return nullptr;
}

const FileFormat* FileFormatOfPath(std::string_view path) {
  for (const FileFormat* f : Formats()) {
    const std::string_view ext = f->extension();
    if (path.size() > ext.size() && path.substr(path.size() - ext.size()) == ext) return f;
  }
  return nullptr;
}

bool ReadsColumns(std::string_view path) {
  const FileFormat* f = FileFormatOfPath(path);
  return f != nullptr && f->ReadsColumns();
}

std::string WritableFormatNames() {
  std::vector<std::string_view> names;
  for (const FileFormat* f : Formats()) {
    if (f->Writable()) names.push_back(f->name());
  }
  std::string out;
  for (size_t i = 0; i < names.size(); i++) {
    if (i > 0) out += i + 1 == names.size() ? " and " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace tributary::datafile
