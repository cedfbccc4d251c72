// Option lookup and validation over the table in options_table.cc.
#include "tributary/options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <string>
#include <vector>

#include "options/option_values.h"

namespace tributary {
namespace {

constexpr std::string_view kFieldsPrefix = "fields.";
constexpr std::string_view kColumnPlaceholder = "<col>";
constexpr int kNumScopes = 3;

std::string Quote(std::string_view s) { return "'" + std::string(s) + "'"; }

std::string Join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += items[i];
  }
  return out;
}

std::vector<std::string> SplitList(std::string_view s) {
  std::vector<std::string> out;
  while (true) {
    size_t comma = s.find(',');
    out.emplace_back(options::Trim(s.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

// Lookup structures over AllOptions(), one set per scope.
struct ScopeIndex {
  std::map<std::string, const OptionDef*, std::less<>> by_name;    // canonical keys and aliases
  std::map<std::string, const OptionDef*, std::less<>> by_suffix;  // fields.<col>.<suffix>
  // Other per-column keys: <prefix><col><suffix> (e.g. 'file-index.bloom-filter.<col>.fpp').
  struct ColumnPattern {
    std::string prefix, suffix;
    const OptionDef* def;
  };
  std::vector<ColumnPattern> column_patterns;
  std::vector<std::string> names;     // canonical keys and aliases, table order
  std::vector<std::string> suffixes;  // per-column suffixes, table order
};

const ScopeIndex& IndexFor(OptionScope scope) {
  static const ScopeIndex* indexes = [] {
    auto* idx = new ScopeIndex[kNumScopes];
    for (const OptionDef& def : AllOptions()) {
      ScopeIndex& s = idx[static_cast<int>(def.scope)];
      std::string pattern = std::string(kFieldsPrefix) + std::string(kColumnPlaceholder) + ".";
      if (def.key.rfind(pattern, 0) == 0) {
        std::string suffix = def.key.substr(pattern.size());
        s.by_suffix.emplace(suffix, &def);
        s.suffixes.push_back(suffix);
        continue;
      }
      if (size_t at = def.key.find(kColumnPlaceholder); at != std::string::npos) {
        s.column_patterns.push_back(
            {def.key.substr(0, at), def.key.substr(at + kColumnPlaceholder.size()), &def});
        continue;
      }
      s.by_name.emplace(def.key, &def);
      s.names.push_back(def.key);
      for (const std::string& alias : def.aliases) {
        s.by_name.emplace(alias, &def);
        s.names.push_back(alias);
      }
    }
    return idx;
  }();
  return indexes[static_cast<int>(scope)];
}

const char* ScopeName(OptionScope scope) {
  switch (scope) {
    case OptionScope::kTable:
      return "table";
    case OptionScope::kSession:
      return "session";
    case OptionScope::kCatalog:
      return "catalog";
  }
  return "?";
}

const char* ScopeHint(OptionScope scope) {
  switch (scope) {
    case OptionScope::kTable:
      return "set it in CREATE TABLE ... WITH (...), ALTER TABLE ... SET (...) or an OPTIONS hint";
    case OptionScope::kSession:
      return "set it with SET 'key' = 'value'";
    case OptionScope::kCatalog:
      return "set it in CREATE CATALOG ... WITH (...)";
  }
  return "";
}

// A per-column key split into its parts: fields.<columns>.<suffix>.
struct ColumnKey {
  std::string columns;
  std::string suffix;
};

// Splits "<prefix>.<middle>.<suffix>" at the first and the last dot; false when there are fewer
// than two dots.
bool SplitThree(std::string_view key, std::string* prefix, std::string* middle,
                std::string* suffix) {
  size_t first = key.find('.');
  size_t last = key.rfind('.');
  if (first == std::string_view::npos || first == last) return false;
  *prefix = std::string(key.substr(0, first));
  *middle = std::string(key.substr(first + 1, last - first - 1));
  *suffix = std::string(key.substr(last + 1));
  return true;
}

// The column names of a per-column key checked against `columns` (when known).
Status CheckKeyColumns(std::string_view key, const ColumnKey& ck,
                       const std::vector<std::string>& columns) {
  std::vector<std::string> names = SplitList(ck.columns);
  if (names.size() > 1 && ck.suffix != "sequence-group") {
    return Status::Invalid("option " + Quote(key) + " names several columns; only " +
                           "'fields.<col1>,<col2>.sequence-group' may");
  }
  for (const std::string& name : names) {
    if (name.empty()) return Status::Invalid("option " + Quote(key) + " has an empty column name");
    if (columns.empty()) continue;
    if (std::find(columns.begin(), columns.end(), name) != columns.end()) continue;
    std::string msg = "option " + Quote(key) + " names unknown column " + Quote(name);
    std::string guess = options::DidYouMean(name, columns);
    if (!guess.empty()) msg += "; did you mean " + Quote(guess) + "?";
    return Status::Invalid(msg);
  }
  return Status::OK();
}

// Resolves `key` in `scope`. On success sets *def and *canonical.
Status Resolve(OptionScope scope, std::string_view key, const std::vector<std::string>& columns,
               const OptionDef** def, std::string* canonical) {
  const ScopeIndex& idx = IndexFor(scope);
  if (auto it = idx.by_name.find(key); it != idx.by_name.end()) {
    *def = it->second;
    *canonical = it->second->key;
    return Status::OK();
  }
  std::string prefix, middle, suffix;
  bool three = SplitThree(key, &prefix, &middle, &suffix);
  if (three && prefix + "." == kFieldsPrefix) {
    if (auto it = idx.by_suffix.find(suffix); it != idx.by_suffix.end()) {
      TRIB_RETURN_NOT_OK(CheckKeyColumns(key, {middle, suffix}, columns));
      *def = it->second;
      *canonical = std::string(kFieldsPrefix) + Join(SplitList(middle), ",") + "." + suffix;
      return Status::OK();
    }
  }

  for (const auto& p : idx.column_patterns) {
    if (key.size() > p.prefix.size() + p.suffix.size() && key.starts_with(p.prefix) &&
        key.ends_with(p.suffix)) {
      const std::string column(
          key.substr(p.prefix.size(), key.size() - p.prefix.size() - p.suffix.size()));
      if (!columns.empty() && std::find(columns.begin(), columns.end(), column) == columns.end()) {
        std::string msg = "option " + Quote(key) + " names unknown column " + Quote(column);
        std::string guess = options::DidYouMean(column, columns);
        if (!guess.empty()) msg += "; did you mean " + Quote(guess) + "?";
        return Status::Invalid(msg);
      }
      *def = p.def;
      *canonical = std::string(key);
      return Status::OK();
    }
  }

  // Unknown: build the best suggestion.
  std::string msg = "unknown option " + Quote(key);
  std::vector<std::string> candidates = idx.names;
  for (const auto& p : idx.column_patterns) {
    for (const std::string& c : columns) candidates.push_back(p.prefix + c + p.suffix);
  }
  if (three && !idx.suffixes.empty() && options::EditDistance(prefix, "fields") <= 2) {
    // A per-column key with a typo: fields.<col>.<suffix>, fixing the column name too.
    std::string column = middle;
    if (!columns.empty() && std::find(columns.begin(), columns.end(), middle) == columns.end()) {
      std::string guess = options::DidYouMean(middle, columns);
      if (!guess.empty()) column = guess;
    }
    for (const std::string& s : idx.suffixes) {
      candidates.push_back(std::string(kFieldsPrefix) + column + "." + s);
    }
  }
  std::string guess = options::DidYouMean(key, candidates);
  if (!guess.empty()) return Status::Invalid(msg + "; did you mean " + Quote(guess) + "?");

  // Known in another scope?
  for (int s = 0; s < kNumScopes; ++s) {
    auto other = static_cast<OptionScope>(s);
    if (other == scope) continue;
    if (IndexFor(other).by_name.count(key) > 0) {
      return Status::Invalid(Quote(key) + " is a " + ScopeName(other) + " option, not a " +
                             ScopeName(scope) + " option; " + ScopeHint(other));
    }
  }
  if (three && prefix + "." == kFieldsPrefix) {
    std::vector<std::string> patterns;
    for (const std::string& s : idx.suffixes) patterns.push_back("fields.<col>." + s);
    return Status::Invalid(msg + "; per-column options are " + Join(patterns, ", "));
  }
  if (scope == OptionScope::kSession && !idx.names.empty()) {
    // SET names the closest known key even when it is not a likely typo (CONTRACT.md).
    const std::string* best = &idx.names[0];
    int best_d = options::EditDistance(key, *best);
    for (const std::string& n : idx.names) {
      int d = options::EditDistance(key, n);
      if (d < best_d) {
        best_d = d;
        best = &n;
      }
    }
    return Status::Invalid(msg + "; the closest known session option is " + Quote(*best));
  }
  return Status::Invalid(msg);
}

Status BadValue(std::string_view key, std::string_view value, const std::string& why) {
  return Status::Invalid("invalid value " + Quote(value) + " for option " + Quote(key) + ": " +
                         why);
}

// Checks `value` against `def` and returns its canonical spelling.
Result<std::string> CheckValue(const OptionDef& def, std::string_view key, std::string_view value,
                               const std::vector<std::string>& columns) {
  std::string v(options::Trim(value));
  switch (def.type) {
    case OptionType::kString:
      if (def.column_list) {
        std::vector<std::string> names = SplitList(v);
        for (const std::string& name : names) {
          if (name.empty()) return BadValue(key, value, "expected column names separated by ','");
          if (columns.empty() || std::find(columns.begin(), columns.end(), name) != columns.end()) {
            continue;
          }
          std::string why = "unknown column " + Quote(name);
          std::string guess = options::DidYouMean(name, columns);
          if (!guess.empty()) why += "; did you mean " + Quote(guess) + "?";
          return BadValue(key, value, why);
        }
        v = Join(names, ",");
      } else {
        v = std::string(value);  // strings keep their blanks
      }
      break;
    case OptionType::kInt:
    case OptionType::kLong: {
      auto n = options::ParseInt64(v);
      if (!n.ok()) return BadValue(key, value, "expected an integer");
      if (*n < def.min_value) {
        return BadValue(key, value, "must be at least " + std::to_string(def.min_value));
      }
      if (*n > def.max_value) {
        return BadValue(key, value, "must be at most " + std::to_string(def.max_value));
      }
      v = std::to_string(*n);
      break;
    }
    case OptionType::kBool: {
      bool b = false;
      if (!options::ParseBool(v, &b)) return BadValue(key, value, "expected true or false");
      v = b ? "true" : "false";
      break;
    }
    case OptionType::kDouble: {
      double d = 0;
      auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
      if (v.empty() || ec != std::errc() || ptr != v.data() + v.size()) {
        return BadValue(key, value, "expected a number");
      }
      break;
    }
    case OptionType::kDuration: {
      auto ms = options::ParseDurationMillis(v);
      if (!ms.ok()) return ms.status().WithContext("option " + Quote(key));
      break;
    }
    case OptionType::kMemorySize: {
      auto bytes = options::ParseMemorySize(v);
      if (!bytes.ok()) return bytes.status().WithContext("option " + Quote(key));
      if (*bytes < def.min_value) {
        return BadValue(key, value, "must be at least " + std::to_string(def.min_value) + " bytes");
      }
      break;
    }
    case OptionType::kEnum: {
      std::vector<std::string> items = def.list ? SplitList(v) : std::vector<std::string>{v};
      for (std::string& item : items) {
        std::string match = options::MatchAllowed(item, def.allowed);
        if (match.empty()) {
          std::string msg = "invalid value " + Quote(item) + " for option " + Quote(key);
          std::string guess = options::DidYouMean(item, def.allowed);
          if (!guess.empty()) msg += "; did you mean " + Quote(guess) + "?";
          msg += " (allowed: " + Join(def.allowed, ", ") + ")";
          return Status::Invalid(msg);
        }
        item = match;
      }
      v = Join(items, ",");
      break;
    }
  }
  if (def.validate != nullptr) {
    Status st = def.validate(v);
    if (!st.ok()) return BadValue(key, value, st.message());
  }
  return v;
}

}  // namespace

const char* OptionTypeName(OptionType type) {
  switch (type) {
    case OptionType::kString:
      return "string";
    case OptionType::kInt:
      return "int";
    case OptionType::kLong:
      return "long";
    case OptionType::kBool:
      return "boolean";
    case OptionType::kDuration:
      return "duration";
    case OptionType::kMemorySize:
      return "memory size";
    case OptionType::kEnum:
      return "enum";
    case OptionType::kDouble:
      return "double";
  }
  return "?";
}

const OptionDef* FindOption(OptionScope scope, std::string_view key) {
  const OptionDef* def = nullptr;
  std::string canonical;
  if (!Resolve(scope, key, {}, &def, &canonical).ok()) return nullptr;
  return def;
}

Result<std::pair<std::string, std::string>> NormalizeOption(
    OptionScope scope, std::string_view key, std::string_view value,
    const std::vector<std::string>& columns) {
  const OptionDef* def = nullptr;
  std::string canonical;
  TRIB_RETURN_NOT_OK(Resolve(scope, key, columns, &def, &canonical));
  TRIB_ASSIGN_OR_RETURN(std::string v, CheckValue(*def, key, value, columns));
  return std::make_pair(std::move(canonical), std::move(v));
}

Result<std::string> CheckOption(OptionScope scope, std::string_view key, std::string_view value,
                                const std::vector<std::string>& columns) {
  TRIB_ASSIGN_OR_RETURN(auto kv, NormalizeOption(scope, key, value, columns));
  return std::move(kv.first);
}

bool IsSchemaColumnOption(std::string_view key) {
  constexpr std::string_view kSchema = "schema.";
  if (key.substr(0, kSchema.size()) != kSchema) return false;
  std::string_view rest = key.substr(kSchema.size());
  if (rest.substr(0, 10) == "watermark." || rest.substr(0, 12) == "primary-key.") return true;
  const size_t dot = rest.find('.');
  if (dot == 0 || dot == std::string_view::npos) return false;
  for (char c : rest.substr(0, dot)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

Result<std::map<std::string, std::string>> NormalizeOptions(
    OptionScope scope, const std::map<std::string, std::string>& options,
    const std::vector<std::string>& columns) {
  std::map<std::string, std::string> out;
  std::map<std::string, std::string> given_as;  // canonical key -> the key the user wrote
  for (const auto& [key, value] : options) {
    if (scope == OptionScope::kTable && IsSchemaColumnOption(key)) {
      out.emplace(key, value);
      continue;
    }
    TRIB_ASSIGN_OR_RETURN(auto kv, NormalizeOption(scope, key, value, columns));
    auto [it, inserted] = given_as.emplace(kv.first, key);
    if (!inserted) {
      return Status::Invalid("option " + Quote(kv.first) + " is given twice, as " +
                             Quote(it->second) + " and as " + Quote(key));
    }
    out.emplace(std::move(kv.first), std::move(kv.second));
  }
  return out;
}

}  // namespace tributary
