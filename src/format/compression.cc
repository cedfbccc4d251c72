#include "format/compression.h"

#include <lz4.h>
#include <lz4frame.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <memory>

namespace tributary::format {
namespace {

// A damaged length field must not make us allocate without bound before the decoder notices.
constexpr size_t kMaxInitialBuffer = size_t{256} << 20;

Status CorruptionIn(CompressionCodec codec, const std::string& what) {
  return Status::Corruption(std::string(CompressionCodecName(codec)) + ": " + what);
}

// Room past a caller's bound (Decompress's max_size), so a decoder reads a frame's end (an end
// mark, a checksum) with output space left; what it produced is checked against the bound.
constexpr size_t kBoundSlack = 64;

size_t Capacity(size_t max_size) {
  return max_size > SIZE_MAX - kBoundSlack ? SIZE_MAX : max_size + kBoundSlack;
}

size_t InitialOutputSize(std::string_view input, size_t hint, size_t max_size) {
  size_t n = hint > 0 ? hint : input.size() * 4;
  return std::min(std::clamp<size_t>(n, 64, kMaxInitialBuffer), Capacity(max_size));
}

// Doubles `out` for more output, up to the bound and its room; false when it is there already.
// Allocated exactly (a string's resize may round a request up to twice its capacity).
bool Grow(std::string* out, size_t max_size) {
  const size_t cap = Capacity(max_size);
  if (out->size() >= cap) return false;
  const size_t n = out->size() > cap / 2 ? cap : out->size() * 2;
  std::string bigger;
  bigger.reserve(n);
  bigger.assign(*out);
  bigger.resize(n);
  out->swap(bigger);
  return true;
}

Status TooLong(CompressionCodec codec, size_t max_size) {
  return CorruptionIn(codec, "more than " + std::to_string(max_size) + " bytes once decompressed");
}

// ---- zlib (deflate and gzip) ----

Result<std::string> ZlibCompress(CompressionCodec codec, std::string_view input) {
  if (input.size() > UINT_MAX) return Status::NotSupported("zlib: input larger than 4 GiB");
  const int window_bits = codec == CompressionCodec::kGzip ? 15 + 16 : -15;
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return Status::Internal(std::string(CompressionCodecName(codec)) + ": deflateInit2 failed");
  }
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, deflateEnd);
  std::string out(deflateBound(&zs, input.size()) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  zs.avail_in = static_cast<uInt>(input.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(std::min<size_t>(out.size(), UINT_MAX));
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
    return Status::Internal(std::string(CompressionCodecName(codec)) + ": deflate did not finish");
  }
  out.resize(zs.total_out);
  return out;
}

Result<std::string> ZlibDecompress(CompressionCodec codec, std::string_view input, size_t hint,
                                   size_t max_size) {
  if (input.empty()) return CorruptionIn(codec, "empty input");
  if (input.size() > UINT_MAX) return Status::NotSupported("zlib: input larger than 4 GiB");
  const bool gzip = codec == CompressionCodec::kGzip;
  // 15 + 32: detect a gzip or zlib header automatically.
  const int window_bits = gzip ? 15 + 32 : -15;
  z_stream zs{};
  if (inflateInit2(&zs, window_bits) != Z_OK) {
    return Status::Internal(std::string(CompressionCodecName(codec)) + ": inflateInit2 failed");
  }
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, inflateEnd);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  zs.avail_in = static_cast<uInt>(input.size());
  std::string out(InitialOutputSize(input, hint, max_size), '\0');
  size_t produced = 0;
  while (true) {
    if (produced == out.size() && !Grow(&out, max_size)) return TooLong(codec, max_size);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    zs.avail_out = static_cast<uInt>(std::min<size_t>(out.size() - produced, UINT_MAX));
    const uInt avail_before = zs.avail_out;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    produced += avail_before - zs.avail_out;
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      // gzip files may hold several members; raw deflate must end exactly.
      if (!gzip) return CorruptionIn(codec, "trailing bytes after the end of the stream");
      if (inflateReset(&zs) != Z_OK) return CorruptionIn(codec, "inflateReset failed");
      continue;
    }
    if (rc == Z_BUF_ERROR) {
      if (zs.avail_out == 0) continue;  // output full: grow and retry
      return CorruptionIn(codec, "truncated stream");
    }
    if (rc != Z_OK) {
      return CorruptionIn(codec,
                          zs.msg != nullptr ? zs.msg : "inflate error " + std::to_string(rc));
    }
  }
  if (produced > max_size) return TooLong(codec, max_size);
  out.resize(produced);
  return out;
}

