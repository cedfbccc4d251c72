// Evaluation of bound expressions over one row (see expression.h).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>

#include "common/datetime.h"
#include "sql/binder/cast.h"
#include "sql/binder/correlated.h"
#include "sql/binder/expression.h"
#include "sql/binder/functions.h"

namespace tributary::sql {

std::vector<uint32_t> CodePoints(const std::string& s) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    uint32_t cp = n == 1 ? c : c & (0xFF >> (n + 1));
    for (int k = 1; k < n && i + k < s.size(); ++k) cp = (cp << 6) | (s[i + k] & 0x3F);
    out.push_back(cp);
    i += n;
  }
  return out;
}

namespace {

bool LikeMatch(const std::vector<uint32_t>& s, const std::vector<uint32_t>& p, int64_t escape) {
  size_t si = 0, pi = 0, star_p = std::string::npos, star_s = 0;
  while (si < s.size()) {
    if (pi < p.size()) {
      uint32_t pc = p[pi];
      if (escape >= 0 && pc == static_cast<uint32_t>(escape) && pi + 1 < p.size()) {
        if (p[pi + 1] == s[si]) {
          pi += 2;
          ++si;
          continue;
        }
      } else if (pc == '%') {
        star_p = pi++;
        star_s = si;
        continue;
      } else if (pc == '_' || pc == s[si]) {
        ++pi;
        ++si;
        continue;
      }
    }
    if (star_p == std::string::npos) return false;
    pi = star_p + 1;
    si = ++star_s;
  }
  while (pi < p.size() && p[pi] == '%') ++pi;
  return pi == p.size();
}

std::string Substring(const std::string& s, int64_t start, std::optional<int64_t> len) {
  // SQL: 1-based; a start before 1 eats into the length.
  std::vector<size_t> offsets;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) offsets.push_back(i);
  }
  int64_t n = static_cast<int64_t>(offsets.size());
  int64_t from = start - 1;
  int64_t to = len ? from + *len : n;
  if (start <= 0 && !len) from = 0;
  from = std::max<int64_t>(from, 0);
  to = std::min(to, n);
  if (to <= from) return "";
  size_t b = offsets[from];
  size_t e = to < n ? offsets[to] : s.size();
  return s.substr(b, e - b);
}

Timestamp NowTimestamp(bool local) {
  auto now = std::chrono::system_clock::now();
  int64_t millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  if (local && SessionZone() != nullptr) return InstantToLocal(Timestamp{millis, 0});
  if (local) {
    // No session zone set: the machine's wall clock.
    std::time_t secs = static_cast<std::time_t>(millis / 1000);
    std::tm tm{};
    localtime_r(&secs, &tm);
    millis += static_cast<int64_t>(tm.tm_gmtoff) * 1000;
  }
  return Timestamp{millis, 0};
}

Status ArithmeticOverflow(const BoundExpr& e) {
  return Status::Invalid("numeric overflow in '" + e.op + "': result does not fit " +
                         TypeName(e.type));
}

