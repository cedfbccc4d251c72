#include "format/parquet/column_reader.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "format/compression.h"

namespace tributary::format::parquet {

namespace {

// Largest decompressed page we accept (a page is ~1 MiB by default in every writer).
constexpr int64_t kMaxPageBytes = int64_t{1} << 30;

Status Corrupt(const std::string& what) { return Status::Corruption("parquet: " + what); }

uint32_t BigEndian32(const char* p) {
  const auto* u = reinterpret_cast<const uint8_t*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | u[3];
}

// Hadoop's framing of the deprecated LZ4 codec: blocks of (4-byte BE raw size, 4-byte BE
// compressed size, raw lz4 block). Returns nullopt when `in` is not framed that way.
std::optional<std::string> TryHadoopLz4(std::string_view in, size_t expected) {
  std::string out;
  size_t pos = 0;
  while (pos < in.size()) {
    if (in.size() - pos < 8) return std::nullopt;
    uint32_t raw = BigEndian32(in.data() + pos);
    uint32_t comp = BigEndian32(in.data() + pos + 4);
    pos += 8;
    if (comp > in.size() - pos || raw > expected - std::min(expected, out.size())) {
      return std::nullopt;
    }
    Result<std::string> block = Decompress(CompressionCodec::kLz4Raw, in.substr(pos, comp), raw);
    if (!block.ok() || block->size() != raw) return std::nullopt;
    out += *block;
    pos += comp;
  }
  if (out.size() != expected) return std::nullopt;
  return out;
}

Result<std::string> DecompressPage(Codec codec, std::string_view in, int64_t expected) {
  if (expected < 0 || expected > kMaxPageBytes) return Corrupt("bad uncompressed page size");
  size_t want = static_cast<size_t>(expected);
  CompressionCodec c;
  switch (codec) {
    case Codec::kUncompressed:
      if (in.size() != want) return Corrupt("uncompressed page size mismatch");
      return std::string(in);
    case Codec::kSnappy:
      c = CompressionCodec::kSnappy;
      break;
    case Codec::kGzip:
      c = CompressionCodec::kGzip;
      break;
    case Codec::kZstd:
      c = CompressionCodec::kZstd;
      break;
    case Codec::kLz4Raw:
      c = CompressionCodec::kLz4Raw;
      break;
    case Codec::kLz4: {
      if (std::optional<std::string> framed = TryHadoopLz4(in, want)) return std::move(*framed);
      c = CompressionCodec::kLz4Raw;
      break;
    }
    default:
      return Status::NotSupported(std::string("parquet: compression codec ") + CodecName(codec) +
                                  " is not supported");
  }
  TRIB_ASSIGN_OR_RETURN(std::string out, Decompress(c, in, want));
  if (out.size() != want) {
    return Corrupt(std::string(CodecName(codec)) + " page decompressed to " +
                   std::to_string(out.size()) + " bytes, header says " + std::to_string(want));
  }
  return out;
}

// Levels of a v1 page: RLE with a 4-byte length prefix, or the deprecated BIT_PACKED
// (most significant bit first). Advances *pos past them.
Status ReadLevelsV1(std::string_view page, size_t* pos, Encoding encoding, int16_t max_level,
                    int64_t n, std::vector<int16_t>* out) {
  int bw = BitWidth(static_cast<uint64_t>(max_level));
  std::vector<uint32_t> raw;
  raw.reserve(static_cast<size_t>(n));
  if (encoding == Encoding::kRle) {
    if (page.size() - *pos < 4) return Corrupt("levels truncated");
    uint32_t len;
    std::memcpy(&len, page.data() + *pos, 4);
    *pos += 4;
    if (len > page.size() - *pos) return Corrupt("levels truncated");
    RleBitPackedDecoder dec(page.substr(*pos, len), bw);
    TRIB_RETURN_NOT_OK(dec.Get(n, &raw));
    *pos += len;
  } else if (encoding == Encoding::kBitPacked) {
    uint64_t bytes = (static_cast<uint64_t>(n) * bw + 7) / 8;
    if (bytes > page.size() - *pos) return Corrupt("levels truncated");
    const auto* p = reinterpret_cast<const uint8_t*>(page.data() + *pos);
    for (int64_t i = 0; i < n; ++i) {
      uint32_t v = 0;
      for (int b = 0; b < bw; ++b) {
        uint64_t bit = static_cast<uint64_t>(i) * bw + b;
        v = (v << 1) | ((p[bit / 8] >> (7 - bit % 8)) & 1);
      }
      raw.push_back(v);
    }
    *pos += bytes;
  } else {
    return Corrupt(std::string("unsupported level encoding ") + EncodingName(encoding));
  }
  ReserveMore(out, raw.size());
  for (uint32_t v : raw) {
    if (v > static_cast<uint32_t>(max_level)) return Corrupt("level above the maximum");
    out->push_back(static_cast<int16_t>(v));
  }
  return Status::OK();
}

Status ReadLevelsV2(std::string_view data, int16_t max_level, int64_t n,
                    std::vector<int16_t>* out) {
  std::vector<uint32_t> raw;
  raw.reserve(static_cast<size_t>(n));
  RleBitPackedDecoder dec(data, BitWidth(static_cast<uint64_t>(max_level)));
  TRIB_RETURN_NOT_OK(dec.Get(n, &raw));
  ReserveMore(out, raw.size());
  for (uint32_t v : raw) {
    if (v > static_cast<uint32_t>(max_level)) return Corrupt("level above the maximum");
    out->push_back(static_cast<int16_t>(v));
  }
  return Status::OK();
}

class ChunkDecoder {
 public:
  // `rows` (may be null): the rows wanted; of a flat byte-array leaf only their values are kept
  // (ColumnChunkData::wanted_only).
  ChunkDecoder(const LeafColumn& leaf, Codec codec, const RowRanges* rows, ColumnChunkData* out)
      : leaf_(leaf), codec_(codec), out_(out) {
    const bool bytes = leaf.physical_type == PhysicalType::kByteArray ||
                       leaf.physical_type == PhysicalType::kFixedLenByteArray;
    if (rows && leaf.max_rep_level == 0 && bytes) {
      rows_ = rows;
      out_->wanted_only = true;
    }
  }

