// String, conditional, hashing, random and JSON scalar functions (REPLACE, LPAD, REGEXP_EXTRACT,
// IF, GREATEST, MD5, RAND, UUID, JSON_VALUE, ...): each function's type rules and evaluation, and
// its row of the function registry (function_registry.h), with Flink's names and semantics.
// Internal to sql/.
#include <openssl/evp.h>

#include "sql/binder/functions_internal.h"
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

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
#include "common/json.h"
#include "sql/binder/cast.h"
#include "sql/binder/function_registry.h"

namespace tributary::sql {

namespace {

// The digest `name` (md5, sha1, sha256, ...) of `s` as lowercase hex, as Flink's MD5 / SHA*.
Result<std::string> HexDigest(const char* name, const std::string& s) {
  const EVP_MD* md = EVP_get_digestbyname(name);
  if (md == nullptr) return Status::Internal(std::string("no digest ") + name);
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(s.data(), s.size(), out, &len, md, nullptr) != 1) {
    return Status::Internal(std::string("digest ") + name + " failed");
  }
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < len; i++) {
    hex += kHex[out[i] >> 4];
    hex += kHex[out[i] & 15];
  }
  return hex;
}

// The value at a JSON path ('$', then `.name`, `['name']` or `[index]` steps) of `doc`, or null
// when the path is malformed (then *malformed is set, when given) or leads nowhere.
const Json* JsonAt(const Json& doc, const std::string& path, bool* malformed = nullptr) {
  auto bad = [&]() -> const Json* {
    if (malformed) *malformed = true;
    return nullptr;
  };
  if (path.empty() || path[0] != '$') return bad();
  const Json* at = &doc;
  size_t i = 1;
  while (i < path.size()) {
    if (path[i] == '.') {
      size_t j = i + 1;
      while (j < path.size() && path[j] != '.' && path[j] != '[') j++;
      const std::string key = path.substr(i + 1, j - i - 1);
      if (key.empty()) return bad();
      if (!at->is_object()) return nullptr;
      auto it = at->find(key);
      if (it == at->end()) return nullptr;
      at = &*it;
      i = j;
    } else if (path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string::npos) return bad();
      std::string inner = path.substr(i + 1, close - i - 1);
      if (inner.size() >= 2 && (inner[0] == '\'' || inner[0] == '"') && inner.back() == inner[0]) {
        const std::string key = inner.substr(1, inner.size() - 2);
        if (!at->is_object()) return nullptr;
        auto it = at->find(key);
        if (it == at->end()) return nullptr;
        at = &*it;
      } else {
        if (inner.empty() || !std::all_of(inner.begin(), inner.end(), ::isdigit) ||
            inner.size() > 9) {
          return bad();
        }
        if (!at->is_array()) return nullptr;
        const size_t index = std::stoul(inner);
        if (index >= at->size()) return nullptr;
        at = &(*at)[index];
      }
      i = close + 1;
    } else {
      return bad();
    }
  }
  return at;
}

}  // namespace

struct RandomState {
  std::mt19937_64 engine;
};

