#include "format/parquet/column_writer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "format/parquet/parquet_values.h"

namespace tributary::format::parquet {

namespace {

int64_t PlainSize(PhysicalType type, int32_t type_length, const PhysicalValues& v, size_t i) {
  // BOOLEAN is counted in bits by the caller.
  if (type == PhysicalType::kByteArray) return 4 + static_cast<int64_t>(v.bytes[i].size());
  return FixedWidth(type, type_length);
}

// Values seen before deciding whether a first page's dictionary is worth keeping.
constexpr size_t kDictionaryProbe = 2048;

void AddEncoding(std::vector<Encoding>* list, Encoding e) {
  if (std::find(list->begin(), list->end(), e) == list->end()) list->push_back(e);
}

void PutLe32(std::string* out, uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);
  out->append(b, 4);
}

// Whether the deprecated min/max fields (compared as signed numbers by old readers) are right
// for the physical type; parquet-mr writes them only then, or when min equals max.
bool DeprecatedStatsCorrect(PhysicalType t) {
  return t != PhysicalType::kByteArray && t != PhysicalType::kFixedLenByteArray &&
         t != PhysicalType::kInt96;
}

}  // namespace

namespace {
LeafSpec FlatSpec(const Field& field, const SchemaElement& element) {
  LeafSpec s;
  s.path = {field.name};
  s.type = field.type;
  s.physical = element.type.value_or(PhysicalType::kInt32);
  s.type_length = element.type_length.value_or(0);
  s.max_def = field.type.nullable ? 1 : 0;
  s.max_rep = 0;
  return s;
}
}  // namespace

// The chunk's dictionary: integer values (and the bits of doubles) in one map, byte strings in
// another looked up without a copy; a string is copied only when it enters the dictionary.
struct ColumnChunkWriter::DictIndex {
  // Strings are kept once, in the dictionary's values (`strings`): the set holds their indices,
  // hashed and compared by the strings they name, and is searched by string_view.
  struct StringOf {
    const StringVector* strings;
    absl::string_view operator()(uint32_t i) const {
      std::string_view s = (*strings)[i];
      return absl::string_view(s.data(), s.size());
    }
    absl::string_view operator()(absl::string_view s) const { return s; }
  };
  struct BytesHash : StringOf {
    using is_transparent = void;
    template <typename K>
    size_t operator()(const K& k) const {
      return absl::Hash<absl::string_view>()(StringOf::operator()(k));
    }
  };
  struct BytesEq : StringOf {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return StringOf::operator()(a) == StringOf::operator()(b);
    }
  };

  explicit DictIndex(const StringVector* strings)
      : bytes(0, BytesHash{{strings}}, BytesEq{{strings}}) {}

  absl::flat_hash_map<int64_t, uint32_t> ints;
  absl::flat_hash_set<uint32_t, BytesHash, BytesEq> bytes;

  void clear() {
    ints.clear();
    bytes.clear();
  }
  // Room for the `n` values the writer is given at once (at most the probe's): a small file's
  // dictionary gets the room it needs, once.
  void Reserve(size_t n, bool of_bytes) {
    hinted = true;
    n = std::min(n, kDictionaryProbe);
    if (of_bytes && bytes.capacity() < n) bytes.reserve(n);
    if (!of_bytes && ints.capacity() < n) ints.reserve(n);
  }
  bool hinted = false;  // Reserve was called: no guess at kReserveAt
  // The index of value i of `v` (`next` when it is new); whether it was new. A new string's
  // index is `next`: the caller appends it to the dictionary's values before the next call.
  std::pair<uint32_t, bool> Find(const PhysicalValues& v, size_t i, uint32_t next) {
    if (!v.ints.empty()) return FindInt(v.ints[i], next);
    if (!v.doubles.empty()) {
      int64_t bits;
      std::memcpy(&bits, &v.doubles[i], sizeof bits);
      return FindInt(bits, next);
    }
    return FindBytes(v.bytes[i], next);
  }
  // A dictionary that outgrows a few entries is likely to reach the probe's end: room for it at
  // once instead of rehashing it six times on the way (thousands of small files a minute).
  static constexpr size_t kReserveAt = 64;
  std::pair<uint32_t, bool> FindInt(int64_t x, uint32_t next) {
    if (ints.size() == kReserveAt && !hinted) ints.reserve(kDictionaryProbe);
    auto [it, inserted] = ints.try_emplace(x, next);
    return {it->second, inserted};
  }
  std::pair<uint32_t, bool> FindBytes(std::string_view s, uint32_t next) {
    if (bytes.size() == kReserveAt && !hinted) bytes.reserve(kDictionaryProbe);
    bool inserted = false;
    auto it = bytes.lazy_emplace(absl::string_view(s.data(), s.size()), [&](const auto& ctor) {
      inserted = true;
      ctor(next);
    });
    return {*it, inserted};
  }
};

