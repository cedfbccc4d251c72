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

// A block's header decoded: its records' keys, kinds and where each begins.
struct Block {
  size_t n = 0;
  int64_t keys[PackedRecords::kBlockRecords];
  RowKind kinds[PackedRecords::kBlockRecords];
  size_t starts[PackedRecords::kBlockRecords + 1];
};

void ReadBlock(const std::string& data, size_t at, size_t n, int64_t first_key, Block* b) {
  const char* d = data.data();
  b->n = n;
  // Deltas from the key before, unsigned: keys ascend, and two keys may be further apart than
  // an int64_t holds (INT64_MIN and 0); the sum wraps back into range.
  uint64_t key = static_cast<uint64_t>(first_key);
  for (size_t j = 0; j < n; j++) {
    key += GetVarint(d, &at);
    b->keys[j] = static_cast<int64_t>(key);
  }
  size_t lens[PackedRecords::kBlockRecords];
  for (size_t j = 0; j < n; j++) {
    const uint64_t len_kind = GetVarint(d, &at);
    b->kinds[j] = static_cast<RowKind>(len_kind & 3);
    lens[j] = static_cast<size_t>(len_kind >> 2);
  }
  for (size_t j = 0; j < n; j++) {
    b->starts[j] = at;
    at += lens[j];
  }
  b->starts[n] = at;
}

}  // namespace

bool PackedRecords::Append(int64_t sequence, RowKind kind, const Row& value) {
  if (value.size() != fields_ || !value[key_column_].is_int()) return false;
  const int64_t key = value[key_column_].int_value();
  if (count_ > 0 && key < last_key_) return false;  // keys ascend
  // The sequence number, then the value without its key column: tags, then what each needs.
  const size_t begin = records_.size();
  PutVarint(&records_, ZigZag(sequence));
  const size_t tags_at = records_.size();
  records_.append((fields_ - 1 + 1) / 2, '\0');
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
      PutVarint(&records_, ZigZag(v.int_value()));
    } else if (v.is_double()) {
      tag = kDouble;
      const double x = v.double_value();
      char bytes[8];
      std::memcpy(bytes, &x, 8);
      records_.append(bytes, 8);
    } else if (v.is_string()) {
      tag = kString;
      PutVarint(&records_, v.string_value().size());
      records_ += v.string_value();
    } else if (v.is_decimal()) {
      const __int128 u = v.decimal_value().unscaled;
      if (u >= INT64_MIN && u <= INT64_MAX) {
        tag = kSmallDec;
        PutVarint(&records_, ZigZag(static_cast<int64_t>(u)));
      } else {
        tag = kLargeDec;
        char bytes[16];
        std::memcpy(bytes, &u, 16);
        records_.append(bytes, 16);
      }
    } else if (v.is_timestamp()) {
      tag = kTimestamp;
      PutVarint(&records_, ZigZag(v.timestamp_value().millis));
      PutVarint(&records_, static_cast<uint32_t>(v.timestamp_value().nanos_of_milli));
    } else {
      records_.resize(begin);  // nested
      return false;
    }
    char& byte = records_[tags_at + t / 2];
    byte = static_cast<char>(static_cast<uint8_t>(byte) | tag << (t % 2 * 4));
    t++;
  }
  if (count_ % kBlockRecords == 0) {
    block_keys_.push_back(key);
    last_key_ = key;
  }
  PutVarint(&keys_, static_cast<uint64_t>(key) - static_cast<uint64_t>(last_key_));
  PutVarint(&lengths_,
            static_cast<uint64_t>(records_.size() - begin) << 2 | (static_cast<uint8_t>(kind) & 3));
  last_key_ = key;
  count_++;
  if (count_ % kBlockRecords == 0) PackBlock();
  return true;
}

void PackedRecords::PackBlock() {
  block_offsets_.push_back(data_.size());
  data_ += keys_;
  data_ += lengths_;
  data_ += records_;
  keys_.clear();
  lengths_.clear();
  records_.clear();
}

void PackedRecords::Reserve(size_t records) {
  if (count_ == 0 || records <= count_) return;
  // A sixteenth more than the records so far predict, for records larger than theirs.
  data_.reserve(data_.size() / count_ * records / 16 * 17);
  const size_t blocks = (records + kBlockRecords - 1) / kBlockRecords;
  block_keys_.reserve(blocks);
  block_offsets_.reserve(blocks);
}

void PackedRecords::Finish() {
  if (count_ % kBlockRecords != 0) PackBlock();
  keys_ = lengths_ = records_ = std::string();
  if (data_.capacity() > data_.size() / 8 * 9) data_.shrink_to_fit();
  block_keys_.shrink_to_fit();
  block_offsets_.shrink_to_fit();
}

int64_t PackedRecords::Bytes() const {
  return static_cast<int64_t>(sizeof(*this) + data_.capacity() + keys_.capacity() +
                              lengths_.capacity() + records_.capacity() +
                              block_keys_.capacity() * sizeof(int64_t) +
                              block_offsets_.capacity() * sizeof(uint64_t));
}

std::pair<size_t, size_t> PackedRecords::EqualRange(int64_t key) const {
  // The first block whose first key is at least `key`: the key's records begin in the block
  // before it at the earliest.
  const auto it = std::lower_bound(block_keys_.begin(), block_keys_.end(), key);
  size_t b = static_cast<size_t>(it - block_keys_.begin());
  if (b > 0) b--;
  size_t first = count_;
  Block block;
  for (; b < block_keys_.size(); b++) {
    const size_t base = b * kBlockRecords;
    ReadBlock(data_, block_offsets_[b], std::min(kBlockRecords, count_ - base), block_keys_[b],
              &block);
    for (size_t j = 0; j < block.n; j++) {
      if (block.keys[j] > key)
        return first == count_ ? std::pair{base + j, base + j} : std::pair{first, base + j};
      if (block.keys[j] == key && first == count_) first = base + j;
    }
  }
  return first == count_ ? std::pair{count_, count_} : std::pair{first, count_};
}

void PackedRecords::Get(size_t i, int64_t* sequence, RowKind* kind, Row* value) const {
  const size_t b = i / kBlockRecords, j = i % kBlockRecords;
  Block block;
  ReadBlock(data_, block_offsets_[b], std::min(kBlockRecords, count_ - b * kBlockRecords),
            block_keys_[b], &block);
  *kind = block.kinds[j];
  value->assign(fields_, Value());
  (*value)[key_column_] = Value::Int(block.keys[j]);
  const char* d = data_.data();
  size_t p = block.starts[j];
  *sequence = UnZigZag(GetVarint(d, &p));
  const size_t tags_at = p;
  p += (fields_ - 1 + 1) / 2;
  size_t t = 0;
  for (size_t c = 0; c < fields_; c++) {
    if (static_cast<int>(c) == key_column_) continue;
    const uint8_t tag = static_cast<uint8_t>(d[tags_at + t / 2]) >> (t % 2 * 4) & 0xf;
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