namespace {

std::mt19937_64& RandomEngine() {
  thread_local std::mt19937_64 engine(std::random_device{}());
  return engine;
}

std::string Utf8(const std::vector<uint32_t>& cps, size_t begin = 0, size_t end = SIZE_MAX) {
  std::string out;
  end = std::min(end, cps.size());
  for (size_t i = begin; i < end; i++) {
    uint32_t c = cps[i];
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

// A compiled pattern (PCRE2: Perl syntax, as Java's java.util.regex reads it), matched over
// UTF-8 text with bounded work and heap instead of the stack, so a long value cannot overflow it.
// Thread-safety: a compiled pattern is shared; each match has its own match data.
class Regex {
 public:
  explicit Regex(pcre2_code* code) : code_(code) {
    pcre2_pattern_info(code_, PCRE2_INFO_CAPTURECOUNT, &groups_);
  }
  ~Regex() { pcre2_code_free(code_); }
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  uint32_t groups() const { return groups_; }

  // The first match at or after byte `from`: false when there is none; `spans` gets (begin, end)
  // of the whole match and of each group (-1, -1 for a group that took no part).
  Result<bool> Find(const std::string& s, size_t from,
                    std::vector<std::pair<int64_t, int64_t>>* spans) const {
    static thread_local std::unique_ptr<pcre2_match_context, decltype(&pcre2_match_context_free)>
        context = [] {
          pcre2_match_context* c = pcre2_match_context_create(nullptr);
          pcre2_set_match_limit(c, 50'000'000);
          pcre2_set_heap_limit(c, 256 * 1024);  // KiB of backtracking memory
          return std::unique_ptr<pcre2_match_context, decltype(&pcre2_match_context_free)>(
              c, &pcre2_match_context_free);
        }();
    std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> data(
        pcre2_match_data_create_from_pattern(code_, nullptr), &pcre2_match_data_free);
    const int rc = pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), from, 0,
                               data.get(), context.get());
    if (rc == PCRE2_ERROR_NOMATCH) return false;
    if (rc < 0) {
      PCRE2_UCHAR buf[256];
      pcre2_get_error_message(rc, buf, sizeof buf);
      return Status::Invalid(std::string("regular expression match failed: ") +
                             reinterpret_cast<const char*>(buf));
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(data.get());
    spans->clear();
    for (uint32_t i = 0; i <= groups_; i++) {
      if (i < static_cast<uint32_t>(rc) && ov[2 * i] != PCRE2_UNSET) {
        spans->emplace_back(static_cast<int64_t>(ov[2 * i]), static_cast<int64_t>(ov[2 * i + 1]));
      } else {
        spans->emplace_back(-1, -1);
      }
    }
    return true;
  }

 private:
  pcre2_code* code_;
  uint32_t groups_ = 0;
};

// Compiled patterns, by text (a pattern is usually a constant of the query).
Result<std::shared_ptr<const Regex>> Pattern(const std::string& p) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const Regex>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(p);
  if (it != cache.end()) return it->second;
  int error = 0;
  PCRE2_SIZE offset = 0;
  // '.' and '$' treat CR, LF and the Unicode line separators as line ends, as Java's do.
  std::unique_ptr<pcre2_compile_context, decltype(&pcre2_compile_context_free)> compile(
      pcre2_compile_context_create(nullptr), &pcre2_compile_context_free);
  pcre2_set_newline(compile.get(), PCRE2_NEWLINE_ANY);
  pcre2_code* code =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(p.data()), p.size(),
                    PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &error, &offset, compile.get());
  if (code == nullptr) {
    PCRE2_UCHAR buf[256];
    pcre2_get_error_message(error, buf, sizeof buf);
    return Status::Invalid("invalid regular expression '" + p + "' at character " +
                           std::to_string(offset + 1) + ": " + reinterpret_cast<const char*>(buf));
  }
  auto r = std::make_shared<const Regex>(code);
  if (cache.size() > 1000) cache.clear();
  cache[p] = r;
  return r;
}

// Bytes of the UTF-8 character starting at s[i] (1 for a byte that starts none).
size_t CharBytes(const std::string& s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  return std::min(n, s.size() - i);
}

// Flink's REGEXP_REPLACE: every match replaced by `replacement` taken literally (Flink quotes it
// with Matcher.quoteReplacement: '$' and '\\' are plain characters); an empty match moves on by
// one character, as Java's replaceAll.
Result<std::string> RegexReplaceAll(const Regex& re, const std::string& s,
                                    const std::string& replacement) {
  std::string out;
  std::vector<std::pair<int64_t, int64_t>> spans;
  size_t last = 0, from = 0;
  while (from <= s.size()) {
    TRIB_ASSIGN_OR_RETURN(bool found, re.Find(s, from, &spans));
    if (!found) break;
    const size_t begin = static_cast<size_t>(spans[0].first);
    const size_t end = static_cast<size_t>(spans[0].second);
    out.append(s, last, begin - last);
    out += replacement;
    last = end;
    if (end == begin) {
      if (end >= s.size()) break;
      const size_t step = CharBytes(s, end);
      out.append(s, end, step);
      last = end + step;
      from = end + step;
    } else {
      from = end;
    }
  }
  if (last < s.size()) out.append(s, last, std::string::npos);
  return out;
}