ColumnChunkWriter::~ColumnChunkWriter() = default;

ColumnChunkWriter::ColumnChunkWriter(const Field& field, const SchemaElement& element,
                                     const ColumnWriterOptions& options)
    : ColumnChunkWriter(FlatSpec(field, element), options) {}

ColumnChunkWriter::ColumnChunkWriter(LeafSpec spec, const ColumnWriterOptions& options)
    : spec_(spec),
      path_(std::move(spec.path)),
      type_(std::move(spec.type)),
      physical_(spec.physical),
      type_length_(spec.type_length),
      max_def_(spec.max_def),
      max_rep_(spec.max_rep),
      options_(options),
      dict_index_(std::make_unique<DictIndex>(&dict_values_.bytes)) {
  for (size_t i = 0; i < path_.size(); ++i) name_ += (i ? "." : "") + path_[i];
  ResetChunk();
}

void ColumnChunkWriter::ResetChunk() {
  def_levels_.clear();
  rep_levels_.clear();
  page_levels_ = 0;
  page_values_.clear();
  page_plain_.clear();
  indices_.clear();
  page_rows_ = page_nulls_ = page_plain_bytes_ = 0;
  use_dictionary_ = options_.dictionary && physical_ != PhysicalType::kBoolean;
  dict_index_->clear();
  dict_values_.clear();
  dict_bytes_ = 0;
  dict_pages_written_ = false;
  probe_repeats_ = 0;
  last_bytes_index_ = UINT32_MAX;
  std::vector<std::string>().swap(pages_);
  pages_bytes_ = 0;
  pages_uncompressed_ = 0;
  encodings_.clear();
  num_values_ = 0;
  min_.reset();
  max_.reset();
  saw_nan_ = false;
  null_count_ = 0;
  page_min_.reset();
  page_max_.reset();
  page_has_ints_ = false;
  page_nan_ = false;
  page_entries_.clear();
  rows_in_pages_ = 0;
}

Status ColumnChunkWriter::Add(const Value& v) {
  if (v.is_null()) {
    if (max_def_ == 0) return Status::Invalid("NULL in NOT NULL column '" + name_ + "'");
    TRIB_RETURN_NOT_OK(AddEntry(0, 0, nullptr));
  } else {
    TRIB_RETURN_NOT_OK(AddEntry(max_def_, 0, &v));
  }
  return EndRow();
}

Status ColumnChunkWriter::AddRow(const std::vector<int16_t>& defs, const std::vector<int16_t>& reps,
                                 const std::vector<Value>& values) {
  size_t next = 0;
  for (size_t i = 0; i < defs.size(); ++i) {
    const Value* v = nullptr;
    if (defs[i] == max_def_) {
      if (next >= values.size()) return Status::Internal("parquet: too few leaf values");
      v = &values[next++];
    }
    TRIB_RETURN_NOT_OK(AddEntry(defs[i], i < reps.size() ? reps[i] : 0, v));
  }
  return EndRow();
}

