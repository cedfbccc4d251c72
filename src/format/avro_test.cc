#include "format/avro.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>

#include "format/avro_test_util.h"

namespace tributary::avro {
namespace {

SchemaPtr MustParse(std::string_view json) {
  Result<SchemaPtr> schema = ParseSchema(json);
  EXPECT_TRUE(schema.ok()) << schema.status().ToString() << "\n" << json;
  return schema.ok() ? *schema : nullptr;
}

std::string EncodeOrDie(const Schema& schema, const Datum& datum) {
  std::string out;
  Status st = Encode(schema, datum, &out);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

Datum DecodeAll(const Schema& schema, const std::string& bytes) {
  Datum d;
  size_t pos = 0;
  Status st = Decode(schema, bytes, &pos, &d);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(pos, bytes.size());
  return d;
}

std::string Hex(std::string_view s) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

// ---- schemas ----

TEST(AvroSchemaTest, ParsesPrimitivesAndLogicalTypes) {
  EXPECT_EQ(MustParse(R"("int")")->type, Type::kInt);
  EXPECT_EQ(MustParse(R"({"type": "string"})")->type, Type::kString);
  SchemaPtr ts = MustParse(R"({"type": "long", "logicalType": "timestamp-millis"})");
  EXPECT_EQ(ts->type, Type::kLong);
  EXPECT_EQ(ts->logical_type, "timestamp-millis");
  SchemaPtr dec =
      MustParse(R"({"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 3})");
  EXPECT_EQ(dec->type, Type::kBytes);
  EXPECT_EQ(dec->logical_type, "decimal");
  EXPECT_EQ(dec->precision, 10);
  EXPECT_EQ(dec->scale, 3);
  // A decimal without precision is not a decimal (the specification says: ignore it).
  EXPECT_EQ(MustParse(R"({"type": "bytes", "logicalType": "decimal"})")->logical_type, "");
}

TEST(AvroSchemaTest, ResolvesNamesAndNamespaces) {
  SchemaPtr s = MustParse(R"({
    "type": "record", "name": "record", "namespace": "org.apache.paimon.avro.generated",
    "fields": [
      {"name": "a", "type": {"type": "record", "name": "record_a",
                             "fields": [{"name": "x", "type": "int"}]}},
      {"name": "b", "type": ["null", "record_a"], "default": null},
      {"name": "c", "type": "org.apache.paimon.avro.generated.record_a"},
      {"name": "d", "type": {"type": "enum", "name": "E", "namespace": "other",
                             "symbols": ["X", "Y"]}},
      {"name": "e", "type": "other.E"},
      {"name": "f", "type": {"type": "fixed", "name": "F", "size": 4}},
      {"name": "g", "type": {"type": "map", "values": {"type": "array", "items": "F"}}}
    ]})");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->name, "org.apache.paimon.avro.generated.record");
  ASSERT_EQ(s->fields.size(), 7u);
  EXPECT_EQ(s->fields[0].schema->name, "org.apache.paimon.avro.generated.record_a");
  EXPECT_EQ(s->fields[1].schema->NonNull().name, "org.apache.paimon.avro.generated.record_a");
  EXPECT_EQ(s->fields[1].default_json, "null");
  EXPECT_TRUE(s->fields[1].schema->IsNullableUnion());
  EXPECT_EQ(s->fields[2].schema, s->fields[0].schema);  // the same shared definition
  EXPECT_EQ(s->fields[3].schema->name, "other.E");
  EXPECT_EQ(s->fields[4].schema, s->fields[3].schema);
  EXPECT_EQ(s->fields[5].schema->fixed_size, 4);
  EXPECT_EQ(s->fields[6].schema->values->items, s->fields[5].schema);
  EXPECT_EQ(s->FieldIndex("e"), 4);
  EXPECT_EQ(s->FieldIndex("zz"), -1);
  EXPECT_EQ(&s->NonNull(), s.get());
}

TEST(AvroSchemaTest, RejectsBadSchemas) {
  for (const char* json : {
           R"(not json)",
           R"("integer")",
           R"({"type": "record", "fields": []})",
           R"({"type": "record", "name": "R", "fields": [{"name": "a"}]})",
           R"({"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"},
                                                         {"name": "a", "type": "int"}]})",
           R"({"type": "array"})",
           R"({"type": "map", "values": "nope"})",
           R"({"type": "fixed", "name": "F"})",
           R"({"type": "fixed", "name": "F", "size": -1})",
           R"({"type": "enum", "name": "E", "symbols": [1]})",
           R"(["null", ["int"]])",
           R"([])",
           R"({"type": "record", "name": "R", "fields": [
                 {"name": "a", "type": {"type": "fixed", "name": "F", "size": 1}},
                 {"name": "b", "type": {"type": "fixed", "name": "F", "size": 2}}]})",
           R"(42)",
       }) {
    Result<SchemaPtr> s = ParseSchema(json);
    EXPECT_FALSE(s.ok()) << json;
    if (!s.ok()) {
      EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument) << json;
    }
  }
  Result<SchemaPtr> recursive = ParseSchema(
      R"({"type": "record", "name": "Node", "fields": [{"name": "next", "type": ["null", "Node"]}]})");
  ASSERT_FALSE(recursive.ok());
  EXPECT_EQ(recursive.status().code(), StatusCode::kNotSupported);
}

