#include "format/parquet/thrift.h"

#include <cstring>

namespace tributary::format::parquet {

namespace {

bool IsKnownType(uint8_t t) { return t <= static_cast<uint8_t>(ThriftType::kStruct); }

int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

}  // namespace

Status ThriftReader::ReadByte(uint8_t* out) {
  if (pos_ >= data_.size()) return Status::Corruption("thrift: unexpected end of data");
  *out = static_cast<uint8_t>(data_[pos_++]);
  return Status::OK();
}

Status ThriftReader::ReadVarint(uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    uint8_t b;
    TRIB_RETURN_NOT_OK(ReadByte(&b));
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return Status::OK();
    }
  }
  return Status::Corruption("thrift: varint too long");
}

Status ThriftReader::Expect(ThriftType actual, ThriftType expected) const {
  if (actual == expected) return Status::OK();
  return Status::Corruption("thrift: expected type " + std::to_string(static_cast<int>(expected)) +
                            ", found " + std::to_string(static_cast<int>(actual)));
}

Status ThriftReader::ReadFieldHeader(int16_t* last_id, ThriftType* type, int16_t* id) {
  uint8_t b;
  TRIB_RETURN_NOT_OK(ReadByte(&b));
  uint8_t t = b & 0x0f;
  if (t == 0) {
    *type = ThriftType::kStop;
    *id = 0;
    return Status::OK();
  }
  if (!IsKnownType(t)) return Status::Corruption("thrift: unknown field type " + std::to_string(t));
  *type = static_cast<ThriftType>(t);
  uint8_t delta = b >> 4;
  if (delta != 0) {
    *id = static_cast<int16_t>(*last_id + delta);
  } else {
    uint64_t v;
    TRIB_RETURN_NOT_OK(ReadVarint(&v));
    *id = static_cast<int16_t>(UnZigZag(v));
  }
  *last_id = *id;
  if (*type == ThriftType::kBoolTrue || *type == ThriftType::kBoolFalse) {
    in_field_bool_ = true;
    field_bool_value_ = *type == ThriftType::kBoolTrue;
  } else {
    in_field_bool_ = false;
  }
  return Status::OK();
}

Status ThriftReader::ReadBool(ThriftType type, bool* out) {
  if (type != ThriftType::kBoolTrue && type != ThriftType::kBoolFalse) {
    return Expect(type, ThriftType::kBoolTrue);
  }
  if (in_field_bool_) {
    *out = field_bool_value_;
    in_field_bool_ = false;
    return Status::OK();
  }
  uint8_t b;  // a list element: one byte, 1 = true (2 or 0 = false)
  TRIB_RETURN_NOT_OK(ReadByte(&b));
  *out = b == 1;
  return Status::OK();
}

Status ThriftReader::ReadI8(ThriftType type, int8_t* out) {
  TRIB_RETURN_NOT_OK(Expect(type, ThriftType::kByte));
  uint8_t b;
  TRIB_RETURN_NOT_OK(ReadByte(&b));
  *out = static_cast<int8_t>(b);
  return Status::OK();
}

Status ThriftReader::ReadI16(ThriftType type, int16_t* out) {
  TRIB_RETURN_NOT_OK(Expect(type, ThriftType::kI16));
  uint64_t v;
  TRIB_RETURN_NOT_OK(ReadVarint(&v));
  *out = static_cast<int16_t>(UnZigZag(v));
  return Status::OK();
}

Status ThriftReader::ReadI32(ThriftType type, int32_t* out) {
  TRIB_RETURN_NOT_OK(Expect(type, ThriftType::kI32));
  uint64_t v;
  TRIB_RETURN_NOT_OK(ReadVarint(&v));
  *out = static_cast<int32_t>(UnZigZag(v));
  return Status::OK();
}

Status ThriftReader::ReadI64(ThriftType type, int64_t* out) {
  TRIB_RETURN_NOT_OK(Expect(type, ThriftType::kI64));
  uint64_t v;
  TRIB_RETURN_NOT_OK(ReadVarint(&v));
  *out = UnZigZag(v);
  return Status::OK();
}