Status ColumnChunkWriter::AddEntry(int16_t def, int16_t rep, const Value* v) {
  if (v == nullptr) {
    def_levels_.push_back(static_cast<uint32_t>(def));
    ++page_nulls_;
    ++null_count_;
  } else if (PlainInts() && v->is_int()) {
    AppendPlainInt(def, v->int_value());
  } else if (PlainBytes() && v->is_string()) {
    AppendPlainBytes(def, v->string_value());
  } else {
    size_t i = page_values_.size();
    Status st = AppendPhysical(type_, physical_, type_length_, *v, &page_values_);
    if (!st.ok()) return st.WithContext("column '" + name_ + "'");
    if (max_def_ > 0) def_levels_.push_back(static_cast<uint32_t>(def));
    page_plain_bytes_ += PlainSize(physical_, type_length_, page_values_, i);
    if (physical_ == PhysicalType::kBoolean && page_values_.size() % 8 == 1) ++page_plain_bytes_;
    if (use_dictionary_) {
      auto [index, inserted] =
          dict_index_->Find(page_values_, i, static_cast<uint32_t>(dict_values_.size()));
      if (inserted) {
        dict_values_.AppendFrom(page_values_, i);
        dict_bytes_ += PlainSize(physical_, type_length_, page_values_, i);
      }
      indices_.push_back(index);
    }
    // Statistics.
    if (v->is_double() && std::isnan(v->double_value())) {
      saw_nan_ = page_nan_ = true;
    } else {
      // Chunk statistics are merged from the page's when the page is flushed.
      if (!page_min_ || CompareValues(*v, *page_min_) < 0) page_min_ = *v;
      if (!page_max_ || CompareValues(*v, *page_max_) > 0) page_max_ = *v;
    }
  }
  if (max_rep_ > 0) rep_levels_.push_back(static_cast<uint32_t>(rep));
  EndEntry();
  return Status::OK();
}

void ColumnChunkWriter::EndEntry() {
  ++page_levels_;
  ++num_values_;
  // High-cardinality columns (ids, free text) gain nothing from a dictionary: give it up early
  // instead of building one for the whole first page. Values repeated only right after
  // themselves do not count as repeats: the key columns of a changelog (-U and +U of one key
  // side by side) would keep a dictionary that overflows, larger and slower than none.
  if (use_dictionary_ && !dict_pages_written_ && page_values_.size() == kDictionaryProbe &&
      dict_values_.size() * 10 > (page_values_.size() - probe_repeats_) * 9) {
    use_dictionary_ = false;
    indices_.clear();
    dict_index_->clear();
    dict_values_.clear();
    dict_bytes_ = 0;
  }
  if (use_dictionary_ && dict_bytes_ > options_.dictionary_page_size) {
    // Fall back to the plain encoding: this page and all later ones. Pages already written
    // keep their indices, so the dictionary page is still written; with none written yet the
    // dictionary is dropped altogether.
    use_dictionary_ = false;
    indices_.clear();
    if (!dict_pages_written_) {
      dict_index_->clear();
      dict_values_.clear();
      dict_bytes_ = 0;
    }
  }
}

// Page statistics of integers (folded into page_min_/page_max_ when the page is flushed).
void ColumnChunkWriter::TrackInt(int64_t x) {
  if (!page_has_ints_) {
    page_has_ints_ = true;
    page_int_min_ = page_int_max_ = x;
  } else {
    page_int_min_ = std::min(page_int_min_, x);
    page_int_max_ = std::max(page_int_max_, x);
  }
}

// Page statistics of strings, compared as CompareValues does (bytes as unsigned chars).
void ColumnChunkWriter::TrackBytes(std::string_view str) {
  if (!page_min_ || str < std::string_view(page_min_->string_value())) {
    page_min_ = Value::String(std::string(str));
  }
  if (!page_max_ || str > std::string_view(page_max_->string_value())) {
    page_max_ = Value::String(std::string(str));
  }
}

// An integer column while its dictionary is in use (flat columns): what AddEntry does, without a
// Value, and the index of a run of equal values (row kinds, low-cardinality columns) reused.
void ColumnChunkWriter::AppendDictInt(int16_t def, int64_t x) {
  const bool narrow = physical_ == PhysicalType::kInt32;
  const int64_t stored = narrow ? static_cast<int32_t>(x) : x;
  const size_t i = page_values_.ints.size();
  page_values_.ints.push_back(stored);
  if (max_def_ > 0) def_levels_.push_back(static_cast<uint32_t>(def));
  page_plain_bytes_ += narrow ? 4 : 8;
  // The last index found still names this value (the dictionary may have been dropped since).
  if (last_dict_index_ >= dict_values_.ints.size() ||
      dict_values_.ints[last_dict_index_] != stored) {
    auto [index, inserted] =
        dict_index_->FindInt(stored, static_cast<uint32_t>(dict_values_.size()));
    if (inserted) {
      dict_values_.AppendFrom(page_values_, i);
      dict_bytes_ += narrow ? 4 : 8;
    }
    last_dict_index_ = index;
  } else if (i < kDictionaryProbe) {
    ++probe_repeats_;
  }
  indices_.push_back(last_dict_index_);
  TrackInt(x);
  EndEntry();
}

