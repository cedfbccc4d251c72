#include <algorithm>
#include <cctype>
#include <string>

#include "tributary/types.h"

namespace tributary {
namespace {

std::string Upper(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r;
}

// A tiny scanner over a type string: words, numbers, parentheses and commas.
class TypeScanner {
 public:
  explicit TypeScanner(std::string_view s) : s_(s) {}
  void SkipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) pos_++;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= s_.size();
  }
  // Next word (letters, digits, underscore), upper-cased; empty if none.
  std::string Word() {
    SkipSpace();
    size_t b = pos_;
    while (pos_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
      pos_++;
    }
    return Upper(s_.substr(b, pos_ - b));
  }
  bool PeekWord(std::string_view w) {
    size_t save = pos_;
    std::string got = Word();
    pos_ = save;
    return got == w;
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == c) {
      pos_++;
      return true;
    }
    return false;
  }
  Result<int32_t> Number() {
    SkipSpace();
    size_t b = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) pos_++;
    if (b == pos_) return Status::Invalid("expected a number");
    std::string digits(s_.substr(b, pos_ - b));
    if (digits.size() > 10) return Status::Invalid("number too large: " + digits);
    int64_t v = std::stoll(digits);
    if (v > 2147483647) return Status::Invalid("number too large: " + digits);
    return static_cast<int32_t>(v);
  }
  size_t pos() const { return pos_; }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

// Parses "(n)" or "(p, s)" when present.
Status ParseParams(TypeScanner* sc, std::vector<int32_t>* params) {
  if (!sc->Consume('(')) return Status::OK();
  while (true) {
    TRIB_ASSIGN_OR_RETURN(int32_t n, sc->Number());
    params->push_back(n);
    if (sc->Consume(')')) return Status::OK();
    if (!sc->Consume(',')) return Status::Invalid("expected ',' or ')'");
  }
}

}  // namespace

std::string DataType::ToString() const {
  std::string s;
  switch (id) {
    case TypeId::kBoolean: s = "BOOLEAN"; break;
    case TypeId::kTinyInt: s = "TINYINT"; break;
    case TypeId::kSmallInt: s = "SMALLINT"; break;
    case TypeId::kInt: s = "INT"; break;
    case TypeId::kBigInt: s = "BIGINT"; break;
    case TypeId::kFloat: s = "FLOAT"; break;
    case TypeId::kDouble: s = "DOUBLE"; break;
    case TypeId::kDecimal:
      s = "DECIMAL(" + std::to_string(precision) + ", " + std::to_string(scale) + ")";
      break;
    case TypeId::kChar: s = "CHAR(" + std::to_string(length) + ")"; break;
    case TypeId::kVarChar:
      s = length == kMaxVarLength ? "STRING" : "VARCHAR(" + std::to_string(length) + ")";
      break;
    case TypeId::kBinary: s = "BINARY(" + std::to_string(length) + ")"; break;
    case TypeId::kVarBinary:
      s = length == kMaxVarLength ? "BYTES" : "VARBINARY(" + std::to_string(length) + ")";
      break;
    case TypeId::kDate: s = "DATE"; break;
    case TypeId::kTime: s = "TIME(" + std::to_string(precision) + ")"; break;
    case TypeId::kTimestamp: s = "TIMESTAMP(" + std::to_string(precision) + ")"; break;
    case TypeId::kTimestampLtz:
      s = "TIMESTAMP(" + std::to_string(precision) + ") WITH LOCAL TIME ZONE";
      break;
  }
  if (!nullable) s += " NOT NULL";
  return s;
}