const char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string ToBase64(const std::string& in) {
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (static_cast<unsigned char>(in[i]) << 16) |
                 (static_cast<unsigned char>(in[i + 1]) << 8) |
                 static_cast<unsigned char>(in[i + 2]);
    for (int k = 3; k >= 0; k--) out += kBase64[(v >> (6 * k)) & 63];
  }
  if (i < in.size()) {
    uint32_t v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < in.size() ? kBase64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> FromBase64(const std::string& in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    const char* at = std::strchr(kBase64, c);
    if (!at || c == '\0') return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(at - kBase64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

Status BindReplace(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(3, 3));
  for (size_t i = 0; i < 3; i++) TRIB_RETURN_NOT_OK(c.StringArg(i));
  b.type = DataType::String();
  return Status::OK();
}

Status BindRepeat(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(2, 2));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  TRIB_RETURN_NOT_OK(c.IntArg(1));
  b.type = DataType::String();
  return Status::OK();
}

Status BindReverse(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  b.type = DataType::String();
  return Status::OK();
}

Status BindLpad(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(3, 3));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  TRIB_RETURN_NOT_OK(c.IntArg(1));
  TRIB_RETURN_NOT_OK(c.StringArg(2));
  b.type = DataType::String();
  return Status::OK();
}

Status BindLocate(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(2, 3));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  TRIB_RETURN_NOT_OK(c.StringArg(1));
  if (args.size() > 2) TRIB_RETURN_NOT_OK(c.IntArg(2));
  b.type = DataType::Int();
  return Status::OK();
}

Status BindConcatWs(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(2, 1000));
  for (size_t i = 0; i < args.size(); i++) TRIB_RETURN_NOT_OK(c.As(i, DataType::String()));
  b.type = DataType::String();
  return Status::OK();
}

Status BindSplitIndex(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(3, 3));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  TRIB_RETURN_NOT_OK(c.StringArg(1));
  TRIB_RETURN_NOT_OK(c.IntArg(2));
  b.type = DataType::String();
  return Status::OK();
}

Status BindRegexp(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(f == "REGEXP" ? c.Arity(2, 2) : c.Arity(f == "REGEXP_REPLACE" ? 3 : 2, 3));
  for (size_t i = 0; i < args.size(); i++) {
    if (f == "REGEXP_EXTRACT" && i == 2) {
      TRIB_RETURN_NOT_OK(c.IntArg(i));
    } else {
      TRIB_RETURN_NOT_OK(c.StringArg(i));
    }
  }
  // A constant pattern is checked now.
  if (args[1]->IsConstant() && !args[1]->constant.is_null()) {
    TRIB_ASSIGN_OR_RETURN(auto ignored, Pattern(args[1]->constant.string_value()));
    (void)ignored;
  }
  b.type = f == "REGEXP" ? DataType::Boolean() : DataType::String();
  return Status::OK();
}

Status BindAscii(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  b.type = DataType::Int();
  return Status::OK();
}

Status BindChr(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.IntArg(0));
  b.type = DataType::String();
  return Status::OK();
}

Status BindIf(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(3, 3));
  if (args[0]->null_literal) TRIB_RETURN_NOT_OK(c.As(0, DataType::Boolean()));
  TRIB_RETURN_NOT_OK(c.Need(0, args[0]->type.id == TypeId::kBoolean, "a BOOLEAN condition"));
  std::vector<DataType> types;
  for (size_t i = 1; i < 3; i++) {
    if (!args[i]->null_literal) types.push_back(args[i]->type);
  }
  auto common = types.empty() ? std::optional<DataType>(DataType::String()) : CommonType(types);
  if (!common) return ErrorAt(pos, "the two branches of IF have types that do not combine");
  for (size_t i = 1; i < 3; i++) TRIB_RETURN_NOT_OK(c.As(i, *common));
  b.type = common->WithNullable(true);
  return Status::OK();
}

Status BindGreatest(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1000));
  std::vector<DataType> types;
  for (const auto& a : args) {
    if (!a->null_literal) types.push_back(a->type);
  }
  auto common = types.empty() ? std::optional<DataType>(DataType::String()) : CommonType(types);
  if (!common) return ErrorAt(pos, "the arguments of " + f + " have types that do not combine");
  for (size_t i = 0; i < args.size(); i++) TRIB_RETURN_NOT_OK(c.As(i, *common));
  b.type = *common;
  return Status::OK();
}