// A BYTE_ARRAY column while its dictionary is in use (flat columns), without a Value.
void ColumnChunkWriter::AppendDictBytes(int16_t def, std::string_view str) {
  const size_t i = page_values_.bytes.size();
  page_values_.bytes.emplace_back(str);
  if (max_def_ > 0) def_levels_.push_back(static_cast<uint32_t>(def));
  page_plain_bytes_ += 4 + static_cast<int64_t>(str.size());
  auto [index, inserted] = dict_index_->FindBytes(str, static_cast<uint32_t>(dict_values_.size()));
  if (inserted) {
    dict_values_.AppendFrom(page_values_, i);
    dict_bytes_ += 4 + static_cast<int64_t>(str.size());
  } else if (index == last_bytes_index_ && i < kDictionaryProbe) {
    ++probe_repeats_;
  }
  last_bytes_index_ = index;
  indices_.push_back(index);
  TrackBytes(str);
  EndEntry();
}

// An integer column past its dictionary: no Value comparisons or copies per entry.
void ColumnChunkWriter::AppendPlainInt(int16_t def, int64_t x) {
  const bool narrow = physical_ == PhysicalType::kInt32;
  page_values_.ints.push_back(narrow ? static_cast<int32_t>(x) : x);
  if (max_def_ > 0) def_levels_.push_back(static_cast<uint32_t>(def));
  page_plain_bytes_ += narrow ? 4 : 8;
  TrackInt(x);
}

// A string column past its dictionary, encoded PLAIN: the value goes into the page at once.
void ColumnChunkWriter::AppendPlainBytes(int16_t def, std::string_view str) {
  if (!page_values_.bytes.empty()) {  // the dictionary was given up within this page
    EncodePlain(page_values_, physical_, &page_plain_);
    page_values_.clear();
  }
  if (page_plain_.capacity() < static_cast<size_t>(options_.page_size)) {
    page_plain_.reserve(static_cast<size_t>(options_.page_size) + 4096);  // no regrowth
  }
  PutLe32(&page_plain_, static_cast<uint32_t>(str.size()));
  page_plain_.append(str.data(), str.size());
  if (max_def_ > 0) def_levels_.push_back(static_cast<uint32_t>(def));
  page_plain_bytes_ += 4 + static_cast<int64_t>(str.size());
  TrackBytes(str);
}

