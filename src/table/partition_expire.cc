#include "table/partition_expire.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>

#include "common/datetime.h"
#include "meta/partition_marker.h"
#include "meta/paths.h"
#include "options/option_keys.h"
#include "options/option_values.h"
#include "table/system_tables.h"
#include "tributary/table.h"
#include "tributary/table_writer.h"

namespace tributary::table {

namespace {

bool LeapYear(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int64_t DaysInMonth(int64_t y, int64_t m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && LeapYear(y) ? 29 : kDays[m - 1];
}

// A formatter token: a field (letter, repeated `count` times) or literal text.
struct Token {
  char letter = 0;  // 0: literal
  int count = 0;
  std::string text;
};

Result<std::vector<Token>> Tokenize(const std::string& f) {
  std::vector<Token> out;
  for (size_t i = 0; i < f.size();) {
    const char c = f[i];
    if (std::isalpha(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < f.size() && f[j] == c) j++;
      const int count = static_cast<int>(j - i);
      const bool ok = c == 'y' || c == 'u' || c == 'S' ||
                      ((c == 'M' || c == 'd' || c == 'H' || c == 'm' || c == 's') && count <= 2);
      if (!ok) {
        return Status::NotSupported("'partition.timestamp-formatter' = '" + f + "': the field '" +
                                    f.substr(i, j - i) + "' is not supported yet (supported: " +
                                    "yyyy, uuuu, yy, MM, dd, HH, mm, ss, S..., quoted text)");
      }
      out.push_back({c, count, ""});
      i = j;
    } else if (c == '\'') {
      std::string text;
      size_t j = i + 1;
      for (; j < f.size(); j++) {
        if (f[j] == '\'') {
          if (j + 1 < f.size() && f[j + 1] == '\'') {
            text += '\'';
            j++;
          } else {
            break;
          }
        } else {
          text += f[j];
        }
      }
      if (j >= f.size()) {
        return Status::Invalid("'partition.timestamp-formatter' = '" + f + "': unclosed quote");
      }
      if (i + 1 == j) text = "'";  // '' is a quote
      out.push_back({0, 0, text});
      i = j + 1;
    } else {
      out.push_back({0, 0, std::string(1, c)});
      i++;
    }
  }
  return out;
}

struct Fields {
  int64_t year = -1, month = -1, day = -1, hour = 0, minute = 0, second = 0, millis = 0;
};

std::optional<int64_t> ToMillis(const Fields& f) {
  if (f.year < 0 || f.month < 1 || f.month > 12 || f.day < 1 ||
      f.day > DaysInMonth(f.year, f.month) || f.hour > 23 || f.minute > 59 || f.second > 59) {
    return std::nullopt;
  }
  return DaysFromCivil(f.year, static_cast<unsigned>(f.month), static_cast<unsigned>(f.day)) *
             86400000 +
         ((f.hour * 60 + f.minute) * 60 + f.second) * 1000 + f.millis;
}

// Reads digits at `*pos`: exactly `min` when `exact`, else `min` to `max` (greedy).
std::optional<int64_t> Digits(const std::string& s, size_t* pos, size_t min, size_t max,
                              bool exact) {
  size_t n = 0;
  const size_t limit = exact ? min : max;
  while (*pos + n < s.size() && n < limit &&
         std::isdigit(static_cast<unsigned char>(s[*pos + n]))) {
    n++;
  }
  if (n < min) return std::nullopt;
  int64_t v = 0;
  for (size_t k = 0; k < n; k++) v = v * 10 + (s[*pos + k] - '0');
  *pos += n;
  return v;
}

// Java's default partition time: y-M-d[ H:m:s[.fraction]], 1 or 2 digits per field.
std::optional<int64_t> ParseDefault(const std::string& s) {
  Fields f;
  size_t p = 0;
  auto field = [&](size_t min, size_t max) { return Digits(s, &p, min, max, false); };
  auto lit = [&](char c) {
    if (p < s.size() && s[p] == c) {
      p++;
      return true;
    }
    return false;
  };
  auto y = field(1, 10);
  if (!y || !lit('-')) return std::nullopt;
  auto m = field(1, 2);
  if (!m || !lit('-')) return std::nullopt;
  auto d = field(1, 2);
  if (!d) return std::nullopt;
  f.year = *y, f.month = *m, f.day = *d;
  if (p < s.size()) {
    if (!lit(' ')) return std::nullopt;
    auto h = field(1, 2);
    if (!h || !lit(':')) return std::nullopt;
    auto mi = field(1, 2);
    if (!mi || !lit(':')) return std::nullopt;
    auto se = field(1, 2);
    if (!se) return std::nullopt;
    f.hour = *h, f.minute = *mi, f.second = *se;
    if (p < s.size()) {
      if (!lit('.')) return std::nullopt;
      const size_t start = p;
      auto frac = field(1, 9);
      if (!frac) return std::nullopt;
      int64_t v = *frac;
      for (size_t n = p - start; n < 3; n++) v *= 10;
      for (size_t n = p - start; n > 3; n--) v /= 10;
      f.millis = v;
    }
  }
  if (p != s.size()) return std::nullopt;
  return ToMillis(f);
}

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

}  // namespace

Status CheckTimestampFormatter(const std::string& formatter) {
  return Tokenize(formatter).status();
}

std::optional<int64_t> ParsePartitionTime(const std::string& text, const std::string& formatter) {
  if (formatter.empty()) return ParseDefault(text);
  auto tokens = Tokenize(formatter);
  if (!tokens.ok()) return std::nullopt;
  Fields f;
  size_t p = 0;
  for (size_t t = 0; t < tokens->size(); t++) {
    const Token& tok = (*tokens)[t];
    if (tok.letter == 0) {
      if (text.compare(p, tok.text.size(), tok.text) != 0) return std::nullopt;
      p += tok.text.size();
      continue;
    }
    // A field followed by another field reads exactly its width (Java's adjacent value
    // parsing: 'yyyyMMdd'); otherwise a one-letter field reads 1-2 digits, a year 4 or more.
    const bool adjacent = t + 1 < tokens->size() && (*tokens)[t + 1].letter != 0;
    const size_t n = static_cast<size_t>(tok.count);
    std::optional<int64_t> v;
    switch (tok.letter) {
      case 'y':
      case 'u':
        if (n == 2) {
          v = Digits(text, &p, 2, 2, true);
          if (v) *v += 2000;
        } else {
          v = Digits(text, &p, std::max<size_t>(n, 1), adjacent ? n : 10, adjacent);
        }
        if (v) f.year = *v;
        break;
      case 'S': {
        const size_t start = p;
        v = Digits(text, &p, n, n, true);
        if (v) {
          int64_t ms = *v;
          for (size_t k = p - start; k < 3; k++) ms *= 10;
          for (size_t k = p - start; k > 3; k--) ms /= 10;
          f.millis = ms;
        }
        break;
      }
      default: {
        v = Digits(text, &p, n, 2, n == 2 || adjacent);
        if (!v) break;
        switch (tok.letter) {
          case 'M':
            f.month = *v;
            break;
          case 'd':
            f.day = *v;
            break;
          case 'H':
            f.hour = *v;
            break;
          case 'm':
            f.minute = *v;
            break;
          case 's':
            f.second = *v;
            break;
        }
      }
    }
    if (!v) return std::nullopt;
  }
  if (p != text.size()) return std::nullopt;
  return ToMillis(f);
}

Result<std::optional<PartitionExpireRule>> PartitionExpireRuleOf(const TableSchema& schema) {
  using Out = std::optional<PartitionExpireRule>;
  auto opt = [&](const char* key) -> std::string { return schema.Option(key).value_or(""); };
  const std::string expiration = opt("partition.expiration-time");
  if (expiration.empty()) return Out();
  if (schema.partition_keys.empty()) {
    return Status::Invalid("'partition.expiration-time' needs a partitioned table");
  }
  PartitionExpireRule r;
  auto duration = [&](const char* key, const std::string& text, int64_t* out) -> Status {
    auto ms = options::ParseDurationMillis(text);
    if (!ms.ok()) {
      return Status::Invalid(std::string("'") + key + "' = '" + text +
                             "': " + ms.status().message());
    }
    *out = *ms;
    return Status::OK();
  };
  TRIB_RETURN_NOT_OK(duration("partition.expiration-time", expiration, &r.expiration_ms));
  if (const std::string v = opt("partition.expiration-check-interval"); !v.empty()) {
    TRIB_RETURN_NOT_OK(duration("partition.expiration-check-interval", v, &r.check_interval_ms));
  }
  r.pattern = opt("partition.timestamp-pattern");
  r.formatter = opt("partition.timestamp-formatter");
  TRIB_RETURN_NOT_OK(CheckTimestampFormatter(r.formatter));
  r.update_time = opt("partition.expiration-strategy") == "update-time";
  if (const std::string v = opt("partition.expiration-max-num"); !v.empty()) {
    r.max_num = std::stoll(v);  // checked by the option table (an integer of at least 1)
  }
  std::string end = opt("end-input.check-partition-expire");
  std::transform(end.begin(), end.end(), end.begin(), ::tolower);
  r.end_input_check = end == "true";
  if (!r.pattern.empty()) {
    bool names_a_key = false;
    for (const auto& k : schema.partition_keys) {
      names_a_key = names_a_key || r.pattern.find("$" + k) != std::string::npos;
    }
    if (!names_a_key) {
      return Status::Invalid("'partition.timestamp-pattern' = '" + r.pattern +
                             "' names no partition column ($" + schema.partition_keys[0] + ")");
    }
  }
  return Out(r);
}

Status DropPartitions(Table& table, const std::vector<PartitionToDrop>& partitions) {
  WriteOptions o;
  o.overwrite = true;
  for (const PartitionToDrop& p : partitions) {
    if (p.has_files) o.overwrite_partitions.push_back(p.spec);
  }
  if (!o.overwrite_partitions.empty()) {
    TRIB_ASSIGN_OR_RETURN(auto writer, table.NewWriter(o));
    TRIB_ASSIGN_OR_RETURN(auto snap, writer->Commit());
    (void)snap;
  }
  for (const PartitionToDrop& p : partitions) {
    TRIB_RETURN_NOT_OK(meta::UnmarkPartition(table.path(), p.name));
  }
  return Status::OK();
}

Result<std::vector<std::string>> ExpirePartitions(Table& table, const PartitionExpireRule& rule,
                                                  int64_t now_utc_millis) {
  const auto schema = table.schema();
  std::vector<std::string> expired;
  if (schema->partition_keys.empty()) return expired;
  TRIB_ASSIGN_OR_RETURN(const std::string default_name,
                        options::Get(*schema, options::kPartitionDefaultName));
  TRIB_ASSIGN_OR_RETURN(SystemTableData parts, ReadSystemTable(table.path(), "partitions"));
  const int64_t now_local = now_utc_millis + MachineUtcOffsetMillis(now_utc_millis);
  std::map<std::string, std::map<std::string, std::string>> specs;
  std::map<std::string, bool> has_files;
  for (const Row& r : parts.rows) {
    const std::string& name = r[0].string_value();
    bool expire = false;
    std::map<std::string, std::string> spec;
    bool default_value = false;
    std::vector<std::pair<std::string, std::string>> values = meta::SplitPartitionPath(name);
    for (const auto& [k, v] : values) {
      spec[k] = v;
      default_value = default_value || v == default_name;
    }
    if (default_value) continue;  // a NULL or blank value never expires
    if (rule.update_time) {
      // The creation time of the partition's newest file (none: a partition added empty), a
      // local wall-clock time as Paimon records it.
      expire = !r[4].is_null() && r[4].timestamp_value().millis < now_local - rule.expiration_ms;
    } else {
      // A DATE column's value is its day number in the partition's name: read as yyyy-MM-dd.
      auto text_of = [&](const std::string& key, const std::string& v) {
        const int idx = schema->FieldIndex(key);
        const bool digits = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c)) || c == '-';
        });
        if (idx >= 0 && schema->fields[idx].type.id == TypeId::kDate && digits) {
          return FormatDate(std::stoll(v));
        }
        return v;
      };
      std::string text;
      if (rule.pattern.empty()) {
        text = values.empty() ? "" : text_of(values[0].first, values[0].second);
      } else {
        text = rule.pattern;
        for (const auto& [k, v] : values) text = ReplaceAll(text, "$" + k, text_of(k, v));
      }
      const std::optional<int64_t> t = ParsePartitionTime(text, rule.formatter);
      expire = t && *t < now_local - rule.expiration_ms;
    }
    if (!expire) continue;
    specs[name] = std::move(spec);
    has_files[name] = !r[3].is_null() && r[3].int_value() > 0;
  }
  // At most 'partition.expiration-max-num' of them, in one commit.
  std::vector<PartitionToDrop> drops;
  for (const auto& [name, spec] : specs) {
    if (static_cast<int64_t>(drops.size()) >= rule.max_num) break;
    drops.push_back(PartitionToDrop{name, spec, has_files[name]});
    expired.push_back(name);
  }
  TRIB_RETURN_NOT_OK(DropPartitions(table, drops));
  return expired;
}

}  // namespace tributary::table