Result<Value> EvalArithmetic(const BoundExpr& e, const Value& a, const Value& b) {
  const DataType& ta = e.args[0]->type;
  const DataType& tb = e.args[1]->type;
  char op = e.op[0];
  if (e.type.IsFloating()) {
    double x = a.double_value(), y = b.double_value(), r = 0;
    switch (op) {
      case '+':
        r = x + y;
        break;
      case '-':
        r = x - y;
        break;
      case '*':
        r = x * y;
        break;
      case '/':
        if (y == 0) return Status::Invalid("division by zero");
        r = x / y;
        break;
      case '%':
        if (y == 0) return Status::Invalid("division by zero");
        r = std::fmod(x, y);
        break;
    }
    if (e.type.id == TypeId::kFloat) r = static_cast<float>(r);
    return Value::Double(r);
  }
  if (e.type.IsInteger()) {
    int64_t x = a.int_value(), y = b.int_value();
    __int128 r = 0;
    switch (op) {
      case '+':
        r = static_cast<__int128>(x) + y;
        break;
      case '-':
        r = static_cast<__int128>(x) - y;
        break;
      case '*':
        r = static_cast<__int128>(x) * y;
        break;
      case '/':
        if (y == 0) return Status::Invalid("division by zero");
        r = static_cast<__int128>(x) / y;
        break;
      case '%':
        if (y == 0) return Status::Invalid("division by zero");
        r = static_cast<__int128>(x) % y;
        break;
    }
    int64_t lo, hi;
    switch (e.type.id) {
      case TypeId::kTinyInt:
        lo = -128;
        hi = 127;
        break;
      case TypeId::kSmallInt:
        lo = -32768;
        hi = 32767;
        break;
      case TypeId::kInt:
        lo = INT32_MIN;
        hi = INT32_MAX;
        break;
      default:
        lo = INT64_MIN;
        hi = INT64_MAX;
    }
    if (r < lo || r > hi) return ArithmeticOverflow(e);
    return Value::Int(static_cast<int64_t>(r));
  }
  // DECIMAL: operands are decimals with their own scales.
  __int128 x = a.decimal_value().unscaled, y = b.decimal_value().unscaled;
  int32_t sx = ta.scale, sy = tb.scale, s = e.type.scale;
  const __int128 kMax = std::numeric_limits<__int128>::max() / 100;
  auto rescale = [&](__int128 v, int32_t from, int32_t to, __int128* out) -> bool {
    if (to >= from) {
      __int128 f = Pow10(to - from);
      if (v > kMax / f || v < -kMax / f) return false;
      *out = v * f;
    } else {
      __int128 f = Pow10(from - to);
      __int128 q = v / f, rem = v % f;
      if (rem < 0) rem = -rem;
      if (rem * 2 >= f) q += v < 0 ? -1 : 1;
      *out = q;
    }
    return true;
  };
  __int128 r = 0;
  switch (op) {
    case '+':
    case '-':
    case '%': {
      __int128 xs, ys;
      if (!rescale(x, sx, s, &xs) || !rescale(y, sy, s, &ys)) return ArithmeticOverflow(e);
      if (op == '%') {
        if (ys == 0) return Status::Invalid("division by zero");
        r = xs % ys;
      } else {
        r = op == '+' ? xs + ys : xs - ys;
      }
      break;
    }
    case '*': {
      // x * y has scale sx + sy; bring it to s.
      auto limit = std::numeric_limits<__int128>::max();
      if (x != 0 && (y > limit / (x < 0 ? -x : x) || y < -limit / (x < 0 ? -x : x))) {
        return ArithmeticOverflow(e);
      }
      if (!rescale(x * y, sx + sy, s, &r)) return ArithmeticOverflow(e);
      break;
    }
    case '/': {
      if (y == 0) return Status::Invalid("division by zero");
      // x / y with scale s: x * 10^(s - sx + sy + 1) / y, then round off the extra digit.
      int32_t shift = s - sx + sy + 1;
      __int128 num;
      if (shift >= 0) {
        if (!rescale(x, 0, shift, &num)) return ArithmeticOverflow(e);
      } else {
        num = x / Pow10(-shift);
      }
      __int128 q = num / y;
      __int128 rem = q % 10;
      q /= 10;
      if (rem >= 5) ++q;
      if (rem <= -5) --q;
      r = q;
      break;
    }
  }
  __int128 limit = Pow10(e.type.precision);
  if (r >= limit || r <= -limit) return ArithmeticOverflow(e);
  return Value::Dec(Decimal{r});
}