// Named types referenced by name nest without nesting the JSON: a chain of records each holding
// the one before is as deep as it is long, and is refused past the limit (decoding recurses
// over it). Records of two fields of the one before stay cheap to parse (their minimum encoded
// size is computed once per type, not once per path).
TEST(AvroSchemaTest, NamedTypeChainsAreBounded) {
  auto chain = [](int n, int fields) {
    std::string json =
        R"(["null", {"type": "record", "name": "R0", "fields": [{"name": "x", "type": "null"}]})";
    for (int i = 1; i < n; i++) {
      json += R"(, {"type": "record", "name": "R)" + std::to_string(i) + R"(", "fields": [)";
      for (int f = 0; f < fields; f++) {
        json += std::string(f ? ", " : "") + R"({"name": "f)" + std::to_string(f) +
                R"(", "type": "R)" + std::to_string(i - 1) + R"("})";
      }
      json += "]}";
    }
    return json + "]";
  };
  EXPECT_TRUE(ParseSchema(chain(150, 1)).ok());
  auto deep = ParseSchema(chain(5000, 1));
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("nested too deeply"), std::string::npos);
  auto wide = ParseSchema(chain(150, 2));  // 2^150 paths, 150 types
  ASSERT_TRUE(wide.ok()) << wide.status().ToString();
  EXPECT_EQ(MinEncodedSize(*(*wide)->branches.back()), 0);
  // A "default" nested far deeper than any schema needs.
  std::string def = std::string(100000, '[') + std::string(100000, ']');
  auto bad_default = ParseSchema(
      R"({"type": "record", "name": "R", "fields": [{"name": "a", "type": {"type": "array", "items": "int"}, "default": )" +
      def + "}]}");
  ASSERT_FALSE(bad_default.ok());
  EXPECT_NE(bad_default.status().message().find("nested"), std::string::npos);
}

TEST(AvroSchemaTest, SchemaToJsonRoundTripsAndDefinesNamesOnce) {
  const char* json = R"({"type":"record","name":"ns.R","fields":[
      {"name":"a","type":{"type":"record","name":"ns.Inner","fields":[{"name":"x","type":"int"}]}},
      {"name":"b","type":["null","ns.Inner"],"default":null},
      {"name":"c","type":{"type":"long","logicalType":"timestamp-micros"}},
      {"name":"d","type":{"type":"fixed","name":"ns.D","size":8,"logicalType":"decimal",
                          "precision":18,"scale":2}},
      {"name":"e","type":{"type":"enum","name":"ns.E","symbols":["A","B"]}},
      {"name":"f","type":{"type":"map","values":{"type":"array","items":"string"}}},
      {"name":"g","type":"int","default":7}]})";
  SchemaPtr s = MustParse(json);
  const std::string out = SchemaToJson(*s);
  EXPECT_EQ(out.find("\"ns.Inner\",\"fields\""), out.rfind("\"ns.Inner\",\"fields\""));
  EXPECT_NE(out.find(R"(["null","ns.Inner"])"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("logicalType":"decimal","precision":18,"scale":2)"), std::string::npos);
  EXPECT_NE(out.find(R"("default":7)"), std::string::npos);
  SchemaPtr again = MustParse(out);
  EXPECT_EQ(SchemaToJson(*again), out);
  EXPECT_EQ(SchemaToJson(*MustParse(R"("double")")), R"("double")");
}

TEST(AvroSchemaTest, CodecNames) {
  for (Codec c : {Codec::kNull, Codec::kDeflate, Codec::kSnappy, Codec::kZstandard}) {
    Result<Codec> parsed = CodecFromName(CodecName(c));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, c);
  }
  EXPECT_EQ(*CodecFromName(""), Codec::kNull);  // a missing avro.codec means null
  EXPECT_EQ(CodecFromName("xz").status().code(), StatusCode::kNotSupported);
}

// ---- binary encoding ----

