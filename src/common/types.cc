#include "tributary/types.h"

#include <algorithm>
#include <cctype>
#include <string>

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
  // A field name: a word (case kept) or a `back-quoted` / "double-quoted" identifier.
  Result<std::string> Identifier() {
    SkipSpace();
    if (pos_ < s_.size() && (s_[pos_] == '`' || s_[pos_] == '"')) {
      char q = s_[pos_++];
      std::string out;
      while (pos_ < s_.size()) {
        if (s_[pos_] == q) {
          if (pos_ + 1 < s_.size() && s_[pos_ + 1] == q) {
            out += q;
            pos_ += 2;
            continue;
          }
          pos_++;
          return out;
        }
        out += s_[pos_++];
      }
      return Status::Invalid("unterminated quoted name");
    }
    size_t b = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) ||
                                s_[pos_] == '_' || s_[pos_] == '$')) {
      pos_++;
    }
    if (b == pos_) return Status::Invalid("expected a field name");
    return std::string(s_.substr(b, pos_ - b));
  }
  // A single-quoted string literal ('' escapes a quote).
  Result<std::string> StringLiteral() {
    SkipSpace();
    if (pos_ >= s_.size() || s_[pos_] != '\'') return Status::Invalid("expected a string");
    pos_++;
    std::string out;
    while (pos_ < s_.size()) {
      if (s_[pos_] == '\'') {
        if (pos_ + 1 < s_.size() && s_[pos_ + 1] == '\'') {
          out += '\'';
          pos_ += 2;
          continue;
        }
        pos_++;
        return out;
      }
      out += s_[pos_++];
    }
    return Status::Invalid("unterminated string");
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

bool PlainName(const std::string& n) {
  if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
  for (char c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

std::string QuoteName(const std::string& n) {
  if (PlainName(n)) return n;
  std::string out = "`";
  for (char c : n) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

constexpr int kMaxTypeDepth = 64;

Result<DataType> ParseType(TypeScanner* sc, std::string_view text, int depth);

// ROW<name type [COMMENT '...'], ...> or ROW(name type, ...); the opening bracket is consumed.
Result<DataType> ParseRowFields(TypeScanner* sc, std::string_view text, char close, int depth) {
  std::vector<Field> fields;
  if (sc->Consume(close)) return DataType::Row(std::move(fields));
  while (true) {
    Field f;
    TRIB_ASSIGN_OR_RETURN(f.name, sc->Identifier());
    TRIB_ASSIGN_OR_RETURN(f.type, ParseType(sc, text, depth + 1));
    if (sc->PeekWord("COMMENT")) {
      sc->Word();
      TRIB_ASSIGN_OR_RETURN(f.description, sc->StringLiteral());
    }
    for (const Field& g : fields) {
      if (g.name == f.name) return Status::Invalid("ROW field '" + f.name + "' appears twice");
    }
    fields.push_back(std::move(f));
    if (sc->Consume(close)) break;
    if (!sc->Consume(',')) return Status::Invalid(std::string("expected ',' or '") + close + "'");
  }
  return DataType::Row(std::move(fields));
}

}  // namespace

DataType DataType::Array(DataType element) {
  DataType t{TypeId::kArray};
  auto c = std::make_shared<NestedChildren>();
  c->types.push_back(std::move(element));
  t.children = std::move(c);
  return t;
}

DataType DataType::Multiset(DataType element) {
  DataType t = Array(std::move(element));
  t.id = TypeId::kMultiset;
  return t;
}

DataType DataType::Map(DataType key, DataType value) {
  DataType t{TypeId::kMap};
  auto c = std::make_shared<NestedChildren>();
  c->types.push_back(std::move(key));
  c->types.push_back(std::move(value));
  t.children = std::move(c);
  return t;
}

DataType DataType::Row(std::vector<Field> fields) {
  DataType t{TypeId::kRow};
  auto c = std::make_shared<NestedChildren>();
  c->fields = std::move(fields);
  t.children = std::move(c);
  return t;
}

const DataType& DataType::element() const { return children->types[0]; }
const DataType& DataType::key() const { return children->types[0]; }
const DataType& DataType::value() const {
  static const DataType kCount = DataType::Int().NotNull();
  if (id == TypeId::kMultiset) return kCount;
  return children->types[1];
}
const std::vector<Field>& DataType::fields() const {
  static const std::vector<Field> kNone;
  return children ? children->fields : kNone;
}

bool DataType::operator==(const DataType& o) const {
  if (id != o.id || nullable != o.nullable || length != o.length || precision != o.precision ||
      scale != o.scale) {
    return false;
  }
  if (children == o.children) return true;
  if (!children || !o.children) return false;
  return children->types == o.children->types && children->fields == o.children->fields;
}

std::string DataType::ToString() const {
  std::string s;
  switch (id) {
    case TypeId::kBoolean:
      s = "BOOLEAN";
      break;
    case TypeId::kTinyInt:
      s = "TINYINT";
      break;
    case TypeId::kSmallInt:
      s = "SMALLINT";
      break;
    case TypeId::kInt:
      s = "INT";
      break;
    case TypeId::kBigInt:
      s = "BIGINT";
      break;
    case TypeId::kFloat:
      s = "FLOAT";
      break;
    case TypeId::kDouble:
      s = "DOUBLE";
      break;
    case TypeId::kDecimal:
      s = "DECIMAL(" + std::to_string(precision) + ", " + std::to_string(scale) + ")";
      break;
    case TypeId::kChar:
      s = "CHAR(" + std::to_string(length) + ")";
      break;
    case TypeId::kVarChar:
      s = length == kMaxVarLength ? "STRING" : "VARCHAR(" + std::to_string(length) + ")";
      break;
    case TypeId::kBinary:
      s = "BINARY(" + std::to_string(length) + ")";
      break;
    case TypeId::kVarBinary:
      s = length == kMaxVarLength ? "BYTES" : "VARBINARY(" + std::to_string(length) + ")";
      break;
    case TypeId::kDate:
      s = "DATE";
      break;
    case TypeId::kTime:
      s = "TIME(" + std::to_string(precision) + ")";
      break;
    case TypeId::kTimestamp:
      s = "TIMESTAMP(" + std::to_string(precision) + ")";
      break;
    case TypeId::kTimestampLtz:
      s = "TIMESTAMP(" + std::to_string(precision) + ") WITH LOCAL TIME ZONE";
      break;
    case TypeId::kArray:
      s = "ARRAY<" + element().ToString() + ">";
      break;
    case TypeId::kMultiset:
      s = "MULTISET<" + element().ToString() + ">";
      break;
    case TypeId::kMap:
      s = "MAP<" + key().ToString() + ", " + value().ToString() + ">";
      break;
    case TypeId::kRow: {
      s = "ROW<";
      for (size_t i = 0; i < fields().size(); i++) {
        const Field& f = fields()[i];
        if (i) s += ", ";
        s += QuoteName(f.name) + " " + f.type.ToString();
        if (!f.description.empty()) {
          s += " COMMENT '";
          for (char c : f.description) {
            if (c == '\'') s += '\'';
            s += c;
          }
          s += "'";
        }
      }
      s += ">";
      break;
    }
  }
  if (!nullable) s += " NOT NULL";
  return s;
}

Result<DataType> DataType::Parse(std::string_view text) {
  TypeScanner sc(text);
  Result<DataType> t = ParseType(&sc, text, 0);
  if (!t.ok()) {
    if (t.status().message().find(std::string(text)) != std::string::npos) return t.status();
    return Status::Invalid(t.status().message() + " in type '" + std::string(text) + "'");
  }
  if (!sc.AtEnd()) {
    return Status::Invalid("unexpected text in type '" + std::string(text) + "'");
  }
  return t;
}

namespace {

Result<DataType> ParseType(TypeScanner* scp, std::string_view text, int depth) {
  TypeScanner& sc = *scp;
  if (depth > kMaxTypeDepth) return Status::Invalid("type nested too deeply");
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
    t = DataType::Boolean();
  } else if (w == "TINYINT") {
    t = DataType::TinyInt();
  } else if (w == "SMALLINT") {
    t = DataType::SmallInt();
  } else if (w == "INT" || w == "INTEGER") {
    t = DataType::Int();
  } else if (w == "BIGINT") {
    t = DataType::BigInt();
  } else if (w == "FLOAT" || w == "REAL") {
    t = DataType::Float();
  } else if (w == "DOUBLE") {
    if (sc.PeekWord("PRECISION")) sc.Word();
    t = DataType::Double();
  } else if (w == "DECIMAL" || w == "DEC" || w == "NUMERIC") {
    TRIB_RETURN_NOT_OK(params());
    TRIB_RETURN_NOT_OK(want_params(2));
    t = DataType::Decimal(p.size() > 0 ? p[0] : 10, p.size() > 1 ? p[1] : 0);
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
    t = DataType::String();
  } else if (w == "BINARY") {
    TRIB_RETURN_NOT_OK(params());
    TRIB_RETURN_NOT_OK(want_params(1));
    t = {TypeId::kBinary, true, p.empty() ? 1 : p[0]};
  } else if (w == "VARBINARY") {
    TRIB_RETURN_NOT_OK(params());
    TRIB_RETURN_NOT_OK(want_params(1));
    t = {TypeId::kVarBinary, true, p.empty() ? 1 : p[0]};
  } else if (w == "BYTES" || w == "BLOB") {
    // Paimon's BLOB (large values kept in `.blob` files) reads as BYTES.
    t = DataType::Bytes();
  } else if (w == "DATE") {
    t = DataType::Date();
  } else if (w == "TIME") {
    TRIB_RETURN_NOT_OK(params());
    TRIB_RETURN_NOT_OK(want_params(1));
    t = DataType::Time(p.empty() ? 0 : p[0]);
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
    t = w == "TIMESTAMP" ? DataType::Timestamp(prec) : DataType::TimestampLtz(prec);
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
  } else if (w == "ARRAY" || w == "MULTISET") {
    bool angle = sc.Consume('<');
    if (!angle && !sc.Consume('(')) return Status::Invalid("expected '<' after " + w);
    TRIB_ASSIGN_OR_RETURN(DataType e, ParseType(&sc, text, depth + 1));
    if (!sc.Consume(angle ? '>' : ')')) return Status::Invalid("expected '>' after " + w + "<...");
    t = w == "ARRAY" ? DataType::Array(std::move(e)) : DataType::Multiset(std::move(e));
  } else if (w == "MAP") {
    bool angle = sc.Consume('<');
    if (!angle && !sc.Consume('(')) return Status::Invalid("expected '<' after MAP");
    TRIB_ASSIGN_OR_RETURN(DataType k, ParseType(&sc, text, depth + 1));
    if (!sc.Consume(',')) return Status::Invalid("expected ',' in MAP<key, value>");
    TRIB_ASSIGN_OR_RETURN(DataType v, ParseType(&sc, text, depth + 1));
    if (!sc.Consume(angle ? '>' : ')')) return Status::Invalid("expected '>' after MAP<...");
    t = DataType::Map(std::move(k), std::move(v));
  } else if (w == "ROW") {
    if (sc.Consume('<')) {
      TRIB_ASSIGN_OR_RETURN(t, ParseRowFields(&sc, text, '>', depth));
    } else if (sc.Consume('(')) {
      TRIB_ASSIGN_OR_RETURN(t, ParseRowFields(&sc, text, ')', depth));
    } else {
      return Status::Invalid("expected '<' or '(' after ROW");
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
    if (sc.Word() != "NULL")
      return Status::Invalid("expected NULL after NOT in '" + std::string(text) + "'");
    t.nullable = false;
  } else if (sc.PeekWord("NULL")) {
    sc.Word();
  }
  return t;
}

}  // namespace

}  // namespace tributary