Status ColumnChunkWriter::AddValues(const ColumnValues& c, size_t begin, size_t end) {
  const bool is_bool = type_.id == TypeId::kBoolean;
  if (use_dictionary_ && dict_values_.empty() && dict_index_ && end > begin) {
    dict_index_->Reserve(end - begin, physical_ == PhysicalType::kByteArray ||
                                          physical_ == PhysicalType::kFixedLenByteArray);
  }
  const bool flat = max_rep_ == 0;
  // Rows are read in the caller's order (sorted by key), not in the order they are stored:
  // the strings a few rows ahead are fetched into the cache while this one is encoded.
  constexpr size_t kAhead = 8;
  for (size_t k = begin; k < end; ++k) {
    const size_t r = c.SourceRow(k);
    if (c.chars != nullptr && k + kAhead < end) {
      __builtin_prefetch(c.chars + c.offsets[c.SourceRow(k + kAhead)]);
    }
    if ((c.nulls != nullptr && c.nulls[r]) || (c.values != nullptr && c.values[r].is_null())) {
      if (max_def_ == 0) return Status::Invalid("NULL in NOT NULL column '" + name_ + "'");
      TRIB_RETURN_NOT_OK(AddEntry(0, 0, nullptr));
    } else if (c.values != nullptr) {
      TRIB_RETURN_NOT_OK(AddEntry(max_def_, 0, &c.values[r]));
    } else if (c.ints != nullptr && !is_bool) {
      if (PlainInts() && flat) {
        AppendPlainInt(max_def_, c.ints[r]);
        ++page_levels_;
        ++num_values_;
      } else if (use_dictionary_ && flat &&
                 (physical_ == PhysicalType::kInt64 || physical_ == PhysicalType::kInt32)) {
        AppendDictInt(max_def_, c.ints[r]);
      } else {
        const Value v = Value::Int(c.ints[r]);
        TRIB_RETURN_NOT_OK(AddEntry(max_def_, 0, &v));
      }
    } else if (c.HasBytes()) {
      if (PlainBytes() && flat) {
        AppendPlainBytes(max_def_, c.Bytes(r));
        ++page_levels_;
        ++num_values_;
      } else if (use_dictionary_ && flat && physical_ == PhysicalType::kByteArray) {
        AppendDictBytes(max_def_, c.Bytes(r));
      } else {
        const Value v = Value::String(std::string(c.Bytes(r)));
        TRIB_RETURN_NOT_OK(AddEntry(max_def_, 0, &v));
      }
    } else {
      if (c.ints == nullptr && c.doubles == nullptr) {
        return Status::Invalid("parquet: no values given for column '" + name_ + "'");
      }
      const Value v = c.ints != nullptr ? Value::Bool(c.ints[r] != 0) : Value::Double(c.doubles[r]);
      TRIB_RETURN_NOT_OK(AddEntry(max_def_, 0, &v));
    }
    TRIB_RETURN_NOT_OK(EndRow());
  }
  return Status::OK();
}

Status ColumnChunkWriter::EndRow() {
  ++page_rows_;
  int64_t page_bytes = use_dictionary_ ? static_cast<int64_t>(indices_.size()) *
                                             std::max(1, BitWidth(dict_values_.size())) / 8
                                       : page_plain_bytes_;
  page_bytes += static_cast<int64_t>(def_levels_.size() + rep_levels_.size()) / 8;
  if (page_bytes >= options_.page_size || page_rows_ >= options_.page_row_limit) {
    return FlushPage();
  }
  return Status::OK();
}

int64_t ColumnChunkWriter::EstimatedSize() const {
  int64_t page = use_dictionary_ ? static_cast<int64_t>(indices_.size()) *
                                       std::max(1, BitWidth(dict_values_.size())) / 8
                                 : page_plain_bytes_;
  return pages_bytes_ + page + static_cast<int64_t>(def_levels_.size() + rep_levels_.size()) / 8 +
         (use_dictionary_ || dict_pages_written_ ? dict_bytes_ : 0);
}

Result<std::string> ColumnChunkWriter::Compress(std::string_view data) const {
  switch (options_.codec) {
    case Codec::kUncompressed:
      return std::string(data);
    case Codec::kSnappy:
      return format::Compress(CompressionCodec::kSnappy, data);
    case Codec::kGzip:
      return format::Compress(CompressionCodec::kGzip, data);
    case Codec::kZstd:
      return format::Compress(CompressionCodec::kZstd, data, options_.zstd_level);
    case Codec::kLz4Raw:
      return format::Compress(CompressionCodec::kLz4Raw, data);
    default:
      return Status::NotSupported(std::string("parquet writer: codec ") +
                                  CodecName(options_.codec));
  }
}

Encoding ColumnChunkWriter::PlainEncodingFor() const {
  switch (options_.value_encoding) {
    case ValueEncoding::kPlain:
      return Encoding::kPlain;
    case ValueEncoding::kDelta:
    case ValueEncoding::kDeltaLength:
      switch (physical_) {
        case PhysicalType::kBoolean:
          return Encoding::kRle;
        case PhysicalType::kInt32:
        case PhysicalType::kInt64:
          return Encoding::kDeltaBinaryPacked;
        case PhysicalType::kByteArray:
          return options_.value_encoding == ValueEncoding::kDelta ? Encoding::kDeltaByteArray
                                                                  : Encoding::kDeltaLengthByteArray;
        case PhysicalType::kFixedLenByteArray:
          return Encoding::kDeltaByteArray;
        default:
          return Encoding::kPlain;
      }
    case ValueEncoding::kByteStreamSplit:
      // Only FLOAT and DOUBLE: readers older than format 2.11 (DuckDB 1.x among them) reject it
      // for the other fixed-width types.
      switch (physical_) {
        case PhysicalType::kFloat:
        case PhysicalType::kDouble:
          return Encoding::kByteStreamSplit;
        default:
          return Encoding::kPlain;
      }
  }
  return Encoding::kPlain;
}

