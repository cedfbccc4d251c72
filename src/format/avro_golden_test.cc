// Reads the Avro files that Java Paimon wrote (manifest lists, manifests, index manifests,
// Avro data files) from the golden warehouse, /work/shared/golden (see its README.md).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <tuple>

#include "format/avro.h"
#include "format/avro_test_util.h"
#include "format/golden_test_util.h"

namespace tributary::avro {
namespace {

namespace fs = std::filesystem;

using tributary::testing::kGolden;
std::string ReadFile(const fs::path& path) { return tributary::testing::ReadGoldenFile(path); }

bool IsAvroFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in.gcount() == 4 && std::string_view(magic, 4) == std::string_view("Obj\x01", 4);
}

struct DecodedFile {
  SchemaPtr schema;
  Codec codec = Codec::kNull;
  std::vector<Datum> records;
};

// Opens and fully decodes an Avro file; fails the test (and returns nothing) on any error.
std::optional<DecodedFile> DecodeFile(const fs::path& path) {
  Result<std::unique_ptr<FileReader>> reader = FileReader::Open(ReadFile(path));
  EXPECT_TRUE(reader.ok()) << path << ": " << reader.status().ToString();
  if (!reader.ok()) return std::nullopt;
  Result<std::vector<Datum>> records = (*reader)->ReadAll();
  EXPECT_TRUE(records.ok()) << path << ": " << records.status().ToString();
  if (!records.ok()) return std::nullopt;
  return DecodedFile{(*reader)->schema(), (*reader)->codec(), std::move(records).value()};
}

// A record datum viewed through its schema; nullable unions are looked through.
class Rec {
 public:
  Rec(const Schema& schema, const Datum& datum) : schema_(&schema), datum_(&datum) { Unwrap(); }
  bool is_null() const { return datum_->is_null(); }
  bool has(std::string_view name) const { return schema_->FieldIndex(name) >= 0; }
  Rec operator[](std::string_view name) const {
    const int i = schema_->FieldIndex(name);
    EXPECT_GE(i, 0) << "no field " << name;
    if (i < 0) return *this;
    return Rec(*schema_->fields[i].schema, datum_->as_list()[i]);
  }
  const Schema& schema() const { return *schema_; }
  const Datum& datum() const { return *datum_; }
  int32_t i32() const { return datum_->as_int(); }
  int64_t i64() const { return datum_->as_long(); }
  const std::string& str() const { return datum_->as_string(); }
  std::vector<std::string> field_names() const {
    std::vector<std::string> names;
    for (const SchemaField& f : schema_->fields) names.push_back(f.name);
    return names;
  }