  // Present values of the pages decoded that were not kept (wanted_only).
  int64_t dropped() const { return dropped_; }

  void set_max_values(int64_t n) { max_values_ = n; }

  Status Page(const PageHeader& h, std::string_view body) {
    switch (h.type) {
      case PageType::kDictionaryPage:
        return DictionaryPage(h, body);
      case PageType::kDataPage:
        return DataPageV1(h, body);
      case PageType::kDataPageV2:
        return DataPageV2(h, body);
      default:
        return Status::OK();  // index pages and unknown page types carry no values
    }
  }

 private:
  Status DictionaryPage(const PageHeader& h, std::string_view body) {
    if (!h.dictionary_page_header) return Corrupt("dictionary page without its header");
    if (dictionary_) return Corrupt("second dictionary page in a column chunk");
    const DictionaryPageHeader& d = *h.dictionary_page_header;
    if (d.encoding != Encoding::kPlain && d.encoding != Encoding::kPlainDictionary) {
      return Corrupt(std::string("dictionary page encoding ") + EncodingName(d.encoding));
    }
    if (d.num_values < 0) return Corrupt("negative dictionary size");
    TRIB_ASSIGN_OR_RETURN(std::string data, DecompressPage(codec_, body, h.uncompressed_page_size));
    dictionary_.emplace();
    return DecodePlain(data, leaf_.physical_type, leaf_.type_length, d.num_values, &*dictionary_);
  }

  Status DataPageV1(const PageHeader& h, std::string_view body) {
    if (!h.data_page_header) return Corrupt("data page without its header");
    const DataPageHeader& d = *h.data_page_header;
    TRIB_RETURN_NOT_OK(CheckCount(d.num_values));
    TRIB_ASSIGN_OR_RETURN(std::string data, DecompressPage(codec_, body, h.uncompressed_page_size));
    page_first_ = out_->num_levels;
    size_t pos = 0;
    if (leaf_.max_rep_level > 0) {
      TRIB_RETURN_NOT_OK(ReadLevelsV1(data, &pos, d.repetition_level_encoding, leaf_.max_rep_level,
                                      d.num_values, &out_->rep_levels));
    }
    int64_t present = d.num_values;
    if (leaf_.max_def_level > 0) {
      size_t before = out_->def_levels.size();
      TRIB_RETURN_NOT_OK(ReadLevelsV1(data, &pos, d.definition_level_encoding, leaf_.max_def_level,
                                      d.num_values, &out_->def_levels));
      present = CountPresent(before);
    }
    out_->num_levels += d.num_values;
    return Values(d.encoding, std::string_view(data).substr(pos), present);
  }