Result<Value> EvalFunction(const BoundExpr& e, const Row& row) {
  const std::string& f = e.op;
  if (f == "COALESCE" || f == "IFNULL") {
    for (const auto& a : e.args) {
      TRIB_ASSIGN_OR_RETURN(Value v, Evaluate(*a, row));
      if (!v.is_null()) return v;
    }
    return Value::Null();
  }
  if (f == "CURRENT_TIMESTAMP" || f == "NOW" || f == "PROCTIME") {
    return Value::Ts(NowTimestamp(false));
  }
  if (f == "LOCALTIMESTAMP") return Value::Ts(NowTimestamp(true));
  if (f == "CURRENT_DATE") {
    int64_t ms = NowTimestamp(true).millis;
    return Value::Int(ms >= 0 ? ms / 86400000 : -((-ms + 86399999) / 86400000));
  }
  if (f == "CURRENT_TIME")
    return Value::Int(((NowTimestamp(true).millis % 86400000) + 86400000) % 86400000);
  std::vector<Value> args;
  for (const auto& a : e.args) {
    TRIB_ASSIGN_OR_RETURN(Value v, Evaluate(*a, row));
    args.push_back(std::move(v));
  }
  if (IsScalarFunction(f)) {
    auto r = EvalScalarFunction(e, args);
    if (!r.ok()) return ErrorAt(e.pos, r.status().message());
    return r;
  }
  // Nested value constructors and accessors.
  if (f == "ARRAY") return Value::Array(std::move(args));
  if (f == "ROW") return Value::Struct(std::move(args));
  if (f == "MAP") {
    // Later duplicates of a key replace earlier ones (as Flink's MAP[...] does).
    std::vector<Value> keys, values;
    for (size_t i = 0; i + 1 < args.size(); i += 2) {
      if (args[i].is_null()) return Status::Invalid("a MAP key must not be NULL");
      bool replaced = false;
      for (size_t k = 0; k < keys.size(); ++k) {
        if (CompareSame(keys[k], args[i]) == 0) {
          values[k] = args[i + 1];
          replaced = true;
        }
      }
      if (!replaced) {
        keys.push_back(args[i]);
        values.push_back(args[i + 1]);
      }
    }
    return Value::Map(std::move(keys), std::move(values));
  }
  if (f == "ITEM") {
    // arr[i] is 1-based; out of range gives NULL. map[k] is the value of k, or NULL.
    if (args[0].is_null() || args[1].is_null()) return Value::Null();
    if (args[0].is_array()) {
      int64_t i = args[1].int_value();
      const auto& items = args[0].array_elements();
      if (i < 1 || i > static_cast<int64_t>(items.size())) return Value::Null();
      return items[static_cast<size_t>(i - 1)];
    }
    if (args[0].is_map()) {
      const auto& keys = args[0].map_keys();
      for (size_t k = 0; k < keys.size(); ++k) {
        if (CompareSame(keys[k], args[1]) == 0) return args[0].map_values()[k];
      }
      return Value::Null();
    }
    return Value::Null();
  }
  if (f == "FIELD") {
    if (args[0].is_null() || !args[0].is_struct()) return Value::Null();
    const auto& fields = args[0].struct_fields();
    if (e.column < 0 || static_cast<size_t>(e.column) >= fields.size()) return Value::Null();
    return fields[static_cast<size_t>(e.column)];
  }
  if (f == "CARDINALITY") {
    if (args[0].is_null()) return Value::Null();
    return Value::Int(static_cast<int64_t>(args[0].nested().items.size()));
  }
  if (f == "IS_TRUE") return Value::Bool(!args[0].is_null() && args[0].bool_value());
  if (f == "IS_FALSE") return Value::Bool(!args[0].is_null() && !args[0].bool_value());
  if (f == "NULLIF") {
    if (args[0].is_null() || args[1].is_null()) return args[0];
    return CompareSame(args[0], args[1]) == 0 ? Value::Null() : args[0];
  }
  if (f == "CONCAT") {
    std::string out;
    for (const auto& v : args) {
      if (v.is_null()) return Value::Null();
      out += v.string_value();
    }
    return Value::String(std::move(out));
  }
  for (const auto& v : args) {
    if (v.is_null()) return Value::Null();
  }
  if (f == "UPPER" || f == "LOWER") {
    std::string s = args[0].string_value();
    for (char& c : s) {
      c = static_cast<char>(f == "UPPER" ? std::toupper(static_cast<unsigned char>(c))
                                         : std::tolower(static_cast<unsigned char>(c)));
    }
    return Value::String(std::move(s));
  }
  if (f == "LENGTH" || f == "CHAR_LENGTH" || f == "CHARACTER_LENGTH") {
    return Value::Int(static_cast<int64_t>(CodePoints(args[0].string_value()).size()));
  }
  if (f == "SUBSTRING" || f == "SUBSTR") {
    std::optional<int64_t> len;
    if (args.size() > 2) {
      len = args[2].int_value();
      if (*len < 0) return Status::Invalid("negative length in SUBSTRING");
    }
    return Value::String(Substring(args[0].string_value(), args[1].int_value(), len));
  }
  if (f == "TRIM" || f == "LTRIM" || f == "RTRIM") {
    const std::string& s = args[0].string_value();
    const std::string chars = args.size() > 1 ? args[1].string_value() : " ";
    // Whole UTF-8 characters: a character is trimmed when `chars` holds it.
    auto char_len = [](unsigned char c) {
      return c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    };
    auto held = [&](size_t at, size_t len) {
      for (size_t i = 0; i < chars.size(); i += char_len(static_cast<unsigned char>(chars[i]))) {
        const size_t l = char_len(static_cast<unsigned char>(chars[i]));
        if (l == len && chars.compare(i, l, s, at, len) == 0) return true;
      }
      return false;
    };
    size_t b = 0, end = s.size();
    if (f != "RTRIM") {
      while (b < end) {
        const size_t l =
            std::min(end - b, static_cast<size_t>(char_len(static_cast<unsigned char>(s[b]))));
        if (!held(b, l)) break;
        b += l;
      }
    }
    if (f != "LTRIM") {
      while (end > b) {
        size_t start = end - 1;  // back to the lead byte of the last character
        while (start > b && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
        if (!held(start, end - start)) break;
        end = start;
      }
    }
    return Value::String(s.substr(b, end - b));
  }
  if (f == "ABS") {
    if (args[0].is_int()) {
      if (args[0].int_value() == INT64_MIN) return ArithmeticOverflow(e);
      return Value::Int(std::llabs(args[0].int_value()));
    }
    if (args[0].is_double()) return Value::Double(std::fabs(args[0].double_value()));
    __int128 u = args[0].decimal_value().unscaled;
    return Value::Dec(Decimal{u < 0 ? -u : u});
  }
  return Status::Internal("function " + f + " has no implementation");
}

}  // namespace