Status BindMd5(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(f == "SHA2" ? c.Arity(2, 2) : c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  if (f == "SHA2") {
    TRIB_RETURN_NOT_OK(c.IntArg(1));
    if (args[1]->IsConstant() && !args[1]->constant.is_null()) {
      const int64_t bits = args[1]->constant.int_value();
      if (bits != 224 && bits != 256 && bits != 384 && bits != 512) {
        return ErrorAt(args[1]->pos, "SHA2 takes a bit length of 224, 256, 384 or 512, not " +
                                         std::to_string(bits));
      }
    }
  }
  b.type = DataType::String();
  return Status::OK();
}

Status BindRand(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(f == "RAND" ? c.Arity(0, 1) : c.Arity(1, 2));
  const bool seeded =
      (f == "RAND" && args.size() == 1) || (f == "RAND_INTEGER" && args.size() == 2);
  for (size_t i = 0; i < args.size(); i++) TRIB_RETURN_NOT_OK(c.IntArg(i));
  if (seeded && !args[0]->IsConstant()) {
    return ErrorAt(args[0]->pos, f + "'s seed must be a constant");
  }
  b.type = f == "RAND" && !seeded ? DataType::Double().NotNull()
           : f == "RAND"          ? DataType::Double()
                                  : DataType::Int();
  b.may_return_null = seeded;
  return Status::OK();
}

Status BindUuid(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(0, 0));
  b.type = DataType::String().NotNull();
  return Status::OK();
}

Status BindJsonExists(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(2, 2));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  TRIB_RETURN_NOT_OK(c.StringArg(1));
  b.type = DataType::Boolean();
  return Status::OK();
}

Status BindJsonValue(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  // The parser's form (parser_expression.cc): JSON_VALUE(s, path, type, on_empty,
  // empty_default, on_error, error_default), JSON_QUERY(s, path, wrapper, on_empty, on_error).
  const bool value = f == "JSON_VALUE";
  TRIB_RETURN_NOT_OK(c.Arity(value ? 7 : 6, value ? 7 : 6));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  TRIB_RETURN_NOT_OK(c.StringArg(1));
  b.type = DataType::String();
  if (!value) {
    // JSON_QUERY ... RETURNING STRING (the JSON text) or ARRAY<STRING> (the array's elements,
    // strings as their values, others as JSON text), as Flink.
    auto t = DataType::Parse(args[5]->constant.string_value());
    if (!t.ok()) return ErrorAt(pos, "JSON_QUERY ... RETURNING: " + t.status().message());
    const bool array = t->id == TypeId::kArray && t->element().IsString();
    if (!t->IsString() && !array) {
      return ErrorAt(pos,
                     "JSON_QUERY ... RETURNING takes STRING or ARRAY<STRING>, not " + TypeName(*t));
    }
    b.type = array ? DataType::Array(DataType::String()) : DataType::String();
  }
  if (value) {
    auto t = DataType::Parse(args[2]->constant.string_value());
    if (!t.ok()) return ErrorAt(pos, "JSON_VALUE ... RETURNING: " + t.status().message());
    if (t->IsNested() || t->id == TypeId::kBinary || t->id == TypeId::kVarBinary) {
      return NotSupportedAt(
          pos, "JSON_VALUE ... RETURNING " + TypeName(*t) + " is not supported (a scalar type)");
    }
    b.type = t->WithNullable(true);
    for (size_t i : {size_t{4}, size_t{6}}) {
      if (args[i]->null_literal) continue;
      if (!CanCast(args[i]->type, b.type, CastMode::kExplicit)) {
        return ErrorAt(args[i]->pos, "the DEFAULT of JSON_VALUE must be a " + TypeName(b.type) +
                                         ", not " + TypeName(args[i]->type));
      }
      TRIB_RETURN_NOT_OK(c.As(i, b.type));
    }
  }
  return Status::OK();
}

Status BindOverlay(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(3, 4));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  TRIB_RETURN_NOT_OK(c.StringArg(1));
  TRIB_RETURN_NOT_OK(c.IntArg(2));
  if (args.size() > 3) TRIB_RETURN_NOT_OK(c.IntArg(3));
  b.type = DataType::String();
  return Status::OK();
}