Status ThriftReader::ReadDouble(ThriftType type, double* out) {
  TRIB_RETURN_NOT_OK(Expect(type, ThriftType::kDouble));
  if (remaining() < 8) return Status::Corruption("thrift: unexpected end of data");
  std::memcpy(out, data_.data() + pos_, 8);  // little-endian on the wire and on this machine
  pos_ += 8;
  return Status::OK();
}

Status ThriftReader::ReadBinary(ThriftType type, std::string* out) {
  TRIB_RETURN_NOT_OK(Expect(type, ThriftType::kBinary));
  uint64_t n;
  TRIB_RETURN_NOT_OK(ReadVarint(&n));
  if (n > remaining()) return Status::Corruption("thrift: binary longer than the data");
  out->assign(data_.data() + pos_, n);
  pos_ += n;
  return Status::OK();
}

Status ThriftReader::ReadListHeader(ThriftType type, ThriftType* elem_type, int32_t* size) {
  if (type != ThriftType::kList && type != ThriftType::kSet) {
    return Expect(type, ThriftType::kList);
  }
  uint8_t b;
  TRIB_RETURN_NOT_OK(ReadByte(&b));
  uint8_t t = b & 0x0f;
  if (t == 0 || !IsKnownType(t)) {
    return Status::Corruption("thrift: bad list element type " + std::to_string(t));
  }
  *elem_type = static_cast<ThriftType>(t);
  uint64_t n = b >> 4;
  if (n == 15) TRIB_RETURN_NOT_OK(ReadVarint(&n));
  // Every element occupies at least one byte (an empty struct is its STOP byte).
  if (n > remaining()) return Status::Corruption("thrift: list longer than the data");
  *size = static_cast<int32_t>(n);
  in_field_bool_ = false;
  return Status::OK();
}

Status ThriftReader::Skip(ThriftType type) { return SkipDepth(type, depth_); }

Status ThriftReader::SkipDepth(ThriftType type, int depth) {
  if (depth > kMaxThriftDepth) return Status::Corruption("thrift: values nested too deeply");
  uint64_t v;
  uint8_t b;
  switch (type) {
    case ThriftType::kBoolTrue:
    case ThriftType::kBoolFalse:
      if (in_field_bool_) {
        in_field_bool_ = false;
        return Status::OK();
      }
      return ReadByte(&b);
    case ThriftType::kByte:
      return ReadByte(&b);
    case ThriftType::kI16:
    case ThriftType::kI32:
    case ThriftType::kI64:
      return ReadVarint(&v);
    case ThriftType::kDouble:
      if (remaining() < 8) return Status::Corruption("thrift: unexpected end of data");
      pos_ += 8;
      return Status::OK();
    case ThriftType::kBinary:
      TRIB_RETURN_NOT_OK(ReadVarint(&v));
      if (v > remaining()) return Status::Corruption("thrift: binary longer than the data");
      pos_ += v;
      return Status::OK();
    case ThriftType::kList:
    case ThriftType::kSet: {
      ThriftType elem;
      int32_t n;
      TRIB_RETURN_NOT_OK(ReadListHeader(type, &elem, &n));
      for (int32_t i = 0; i < n; ++i) TRIB_RETURN_NOT_OK(SkipDepth(elem, depth + 1));
      return Status::OK();
    }
    case ThriftType::kMap: {
      TRIB_RETURN_NOT_OK(ReadVarint(&v));
      if (v == 0) return Status::OK();
      if (v > remaining()) return Status::Corruption("thrift: map longer than the data");
      TRIB_RETURN_NOT_OK(ReadByte(&b));
      uint8_t kt = b >> 4, vt = b & 0x0f;
      if (kt == 0 || vt == 0 || !IsKnownType(kt) || !IsKnownType(vt)) {
        return Status::Corruption("thrift: bad map types");
      }
      in_field_bool_ = false;
      for (uint64_t i = 0; i < v; ++i) {
        TRIB_RETURN_NOT_OK(SkipDepth(static_cast<ThriftType>(kt), depth + 1));
        TRIB_RETURN_NOT_OK(SkipDepth(static_cast<ThriftType>(vt), depth + 1));
      }
      return Status::OK();
    }
    case ThriftType::kStruct: {
      int saved = depth_;
      depth_ = depth;
      Status st = ReadStruct([&](int16_t, ThriftType t) { return SkipDepth(t, depth_ + 1); });
      depth_ = saved;
      return st;
    }
    case ThriftType::kStop:
      break;
  }
  return Status::Corruption("thrift: cannot skip type " + std::to_string(static_cast<int>(type)));
}