TEST(AvroEncodingTest, MatchesTheSpecificationBytes) {
  SchemaPtr long_schema = MustParse(R"("long")");
  SchemaPtr int_schema = MustParse(R"("int")");
  const std::pair<int64_t, const char*> kZigzag[] = {
      {0, "00"},
      {-1, "01"},
      {1, "02"},
      {-2, "03"},
      {2, "04"},
      {-64, "7f"},
      {64, "8001"},
      {std::numeric_limits<int64_t>::max(), "feffffffffffffffff01"},
      {std::numeric_limits<int64_t>::min(), "ffffffffffffffffff01"},
  };
  for (const auto& [v, hex] : kZigzag) {
    const std::string bytes = EncodeOrDie(*long_schema, Datum(v));
    EXPECT_EQ(Hex(bytes), hex) << v;
    EXPECT_EQ(DecodeAll(*long_schema, bytes).as_long(), v);
  }
  EXPECT_EQ(Hex(EncodeOrDie(*int_schema, Datum(int32_t{-2147483648}))), "ffffffff0f");
  EXPECT_EQ(Hex(EncodeOrDie(*MustParse(R"("string")"), Datum(std::string("foo")))), "06666f6f");
  EXPECT_EQ(Hex(EncodeOrDie(*MustParse(R"("boolean")"), Datum(true))), "01");
  EXPECT_EQ(Hex(EncodeOrDie(*MustParse(R"("float")"), Datum(1.0f))), "0000803f");
  EXPECT_EQ(Hex(EncodeOrDie(*MustParse(R"("double")"), Datum(-2.0))), "00000000000000c0");
  // The specification's example: array of longs [3, 27] -> 04 06 36 00.
  SchemaPtr array = MustParse(R"({"type": "array", "items": "long"})");
  EXPECT_EQ(Hex(EncodeOrDie(*array, Datum(DatumList{int64_t{3}, int64_t{27}}))), "04063600");
  // Union ["null", "string"]: null -> 00; "a" -> 02 02 61.
  SchemaPtr u = MustParse(R"(["null", "string"])");
  EXPECT_EQ(Hex(EncodeOrDie(*u, Datum())), "00");
  EXPECT_EQ(Hex(EncodeOrDie(*u, Datum(std::string("a")))), "020261");
}

// Every type, nested: records in arrays in maps in unions.
constexpr const char* kEverythingSchema = R"({
  "type": "record", "name": "test.Everything", "fields": [
    {"name": "n", "type": "null"},
    {"name": "b", "type": "boolean"},
    {"name": "i", "type": "int"},
    {"name": "l", "type": "long"},
    {"name": "f", "type": "float"},
    {"name": "d", "type": "double"},
    {"name": "by", "type": "bytes"},
    {"name": "s", "type": "string"},
    {"name": "e", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN"]}},
    {"name": "fx", "type": {"type": "fixed", "name": "Md5", "size": 4}},
    {"name": "date", "type": {"type": "int", "logicalType": "date"}},
    {"name": "ts", "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}]},
    {"name": "nested", "type": {"type": "record", "name": "Inner", "fields": [
        {"name": "x", "type": ["null", "long"]},
        {"name": "tags", "type": {"type": "array", "items": "string"}}]}},
    {"name": "list", "type": {"type": "array", "items": ["null", "Inner"]}},
    {"name": "m", "type": {"type": "map", "values": {"type": "array", "items": ["null", "long"]}}},
    {"name": "u", "type": ["null", "int", "string", "Inner", {"type": "map", "values": "double"}]}
  ]})";

Datum InnerDatum(Datum x, std::vector<std::string> tags) {
  DatumList tag_list;
  for (std::string& t : tags) tag_list.emplace_back(std::move(t));
  return Datum(DatumList{std::move(x), Datum(std::move(tag_list))});
}

Datum EverythingDatum(int variant) {
  const bool alt = variant % 2 == 1;
  DatumList list;
  list.emplace_back();  // null
  list.emplace_back(InnerDatum(Datum(int64_t{-5}), {"a", "", "ccc"}));
  DatumMap m;
  m.emplace_back("k1", Datum(DatumList{Datum(int64_t{1}), Datum(), Datum(int64_t{3})}));
  m.emplace_back("", Datum(DatumList{}));
  Datum u;
  switch (variant % 5) {
    case 0:
      break;  // null
    case 1:
      u = Datum(int32_t{-77});
      break;
    case 2:
      u = Datum(std::string("union string"));
      break;
    case 3:
      u = InnerDatum(Datum(), {});
      break;
    default:
      u = Datum(DatumMap{{"pi", Datum(3.14159)}, {"e", Datum(2.71828)}});
      break;
  }
  return Datum(DatumList{
      Datum(),
      Datum(alt),
      Datum(alt ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int32_t>::max()),
      Datum(alt ? std::numeric_limits<int64_t>::min() : int64_t{1} << 40),
      Datum(alt ? -0.0f : 1.5e-30f),
      Datum(alt ? std::numeric_limits<double>::infinity() : 1234567890.0987654321),
      Datum(std::string("\0\xff\x01 bytes", 9)),
      Datum(std::string(alt ? "" : "h\xc3\xa9llo \xe2\x82\xac")),
      Datum(int32_t{alt ? 1 : 0}),
      Datum(std::string("\x01\x02\x03\x04", 4)),
      Datum(int32_t{19000 + variant}),
      alt ? Datum() : Datum(int64_t{1754048761150}),
      InnerDatum(alt ? Datum() : Datum(int64_t{42}), {"t1", "t2"}),
      Datum(alt ? DatumList{} : std::move(list)),
      Datum(alt ? DatumMap{} : std::move(m)),
      std::move(u),
  });
}