// JSON_VALUE(s, path, type, on_empty, empty_default, on_error, error_default) and
// JSON_QUERY(s, path, wrapper, on_empty, on_error), as Flink: "empty" is a path that leads
// nowhere (or, for JSON_VALUE, to null); an "error" is text that is not JSON, a malformed path,
// a JSON_VALUE of an object or array or of a value the RETURNING type cannot hold, a
// JSON_QUERY of a scalar without a wrapper.
Result<Value> EvalJsonFunction(const BoundExpr& e, const std::vector<Value>& args) {
  const bool value = e.op == "JSON_VALUE";
  auto behave = [&](int which, const std::string& why) -> Result<Value> {
    const std::string& mode = args[value ? 3 + 2 * which : 3 + which].string_value();
    if (mode == "ERROR") {
      return Status::Invalid(e.op + ": " + why + " (" + mode + " ON " +
                             (which == 0 ? "EMPTY" : "ERROR") + ")");
    }
    if (mode == "DEFAULT") return args[4 + 2 * which];
    if (mode == "EMPTY ARRAY") return Value::String("[]");
    if (mode == "EMPTY OBJECT") return Value::String("{}");
    return Value::Null();
  };
  auto doc = ParseJson(args[0].string_value(), "JSON text");
  if (!doc.ok()) return behave(1, "the text is not JSON");
  bool malformed = false;
  const Json* at = JsonAt(*doc, args[1].string_value(), &malformed);
  if (malformed) return behave(1, "malformed JSON path '" + args[1].string_value() + "'");
  if (value) {
    if (at == nullptr || at->is_null()) return behave(0, "no value at the path");
    if (at->is_object() || at->is_array())
      return behave(1, "the value at the path is not a scalar");
    Value text = Value::String(at->is_string() ? at->get<std::string>() : at->dump());
    if (e.type.IsString()) return text;
    auto cast = CastValue(text, DataType::String(), e.type, CastMode::kExplicit);
    if (!cast.ok()) return behave(1, cast.status().message());
    return *cast;
  }
  // RETURNING ARRAY<STRING>: the elements of the array found (or of the EMPTY ARRAY default).
  auto returned = [&](Result<Value> text) -> Result<Value> {
    if (!text.ok() || e.type.id != TypeId::kArray || text->is_null()) return text;
    auto parsed = ParseJson(text->string_value(), "JSON text");
    if (!parsed.ok() || !parsed->is_array()) {
      return behave(1, "the value at the path is not an array (RETURNING ARRAY<STRING>)");
    }
    std::vector<Value> elements;
    for (const Json& item : *parsed) {
      elements.push_back(
          item.is_null() ? Value::Null()
                         : Value::String(item.is_string() ? item.get<std::string>() : item.dump()));
    }
    return Value::Array(std::move(elements));
  };
  if (at == nullptr) return returned(behave(0, "no value at the path"));
  const std::string& wrapper = args[2].string_value();
  const bool scalar = !at->is_object() && !at->is_array();
  if (wrapper == "UNCONDITIONAL" || (wrapper == "CONDITIONAL" && scalar)) {
    return returned(Value::String(Json::array({*at}).dump()));
  }
  if (scalar) return returned(behave(1, "the value at the path is not an object or array"));
  return returned(Value::String(at->dump()));
}

Result<Value> EvalRand(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  // With a seed (the first argument), the call's own sequence: the same seed gives the same
  // numbers, as Flink's RAND(seed) / RAND_INTEGER(seed, n).
  const bool seeded =
      (f == "RAND" && args.size() == 1) || (f == "RAND_INTEGER" && args.size() == 2);
  std::mt19937_64* engine = &RandomEngine();
  if (seeded) {
    if (args[0].is_null()) return Value::Null();
    if (!e.random_state) {
      e.random_state = std::make_shared<RandomState>();
      e.random_state->engine.seed(static_cast<uint64_t>(args[0].int_value()));
    }
    engine = &e.random_state->engine;
  }
  if (f == "RAND") return Value::Double(std::uniform_real_distribution<double>(0, 1)(*engine));
  const Value& bound = args[seeded ? 1 : 0];
  if (bound.is_null()) return Value::Null();
  const int64_t n = bound.int_value();
  if (n <= 0)
    return Status::Invalid("RAND_INTEGER needs a positive bound, not " + std::to_string(n));
  return Value::Int(std::uniform_int_distribution<int64_t>(0, n - 1)(*engine));
}

