// Damaged and truncated Parquet files give an error, never a crash or a runaway allocation.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "format/parquet/parquet_test_util.h"
#include "format/parquet/reader.h"
#include "format/parquet/writer.h"

namespace tributary::format::parquet {
namespace {

// Opens and reads everything; returns the first error (OK if the file read).
Status ReadAll(std::string bytes) {
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<ParquetReader> r, ParquetReader::Open(std::move(bytes)));
  std::vector<int> flat;
  for (size_t c = 0; c < r->schema().columns().size(); ++c) {
    if (r->schema().columns()[c].type) flat.push_back(static_cast<int>(c));
  }
  for (int g = 0; g < r->num_row_groups(); ++g) {
    r->RowGroupStatistics(g);
    if (!flat.empty()) TRIB_RETURN_NOT_OK(r->ReadRowGroupColumns(g, flat).status());
    for (size_t leaf = 0; leaf < r->schema().leaves().size(); ++leaf) {
      TRIB_RETURN_NOT_OK(r->ReadLeafChunk(g, static_cast<int>(leaf)).status());
      TRIB_RETURN_NOT_OK(r->ReadPageIndex(g, static_cast<int>(leaf)).status());
    }
    for (size_t c = 0; c < r->schema().columns().size(); ++c) {
      TRIB_RETURN_NOT_OK(r->PageStatistics(g, static_cast<int>(c)).status());
    }
  }
  return Status::OK();
}

std::string SmallFile(int version, CompressionCodec codec, ValueEncoding encoding) {
  std::vector<Field> schema = testing::AllTypesSchema();
  ParquetWriterOptions o;
  o.data_page_version = version;
  o.compression = codec;
  o.value_encoding = encoding;
  o.page_row_limit = 7;
  o.row_group_size = 2048;
  auto w = ParquetWriter::Make(schema, o);
  EXPECT_TRUE(w.ok());
  for (const Row& row : testing::RandomRows(schema, 30, 3, 4)) EXPECT_TRUE((*w)->Append(row).ok());
  return *(*w)->Finish();
}

// Every value and statistic a reader can get from a file, printed: equal digests mean a read
// returned exactly the same thing.
Result<std::string> Digest(const std::string& bytes) {
  TRIB_RETURN_NOT_OK(ReadAll(bytes));
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<ParquetReader> r, ParquetReader::Open(bytes));
  std::string out;
  auto add = [&](const std::optional<Value>& v) {
    out += v ? DebugString(*v) : "-";
    out += ';';
  };
  TRIB_ASSIGN_OR_RETURN(std::vector<Row> rows, r->ReadRows());
  for (const Row& row : rows) {
    for (const Value& v : row) out += DebugString(v) + ",";
    out += "\n";
  }
  for (int g = 0; g < r->num_row_groups(); ++g) {
    for (const ColumnStats& c : r->RowGroupStatistics(g).columns) {
      add(c.min);
      add(c.max);
    }
    for (size_t c = 0; c < r->schema().columns().size(); ++c) {
      TRIB_ASSIGN_OR_RETURN(auto pages, r->PageStatistics(g, static_cast<int>(c)));
      for (const ColumnStats& p : pages) {
        add(p.min);
        add(p.max);
        out += std::to_string(p.num_values) + ";";
      }
    }
  }
  return out;
}

// Page checksums and the metadata checksum: no single flipped byte of a file we wrote changes
// what a reader gets from it without an error (rows, row-group and page statistics).
TEST(ParquetCorruptionTest, NoByteFlipGoesUnnoticed) {
  for (int version : {1, 2}) {
    std::string file = SmallFile(version, CompressionCodec::kNone, ValueEncoding::kPlain);
    auto good = Digest(file);
    ASSERT_TRUE(good.ok()) << good.status().ToString();
    int errors = 0;
    for (size_t i = 0; i < file.size(); ++i) {
      std::string bad = file;
      bad[i] = static_cast<char>(static_cast<uint8_t>(bad[i]) ^ 0xff);
      auto got = Digest(bad);
      if (!got.ok()) {
        errors++;
        EXPECT_NE(got.status().code(), StatusCode::kOk) << i;
        continue;
      }
      ASSERT_EQ(*got, *good) << "byte " << i << " of " << file.size() << " flipped, v" << version;
    }
    EXPECT_GT(errors, static_cast<int>(file.size()) * 9 / 10);
  }
}

