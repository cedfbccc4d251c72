// Numeric scalar functions (ROUND, FLOOR, POWER, the trigonometric ones, HEX, BIN, ...): each
// function's type rules and evaluation, and its row of the function registry (function_registry.h),
// with Flink's names and semantics. Internal to sql/.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <random>
#include <set>

#include "common/datetime.h"
#include "sql/binder/cast.h"
#include "sql/binder/function_registry.h"
#include "sql/binder/functions_internal.h"

namespace tributary::sql {

namespace {

// `v` rounded (half up) or truncated to `digits` places as a decimal, as Flink's ROUND and
// TRUNCATE of a DOUBLE round BigDecimal.valueOf(v): the shortest decimal that reads back as v,
// so ROUND(1.005, 2) is 1.01 though the binary value is a little below 1.005.
double RoundShortestDecimal(double v, int64_t digits, bool truncate) {
  if (!std::isfinite(v) || v == 0) return v;
  char buf[64];
  const auto written =
      std::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::scientific);
  const std::string sci(buf, written.ptr);  // d.ddde±x
  const size_t e = sci.find('e');
  std::string digs;
  for (size_t i = 0; i < e; i++) {
    if (sci[i] != '.') digs += sci[i];
  }
  const int64_t point = std::stoll(sci.substr(e + 1)) + 1;  // v = 0.<digs> * 10^point
  digits = std::clamp<int64_t>(digits, -400, 400);          // beyond: all digits, or none
  const int64_t keep = point + digits;                      // digits of digs kept
  if (keep >= static_cast<int64_t>(digs.size())) return v;
  if (keep < 0) return 0.0;
  const bool up = !truncate && digs[static_cast<size_t>(keep)] >= '5';
  std::string kept = keep == 0 ? "0" : digs.substr(0, static_cast<size_t>(keep));
  if (up) {
    size_t i = kept.size();
    while (i > 0 && kept[i - 1] == '9') kept[--i] = '0';
    if (i == 0)
      kept.insert(kept.begin(), '1');
    else
      kept[i - 1]++;
  }
  const std::string text = kept + "e" + std::to_string(point - keep);
  double out = 0;
  const auto parsed = std::from_chars(text.data(), text.data() + text.size(), out);
  if (parsed.ec == std::errc::result_out_of_range) return std::copysign(HUGE_VAL, v);
  return out == 0 ? 0.0 : std::copysign(out, v);
}

// x rounded (or truncated) to `digits` digits after the point, in x's own type.
Value RoundTo(const Value& x, const DataType& type, int64_t digits, bool truncate) {
  digits = std::clamp<int64_t>(digits, -400, 400);  // beyond: every digit kept, or none
  if (x.is_double()) return Value::Double(RoundShortestDecimal(x.double_value(), digits, truncate));
  // Integers and decimals: an unscaled integer with `scale` digits after the point.
  const int scale = x.is_decimal() ? type.scale : 0;
  const __int128 u = x.is_decimal() ? x.decimal_value().unscaled : x.int_value();
  const int64_t drop = static_cast<int64_t>(scale) - digits;
  if (drop <= 0) return x;
  if (drop > 38) return x.is_decimal() ? Value::Dec(Decimal{0}) : Value::Int(0);
  const __int128 p = Pow10(static_cast<int>(drop));
  __int128 q = u / p;
  const __int128 rem = u % p;
  if (!truncate && (rem >= p / 2 || -rem >= p / 2) && rem != 0) q += u < 0 ? -1 : 1;
  const __int128 r = q * p;
  return x.is_decimal() ? Value::Dec(Decimal{r}) : Value::Int(static_cast<int64_t>(r));
}

Status BindRound(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 2));
  TRIB_RETURN_NOT_OK(c.NumericArg(0));
  if (args.size() > 1) TRIB_RETURN_NOT_OK(c.IntArg(1));
  b.type = args[0]->type;
  // A DECIMAL rounded to a constant number of places has that scale (Flink's
  // findRoundDecimalType): ROUND(1.2345, 2) is DECIMAL(4, 2) 1.23, ROUND(2.5) DECIMAL(2, 0) 3.
  const bool constant_places =
      args.size() == 1 || (args[1]->IsConstant() && !args[1]->constant.is_null());
  if (b.type.id == TypeId::kDecimal && constant_places) {
    const int64_t r = args.size() == 1 ? 0 : args[1]->constant.int_value();
    const int p = b.type.precision, s = b.type.scale;
    if (r < 0) {
      b.type = DataType::Decimal(std::min(38, 1 + p - s), 0).WithNullable(b.type.nullable);
    } else if (r < s) {
      b.type = DataType::Decimal(static_cast<int>(1 + p - s + r), static_cast<int>(r))
                   .WithNullable(b.type.nullable);
    }
  }
  return Status::OK();
}