Result<Value> EvalUuid(const BoundExpr& e, const std::vector<Value>& args) {
  // A version 4 UUID, as Flink's (java.util.UUID.randomUUID).
  uint64_t hi = RandomEngine()(), lo = RandomEngine()();
  hi = (hi & ~0xF000ULL) | 0x4000ULL;
  lo = (lo & ~(3ULL << 62)) | (2ULL << 62);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return Value::String(buf);
}

Result<Value> EvalIf(const BoundExpr& e, const std::vector<Value>& args) {
  const bool c = !args[0].is_null() && args[0].bool_value();
  return c ? args[1] : args[2];
}

Result<Value> EvalJsonValue(const BoundExpr& e, const std::vector<Value>& args) {
  // Its DEFAULT arguments may be NULL; a NULL text or path gives NULL.
  if (args[0].is_null() || args[1].is_null()) return Value::Null();
  return EvalJsonFunction(e, args);
}

Result<Value> EvalConcatWs(const BoundExpr& e, const std::vector<Value>& args) {
  if (args[0].is_null()) return Value::Null();
  std::string out;
  bool first = true;
  for (size_t i = 1; i < args.size(); i++) {
    if (args[i].is_null()) continue;
    if (!first) out += args[0].string_value();
    out += args[i].string_value();
    first = false;
  }
  return Value::String(std::move(out));
}

Result<Value> EvalReplace(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& s = args[0].string_value();
  const std::string& from = args[1].string_value();
  if (from.empty()) return args[0];
  std::string out;
  size_t at = 0;
  for (size_t k; (k = s.find(from, at)) != std::string::npos; at = k + from.size()) {
    out += s.substr(at, k - at) + args[2].string_value();
  }
  return Value::String(out + s.substr(at));
}

Result<Value> EvalRepeat(const BoundExpr& e, const std::vector<Value>& args) {
  const int64_t n = args[1].int_value();
  const std::string& s = args[0].string_value();
  if (n <= 0 || s.empty()) return Value::String("");
  if (static_cast<double>(n) * static_cast<double>(s.size()) > 64.0 * 1024 * 1024) {
    return ErrorAt(e.pos, "REPEAT would make a string of more than 64 MiB");
  }
  std::string out;
  out.reserve(static_cast<size_t>(n) * s.size());
  for (int64_t i = 0; i < n; i++) out += s;
  return Value::String(std::move(out));
}

Result<Value> EvalReverse(const BoundExpr& e, const std::vector<Value>& args) {
  auto cps = CodePoints(args[0].string_value());
  std::reverse(cps.begin(), cps.end());
  return Value::String(Utf8(cps));
}

Result<Value> EvalInitcap(const BoundExpr& e, const std::vector<Value>& args) {
  std::string s = args[0].string_value();
  bool start = true;
  for (char& c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      c = static_cast<char>(start ? std::toupper(u) : std::tolower(u));
      start = false;
    } else {
      start = u < 0x80;
    }
  }
  return Value::String(std::move(s));
}

Result<Value> EvalLpad(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  const int64_t len = args[1].int_value();
  auto s = CodePoints(args[0].string_value());
  auto pad = CodePoints(args[2].string_value());
  if (len < 0) return Value::Null();
  if (static_cast<size_t>(len) <= s.size())
    return Value::String(Utf8(s, 0, static_cast<size_t>(len)));
  if (pad.empty()) return Value::Null();
  if (len > 64 * 1024 * 1024) return ErrorAt(e.pos, f + " length is too large");
  std::vector<uint32_t> fill;
  while (fill.size() + s.size() < static_cast<size_t>(len))
    fill.push_back(pad[fill.size() % pad.size()]);
  return Value::String(f == "LPAD" ? Utf8(fill) + Utf8(s) : Utf8(s) + Utf8(fill));
}