Result<Value> Evaluate(const BoundExpr& e, const Row& row) {
  switch (e.kind) {
    case BoundKind::kConstant:
      return e.constant;
    case BoundKind::kColumn:
      if (e.column < 0 || static_cast<size_t>(e.column) >= row.size()) {
        return Status::Internal("column slot out of range");
      }
      return row[e.column];
    case BoundKind::kNegate:
    case BoundKind::kArithmetic: {
      TRIB_ASSIGN_OR_RETURN(Value a, Evaluate(*e.args[0], row));
      TRIB_ASSIGN_OR_RETURN(Value b, Evaluate(*e.args[1], row));
      if (a.is_null() || b.is_null()) return Value::Null();
      auto r = EvalArithmetic(e, a, b);
      if (!r.ok()) return ErrorAt(e.pos, r.status().message());
      return r;
    }
    case BoundKind::kNot: {
      TRIB_ASSIGN_OR_RETURN(Value a, Evaluate(*e.args[0], row));
      if (a.is_null()) return a;
      return Value::Bool(!a.bool_value());
    }
    case BoundKind::kAnd:
    case BoundKind::kOr: {
      bool is_and = e.kind == BoundKind::kAnd;
      TRIB_ASSIGN_OR_RETURN(Value a, Evaluate(*e.args[0], row));
      if (!a.is_null() && a.bool_value() != is_and) return a;  // short circuit
      TRIB_ASSIGN_OR_RETURN(Value b, Evaluate(*e.args[1], row));
      if (!b.is_null() && b.bool_value() != is_and) return b;
      if (a.is_null() || b.is_null()) return Value::Null();
      return Value::Bool(is_and);
    }
    case BoundKind::kCompare: {
      TRIB_ASSIGN_OR_RETURN(Value a, Evaluate(*e.args[0], row));
      TRIB_ASSIGN_OR_RETURN(Value b, Evaluate(*e.args[1], row));
      if (a.is_null() || b.is_null()) return Value::Null();
      int c = CompareSame(a, b);
      const std::string& op = e.op;
      bool r = op == "="    ? c == 0
               : op == "<>" ? c != 0
               : op == "<"  ? c < 0
               : op == "<=" ? c <= 0
               : op == ">"  ? c > 0
                            : c >= 0;
      return Value::Bool(r);
    }
    case BoundKind::kConcat: {
      TRIB_ASSIGN_OR_RETURN(Value a, Evaluate(*e.args[0], row));
      TRIB_ASSIGN_OR_RETURN(Value b, Evaluate(*e.args[1], row));
      if (a.is_null() || b.is_null()) return Value::Null();
      return Value::String(a.string_value() + b.string_value());
    }
    case BoundKind::kFunction:
      return EvalFunction(e, row);
    case BoundKind::kCase: {
      size_t pairs = (e.args.size() - (e.has_else ? 1 : 0)) / 2;
      for (size_t k = 0; k < pairs; ++k) {
        TRIB_ASSIGN_OR_RETURN(Value c, Evaluate(*e.args[2 * k], row));
        if (!c.is_null() && c.bool_value()) return Evaluate(*e.args[2 * k + 1], row);
      }
      if (e.has_else) return Evaluate(*e.args.back(), row);
      return Value::Null();
    }
    case BoundKind::kCast: {
      TRIB_ASSIGN_OR_RETURN(Value a, Evaluate(*e.args[0], row));
      auto r = CastValue(a, e.args[0]->type, e.type, static_cast<CastMode>(e.cast_mode));
      if (!r.ok()) {
        if (e.negated) return Value::Null();  // TRY_CAST
        return ErrorAt(e.pos, r.status().message());
      }
      return r;
    }
    case BoundKind::kIn: {
      TRIB_ASSIGN_OR_RETURN(Value a, Evaluate(*e.args[0], row));
      if (a.is_null()) {
        // NULL IN (an empty subquery) is FALSE; otherwise NULL.
        if (e.in_set && e.in_set->empty() && !e.in_set_has_null) return Value::Bool(e.negated);
        return Value::Null();
      }
      if (e.in_set) {
        std::string key;
        AppendKey(a, &key);
        if (e.in_set->count(key)) return Value::Bool(!e.negated);
        if (e.in_set_has_null) return Value::Null();
        return Value::Bool(e.negated);
      }
      bool saw_null = false;
      for (size_t k = 1; k < e.args.size(); ++k) {
        TRIB_ASSIGN_OR_RETURN(Value v, Evaluate(*e.args[k], row));
        if (v.is_null()) {
          saw_null = true;
        } else if (CompareSame(a, v) == 0) {
          return Value::Bool(!e.negated);
        }
      }
      if (saw_null) return Value::Null();
      return Value::Bool(e.negated);
    }
    case BoundKind::kLike: {
      TRIB_ASSIGN_OR_RETURN(Value s, Evaluate(*e.args[0], row));
      TRIB_ASSIGN_OR_RETURN(Value p, Evaluate(*e.args[1], row));
      int64_t escape = -1;
      if (e.args.size() > 2) {
        TRIB_ASSIGN_OR_RETURN(Value esc, Evaluate(*e.args[2], row));
        if (esc.is_null()) return Value::Null();
        auto cps = CodePoints(esc.string_value());
        if (cps.size() != 1) return ErrorAt(e.pos, "ESCAPE must be a single character");
        escape = cps[0];
      }
      if (s.is_null() || p.is_null()) return Value::Null();
      bool m = LikeMatch(CodePoints(s.string_value()), CodePoints(p.string_value()), escape);
      return Value::Bool(m != e.negated);
    }
    case BoundKind::kIsNull: {
      TRIB_ASSIGN_OR_RETURN(Value a, Evaluate(*e.args[0], row));
      return Value::Bool(a.is_null() != e.negated);
    }
    case BoundKind::kSubquery:
      return e.correlated->Evaluate(e, row);
  }
  return Status::Internal("unknown bound expression");
}