  Status DataPageV2(const PageHeader& h, std::string_view body) {
    if (!h.data_page_header_v2) return Corrupt("data page v2 without its header");
    const DataPageHeaderV2& d = *h.data_page_header_v2;
    TRIB_RETURN_NOT_OK(CheckCount(d.num_values));
    int64_t rep_len = d.repetition_levels_byte_length, def_len = d.definition_levels_byte_length;
    if (rep_len < 0 || def_len < 0 || rep_len + def_len > static_cast<int64_t>(body.size()) ||
        rep_len + def_len > h.uncompressed_page_size) {
      return Corrupt("data page v2 level lengths exceed the page");
    }
    page_first_ = out_->num_levels;
    if (leaf_.max_rep_level > 0) {
      TRIB_RETURN_NOT_OK(ReadLevelsV2(body.substr(0, rep_len), leaf_.max_rep_level, d.num_values,
                                      &out_->rep_levels));
    }
    int64_t present = d.num_values;
    if (leaf_.max_def_level > 0) {
      size_t before = out_->def_levels.size();
      TRIB_RETURN_NOT_OK(ReadLevelsV2(body.substr(rep_len, def_len), leaf_.max_def_level,
                                      d.num_values, &out_->def_levels));
      present = CountPresent(before);
    }
    out_->num_levels += d.num_values;
    std::string_view values = body.substr(rep_len + def_len);
    int64_t values_size = h.uncompressed_page_size - rep_len - def_len;
    std::string decompressed;
    if (d.is_compressed && codec_ != Codec::kUncompressed) {
      TRIB_ASSIGN_OR_RETURN(decompressed, DecompressPage(codec_, values, values_size));
      values = decompressed;
    } else if (static_cast<int64_t>(values.size()) != values_size) {
      return Corrupt("data page v2 size mismatch");
    }
    return Values(d.encoding, values, present);
  }

  Status CheckCount(int32_t n) const {
    if (n < 0 || n > kMaxPageValues || n > max_values_) {
      return Corrupt("bad page value count " + std::to_string(n));
    }
    return Status::OK();
  }

  int64_t CountPresent(size_t from) const {
    int64_t n = 0;
    for (size_t i = from; i < out_->def_levels.size(); ++i) {
      n += out_->def_levels[i] == leaf_.max_def_level;
    }
    return n;
  }

  // With wanted rows: which of the current page's `n` present values they hold (mask), or false
  // when they hold all of them. The page's levels (one per row) are already in out_.
  bool WantedValues(int64_t n) {
    if (!rows_) return false;
    const int64_t first = page_first_, end = out_->num_levels;
    mask_.assign(static_cast<size_t>(n), 0);
    auto range = std::upper_bound(rows_->begin(), rows_->end(), first,
                                  [](int64_t r, const auto& rr) { return r < rr.second; });
    const bool levels = leaf_.max_def_level > 0;
    // The page's levels are the last (end - first) of def_levels (skipped pages have none).
    const size_t level0 = levels ? out_->def_levels.size() - static_cast<size_t>(end - first) : 0;
    int64_t v = 0, hits = 0;
    for (int64_t r = first; r < end && v < n; ++r) {
      if (levels &&
          out_->def_levels[level0 + static_cast<size_t>(r - first)] != leaf_.max_def_level) {
        continue;
      }
      while (range != rows_->end() && range->second <= r) ++range;
      if (range != rows_->end() && range->first <= r) {
        mask_[static_cast<size_t>(v)] = 1;
        ++hits;
      }
      ++v;
    }
    hits_ = hits;
    return hits < n;
  }

  Status Values(Encoding encoding, std::string_view data, int64_t n) {
    const bool some = WantedValues(n);
    const size_t before = out_->values.bytes.size();
    TRIB_RETURN_NOT_OK(DecodeValues(encoding, data, n, some));
    if (!some) return Status::OK();
    auto& bytes = out_->values.bytes;
    const size_t got = bytes.size() - before;
    if (got == static_cast<size_t>(n)) {
      // Decoded whole (an encoding without a selective path): keep the wanted values.
      StringVector kept;
      for (size_t k = 0; k < got; k++) {
        if (mask_[k]) kept.push_back(bytes[before + k]);
      }
      bytes.truncate(before);
      bytes.append(kept);
    } else if (got != static_cast<size_t>(hits_)) {
      return Corrupt("data page holds " + std::to_string(got) + " values, its levels say " +
                     std::to_string(n));
    }
    dropped_ += n - hits_;
    return Status::OK();
  }