// Decoding sets union_branch; clear it so a decoded datum compares with a hand-built one.
Datum WithoutBranches(Datum d) {
  d.union_branch = -1;
  if (auto* list = std::get_if<DatumList>(&d.rep)) {
    for (Datum& item : *list) item = WithoutBranches(std::move(item));
  } else if (auto* map = std::get_if<DatumMap>(&d.rep)) {
    for (auto& kv : *map) kv.second = WithoutBranches(std::move(kv.second));
  }
  return d;
}

TEST(AvroEncodingTest, RoundTripsEveryTypeNested) {
  SchemaPtr schema = MustParse(kEverythingSchema);
  ASSERT_NE(schema, nullptr);
  for (int variant = 0; variant < 10; ++variant) {
    const Datum datum = EverythingDatum(variant);
    const std::string bytes = EncodeOrDie(*schema, datum);
    const Datum decoded = DecodeAll(*schema, bytes);
    EXPECT_EQ(WithoutBranches(decoded), datum) << "variant " << variant;
    // Decoded datums carry their union branches and re-encode to the same bytes.
    EXPECT_EQ(EncodeOrDie(*schema, decoded), bytes);
  }
}

TEST(AvroEncodingTest, UnionBranchSelection) {
  SchemaPtr u = MustParse(R"(["null", "long", "double", "int", "string", "bytes"])");
  auto branch_of = [&](const Datum& d) {
    Datum decoded = DecodeAll(*u, EncodeOrDie(*u, d));
    return decoded.union_branch;
  };
  EXPECT_EQ(branch_of(Datum()), 0);
  EXPECT_EQ(branch_of(Datum(int64_t{1})), 1);
  EXPECT_EQ(branch_of(Datum(1.0)), 2);
  EXPECT_EQ(branch_of(Datum(int32_t{1})), 3);  // exact match beats widening to long
  EXPECT_EQ(branch_of(Datum(std::string("x"))), 4);
  Datum as_bytes(std::string("x"));
  as_bytes.union_branch = 5;
  EXPECT_EQ(branch_of(as_bytes), 5);  // an explicit branch wins
  // Widening when no exact branch exists: int32 into ["null", "long"].
  SchemaPtr nullable_long = MustParse(R"(["null", "long"])");
  Datum widened = DecodeAll(*nullable_long, EncodeOrDie(*nullable_long, Datum(int32_t{9})));
  EXPECT_EQ(widened.as_long(), 9);
  EXPECT_EQ(widened.union_branch, 1);
  // A value no branch accepts, and a branch out of range.
  std::string out;
  EXPECT_FALSE(Encode(*nullable_long, Datum(std::string("x")), &out).ok());
  Datum bad_branch(int64_t{1});
  bad_branch.union_branch = 7;
  EXPECT_FALSE(Encode(*nullable_long, bad_branch, &out).ok());
  bad_branch.union_branch = 0;  // the null branch cannot hold a long
  EXPECT_FALSE(Encode(*nullable_long, bad_branch, &out).ok());
}

