#include "format/compression.h"

#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <random>
#include <string>
#include <vector>

namespace tributary::format {
namespace {

constexpr CompressionCodec kAllCodecs[] = {
    CompressionCodec::kNone,     CompressionCodec::kSnappy, CompressionCodec::kGzip,
    CompressionCodec::kDeflate,  CompressionCodec::kZstd,   CompressionCodec::kLz4Raw,
    CompressionCodec::kLz4Frame,
};

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

std::vector<std::string> SampleInputs() {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "row " + std::to_string(i % 97) + ", value abc;";
  return {"",
          "a",
          "hello, hello, hello, hello",
          text,
          RandomBytes(100000, 7),
          std::string(1 << 20, 'x')};
}

class CompressionTest : public ::testing::TestWithParam<CompressionCodec> {};

TEST_P(CompressionTest, RoundTripsWithAndWithoutSizeHint) {
  const CompressionCodec codec = GetParam();
  for (const std::string& input : SampleInputs()) {
    Result<std::string> compressed = Compress(codec, input);
    ASSERT_TRUE(compressed.ok()) << compressed.status().ToString();
    if (input.size() == (1u << 20) && codec != CompressionCodec::kNone) {
      EXPECT_LT(compressed->size(), input.size() / 10) << CompressionCodecName(codec);
    }
    for (size_t hint : {size_t{0}, input.size()}) {
      Result<std::string> plain = Decompress(codec, *compressed, hint);
      ASSERT_TRUE(plain.ok()) << CompressionCodecName(codec) << ": " << plain.status().ToString();
      EXPECT_EQ(*plain, input);
    }
  }
}

TEST_P(CompressionTest, WrongSizeHintIsOnlyAHint) {
  const CompressionCodec codec = GetParam();
  const std::string input = SampleInputs()[3];
  Result<std::string> compressed = Compress(codec, input);
  ASSERT_TRUE(compressed.ok());
  for (size_t hint : {size_t{1}, input.size() / 3, input.size() * 3}) {
    Result<std::string> plain = Decompress(codec, *compressed, hint);
    ASSERT_TRUE(plain.ok()) << plain.status().ToString();
    EXPECT_EQ(*plain, input);
  }
}

// Every truncation and many byte flips must give an error or (for flips the format cannot
// detect) some output, never a crash or a hang.
TEST_P(CompressionTest, DamagedInputGivesCorruptionNamingTheCodec) {
  const CompressionCodec codec = GetParam();
  if (codec == CompressionCodec::kNone) return;  // nothing to damage
  const std::string input = SampleInputs()[3].substr(0, 5000) + RandomBytes(500, 3);
  Result<std::string> compressed = Compress(codec, input);
  ASSERT_TRUE(compressed.ok());
  for (size_t len = 0; len < compressed->size(); ++len) {
    Result<std::string> plain = Decompress(codec, std::string_view(*compressed).substr(0, len));
    // lz4 raw blocks and deflate streams carry no length or checksum, so a prefix can decode
    // to a prefix of the input; everything else must notice the truncation.
    if (plain.ok()) {
      EXPECT_TRUE(codec == CompressionCodec::kLz4Raw) << CompressionCodecName(codec) << " " << len;
      EXPECT_NE(*plain, input);
      continue;
    }
    EXPECT_EQ(plain.status().code(), StatusCode::kCorruption);
    EXPECT_NE(plain.status().message().find(CompressionCodecName(codec)), std::string::npos)
        << plain.status().message();
  }
  std::mt19937 rng(42);
  for (int i = 0; i < 300; ++i) {
    std::string damaged = *compressed;
    damaged[rng() % damaged.size()] ^= static_cast<char>(1 + rng() % 255);
    Result<std::string> plain = Decompress(codec, damaged);
    if (!plain.ok()) {
      EXPECT_EQ(plain.status().code(), StatusCode::kCorruption);
    }
  }
  Result<std::string> garbage = Decompress(codec, RandomBytes(1000, 11));
  EXPECT_FALSE(garbage.ok() && *garbage == input);
}

// A bound on the output holds whatever the input expands to: a megabyte of one byte repeated
// (a few hundred bytes compressed) is refused past 1,000 bytes, and read back at its length.
TEST_P(CompressionTest, MaxSizeBoundsTheOutput) {
  const CompressionCodec codec = GetParam();
  const std::string input(1 << 20, 'x');
  Result<std::string> compressed = Compress(codec, input);
  ASSERT_TRUE(compressed.ok());
  for (size_t hint : {size_t{0}, input.size()}) {
    Result<std::string> plain = Decompress(codec, *compressed, hint, 1000);
    ASSERT_FALSE(plain.ok()) << CompressionCodecName(codec);
    EXPECT_EQ(plain.status().code(), StatusCode::kCorruption);
    EXPECT_NE(plain.status().message().find("more than 1000 bytes"), std::string::npos)
        << plain.status().message();
    plain = Decompress(codec, *compressed, hint, input.size());
    ASSERT_TRUE(plain.ok()) << CompressionCodecName(codec) << ": " << plain.status().ToString();
    EXPECT_EQ(*plain, input);
    EXPECT_FALSE(Decompress(codec, *compressed, hint, input.size() - 1).ok());
  }
  // A length the format records (hint and bound alike: zstd decodes in one shot).
  Result<std::string> exact = Decompress(codec, *compressed, input.size(), input.size());
  ASSERT_TRUE(exact.ok()) << CompressionCodecName(codec) << ": " << exact.status().ToString();
  EXPECT_EQ(*exact, input);
  Result<std::string> shorter = Decompress(codec, *compressed, 1000, 1000);
  ASSERT_FALSE(shorter.ok()) << CompressionCodecName(codec);
  EXPECT_NE(shorter.status().message().find("more than 1000 bytes"), std::string::npos)
      << shorter.status().message();
}

INSTANTIATE_TEST_SUITE_P(AllCodecs, CompressionTest, ::testing::ValuesIn(kAllCodecs),
                         [](const auto& info) { return CompressionCodecName(info.param); });

TEST(CompressionTest, EmptyCompressedInputIsCorruption) {
  for (CompressionCodec codec : kAllCodecs) {
    Result<std::string> plain = Decompress(codec, "");
    if (codec == CompressionCodec::kNone) {
      EXPECT_TRUE(plain.ok());
    } else {
      EXPECT_EQ(plain.status().code(), StatusCode::kCorruption) << CompressionCodecName(codec);
    }
  }
}

// Avro's zstandard codec (Java zstd-jni streams) may omit the frame content size.
TEST(CompressionTest, ZstdFramesWithoutContentSizeAndConcatenatedFrames) {
  const std::string input = SampleInputs()[3];
  std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  ASSERT_NE(cctx, nullptr);
  ASSERT_FALSE(ZSTD_isError(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 0)));
  std::string frame(ZSTD_compressBound(input.size()), '\0');
  ZSTD_outBuffer out{frame.data(), frame.size(), 0};
  ZSTD_inBuffer in{input.data(), input.size(), 0};
  ASSERT_EQ(ZSTD_compressStream2(cctx.get(), &out, &in, ZSTD_e_end), 0u);
  frame.resize(out.pos);
  ASSERT_EQ(ZSTD_getFrameContentSize(frame.data(), frame.size()), ZSTD_CONTENTSIZE_UNKNOWN);