Status ColumnChunkWriter::FlushPage() {
  if (page_rows_ == 0) return Status::OK();
  if (page_has_ints_) {
    Value lo = Value::Int(page_int_min_), hi = Value::Int(page_int_max_);
    if (!page_min_ || CompareValues(lo, *page_min_) < 0) page_min_ = std::move(lo);
    if (!page_max_ || CompareValues(hi, *page_max_) > 0) page_max_ = std::move(hi);
    page_has_ints_ = false;
  }
  if (use_dictionary_ && !dict_pages_written_ && !page_values_.empty()) {
    // As parquet-mr: keep the dictionary only if it beats the raw encoding on the first page.
    int64_t encoded =
        static_cast<int64_t>(indices_.size()) * std::max(1, BitWidth(dict_values_.size())) / 8;
    if (dict_bytes_ + encoded >= page_plain_bytes_) {
      use_dictionary_ = false;
      indices_.clear();
      dict_index_->clear();
      dict_values_.clear();
      dict_bytes_ = 0;
    }
  }
  // A page of nulls only before any dictionary entry exists is written plain.
  bool dictionary_encoded = use_dictionary_ && !dict_values_.empty();
  TRIB_RETURN_NOT_OK(WriteDataPage(dictionary_encoded));
  if (dictionary_encoded) dict_pages_written_ = true;
  if (page_min_ && (!min_ || CompareValues(*page_min_, *min_) < 0)) min_ = page_min_;
  if (page_max_ && (!max_ || CompareValues(*page_max_, *max_) > 0)) max_ = page_max_;
  def_levels_.clear();
  rep_levels_.clear();
  page_levels_ = 0;
  page_values_.clear();
  page_plain_.clear();
  probe_repeats_ = 0;
  indices_.clear();
  page_rows_ = page_nulls_ = page_plain_bytes_ = 0;
  page_min_.reset();
  page_max_.reset();
  page_nan_ = false;
  return Status::OK();
}