// ---- zstd ----

// Paimon's default 'file.compression.zstd-level' is 1: much cheaper than zstd's default 3 for
// about 1% larger files. Contexts are reused per thread (creating one per block is costly).
Result<std::string> ZstdCompress(std::string_view input, int level) {
  if (level < 1 || level > ZSTD_maxCLevel()) {
    return Status::Invalid("zstd level " + std::to_string(level) + " is outside 1.." +
                           std::to_string(ZSTD_maxCLevel()));
  }
  thread_local std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(),
                                                                       ZSTD_freeCCtx);
  if (cctx == nullptr) return Status::Internal("zstd: ZSTD_createCCtx failed");
  std::string out(ZSTD_compressBound(input.size()), '\0');
  const size_t n =
      ZSTD_compressCCtx(cctx.get(), out.data(), out.size(), input.data(), input.size(), level);
  if (ZSTD_isError(n)) return Status::Internal(std::string("zstd: ") + ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

// Streaming, so frames that do not record their content size (and concatenated frames) work.
Result<std::string> ZstdDecompress(std::string_view input, size_t hint, size_t max_size) {
  constexpr CompressionCodec kCodec = CompressionCodec::kZstd;
  if (input.empty()) return CorruptionIn(kCodec, "empty input");
  thread_local std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(),
                                                                       ZSTD_freeDCtx);
  if (dctx == nullptr) return Status::Internal("zstd: ZSTD_createDCtx failed");
  if (hint > 0 && hint == max_size) {
    // A length the format records (an Arrow buffer): decoded in one shot straight into it, so
    // the decoder needs no window of its own however large the frame says its window is.
    std::string out(Capacity(max_size), '\0');
    const size_t n =
        ZSTD_decompressDCtx(dctx.get(), out.data(), out.size(), input.data(), input.size());
    if (ZSTD_isError(n)) {
      return ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall
                 ? TooLong(kCodec, max_size)
                 : CorruptionIn(kCodec, ZSTD_getErrorName(n));
    }
    if (n > max_size) return TooLong(kCodec, max_size);
    out.resize(n);
    return out;
  }
  if (hint == 0) {
    const unsigned long long content_size = ZSTD_getFrameContentSize(input.data(), input.size());
    if (content_size == ZSTD_CONTENTSIZE_ERROR) return CorruptionIn(kCodec, "not a zstd frame");
    if (content_size != ZSTD_CONTENTSIZE_UNKNOWN) {
      hint = static_cast<size_t>(std::min<unsigned long long>(content_size, kMaxInitialBuffer));
    }
  }
  ZSTD_DCtx_reset(dctx.get(), ZSTD_reset_session_only);
  std::string out(InitialOutputSize(input, hint, max_size), '\0');
  size_t produced = 0;
  ZSTD_inBuffer in{input.data(), input.size(), 0};
  while (true) {
    if (produced == out.size() && !Grow(&out, max_size)) return TooLong(kCodec, max_size);
    ZSTD_outBuffer ob{out.data() + produced, out.size() - produced, 0};
    const size_t in_before = in.pos;
    const size_t ret = ZSTD_decompressStream(dctx.get(), &ob, &in);
    if (ZSTD_isError(ret)) return CorruptionIn(kCodec, ZSTD_getErrorName(ret));
    produced += ob.pos;
    // ret == 0: a frame ended; more input means another frame follows.
    if (ret == 0 && in.pos == in.size) break;
    // With output space and no progress, the decoder is waiting for input that is not there.
    if (in.pos == in_before && ob.pos == 0) return CorruptionIn(kCodec, "truncated frame");
  }
  if (produced > max_size) return TooLong(kCodec, max_size);
  out.resize(produced);
  return out;
}

