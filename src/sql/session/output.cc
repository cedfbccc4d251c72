#include "sql/session/output.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/datetime.h"
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
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
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
// Terminal columns of code point `c`: 2 for East Asian wide and fullwidth characters (CJK,
// Hangul, fullwidth forms, most emoji), 0 for combining marks and zero-width characters, else 1.
size_t CodePointWidth(uint32_t c) {
  if ((c >= 0x0300 && c <= 0x036F) || (c >= 0x200B && c <= 0x200F) || c == 0xFE0F) return 0;
  if ((c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0x303E) ||
      (c >= 0x3041 && c <= 0x33FF) || (c >= 0x3400 && c <= 0x4DBF) ||
      (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xA000 && c <= 0xA4CF) ||
      (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
      (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
      (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) ||
      (c >= 0x1F900 && c <= 0x1F9FF) || (c >= 0x20000 && c <= 0x3FFFD)) {
    return 2;
  }
  return 1;
}

// The code point starting at s[*i] (advancing *i past it); U+FFFD for a malformed byte.
uint32_t NextCodePoint(const std::string& s, size_t* i) {
  const size_t n = Utf8SequenceAt(s, *i);
  if (n == 0) {
    ++*i;
    return 0xFFFD;
  }
  uint32_t c = static_cast<unsigned char>(s[*i]);
  if (n > 1) c &= 0xFF >> (n + 1);
  for (size_t k = 1; k < n; k++) c = (c << 6) | (static_cast<unsigned char>(s[*i + k]) & 0x3F);
  *i += n;
  return c;
}

// Terminal columns `s` takes (CodePointWidth of each character).
size_t Width(const std::string& s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size();) n += CodePointWidth(NextCodePoint(s, &i));
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
  if (name == "table")
    *out = OutputFormat::kTable;
  else if (name == "csv")
    *out = OutputFormat::kCsv;
  else if (name == "json")
    *out = OutputFormat::kJson;
  else
    return false;
  return true;
}

std::string JsonValue(const Value& v, const DataType& type) {
  if (v.is_null()) return "null";
  if (type.IsNested() != v.is_nested()) return JsonString(DebugString(v));
  switch (type.id) {
    case TypeId::kBoolean:
      return v.bool_value() ? "true" : "false";
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInt:
    case TypeId::kBigInt:
      return std::to_string(v.int_value());
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
        out +=
            JsonString(type.fields()[i].name) + ": " + JsonValue(fields[i], type.fields()[i].type);
      }
      return out + "}";
    }
    default:
      return JsonString(FormatValue(v, type));
  }
}

namespace {

std::string JsonLine(const std::vector<Field>& fields, const Row& r) {
  std::string out = "{";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ", ";
    out += JsonString(fields[i].name) + ": " + JsonValue(r[i], fields[i].type);
  }
  return out + "}\n";
}

std::string CsvHeader(const std::vector<Field>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + CsvField(fields[i].name);
  return out + "\r\n";
}

std::string CsvLine(const std::vector<Field>& fields, const Row& r) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ",";
    // NULL is an empty field; an empty string is "".
    if (r[i].is_null()) continue;
    std::string s = FormatValue(r[i], fields[i].type);
    out += s.empty() ? "\"\"" : CsvField(s);
  }
  return out + "\r\n";
}

// The table format: columns as wide as their widest cell among `rows` (and the header).
// The lines of a cell, each cut to `max_width` characters (0: no limit) ending in "...", as the
// Flink SQL client does with 'sql-client.display.max-column-width'.
std::vector<std::string> CellLines(const Value& v, const DataType& t, size_t max_width) {
  std::string text = FormatValue(v, t);
  // As the Flink SQL client: a TIMESTAMP(p) shows exactly p fraction digits.
  if (t.IsTimestamp() && !v.is_null()) text = PadTimestampFraction(std::move(text), t.precision);
  std::vector<std::string> lines = Lines(text);
  if (max_width == 0) return lines;
  for (std::string& line : lines) {
    if (Width(line) <= max_width) continue;
    // Whole characters that fit in max_width - 3 columns, then "...".
    const size_t keep = max_width > 3 ? max_width - 3 : 0;
    size_t used = 0, end = 0;
    while (end < line.size()) {
      size_t next = end;
      const size_t w = CodePointWidth(NextCodePoint(line, &next));
      if (used + w > keep) break;
      used += w;
      end = next;
    }
    line = line.substr(0, end) + std::string(std::min<size_t>(3, max_width), '.');
  }
  return lines;
}

