// Avro object container files: header (magic, metadata map, sync marker), then blocks of
// (record count, byte size, compressed records, sync marker).
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "format/avro.h"
#include "format/compression.h"

namespace tributary::avro {
namespace {

constexpr std::string_view kMagic("Obj\x01", 4);
constexpr size_t kSyncSize = 16;
// A block of zero-byte records cannot be bounded by its size; cap damaged counts.
constexpr int64_t kMaxRecordsPerBlock = int64_t{1} << 24;

const Schema& LongSchema() {
  static const Schema* schema = [] {
    auto* s = new Schema();
    s->type = Type::kLong;
    return s;
  }();
  return *schema;
}

const Schema& MetadataSchema() {
  static const Schema* schema = [] {
    auto* s = new Schema();
    s->type = Type::kMap;
    auto bytes = std::make_shared<Schema>();
    bytes->type = Type::kBytes;
    s->values = std::move(bytes);
    return s;
  }();
  return *schema;
}

Status ReadLong(std::string_view data, size_t* pos, int64_t* v) {
  Datum d;
  TRIB_RETURN_NOT_OK(Decode(LongSchema(), data, pos, &d));
  *v = d.as_long();
  return Status::OK();
}

void PutLong(int64_t v, std::string* out) {
  // Cannot fail: the datum matches the schema.
  (void)Encode(LongSchema(), Datum(v), out);
}

Status AsCorruption(const Status& st) {
  if (st.ok() || st.code() == StatusCode::kCorruption || st.code() == StatusCode::kNotSupported) {
    return st;
  }
  return Status::Corruption(st.message());
}

Result<std::string> DecompressBlock(Codec codec, std::string_view data) {
  switch (codec) {
    case Codec::kNull:
      return std::string(data);
    case Codec::kDeflate:
      return format::Decompress(format::CompressionCodec::kDeflate, data);
    case Codec::kZstandard:
      return format::Decompress(format::CompressionCodec::kZstd, data);
    case Codec::kSnappy: {
      // Snappy blocks end with the big-endian CRC32 of the uncompressed data.
      if (data.size() < 4) return Status::Corruption("snappy: block shorter than its checksum");
      const auto* c = reinterpret_cast<const uint8_t*>(data.data() + data.size() - 4);
      const uint32_t expected =
          (uint32_t{c[0]} << 24) | (uint32_t{c[1]} << 16) | (uint32_t{c[2]} << 8) | uint32_t{c[3]};
      TRIB_ASSIGN_OR_RETURN(std::string out, format::Decompress(format::CompressionCodec::kSnappy,
                                                                data.substr(0, data.size() - 4)));
      if (format::Crc32(out) != expected)
        return Status::Corruption("snappy: block checksum mismatch");
      return out;
    }
  }
  return Status::Internal("avro: unknown codec");
}

Result<std::string> CompressBlock(Codec codec, std::string_view data, int zstd_level) {
  switch (codec) {
    case Codec::kNull:
      return std::string(data);
    case Codec::kDeflate:
      return format::Compress(format::CompressionCodec::kDeflate, data);
    case Codec::kZstandard:
      return format::Compress(format::CompressionCodec::kZstd, data, zstd_level);
    case Codec::kSnappy: {
      TRIB_ASSIGN_OR_RETURN(std::string out,
                            format::Compress(format::CompressionCodec::kSnappy, data));
      const uint32_t crc = format::Crc32(data);
      for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(crc >> shift));
      return out;
    }
  }
  return Status::Internal("avro: unknown codec");
}

}  // namespace

// ---- FileReader ----

Result<std::unique_ptr<FileReader>> FileReader::Open(std::string file) {
  std::unique_ptr<FileReader> reader(new FileReader());
  reader->file_ = std::move(file);
  const std::string& f = reader->file_;
  if (f.size() < kMagic.size() || f.compare(0, kMagic.size(), kMagic) != 0) {
    return Status::Corruption("avro: not an object container file (bad magic)");
  }
  size_t pos = kMagic.size();
  Datum metadata;
  Status st = Decode(MetadataSchema(), f, &pos, &metadata);
  if (!st.ok()) return AsCorruption(st.WithContext("avro header"));
  std::string schema_json;
  std::string codec_name;
  for (const auto& [key, value] : metadata.as_map()) {
    if (key == "avro.schema") schema_json = value.as_string();
    if (key == "avro.codec") codec_name = value.as_string();
  }
  if (schema_json.empty()) return Status::Corruption("avro header: no avro.schema");
  Result<SchemaPtr> schema = ParseSchema(schema_json);
  if (!schema.ok()) return AsCorruption(schema.status().WithContext("avro header"));
  reader->schema_ = std::move(schema).value();
  TRIB_ASSIGN_OR_RETURN(reader->codec_, CodecFromName(codec_name));
  if (f.size() - pos < kSyncSize) return Status::Corruption("avro header: truncated sync marker");
  reader->sync_ = f.substr(pos, kSyncSize);
  reader->pos_ = pos + kSyncSize;
  return reader;
}