Status BindFloor(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.NumericArg(0));
  b.type = args[0]->type;
  if (b.type.id == TypeId::kDecimal) {
    b.type = DataType::Decimal(std::min(38, b.type.precision - b.type.scale + 1), 0)
                 .WithNullable(b.type.nullable);
  }
  return Status::OK();
}

Status BindPower(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(f == "LOG" ? c.Arity(1, 2) : c.Arity(2, 2));
  for (size_t i = 0; i < args.size(); i++) {
    TRIB_RETURN_NOT_OK(c.NumericArg(i));
    TRIB_RETURN_NOT_OK(c.As(i, DataType::Double()));
  }
  b.type = DataType::Double();
  return Status::OK();
}

Status BindSqrt(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.NumericArg(0));
  TRIB_RETURN_NOT_OK(c.As(0, DataType::Double()));
  b.type = DataType::Double();
  return Status::OK();
}

Status BindSign(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.NumericArg(0));
  b.type = args[0]->type;
  return Status::OK();
}

Status BindPi(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(0, 0));
  b.type = DataType::Double().NotNull();
  return Status::OK();
}

Status BindHex(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  if (!args[0]->type.IsString()) TRIB_RETURN_NOT_OK(c.IntArg(0));
  b.type = DataType::String();
  return Status::OK();
}

Status BindBin(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.IntArg(0));
  b.type = DataType::String();
  return Status::OK();
}

Status BindSin(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(f == "ATAN2" ? c.Arity(2, 2) : c.Arity(1, 1));
  for (size_t i = 0; i < args.size(); i++) {
    TRIB_RETURN_NOT_OK(c.NumericArg(i));
    TRIB_RETURN_NOT_OK(c.As(i, DataType::Double()));
  }
  b.type = DataType::Double();
  return Status::OK();
}

Result<Value> EvalPi(const BoundExpr& e, const std::vector<Value>& args) {
  return Value::Double(M_PI);
}

Result<Value> EvalRound(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  const DataType& in = e.args.empty() ? e.type : e.args[0]->type;
  Value r = RoundTo(args[0], in, args.size() > 1 ? args[1].int_value() : 0, f == "TRUNCATE");
  if (r.is_decimal() && e.type.id == TypeId::kDecimal && e.type.scale < in.scale) {
    // Rounded to e.type.scale places (or to tens and more: scale 0): exact.
    r = Value::Dec(Decimal{r.decimal_value().unscaled / Pow10(in.scale - e.type.scale)});
  }
  return r;
}

Result<Value> EvalFloor(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  const DataType& in = e.args.empty() ? e.type : e.args[0]->type;
  const bool up = f != "FLOOR";
  if (args[0].is_double()) {
    return Value::Double(up ? std::ceil(args[0].double_value())
                            : std::floor(args[0].double_value()));
  }
  if (args[0].is_int()) return args[0];
  const __int128 p = Pow10(in.scale);
  const __int128 u = args[0].decimal_value().unscaled;
  __int128 q = u / p;
  if (u % p != 0 && ((u > 0) == up)) q += up ? 1 : -1;
  return Value::Dec(Decimal{q});
}

Result<Value> EvalPower(const BoundExpr& e, const std::vector<Value>& args) {
  return Value::Double(std::pow(args[0].double_value(), args[1].double_value()));
}

Result<Value> EvalSqrt(const BoundExpr& e, const std::vector<Value>& args) {
  return Value::Double(std::sqrt(args[0].double_value()));
}

Result<Value> EvalLn(const BoundExpr& e, const std::vector<Value>& args) {
  return Value::Double(std::log(args[0].double_value()));
}

Result<Value> EvalLog10(const BoundExpr& e, const std::vector<Value>& args) {
  return Value::Double(std::log10(args[0].double_value()));
}

Result<Value> EvalLog2(const BoundExpr& e, const std::vector<Value>& args) {
  return Value::Double(std::log2(args[0].double_value()));
}

Result<Value> EvalLog(const BoundExpr& e, const std::vector<Value>& args) {
  if (args.size() == 1) return Value::Double(std::log(args[0].double_value()));
  return Value::Double(std::log(args[1].double_value()) / std::log(args[0].double_value()));
}

Result<Value> EvalExp(const BoundExpr& e, const std::vector<Value>& args) {
  return Value::Double(std::exp(args[0].double_value()));
}

Result<Value> EvalSign(const BoundExpr& e, const std::vector<Value>& args) {
  const DataType& in = e.args.empty() ? e.type : e.args[0]->type;
  if (args[0].is_int()) return Value::Int((args[0].int_value() > 0) - (args[0].int_value() < 0));
  if (args[0].is_double()) {
    const double d = args[0].double_value();
    return Value::Double(static_cast<double>((d > 0) - (d < 0)));
  }
  const __int128 u = args[0].decimal_value().unscaled;
  return Value::Dec(Decimal{((u > 0) - (u < 0)) * Pow10(in.scale)});
}

