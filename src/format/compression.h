// Block compression codecs shared by the Avro and Parquet readers and writers: a thin,
// Status-returning layer over zstd, snappy, zlib and lz4.
// Thread-safety: the functions are stateless and safe to call from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tributary/result.h"

namespace tributary::format {

enum class CompressionCodec {
  kNone,
  kSnappy,   // raw snappy (no framing), as Parquet and Avro use it
  kGzip,     // gzip-wrapped deflate (Parquet GZIP); decompression also accepts a zlib wrapper
  kDeflate,  // raw deflate (no header, no checksum), as Avro's "deflate" codec uses it
  kZstd,     // one or more zstd frames
  kLz4Raw,   // raw lz4 block (Parquet LZ4_RAW), no frame
  // The lz4 frame format (Arrow IPC's LZ4_FRAME, the `lz4` command's). Not a name
  // CompressionCodecFromName accepts: no table option chooses it.
  kLz4Frame,
};

// "none", "snappy", "gzip", "deflate", "zstd", "lz4_raw", "lz4_frame".
const char* CompressionCodecName(CompressionCodec codec);
// Accepts the names above case-insensitively, plus "uncompressed" and "lz4" (as kLz4Raw).
Result<CompressionCodec> CompressionCodecFromName(std::string_view name);

// Compresses `input` as one unit (one zstd frame, one gzip member, ...).
// `zstd_level`: the zstd compression level (1..22; Paimon's 'file.compression.zstd-level').
Result<std::string> Compress(CompressionCodec codec, std::string_view input, int zstd_level = 1);

// Decompresses `input`. `expected_size_hint` is the decompressed size when the caller knows it
// (Parquet pages) and 0 otherwise (Avro blocks); it only sizes buffers and is not checked, so
// callers that know the exact size compare it themselves. Damaged or truncated input gives
// Status::Corruption naming the codec, and so does input that would decompress to more than
// `max_size` bytes: no more output than that (and a few bytes of room) is ever allocated,
// however much the input claims or expands to. A format recording each buffer's length passes
// it as both: zstd then decodes in one shot, needing no window of its own; lz4's frame decoder
// keeps its blocks (at most 4 MiB each) besides.
Result<std::string> Decompress(CompressionCodec codec, std::string_view input,
                               size_t expected_size_hint = 0, size_t max_size = SIZE_MAX);

// CRC-32 (ISO-HDLC, zlib's crc32) of `data`: Avro's snappy blocks and Parquet page checksums.
uint32_t Crc32(std::string_view data);

}  // namespace tributary::format