Status ColumnChunkWriter::WriteDataPage(bool dictionary_encoded) {
  const bool v2 = options_.data_page_version == 2;
  std::string values;
  Encoding encoding;
  if (dictionary_encoded) {
    encoding = v2 ? Encoding::kRleDictionary : Encoding::kPlainDictionary;
    int bw = std::max(1, BitWidth(dict_values_.size() - 1));
    values.push_back(static_cast<char>(bw));
    values += EncodeRleBitPacked(indices_, bw);
  } else {
    encoding = PlainEncodingFor();
    switch (encoding) {
      case Encoding::kRle:
        values = EncodeRleBooleans(page_values_.ints);
        break;
      case Encoding::kDeltaBinaryPacked:
        values = EncodeDeltaBinaryPacked(page_values_.ints, physical_ == PhysicalType::kInt32);
        break;
      case Encoding::kDeltaByteArray:
        values = EncodeDeltaByteArray(page_values_.bytes);
        break;
      case Encoding::kDeltaLengthByteArray:
        values = EncodeDeltaLengthByteArray(page_values_.bytes);
        break;
      case Encoding::kByteStreamSplit:
        values = EncodeByteStreamSplit(page_values_, physical_, type_length_);
        break;
      default:
        if (!page_plain_.empty()) {
          values = std::move(page_plain_);
          page_plain_.clear();
        }
        EncodePlain(page_values_, physical_, &values);
        break;
    }
  }
  AddEncoding(&encodings_, encoding);
  std::string levels;  // repetition levels (if any)
  std::string defs;    // definition levels (if any)
  if (max_rep_ > 0) {
    levels = EncodeRleBitPacked(rep_levels_, BitWidth(static_cast<uint64_t>(max_rep_)));
    AddEncoding(&encodings_, Encoding::kRle);
  }
  if (max_def_ > 0) {
    defs = EncodeRleBitPacked(def_levels_, BitWidth(static_cast<uint64_t>(max_def_)));
    AddEncoding(&encodings_, Encoding::kRle);
  }
  PageHeader h;
  std::string body;
  if (!v2) {
    std::string raw;
    if (max_rep_ > 0) {
      PutLe32(&raw, static_cast<uint32_t>(levels.size()));
      raw += levels;
    }
    if (max_def_ > 0) {
      PutLe32(&raw, static_cast<uint32_t>(defs.size()));
      raw += defs;
    }
    raw += values;
    TRIB_ASSIGN_OR_RETURN(body, Compress(raw));
    h.type = PageType::kDataPage;
    h.uncompressed_page_size = static_cast<int32_t>(raw.size());
    DataPageHeader d;
    d.num_values = static_cast<int32_t>(page_levels_);
    d.encoding = encoding;
    d.definition_level_encoding = Encoding::kRle;
    d.repetition_level_encoding = Encoding::kRle;
    h.data_page_header = d;
  } else {
    TRIB_ASSIGN_OR_RETURN(std::string compressed, Compress(values));
    body = levels + defs + compressed;
    h.type = PageType::kDataPageV2;
    h.uncompressed_page_size = static_cast<int32_t>(levels.size() + defs.size() + values.size());
    DataPageHeaderV2 d;
    d.num_values = static_cast<int32_t>(page_levels_);
    d.num_nulls = static_cast<int32_t>(page_nulls_);
    d.num_rows = static_cast<int32_t>(page_rows_);
    d.encoding = encoding;
    d.definition_levels_byte_length = static_cast<int32_t>(defs.size());
    d.repetition_levels_byte_length = static_cast<int32_t>(levels.size());
    d.is_compressed = options_.codec != Codec::kUncompressed;
    h.data_page_header_v2 = d;
  }
  h.compressed_page_size = static_cast<int32_t>(body.size());
  h.crc = static_cast<int32_t>(Crc32(body));  // as parquet-mr writes by default
  std::string header = EncodePageHeader(h);
  PageEntry entry;
  entry.offset = pages_bytes_;
  entry.size = static_cast<int32_t>(header.size() + body.size());
  entry.first_row = rows_in_pages_;
  entry.min = page_min_;
  entry.max = page_max_;
  entry.nulls = page_nulls_;
  entry.nan = page_nan_;
  page_entries_.push_back(std::move(entry));
  rows_in_pages_ += page_rows_;
  pages_bytes_ += static_cast<int64_t>(header.size() + body.size());
  header += body;
  pages_.push_back(std::move(header));
  pages_uncompressed_ += static_cast<int64_t>(header.size()) + h.uncompressed_page_size;
  if (physical_ == PhysicalType::kByteArray) {
    // The next page of strings reuses this page's buffer.
    values.clear();
    page_plain_.swap(values);
  }
  return Status::OK();
}

Result<std::string> ColumnChunkWriter::StatBytes(const Value& v) const {
  PhysicalValues pv;
  TRIB_RETURN_NOT_OK(AppendPhysical(type_, physical_, type_length_, v, &pv));
  return EncodeStatValue(pv, 0, physical_);
}

