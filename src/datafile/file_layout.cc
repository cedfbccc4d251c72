#include <algorithm>

#include "datafile/data_file.h"
#include "format/avro.h"
#include "format/binary_row.h"

namespace tributary::datafile {

FileLayout FileLayout::Of(const TableSchema& schema) {
  FileLayout l;
  l.fields = schema.fields;
  l.primary_key = schema.HasPrimaryKey();
  l.schema_id = schema.id;
  for (const auto& k : schema.TrimmedPrimaryKeys()) l.key_columns.push_back(schema.FieldIndex(k));
  return l;
}

std::vector<DataType> FileLayout::KeyTypes() const {
  std::vector<DataType> t;
  for (int c : key_columns) t.push_back(fields[c].type);
  return t;
}

std::vector<DataType> FileLayout::FieldTypes() const {
  std::vector<DataType> t;
  for (const auto& f : fields) t.push_back(f.type);
  return t;
}

namespace {
constexpr int32_t kIntMax = 2147483647;
constexpr int32_t kKeyFieldIdStart = kIntMax / 2;
constexpr int32_t kSequenceFieldId = kIntMax - 1;
constexpr int32_t kValueKindFieldId = kIntMax - 2;
}  // namespace

std::vector<Field> FileLayout::PhysicalFields() const {
  std::vector<Field> out;
  if (primary_key) {
    for (int c : key_columns) {
      out.push_back({kKeyFieldIdStart + fields[c].id, "_KEY_" + fields[c].name,
                     fields[c].type.NotNull(), ""});
    }
    out.push_back({kSequenceFieldId, "_SEQUENCE_NUMBER", DataType::BigInt().NotNull(), ""});
    out.push_back({kValueKindFieldId, "_VALUE_KIND", DataType::TinyInt().NotNull(), ""});
  }
  for (const auto& f : fields) out.push_back(f);
  return out;
}

int CompareKeys(const Row& a, const Row& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); i++) {
    int c = merge::FastCompare(a[i], b[i]);
    if (c != 0) return c;
  }
  return 0;
}

bool KeyRange::Contains(const Row& key) const {
  return CompareKeys(key, min) >= 0 && CompareKeys(key, max) <= 0;
}

bool KeyRange::Overlaps(const KeyRange& o) const {
  return CompareKeys(min, o.max) <= 0 && CompareKeys(o.min, max) <= 0;
}

std::optional<KeyRange> DecodeKeyRange(const meta::DataFileMeta& f,
                                       const std::vector<DataType>& key_types) {
  auto mn = format::DeserializeBinaryRow(f.min_key, key_types);
  auto mx = format::DeserializeBinaryRow(f.max_key, key_types);
  if (!mn.ok() || !mx.ok() || mn->size() != key_types.size() || key_types.empty()) {
    return std::nullopt;
  }
  return KeyRange{std::move(*mn), std::move(*mx)};
}

}  // namespace tributary::datafile