Result<std::shared_ptr<const CorrelatedSubquery::Outcome>> CorrelatedSubquery::Run(
    const BoundExpr& e, std::vector<Value> outer) {
  std::string key;
  for (const Value& v : outer) AppendKey(v, &key);
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  Row row(scope.columns.size());
  for (size_t i = 0; i < columns.size(); i++) row[columns[i]] = std::move(outer[i]);
  OuterFrame frame;
  frame.scope = &scope;
  frame.row = &row;
  TRIB_ASSIGN_OR_RETURN(QueryRows ran, run(&frame, /*plan_only=*/false));
  auto out = std::make_shared<Outcome>();
  const std::vector<Row>& rows = ran.second;
  out->any = !rows.empty();
  if (form == ExprKind::kSubquery) {
    if (rows.size() > 1) {
      return ErrorAt(e.pos, "a scalar subquery returned " + std::to_string(rows.size()) +
                                " rows; it may return at most one");
    }
    if (!rows.empty()) out->scalar = rows[0][0];
  } else if (form == ExprKind::kIn) {
    for (const Row& r : rows) {
      if (r[0].is_null()) {
        out->has_null = true;
        continue;
      }
      auto v = CastValue(r[0], value_type, common, CastMode::kExplicit);
      if (!v.ok()) return ErrorAt(e.pos, v.status().message());
      std::string k;
      AppendKey(*v, &k);
      out->set->insert(std::move(k));
    }
  }
  if (cache_.size() >= kMaxCached) cache_.clear();
  cache_.emplace(std::move(key), out);
  return std::shared_ptr<const Outcome>(std::move(out));
}

