// Parquet encodings: known vectors from the format spec and randomized round trips.
#include "format/parquet/encodings.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>

namespace tributary::format::parquet {
namespace {

std::vector<uint32_t> DecodeRle(const std::string& data, int bw, int64_t n) {
  RleBitPackedDecoder dec(data, bw);
  std::vector<uint32_t> out;
  Status st = dec.Get(n, &out);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

TEST(ParquetEncodingTest, RleSpecExample) {
  // The spec's bit-packing example: 0..7 with bit width 3, one group.
  std::string packed("\x03\x88\xc6\xfa", 4);
  EXPECT_EQ(DecodeRle(packed, 3, 8), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(EncodeRleBitPacked({0, 1, 2, 3, 4, 5, 6, 7}, 3), packed);
  // An RLE run: 100 copies of 5 with width 3 -> header 200, one value byte.
  EXPECT_EQ(EncodeRleBitPacked(std::vector<uint32_t>(100, 5), 3), std::string("\xc8\x01\x05", 3));
}

TEST(ParquetEncodingTest, RleRoundTripsRandom) {
  std::mt19937_64 rng(1);
  for (int bw : {0, 1, 2, 3, 7, 8, 9, 16, 20, 31, 32}) {
    for (int trial = 0; trial < 20; ++trial) {
      size_t n = rng() % 2000;
      std::vector<uint32_t> v(n);
      uint64_t mask = bw == 32 ? 0xffffffffull : ((1ull << bw) - 1);
      for (size_t i = 0; i < n;) {
        size_t run = rng() % 3 == 0 ? rng() % 40 + 1 : 1;
        uint32_t x = static_cast<uint32_t>(rng() & mask);
        for (size_t k = 0; k < run && i < n; ++k) v[i++] = x;
      }
      std::string enc = EncodeRleBitPacked(v, bw);
      EXPECT_EQ(DecodeRle(enc, bw, static_cast<int64_t>(n)), v) << "bw " << bw;
    }
  }
}

TEST(ParquetEncodingTest, RleTruncatedIsError) {
  std::string enc = EncodeRleBitPacked({1, 2, 3, 1, 2, 3, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}, 2);
  for (size_t n = 0; n < enc.size(); ++n) {
    RleBitPackedDecoder dec(std::string_view(enc).substr(0, n), 2);
    std::vector<uint32_t> out;
    EXPECT_FALSE(dec.Get(18, &out).ok()) << n;
  }
  RleBitPackedDecoder bad(enc, 40);
  std::vector<uint32_t> out;
  EXPECT_FALSE(bad.Get(1, &out).ok());
}

TEST(ParquetEncodingTest, DeltaBinaryPackedRoundTrips) {
  std::mt19937_64 rng(2);
  std::vector<std::vector<int64_t>> cases = {
      {},
      {7},
      {1, 2, 3, 4, 5},
      {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), 0, -1},
  };
  for (int t = 0; t < 30; ++t) {
    std::vector<int64_t> v(rng() % 1000);
    for (auto& x : v) x = static_cast<int64_t>(rng()) >> (rng() % 64);
    cases.push_back(v);
  }
  for (const auto& v : cases) {
    std::string enc = EncodeDeltaBinaryPacked(v, false);
    std::vector<int64_t> out;
    size_t consumed = 0;
    ASSERT_TRUE(DecodeDeltaBinaryPacked(enc + "tail", static_cast<int64_t>(v.size()), false, &out,
                                        &consumed)
                    .ok());
    EXPECT_EQ(out, v);
    EXPECT_EQ(consumed, enc.size());
    // INT32 columns: deltas wrap in 32 bits.
    std::vector<int64_t> v32;
    for (int64_t x : v) v32.push_back(static_cast<int32_t>(x));
    std::string enc32 = EncodeDeltaBinaryPacked(v32, true);
    std::vector<int64_t> out32;
    ASSERT_TRUE(
        DecodeDeltaBinaryPacked(enc32, static_cast<int64_t>(v.size()), true, &out32, &consumed)
            .ok());
    EXPECT_EQ(out32, v32);
  }
}

TEST(ParquetEncodingTest, DeltaBinaryPackedDamagedIsError) {
  std::vector<int64_t> v;
  for (int i = 0; i < 300; ++i) v.push_back(i * i);
  std::string enc = EncodeDeltaBinaryPacked(v, false);
  std::vector<int64_t> out;
  size_t consumed;
  EXPECT_FALSE(DecodeDeltaBinaryPacked(enc, 10, false, &out, &consumed).ok());  // too many
  for (size_t n = 0; n < enc.size(); ++n) {
    out.clear();
    EXPECT_FALSE(
        DecodeDeltaBinaryPacked(std::string_view(enc).substr(0, n), 300, false, &out, &consumed)
            .ok())
        << n;
  }
}

TEST(ParquetEncodingTest, ByteArrayEncodingsRoundTrip) {
  const StringVector v(std::vector<std::string>{"", "apple", "applesauce", "apply", "b",
                                                std::string(300, 'z'), std::string("\0\xff", 2),
                                                "apple"});
  StringVector out;
  ASSERT_TRUE(DecodeDeltaLengthByteArray(EncodeDeltaLengthByteArray(v),
                                         static_cast<int64_t>(v.size()), &out)
                  .ok());
  EXPECT_EQ(out, v);
  out.clear();
  ASSERT_TRUE(
      DecodeDeltaByteArray(EncodeDeltaByteArray(v), static_cast<int64_t>(v.size()), &out).ok());
  EXPECT_EQ(out, v);
  std::string enc = EncodeDeltaByteArray(v);
  for (size_t n = 0; n < enc.size(); ++n) {
    out.clear();
    EXPECT_FALSE(DecodeDeltaByteArray(std::string_view(enc).substr(0, n),
                                      static_cast<int64_t>(v.size()), &out)
                     .ok())
        << n;
  }
}

TEST(ParquetEncodingTest, PlainAndByteStreamSplitRoundTrip) {
  PhysicalValues d;
  d.doubles = {1.5, -0.0, 1e300, -3.25};
  PhysicalValues f;
  f.doubles = {1.5f, -2.0f, 3.0f};
  PhysicalValues i32;
  i32.ints = {0, -1, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min()};
  PhysicalValues i64;
  i64.ints = {0, -1, std::numeric_limits<int64_t>::max()};
  PhysicalValues fixed;
  fixed.bytes = {"abc", "def", "\x01\x02\x03"};
  struct Case {
    PhysicalType type;
    int32_t len;
    const PhysicalValues* v;
  };
  for (const Case& c : {Case{PhysicalType::kDouble, 0, &d}, Case{PhysicalType::kFloat, 0, &f},
                        Case{PhysicalType::kInt32, 0, &i32}, Case{PhysicalType::kInt64, 0, &i64},
                        Case{PhysicalType::kFixedLenByteArray, 3, &fixed}}) {
    std::string plain;
    EncodePlain(*c.v, c.type, &plain);
    PhysicalValues back;
    size_t consumed = 0;
    ASSERT_TRUE(
        DecodePlain(plain, c.type, c.len, static_cast<int64_t>(c.v->size()), &back, &consumed)
            .ok());
    EXPECT_EQ(back.ints, c.v->ints);
    EXPECT_EQ(back.doubles, c.v->doubles);
    EXPECT_EQ(back.bytes, c.v->bytes);
    EXPECT_EQ(consumed, plain.size());
    PhysicalValues split;
    ASSERT_TRUE(DecodeByteStreamSplit(EncodeByteStreamSplit(*c.v, c.type, c.len), c.type, c.len,
                                      static_cast<int64_t>(c.v->size()), &split)
                    .ok());
    EXPECT_EQ(split.ints, c.v->ints);
    EXPECT_EQ(split.doubles, c.v->doubles);
    EXPECT_EQ(split.bytes, c.v->bytes);
  }
  // BYTE_STREAM_SPLIT of floats: byte k of every value is stored together.
  PhysicalValues two;
  two.doubles = {1.0f, 2.0f};  // 0x3f800000, 0x40000000
  EXPECT_EQ(EncodeByteStreamSplit(two, PhysicalType::kFloat, 0),
            std::string("\x00\x00\x00\x00\x80\x00\x3f\x40", 8));
}

TEST(ParquetEncodingTest, PlainBooleansAndByteArrays) {
  PhysicalValues b;
  b.ints = {1, 0, 1, 1, 0, 0, 0, 0, 1};
  std::string enc;
  EncodePlain(b, PhysicalType::kBoolean, &enc);
  EXPECT_EQ(enc, std::string("\x0d\x01", 2));
  PhysicalValues back;
  ASSERT_TRUE(DecodePlain(enc, PhysicalType::kBoolean, 0, 9, &back).ok());
  EXPECT_EQ(back.ints, b.ints);

  PhysicalValues s;
  s.bytes = {"hi", ""};
  enc.clear();
  EncodePlain(s, PhysicalType::kByteArray, &enc);
  EXPECT_EQ(enc, std::string("\x02\x00\x00\x00hi\x00\x00\x00\x00", 10));
  PhysicalValues sb;
  EXPECT_FALSE(DecodePlain(enc, PhysicalType::kByteArray, 0, 3, &sb).ok());
  // A length pointing past the end.
  PhysicalValues bad;
  EXPECT_FALSE(
      DecodePlain(std::string("\xff\xff\xff\x7f", 4), PhysicalType::kByteArray, 0, 1, &bad).ok());
}

TEST(ParquetEncodingTest, RleBooleansRoundTrip) {
  std::vector<int64_t> v;
  for (int i = 0; i < 1000; ++i) v.push_back((i / 7) % 2);
  std::vector<int64_t> out;
  ASSERT_TRUE(DecodeRleBooleans(EncodeRleBooleans(v), 1000, &out).ok());
  EXPECT_EQ(out, v);
}

}  // namespace
}  // namespace tributary::format::parquet