TEST(AvroEncodingTest, EncodeRejectsMismatchedDatums) {
  SchemaPtr schema = MustParse(kEverythingSchema);
  const Schema& s = *schema;
  const std::pair<const Schema*, Datum> kBad[] = {
      {s.fields[1].schema.get(), Datum(int32_t{1})},           // boolean
      {s.fields[2].schema.get(), Datum(int64_t{1} << 40)},     // int out of range
      {s.fields[4].schema.get(), Datum(1.0)},                  // float from double
      {s.fields[6].schema.get(), Datum()},                     // bytes
      {s.fields[8].schema.get(), Datum(int32_t{2})},           // enum index
      {s.fields[9].schema.get(), Datum(std::string("abc"))},   // fixed size
      {s.fields[12].schema.get(), Datum(DatumList{Datum()})},  // record arity
      {s.fields[13].schema.get(), Datum(DatumMap{})},          // array
      {s.fields[14].schema.get(), Datum(DatumList{})},         // map
      {&s, Datum(int32_t{0})},                                 // record
  };
  for (const auto& [field_schema, datum] : kBad) {
    std::string out;
    Status st = Encode(*field_schema, datum, &out);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << SchemaToJson(*field_schema);
  }
  // Errors inside records name the field.
  Datum d = EverythingDatum(0);
  d.as_list()[12].as_list()[1].as_list()[0] = Datum(int32_t{5});
  std::string out;
  Status st = Encode(s, d, &out);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("field nested: field tags"), std::string::npos) << st.message();
  // Lossless widenings are accepted.
  EXPECT_TRUE(Encode(*s.fields[3].schema, Datum(int32_t{3}), &out).ok());  // long from int32
  EXPECT_TRUE(Encode(*s.fields[5].schema, Datum(1.5f), &out).ok());        // double from float
}

TEST(AvroEncodingTest, EveryTruncationIsCorruption) {
  SchemaPtr schema = MustParse(kEverythingSchema);
  for (int variant = 0; variant < 5; ++variant) {
    const std::string bytes = EncodeOrDie(*schema, EverythingDatum(variant));
    for (size_t len = 0; len < bytes.size(); ++len) {
      Datum d;
      size_t pos = 0;
      Status st = Decode(*schema, std::string_view(bytes).substr(0, len), &pos, &d);
      ASSERT_FALSE(st.ok()) << "variant " << variant << " length " << len;
      EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
    }
  }
}

TEST(AvroEncodingTest, DamagedBytesNeverCrash) {
  SchemaPtr schema = MustParse(kEverythingSchema);
  const std::string bytes = EncodeOrDie(*schema, EverythingDatum(4));
  std::mt19937 rng(1234);
  int errors = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string damaged = bytes;
    for (int flips = 1 + rng() % 3; flips > 0; --flips) {
      damaged[rng() % damaged.size()] = static_cast<char>(rng());
    }
    Datum d;
    size_t pos = 0;
    Status st = Decode(*schema, damaged, &pos, &d);
    if (!st.ok()) {
      ++errors;
      EXPECT_EQ(st.code(), StatusCode::kCorruption);
    } else {
      EXPECT_LE(pos, damaged.size());
    }
  }
  EXPECT_GT(errors, 0);
}

TEST(AvroEncodingTest, HugeCountsAndLengthsAreRejectedWithoutAllocating) {
  SchemaPtr array_of_long = MustParse(R"({"type": "array", "items": "long"})");
  SchemaPtr array_of_null = MustParse(R"({"type": "array", "items": "null"})");
  SchemaPtr str = MustParse(R"("string")");
  const std::pair<SchemaPtr, std::string> kCases[] = {
      {array_of_long, std::string("\xfe\xff\xff\xff\xff\xff\xff\xff\x7f\x02", 10)},
      {array_of_null, std::string("\xfe\xff\xff\xff\xff\xff\xff\xff\x7f", 9)},
      {array_of_long, std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x00", 11)},  // -min
      {str, std::string("\xfe\xff\xff\xff\x0f"
                        "abc",
                        8)},
      {str, std::string("\x01", 1)},                                    // length -1
      {MustParse(R"("int")"), std::string("\xff\xff\xff\xff\x1f", 5)},  // > int32
      {MustParse(R"("long")"), std::string(11, '\xff')},                // varint too long
      {MustParse(R"("boolean")"), std::string("\x02", 1)},
      {MustParse(R"(["null", "int"])"), std::string("\x04", 1)},  // branch 2 of 2
      {MustParse(R"({"type": "enum", "name": "E", "symbols": ["A"]})"), std::string("\x02", 1)},
  };
  for (const auto& [schema, bytes] : kCases) {
    Datum d;
    size_t pos = 0;
    Status st = Decode(*schema, bytes, &pos, &d);
    EXPECT_EQ(st.code(), StatusCode::kCorruption) << SchemaToJson(*schema) << " " << Hex(bytes);
  }
  // Negative block counts (count, then byte size) are legal.
  Datum d = DecodeAll(*array_of_long, std::string("\x03\x04\x02\x04\x00", 5));
  EXPECT_EQ(d, Datum(DatumList{int64_t{1}, int64_t{2}}));
}

// ---- object container files ----

class AvroFileTest : public ::testing::TestWithParam<Codec> {};

TEST_P(AvroFileTest, RoundTripsManyBlocks) {
  SchemaPtr schema = MustParse(kEverythingSchema);
  Result<std::unique_ptr<FileWriter>> writer = FileWriter::Make(schema, GetParam(), 1000);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  std::vector<Datum> records;
  for (int i = 0; i < 200; ++i) {
    records.push_back(EverythingDatum(i));
    ASSERT_TRUE((*writer)->Append(records.back()).ok());
  }
  EXPECT_EQ((*writer)->num_records(), 200);
  EXPECT_GT((*writer)->EstimatedSize(), 1000u);
  Result<std::string> file = (*writer)->Finish();
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_FALSE((*writer)->Append(records[0]).ok());
  EXPECT_FALSE((*writer)->Finish().ok());

  Result<std::unique_ptr<FileReader>> reader = FileReader::Open(*file);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->codec(), GetParam());
  EXPECT_EQ(SchemaToJson(*(*reader)->schema()), SchemaToJson(*schema));
  Datum first;
  Result<bool> has_first = (*reader)->Next(&first);
  ASSERT_TRUE(has_first.ok() && *has_first);
  EXPECT_EQ(WithoutBranches(first), records[0]);
  Result<std::vector<Datum>> rest = (*reader)->ReadAll();
  ASSERT_TRUE(rest.ok()) << rest.status().ToString();
  ASSERT_EQ(rest->size(), records.size() - 1);
  for (size_t i = 0; i < rest->size(); ++i) {
    EXPECT_EQ(WithoutBranches((*rest)[i]), records[i + 1]) << i;
  }
  Datum after_end;
  Result<bool> more = (*reader)->Next(&after_end);
  ASSERT_TRUE(more.ok());
  EXPECT_FALSE(*more);
}