Result<Value> EvalLocate(const BoundExpr& e, const std::vector<Value>& args) {
  auto needle = CodePoints(args[0].string_value());
  auto hay = CodePoints(args[1].string_value());
  int64_t start = args.size() > 2 ? args[2].int_value() : 1;
  if (start < 1) return Value::Int(0);
  if (needle.empty()) return Value::Int(start <= static_cast<int64_t>(hay.size()) + 1 ? start : 0);
  auto it = std::search(hay.begin() + std::min<int64_t>(start - 1, hay.size()), hay.end(),
                        needle.begin(), needle.end());
  return Value::Int(it == hay.end() ? 0 : (it - hay.begin()) + 1);
}

Result<Value> EvalSplitIndex(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& s = args[0].string_value();
  const std::string& sep = args[1].string_value();
  const int64_t idx = args[2].int_value();
  if (sep.empty() || idx < 0) return Value::Null();
  size_t at = 0;
  for (int64_t i = 0;; i++) {
    size_t k = s.find(sep, at);
    if (i == idx)
      return Value::String(s.substr(at, k == std::string::npos ? std::string::npos : k - at));
    if (k == std::string::npos) return Value::Null();
    at = k + sep.size();
  }
}

Result<Value> EvalRegexp(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  auto re = Pattern(args[1].string_value());
  if (!re.ok()) return ErrorAt(e.pos, re.status().message());
  const std::string& s = args[0].string_value();
  if (f == "REGEXP_REPLACE") {
    auto replaced = RegexReplaceAll(**re, s, args[2].string_value());
    if (!replaced.ok()) return ErrorAt(e.pos, replaced.status().message());
    return Value::String(std::move(*replaced));
  }
  std::vector<std::pair<int64_t, int64_t>> spans;
  auto found = (*re)->Find(s, 0, &spans);
  if (!found.ok()) return ErrorAt(e.pos, found.status().message());
  if (f == "REGEXP") return Value::Bool(*found && !args[1].string_value().empty());
  if (!*found) return Value::Null();
  // A group the pattern does not have gives NULL, as Flink's (its exception is caught).
  const int64_t g = args.size() > 2 ? args[2].int_value() : 0;
  if (g < 0 || static_cast<size_t>(g) >= spans.size() || spans[static_cast<size_t>(g)].first < 0) {
    return Value::Null();
  }
  const auto& span = spans[static_cast<size_t>(g)];
  return Value::String(
      s.substr(static_cast<size_t>(span.first), static_cast<size_t>(span.second - span.first)));
}

Result<Value> EvalToBase64(const BoundExpr& e, const std::vector<Value>& args) {
  return Value::String(ToBase64(args[0].string_value()));
}

Result<Value> EvalFromBase64(const BoundExpr& e, const std::vector<Value>& args) {
  auto d = FromBase64(args[0].string_value());
  return d ? Value::String(std::move(*d)) : Value::Null();
}

Result<Value> EvalAscii(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& s = args[0].string_value();
  return Value::Int(s.empty() ? 0 : static_cast<unsigned char>(s[0]));
}

Result<Value> EvalChr(const BoundExpr& e, const std::vector<Value>& args) {
  const int64_t c = args[0].int_value();
  if (c < 0 || c > 0x10FFFF) return Value::String("");
  return Value::String(Utf8({static_cast<uint32_t>(c)}));
}

Result<Value> EvalGreatest(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  Value best = args[0];
  for (size_t i = 1; i < args.size(); i++) {
    const int c = CompareSame(args[i], best);
    if (f == "GREATEST" ? c > 0 : c < 0) best = args[i];
  }
  return best;
}

Result<Value> EvalMd5(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  std::string name = f == "SHA2" ? "sha" + std::to_string(args[1].int_value()) : f;
  if (f == "SHA2" && name != "sha224" && name != "sha256" && name != "sha384" && name != "sha512") {
    return Value::Null();  // Flink: NULL for another bit length
  }
  std::transform(name.begin(), name.end(), name.begin(), ::tolower);
  TRIB_ASSIGN_OR_RETURN(std::string hex, HexDigest(name.c_str(), args[0].string_value()));
  return Value::String(std::move(hex));
}

Result<Value> EvalJsonExists(const BoundExpr& e, const std::vector<Value>& args) {
  // A document that does not parse gives FALSE, as Flink's default (FALSE ON ERROR).
  auto doc = ParseJson(args[0].string_value(), "JSON text");
  return Value::Bool(doc.ok() && JsonAt(*doc, args[1].string_value()) != nullptr);
}