Result<Value> CorrelatedSubquery::Evaluate(const BoundExpr& e, const Row& row) {
  std::vector<Value> outer;
  outer.reserve(columns.size());
  for (size_t i = 0; i < columns.size(); i++) {
    TRIB_ASSIGN_OR_RETURN(Value v, sql::Evaluate(*e.args[i], row));
    outer.push_back(std::move(v));
  }
  if (form == ExprKind::kIn) {
    // NULL IN (no rows) is FALSE, NULL IN (some rows) NULL: the left side is evaluated first,
    // but the subquery must run to tell the two apart.
    TRIB_ASSIGN_OR_RETURN(Value a, sql::Evaluate(*e.args[columns.size()], row));
    TRIB_ASSIGN_OR_RETURN(auto out, Run(e, std::move(outer)));
    if (a.is_null()) return out->any ? Value::Null() : Value::Bool(negated);
    std::string key;
    AppendKey(a, &key);
    if (out->set->count(key)) return Value::Bool(!negated);
    if (out->has_null) return Value::Null();
    return Value::Bool(negated);
  }
  TRIB_ASSIGN_OR_RETURN(auto out, Run(e, std::move(outer)));
  if (form == ExprKind::kExists) return Value::Bool(out->any != negated);
  return out->scalar;
}

Result<BoundExprPtr> CorrelatedSubquery::Resolve(BoundExprPtr e) {
  TRIB_ASSIGN_OR_RETURN(auto out, Run(*e, {}));
  if (form == ExprKind::kExists) {
    return MakeConstant(Value::Bool(out->any != negated), DataType::Boolean().NotNull(), e->pos);
  }
  if (form == ExprKind::kSubquery) {
    return MakeConstant(out->any ? out->scalar : Value::Null(), value_type.WithNullable(true),
                        e->pos);
  }
  auto in = std::make_unique<BoundExpr>();
  in->kind = BoundKind::kIn;
  in->type = DataType::Boolean();
  in->pos = e->pos;
  in->negated = negated;
  in->args.push_back(std::move(e->args[0]));
  in->in_set = out->set;
  in->in_set_has_null = out->has_null;
  return BoundExprPtr(std::move(in));
}