TEST_P(AvroFileTest, EmptyFileAndOneBlockPerRecord) {
  SchemaPtr schema =
      MustParse(R"({"type":"record","name":"R","fields":[{"name":"a","type":"long"}]})");
  for (size_t block_size : {size_t{0}, size_t{1} << 20}) {
    Result<std::unique_ptr<FileWriter>> writer = FileWriter::Make(schema, GetParam(), block_size);
    ASSERT_TRUE(writer.ok());
    Result<std::string> empty_or_not = std::string();
    if (block_size > 0) {
      empty_or_not = (*writer)->Finish();  // no records at all
    } else {
      for (int64_t i = 0; i < 5; ++i) ASSERT_TRUE((*writer)->Append(Datum(DatumList{i})).ok());
      empty_or_not = (*writer)->Finish();
    }
    ASSERT_TRUE(empty_or_not.ok());
    Result<std::unique_ptr<FileReader>> reader = FileReader::Open(*empty_or_not);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    Result<std::vector<Datum>> all = (*reader)->ReadAll();
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    EXPECT_EQ(all->size(), block_size > 0 ? 0u : 5u);
  }
}

// Any prefix of a file either fails or yields a prefix of the records (a cut exactly at a
// block boundary is indistinguishable from a shorter file); any single damaged byte either
// fails with Corruption or still decodes. Nothing crashes.
TEST_P(AvroFileTest, TruncatedAndDamagedFilesGiveErrors) {
  SchemaPtr schema = MustParse(kEverythingSchema);
  Result<std::unique_ptr<FileWriter>> writer = FileWriter::Make(schema, GetParam(), 300);
  ASSERT_TRUE(writer.ok());
  std::vector<Datum> records;
  for (int i = 0; i < 12; ++i) {
    records.push_back(EverythingDatum(i));
    ASSERT_TRUE((*writer)->Append(records.back()).ok());
  }
  Result<std::string> file = (*writer)->Finish();
  ASSERT_TRUE(file.ok());
  int complete_prefixes = 0;
  for (size_t len = 0; len < file->size(); ++len) {
    Result<std::unique_ptr<FileReader>> reader = FileReader::Open(file->substr(0, len));
    if (!reader.ok()) {
      EXPECT_EQ(reader.status().code(), StatusCode::kCorruption) << len;
      continue;
    }
    Result<std::vector<Datum>> all = (*reader)->ReadAll();
    if (!all.ok()) {
      EXPECT_EQ(all.status().code(), StatusCode::kCorruption) << all.status().ToString();
      continue;
    }
    ++complete_prefixes;
    ASSERT_LT(all->size(), records.size()) << len;
    for (size_t i = 0; i < all->size(); ++i) EXPECT_EQ(WithoutBranches((*all)[i]), records[i]);
  }
  EXPECT_GE(complete_prefixes, 2);  // the header alone, and after each block
  EXPECT_LE(complete_prefixes, 13);

  std::mt19937 rng(99);
  for (int i = 0; i < 500; ++i) {
    std::string damaged = *file;
    damaged[rng() % damaged.size()] ^= static_cast<char>(1 + rng() % 255);
    Result<std::unique_ptr<FileReader>> reader = FileReader::Open(damaged);
    if (!reader.ok()) continue;
    Result<std::vector<Datum>> all = (*reader)->ReadAll();
    if (!all.ok()) {
      EXPECT_TRUE(all.status().code() == StatusCode::kCorruption) << all.status().ToString();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllCodecs, AvroFileTest,
                         ::testing::Values(Codec::kNull, Codec::kDeflate, Codec::kSnappy,
                                           Codec::kZstandard),
                         [](const auto& info) { return std::string(CodecName(info.param)); });

std::string WriteLongs(Codec codec, int n) {
  SchemaPtr schema = ParseSchema(R"("long")").value();
  auto writer = FileWriter::Make(schema, codec).value();
  for (int64_t i = 0; i < n; ++i) EXPECT_TRUE(writer->Append(Datum(i)).ok());
  return writer->Finish().value();
}

TEST(AvroFileFormatTest, HeaderLayout) {
  const std::string file = WriteLongs(Codec::kNull, 3);
  ASSERT_EQ(file.substr(0, 4), std::string("Obj\x01", 4));
  EXPECT_NE(file.find("avro.schema"), std::string::npos);
  EXPECT_NE(file.find("\"long\""), std::string::npos);
  EXPECT_NE(file.find("avro.codec"), std::string::npos);
  // The last 16 bytes are the sync marker, which also ends the header; the block in between
  // is count 3, size 3, then 00 02 04.
  const std::string sync = file.substr(file.size() - 16);
  EXPECT_EQ(Hex(file.substr(file.size() - 16 - 5, 5)), "0606000204");
  EXPECT_EQ(file.substr(file.size() - 16 - 5 - 16, 16), sync);
  // Two writers pick different sync markers.
  const std::string other = WriteLongs(Codec::kNull, 3);
  EXPECT_NE(other.substr(other.size() - 16), sync);
}

TEST(AvroFileFormatTest, SpecificCorruptions) {
  // Bad magic.
  std::string file = WriteLongs(Codec::kNull, 3);
  std::string bad = file;
  bad[3] = 2;
  EXPECT_EQ(FileReader::Open(bad).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(FileReader::Open("").status().code(), StatusCode::kCorruption);
  // Damaged sync marker after the block.
  bad = file;
  bad[bad.size() - 1] ^= 1;
  auto reader = FileReader::Open(bad).value();
  Result<std::vector<Datum>> all = reader->ReadAll();
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.status().message().find("sync marker"), std::string::npos);
  // Trailing bytes inside a block: claim 2 records in a block that holds 3.
  bad = file;
  bad[bad.size() - 16 - 5] = 4;
  all = FileReader::Open(bad).value()->ReadAll();
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.status().code(), StatusCode::kCorruption);
  // Unknown codec: rewrite "null" in the header to "nul?".
  bad = file;
  const size_t codec_pos = bad.find("null");
  ASSERT_NE(codec_pos, std::string::npos);
  bad[codec_pos + 3] = '?';
  EXPECT_EQ(FileReader::Open(bad).status().code(), StatusCode::kNotSupported);
  // Snappy's trailing CRC32 is checked.
  std::string snappy = WriteLongs(Codec::kSnappy, 100);
  snappy[snappy.size() - 17] ^= 1;  // last byte of the CRC
  all = FileReader::Open(snappy).value()->ReadAll();
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.status().message().find("checksum"), std::string::npos) << all.status().message();
}

