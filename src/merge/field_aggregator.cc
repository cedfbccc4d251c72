#include "merge/field_aggregator.h"

#include <cmath>

namespace tributary::merge {
namespace {

Status Overflow(const std::string& fn, const DataType& t) {
  return Status::Invalid("aggregate function '" + fn + "' overflowed " + t.ToString());
}

// Range of an integer type.
void IntRange(const DataType& t, int64_t* lo, int64_t* hi) {
  switch (t.id) {
    case TypeId::kTinyInt:
      *lo = -128;
      *hi = 127;
      break;
    case TypeId::kSmallInt:
      *lo = -32768;
      *hi = 32767;
      break;
    case TypeId::kInt:
      *lo = -2147483648LL;
      *hi = 2147483647LL;
      break;
    default:
      *lo = INT64_MIN;
      *hi = INT64_MAX;
      break;
  }
}

__int128 DecimalLimit(const DataType& t) {
  __int128 r = 1;
  for (int i = 0; i < t.precision; i++) r *= 10;
  return r;
}

// sum, and its retraction.
class SumAgg : public FieldAggregator {
 public:
  SumAgg(std::string n, DataType t) : FieldAggregator(std::move(n), t) {}
  Result<Value> Agg(const Value& acc, const Value& in) override {
    if (in.is_null()) return acc;
    if (acc.is_null()) return in;
    return Add(acc, in, false);
  }
  Result<Value> Retract(const Value& acc, const Value& in) override {
    if (in.is_null()) return acc;
    if (acc.is_null()) return Negate(in);
    return Add(acc, in, true);
  }

 private:
  Result<Value> Negate(const Value& v) {
    if (v.is_double()) return Value::Double(-v.double_value());
    if (v.is_decimal()) return Value::Dec({-v.decimal_value().unscaled});
    int64_t lo, hi;
    IntRange(type_, &lo, &hi);
    if (v.int_value() == lo) return Overflow(name_, type_);
    return Value::Int(-v.int_value());
  }
  Result<Value> Add(const Value& a, const Value& b, bool subtract) {
    if (a.is_double()) {
      return Value::Double(subtract ? a.double_value() - b.double_value()
                                    : a.double_value() + b.double_value());
    }
    if (a.is_decimal()) {
      __int128 r = subtract ? a.decimal_value().unscaled - b.decimal_value().unscaled
                            : a.decimal_value().unscaled + b.decimal_value().unscaled;
      __int128 lim = DecimalLimit(type_);
      if (r >= lim || r <= -lim) return Overflow(name_, type_);
      return Value::Dec({r});
    }
    int64_t r;
    bool of = subtract ? __builtin_sub_overflow(a.int_value(), b.int_value(), &r)
                       : __builtin_add_overflow(a.int_value(), b.int_value(), &r);
    int64_t lo, hi;
    IntRange(type_, &lo, &hi);
    if (of || r < lo || r > hi) return Overflow(name_, type_);
    return Value::Int(r);
  }
};

class ProductAgg : public FieldAggregator {
 public:
  ProductAgg(std::string n, DataType t) : FieldAggregator(std::move(n), t) {}
  Result<Value> Agg(const Value& acc, const Value& in) override {
    if (in.is_null()) return acc;
    if (acc.is_null()) return in;
    if (acc.is_double()) return Value::Double(acc.double_value() * in.double_value());
    if (acc.is_decimal()) {
      // unscaled(a) * unscaled(b) / 10^scale
      __int128 r;
      if (__builtin_mul_overflow(acc.decimal_value().unscaled, in.decimal_value().unscaled, &r)) {
        return Overflow(name_, type_);
      }
      __int128 div = 1;
      for (int i = 0; i < type_.scale; i++) div *= 10;
      r /= div;
      if (r >= DecimalLimit(type_) || r <= -DecimalLimit(type_)) return Overflow(name_, type_);
      return Value::Dec({r});
    }
    int64_t r;
    int64_t lo, hi;
    IntRange(type_, &lo, &hi);
    if (__builtin_mul_overflow(acc.int_value(), in.int_value(), &r) || r < lo || r > hi) {
      return Overflow(name_, type_);
    }
    return Value::Int(r);
  }
  Result<Value> Retract(const Value& acc, const Value& in) override {
    if (in.is_null()) return acc;
    if (acc.is_null()) return Value();
    if (acc.is_double()) return Value::Double(acc.double_value() / in.double_value());
    if (acc.is_decimal()) {
      if (in.decimal_value().unscaled == 0) return Status::Invalid("product: retracting zero");
      __int128 mul = 1;
      for (int i = 0; i < type_.scale; i++) mul *= 10;
      return Value::Dec({acc.decimal_value().unscaled * mul / in.decimal_value().unscaled});
    }
    if (in.int_value() == 0)
      return Status::Invalid("aggregate function 'product' cannot retract 0");
    return Value::Int(acc.int_value() / in.int_value());
  }
};

class MaxMinAgg : public FieldAggregator {
 public:
  MaxMinAgg(std::string n, DataType t, bool max) : FieldAggregator(std::move(n), t), max_(max) {}
  Result<Value> Agg(const Value& acc, const Value& in) override {
    if (in.is_null()) return acc;
    if (acc.is_null()) return in;
    int c = CompareValues(in, acc);
    return (max_ ? c > 0 : c < 0) ? in : acc;
  }

