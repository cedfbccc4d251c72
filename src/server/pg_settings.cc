#include "server/pg_settings.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "common/strings.h"
#include "server/jobs.h"
#include "sql/parser/lexer.h"
#include "sql/session/session.h"

namespace tributary::server {

namespace {

constexpr const char* kZoneKey = "table.local-time-zone";

struct Parameter {
  const char* name;           // as PostgreSQL spells it (SHOW's column, ParameterStatus)
  const char* default_value;  // "" for TimeZone: the session's zone
  bool reported;              // sent as ParameterStatus
  bool read_only;
};

constexpr Parameter kParameters[] = {
    {"application_name", "", true, false},
    {"client_encoding", "UTF8", true, false},
    {"DateStyle", "ISO, MDY", true, false},
    {"extra_float_digits", "1", false, false},
    {"integer_datetimes", "on", true, true},
    {"IntervalStyle", "postgres", true, false},
    {"server_encoding", "UTF8", true, true},
    {"server_version", "16.0 (Tributary)", true, true},
    {"search_path", "", false, false},
    {"standard_conforming_strings", "on", true, false},
    {"statement_timeout", "0", false, false},
    {"TimeZone", "", true, false},
    {"transaction_isolation", "read committed", false, true},
};

const Parameter* Find(std::string_view name) {
  for (const Parameter& p : kParameters) {
    if (EqualsIgnoreCase(name, p.name)) return &p;
  }
  return nullptr;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) i++;
  return s.substr(i);
}

// 'UTC+5' / 'GMT-05:30' with the other sign: PostgreSQL reads them as POSIX does, hours west of
// Greenwich (pgjdbc sends a JVM at GMT+05:30 as GMT-05:30), the session's zone option (Flink's)
// east; the same both ways.
std::string PosixSigns(std::string zone) {
  if (zone.size() > 3 && (zone[3] == '+' || zone[3] == '-') &&
      (EqualsIgnoreCase(zone.substr(0, 3), "UTC") || EqualsIgnoreCase(zone.substr(0, 3), "GMT"))) {
    zone[3] = zone[3] == '+' ? '-' : '+';
  }
  return zone;
}

Status InvalidValue(const Parameter& p, const std::string& value) {
  return Status::Invalid("invalid value for parameter \"" + std::string(p.name) + "\": \"" + value +
                         "\"");
}

// The statement's words: SET [SESSION] name {= | TO} value[, ...] | SET [SESSION] TIME ZONE value
// | RESET name | SHOW name, with the parameter found; value the text of the tokens after = or
// TO (strings unquoted, lists joined by ", ").
struct Parsed {
  std::string verb;  // SET, RESET, SHOW
  const Parameter* parameter = nullptr;
  std::string name;         // as written
  bool to_default = false;  // SET name TO DEFAULT, RESET
  std::string value;        // SET's
};

Result<Parsed> Parse(const std::string& text) {
  TRIB_ASSIGN_OR_RETURN(std::vector<sql::Token> t, sql::Tokenize(text));
  Parsed p;
  size_t i = 0;
  auto word = [&](size_t k) { return k < t.size() && t[k].type == sql::TokenType::kWord; };
  if (!word(0)) return Status::Invalid("not a setting statement");
  p.verb = Upper(t[0].text);
  i = 1;
  if (p.verb == "SET" && (t[i].Is("SESSION") || t[i].Is("LOCAL")) && word(i + 1) &&
      !t[i + 1].Is("CHARACTERISTICS") && !t[i + 1].Is("AUTHORIZATION")) {
    if (t[i].Is("LOCAL")) {
      return Status::NotSupported("SET LOCAL is not supported yet: there are no transactions");
    }
    i++;
  }
  if (p.verb == "SET" && t[i].Is("TIME") && word(i + 1) && t[i + 1].Is("ZONE")) {
    p.name = "TimeZone";
    i += 2;
  } else if (word(i) || t[i].type == sql::TokenType::kQuotedIdentifier) {
    p.name = t[i].text;
    i++;
  } else {
    return Status::Invalid("not a setting statement");
  }
  p.parameter = Find(p.name);
  if (p.verb == "SHOW" || p.verb == "RESET") {
    if (p.verb == "SHOW" && !p.parameter && EqualsIgnoreCase(p.name, "TRANSACTION") && word(i) &&
        t[i].Is("ISOLATION") && word(i + 1) && t[i + 1].Is("LEVEL")) {
      p.parameter = Find("transaction_isolation");
      i += 2;
    }
    p.to_default = p.verb == "RESET";
  } else {
    if (t[i].IsSymbol("=") || t[i].Is("TO")) i++;
    if (t[i].Is("DEFAULT") || (p.name == "TimeZone" && t[i].Is("LOCAL"))) {
      p.to_default = true;
      i++;
    }
  }
  if (p.verb == "SET" && !p.to_default) {
    const size_t first = i;
    for (; t[i].type != sql::TokenType::kEnd && !t[i].IsSymbol(";"); i++) {
      p.value += t[i].IsSymbol(",") ? ", " : t[i].text;
    }
    if (i == first) return Status::Invalid("SET " + p.name + " needs a value");
  }
  while (t[i].IsSymbol(";")) i++;
  if (t[i].type != sql::TokenType::kEnd) {
    return Status::Invalid("unexpected " + t[i].Describe() + " after " + p.verb + " " + p.name);
  }
  return p;
}

}  // namespace