Result<ColumnChunk> ColumnChunkWriter::Finish(FileParts* file, ChunkPageIndex* index) {
  TRIB_RETURN_NOT_OK(FlushPage());
  ColumnMetaData m;
  m.type = physical_;
  m.path_in_schema = path_;
  m.codec = options_.codec;
  m.num_values = num_values_;
  const int64_t offset = file->size;
  int64_t uncompressed = pages_uncompressed_;
  std::vector<Encoding> encodings;
  if (dict_pages_written_) {
    std::string raw;
    EncodePlain(dict_values_, physical_, &raw);
    TRIB_ASSIGN_OR_RETURN(std::string body, Compress(raw));
    PageHeader h;
    h.type = PageType::kDictionaryPage;
    h.uncompressed_page_size = static_cast<int32_t>(raw.size());
    h.compressed_page_size = static_cast<int32_t>(body.size());
    h.crc = static_cast<int32_t>(Crc32(body));
    DictionaryPageHeader d;
    d.num_values = static_cast<int32_t>(dict_values_.size());
    d.encoding = options_.data_page_version == 2 ? Encoding::kPlain : Encoding::kPlainDictionary;
    h.dictionary_page_header = d;
    std::string header = EncodePageHeader(h);
    uncompressed += static_cast<int64_t>(header.size() + raw.size());
    header += body;
    file->Add(std::move(header));
    m.dictionary_page_offset = offset;
    AddEncoding(&encodings, d.encoding);
  }
  for (Encoding e : encodings_) AddEncoding(&encodings, e);
  if (encodings.empty()) encodings.push_back(Encoding::kPlain);
  m.encodings = encodings;
  m.data_page_offset = file->size;
  // The pages themselves become the file's parts: never copied into one buffer.
  for (std::string& page : pages_) file->Add(std::move(page));
  pages_.clear();
  TRIB_RETURN_NOT_OK(BuildPageIndex(m.data_page_offset, index));
  m.total_compressed_size = file->size - offset;
  m.total_uncompressed_size = uncompressed;

  Statistics s;
  s.null_count = null_count_;
  const bool int96 = physical_ == PhysicalType::kInt96;
  if (min_ && max_ && !saw_nan_ && !int96) {
    Value lo = *min_, hi = *max_;
    if (lo.is_double() && lo.double_value() == 0) lo = Value::Double(-0.0);
    if (hi.is_double() && hi.double_value() == 0) hi = Value::Double(0.0);
    TRIB_ASSIGN_OR_RETURN(std::string min_bytes, StatBytes(lo));
    TRIB_ASSIGN_OR_RETURN(std::string max_bytes, StatBytes(hi));
    // As parquet-mr: the deprecated fields only where their signed comparison is right.
    if (DeprecatedStatsCorrect(physical_) || min_bytes == max_bytes) {
      s.min = min_bytes;
      s.max = max_bytes;
    }
    s.min_value = std::move(min_bytes);
    s.max_value = std::move(max_bytes);
  }
  m.statistics = s;

  ColumnChunk c;
  c.file_offset = offset;
  c.meta_data = std::move(m);
  ResetChunk();
  return c;
}

Status ColumnChunkWriter::BuildPageIndex(int64_t data_page_offset, ChunkPageIndex* index) const {
  index->offset_index.page_locations.clear();
  index->column_index.reset();
  bool orderable = physical_ != PhysicalType::kInt96;
  for (const PageEntry& e : page_entries_) {
    index->offset_index.page_locations.push_back(
        PageLocation{data_page_offset + e.offset, e.size, e.first_row});
    orderable &= !e.nan;
  }
  if (!orderable || page_entries_.empty()) return Status::OK();
  ColumnIndex ci;
  bool ascending = true, descending = true;
  const PageEntry* prev = nullptr;
  for (const PageEntry& e : page_entries_) {
    bool null_page = !e.min.has_value();
    ci.null_pages.push_back(null_page);
    ci.null_counts.push_back(e.nulls);
    if (null_page) {
      ci.min_values.emplace_back();
      ci.max_values.emplace_back();
      continue;
    }
    Value lo = *e.min, hi = *e.max;
    if (lo.is_double() && lo.double_value() == 0) lo = Value::Double(-0.0);
    if (hi.is_double() && hi.double_value() == 0) hi = Value::Double(0.0);
    TRIB_ASSIGN_OR_RETURN(std::string lo_bytes, StatBytes(lo));
    TRIB_ASSIGN_OR_RETURN(std::string hi_bytes, StatBytes(hi));
    ci.min_values.push_back(std::move(lo_bytes));
    ci.max_values.push_back(std::move(hi_bytes));
    if (prev != nullptr) {
      ascending &= CompareValues(*prev->min, *e.min) <= 0 && CompareValues(*prev->max, *e.max) <= 0;
      descending &=
          CompareValues(*prev->min, *e.min) >= 0 && CompareValues(*prev->max, *e.max) >= 0;
    }
    prev = &e;
  }
  ci.boundary_order = ascending    ? BoundaryOrder::kAscending
                      : descending ? BoundaryOrder::kDescending
                                   : BoundaryOrder::kUnordered;
  index->column_index = std::move(ci);
  return Status::OK();
}

}  // namespace tributary::format::parquet
