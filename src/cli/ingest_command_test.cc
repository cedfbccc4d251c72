// End-to-end tests of `tributary ingest` through the library: a real warehouse in a temporary
// directory, events from a file, rows read back with a table scan.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "tributary/catalog.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"

namespace tributary::cli {
namespace {

using ::testing::HasSubstr;

class IngestCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tributary-ingest-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    warehouse_ = dir_ + "/warehouse";
    auto catalog = Catalog::Open(warehouse_);
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    TableSpec spec;
    spec.columns = {{0, "id", DataType::BigInt().NotNull(), ""},
                    {1, "name", DataType::String(), ""},
                    {2, "price", DataType::Decimal(10, 2), ""},
                    {3, "day", DataType::Date(), ""},
                    {4, "ts", DataType::Timestamp(3), ""}};
    spec.primary_keys = {"id"};
    spec.options = {{"bucket", "1"}, {"file.format", "avro"}};
    auto id = Identifier::Parse("default.orders", "default");
    ASSERT_TRUE(id.ok());
    ASSERT_TRUE((*catalog)->CreateTable(*id, spec, false).ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string WriteFile(const std::vector<std::string>& lines) {
    std::string path = dir_ + "/events-" + std::to_string(++files_) + ".json";
    std::ofstream out(path);
    for (const std::string& l : lines) out << l << "\n";
    return path;
  }

  // Runs `tributary ingest ARGS`, capturing stderr into *err.
  int Run(std::vector<std::string> args, std::string* err = nullptr) {
    args.insert(args.begin(), "ingest");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::testing::internal::CaptureStderr();
    int rc = RunIngestCommand(static_cast<int>(args.size()), argv.data());
    std::string captured = ::testing::internal::GetCapturedStderr();
    if (err != nullptr) *err = captured;
    return rc;
  }

  int Ingest(const std::vector<std::string>& lines, std::vector<std::string> extra = {},
             std::string* err = nullptr) {
    std::vector<std::string> args = {"--warehouse",    warehouse_, "--table",
                                     "default.orders", "--format", "debezium-json"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(WriteFile(lines));
    return Run(args, err);
  }

  // Rows of the table, each as "id|name|price", sorted.
  std::vector<std::string> Rows() {
    std::vector<std::string> out;
    auto catalog = Catalog::Open(warehouse_);
    EXPECT_TRUE(catalog.ok());
    auto table = (*catalog)->GetTable(*Identifier::Parse("default.orders", "default"));
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    if (!table.ok()) return out;
    auto scan = (*table)->NewScan(ScanOptions{});
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    if (!scan.ok()) return out;
    const auto& fields = (*scan)->output_fields();
    RowBatch batch;
    while (true) {
      auto more = (*scan)->Next(&batch);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) break;
      for (const Row& r : batch.rows) {
        std::string s;
        for (size_t i = 0; i < r.size(); ++i) {
          s += (i ? "|" : "") + FormatValue(r[i], fields[i].type);
        }
        out.push_back(s);
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  std::string dir_, warehouse_;
  int files_ = 0;
};

TEST_F(IngestCommandTest, AppliesInsertsUpdatesAndDeletes) {
  std::string err;
  int rc = Ingest(
      {R"({"before":null,"after":{"id":1,"name":"apple","price":"2.00","day":19723,"ts":1704067200123},"op":"c"})",
       R"({"payload":{"before":null,"after":{"id":2,"name":"banana","price":4,"day":"2024-01-02"},"op":"r"}})",
       "",
       R"({"before":{"id":1,"name":"apple","price":"2.00"},"after":{"id":1,"name":"cherry","price":"8.50","day":19723,"ts":1704067200123},"op":"u"})",
       R"({"before":{"id":2,"name":"banana"},"after":null,"op":"d"})", "null",
       R"({"before":null,"after":{"id":3,"name":null},"op":"c"})"},
      {}, &err);
  EXPECT_EQ(rc, 0) << err;
  EXPECT_THAT(err, HasSubstr("ingested 5 change events (6 rows)"));
  EXPECT_EQ(Rows(), (std::vector<std::string>{"1|cherry|8.50|2024-01-01|2024-01-01 00:00:00.123",
                                              "3|NULL|NULL|NULL|NULL"}));
}

TEST_F(IngestCommandTest, MalformedLineKeepsOnlyCommittedEvents) {
  std::string err;
  int rc = Ingest(
      {R"({"after":{"id":1,"name":"a"},"op":"c"})", R"({"after":{"id":2,"name":"b"},"op":"c"})",
       R"({"after":{"id":3,"name":"c"},"op":"c"})", R"({"after":{"id":4,"name":"d"},"op":"c"})",
       "{not json", R"({"after":{"id":5,"name":"e"},"op":"c"})"},
      {"--commit-every", "2"}, &err);
  EXPECT_EQ(rc, 1);
  EXPECT_THAT(err, HasSubstr("line 5: not valid JSON at column 3: syntax error while parsing "
                             "object key"));
  EXPECT_THAT(err, HasSubstr("; lines 1-4 were committed (snapshot "));
  EXPECT_THAT(err, HasSubstr("nothing after line 4 was written"));
  // Events 1-4 were committed in two commits; nothing after line 4 was written.
  EXPECT_EQ(Rows(), (std::vector<std::string>{"1|a|NULL|NULL|NULL", "2|b|NULL|NULL|NULL",
                                              "3|c|NULL|NULL|NULL", "4|d|NULL|NULL|NULL"}));
}

TEST_F(IngestCommandTest, ErrorBeforeAnyCommitWritesNothing) {
  std::string err;
  int rc = Ingest({R"({"after":{"id":1,"name":"a"},"op":"c"})",
                   R"({"after":{"id":2,"colour":"red"},"op":"c"})"},
                  {"--strict"}, &err);
  EXPECT_EQ(rc, 1);
  EXPECT_THAT(err, HasSubstr("line 2: unknown column 'colour'"));
  EXPECT_THAT(err, HasSubstr("nothing was committed"));
  EXPECT_TRUE(Rows().empty());
}

TEST_F(IngestCommandTest, MalformedLinesCanBeSkippedAndCounted) {
  std::string err;
  int rc =
      Ingest({R"({"after":{"id":1,"name":"a"},"op":"c"})", "{not json",
              R"({"after":{"id":"two"},"op":"c"})", R"({"after":{"id":3,"name":"c"},"op":"c"})"},
             {"--ignore-parse-errors"}, &err);
  EXPECT_EQ(rc, 0) << err;
  EXPECT_THAT(err, HasSubstr("ingested 2 change events"));
  EXPECT_THAT(
      err,
      HasSubstr("skipped 2 malformed line(s) (the first: line 2: not valid JSON at column 3: "));
  EXPECT_EQ(Rows(), (std::vector<std::string>{"1|a|NULL|NULL|NULL", "3|c|NULL|NULL|NULL"}));
}

TEST_F(IngestCommandTest, UsageErrors) {
  std::string err;
  EXPECT_EQ(Run({"--warehouse", warehouse_, "--format", "debezium-json"}, &err), 1);
  EXPECT_THAT(err, HasSubstr("--table is required"));
  EXPECT_EQ(Run({"--warehouse", warehouse_, "--table", "orders", "--format", "canal-json"}, &err),
            1);
  EXPECT_THAT(err, HasSubstr("unsupported format 'canal-json'"));
  EXPECT_EQ(Run({"--warehouse", warehouse_, "--table", "orders", "--format", "debezium-json",
                 "--commit-every", "0"},
                &err),
            1);
  EXPECT_THAT(err, HasSubstr("--commit-every needs a positive number"));
  EXPECT_EQ(Run({"--warehouse", warehouse_, "--table", "default.nope", "--format", "debezium-json",
                 WriteFile({})},
                &err),
            1);
  EXPECT_THAT(err, HasSubstr("nope"));
  EXPECT_EQ(Run({"--warehouse", warehouse_, "--table", "orders", "--format", "debezium-json",
                 dir_ + "/missing.json"},
                &err),
            1);
  EXPECT_THAT(err, HasSubstr("cannot open"));
  EXPECT_EQ(Run({"--help"}, &err), 0);
}

}  // namespace
}  // namespace tributary::cli