Result<Value> EvalHex(const BoundExpr& e, const std::vector<Value>& args) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  if (args[0].is_string()) {
    for (unsigned char c : args[0].string_value()) {
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
    return Value::String(std::move(out));
  }
  uint64_t u = static_cast<uint64_t>(args[0].int_value());
  do {
    out.insert(out.begin(), kHex[u & 15]);
    u >>= 4;
  } while (u != 0);
  return Value::String(std::move(out));
}

Result<Value> EvalBin(const BoundExpr& e, const std::vector<Value>& args) {
  uint64_t u = static_cast<uint64_t>(args[0].int_value());
  std::string out;
  do {
    out.insert(out.begin(), static_cast<char>('0' + (u & 1)));
    u >>= 1;
  } while (u != 0);
  return Value::String(std::move(out));
}

Result<Value> EvalAtan2(const BoundExpr& e, const std::vector<Value>& args) {
  return Value::Double(std::atan2(args[0].double_value(), args[1].double_value()));
}

Result<Value> EvalSin(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  const double x = args[0].double_value();
  if (f == "SIN") return Value::Double(std::sin(x));
  if (f == "COS") return Value::Double(std::cos(x));
  if (f == "TAN") return Value::Double(std::tan(x));
  if (f == "COT") return Value::Double(1.0 / std::tan(x));
  if (f == "ASIN") return Value::Double(std::asin(x));
  if (f == "ACOS") return Value::Double(std::acos(x));
  if (f == "ATAN") return Value::Double(std::atan(x));
  if (f == "SINH") return Value::Double(std::sinh(x));
  if (f == "COSH") return Value::Double(std::cosh(x));
  if (f == "TANH") return Value::Double(std::tanh(x));
  if (f == "DEGREES") return Value::Double(x * 180.0 / M_PI);
  return Value::Double(x * M_PI / 180.0);
}

}  // namespace

const std::vector<FunctionInfo>& NumericFunctions() {
  using K = FunctionKind;
  [[maybe_unused]] constexpr uint8_t N = kMayReturnNull, W = kReadsWallClock, V = kVolatile,
                                     S = kSeesNull;
  static const std::vector<FunctionInfo> kTable = {
      {"ROUND", K::kScalar, kNone, BindRound, EvalRound},
      {"TRUNCATE", K::kScalar, kNone, BindRound, EvalRound},
      {"FLOOR", K::kScalar, kNone, BindFloor, EvalFloor},
      {"CEIL", K::kScalar, kNone, BindFloor, EvalFloor},
      {"CEILING", K::kScalar, kNone, BindFloor, EvalFloor},
      {"POWER", K::kScalar, kNone, BindPower, EvalPower},
      {"POW", K::kScalar, kNone, BindPower, EvalPower},
      {"SQRT", K::kScalar, kNone, BindSqrt, EvalSqrt},
      {"LN", K::kScalar, kNone, BindSqrt, EvalLn},
      {"LOG10", K::kScalar, kNone, BindSqrt, EvalLog10},
      {"LOG2", K::kScalar, kNone, BindSqrt, EvalLog2},
      {"LOG", K::kScalar, N, BindPower, EvalLog},
      {"EXP", K::kScalar, kNone, BindSqrt, EvalExp},
      {"SIGN", K::kScalar, kNone, BindSign, EvalSign},
      {"PI", K::kScalar, S, BindPi, EvalPi},
      {"SIN", K::kScalar, kNone, BindSin, EvalSin},
      {"COS", K::kScalar, kNone, BindSin, EvalSin},
      {"TAN", K::kScalar, kNone, BindSin, EvalSin},
      {"COT", K::kScalar, kNone, BindSin, EvalSin},
      {"ASIN", K::kScalar, kNone, BindSin, EvalSin},
      {"ACOS", K::kScalar, kNone, BindSin, EvalSin},
      {"ATAN", K::kScalar, kNone, BindSin, EvalSin},
      {"ATAN2", K::kScalar, kNone, BindSin, EvalAtan2},
      {"SINH", K::kScalar, kNone, BindSin, EvalSin},
      {"COSH", K::kScalar, kNone, BindSin, EvalSin},
      {"TANH", K::kScalar, kNone, BindSin, EvalSin},
      {"DEGREES", K::kScalar, kNone, BindSin, EvalSin},
      {"RADIANS", K::kScalar, kNone, BindSin, EvalSin},
      {"HEX", K::kScalar, kNone, BindHex, EvalHex},
      {"BIN", K::kScalar, kNone, BindBin, EvalBin},
  };
  return kTable;
}

}  // namespace tributary::sql