namespace {
bool IsDeferred(const BoundExpr& e) {
  return e.kind == BoundKind::kSubquery && e.correlated->columns.empty();
}
}  // namespace

Status ResolveSubqueries(BoundExprPtr* e, bool* changed) {
  for (auto& a : (*e)->args) TRIB_RETURN_NOT_OK(ResolveSubqueries(&a, changed));
  if (!IsDeferred(**e)) return Status::OK();
  std::shared_ptr<CorrelatedSubquery> c = (*e)->correlated;
  TRIB_ASSIGN_OR_RETURN(*e, c->Resolve(std::move(*e)));
  if (changed) *changed = true;
  return Status::OK();
}

bool HasDeferredSubquery(const BoundExpr& e) {
  if (IsDeferred(e)) return true;
  for (const auto& a : e.args) {
    if (HasDeferredSubquery(*a)) return true;
  }
  return false;
}

bool SqlLike(std::string_view s, std::string_view pattern) {
  return LikeMatch(CodePoints(std::string(s)), CodePoints(std::string(pattern)), -1);
}

Result<bool> EvaluatePredicate(const BoundExpr& e, const Row& row) {
  TRIB_ASSIGN_OR_RETURN(Value v, Evaluate(e, row));
  return !v.is_null() && v.bool_value();
}

void CollectColumns(const BoundExpr& e, std::vector<bool>* used) {
  if (e.kind == BoundKind::kColumn && e.column >= 0) {
    if (static_cast<size_t>(e.column) >= used->size()) used->resize(e.column + 1, false);
    (*used)[e.column] = true;
  }
  for (const auto& a : e.args) CollectColumns(*a, used);
}

BoundExprPtr CloneBound(const BoundExpr& e) {
  auto c = std::make_unique<BoundExpr>();
  c->kind = e.kind;
  c->type = e.type;
  c->null_literal = e.null_literal;
  c->pos = e.pos;
  c->constant = e.constant;
  c->column = e.column;
  c->op = e.op;
  c->args.reserve(e.args.size());
  for (const auto& a : e.args) c->args.push_back(CloneBound(*a));
  c->negated = e.negated;
  c->has_else = e.has_else;
  c->cast_mode = e.cast_mode;
  c->in_set = e.in_set;
  c->in_set_has_null = e.in_set_has_null;
  c->correlated = e.correlated;
  return c;
}

namespace {
void DescribeCorrelated(const BoundExpr& e, std::string* out) {
  if (IsDeferred(e)) {
    *out += "; a subquery run once when the query starts";
  } else if (e.kind == BoundKind::kSubquery) {
    const CorrelatedSubquery& c = *e.correlated;
    std::string by;
    for (int col : c.columns) {
      const ScopeColumn& sc = c.scope.columns[col];
      by += (by.empty() ? "" : ", ") + (sc.qualifier.empty() ? "" : sc.qualifier + ".") + sc.name;
    }
    *out += "; a correlated subquery run per row (once per distinct " + by + ")";
  }
  for (const auto& a : e.args) DescribeCorrelated(*a, out);
}
}  // namespace

std::string DescribeCorrelated(const std::vector<BoundExprPtr>& exprs) {
  std::string out;
  for (const auto& e : exprs) DescribeCorrelated(*e, &out);
  return out;
}

bool IsVolatile(const BoundExpr& e) {
  if (e.kind == BoundKind::kFunction && IsVolatileFunction(e.op, e.args.size())) return true;
  // A correlated subquery runs a query per row: kept where it was bound. An uncorrelated one
  // is a constant of the statement, run once however many places read it.
  if (e.kind == BoundKind::kSubquery && !IsDeferred(e)) return true;
  for (const auto& a : e.args) {
    if (IsVolatile(*a)) return true;
  }
  return false;
}

}  // namespace tributary::sql