std::vector<size_t> TableWidths(const std::vector<Field>& fields, const std::vector<Row>& rows,
                                size_t max_width) {
  std::vector<size_t> width(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) width[i] = Width(fields[i].name);
  for (const Row& r : rows) {
    for (size_t i = 0; i < fields.size(); ++i) {
      for (const auto& line : CellLines(r[i], fields[i].type, max_width)) {
        width[i] = std::max(width[i], Width(line));
      }
    }
  }
  return width;
}

std::string TableBorder(const std::vector<size_t>& width) {
  std::string border = "+";
  for (size_t w : width) border += std::string(w + 2, '-') + "+";
  return border + "\n";
}

std::string Pad(const std::string& s, size_t w, bool right) {
  std::string fill(w - std::min(w, Width(s)), ' ');
  return right ? fill + s : s + fill;
}

std::string TableHeader(const std::vector<Field>& fields, const std::vector<size_t>& width) {
  std::string out = TableBorder(width) + "|";
  for (size_t i = 0; i < fields.size(); ++i)
    out += " " + Pad(fields[i].name, width[i], false) + " |";
  return out + "\n" + TableBorder(width);
}

std::string TableRow(const std::vector<Field>& fields, const std::vector<size_t>& width,
                     const Row& r, size_t max_width) {
  std::vector<std::vector<std::string>> lines;
  size_t height = 1;
  for (size_t i = 0; i < fields.size(); ++i) {
    lines.push_back(CellLines(r[i], fields[i].type, max_width));
    height = std::max(height, lines.back().size());
  }
  std::string out;
  for (size_t h = 0; h < height; ++h) {
    out += "|";
    for (size_t i = 0; i < fields.size(); ++i) {
      std::string s = h < lines[i].size() ? lines[i][h] : "";
      bool right = fields[i].type.IsNumeric();  // NULL too, as the numbers around it
      out += " " + Pad(s, width[i], right) + " |";
    }
    out += "\n";
  }
  return out;
}

}  // namespace

std::string FormatResult(const QueryResult& result, OutputFormat format) {
  std::string out;
  ResultPrinter printer(result.fields, format, [&](std::string_view text) { out += text; });
  printer.Add(result.rows);
  printer.Finish();
  return out;
}

ResultPrinter::ResultPrinter(std::vector<Field> fields, OutputFormat format, Sink sink,
                             bool streaming)
    : fields_(std::move(fields)), format_(format), sink_(std::move(sink)), streaming_(streaming) {
  if (format_ == OutputFormat::kCsv) sink_(CsvHeader(fields_));
}

void ResultPrinter::Add(const std::vector<Row>& rows) {
  rows_ += static_cast<int64_t>(rows.size());
  std::string out;
  switch (format_) {
    case OutputFormat::kJson:
      for (const Row& r : rows) out += JsonLine(fields_, r);
      break;
    case OutputFormat::kCsv:
      for (const Row& r : rows) out += CsvLine(fields_, r);
      break;
    case OutputFormat::kTable: {
      // 'sql-client.display.max-rows': rows past it are counted, not printed.
      size_t take = rows.size();
      if (max_rows_ > 0) {
        const int64_t before = rows_ - static_cast<int64_t>(rows.size());
        const int64_t room = std::max<int64_t>(0, static_cast<int64_t>(max_rows_) - before);
        take = static_cast<size_t>(std::min<int64_t>(room, static_cast<int64_t>(rows.size())));
        hidden_ += static_cast<int64_t>(rows.size() - take);
      }
      if (started_) {
        for (size_t i = 0; i < take; i++)
          out += TableRow(fields_, widths_, rows[i], max_column_width_);
        break;
      }
      held_.insert(held_.end(), rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(take));
      if (held_.size() >= kTableBlockRows || streaming_) out = StartTable();
      break;
    }
  }
  if (!out.empty()) sink_(out);
}

std::string ResultPrinter::StartTable() {
  started_ = true;
  widths_ = TableWidths(fields_, held_, max_column_width_);
  std::string out = TableHeader(fields_, widths_);
  for (const Row& r : held_) out += TableRow(fields_, widths_, r, max_column_width_);
  held_.clear();
  held_.shrink_to_fit();
  return out;
}

void ResultPrinter::Finish() {
  if (format_ != OutputFormat::kTable) return;
  std::string out;
  if (!started_) out = StartTable();
  if (rows_ > 0) out += TableBorder(widths_);
  if (hidden_ > 0) {
    out +=
        std::to_string(hidden_) + " more row" + (hidden_ == 1 ? "" : "s") +
        (cut_by_terminal_
             ? " not shown (the first " + std::to_string(max_rows_) +
                   " fit the terminal; SET 'sql-client.display.max-rows' = 'n' to print n)\n"
             : " not shown ('sql-client.display.max-rows' = " + std::to_string(max_rows_) + ")\n");
  }
  sink_(out);
}

}  // namespace tributary::sql