// ---- snappy ----

Result<std::string> SnappyDecompress(std::string_view input, size_t max_size) {
  constexpr CompressionCodec kCodec = CompressionCodec::kSnappy;
  size_t length = 0;
  if (!snappy::GetUncompressedLength(input.data(), input.size(), &length)) {
    return CorruptionIn(kCodec, "bad length header");
  }
  // A snappy copy element expands at most ~22x; reject absurd lengths before allocating.
  if (length / 32 > input.size()) return CorruptionIn(kCodec, "implausible uncompressed length");
  if (length > max_size) return TooLong(kCodec, max_size);
  std::string out;
  if (!snappy::Uncompress(input.data(), input.size(), &out)) {
    return CorruptionIn(kCodec, "invalid compressed data");
  }
  return out;
}

// ---- lz4 raw ----

Result<std::string> Lz4Compress(std::string_view input) {
  if (input.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
    return Status::NotSupported("lz4_raw: input too large");
  }
  std::string out(LZ4_compressBound(static_cast<int>(input.size())), '\0');
  const int n = LZ4_compress_default(input.data(), out.data(), static_cast<int>(input.size()),
                                     static_cast<int>(out.size()));
  if (n <= 0) return Status::Internal("lz4_raw: compression failed");
  out.resize(n);
  return out;
}

// A raw block does not record its decompressed size: try the hint, then grow up to lz4's
// maximum ratio (255:1).
Result<std::string> Lz4Decompress(std::string_view input, size_t hint, size_t max_size) {
  constexpr CompressionCodec kCodec = CompressionCodec::kLz4Raw;
  if (input.empty()) return CorruptionIn(kCodec, "empty input");
  if (input.size() > static_cast<size_t>(INT_MAX)) {
    return Status::NotSupported("lz4_raw: input too large");
  }
  const size_t most = std::min<size_t>({input.size() * 255 + 64, INT_MAX, max_size});
  std::string out;
  auto attempt = [&](size_t capacity) {
    out.resize(capacity);
    const int n = LZ4_decompress_safe(input.data(), out.data(), static_cast<int>(input.size()),
                                      static_cast<int>(capacity));
    if (n < 0) return false;
    out.resize(n);
    return true;
  };
  if (hint > 0 && hint <= most && attempt(hint)) return out;
  for (size_t capacity = std::min(std::max<size_t>(input.size() * 4, 256), most);;
       capacity = std::min(capacity * 2, most)) {
    if (attempt(capacity)) return out;
    if (capacity == most) break;
  }
  return CorruptionIn(kCodec, most == max_size
                                  ? "invalid compressed data, or more than " +
                                        std::to_string(max_size) + " bytes once decompressed"
                                  : std::string("invalid compressed data"));
}

// ---- lz4 frame ----

Result<std::string> Lz4FrameCompress(std::string_view input) {
  std::string out(LZ4F_compressFrameBound(input.size(), nullptr), '\0');
  const size_t n = LZ4F_compressFrame(out.data(), out.size(), input.data(), input.size(), nullptr);
  if (LZ4F_isError(n)) return Status::Internal(std::string("lz4_frame: ") + LZ4F_getErrorName(n));
  out.resize(n);
  return out;
}