PgSettings::PgSettings(sql::Session* session)
    : session_(session), startup_database_(session->current_database()) {}

bool PgSettings::IsSettingStatement(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) i++;
  const std::string head = Upper(text.substr(i, 5));
  if (head.rfind("SET", 0) != 0 && head != "RESET" && head.rfind("SHOW", 0) != 0 &&
      head.rfind("--", 0) != 0 && head.rfind("/*", 0) != 0) {
    return false;  // (the common case, without tokenizing)
  }
  auto p = Parse(text);
  if (!p.ok() || (p->verb != "SET" && p->verb != "RESET" && p->verb != "SHOW")) return false;
  // (Flink's SET 'key' = 'value' is a string, not a word: never here.)
  return p->parameter != nullptr || (p->verb == "SET" && EqualsIgnoreCase(p->name, "TimeZone"));
}

Result<JobAnswer> PgSettings::Run(const std::string& text) {
  TRIB_ASSIGN_OR_RETURN(Parsed p, Parse(text));
  if (!p.parameter) {
    return Status::NotFound("unrecognized configuration parameter \"" + p.name + "\"");
  }
  JobAnswer a;
  a.tag = p.verb;
  if (p.verb == "SHOW") {
    TRIB_ASSIGN_OR_RETURN(std::string value, Get(p.parameter->name));
    a.fields.push_back(Field{0, p.parameter->name, DataType::String(), ""});
    a.rows.push_back({Value::String(std::move(value))});
    return a;
  }
  TRIB_RETURN_NOT_OK(Set(p.parameter->name, p.to_default ? nullptr : &p.value));
  return a;
}

Status PgSettings::ApplyStartup(const std::map<std::string, std::string>& params) {
  for (const auto& [name, value] : params) {
    if (name == "user" || name == "database") continue;
    if (name == "options" && Trim(value).empty()) continue;
    if (name == "options" || name == "replication") {
      return Status::NotSupported("the startup parameter \"" + name +
                                  "\" is not supported yet: set parameters by name");
    }
    const Parameter* p = Find(name);
    if (!p) return Status::NotFound("unrecognized configuration parameter \"" + name + "\"");
    // (asyncpg quotes its values: client_encoding = 'utf-8'.)
    const bool quoted = value.size() >= 2 && value.front() == '\'' && value.back() == '\'';
    const std::string v = quoted ? value.substr(1, value.size() - 2) : value;
    // psql asks for its locale's encoding (LATIN1, say); it is told UTF8, what it gets (a
    // ParameterStatus), as a client that cannot be refused before its first prompt.
    if (std::string(p->name) == "client_encoding" && !Set(p->name, &v).ok()) continue;
    TRIB_RETURN_NOT_OK(Set(p->name, &v));
    if (std::string(p->name) == "TimeZone") startup_zone_ = v;
  }
  return Status::OK();
}