TEST(ParquetCorruptionTest, NotParquet) {
  for (std::string bytes : {std::string(), std::string("PAR1"), std::string("PAR1PAR1PAR1"),
                            std::string("hello world, this is not parquet")}) {
    EXPECT_FALSE(ParquetReader::Open(bytes).ok());
  }
  std::string enc = "PAR1" + std::string(20, '\0') + "PARE";
  EXPECT_EQ(ParquetReader::Open(enc).status().code(), StatusCode::kNotSupported);
  // A footer length larger than the file.
  std::string big = "PAR1" + std::string(8, 'x') + "\xff\xff\xff\x7fPAR1";
  EXPECT_EQ(ParquetReader::Open(big).status().code(), StatusCode::kCorruption);
}

TEST(ParquetCorruptionTest, EveryTruncationIsAnError) {
  std::string file = SmallFile(1, CompressionCodec::kSnappy, ValueEncoding::kPlain);
  ASSERT_TRUE(ReadAll(file).ok());
  for (size_t n = 0; n < file.size(); ++n) {
    EXPECT_FALSE(ReadAll(file.substr(0, n)).ok()) << n;
  }
  // Cutting bytes out of the middle keeps the footer but moves every page.
  for (size_t n = 4; n + 16 < file.size(); n += 13) {
    std::string cut = file.substr(0, n) + file.substr(n + 16);
    (void)ReadAll(cut);  // must not crash; may read if only unused bytes went missing
  }
}

TEST(ParquetCorruptionTest, ByteFlipsNeverCrash) {
  struct Variant {
    int version;
    CompressionCodec codec;
    ValueEncoding encoding;
  };
  for (const Variant& v : {Variant{1, CompressionCodec::kNone, ValueEncoding::kPlain},
                           Variant{2, CompressionCodec::kNone, ValueEncoding::kDelta},
                           Variant{2, CompressionCodec::kNone, ValueEncoding::kByteStreamSplit},
                           Variant{1, CompressionCodec::kZstd, ValueEncoding::kDeltaLength}}) {
    std::string file = SmallFile(v.version, v.codec, v.encoding);
    ASSERT_TRUE(ReadAll(file).ok());
    // Every byte of the footer, a sample of the pages; each gets one of three flips.
    int errors = 0;
    size_t footer_start = file.size() - 8 - 1024;
    for (size_t i = 0; i < file.size(); i += (i >= footer_start ? 1 : 17)) {
      const uint8_t flips[] = {0x01, 0x80, 0xff};
      std::string bad = file;
      bad[i] = static_cast<char>(static_cast<uint8_t>(bad[i]) ^ flips[i % 3]);
      errors += !ReadAll(std::move(bad)).ok();
    }
    EXPECT_GT(errors, 0);
  }
}

TEST(ParquetCorruptionTest, RandomGarbageInGoldenFile) {
  namespace fs = std::filesystem;
  fs::path path = fs::path(TRIBUTARY_GOLDEN_DIR) / "parquet" /
                  "append_complex_build_in_fieldid.db" / "append_complex_build_in_fieldid" /
                  "bucket-0";
  std::string file;
  for (const auto& e : fs::directory_iterator(path)) {
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    file = ss.str();
  }
  ASSERT_TRUE(ReadAll(file).ok());
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string bad = file;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) bad[rng() % bad.size()] = static_cast<char>(rng());
    (void)ReadAll(std::move(bad));
  }
}

}  // namespace
}  // namespace tributary::format::parquet