  Status DecodeValues(Encoding encoding, std::string_view data, int64_t n, bool some) {
    PhysicalType type = leaf_.physical_type;
    PhysicalValues& out = out_->values;
    auto wrong_type = [&]() {
      return Corrupt(std::string(EncodingName(encoding)) + " encoding for a " +
                     PhysicalTypeName(type) + " column");
    };
    switch (encoding) {
      case Encoding::kPlain:
        if (some && type == PhysicalType::kByteArray) {
          return DecodePlainByteArraysWanted(data, n, mask_.data(), &out.bytes);
        }
        return DecodePlain(data, type, leaf_.type_length, n, &out);
      case Encoding::kPlainDictionary:
      case Encoding::kRleDictionary: {
        if (!dictionary_) return Corrupt("dictionary-encoded page without a dictionary page");
        if (n == 0) return Status::OK();
        if (data.empty()) return Corrupt("dictionary indices truncated");
        int bw = static_cast<uint8_t>(data[0]);
        if (bw > 32) return Corrupt("dictionary index bit width " + std::to_string(bw));
        std::vector<uint32_t> idx;
        idx.reserve(static_cast<size_t>(n));
        RleBitPackedDecoder dec(data.substr(1), bw);
        TRIB_RETURN_NOT_OK(dec.Get(n, &idx));
        const size_t dict_size = dictionary_->size();
        for (uint32_t i : idx) {
          if (i >= dict_size) return Corrupt("dictionary index out of range");
        }
        // Gather by type (the dictionary holds the column's physical type).
        auto gather = [&](const auto& dict, auto* to) {
          ReserveMore(to, idx.size());
          for (uint32_t i : idx) to->push_back(dict[i]);
        };
        if (!dictionary_->ints.empty()) {
          gather(dictionary_->ints, &out.ints);
        } else if (!dictionary_->doubles.empty()) {
          gather(dictionary_->doubles, &out.doubles);
        } else if (some) {
          for (size_t k = 0; k < idx.size(); k++) {
            if (mask_[k]) out.bytes.push_back(dictionary_->bytes[idx[k]]);
          }
        } else {
          gather(dictionary_->bytes, &out.bytes);
        }
        return Status::OK();
      }
      case Encoding::kRle:
        if (type != PhysicalType::kBoolean) return wrong_type();
        return DecodeRleBooleans(data, n, &out.ints);
      case Encoding::kDeltaBinaryPacked: {
        if (type != PhysicalType::kInt32 && type != PhysicalType::kInt64) return wrong_type();
        size_t before = out.ints.size();
        size_t consumed;
        TRIB_RETURN_NOT_OK(
            DecodeDeltaBinaryPacked(data, n, type == PhysicalType::kInt32, &out.ints, &consumed));
        if (static_cast<int64_t>(out.ints.size() - before) != n) {
          return Corrupt("DELTA_BINARY_PACKED page holds too few values");
        }
        return Status::OK();
      }
      case Encoding::kDeltaLengthByteArray:
        if (type != PhysicalType::kByteArray) return wrong_type();
        return DecodeDeltaLengthByteArray(data, n, &out.bytes);
      case Encoding::kDeltaByteArray: {
        if (type != PhysicalType::kByteArray && type != PhysicalType::kFixedLenByteArray) {
          return wrong_type();
        }
        size_t before = out.bytes.size();
        TRIB_RETURN_NOT_OK(DecodeDeltaByteArray(data, n, &out.bytes));
        if (type == PhysicalType::kFixedLenByteArray) {
          for (size_t i = before; i < out.bytes.size(); ++i) {
            if (static_cast<int32_t>(out.bytes[i].size()) != leaf_.type_length) {
              return Corrupt("DELTA_BYTE_ARRAY value of the wrong fixed length");
            }
          }
        }
        return Status::OK();
      }
      case Encoding::kByteStreamSplit:
        if (type == PhysicalType::kBoolean || type == PhysicalType::kByteArray ||
            type == PhysicalType::kInt96) {
          return wrong_type();
        }
        return DecodeByteStreamSplit(data, type, leaf_.type_length, n, &out);
      default:
        return Status::NotSupported(std::string("parquet: value encoding ") +
                                    EncodingName(encoding) + " is not supported");
    }
  }