 private:
  void Unwrap() {
    if (schema_->type == Type::kUnion && datum_->union_branch >= 0) {
      schema_ = schema_->branches[datum_->union_branch].get();
    }
  }
  const Schema* schema_;
  const Datum* datum_;
};

// ---- loose files under avro/ ----

TEST(AvroGoldenTest, Manifest11) {
  auto file = DecodeFile(kGolden / "avro/manifest/avro_manifest_11");
  ASSERT_TRUE(file);
  EXPECT_EQ(file->codec, Codec::kZstandard);
  ASSERT_EQ(file->records.size(), 1u);
  Rec e(*file->schema, file->records[0]);
  EXPECT_EQ(e.field_names(), (std::vector<std::string>{"_VERSION", "_KIND", "_PARTITION", "_BUCKET",
                                                       "_TOTAL_BUCKETS", "_FILE"}));
  EXPECT_EQ(e["_VERSION"].i32(), 2);
  EXPECT_EQ(e["_KIND"].i32(), 0);
  EXPECT_EQ(e["_PARTITION"].str(), std::string(12, '\0'));  // empty BinaryRow
  EXPECT_EQ(e["_BUCKET"].i32(), 0);
  EXPECT_EQ(e["_TOTAL_BUCKETS"].i32(), -1);
  Rec f = e["_FILE"];
  EXPECT_EQ(f.schema().name, "org.apache.paimon.avro.generated.record__FILE");
  EXPECT_EQ(f.field_names(),
            (std::vector<std::string>{
                "_FILE_NAME", "_FILE_SIZE", "_ROW_COUNT", "_MIN_KEY", "_MAX_KEY", "_KEY_STATS",
                "_VALUE_STATS", "_MIN_SEQUENCE_NUMBER", "_MAX_SEQUENCE_NUMBER", "_SCHEMA_ID",
                "_LEVEL", "_EXTRA_FILES", "_CREATION_TIME", "_DELETE_ROW_COUNT",
                "_EMBEDDED_FILE_INDEX", "_FILE_SOURCE", "_VALUE_STATS_COLS", "_EXTERNAL_PATH"}));
  EXPECT_EQ(f["_FILE_NAME"].str(), "data-0ff223ba-0d95-4c43-a25f-bcee3c051e58-0.avro");
  EXPECT_EQ(f["_FILE_SIZE"].i64(), 1615);
  EXPECT_EQ(f["_ROW_COUNT"].i64(), 3);
  EXPECT_EQ(f["_MIN_SEQUENCE_NUMBER"].i64(), 0);
  EXPECT_EQ(f["_MAX_SEQUENCE_NUMBER"].i64(), 2);
  EXPECT_EQ(f["_SCHEMA_ID"].i64(), 0);
  EXPECT_EQ(f["_LEVEL"].i32(), 0);
  EXPECT_TRUE(f["_EXTRA_FILES"].datum().as_list().empty());
  EXPECT_EQ(f["_CREATION_TIME"].schema().logical_type, "timestamp-millis");
  EXPECT_EQ(f["_CREATION_TIME"].i64(), 1754048761150);
  EXPECT_EQ(f["_DELETE_ROW_COUNT"].i64(), 0);
  EXPECT_TRUE(f["_EMBEDDED_FILE_INDEX"].is_null());
  EXPECT_EQ(f["_FILE_SOURCE"].i32(), 0);
  EXPECT_TRUE(f["_VALUE_STATS_COLS"].is_null());
  EXPECT_TRUE(f["_EXTERNAL_PATH"].is_null());
  // Value stats of the 16 columns: null counts, nullable longs.
  std::vector<int64_t> null_counts;
  for (const Datum& d : f["_VALUE_STATS"]["_NULL_COUNTS"].datum().as_list()) {
    null_counts.push_back(d.as_long());
  }
  EXPECT_EQ(null_counts, (std::vector<int64_t>{1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 2}));
}

// Paimon 0.9 wrapped the record, and _FILE, in ["null", record].
TEST(AvroGoldenTest, Manifest09WrappedInUnions) {
  auto file = DecodeFile(kGolden / "avro/manifest/avro_manifest_09");
  ASSERT_TRUE(file);
  EXPECT_TRUE(file->schema->IsNullableUnion());
  ASSERT_EQ(file->records.size(), 1u);
  EXPECT_EQ(file->records[0].union_branch, 1);
  Rec e(*file->schema, file->records[0]);
  EXPECT_EQ(e["_VERSION"].i32(), 2);
  EXPECT_EQ(e["_TOTAL_BUCKETS"].i32(), -1);
  Rec f = e["_FILE"];
  EXPECT_FALSE(f.is_null());
  EXPECT_EQ(f["_FILE_NAME"].str(), "data-dd28db13-0f8f-43a5-a0df-684e7dc93c55-0.avro");
  EXPECT_EQ(f["_FILE_SIZE"].i64(), 1625);
  EXPECT_EQ(f["_ROW_COUNT"].i64(), 3);
  EXPECT_EQ(f["_MAX_SEQUENCE_NUMBER"].i64(), 2);
  EXPECT_EQ(f["_CREATION_TIME"].i64(), 1754496160777);
  EXPECT_FALSE(f.has("_VALUE_STATS_COLS"));
  EXPECT_FALSE(f.has("_EXTERNAL_PATH"));
}

TEST(AvroGoldenTest, ManifestLists) {
  auto v11 = DecodeFile(kGolden / "avro/manifest/avro_manifest_list_11");
  auto v09 = DecodeFile(kGolden / "avro/manifest/avro_manifest_list_09");
  ASSERT_TRUE(v11 && v09);
  ASSERT_EQ(v11->records.size(), 1u);
  ASSERT_EQ(v09->records.size(), 1u);
  Rec a(*v11->schema, v11->records[0]);
  EXPECT_EQ(a.field_names(),
            (std::vector<std::string>{"_VERSION", "_FILE_NAME", "_FILE_SIZE", "_NUM_ADDED_FILES",
                                      "_NUM_DELETED_FILES", "_PARTITION_STATS", "_SCHEMA_ID",
                                      "_MIN_BUCKET", "_MAX_BUCKET", "_MIN_LEVEL", "_MAX_LEVEL"}));
  EXPECT_EQ(a["_VERSION"].i32(), 2);
  EXPECT_EQ(a["_FILE_NAME"].str(), "manifest-3c977409-ebff-4d68-8265-86d237e24e9a-0");
  EXPECT_EQ(a["_FILE_SIZE"].i64(), 2081);
  EXPECT_EQ(a["_NUM_ADDED_FILES"].i64(), 1);
  EXPECT_EQ(a["_NUM_DELETED_FILES"].i64(), 0);
  EXPECT_EQ(a["_MIN_BUCKET"].i32(), 0);
  EXPECT_EQ(a["_MAX_LEVEL"].i32(), 0);
  Rec b(*v09->schema, v09->records[0]);
  EXPECT_EQ(b["_FILE_NAME"].str(), "manifest-b09d5588-5614-46e2-b441-f196d29e60dc-0");
  EXPECT_EQ(b["_FILE_SIZE"].i64(), 2010);
  EXPECT_FALSE(b.has("_MIN_BUCKET"));
}

// The production-sized manifest: 30 ADD entries, 5 for each of buckets 0-5, files of 0.39-1.2 GB.
TEST(AvroGoldenTest, ProductionManifest) {
  auto file = DecodeFile(kGolden / "avro/manifest/manifest");
  ASSERT_TRUE(file);
  ASSERT_EQ(file->records.size(), 30u);
  std::map<int32_t, int> per_bucket;
  for (const Datum& d : file->records) {
    Rec e(*file->schema, d);
    EXPECT_EQ(e["_KIND"].i32(), 0);
    EXPECT_EQ(e["_TOTAL_BUCKETS"].i32(), 6);
    ++per_bucket[e["_BUCKET"].i32()];
    EXPECT_GT(e["_FILE"]["_FILE_SIZE"].i64(), 380'000'000);
  }
  EXPECT_EQ(per_bucket, (std::map<int32_t, int>{{0, 5}, {1, 5}, {2, 5}, {3, 5}, {4, 5}, {5, 5}}));
  Rec first(*file->schema, file->records[0]);
  EXPECT_EQ(first["_FILE"]["_FILE_NAME"].str(),
            "data-34e63285-bacc-4039-ad66-3a81d961973e-0.aliorc");
  EXPECT_EQ(first["_FILE"]["_ROW_COUNT"].i64(), 3450000);
  EXPECT_EQ(first["_FILE"]["_FILE_SIZE"].i64(), 1203727610);
}

// A Paimon Avro data file with every primitive type, an array, a nested row and logical types.
TEST(AvroGoldenTest, AllTypesDataFile) {
  auto file = DecodeFile(kGolden / "avro/data/avro_all_types");
  ASSERT_TRUE(file);
  ASSERT_EQ(file->records.size(), 3u);
  Rec r0(*file->schema, file->records[0]);
  EXPECT_TRUE(r0["f0"].datum().as_bool());
  EXPECT_EQ(r0["f1"].i32(), 127);
  EXPECT_EQ(r0["f2"].i32(), 32767);
  EXPECT_EQ(r0["f3"].i32(), 2147483647);
  EXPECT_EQ(r0["f4"].i64(), 9999999999999);
  EXPECT_EQ(r0["f5"].datum().as_float(), 1234.56f);
  EXPECT_EQ(r0["f6"].datum().as_double(), 1234567890.0987654321);
  EXPECT_EQ(r0["f7"].str(), "aa");
  EXPECT_EQ(r0["f8"].str(), "qq");
  const DatumList& f10 = r0["f10"].datum().as_list();
  ASSERT_EQ(f10.size(), 2u);
  EXPECT_EQ(f10[0].as_float(), 0.1f);
  EXPECT_EQ(f10[1].as_float(), 0.2f);
  EXPECT_TRUE(r0["f11"]["f0"].datum().as_bool());
  EXPECT_TRUE(r0["f11"]["f1"].is_null());
  EXPECT_EQ(r0["f12"].schema().logical_type, "timestamp-micros");
  EXPECT_EQ(r0["f12"].i64(), 123123123);  // 1970-01-01 00:02:03.123123
  EXPECT_EQ(r0["f13"].schema().logical_type, "date");
  EXPECT_EQ(r0["f13"].i32(), 2456);  // 1976-09-22
  EXPECT_EQ(r0["f14"].schema().precision, 2);
  EXPECT_EQ(r0["f14"].str(), "\x16");              // unscaled 22 -> 0.22
  EXPECT_EQ(r0["f15"].str(), "\x49\x96\x02\xd2");  // 1234567890 -> 0.1234567890
  EXPECT_EQ(r0["f16"].schema().scale, 19);
  Rec r1(*file->schema, file->records[1]);
  EXPECT_EQ(r1["f1"].i32(), -128);
  EXPECT_TRUE(r1["f7"].is_null());
  EXPECT_EQ(r1["f10"].datum().as_list().size(), 5u);
  EXPECT_TRUE(r1["f10"].datum().as_list()[2].is_null());
  EXPECT_EQ(r1["f11"]["f1"].i64(), 2);
  EXPECT_EQ(r1["f12"].i64(), 999999999);
  EXPECT_EQ(r1["f14"].str(), "\xea");  // -22
  Rec r2(*file->schema, file->records[2]);
  for (const std::string& name : r2.field_names()) EXPECT_TRUE(r2[name].is_null()) << name;
}

TEST(AvroGoldenTest, PrimaryKeyDataFile) {
  auto file = DecodeFile(kGolden / "avro/data/avro_with_null");
  ASSERT_TRUE(file);
  ASSERT_EQ(file->records.size(), 3u);
  const char* kKeys[] = {"Alex", "Bob", "Evan"};
  const int64_t kSeq[] = {2, 3, 1};
  const int32_t kKind[] = {3, 3, 0};
  for (size_t i = 0; i < 3; ++i) {
    Rec r(*file->schema, file->records[i]);
    EXPECT_EQ(r["_KEY_f0"].str(), kKeys[i]);
    EXPECT_EQ(r["_SEQUENCE_NUMBER"].i64(), kSeq[i]);
    EXPECT_EQ(r["_VALUE_KIND"].i32(), kKind[i]);
    EXPECT_EQ(r["f1"].str(), "20250326");
  }
  EXPECT_TRUE(Rec(*file->schema, file->records[2])["f2"].is_null());
  EXPECT_EQ(Rec(*file->schema, file->records[1])["f3"].datum().as_double(), 11.1);
}

// ---- tables: snapshot -> manifest list -> manifest -> files ----

fs::path TableDir(const std::string& warehouse, const std::string& table) {
  return kGolden / warehouse / (table + ".db") / table;
}

std::string SnapshotField(const fs::path& snapshot, const char* key) {
  nlohmann::json j = nlohmann::json::parse(ReadFile(snapshot), nullptr, false);
  if (j.is_discarded() || !j.contains(key) || !j[key].is_string()) return "";
  return j[key].get<std::string>();
}

std::vector<Datum> ReadRecords(const fs::path& path, SchemaPtr* schema) {
  auto file = DecodeFile(path);
  if (!file) return {};
  *schema = file->schema;
  return std::move(file->records);
}

// The avro/ table: Avro manifests and an Avro data file, read end to end.
TEST(AvroGoldenTest, AvroTableEndToEnd) {
  const fs::path table = TableDir("avro", "append_with_multiple_ts_precision_and_timezone");
  const fs::path snapshot = table / "snapshot/snapshot-1";
  SchemaPtr list_schema;
  std::vector<Datum> lists =
      ReadRecords(table / "manifest" / SnapshotField(snapshot, "deltaManifestList"), &list_schema);
  ASSERT_EQ(lists.size(), 1u);
  const std::string manifest = Rec(*list_schema, lists[0])["_FILE_NAME"].str();
  SchemaPtr entry_schema;
  std::vector<Datum> entries = ReadRecords(table / "manifest" / manifest, &entry_schema);
  ASSERT_EQ(entries.size(), 1u);
  Rec file = Rec(*entry_schema, entries[0])["_FILE"];
  EXPECT_EQ(file["_FILE_NAME"].str(), "data-441e233b-529d-4a8f-a0a4-25c2c84fb965-0.avro");
  EXPECT_EQ(file["_ROW_COUNT"].i64(), 3);

  auto data = DecodeFile(table / "bucket-0" / file["_FILE_NAME"].str());
  ASSERT_TRUE(data);
  EXPECT_EQ(data->codec, Codec::kZstandard);
  ASSERT_EQ(data->records.size(), 3u);
  Rec r0(*data->schema, data->records[0]);
  EXPECT_EQ(r0["ts_sec"].schema().logical_type, "timestamp-millis");
  EXPECT_EQ(r0["ts_tz_micro"].schema().logical_type, "local-timestamp-micros");
  // (1 s, 1 ms, 1 us, 2 s, 2 ms, 2 us) in each column's unit.
  std::vector<int64_t> row0;
  for (const std::string& name : r0.field_names()) row0.push_back(r0[name].i64());
  EXPECT_EQ(row0, (std::vector<int64_t>{1000, 1, 1, 2000, 2, 2}));
  Rec r1(*data->schema, data->records[1]);
  EXPECT_TRUE(r1["ts_sec"].is_null());
  EXPECT_EQ(r1["ts_milli"].i64(), 3);
  EXPECT_EQ(r1["ts_tz_milli"].i64(), 4);
  Rec r2(*data->schema, data->records[2]);
  EXPECT_EQ(r2["ts_tz_sec"].i64(), 6000);
  EXPECT_EQ(r2["ts_tz_micro"].i64(), 6);
}

TEST(AvroGoldenTest, AppendWithBitmapSnapshot) {
  const fs::path table = TableDir("parquet", "append_with_bitmap");
  const fs::path snapshot = table / "snapshot/snapshot-1";
  SchemaPtr list_schema;
  EXPECT_TRUE(
      ReadRecords(table / "manifest" / SnapshotField(snapshot, "baseManifestList"), &list_schema)
          .empty());
  std::vector<Datum> delta =
      ReadRecords(table / "manifest" / SnapshotField(snapshot, "deltaManifestList"), &list_schema);
  ASSERT_EQ(delta.size(), 1u);
  Rec meta(*list_schema, delta[0]);
  EXPECT_EQ(meta["_FILE_NAME"].str(), "manifest-5e05a7b4-b98d-469c-9b36-0c551608273d-0");
  EXPECT_EQ(meta["_FILE_SIZE"].i64(), 2173);
  SchemaPtr entry_schema;
  std::vector<Datum> entries =
      ReadRecords(table / "manifest" / meta["_FILE_NAME"].str(), &entry_schema);
  ASSERT_EQ(entries.size(), 1u);
  Rec f = Rec(*entry_schema, entries[0])["_FILE"];
  EXPECT_EQ(f["_FILE_NAME"].str(), "data-54b396b6-df2d-4c6a-a0ae-b6a5afb612d7-0.parquet");
  EXPECT_EQ(f["_FILE_SIZE"].i64(), 1116);
  EXPECT_EQ(f["_ROW_COUNT"].i64(), 8);
  EXPECT_EQ(fs::file_size(table / "bucket-0" / f["_FILE_NAME"].str()), 1116u);
}

// Snapshot 4 of a primary-key table with deletion vectors: live files after ADD/DELETE
// merging, and the index manifest's deletion-vector ranges.
TEST(AvroGoldenTest, PkTableWithDvCardinality) {
  const fs::path table = TableDir("parquet", "pk_table_with_dv_cardinality");
  const fs::path snapshot = table / "snapshot/snapshot-4";
  std::map<std::tuple<int32_t, int32_t, std::string>, int64_t> live;  // bucket, level, name
  for (const char* list_key : {"baseManifestList", "deltaManifestList"}) {
    SchemaPtr list_schema;
    for (const Datum& m :
         ReadRecords(table / "manifest" / SnapshotField(snapshot, list_key), &list_schema)) {
      SchemaPtr entry_schema;
      for (const Datum& d : ReadRecords(
               table / "manifest" / Rec(*list_schema, m)["_FILE_NAME"].str(), &entry_schema)) {
        Rec e(*entry_schema, d);
        auto key = std::make_tuple(e["_BUCKET"].i32(), e["_FILE"]["_LEVEL"].i32(),
                                   e["_FILE"]["_FILE_NAME"].str());
        if (e["_KIND"].i32() == 0) {
          EXPECT_TRUE(live.emplace(key, e["_FILE"]["_ROW_COUNT"].i64()).second);
        } else {
          EXPECT_EQ(live.erase(key), 1u);
        }
      }
    }
  }
  using Key = std::tuple<int32_t, int32_t, std::string>;
  EXPECT_EQ(live, (std::map<Key, int64_t>{
                      {{0, 4, "data-3061fa63-6ed0-422c-9169-5c3e4b25485e-1.parquet"}, 1},
                      {{0, 5, "data-3061fa63-6ed0-422c-9169-5c3e4b25485e-0.parquet"}, 2},
                      {{1, 5, "data-ed5d7184-cf42-4f4a-bf83-1e3080d9012d-0.parquet"}, 7},
                  }));

  SchemaPtr index_schema;
  std::vector<Datum> index =
      ReadRecords(table / "manifest" / SnapshotField(snapshot, "indexManifest"), &index_schema);
  ASSERT_EQ(index.size(), 2u);
  Rec bucket1(*index_schema, index[0]);
  EXPECT_EQ(bucket1["_VERSION"].i32(), 1);
  EXPECT_EQ(bucket1["_BUCKET"].i32(), 1);
  EXPECT_EQ(bucket1["_INDEX_TYPE"].str(), "DELETION_VECTORS");
  EXPECT_EQ(bucket1["_FILE_NAME"].str(), "index-62372b7b-d1cf-4dde-a162-c9d9d35006b4-1");
  EXPECT_EQ(bucket1["_FILE_SIZE"].i64(), 33);
  // Partition f1 = 10: arity 1, null bits, one 8-byte slot holding 10.
  EXPECT_EQ(bucket1["_PARTITION"].str(),
            std::string("\0\0\0\1\0\0\0\0\0\0\0\0\x0a\0\0\0\0\0\0\0", 20));
  const Rec ranges = bucket1["_DELETIONS_VECTORS_RANGES"];
  ASSERT_EQ(ranges.datum().as_list().size(), 1u);
  Rec range(*ranges.schema().items, ranges.datum().as_list()[0]);
  EXPECT_EQ(range["f0"].str(), "data-ed5d7184-cf42-4f4a-bf83-1e3080d9012d-0.parquet");
  EXPECT_EQ(range["f1"].i32(), 1);
  EXPECT_EQ(range["f2"].i32(), 24);
  EXPECT_EQ(range["_CARDINALITY"].i64(), 2);
}

// Every table with Avro manifests, every snapshot: the manifest lists name manifests that exist
// with the recorded size; every manifest entry names a file that exists, with the recorded size,
// in a directory "bucket-<_BUCKET>"; the live row count equals the snapshot's totalRecordCount.
TEST(AvroGoldenTest, EverySnapshotOfEveryTableIsConsistent) {
  int tables = 0;
  int snapshots = 0;
  int entries_checked = 0;
  for (const char* warehouse : {"avro", "parquet", "pypaimon"}) {
    for (const auto& db : fs::directory_iterator(kGolden / warehouse)) {
      if (!db.is_directory() || db.path().extension() != ".db") continue;
      // Every file of the database, by name (external paths live beside the table).
      std::map<std::string, std::vector<fs::path>> files;
      for (const auto& f : fs::recursive_directory_iterator(db.path())) {
        if (f.is_regular_file()) files[f.path().filename().string()].push_back(f.path());
      }
      auto check_file = [&](const std::string& name, int64_t size, int32_t bucket) {
        auto it = files.find(name);
        ASSERT_NE(it, files.end()) << db.path() << ": missing " << name;
        bool found = false;
        for (const fs::path& p : it->second) {
          const bool right_dir =
              bucket < 0 || p.parent_path().filename() == "bucket-" + std::to_string(bucket);
          if (right_dir && static_cast<int64_t>(fs::file_size(p)) == size) found = true;
        }
        EXPECT_TRUE(found) << name << " size " << size << " bucket " << bucket;
        ++entries_checked;
      };
      for (const auto& table : fs::directory_iterator(db.path())) {
        const fs::path manifest_dir = table.path() / "manifest";
        if (!fs::exists(table.path() / "snapshot") || !fs::exists(manifest_dir)) continue;
        bool avro_manifests = true;
        for (const auto& m : fs::directory_iterator(manifest_dir)) {
          avro_manifests = avro_manifests && IsAvroFile(m.path());
        }
        if (!avro_manifests) continue;  // ORC manifests (8 tables)
        ++tables;
        for (const auto& s : fs::directory_iterator(table.path() / "snapshot")) {
          if (s.path().filename().string().rfind("snapshot-", 0) != 0) continue;
          SCOPED_TRACE(s.path().string());
          ++snapshots;
          nlohmann::json snap = nlohmann::json::parse(ReadFile(s.path()));
          int64_t live_rows = 0;
          for (const char* key : {"baseManifestList", "deltaManifestList"}) {
            SchemaPtr list_schema;
            const std::string list_name = snap[key].get<std::string>();
            for (const Datum& m : ReadRecords(manifest_dir / list_name, &list_schema)) {
              Rec meta(*list_schema, m);
              EXPECT_EQ(meta["_VERSION"].i32(), 2);
              check_file(meta["_FILE_NAME"].str(), meta["_FILE_SIZE"].i64(), -1);
              SchemaPtr entry_schema;
              for (const Datum& d :
                   ReadRecords(manifest_dir / meta["_FILE_NAME"].str(), &entry_schema)) {
                Rec e(*entry_schema, d);
                EXPECT_EQ(e["_VERSION"].i32(), 2);
                Rec f = e["_FILE"];
                check_file(f["_FILE_NAME"].str(), f["_FILE_SIZE"].i64(), e["_BUCKET"].i32());
                live_rows += (e["_KIND"].i32() == 0 ? 1 : -1) * f["_ROW_COUNT"].i64();
              }
            }
          }
          if (snap.contains("totalRecordCount")) {
            EXPECT_EQ(live_rows, snap["totalRecordCount"].get<int64_t>());
          }
          if (snap.contains("indexManifest") && snap["indexManifest"].is_string()) {
            SchemaPtr index_schema;
            for (const Datum& d : ReadRecords(
                     manifest_dir / snap["indexManifest"].get<std::string>(), &index_schema)) {
              Rec e(*index_schema, d);
              EXPECT_EQ(e["_VERSION"].i32(), 1);
              check_file(e["_FILE_NAME"].str(), e["_FILE_SIZE"].i64(), -1);
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(tables, 36);
  EXPECT_GT(snapshots, 100);
  EXPECT_GT(entries_checked, 500);
}

// Re-encoding what we decoded with FileWriter and decoding again gives equal datums, for every
// Avro file of the golden warehouse, with each codec.
TEST(AvroGoldenTest, ReencodedGoldenFilesDecodeToEqualDatums) {
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kGolden)) {
    if (!entry.is_regular_file() || !IsAvroFile(entry.path())) continue;
    auto original = DecodeFile(entry.path());
    ASSERT_TRUE(original) << entry.path();
    ++files;
    for (Codec codec : {original->codec, Codec::kNull, Codec::kSnappy, Codec::kDeflate}) {
      Result<std::unique_ptr<FileWriter>> writer = FileWriter::Make(original->schema, codec, 512);
      ASSERT_TRUE(writer.ok());
      for (const Datum& d : original->records) {
        Status st = (*writer)->Append(d);
        ASSERT_TRUE(st.ok()) << entry.path() << ": " << st.ToString();
      }
      Result<std::string> bytes = (*writer)->Finish();
      ASSERT_TRUE(bytes.ok());
      Result<std::unique_ptr<FileReader>> reader = FileReader::Open(std::move(bytes).value());
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      EXPECT_EQ(SchemaToJson(*(*reader)->schema()), SchemaToJson(*original->schema));
      Result<std::vector<Datum>> again = (*reader)->ReadAll();
      ASSERT_TRUE(again.ok()) << again.status().ToString();
      EXPECT_EQ(*again, original->records) << entry.path() << " " << CodecName(codec);
    }
  }
  EXPECT_GT(files, 300);
}

}  // namespace
}  // namespace tributary::avro