 private:
  bool max_;
};

class LastValueAgg : public FieldAggregator {
 public:
  LastValueAgg(std::string n, DataType t) : FieldAggregator(std::move(n), t) {}
  Result<Value> Agg(const Value&, const Value& in) override { return in; }
  Result<Value> Retract(const Value&, const Value&) override { return Value(); }
};

class LastNonNullAgg : public FieldAggregator {
 public:
  LastNonNullAgg(std::string n, DataType t) : FieldAggregator(std::move(n), t) {}
  Result<Value> Agg(const Value& acc, const Value& in) override { return in.is_null() ? acc : in; }
  Result<Value> Retract(const Value& acc, const Value& in) override {
    return in.is_null() ? acc : Value();
  }
};

class FirstValueAgg : public FieldAggregator {
 public:
  FirstValueAgg(std::string n, DataType t) : FieldAggregator(std::move(n), t) {}
  void Reset() override { initialized_ = false; }
  Result<Value> Agg(const Value& acc, const Value& in) override {
    if (!initialized_) {
      initialized_ = true;
      return in;
    }
    return acc;
  }
  Result<Value> AggReversed(const Value& acc, const Value& in) override {
    initialized_ = true;
    return in;  // an older record's value is the first one
  }

 private:
  bool initialized_ = false;
};

class FirstNonNullAgg : public FieldAggregator {
 public:
  FirstNonNullAgg(std::string n, DataType t) : FieldAggregator(std::move(n), t) {}
  Result<Value> Agg(const Value& acc, const Value& in) override { return acc.is_null() ? in : acc; }
  Result<Value> AggReversed(const Value& acc, const Value& in) override {
    return in.is_null() ? acc : in;
  }
};

class ListAggAgg : public FieldAggregator {
 public:
  ListAggAgg(std::string n, DataType t, std::string delim)
      : FieldAggregator(std::move(n), t), delim_(std::move(delim)) {}
  Result<Value> Agg(const Value& acc, const Value& in) override {
    if (in.is_null()) return acc;
    if (acc.is_null()) return in;
    return Value::String(acc.string_value() + delim_ + in.string_value());
  }

 private:
  std::string delim_;
};

class BoolAgg : public FieldAggregator {
 public:
  BoolAgg(std::string n, DataType t, bool is_and)
      : FieldAggregator(std::move(n), t), and_(is_and) {}
  Result<Value> Agg(const Value& acc, const Value& in) override {
    if (in.is_null()) return acc;
    if (acc.is_null()) return in;
    return Value::Bool(and_ ? acc.bool_value() && in.bool_value()
                            : acc.bool_value() || in.bool_value());
  }

 private:
  bool and_;
};

}  // namespace

Result<Value> FieldAggregator::Retract(const Value&, const Value&) {
  return Status::Invalid("aggregate function '" + name_ +
                         "' does not support retraction (UPDATE_BEFORE/DELETE); set "
                         "'fields.<col>.ignore-retract' = 'true' to ignore them");
}

bool AggregatorSupportsRetract(const std::string& f) {
  return f == "sum" || f == "product" || f == "count" || f == "last_value" ||
         f == "last_non_null_value";
}

Result<std::unique_ptr<FieldAggregator>> FieldAggregator::Make(const std::string& fn,
                                                               const std::string& column,
                                                               const DataType& t,
                                                               const std::string& delimiter) {
  auto bad_type = [&]() {
    return Status::Invalid("aggregate function '" + fn + "' does not apply to column '" + column +
                           "' of type " + t.ToString());
  };
  using P = std::unique_ptr<FieldAggregator>;
  if (fn == "sum" || fn == "product") {
    if (!t.IsNumeric()) return bad_type();
    if (fn == "sum") return P(new SumAgg(fn, t));
    return P(new ProductAgg(fn, t));
  }
  if (fn == "count") {
    // Stored as a sum of per-record indicators (see AggregateMergeFunction), so that counts
    // merged in the write buffer, across files and in compaction all agree.
    if (t.id != TypeId::kInt && t.id != TypeId::kBigInt) return bad_type();
    return P(new SumAgg(fn, t));
  }
  if (fn == "max" || fn == "min") {
    if (t.id == TypeId::kBoolean || t.IsBinary()) return bad_type();
    return P(new MaxMinAgg(fn, t, fn == "max"));
  }
  if (fn == "last_value") return P(new LastValueAgg(fn, t));
  if (fn == "last_non_null_value") return P(new LastNonNullAgg(fn, t));
  if (fn == "first_value") return P(new FirstValueAgg(fn, t));
  if (fn == "first_non_null_value" || fn == "first_not_null_value") {
    return P(new FirstNonNullAgg("first_non_null_value", t));
  }
  if (fn == "listagg") {
    if (!t.IsString()) return bad_type();
    return P(new ListAggAgg(fn, t, delimiter));
  }
  if (fn == "bool_and" || fn == "bool_or") {
    if (t.id != TypeId::kBoolean) return bad_type();
    return P(new BoolAgg(fn, t, fn == "bool_and"));
  }
  return Status::Invalid("unknown aggregate function '" + fn + "' for column '" + column + "'");
}

}  // namespace tributary::merge
