#include "tributary/column_batch.h"

#include <gtest/gtest.h>

namespace tributary {
namespace {

ColumnVector Of(DataType type, const std::vector<Value>& values) {
  ColumnVector c;
  c.type = type;
  c.rep = ColumnVector::RepOf(type);
  for (const auto& v : values) c.Append(v);
  return c;
}

TEST(ColumnVector, RepresentationFollowsTheType) {
  EXPECT_EQ(ColumnVector::RepOf(DataType::BigInt()), ColumnVector::Rep::kInt);
  EXPECT_EQ(ColumnVector::RepOf(DataType::Date()), ColumnVector::Rep::kInt);
  EXPECT_EQ(ColumnVector::RepOf(DataType::Boolean()), ColumnVector::Rep::kInt);
  EXPECT_EQ(ColumnVector::RepOf(DataType::Float()), ColumnVector::Rep::kDouble);
  EXPECT_EQ(ColumnVector::RepOf(DataType::String()), ColumnVector::Rep::kString);
  EXPECT_EQ(ColumnVector::RepOf(DataType::Bytes()), ColumnVector::Rep::kString);
  EXPECT_EQ(ColumnVector::RepOf(DataType::Decimal(10, 2)), ColumnVector::Rep::kValue);
  EXPECT_EQ(ColumnVector::RepOf(DataType::Timestamp(3)), ColumnVector::Rep::kValue);
}

TEST(ColumnVector, AppendAndGetRoundTripWithNulls) {
  const std::vector<std::pair<DataType, std::vector<Value>>> cases = {
      {DataType::BigInt(), {Value::Int(1), Value::Null(), Value::Int(-7)}},
      {DataType::Boolean(), {Value::Bool(true), Value::Bool(false), Value::Null()}},
      {DataType::Double(), {Value::Null(), Value::Double(2.5), Value::Double(-0.0)}},
      {DataType::String(), {Value::String(""), Value::Null(), Value::String("long enough string")}},
      {DataType::Decimal(10, 2),
       {Value::Dec(Decimal{150}), Value::Null(), Value::Dec(Decimal{-1})}},
  };
  for (const auto& [type, values] : cases) {
    ColumnVector c = Of(type, values);
    ASSERT_EQ(c.size(), values.size()) << type.ToString();
    for (size_t i = 0; i < values.size(); i++) {
      EXPECT_EQ(c.Get(i), values[i]) << type.ToString() << " row " << i;
      EXPECT_EQ(c.IsNull(i), values[i].is_null()) << type.ToString() << " row " << i;
    }
    // Selected rows, in the order given, keep their NULLs.
    ColumnVector picked;
    picked.type = c.type;
    picked.rep = c.rep;
    picked.AppendRows(c, {2, 0, 1});
    ASSERT_EQ(picked.size(), 3u);
    EXPECT_EQ(picked.Get(0), values[2]);
    EXPECT_EQ(picked.Get(1), values[0]);
    EXPECT_EQ(picked.Get(2), values[1]);
    // Kept in place: rows 1 and 2 of `picked` (values 0 and 1), then appending goes on after.
    picked.KeepRows({1, 2});
    ASSERT_EQ(picked.size(), 2u);
    EXPECT_EQ(picked.Get(0), values[0]);
    EXPECT_EQ(picked.Get(1), values[1]);
    EXPECT_EQ(picked.IsNull(1), values[1].is_null());
    picked.AppendRows(c, {2});
    ASSERT_EQ(picked.size(), 3u);
    EXPECT_EQ(picked.Get(2), values[2]);
    picked.KeepRows({});
    EXPECT_EQ(picked.size(), 0u);
  }
}

TEST(ColumnVector, NullsAppearLazily) {
  ColumnVector c = Of(DataType::BigInt(), {Value::Int(1), Value::Int(2)});
  EXPECT_TRUE(c.nulls.empty());
  c.Append(Value::Null());
  EXPECT_EQ(c.nulls, (std::vector<uint8_t>{0, 0, 1}));
  ColumnVector d;
  d.type = c.type;
  d.rep = c.rep;
  d.AppendRows(c, {0, 1});
  d.AppendRows(c, {2});
  EXPECT_EQ(d.nulls, (std::vector<uint8_t>{0, 0, 1}));
  c.Clear();
  EXPECT_EQ(c.size(), 0u);
}

TEST(ColumnVector, AppendAllMovesEveryRowAndKeepsNulls) {
  for (const DataType& type : {DataType::BigInt(), DataType::String(), DataType::Decimal(8, 2)}) {
    ColumnVector a, b;
    a.type = b.type = type;
    a.rep = b.rep = ColumnVector::RepOf(type);
    auto v = [&](int i) {
      if (type.id == TypeId::kBigInt) return Value::Int(i);
      if (type.id == TypeId::kVarChar) return Value::String("s" + std::to_string(i));
      return Value::Dec(Decimal{i});
    };
    a.Append(v(1));
    a.Append(v(2));
    b.Append(Value::Null());
    b.Append(v(3));
    a.Reserve(8);
    a.AppendAll(std::move(b));
    ASSERT_EQ(a.size(), 4u);
    EXPECT_EQ(a.Get(1), v(2));
    EXPECT_TRUE(a.IsNull(2));
    EXPECT_EQ(a.Get(3), v(3));
    // Rows without NULLs appended after some: their null flags are filled in.
    ColumnVector c;
    c.type = type;
    c.rep = a.rep;
    c.Append(v(4));
    a.AppendAll(std::move(c));
    EXPECT_FALSE(a.IsNull(4));
    EXPECT_EQ(a.Get(4), v(4));
  }
}

}  // namespace
TEST(StringVector, AMovedFromVectorIsEmptyAndUsable) {
  StringVector a{"x", "yz"};
  StringVector b = std::move(a);
  EXPECT_EQ(b.size(), 2u);
  EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): the state is specified
  EXPECT_TRUE(a.empty());
  a.push_back("q");
  EXPECT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0], "q");
  StringVector c;
  c = std::move(b);
  EXPECT_EQ(c[1], "yz");
  b.append(c);
  EXPECT_EQ(b.size(), 2u);
}

TEST(StringVector, AppendsItself) {
  StringVector a{"ab", "", "c"};
  a.append(a);
  ASSERT_EQ(a.size(), 6u);
  EXPECT_EQ(a[3], "ab");
  EXPECT_EQ(a[4], "");
  EXPECT_EQ(a[5], "c");
  a.truncate(2);
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(a.bytes(), 2u);
}

}  // namespace tributary
