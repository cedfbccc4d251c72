#include "datafile/file_format.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "io/file_system.h"

namespace tributary::datafile {
namespace {

TEST(FileFormat, FoundByNameAndByFileName) {
  ASSERT_NE(FindFileFormat("parquet"), nullptr);
  EXPECT_EQ(FindFileFormat("parquet")->extension(), ".parquet");
  EXPECT_EQ(FindFileFormat("avro")->extension(), ".avro");
  EXPECT_EQ(FindFileFormat("orc"), nullptr);
  EXPECT_EQ(FileFormatOfPath("/t/bucket-0/data-x-0.avro")->name(), "avro");
  EXPECT_EQ(FileFormatOfPath("/t/bucket-0/data-x-0.blob")->name(), "blob");
  EXPECT_EQ(FileFormatOfPath("/t/bucket-0/data-x-0.orc"), nullptr);
  EXPECT_EQ(FileFormatOfPath(".parquet"), nullptr);  // a name that is only an extension
  EXPECT_TRUE(FindFileFormat("parquet")->WritesColumns());
  EXPECT_FALSE(FindFileFormat("avro")->WritesColumns());
  // Blob files are read, never written.
  auto w = FindFileFormat("blob")->NewWriter({}, options::FileFormatOptions{});
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().ToString().find("cannot be written"), std::string::npos);
}

// A primary-key data file written in each format reads back record for record (keys, sequence
// numbers, row kinds, NULLs).
TEST(FileFormat, EachWritableFormatRoundTripsKeyValueFiles) {
  const std::string dir = "/tmp/tributary_file_format_test_" + std::to_string(getpid());
  (void)io::LocalFs().RemoveAll(dir);
  ASSERT_TRUE(io::LocalFs().MakeDirs(dir).ok());
  FileLayout layout;
  layout.fields = {{0, "id", DataType::BigInt().NotNull(), ""},
                   {1, "v", DataType::String(), ""},
                   {2, "x", DataType::Double(), ""}};
  layout.primary_key = true;
  layout.key_columns = {0};
  std::vector<merge::KeyValue> records;
  for (int i = 0; i < 3; i++) {
    merge::KeyValue kv;
    kv.sequence = 10 + i;
    kv.kind = i == 1 ? RowKind::kDelete : RowKind::kInsert;
    kv.value = {Value::Int(i), i == 2 ? Value::Null() : Value::String("v" + std::to_string(i)),
                Value::Double(i * 1.5)};
    records.push_back(kv);
  }
  for (const char* name : {"parquet", "avro"}) {
    SCOPED_TRACE(name);
    options::FileFormatOptions o;
    o.format = name;
    meta::FileNamer namer("data-", "");
    DataFileWriter w(layout, dir, &namer, 1 << 20, 0, meta::FileSource::kAppend, o);
    for (const auto& kv : records) ASSERT_TRUE(w.Write(kv).ok());
    auto files = w.Finish();
    ASSERT_TRUE(files.ok()) << files.status().ToString();
    ASSERT_EQ(files->size(), 1u);
    const auto& meta = (*files)[0];
    EXPECT_NE(meta.file_name.find(std::string(".") + name), std::string::npos) << meta.file_name;
    auto back = ReadDataFile({io::JoinPath(dir, meta.file_name), meta.row_count}, layout, 0);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ASSERT_EQ(back->size(), records.size());
    for (size_t i = 0; i < records.size(); i++) {
      EXPECT_EQ((*back)[i].sequence, records[i].sequence);
      EXPECT_EQ((*back)[i].kind, records[i].kind);
      EXPECT_EQ((*back)[i].value, records[i].value);
    }
  }
  (void)io::LocalFs().RemoveAll(dir);
}

}  // namespace
}  // namespace tributary::datafile