TEST(AvroFileFormatTest, FailedAppendLeavesTheFileValid) {
  SchemaPtr schema =
      ParseSchema(
          R"({"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"}]})")
          .value();
  auto writer = FileWriter::Make(schema, Codec::kZstandard).value();
  ASSERT_TRUE(writer->Append(Datum(DatumList{int64_t{1}, std::string("one")})).ok());
  // Fails on the second field, after the first was encoded.
  EXPECT_EQ(writer->Append(Datum(DatumList{int64_t{2}, int64_t{2}})).code(),
            StatusCode::kInvalidArgument);
  ASSERT_TRUE(writer->Append(Datum(DatumList{int64_t{3}, std::string("three")})).ok());
  EXPECT_EQ(writer->num_records(), 2);
  auto all = FileReader::Open(writer->Finish().value()).value()->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[1], Datum(DatumList{int64_t{3}, std::string("three")}));
  EXPECT_FALSE(FileWriter::Make(nullptr, Codec::kNull).ok());
}

// ---- cross-check with an independent implementation (tests/crosscheck/avro_avsc.sh) ----
// Disabled by default: the script runs them with --gtest_also_run_disabled_tests and
// TRIBUTARY_AVRO_CROSSCHECK_DIR set, around a Node.js avsc reader and writer.