Status FileReader::LoadBlock() {
  int64_t count;
  int64_t size;
  Status st = ReadLong(file_, &pos_, &count);
  if (st.ok()) st = ReadLong(file_, &pos_, &size);
  if (!st.ok()) return st.WithContext("avro block header");
  if (count < 0 || size < 0) return Status::Corruption("avro: negative block count or size");
  if (static_cast<uint64_t>(size) > file_.size() - pos_ || file_.size() - pos_ - size < kSyncSize) {
    return Status::Corruption("avro: truncated block");
  }
  std::string_view data = std::string_view(file_).substr(pos_, size);
  pos_ += size;
  if (file_.compare(pos_, kSyncSize, sync_) != 0) {
    return Status::Corruption("avro: sync marker mismatch after block");
  }
  pos_ += kSyncSize;
  Result<std::string> block = DecompressBlock(codec_, data);
  if (!block.ok()) return block.status().WithContext("avro block");
  block_ = std::move(block).value();
  if (count > static_cast<int64_t>(block_.size()) && count > kMaxRecordsPerBlock) {
    return Status::Corruption("avro: implausible block record count");
  }
  block_pos_ = 0;
  block_remaining_ = count;
  return Status::OK();
}

Result<bool> FileReader::Next(Datum* out) {
  while (block_remaining_ == 0) {
    if (block_pos_ != block_.size()) {
      return Status::Corruption("avro: block has bytes after its last record");
    }
    if (pos_ == file_.size()) return false;
    TRIB_RETURN_NOT_OK(LoadBlock());
  }
  Status st = Decode(*schema_, block_, &block_pos_, out);
  if (!st.ok()) return AsCorruption(st.WithContext("avro record"));
  --block_remaining_;
  return true;
}

Result<std::vector<Datum>> FileReader::ReadAll() {
  std::vector<Datum> records;
  while (true) {
    Datum d;
    TRIB_ASSIGN_OR_RETURN(bool more, Next(&d));
    if (!more) break;
    records.push_back(std::move(d));
  }
  return records;
}

// ---- FileWriter ----

Result<std::unique_ptr<FileWriter>> FileWriter::Make(SchemaPtr schema, Codec codec,
                                                     size_t block_size, int zstd_level) {
  if (schema == nullptr) return Status::Invalid("avro writer: null schema");
  std::unique_ptr<FileWriter> writer(new FileWriter());
  writer->schema_ = std::move(schema);
  writer->codec_ = codec;
  writer->zstd_level_ = zstd_level;
  writer->block_size_ = block_size;
  std::random_device rd;
  for (size_t i = 0; i < kSyncSize; i += 4) {
    const uint32_t r = rd();
    for (int b = 0; b < 4; ++b) writer->sync_.push_back(static_cast<char>(r >> (8 * b)));
  }
  std::string& out = writer->out_;
  out.append(kMagic);
  DatumMap metadata;
  metadata.emplace_back("avro.schema", SchemaToJson(*writer->schema_));
  metadata.emplace_back("avro.codec", std::string(CodecName(codec)));
  TRIB_RETURN_NOT_OK(Encode(MetadataSchema(), Datum(std::move(metadata)), &out));
  out.append(writer->sync_);
  return writer;
}

Status FileWriter::Append(const Datum& record) {
  if (finished_) return Status::Invalid("avro writer: Append after Finish");
  const size_t before = block_.size();
  Status st = Encode(*schema_, record, &block_);
  if (!st.ok()) {
    block_.resize(before);
    return st;
  }
  ++block_count_;
  ++num_records_;
  if (block_.size() >= block_size_) return FlushBlock();
  return Status::OK();
}

Status FileWriter::FlushBlock() {
  if (block_count_ == 0) return Status::OK();
  TRIB_ASSIGN_OR_RETURN(std::string data, CompressBlock(codec_, block_, zstd_level_));
  PutLong(block_count_, &out_);
  PutLong(static_cast<int64_t>(data.size()), &out_);
  out_.append(data);
  out_.append(sync_);
  block_.clear();
  block_count_ = 0;
  return Status::OK();
}

Result<std::string> FileWriter::Finish() {
  if (finished_) return Status::Invalid("avro writer: Finish called twice");
  TRIB_RETURN_NOT_OK(FlushBlock());
  finished_ = true;
  return std::move(out_);
}

}  // namespace tributary::avro
