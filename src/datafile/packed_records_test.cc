// PackedRecords gives back every record as appended and finds every key's records: random
// records of every value kind (NULLs, booleans, integers at both ends of 64 bits, doubles,
// strings empty and long, small and large decimals, timestamps), keys with runs of duplicates
// across block boundaries and negative keys, against the records kept as rows.
#include "datafile/packed_records.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <random>

namespace tributary::datafile {
namespace {

struct Model {
  int64_t sequence;
  RowKind kind;
  Row value;
};

Value RandomValue(std::mt19937_64& rng) {
  switch (rng() % 9) {
    case 0:
      return Value::Null();
    case 1:
      return Value::Bool(rng() % 2 == 0);
    case 2:
      return Value::Int(static_cast<int64_t>(rng()));
    case 3:
      return Value::Int(rng() % 2 ? INT64_MIN : INT64_MAX);
    case 4:
      return Value::Double(static_cast<double>(static_cast<int64_t>(rng())) / 7.0);
    case 5:
      return Value::String(std::string(rng() % 3 == 0 ? 0 : rng() % 300, 'a' + rng() % 26));
    case 6:
      return Value::Dec(Decimal{static_cast<__int128>(static_cast<int64_t>(rng()))});
    case 7:
      return Value::Dec(Decimal{static_cast<__int128>(rng()) << 70 | 5});
    default:
      return Value::Ts(
          Timestamp{static_cast<int64_t>(rng()) / 3, static_cast<int32_t>(rng() % 1000000)});
  }
}

TEST(PackedRecordsTest, GivesBackEveryRecordAndFindsEveryKey) {
  std::mt19937_64 rng(7);
  for (int key_column : {0, 2}) {
    const size_t fields = 5;
    PackedRecords packed(fields, key_column);
    std::vector<Model> model;
    int64_t key = -1000;
    for (int i = 0; i < 3000; i++) {
      // Runs of one key (up to 40 records: across block boundaries), gaps of up to 1e12.
      if (rng() % 4 != 0)
        key += static_cast<int64_t>(rng() % 3 == 0 ? rng() % 1000000000000 : 1 + rng() % 9);
      Row row;
      for (size_t c = 0; c < fields; c++) {
        row.push_back(static_cast<int>(c) == key_column ? Value::Int(key) : RandomValue(rng));
      }
      const int64_t seq =
          rng() % 5 == 0 ? -static_cast<int64_t>(rng() % 1000) : static_cast<int64_t>(rng() >> 1);
      const auto kind = static_cast<RowKind>(rng() % 4);
      if (i % 50 == 7) {  // a refused record in the middle of a block changes nothing
        Row nested = row;
        nested[key_column == 0 ? 1 : 0] = Value::Array({Value::Int(1)});
        ASSERT_FALSE(packed.Append(seq, kind, nested));
      }
      ASSERT_TRUE(packed.Append(seq, kind, row));
      model.push_back({seq, kind, row});
    }
    packed.Finish();
    ASSERT_EQ(packed.size(), model.size());
    for (size_t i = 0; i < model.size(); i++) {
      int64_t seq;
      RowKind kind;
      Row value;
      packed.Get(i, &seq, &kind, &value);
      ASSERT_EQ(seq, model[i].sequence) << i;
      ASSERT_EQ(kind, model[i].kind) << i;
      ASSERT_EQ(value, model[i].value) << i;
    }
    auto key_of = [&](const Model& m) { return m.value[key_column].int_value(); };
    std::vector<int64_t> probes;
    for (const Model& m : model) probes.push_back(key_of(m));
    for (const Model& m : model) probes.push_back(key_of(m) + 1);  // mostly absent
    probes.push_back(INT64_MIN);
    probes.push_back(INT64_MAX);
    for (int64_t k : probes) {
      auto lo = std::partition_point(model.begin(), model.end(),
                                     [&](const Model& m) { return key_of(m) < k; });
      auto hi = std::partition_point(model.begin(), model.end(),
                                     [&](const Model& m) { return key_of(m) <= k; });
      const auto [first, last] = packed.EqualRange(k);
      ASSERT_EQ(last - first, static_cast<size_t>(hi - lo)) << k;
      ASSERT_EQ(first, static_cast<size_t>(lo - model.begin())) << k;
    }
  }
}

// Keys at both ends of 64 bits in one block (deltas wider than an int64_t), blocks exactly full
// (32 records), and a table of the key column alone (no tags).
TEST(PackedRecordsTest, ExtremeKeysFullBlocksAndKeyOnlyRecords) {
  for (size_t fields : {size_t{1}, size_t{2}}) {
    PackedRecords packed(fields, 0);
    std::vector<int64_t> keys = {INT64_MIN, INT64_MIN, -1, 0, 0, 1, INT64_MAX - 1, INT64_MAX};
    while (keys.size() < 32) keys.push_back(INT64_MAX);
    for (size_t i = 0; i < keys.size(); i++) {
      Row row{Value::Int(keys[i])};
      if (fields == 2) row.push_back(Value::Int(static_cast<int64_t>(i)));
      ASSERT_TRUE(packed.Append(static_cast<int64_t>(i), RowKind::kInsert, row));
    }
    EXPECT_FALSE(packed.Append(
        0, RowKind::kInsert,
        fields == 1 ? Row{Value::Int(5)} : Row{Value::Int(5), Value::Int(0)}));  // keys ascend
    packed.Finish();
    ASSERT_EQ(packed.size(), 32u);
    for (size_t i = 0; i < keys.size(); i++) {
      int64_t seq;
      RowKind kind;
      Row value;
      packed.Get(i, &seq, &kind, &value);
      ASSERT_EQ(value[0], Value::Int(keys[i])) << i;
      ASSERT_EQ(seq, static_cast<int64_t>(i));
      if (fields == 2) {
        ASSERT_EQ(value[1], Value::Int(static_cast<int64_t>(i)));
      }
    }
    EXPECT_EQ(packed.EqualRange(INT64_MIN), (std::pair<size_t, size_t>{0, 2}));
    EXPECT_EQ(packed.EqualRange(-2), (std::pair<size_t, size_t>{2, 2}));
    EXPECT_EQ(packed.EqualRange(0), (std::pair<size_t, size_t>{3, 5}));
    EXPECT_EQ(packed.EqualRange(2), (std::pair<size_t, size_t>{6, 6}));
    EXPECT_EQ(packed.EqualRange(INT64_MAX), (std::pair<size_t, size_t>{7, 32}));
  }
}

TEST(PackedRecordsTest, RefusesNestedValuesAndKeysThatAreNotIntegers) {
  PackedRecords packed(2, 0);
  EXPECT_FALSE(packed.Append(1, RowKind::kInsert, {Value::Int(1), Value::Array({Value::Int(2)})}));
  EXPECT_FALSE(packed.Append(1, RowKind::kInsert, {Value::String("k"), Value::Int(2)}));
  EXPECT_FALSE(packed.Append(1, RowKind::kInsert, {Value::Int(1)}));
  EXPECT_EQ(packed.size(), 0u);
  EXPECT_TRUE(packed.Append(1, RowKind::kInsert, {Value::Int(1), Value::Null()}));
  packed.Finish();
  const auto [first, last] = packed.EqualRange(1);
  EXPECT_EQ(first, 0u);
  EXPECT_EQ(last, 1u);
}

// About the bytes the values take: W1's rows (a key, two integers below 2^20, a double, three
// strings of 16-24 bytes) in at most 90 bytes a record, index included.
TEST(PackedRecordsTest, TakesAboutTheBytesOfTheValues) {
  PackedRecords packed(7, 0);
  std::mt19937_64 rng(3);
  const int n = 100000;
  for (int i = 0; i < n; i++) {
    Row row{Value::Int(8 * i), Value::Int(rng() % 1000000), Value::Int(rng() % 1000000),
            Value::Double(static_cast<double>(rng() % 1000000) / 100.0)};
    for (int s = 0; s < 3; s++) row.push_back(Value::String(std::string(16 + rng() % 9, 'x')));
    ASSERT_TRUE(packed.Append(rng() % 1000000, RowKind::kInsert, row));
  }
  packed.Finish();
  EXPECT_LT(packed.Bytes(), int64_t{90} * n);
}

}  // namespace
}  // namespace tributary::datafile
