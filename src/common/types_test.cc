// Type strings of nested types (parse/print round trips, Flink and Paimon spellings) and the
// semantics of nested Values (deep equality, ordering, printing).
#include "tributary/types.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tributary/value.h"

namespace tributary {
namespace {

TEST(NestedTypeTest, ParsePrintRoundTrips) {
  for (const char* text : {
           "ARRAY<INT>",
           "ARRAY<INT NOT NULL> NOT NULL",
           "MAP<STRING, INT>",
           "MAP<INT NOT NULL, ARRAY<DECIMAL(10, 2)>>",
           "MULTISET<STRING>",
           "ROW<a INT, b STRING>",
           "ROW<a INT NOT NULL, b ROW<c ARRAY<TIMESTAMP(3) WITH LOCAL TIME ZONE>>> NOT NULL",
           "ROW<`a b` INT, `x``y` STRING>",
           "ROW<a INT COMMENT 'it''s a'>",
           "ARRAY<MAP<STRING, ROW<k BIGINT>>>",
       }) {
    auto t = DataType::Parse(text);
    ASSERT_TRUE(t.ok()) << text << ": " << t.status().ToString();
    EXPECT_EQ(t->ToString(), text);
    auto again = DataType::Parse(t->ToString());
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *t);
  }
}

TEST(NestedTypeTest, FlinkAndPaimonSpellings) {
  auto a = DataType::Parse("ROW(a INT, b STRING)");
  auto b = DataType::Parse("row<a integer, b varchar(2147483647)>");
  auto c = DataType::Parse("ROW<`a` INT, `b` STRING>");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(*a, *c);
  EXPECT_EQ(a->ToString(), "ROW<a INT, b STRING>");
  EXPECT_EQ(a->fields()[1].name, "b");
  auto m = DataType::Parse("MAP<STRING, ARRAY<INT>> NOT NULL");
  ASSERT_TRUE(m.ok());
  EXPECT_FALSE(m->nullable);
  EXPECT_EQ(m->key(), DataType::String());
  EXPECT_EQ(m->value(), DataType::Array(DataType::Int()));
  auto ms = DataType::Parse("MULTISET<STRING>");
  ASSERT_TRUE(ms.ok());
  EXPECT_EQ(ms->value(), DataType::Int().NotNull());
}

TEST(NestedTypeTest, BadTypesAreErrors) {
  for (const char* text : {"ARRAY", "ARRAY<>", "ARRAY<INT", "MAP<INT>", "ROW<a>", "ROW<a INT,>",
                           "ROW<a INT, a STRING>", "ARRAY<FOO>", "MAP<INT, INT> extra"}) {
    EXPECT_FALSE(DataType::Parse(text).ok()) << text;
  }
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "ARRAY<";
  deep += "INT";
  for (int i = 0; i < 100; ++i) deep += ">";
  EXPECT_FALSE(DataType::Parse(deep).ok());
}

TEST(NestedTypeTest, EqualityIsDeep) {
  DataType r1 = DataType::Row({{1, "a", DataType::Int(), ""}});
  DataType r2 = DataType::Row({{1, "a", DataType::Int(), ""}});
  DataType r3 = DataType::Row({{2, "a", DataType::Int(), ""}});
  EXPECT_EQ(r1, r2);
  EXPECT_NE(r1, r3);  // field ids count
  EXPECT_NE(DataType::Array(DataType::Int()), DataType::Array(DataType::Int().NotNull()));
  EXPECT_TRUE(
      DataType::Array(DataType::Int()).SameKind(DataType::Array(DataType::Int()).NotNull()));
  EXPECT_NE(DataType::Array(DataType::Int()), DataType::Multiset(DataType::Int()));
  EXPECT_TRUE(r1.IsNested());
  EXPECT_FALSE(DataType::Int().IsNested());
}

TEST(NestedValueTest, EqualityCompareAndFormat) {
  Value a = Value::Array({Value::Int(1), Value::Null(), Value::Int(3)});
  Value b = Value::Array({Value::Int(1), Value::Null(), Value::Int(3)});
  Value c = Value::Array({Value::Int(1), Value::Int(0)});
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_TRUE(a.is_array());
  EXPECT_FALSE(a.is_map());
  EXPECT_EQ(a.array_elements().size(), 3u);
  // Lexicographic, nulls lowest, shorter prefix first.
  EXPECT_LT(CompareValues(a, c), 0);
  EXPECT_LT(CompareValues(Value::Array({Value::Int(1)}), a), 0);
  EXPECT_EQ(CompareValues(a, b), 0);
  EXPECT_LT(CompareValues(Value::Null(), a), 0);

  DataType at = DataType::Array(DataType::Int());
  EXPECT_EQ(FormatValue(a, at), "[1, NULL, 3]");
  Value m = Value::Map({Value::String("k"), Value::String("z")}, {Value::Int(1), Value::Null()});
  EXPECT_TRUE(m.is_map());
  EXPECT_EQ(FormatValue(m, DataType::Map(DataType::String(), DataType::Int())), "{k=1, z=NULL}");
  DataType rt = DataType::Row({{0, "x", DataType::Double(), ""}, {1, "s", DataType::String(), ""}});
  Value r = Value::Struct({Value::Double(1.5), Value::String("hi")});
  EXPECT_TRUE(r.is_struct());
  EXPECT_EQ(FormatValue(r, rt), "(1.5, hi)");
  EXPECT_EQ(FormatValue(Value::Array({r, Value::Null()}), DataType::Array(rt)),
            "[(1.5, hi), NULL]");
  EXPECT_EQ(DebugString(m), "{'k'=1, 'z'=NULL}");
  // Copies share the payload and stay equal.
  Value copy = m;
  EXPECT_EQ(copy, m);
  EXPECT_EQ(&copy.nested(), &m.nested());
  // Never crashes on a value of the wrong shape.
  EXPECT_FALSE(FormatValue(Value::Int(3), at).empty());
  EXPECT_FALSE(FormatValue(a, DataType::Int()).empty());
}

TEST(NestedValueTest, FlatValuesUnchanged) {
  EXPECT_EQ(Value::Int(1), Value::Int(1));
  EXPECT_NE(Value::Int(1), Value::String("1"));
  EXPECT_NE(Value::Double(std::nan("")), Value::Double(std::nan("")));
  EXPECT_LE(sizeof(Value), 48u);
}

}  // namespace
}  // namespace tributary
