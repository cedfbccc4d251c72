#include "datafile/packed_records.h"

#include <algorithm>
#include <cstring>

namespace tributary::datafile {

namespace {

// Field tags (4 bits each, two to a byte).
enum Tag : uint8_t {
  kNull = 0,
  kFalse = 1,
  kTrue = 2,
  kInt = 3,        // zigzag varint
  kDouble = 4,     // 8 bytes
  kString = 5,     // varint length, bytes
  kSmallDec = 6,   // a decimal whose unscaled value fits 64 bits: zigzag varint
  kLargeDec = 7,   // 16 bytes
  kTimestamp = 8,  // zigzag varint millis, varint nanoseconds
};

uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// The records are this process's own bytes: no bound is checked.
uint64_t GetVarint(const char* data, size_t* at) {
  uint64_t v = 0;
  int shift = 0;
  while (true) {
    const auto b = static_cast<uint8_t>(data[(*at)++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) return v;
    shift += 7;
  }
}

// A record's header: its key (from the key before it), sequence number, kind and value bytes.
struct Header {
  int64_t key;
  int64_t sequence;
  RowKind kind;
  size_t value_at;
  size_t value_len;
  size_t next;
};

Header ReadHeader(const std::string& data, size_t at, int64_t previous_key) {
  Header h;
  const char* d = data.data();
  h.key = previous_key + UnZigZag(GetVarint(d, &at));
  h.sequence = UnZigZag(GetVarint(d, &at));
  const uint64_t len_kind = GetVarint(d, &at);
  h.kind = static_cast<RowKind>(len_kind & 3);
  h.value_len = static_cast<size_t>(len_kind >> 2);
  h.value_at = at;
  h.next = at + h.value_len;
  return h;
}

}  // namespace

bool PackedRecords::Append(int64_t sequence, RowKind kind, const Row& value) {
  if (value.size() != fields_ || !value[key_column_].is_int()) return false;
  const int64_t key = value[key_column_].int_value();
  // The value without its key column: tags first, then what each tag needs.
  const size_t tagged = fields_ - 1;
  scratch_.assign((tagged + 1) / 2, '\0');
  size_t t = 0;
  for (size_t c = 0; c < fields_; c++) {
    if (static_cast<int>(c) == key_column_) continue;
    const Value& v = value[c];
    uint8_t tag;
    if (v.is_null()) {
      tag = kNull;
    } else if (v.is_bool()) {
      tag = v.bool_value() ? kTrue : kFalse;
    } else if (v.is_int()) {
      tag = kInt;
      PutVarint(&scratch_, ZigZag(v.int_value()));
    } else if (v.is_double()) {
      tag = kDouble;
      const double d = v.double_value();
      char bytes[8];
      std::memcpy(bytes, &d, 8);
      scratch_.append(bytes, 8);
    } else if (v.is_string()) {
      tag = kString;
      PutVarint(&scratch_, v.string_value().size());
      scratch_ += v.string_value();
    } else if (v.is_decimal()) {
      const __int128 u = v.decimal_value().unscaled;
      if (u >= INT64_MIN && u <= INT64_MAX) {
        tag = kSmallDec;
        PutVarint(&scratch_, ZigZag(static_cast<int64_t>(u)));
      } else {
        tag = kLargeDec;
        char bytes[16];
        std::memcpy(bytes, &u, 16);
        scratch_.append(bytes, 16);
      }
    } else if (v.is_timestamp()) {
      tag = kTimestamp;
      PutVarint(&scratch_, ZigZag(v.timestamp_value().millis));
      PutVarint(&scratch_, static_cast<uint32_t>(v.timestamp_value().nanos_of_milli));
    } else {
      return false;  // nested
    }
    scratch_[t / 2] = static_cast<char>(static_cast<uint8_t>(scratch_[t / 2]) | tag << (t % 2 * 4));
    t++;
  }
  if (count_ % kBlockRecords == 0) {
    block_keys_.push_back(key);
    block_offsets_.push_back(data_.size());
    last_key_ = key;
  }
  PutVarint(&data_, ZigZag(key - last_key_));
  PutVarint(&data_, ZigZag(sequence));
  PutVarint(&data_, static_cast<uint64_t>(scratch_.size()) << 2 | static_cast<uint8_t>(kind));
  data_ += scratch_;
  last_key_ = key;
  count_++;
  return true;
}

void PackedRecords::Shrink() {
  if (data_.capacity() > data_.size() / 8 * 9) data_.shrink_to_fit();
  block_keys_.shrink_to_fit();
  block_offsets_.shrink_to_fit();
  scratch_ = std::string();
}

int64_t PackedRecords::Bytes() const {
  return static_cast<int64_t>(sizeof(*this) + data_.capacity() + scratch_.capacity() +
                              block_keys_.capacity() * sizeof(int64_t) +
                              block_offsets_.capacity() * sizeof(uint64_t));
}

std::pair<size_t, size_t> PackedRecords::EqualRange(int64_t key) const {
  // The first block whose first key is at least `key`: the key's records begin in the block
  // before it at the earliest.
  const auto it = std::lower_bound(block_keys_.begin(), block_keys_.end(), key);
  size_t b = static_cast<size_t>(it - block_keys_.begin());
  if (b > 0) b--;
  size_t i = b * kBlockRecords;
  size_t at = b < block_offsets_.size() ? block_offsets_[b] : data_.size();
  int64_t previous = b < block_keys_.size() ? block_keys_[b] : 0;
  size_t first = count_;
  for (; i < count_; i++) {
    if (i % kBlockRecords == 0) {
      at = block_offsets_[i / kBlockRecords];
      previous = block_keys_[i / kBlockRecords];
    }
    const Header h = ReadHeader(data_, at, previous);
    if (h.key > key) break;
    if (h.key == key && first == count_) first = i;
    previous = h.key;
    at = h.next;
  }
  if (first == count_) return {i, i};
  return {first, i};
}

size_t PackedRecords::Seek(size_t b, size_t slot, int64_t* key) const {
  size_t at = block_offsets_[b];
  int64_t previous = block_keys_[b];
  for (size_t s = 0; s < slot; s++) {
    const Header h = ReadHeader(data_, at, previous);
    previous = h.key;
    at = h.next;
  }
  *key = previous;
  return at;
}

void PackedRecords::Get(size_t i, int64_t* sequence, RowKind* kind, Row* value) const {
  int64_t previous;
  const size_t at = Seek(i / kBlockRecords, i % kBlockRecords, &previous);
  const Header h = ReadHeader(data_, at, previous);
  *sequence = h.sequence;
  *kind = h.kind;
  value->assign(fields_, Value());
  (*value)[key_column_] = Value::Int(h.key);
  const char* d = data_.data();
  size_t p = h.value_at + (fields_ - 1 + 1) / 2;
  size_t t = 0;
  for (size_t c = 0; c < fields_; c++) {
    if (static_cast<int>(c) == key_column_) continue;
    const uint8_t tag = static_cast<uint8_t>(d[h.value_at + t / 2]) >> (t % 2 * 4) & 0xf;
    t++;
    Value& v = (*value)[c];
    switch (tag) {
      case kNull:
        break;
      case kFalse:
      case kTrue:
        v = Value::Bool(tag == kTrue);
        break;
      case kInt:
        v = Value::Int(UnZigZag(GetVarint(d, &p)));
        break;
      case kDouble: {
        double x;
        std::memcpy(&x, d + p, 8);
        p += 8;
        v = Value::Double(x);
        break;
      }
      case kString: {
        const auto n = static_cast<size_t>(GetVarint(d, &p));
        v = Value::String(std::string(d + p, n));
        p += n;
        break;
      }
      case kSmallDec:
        v = Value::Dec(Decimal{UnZigZag(GetVarint(d, &p))});
        break;
      case kLargeDec: {
        __int128 u;
        std::memcpy(&u, d + p, 16);
        p += 16;
        v = Value::Dec(Decimal{u});
        break;
      }
      case kTimestamp: {
        Timestamp ts;
        ts.millis = UnZigZag(GetVarint(d, &p));
        ts.nanos_of_milli = static_cast<int32_t>(GetVarint(d, &p));
        v = Value::Ts(ts);
        break;
      }
      default:
        break;
    }
  }
}

}  // namespace tributary::datafile