Result<DataType> DataType::Parse(std::string_view text) {
  TypeScanner sc(text);
  std::string w = sc.Word();
  if (w.empty()) return Status::Invalid("empty type in '" + std::string(text) + "'");
  std::vector<int32_t> p;
  auto params = [&]() -> Status {
    Status st = ParseParams(&sc, &p);
    if (!st.ok()) return st.WithContext("type '" + std::string(text) + "'");
    return Status::OK();
  };
  DataType t;
  auto want_params = [&](size_t max) -> Status {
    if (p.size() > max) {
      return Status::Invalid("type '" + std::string(text) + "' takes at most " +
                             std::to_string(max) + " parameter(s)");
    }
    return Status::OK();
  };
  if (w == "BOOLEAN" || w == "BOOL") {
    t = Boolean();
  } else if (w == "TINYINT") {
    t = TinyInt();
  } else if (w == "SMALLINT") {
    t = SmallInt();
  } else if (w == "INT" || w == "INTEGER") {
    t = Int();
  } else if (w == "BIGINT") {
    t = BigInt();
  } else if (w == "FLOAT" || w == "REAL") {
    t = Float();
  } else if (w == "DOUBLE") {
    if (sc.PeekWord("PRECISION")) sc.Word();
    t = Double();
  } else if (w == "DECIMAL" || w == "DEC" || w == "NUMERIC") {
    TRIB_RETURN_NOT_OK(params());
    TRIB_RETURN_NOT_OK(want_params(2));
    t = Decimal(p.size() > 0 ? p[0] : 10, p.size() > 1 ? p[1] : 0);
    if (t.precision < 1 || t.precision > 38 || t.scale < 0 || t.scale > t.precision) {
      return Status::Invalid("DECIMAL precision must be 1..38 and scale 0..precision, got '" +
                             std::string(text) + "'");
    }
  } else if (w == "CHAR" || w == "CHARACTER") {
    TRIB_RETURN_NOT_OK(params());
    TRIB_RETURN_NOT_OK(want_params(1));
    t = {TypeId::kChar, true, p.empty() ? 1 : p[0]};
  } else if (w == "VARCHAR") {
    TRIB_RETURN_NOT_OK(params());
    TRIB_RETURN_NOT_OK(want_params(1));
    t = {TypeId::kVarChar, true, p.empty() ? 1 : p[0]};
  } else if (w == "STRING") {
    t = String();
  } else if (w == "BINARY") {
    TRIB_RETURN_NOT_OK(params());
    TRIB_RETURN_NOT_OK(want_params(1));
    t = {TypeId::kBinary, true, p.empty() ? 1 : p[0]};
  } else if (w == "VARBINARY") {
    TRIB_RETURN_NOT_OK(params());
    TRIB_RETURN_NOT_OK(want_params(1));
    t = {TypeId::kVarBinary, true, p.empty() ? 1 : p[0]};
  } else if (w == "BYTES") {
    t = Bytes();
  } else if (w == "DATE") {
    t = Date();
  } else if (w == "TIME") {
    TRIB_RETURN_NOT_OK(params());
    TRIB_RETURN_NOT_OK(want_params(1));
    t = Time(p.empty() ? 0 : p[0]);
    if (sc.PeekWord("WITHOUT")) {
      sc.Word();
      if (sc.Word() != "TIME" || sc.Word() != "ZONE") {
        return Status::Invalid("bad type '" + std::string(text) + "'");
      }
    }
  } else if (w == "TIMESTAMP" || w == "TIMESTAMP_LTZ") {
    TRIB_RETURN_NOT_OK(params());
    TRIB_RETURN_NOT_OK(want_params(1));
    int32_t prec = p.empty() ? 6 : p[0];
    t = w == "TIMESTAMP" ? Timestamp(prec) : TimestampLtz(prec);
    if (w == "TIMESTAMP" && sc.PeekWord("WITH")) {
      sc.Word();
      std::string a = sc.Word(), b = sc.Word(), c = sc.Word();
      if (a != "LOCAL" || b != "TIME" || c != "ZONE") {
        return Status::Invalid("bad type '" + std::string(text) +
                               "': expected WITH LOCAL TIME ZONE");
      }
      t.id = TypeId::kTimestampLtz;
    } else if (w == "TIMESTAMP" && sc.PeekWord("WITHOUT")) {
      sc.Word();
      if (sc.Word() != "TIME" || sc.Word() != "ZONE") {
        return Status::Invalid("bad type '" + std::string(text) + "'");
      }
    }
  } else {
    return Status::Invalid("unknown type '" + std::string(text) + "'");
  }
  if ((t.id == TypeId::kTime || t.IsTimestamp()) && (t.precision < 0 || t.precision > 9)) {
    return Status::Invalid("precision of '" + std::string(text) + "' must be 0..9");
  }
  if ((t.IsString() || t.IsBinary()) && t.length < 1) {
    return Status::Invalid("length of '" + std::string(text) + "' must be at least 1");
  }
  if (sc.PeekWord("NOT")) {
    sc.Word();
    if (sc.Word() != "NULL") return Status::Invalid("expected NULL after NOT in '" +
                                                   std::string(text) + "'");
    t.nullable = false;
  } else if (sc.PeekWord("NULL")) {
    sc.Word();
  }
  if (!sc.AtEnd()) {
    return Status::Invalid("unexpected text in type '" + std::string(text) + "'");
  }
  return t;
}

}  // namespace tributary