// ---------------------------------------------------------------------------------------------

void ThriftWriter::Varint(uint64_t v) {
  while (v >= 0x80) {
    out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out_.push_back(static_cast<char>(v));
}

void ThriftWriter::ZigZag(int64_t v) {
  Varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

void ThriftWriter::BeginStruct() {
  last_ids_.push_back(last_id_);
  last_id_ = 0;
}

void ThriftWriter::EndStruct() {
  out_.push_back(0);
  last_id_ = last_ids_.empty() ? 0 : last_ids_.back();
  if (!last_ids_.empty()) last_ids_.pop_back();
}

void ThriftWriter::FieldHeader(int16_t id, ThriftType type) {
  int delta = id - last_id_;
  if (delta > 0 && delta <= 15) {
    out_.push_back(static_cast<char>((delta << 4) | static_cast<int>(type)));
  } else {
    out_.push_back(static_cast<char>(type));
    ZigZag(id);
  }
  last_id_ = id;
}

void ThriftWriter::FieldBool(int16_t id, bool v) {
  FieldHeader(id, v ? ThriftType::kBoolTrue : ThriftType::kBoolFalse);
}
void ThriftWriter::FieldI8(int16_t id, int8_t v) {
  FieldHeader(id, ThriftType::kByte);
  out_.push_back(static_cast<char>(v));
}
void ThriftWriter::FieldI16(int16_t id, int16_t v) {
  FieldHeader(id, ThriftType::kI16);
  ZigZag(v);
}
void ThriftWriter::FieldI32(int16_t id, int32_t v) {
  FieldHeader(id, ThriftType::kI32);
  ZigZag(v);
}
void ThriftWriter::FieldI64(int16_t id, int64_t v) {
  FieldHeader(id, ThriftType::kI64);
  ZigZag(v);
}
void ThriftWriter::FieldDouble(int16_t id, double v) {
  FieldHeader(id, ThriftType::kDouble);
  char buf[8];
  std::memcpy(buf, &v, 8);
  out_.append(buf, 8);
}
void ThriftWriter::FieldBinary(int16_t id, std::string_view v) {
  FieldHeader(id, ThriftType::kBinary);
  ListBinary(v);
}
void ThriftWriter::FieldStructBegin(int16_t id) {
  FieldHeader(id, ThriftType::kStruct);
  BeginStruct();
}
void ThriftWriter::FieldListBegin(int16_t id, ThriftType elem_type, int32_t size) {
  FieldHeader(id, ThriftType::kList);
  if (size < 15) {
    out_.push_back(static_cast<char>((size << 4) | static_cast<int>(elem_type)));
  } else {
    out_.push_back(static_cast<char>(0xf0 | static_cast<int>(elem_type)));
    Varint(static_cast<uint64_t>(size));
  }
}

void ThriftWriter::ListBool(bool v) { out_.push_back(v ? 1 : 2); }
void ThriftWriter::ListI32(int32_t v) { ZigZag(v); }
void ThriftWriter::ListI64(int64_t v) { ZigZag(v); }
void ThriftWriter::ListBinary(std::string_view v) {
  Varint(v.size());
  out_.append(v.data(), v.size());
}

}  // namespace tributary::format::parquet
