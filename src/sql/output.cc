#include "sql/output.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/strings.h"

namespace tributary::sql {

namespace {

// Strings print as JSON strings; a byte that is not UTF-8 (a BYTES value cast to STRING, a
// file written elsewhere) prints as U+FFFD so every line stays valid JSON.
std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); i++) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t n = Utf8SequenceAt(s, i);
      if (n == 0) {
        out += "\\ufffd";
      } else {
        out.append(s, i, n);
        i += n - 1;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Display width: code points (good enough for the table format).
size_t Width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  size_t b = 0;
  while (true) {
    size_t e = s.find('\n', b);
    out.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return out;
}

}  // namespace

bool ParseOutputFormat(const std::string& name, OutputFormat* out) {
  if (name == "table") *out = OutputFormat::kTable;
  else if (name == "csv") *out = OutputFormat::kCsv;
  else if (name == "json") *out = OutputFormat::kJson;
  else return false;
  return true;
}

std::string JsonValue(const Value& v, const DataType& type) {
  if (v.is_null()) return "null";
  if (type.IsNested() != v.is_nested()) return JsonString(DebugString(v));
  switch (type.id) {
    case TypeId::kBoolean: return v.bool_value() ? "true" : "false";
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInt:
    case TypeId::kBigInt: return std::to_string(v.int_value());
    case TypeId::kFloat:
    case TypeId::kDouble: {
      if (!std::isfinite(v.double_value())) return JsonString(FormatValue(v, type));
      std::string s = FormatValue(v, type);
      return s;
    }
    case TypeId::kArray: {
      std::string out = "[";
      const auto& items = v.array_elements();
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ", ";
        out += JsonValue(items[i], type.element());
      }
      return out + "]";
    }
    case TypeId::kMultiset:
    case TypeId::kMap: {
      // JSON object keys are strings: a key's text as the table format prints it.
      std::string out = "{";
      const auto& keys = v.map_keys();
      const auto& values = v.map_values();
      for (size_t i = 0; i < keys.size() && i < values.size(); ++i) {
        if (i) out += ", ";
        out += JsonString(FormatValue(keys[i], type.key())) + ": " +
               JsonValue(values[i], type.value());
      }
      return out + "}";
    }
    case TypeId::kRow: {
      std::string out = "{";
      const auto& fields = v.struct_fields();
      for (size_t i = 0; i < fields.size() && i < type.fields().size(); ++i) {
        if (i) out += ", ";
        out += JsonString(type.fields()[i].name) + ": " + JsonValue(fields[i], type.fields()[i].type);
      }
      return out + "}";
    }
    default: return JsonString(FormatValue(v, type));
  }
}

std::string FormatResult(const QueryResult& result, OutputFormat format) {
  const auto& fields = result.fields;
  std::string out;
  if (format == OutputFormat::kJson) {
    for (const Row& r : result.rows) {
      out += "{";
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i) out += ", ";
        out += JsonString(fields[i].name) + ": " + JsonValue(r[i], fields[i].type);
      }
      out += "}\n";
    }
    return out;
  }
  if (format == OutputFormat::kCsv) {
    for (size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + CsvField(fields[i].name);
    out += "\r\n";
    for (const Row& r : result.rows) {
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i) out += ",";
        // NULL is an empty field; an empty string is "".
        if (r[i].is_null()) continue;
        std::string s = FormatValue(r[i], fields[i].type);
        out += s.empty() ? "\"\"" : CsvField(s);
      }
      out += "\r\n";
    }
    return out;
  }
  // Table.
  std::vector<std::vector<std::string>> cells;
  std::vector<size_t> width(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) width[i] = Width(fields[i].name);
  for (const Row& r : result.rows) {
    std::vector<std::string> row;
    for (size_t i = 0; i < fields.size(); ++i) {
      std::string s = FormatValue(r[i], fields[i].type);
      for (const auto& line : Lines(s)) width[i] = std::max(width[i], Width(line));
      row.push_back(std::move(s));
    }
    cells.push_back(std::move(row));
  }
  std::string border = "+";
  for (size_t w : width) border += std::string(w + 2, '-') + "+";
  border += "\n";
  auto pad = [](const std::string& s, size_t w, bool right) {
    std::string fill(w - std::min(w, Width(s)), ' ');
    return right ? fill + s : s + fill;
  };
  out += border + "|";
  for (size_t i = 0; i < fields.size(); ++i) out += " " + pad(fields[i].name, width[i], false) + " |";
  out += "\n" + border;
  for (size_t r = 0; r < cells.size(); ++r) {
    std::vector<std::vector<std::string>> lines;
    size_t height = 1;
    for (const auto& c : cells[r]) {
      lines.push_back(Lines(c));
      height = std::max(height, lines.back().size());
    }
    for (size_t h = 0; h < height; ++h) {
      out += "|";
      for (size_t i = 0; i < fields.size(); ++i) {
        std::string s = h < lines[i].size() ? lines[i][h] : "";
        bool right = fields[i].type.IsNumeric() && !result.rows[r][i].is_null();
        out += " " + pad(s, width[i], right) + " |";
      }
      out += "\n";
    }
  }
  if (!cells.empty()) out += border;
  return out;
}

}  // namespace tributary::sql
