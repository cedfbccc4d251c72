// The parquet.thrift structures Tributary reads and writes (footer, page headers, page index),
// as plain structs with hand-written compact-protocol codecs. Field numbers follow
// https://github.com/apache/parquet-format/blob/master/src/main/thrift/parquet.thrift; fields
// not modelled here are skipped when decoding. Optional thrift fields are std::optional.
// Thread-safety: value types; the functions are stateless.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/result.h"

namespace tributary::format::parquet {

enum class PhysicalType : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};

enum class Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };

enum class ConvertedType : int32_t {
  kUtf8 = 0,
  kMap = 1,
  kMapKeyValue = 2,
  kList = 3,
  kEnum = 4,
  kDecimal = 5,
  kDate = 6,
  kTimeMillis = 7,
  kTimeMicros = 8,
  kTimestampMillis = 9,
  kTimestampMicros = 10,
  kUint8 = 11,
  kUint16 = 12,
  kUint32 = 13,
  kUint64 = 14,
  kInt8 = 15,
  kInt16 = 16,
  kInt32 = 17,
  kInt64 = 18,
  kJson = 19,
  kBson = 20,
  kInterval = 21,
};

enum class Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};

enum class Codec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,
  kZstd = 6,
  kLz4Raw = 7,
};

enum class PageType : int32_t {
  kDataPage = 0,
  kIndexPage = 1,
  kDictionaryPage = 2,
  kDataPageV2 = 3,
};

enum class TimeUnit : int32_t { kMillis = 1, kMicros = 2, kNanos = 3 };

// The LogicalType union. `kind` names the member that is set (its thrift field number).
struct LogicalType {
  enum Kind : int32_t {
    kNone = 0,
    kString = 1,
    kMap = 2,
    kList = 3,
    kEnum = 4,
    kDecimal = 5,
    kDate = 6,
    kTime = 7,
    kTimestamp = 8,
    kInteger = 10,
    kUnknown = 11,
    kJson = 12,
    kBson = 13,
    kUuid = 14,
    kFloat16 = 15,
    kOther = 100,  // a member this reader does not model (variant, geometry, ...)
  };
  Kind kind = kNone;
  int32_t scale = 0;                  // kDecimal
  int32_t precision = 0;              // kDecimal
  bool is_adjusted_to_utc = false;    // kTime, kTimestamp
  TimeUnit unit = TimeUnit::kMillis;  // kTime, kTimestamp
  int8_t bit_width = 0;               // kInteger
  bool is_signed = true;              // kInteger

  bool operator==(const LogicalType&) const = default;
};

struct SchemaElement {
  std::optional<PhysicalType> type;
  std::optional<int32_t> type_length;
  std::optional<Repetition> repetition_type;
  std::string name;
  std::optional<int32_t> num_children;
  std::optional<ConvertedType> converted_type;
  std::optional<int32_t> scale;
  std::optional<int32_t> precision;
  std::optional<int32_t> field_id;
  std::optional<LogicalType> logical_type;

  bool operator==(const SchemaElement&) const = default;
};

struct Statistics {
  std::optional<std::string> max;  // deprecated: signed comparison
  std::optional<std::string> min;  // deprecated
  std::optional<int64_t> null_count;
  std::optional<int64_t> distinct_count;
  std::optional<std::string> max_value;
  std::optional<std::string> min_value;
  std::optional<bool> is_max_value_exact;
  std::optional<bool> is_min_value_exact;

  bool operator==(const Statistics&) const = default;
};

struct KeyValue {
  std::string key;
  std::optional<std::string> value;
  bool operator==(const KeyValue&) const = default;
};

struct ColumnMetaData {
  PhysicalType type = PhysicalType::kBoolean;
  std::vector<Encoding> encodings;
  std::vector<std::string> path_in_schema;
  Codec codec = Codec::kUncompressed;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  std::vector<KeyValue> key_value_metadata;
  int64_t data_page_offset = 0;
  std::optional<int64_t> index_page_offset;
  std::optional<int64_t> dictionary_page_offset;
  std::optional<Statistics> statistics;