  int64_t max_values_ = kMaxPageValues;
  const LeafColumn& leaf_;
  Codec codec_;
  ColumnChunkData* out_;
  std::optional<PhysicalValues> dictionary_;
  const RowRanges* rows_ = nullptr;
  int64_t page_first_ = 0;  // the current data page's first level
  int64_t dropped_ = 0;
  int64_t hits_ = 0;           // WantedValues': the wanted values of the current page
  std::vector<uint8_t> mask_;  // WantedValues'
};

}  // namespace

bool Overlaps(const RowRanges& ranges, int64_t begin, int64_t end) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), begin,
                             [](int64_t b, const auto& r) { return b < r.second; });
  return it != ranges.end() && it->first < end;
}

std::pair<int64_t, int64_t> ColumnChunkByteRange(const ColumnMetaData& m) {
  int64_t start = m.data_page_offset;
  if (m.dictionary_page_offset && *m.dictionary_page_offset > 0 &&
      *m.dictionary_page_offset < start) {
    start = *m.dictionary_page_offset;
  }
  return {start, m.total_compressed_size};
}

Result<ColumnChunkData> ReadColumnChunk(std::string_view file, const ColumnChunk& chunk,
                                        const LeafColumn& leaf, int64_t num_rows,
                                        const RowRanges* rows, VerifiedPages* verified,
                                        const OffsetIndex* pages) {
  if (chunk.file_path) return Status::NotSupported("parquet: column chunks in other files");
  if (!chunk.meta_data) return Corrupt("column chunk without metadata");
  const ColumnMetaData& m = *chunk.meta_data;
  if (m.type != leaf.physical_type) return Corrupt("column chunk type differs from the schema");
  // (Named, not bound: clang 14 cannot capture a structured binding in the lambdas below.)
  const auto range = ColumnChunkByteRange(m);
  const int64_t start = range.first, size = range.second;
  int64_t file_size = static_cast<int64_t>(file.size());
  if (start < 4 || size <= 0 || start > file_size || size > file_size - start) {
    return Corrupt("column chunk range [" + std::to_string(start) + ", +" + std::to_string(size) +
                   ") outside the file");
  }
  if (m.num_values < 0 || num_rows < 0) return Corrupt("negative value count");
  if (leaf.max_rep_level == 0 && m.num_values != num_rows) {
    return Corrupt("column chunk of " + std::to_string(m.num_values) +
                   " values in a row group of " + std::to_string(num_rows) + " rows");
  }
  std::string_view data = file.substr(static_cast<size_t>(start), static_cast<size_t>(size));

  ColumnChunkData out;
  if (leaf.max_rep_level == 0 && !rows) {
    // A flat column holds at most one value per row: reserve once instead of growing (up to a
    // bound, so a hostile row count cannot reserve much).
    const size_t n = static_cast<size_t>(std::min<int64_t>(num_rows, int64_t{1} << 20));
    switch (leaf.physical_type) {
      case PhysicalType::kFloat:
      case PhysicalType::kDouble:
        out.values.doubles.reserve(n);
        break;
      case PhysicalType::kByteArray:
      case PhysicalType::kFixedLenByteArray:
      case PhysicalType::kInt96:
        out.values.bytes.reserve(n);
        break;
      default:
        out.values.ints.reserve(n);
        break;
    }
    if (leaf.max_def_level > 0) out.def_levels.reserve(n);
  }
  ChunkDecoder decoder(leaf, m.codec, rows, &out);
  // Skips the data page at `pos` by its location when it holds none of `rows`.
  const bool jump = rows && leaf.max_rep_level == 0 && pages && !pages->page_locations.empty();
  size_t next_page = 0;  // the next of pages->page_locations not passed yet
  auto skip_by_location = [&](size_t pos) {
    if (!jump) return false;
    const auto& locs = pages->page_locations;
    while (next_page < locs.size() && locs[next_page].offset < start + static_cast<int64_t>(pos)) {
      ++next_page;
    }
    if (next_page >= locs.size()) return false;
    const PageLocation& at = locs[next_page];
    const int64_t end_row =
        next_page + 1 < locs.size() ? locs[next_page + 1].first_row_index : num_rows;
    const int64_t n = end_row - at.first_row_index;
    // Only a location that agrees with what was read so far, stays inside the chunk and ends
    // where the next page begins.
    const bool ends_at_next =
        next_page + 1 >= locs.size() ||
        locs[next_page + 1].offset - at.offset == static_cast<int64_t>(at.compressed_page_size);
    if (at.offset != start + static_cast<int64_t>(pos) || at.first_row_index != out.num_levels ||
        n <= 0 || n > m.num_values - out.num_levels || at.compressed_page_size <= 0 ||
        static_cast<size_t>(at.compressed_page_size) > data.size() - pos || !ends_at_next ||
        Overlaps(*rows, out.num_levels, out.num_levels + n)) {
      return false;
    }
    if (!out.skipped.empty() && out.skipped.back().second == out.num_levels) {
      out.skipped.back().second += n;
    } else {
      out.skipped.push_back({out.num_levels, out.num_levels + n});
    }
    out.num_levels += n;
    return true;
  };
  size_t pos = 0;
  while (pos < data.size() && out.num_levels < m.num_values) {
    if (skip_by_location(pos)) {
      pos += static_cast<size_t>(pages->page_locations[next_page++].compressed_page_size);
      continue;
    }
    PageHeader h;
    size_t header_len = 0;
    TRIB_RETURN_NOT_OK(DecodePageHeader(data.substr(pos), &h, &header_len));
    pos += header_len;
    if (h.compressed_page_size < 0 ||
        static_cast<size_t>(h.compressed_page_size) > data.size() - pos) {
      return Corrupt("page runs past its column chunk");
    }
    std::string_view body = data.substr(pos, static_cast<size_t>(h.compressed_page_size));
    pos += static_cast<size_t>(h.compressed_page_size);
    if (rows && leaf.max_rep_level == 0) {
      // A data page of a flat column holds one level per row: skip it when none is wanted.
      int64_t n = -1;
      if (h.type == PageType::kDataPage && h.data_page_header) n = h.data_page_header->num_values;
      if (h.type == PageType::kDataPageV2 && h.data_page_header_v2) {
        n = h.data_page_header_v2->num_values;
      }
      if (n > 0 && n <= m.num_values - out.num_levels &&
          !Overlaps(*rows, out.num_levels, out.num_levels + n)) {
        if (!out.skipped.empty() && out.skipped.back().second == out.num_levels) {
          out.skipped.back().second += n;
        } else {
          out.skipped.push_back({out.num_levels, out.num_levels + n});
        }
        out.num_levels += n;  // (no definition levels: a skipped page has none)
        continue;
      }
    }
    // The page checksum (CRC-32 of the page as stored, after its header), when written; once
    // per page of a file with `verified`.
    const int64_t page_at = start + static_cast<int64_t>(pos - body.size());
    if (h.crc && !(verified && verified->Contains(page_at))) {
      if (static_cast<uint32_t>(*h.crc) != Crc32(body)) {
        return Corrupt("page checksum mismatch (page at byte " + std::to_string(page_at) + ")");
      }
      if (verified) verified->Add(page_at);
    }
    // Bound every page by what the chunk still holds (hostile headers, huge allocations).
    decoder.set_max_values(m.num_values - out.num_levels);
    TRIB_RETURN_NOT_OK(decoder.Page(h, body));
    if (out.num_levels > m.num_values) return Corrupt("pages hold more values than the chunk");
  }
  if (out.num_levels != m.num_values) {
    return Corrupt("column chunk holds " + std::to_string(out.num_levels) +
                   " values, metadata says " + std::to_string(m.num_values));
  }
  if (leaf.max_rep_level == 0 && out.num_levels != num_rows) {
    return Corrupt("column chunk holds " + std::to_string(out.num_levels) +
                   " values for a row group of " + std::to_string(num_rows) + " rows");
  }
  int64_t present = out.num_levels;
  for (const auto& [b, e] : out.skipped) present -= e - b;
  if (leaf.max_def_level > 0 && static_cast<int64_t>(out.def_levels.size()) != present) {
    return Corrupt("column chunk holds " + std::to_string(out.def_levels.size()) +
                   " definition levels for " + std::to_string(present) + " rows decoded");
  }
  if (leaf.max_def_level > 0) {
    present = 0;
    for (int16_t d : out.def_levels) present += d == leaf.max_def_level;
  }
  if (static_cast<int64_t>(out.values.size()) + decoder.dropped() != present) {
    return Corrupt("column chunk has " + std::to_string(out.values.size()) + " values for " +
                   std::to_string(present) + " non-null entries");
  }
  return out;
}

}  // namespace tributary::format::parquet