  Result<std::string> plain = Decompress(CompressionCodec::kZstd, frame);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(*plain, input);

  Result<std::string> second = Compress(CompressionCodec::kZstd, "tail");
  ASSERT_TRUE(second.ok());
  Result<std::string> both = Decompress(CompressionCodec::kZstd, frame + *second);
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  EXPECT_EQ(*both, input + "tail");
}

TEST(CompressionTest, GzipAcceptsMultipleMembersAndZlibWrapper) {
  Result<std::string> a = Compress(CompressionCodec::kGzip, "first,");
  Result<std::string> b = Compress(CompressionCodec::kGzip, "second");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(static_cast<uint8_t>((*a)[0]), 0x1f);  // gzip magic
  Result<std::string> plain = Decompress(CompressionCodec::kGzip, *a + *b);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(*plain, "first,second");

  const std::string input = "zlib wrapped";
  std::string zlib_data(compressBound(input.size()), '\0');
  uLongf len = zlib_data.size();
  ASSERT_EQ(compress(reinterpret_cast<Bytef*>(zlib_data.data()), &len,
                     reinterpret_cast<const Bytef*>(input.data()), input.size()),
            Z_OK);
  zlib_data.resize(len);
  plain = Decompress(CompressionCodec::kGzip, zlib_data);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(*plain, input);
}

// Raw deflate has no header: zlib's own raw inflater must read our output, and a gzip or zlib
// header must be rejected.
TEST(CompressionTest, DeflateIsRawDeflate) {
  const std::string input = SampleInputs()[2];
  Result<std::string> raw = Compress(CompressionCodec::kDeflate, input);
  ASSERT_TRUE(raw.ok());
  z_stream zs{};
  ASSERT_EQ(inflateInit2(&zs, -15), Z_OK);
  std::string out(input.size() + 16, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(raw->data());
  zs.avail_in = raw->size();
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = out.size();
  EXPECT_EQ(inflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  inflateEnd(&zs);
  EXPECT_EQ(out, input);

  Result<std::string> gzip = Compress(CompressionCodec::kGzip, input);
  ASSERT_TRUE(gzip.ok());
  EXPECT_FALSE(Decompress(CompressionCodec::kDeflate, *gzip).ok());
  EXPECT_FALSE(Decompress(CompressionCodec::kDeflate, *raw + "junk").ok());
}

TEST(CompressionTest, SnappyRejectsImplausibleLength) {
  // Varint length 0xFFFFFFFF followed by one literal byte.
  const std::string bogus("\xff\xff\xff\xff\x0f\x00x", 7);
  Result<std::string> plain = Decompress(CompressionCodec::kSnappy, bogus);
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(plain.status().code(), StatusCode::kCorruption);
  EXPECT_NE(plain.status().message().find("snappy"), std::string::npos);
}

TEST(CompressionTest, CodecNames) {
  for (CompressionCodec codec : kAllCodecs) {
    if (codec == CompressionCodec::kLz4Frame) continue;  // no option names it (below)
    Result<CompressionCodec> parsed = CompressionCodecFromName(CompressionCodecName(codec));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, codec);
  }
  EXPECT_EQ(*CompressionCodecFromName("ZSTD"), CompressionCodec::kZstd);
  EXPECT_EQ(*CompressionCodecFromName("uncompressed"), CompressionCodec::kNone);
  EXPECT_EQ(*CompressionCodecFromName("LZ4"), CompressionCodec::kLz4Raw);
  Result<CompressionCodec> bad = CompressionCodecFromName("brotli");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tributary::format

namespace tributary::format {
TEST(CompressionTest, ZstdLevelsRoundTripAndAreChecked) {
  std::string text;
  for (int i = 0; i < 20000; i++)
    text += "row " + std::to_string(i % 977) + " of a repetitive text; ";
  auto fast = Compress(CompressionCodec::kZstd, text, 1);
  auto small = Compress(CompressionCodec::kZstd, text, 19);
  ASSERT_TRUE(fast.ok() && small.ok());
  EXPECT_LT(small->size(), fast->size());
  for (const std::string* c : {&*fast, &*small}) {
    auto back = Decompress(CompressionCodec::kZstd, *c, text.size());
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, text);
  }
  EXPECT_FALSE(Compress(CompressionCodec::kZstd, text, 0).ok());
  EXPECT_FALSE(Compress(CompressionCodec::kZstd, text, 99).ok());
}
}  // namespace tributary::format

namespace tributary::format {
namespace {

// Arrow's LZ4_FRAME buffers are lz4 frames; two frames one after the other read as both.
TEST(CompressionTest, Lz4FramesConcatenated) {
  const std::string a = SampleInputs()[3], b = SampleInputs()[2];
  Result<std::string> fa = Compress(CompressionCodec::kLz4Frame, a);
  Result<std::string> fb = Compress(CompressionCodec::kLz4Frame, b);
  ASSERT_TRUE(fa.ok() && fb.ok());
  EXPECT_EQ(fa->substr(0, 4), std::string("\x04\x22\x4d\x18", 4));  // the frame's magic number
  Result<std::string> plain = Decompress(CompressionCodec::kLz4Frame, *fa + *fb);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(*plain, a + b);
  EXPECT_EQ(*CompressionCodecFromName("lz4"), CompressionCodec::kLz4Raw);  // never the frame
  EXPECT_FALSE(CompressionCodecFromName("lz4_frame").ok());
}

}  // namespace
}  // namespace tributary::format