Result<Value> EvalOverlay(const BoundExpr& e, const std::vector<Value>& args) {
  // Whole UTF-8 characters: r replaces len characters of s from position pos (1-based; len
  // defaults to r's length).
  const std::vector<uint32_t> s = CodePoints(args[0].string_value());
  const std::vector<uint32_t> r = CodePoints(args[1].string_value());
  const int64_t from = args[2].int_value();
  const int64_t len = args.size() > 3 ? args[3].int_value() : static_cast<int64_t>(r.size());
  if (from < 1 || len < 0) {
    return Status::Invalid("OVERLAY needs a position of at least 1 and a length of at least 0");
  }
  const size_t start = std::min<size_t>(static_cast<size_t>(from - 1), s.size());
  const size_t end = std::min<size_t>(start + static_cast<size_t>(len), s.size());
  return Value::String(Utf8(s, 0, start) + Utf8(r) + Utf8(s, end));
}

}  // namespace

const std::vector<FunctionInfo>& StringFunctions() {
  using K = FunctionKind;
  [[maybe_unused]] constexpr uint8_t N = kMayReturnNull, W = kReadsWallClock, V = kVolatile,
                                     S = kSeesNull;
  static const std::vector<FunctionInfo> kTable = {
      {"REPLACE", K::kScalar, kNone, BindReplace, EvalReplace},
      {"REPEAT", K::kScalar, kNone, BindRepeat, EvalRepeat},
      {"REVERSE", K::kScalar, kNone, BindReverse, EvalReverse},
      {"INITCAP", K::kScalar, kNone, BindReverse, EvalInitcap},
      {"LPAD", K::kScalar, N, BindLpad, EvalLpad},
      {"RPAD", K::kScalar, N, BindLpad, EvalLpad},
      {"LOCATE", K::kScalar, kNone, BindLocate, EvalLocate},
      {"CONCAT_WS", K::kScalar, N | S, BindConcatWs, EvalConcatWs},
      {"SPLIT_INDEX", K::kScalar, N, BindSplitIndex, EvalSplitIndex},
      {"REGEXP", K::kScalar, kNone, BindRegexp, EvalRegexp},
      {"REGEXP_REPLACE", K::kScalar, kNone, BindRegexp, EvalRegexp},
      {"REGEXP_EXTRACT", K::kScalar, N, BindRegexp, EvalRegexp},
      {"TO_BASE64", K::kScalar, kNone, BindReverse, EvalToBase64},
      {"FROM_BASE64", K::kScalar, N, BindReverse, EvalFromBase64},
      {"ASCII", K::kScalar, kNone, BindAscii, EvalAscii},
      {"CHR", K::kScalar, kNone, BindChr, EvalChr},
      {"OVERLAY", K::kScalar, kNone, BindOverlay, EvalOverlay},
      {"IF", K::kScalar, N | S, BindIf, EvalIf},
      {"GREATEST", K::kScalar, kNone, BindGreatest, EvalGreatest},
      {"LEAST", K::kScalar, kNone, BindGreatest, EvalGreatest},
      {"MD5", K::kScalar, kNone, BindMd5, EvalMd5},
      {"SHA1", K::kScalar, kNone, BindMd5, EvalMd5},
      {"SHA224", K::kScalar, kNone, BindMd5, EvalMd5},
      {"SHA256", K::kScalar, kNone, BindMd5, EvalMd5},
      {"SHA384", K::kScalar, kNone, BindMd5, EvalMd5},
      {"SHA512", K::kScalar, kNone, BindMd5, EvalMd5},
      {"SHA2", K::kScalar, N, BindMd5, EvalMd5},
      {"RAND", K::kScalar, V | S, BindRand, EvalRand},
      {"RAND_INTEGER", K::kScalar, V | S, BindRand, EvalRand},
      {"UUID", K::kScalar, V | S, BindUuid, EvalUuid},
      {"JSON_VALUE", K::kScalar, N | S, BindJsonValue, EvalJsonValue},
      {"JSON_EXISTS", K::kScalar, N, BindJsonExists, EvalJsonExists},
      {"JSON_QUERY", K::kScalar, N | S, BindJsonValue, EvalJsonValue},
  };
  return kTable;
}

}  // namespace tributary::sql
