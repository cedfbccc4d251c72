// The Thrift compact protocol (https://github.com/apache/thrift/blob/master/doc/specs/
// thrift-compact-protocol.md), written by hand for the few structures Parquet's footer and page
// headers need (parquet_metadata.h). Readers bound every length by the input and every nesting
// by kMaxThriftDepth, so damaged input gives Status::Corruption, never a crash.
// Thread-safety: ThriftReader and ThriftWriter are single-threaded value objects.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/result.h"

namespace tributary::format::parquet {

// Compact-protocol type ids, as they appear in field and collection headers.
enum class ThriftType : uint8_t {
  kStop = 0,
  kBoolTrue = 1,
  kBoolFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

constexpr int kMaxThriftDepth = 64;

// Decodes compact-protocol values from a byte string that outlives the reader.
class ThriftReader {
 public:
  explicit ThriftReader(std::string_view data) : data_(data) {}

  // Reads the fields of one struct, calling `on_field(id, type)` for each until the STOP byte.
  // `on_field` must consume the field's value (with a Read* call or Skip) and return a Status.
  template <typename Fn>
  Status ReadStruct(Fn&& on_field);

  // Field and element values. `type` is the type from the field or list header; a mismatch
  // with the expected type is Corruption. Booleans in a field are carried by the header itself.
  Status ReadBool(ThriftType type, bool* out);
  Status ReadI8(ThriftType type, int8_t* out);
  Status ReadI16(ThriftType type, int16_t* out);
  Status ReadI32(ThriftType type, int32_t* out);
  Status ReadI64(ThriftType type, int64_t* out);
  Status ReadDouble(ThriftType type, double* out);
  Status ReadBinary(ThriftType type, std::string* out);
  // A list (or set) header: its element type and size. The size is checked against the bytes
  // left, as every element takes at least one byte.
  Status ReadListHeader(ThriftType type, ThriftType* elem_type, int32_t* size);
  // Skips a value of `type`, including nested structs and collections.
  Status Skip(ThriftType type);

  size_t position() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }

 private:
  Status ReadFieldHeader(int16_t* last_id, ThriftType* type, int16_t* id);
  Status ReadVarint(uint64_t* out);
  Status ReadByte(uint8_t* out);
  Status Expect(ThriftType actual, ThriftType expected) const;
  Status SkipDepth(ThriftType type, int depth);

  std::string_view data_;
  size_t pos_ = 0;
  int depth_ = 0;
  // Set by ReadFieldHeader for boolean fields, whose value lives in the header.
  bool in_field_bool_ = false;
  bool field_bool_value_ = false;
};

// Encodes compact-protocol values into a growing string.
class ThriftWriter {
 public:
  // Structs: BeginStruct/EndStruct bracket the fields of a struct (the top-level one too).
  void BeginStruct();
  void EndStruct();  // writes STOP

  void FieldBool(int16_t id, bool v);
  void FieldI8(int16_t id, int8_t v);
  void FieldI16(int16_t id, int16_t v);
  void FieldI32(int16_t id, int32_t v);
  void FieldI64(int16_t id, int64_t v);
  void FieldDouble(int16_t id, double v);
  void FieldBinary(int16_t id, std::string_view v);
  // Opens a struct-valued field; follow with the fields and EndStruct().
  void FieldStructBegin(int16_t id);
  // Opens a list-valued field; follow with `size` List* elements (struct elements are
  // BeginStruct ... EndStruct).
  void FieldListBegin(int16_t id, ThriftType elem_type, int32_t size);

  void ListBool(bool v);
  void ListI32(int32_t v);
  void ListI64(int64_t v);
  void ListBinary(std::string_view v);

  const std::string& data() const { return out_; }
  std::string Release() { return std::move(out_); }

 private:
  void FieldHeader(int16_t id, ThriftType type);
  void Varint(uint64_t v);
  void ZigZag(int64_t v);

  std::string out_;
  std::vector<int16_t> last_ids_;
  int16_t last_id_ = 0;
};

template <typename Fn>
Status ThriftReader::ReadStruct(Fn&& on_field) {
  if (++depth_ > kMaxThriftDepth) return Status::Corruption("thrift: structs nested too deeply");
  int16_t last_id = 0;
  while (true) {
    ThriftType type;
    int16_t id;
    Status st = ReadFieldHeader(&last_id, &type, &id);
    if (!st.ok()) return st;
    if (type == ThriftType::kStop) break;
    st = on_field(id, type);
    in_field_bool_ = false;
    if (!st.ok()) return st;
  }
  --depth_;
  return Status::OK();
}

}  // namespace tributary::format::parquet