constexpr const char* kCrossCheckSchema = R"({"type": "record", "name": "org.tributary.Cross",
  "fields": [
    {"name": "id", "type": "int"},
    {"name": "big", "type": "long"},
    {"name": "name", "type": "string"},
    {"name": "score", "type": "double"},
    {"name": "ratio", "type": "float"},
    {"name": "flag", "type": "boolean"},
    {"name": "raw", "type": "bytes"},
    {"name": "opt", "type": ["null", "long"], "default": null},
    {"name": "tags", "type": {"type": "array", "items": "string"}},
    {"name": "attrs", "type": {"type": "map", "values": "int"}},
    {"name": "color", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN", "BLUE"]}},
    {"name": "nested", "type": {"type": "record", "name": "Nested", "fields": [
        {"name": "a", "type": "int"}, {"name": "b", "type": ["null", "string"]}]}},
    {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}}
  ]})";
constexpr int kCrossCheckRecords = 1000;

// Mirrored by expectedRecord() in tests/crosscheck/avro_avsc.js.
Datum CrossCheckDatum(int i) {
  DatumList tags;
  for (int j = 0; j < i % 4; ++j) tags.emplace_back("t" + std::to_string(j));
  DatumMap attrs;
  for (int j = 0; j < i % 3; ++j) attrs.emplace_back("k" + std::to_string(j), Datum(j * i));
  std::string raw;
  raw.push_back(static_cast<char>(i % 256));
  raw.push_back(static_cast<char>((i * 7) % 256));
  return Datum(DatumList{
      Datum(int32_t{i - 500}),
      Datum(int64_t{i - 500} * 1000000007),
      Datum("name-" + std::to_string(i) + "\xc3\xa9"),
      Datum(i * 0.25),
      Datum(static_cast<float>(i) * 0.5f),
      Datum(i % 3 == 0),
      Datum(std::move(raw)),
      i % 2 == 1 ? Datum() : Datum(int64_t{i} * 3),
      Datum(std::move(tags)),
      Datum(std::move(attrs)),
      Datum(int32_t{i % 3}),
      Datum(DatumList{Datum(int32_t{i}), i % 5 != 0 ? Datum("b" + std::to_string(i)) : Datum()}),
      Datum(int64_t{1754048761150} + i),
  });
}

const char* CrossCheckDir() { return std::getenv("TRIBUTARY_AVRO_CROSSCHECK_DIR"); }

TEST(AvroCrossCheck, DISABLED_WriteFilesForAvsc) {
  ASSERT_NE(CrossCheckDir(), nullptr) << "set TRIBUTARY_AVRO_CROSSCHECK_DIR";
  SchemaPtr schema = MustParse(kCrossCheckSchema);
  for (Codec codec : {Codec::kNull, Codec::kDeflate, Codec::kSnappy, Codec::kZstandard}) {
    auto writer = FileWriter::Make(schema, codec, 4096).value();
    for (int i = 0; i < kCrossCheckRecords; ++i) {
      ASSERT_TRUE(writer->Append(CrossCheckDatum(i)).ok());
    }
    const std::string bytes = writer->Finish().value();
    std::ofstream out(std::string(CrossCheckDir()) + "/tributary-" + CodecName(codec) + ".avro",
                      std::ios::binary);
    out << bytes;
    ASSERT_TRUE(out.good());
  }
}

TEST(AvroCrossCheck, DISABLED_ReadFilesWrittenByAvsc) {
  ASSERT_NE(CrossCheckDir(), nullptr) << "set TRIBUTARY_AVRO_CROSSCHECK_DIR";
  for (Codec codec : {Codec::kNull, Codec::kDeflate, Codec::kSnappy, Codec::kZstandard}) {
    const std::string path = std::string(CrossCheckDir()) + "/avsc-" + CodecName(codec) + ".avro";
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in.good()) << path;
    std::stringstream ss;
    ss << in.rdbuf();
    Result<std::unique_ptr<FileReader>> reader = FileReader::Open(ss.str());
    ASSERT_TRUE(reader.ok()) << path << ": " << reader.status().ToString();
    EXPECT_EQ((*reader)->codec(), codec);
    Result<std::vector<Datum>> all = (*reader)->ReadAll();
    ASSERT_TRUE(all.ok()) << path << ": " << all.status().ToString();
    ASSERT_EQ(all->size(), static_cast<size_t>(kCrossCheckRecords)) << path;
    for (int i = 0; i < kCrossCheckRecords; ++i) {
      ASSERT_EQ(WithoutBranches((*all)[i]), CrossCheckDatum(i)) << path << " record " << i;
    }
  }
}

}  // namespace
}  // namespace tributary::avro