// One or more frames, each ended by its end mark.
Result<std::string> Lz4FrameDecompress(std::string_view input, size_t hint, size_t max_size) {
  constexpr CompressionCodec kCodec = CompressionCodec::kLz4Frame;
  if (input.empty()) return CorruptionIn(kCodec, "empty input");
  LZ4F_dctx* ctx = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION))) {
    return Status::Internal("lz4_frame: LZ4F_createDecompressionContext failed");
  }
  std::unique_ptr<LZ4F_dctx, size_t (*)(LZ4F_dctx*)> guard(ctx, LZ4F_freeDecompressionContext);
  std::string out(InitialOutputSize(input, hint, max_size), '\0');
  size_t produced = 0, consumed = 0;
  while (true) {
    if (produced == out.size() && !Grow(&out, max_size)) return TooLong(kCodec, max_size);
    size_t dst = out.size() - produced, src = input.size() - consumed;
    const size_t wanted =
        LZ4F_decompress(ctx, out.data() + produced, &dst, input.data() + consumed, &src, nullptr);
    if (LZ4F_isError(wanted)) return CorruptionIn(kCodec, LZ4F_getErrorName(wanted));
    produced += dst;
    consumed += src;
    if (wanted == 0 && consumed == input.size()) break;  // every frame ended
    // With output space and no progress, the decoder is waiting for input that is not there.
    if (dst == 0 && src == 0 && produced < out.size()) {
      return CorruptionIn(kCodec, "truncated frame");
    }
  }
  if (produced > max_size) return TooLong(kCodec, max_size);
  out.resize(produced);
  return out;
}

}  // namespace

const char* CompressionCodecName(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kNone:
      return "none";
    case CompressionCodec::kSnappy:
      return "snappy";
    case CompressionCodec::kGzip:
      return "gzip";
    case CompressionCodec::kDeflate:
      return "deflate";
    case CompressionCodec::kZstd:
      return "zstd";
    case CompressionCodec::kLz4Raw:
      return "lz4_raw";
    case CompressionCodec::kLz4Frame:
      return "lz4_frame";
  }
  return "unknown";
}

Result<CompressionCodec> CompressionCodecFromName(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "none" || lower == "uncompressed") return CompressionCodec::kNone;
  if (lower == "snappy") return CompressionCodec::kSnappy;
  if (lower == "gzip") return CompressionCodec::kGzip;
  if (lower == "deflate") return CompressionCodec::kDeflate;
  if (lower == "zstd") return CompressionCodec::kZstd;
  if (lower == "lz4_raw" || lower == "lz4") return CompressionCodec::kLz4Raw;
  return Status::Invalid("unknown compression codec '" + std::string(name) +
                         "' (expected none, snappy, gzip, deflate, zstd or lz4_raw)");
}

Result<std::string> Compress(CompressionCodec codec, std::string_view input, int zstd_level) {
  switch (codec) {
    case CompressionCodec::kNone:
      return std::string(input);
    case CompressionCodec::kSnappy: {
      std::string out;
      snappy::Compress(input.data(), input.size(), &out);
      return out;
    }
    case CompressionCodec::kGzip:
    case CompressionCodec::kDeflate:
      return ZlibCompress(codec, input);
    case CompressionCodec::kZstd:
      return ZstdCompress(input, zstd_level);
    case CompressionCodec::kLz4Raw:
      return Lz4Compress(input);
    case CompressionCodec::kLz4Frame:
      return Lz4FrameCompress(input);
  }
  return Status::Invalid("unknown compression codec");
}

Result<std::string> Decompress(CompressionCodec codec, std::string_view input,
                               size_t expected_size_hint, size_t max_size) {
  switch (codec) {
    case CompressionCodec::kNone:
      if (input.size() > max_size) return TooLong(codec, max_size);
      return std::string(input);
    case CompressionCodec::kSnappy:
      return SnappyDecompress(input, max_size);
    case CompressionCodec::kGzip:
    case CompressionCodec::kDeflate:
      return ZlibDecompress(codec, input, expected_size_hint, max_size);
    case CompressionCodec::kZstd:
      return ZstdDecompress(input, expected_size_hint, max_size);
    case CompressionCodec::kLz4Raw:
      return Lz4Decompress(input, expected_size_hint, max_size);
    case CompressionCodec::kLz4Frame:
      return Lz4FrameDecompress(input, expected_size_hint, max_size);
  }
  return Status::Invalid("unknown compression codec");
}

uint32_t Crc32(std::string_view data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib's length is a uInt; feed large inputs in pieces.
  while (!data.empty()) {
    const size_t n = std::min<size_t>(data.size(), 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(n));
    data.remove_prefix(n);
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace tributary::format