  bool operator==(const ColumnMetaData&) const = default;
};

struct ColumnChunk {
  std::optional<std::string> file_path;
  int64_t file_offset = 0;
  std::optional<ColumnMetaData> meta_data;
  std::optional<int64_t> offset_index_offset;
  std::optional<int32_t> offset_index_length;
  std::optional<int64_t> column_index_offset;
  std::optional<int32_t> column_index_length;

  bool operator==(const ColumnChunk&) const = default;
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
  std::optional<int64_t> file_offset;
  std::optional<int64_t> total_compressed_size;
  std::optional<int16_t> ordinal;

  bool operator==(const RowGroup&) const = default;
};

struct FileMetaData {
  int32_t version = 1;
  std::vector<SchemaElement> schema;
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::vector<KeyValue> key_value_metadata;
  std::optional<std::string> created_by;
  // One entry per leaf column when present; true = TypeDefinedOrder, false = another order.
  std::vector<bool> column_orders;

  bool operator==(const FileMetaData&) const = default;
};

struct DataPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  Encoding definition_level_encoding = Encoding::kRle;
  Encoding repetition_level_encoding = Encoding::kRle;
  std::optional<Statistics> statistics;
  bool operator==(const DataPageHeader&) const = default;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  std::optional<bool> is_sorted;
  bool operator==(const DictionaryPageHeader&) const = default;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  Encoding encoding = Encoding::kPlain;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  bool is_compressed = true;
  std::optional<Statistics> statistics;
  bool operator==(const DataPageHeaderV2&) const = default;
};

struct PageHeader {
  PageType type = PageType::kDataPage;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<int32_t> crc;
  std::optional<DataPageHeader> data_page_header;
  std::optional<DictionaryPageHeader> dictionary_page_header;
  std::optional<DataPageHeaderV2> data_page_header_v2;
  bool operator==(const PageHeader&) const = default;
};

enum class BoundaryOrder : int32_t { kUnordered = 0, kAscending = 1, kDescending = 2 };

struct ColumnIndex {
  std::vector<bool> null_pages;
  std::vector<std::string> min_values;
  std::vector<std::string> max_values;
  BoundaryOrder boundary_order = BoundaryOrder::kUnordered;
  std::vector<int64_t> null_counts;
  bool operator==(const ColumnIndex&) const = default;
};

struct PageLocation {
  int64_t offset = 0;
  int32_t compressed_page_size = 0;
  int64_t first_row_index = 0;
  bool operator==(const PageLocation&) const = default;
};

struct OffsetIndex {
  std::vector<PageLocation> page_locations;
  bool operator==(const OffsetIndex&) const = default;
};

// Decoders. Each reads one struct from the front of `data`; `consumed` (if given) receives the
// number of bytes it occupied. Missing required fields are Corruption.
Status DecodeFileMetaData(std::string_view data, FileMetaData* out);

// Parquet checksums pages (PageHeader.crc) but not the footer or the page index, where a flipped
// statistic silently skips rows. Files we write carry this key-value entry: "<crc>:<start>",
// the CRC-32 (hex) of the bytes from `start` (the page index) to the footer, followed by the
// footer encoded without this entry. Readers that do not know it ignore it.
inline constexpr const char* kMetadataChecksumKey = "tributary.metadata.crc32";
Status DecodePageHeader(std::string_view data, PageHeader* out, size_t* consumed);
Status DecodeColumnIndex(std::string_view data, ColumnIndex* out);
Status DecodeOffsetIndex(std::string_view data, OffsetIndex* out);

// Encoders.
std::string EncodeFileMetaData(const FileMetaData& m);
std::string EncodePageHeader(const PageHeader& h);
std::string EncodeColumnIndex(const ColumnIndex& c);
std::string EncodeOffsetIndex(const OffsetIndex& o);

const char* PhysicalTypeName(PhysicalType t);
const char* EncodingName(Encoding e);
const char* CodecName(Codec c);

}  // namespace tributary::format::parquet