Status PgSettings::Set(const std::string& name, const std::string* value) {
  const Parameter& p = *Find(name);
  if (p.read_only) {
    return Status::Invalid("parameter \"" + std::string(p.name) + "\" cannot be changed");
  }
  const std::string key = p.name;
  if (key == "TimeZone") {
    std::string zone = value ? Trim(*value) : startup_zone_;
    if (EqualsIgnoreCase(zone, "LOCAL") || EqualsIgnoreCase(zone, "DEFAULT")) zone = startup_zone_;
    zone = PosixSigns(zone);
    if (zone.find('\'') != std::string::npos) return InvalidValue(p, zone);
    auto r = zone.empty() ? session_->ExecuteText("RESET '" + std::string(kZoneKey) + "'", {})
                          : session_->ExecuteText(
                                "SET '" + std::string(kZoneKey) + "' = '" + zone + "'", {});
    if (!r.ok()) return InvalidValue(p, zone);
    return Status::OK();
  }
  if (key == "search_path") {  // a schema is a database: the connection's current one
    std::vector<std::string> path = SplitCommaList(value ? *value : startup_database_);
    if (path.size() != 1 || path[0].find('`') != std::string::npos) {
      return Status::NotSupported(
          "search_path is one database here (a schema is a database); a list or none is not "
          "supported yet");
    }
    auto used = session_->ExecuteText("USE `" + path[0] + "`", {});
    if (!used.ok()) return InvalidValue(p, path[0]);
    return Status::OK();
  }
  if (!value) {
    values_.erase(key);
    return Status::OK();
  }
  std::string v = Trim(*value);
  if (key == "client_encoding") {
    const std::string u = Upper(v);
    if (u == "UTF8" || u == "UTF-8" || u == "UNICODE") {
      v = "UTF8";
    } else if (u == "SQL_ASCII") {
      v = "SQL_ASCII";  // (no conversion: the bytes are sent as they are, UTF-8)
    } else {
      return Status::NotSupported("client_encoding \"" + v +
                                  "\" is not supported yet: the server sends UTF8");
    }
  } else if (key == "DateStyle") {
    std::string order = "MDY";
    for (std::string part : SplitCommaList(v)) {
      part = Upper(part);
      if (part == "ISO") continue;
      if (part == "MDY" || part == "DMY" || part == "YMD") {
        order = part;
      } else if (part == "US" || part == "NONEURO" || part == "NONEUROPEAN") {
        order = "MDY";
      } else if (part == "EURO" || part == "EUROPEAN") {
        order = "DMY";
      } else if (part == "SQL" || part == "POSTGRES" || part == "GERMAN") {
        return Status::NotSupported("DateStyle \"" + v +
                                    "\" is not supported yet: dates are written ISO");
      } else {
        return InvalidValue(p, v);
      }
    }
    v = "ISO, " + order;
  } else if (key == "extra_float_digits") {
    char* end = nullptr;
    const long n = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || n < -15 || n > 3) return InvalidValue(p, v);
    if (n <= 0) {
      return Status::NotSupported(
          "extra_float_digits " + v +
          " is not supported yet: floats are sent in the shortest form that reads back exactly "
          "(what 1 to 3 mean)");
    }
    v = std::to_string(n);
  } else if (key == "IntervalStyle") {
    if (!EqualsIgnoreCase(v, "postgres")) {
      return Status::NotSupported("IntervalStyle \"" + v + "\" is not supported yet");
    }
    v = "postgres";
  } else if (key == "standard_conforming_strings") {
    const std::string u = Upper(v);
    if (u == "OFF" || u == "FALSE" || u == "0" || u == "NO") {
      return Status::NotSupported(
          "standard_conforming_strings off is not supported yet: backslashes in strings are "
          "literal");
    }
    if (u != "ON" && u != "TRUE" && u != "1" && u != "YES") return InvalidValue(p, v);
    v = "on";
  } else if (key == "statement_timeout") {
    if (v != "0" && v != "0ms" && v != "0s") {
      return Status::NotSupported("statement_timeout " + v +
                                  " is not supported yet: cancel a statement instead");
    }
    v = "0";
  }
  values_[key] = v;
  return Status::OK();
}

namespace {

// Parameter `p`'s value in `session`, `values` holding what SET gave.
std::string ValueOf(const Parameter& p, const sql::Session& session,
                    const std::map<std::string, std::string>& values) {
  if (p.name == std::string_view("TimeZone")) {
    auto it = session.options().find(kZoneKey);
    return it == session.options().end() ? std::string("UTC") : PosixSigns(it->second);
  }
  if (p.name == std::string_view("search_path")) return session.current_database();
  auto it = values.find(p.name);
  return it == values.end() ? std::string(p.default_value) : it->second;
}

}  // namespace

Result<std::string> PgSettings::Get(const std::string& name) const {
  return ValueOf(*Find(name), *session_, values_);
}

std::vector<std::pair<std::string, std::string>> PgSettings::TakeReports() {
  // (Called after every message of the extended protocol: no lookups by name here.)
  std::vector<std::pair<std::string, std::string>> out;
  for (const Parameter& p : kParameters) {
    if (!p.reported) continue;
    std::string v = ValueOf(p, *session_, values_);
    auto it = reported_.find(p.name);
    if (it != reported_.end() && it->second == v) continue;
    out.emplace_back(p.name, v);
    reported_.insert_or_assign(p.name, std::move(v));
  }
  return out;
}

}  // namespace tributary::server
