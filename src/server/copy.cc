#include "server/copy.h"

#include <cctype>

#include "server/pg_binary.h"
#include "server/pg_wire.h"
#include "server/stats.h"
#include "server/wire.h"
#include "sql/binder/cast.h"
#include "sql/exec/operators.h"
#include "sql/session/session.h"

namespace tributary::server {

namespace {

// A small tokenizer for COPY's syntax: words, quoted strings and single characters.
class CopyLexer {
 public:
  explicit CopyLexer(std::string_view text) : s_(text) {}
  void SkipSpace() {
    while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_]))) at_++;
  }
  bool AtEnd() {
    SkipSpace();
    return at_ >= s_.size();
  }
  char Peek() {
    SkipSpace();
    return at_ < s_.size() ? s_[at_] : '\0';
  }
  // The next word (letters, digits, '_', '.', and quoted parts of a name), as written.
  std::string Word() {
    SkipSpace();
    std::string w;
    while (at_ < s_.size()) {
      const char c = s_[at_];
      if (c == '`' || c == '"') {
        size_t end = s_.find(c, at_ + 1);
        while (end != std::string_view::npos && end + 1 < s_.size() && s_[end + 1] == c) {
          end = s_.find(c, end + 2);  // a doubled quote inside the name
        }
        if (end == std::string_view::npos) {  // unterminated: the name is refused
          w.append(s_.substr(at_));
          at_ = s_.size();
          break;
        }
        w.append(s_.substr(at_, end - at_ + 1));
        at_ = end + 1;
        continue;
      }
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') break;
      w.push_back(c);
      at_++;
    }
    return w;
  }
  static std::string Upper(std::string w) {
    for (char& c : w) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return w;
  }
  bool Keyword(const char* k) {
    const size_t save = at_;
    if (Upper(Word()) == k) return true;
    at_ = save;
    return false;
  }
  bool Char(char c) {
    if (Peek() != c) return false;
    at_++;
    return true;
  }
  // A '...' string ('' inside is a quote).
  Result<std::string> String() {
    if (!Char('\'')) return Status::Invalid("syntax: COPY expected a quoted string");
    std::string out;
    while (at_ < s_.size()) {
      if (s_[at_] == '\'') {
        if (at_ + 1 < s_.size() && s_[at_ + 1] == '\'') {
          out.push_back('\'');
          at_ += 2;
          continue;
        }
        at_++;
        return out;
      }
      out.push_back(s_[at_++]);
    }
    return Status::Invalid("syntax: COPY: a string does not end");
  }
  // The text between a '(' just read and its matching ')' (quotes respected).
  Result<std::string> Parenthesized() {
    const size_t start = at_;
    int depth = 1;
    char quote = 0;
    for (; at_ < s_.size(); at_++) {
      const char c = s_[at_];
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '\'' || c == '"' || c == '`') {
        quote = c;
      } else if (c == '(') {
        depth++;
      } else if (c == ')' && --depth == 0) {
        std::string inside(s_.substr(start, at_ - start));
        at_++;
        return inside;
      }
    }
    return Status::Invalid("syntax: COPY: a parenthesis does not close");
  }

 private:
  std::string_view s_;
  size_t at_ = 0;
};

Status OneChar(const std::string& value, const char* what, char* out) {
  if (value.size() != 1) {
    return Status::Invalid("COPY " + std::string(what) + " must be one character, not '" + value +
                           "'");
  }
  *out = value[0];
  return Status::OK();
}

// One option of the parenthesized list: FORMAT x, DELIMITER 'c', NULL 's', HEADER [bool].
Status Option(CopyLexer* lex, CopyFormat* f) {
  const std::string name = CopyLexer::Upper(lex->Word());
  if (name == "FORMAT") {
    const std::string v = CopyLexer::Upper(lex->Word());
    if (v == "CSV") {
      f->csv = true;
      f->delimiter = ',';
      f->null_text = "";
    } else if (v == "BINARY") {
      f->binary = true;
    } else if (v != "TEXT") {
      return Status::Invalid("COPY FORMAT '" + v + "' is not text, csv or binary");
    }
    return Status::OK();
  }
  if (name == "DELIMITER") {
    TRIB_ASSIGN_OR_RETURN(std::string v, lex->String());
    return OneChar(v, "DELIMITER", &f->delimiter);
  }
  if (name == "NULL") {
    TRIB_ASSIGN_OR_RETURN(f->null_text, lex->String());
    return Status::OK();
  }
  if (name == "HEADER") {
    const char next = lex->Peek();
    if (next == ',' || next == ')' || next == '\0') {
      f->header = true;
      return Status::OK();
    }
    const std::string v = CopyLexer::Upper(lex->Word());
    if (v == "TRUE" || v == "ON" || v == "1") {
      f->header = true;
    } else if (v == "FALSE" || v == "OFF" || v == "0") {
      f->header = false;
    } else {
      return Status::Invalid("COPY HEADER '" + v + "' is not a boolean");
    }
    return Status::OK();
  }
  return Status::NotSupported("COPY option '" + name +
                              "' is not supported yet (FORMAT, DELIMITER, NULL, HEADER)");
}

// A name as COPY's words hold it, its double-quoted parts (PostgreSQL's quoted identifiers,
// "" a double quote in one) backquoted (Tributary's): "db"."t" -> `db`.`t`. An unterminated
// quote is an error.
Result<std::string> Backquoted(const std::string& word) {
  std::string out;
  for (size_t i = 0; i < word.size(); i++) {
    const char q = word[i];
    if (q != '"' && q != '`') {
      out.push_back(q);
      continue;
    }
    std::string name;
    size_t k = i + 1;
    for (; k < word.size(); k++) {
      if (word[k] != q) {
        name.push_back(word[k]);
      } else if (k + 1 < word.size() && word[k + 1] == q) {
        name.push_back(q);
        k++;
      } else {
        break;
      }
    }
    if (k >= word.size()) return Status::Invalid("syntax: COPY: unterminated quoted name");
    if (name.find('`') != std::string::npos || name.find('.') != std::string::npos) {
      return Status::NotSupported("COPY of a name holding '`' or '.' is not supported yet");
    }
    out += "`" + name + "`";
    i = k;
  }
  return out;
}

// A column name without its quotes (`c` or "c").
Result<std::string> Unquoted(const std::string& word) {
  if (word.empty() || (word[0] != '"' && word[0] != '`')) return word;
  TRIB_ASSIGN_OR_RETURN(std::string b, Backquoted(word));
  if (b.size() < 2 || b.front() != '`' || b.back() != '`' || b.find('`', 1) != b.size() - 1) {
    return Status::Invalid("syntax: COPY: column name " + word);
  }
  return b.substr(1, b.size() - 2);
}

}  // namespace

Result<CopyStatement> ParseCopy(std::string_view text) {
  CopyLexer lex(text);
  CopyStatement out;
  if (!lex.Keyword("COPY")) return Status::Invalid("syntax: not a COPY statement");
  if (lex.Char('(')) {
    TRIB_ASSIGN_OR_RETURN(out.query, lex.Parenthesized());
  } else {
    TRIB_ASSIGN_OR_RETURN(out.table, Backquoted(lex.Word()));
    if (out.table.empty()) return Status::Invalid("syntax: COPY expected a table name");
    if (lex.Char('(')) {
      do {
        const std::string c = lex.Word();
        if (c.empty()) return Status::Invalid("syntax: COPY expected a column name");
        TRIB_ASSIGN_OR_RETURN(std::string name, Unquoted(c));
        out.columns.push_back(std::move(name));
      } while (lex.Char(','));
      if (!lex.Char(')')) return Status::Invalid("syntax: COPY expected ')' after its columns");
    }
  }
  if (lex.Keyword("FROM")) {
    out.from_stdin = true;
    if (!lex.Keyword("STDIN")) {
      return Status::NotSupported(
          "COPY FROM a file of the server is not supported: COPY ... FROM STDIN");
    }
    if (!out.query.empty()) return Status::Invalid("syntax: COPY (query) is only TO STDOUT");
  } else if (lex.Keyword("TO")) {
    out.from_stdin = false;
    if (!lex.Keyword("STDOUT")) {
      return Status::NotSupported(
          "COPY TO a file of the server is not supported: COPY ... TO STDOUT");
    }
  } else {
    return Status::Invalid("syntax: COPY expected FROM STDIN or TO STDOUT");
  }
  lex.Keyword("WITH");
  if (lex.Char('(')) {
    do {
      TRIB_RETURN_NOT_OK(Option(&lex, &out.format));
    } while (lex.Char(','));
    if (!lex.Char(')')) return Status::Invalid("syntax: COPY expected ')' after its options");
  } else {
    // The options as PostgreSQL before 9.0 wrote them.
    while (!lex.AtEnd()) {
      if (lex.Keyword("CSV")) {
        out.format.csv = true;
        out.format.delimiter = ',';
        out.format.null_text = "";
      } else if (lex.Keyword("HEADER")) {
        out.format.header = true;
      } else if (lex.Keyword("BINARY")) {
        out.format.binary = true;
      } else if (lex.Keyword("DELIMITER")) {
        lex.Keyword("AS");
        TRIB_ASSIGN_OR_RETURN(std::string v, lex.String());
        TRIB_RETURN_NOT_OK(OneChar(v, "DELIMITER", &out.format.delimiter));
      } else if (lex.Keyword("NULL")) {
        lex.Keyword("AS");
        TRIB_ASSIGN_OR_RETURN(out.format.null_text, lex.String());
      } else {
        return Status::Invalid("syntax: COPY: unexpected '" + lex.Word() + "'");
      }
    }
  }
  if (!lex.AtEnd()) return Status::Invalid("syntax: COPY: text after its options");
  if (out.format.binary && (out.format.csv || out.format.header || out.format.delimiter != '\t' ||
                            out.format.null_text != "\\N")) {
    return Status::Invalid("COPY in the binary format takes no CSV, DELIMITER, NULL or HEADER");
  }
  if (out.format.header && !out.format.csv) {
    return Status::Invalid("COPY HEADER is available only in CSV mode");
  }
  return out;
}

namespace {
// The binary format's signature: "PGCOPY\n\377\r\n\0".
constexpr std::string_view kBinarySignature("PGCOPY\n\377\r\n\0", 11);
// The longest field taken (PostgreSQL's limit of a value: 1 GB).
constexpr int32_t kMaxBinaryField = 1 << 30;

uint32_t BigEndian(std::string_view b, size_t at, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; i++) v = (v << 8) | static_cast<uint8_t>(b[at + i]);
  return v;
}
void PutBigEndian(uint32_t v, size_t n, std::string* out) {
  for (size_t i = n; i-- > 0;) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
}  // namespace

std::string CopyBinaryHeader() {
  std::string out(kBinarySignature);
  PutBigEndian(0, 4, &out);  // flags: no OIDs
  PutBigEndian(0, 4, &out);  // no header extension
  return out;
}

std::string CopyBinaryTrailer() {
  std::string out;
  PutBigEndian(0xffff, 2, &out);
  return out;
}

// The complete tuples of pending_ (after the signature and header extension), each a 16-bit
// field count (-1: the trailer) then each field's 32-bit length (-1: NULL) and bytes.
Status CopyDecoder::Binary(std::vector<CopyRow>* rows) {
  size_t at = 0;
  if (!header_read_) {
    const size_t have = std::min(pending_.size(), kBinarySignature.size());
    if (std::string_view(pending_).substr(0, have) != kBinarySignature.substr(0, have)) {
      return Status::Invalid("COPY file signature not recognized (not the binary format)");
    }
    if (pending_.size() < 19) return Status::OK();
    const uint32_t flags = BigEndian(pending_, 11, 4);
    if ((flags & 0x10000) != 0) {
      return Status::NotSupported("COPY binary data with OIDs is not supported");
    }
    if ((flags & 0xfffe0000) != 0) {  // bits 17-31: critical, none defined
      return Status::Invalid("COPY binary data has unrecognized critical flags");
    }
    const uint32_t extension = BigEndian(pending_, 15, 4);
    if (extension > (1u << 30)) return Status::Invalid("COPY binary header extension too long");
    if (pending_.size() < 19 + extension) return Status::OK();
    at = 19 + extension;
    header_read_ = true;
  }
  while (!ended_ && pending_.size() - at >= 2) {
    const auto count = static_cast<int16_t>(BigEndian(pending_, at, 2));
    if (count == -1) {
      ended_ = true;
      at += 2;
      break;
    }
    if (count < 0) {
      return Status::Invalid("COPY line " + std::to_string(line_ + 1) + ": field count " +
                             std::to_string(count));
    }
    // The tuple's extent first (lengths only: nothing copied until it is all here).
    size_t p = at + 2;
    bool complete = true;
    for (int16_t k = 0; k < count && complete; k++) {
      if (pending_.size() - p < 4) {
        complete = false;
        break;
      }
      const auto length = static_cast<int32_t>(BigEndian(pending_, p, 4));
      p += 4;
      if (length == -1) continue;
      if (length < 0 || length > kMaxBinaryField) {
        return Status::Invalid("COPY line " + std::to_string(line_ + 1) + ": field length " +
                               std::to_string(length));
      }
      if (pending_.size() - p < static_cast<size_t>(length)) complete = false;
      p += static_cast<size_t>(length);
    }
    if (!complete) break;
    CopyRow row;
    p = at + 2;
    for (int16_t k = 0; k < count; k++) {
      const auto length = static_cast<int32_t>(BigEndian(pending_, p, 4));
      p += 4;
      if (length == -1) {
        row.fields.emplace_back(std::nullopt);
        continue;
      }
      row.fields.emplace_back(pending_.substr(p, static_cast<size_t>(length)));
      p += static_cast<size_t>(length);
    }
    row.line = ++line_;
    rows->push_back(std::move(row));
    at = p;
  }
  pending_.erase(0, at);
  if (ended_ && !pending_.empty()) {
    return Status::Invalid("COPY binary data goes on after its trailer");
  }
  return Status::OK();
}

Status CopyDecoder::Feed(std::string_view data, std::vector<CopyRow>* rows) {
  pending_.append(data);
  if (format_.binary) return Binary(rows);
  size_t start = 0;
  bool quoted = false;
  for (size_t i = 0; i < pending_.size() && !ended_; i++) {
    const char c = pending_[i];
    if (format_.csv && c == '"') quoted = !quoted;
    if (c != '\n' || quoted) continue;
    TRIB_RETURN_NOT_OK(Line(std::string_view(pending_).substr(start, i - start), rows));
    start = i + 1;
  }
  pending_.erase(0, ended_ ? pending_.size() : start);
  return Status::OK();
}

Status CopyDecoder::Finish(std::vector<CopyRow>* rows) {
  // (As PostgreSQL, a CopyDone between tuples ends the data without its trailer.)
  if (format_.binary && (!header_read_ || !pending_.empty())) {
    return Status::Invalid(header_read_ ? "COPY binary data ended within a tuple or without its "
                                          "trailer"
                                        : "COPY binary data ended before its signature");
  }
  if (ended_ || pending_.empty()) return Status::OK();
  std::string last = std::move(pending_);
  pending_.clear();
  return Line(last, rows);
}

Status CopyDecoder::Line(std::string_view line, std::vector<CopyRow>* rows) {
  line_++;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line == "\\.") {  // the end marker
    ended_ = true;
    return Status::OK();
  }
  if (format_.header && line_ == 1) return Status::OK();
  CopyRow row;
  row.line = line_;
  Status st = format_.csv ? CsvRecord(line, &row) : TextRow(line, &row);
  if (!st.ok()) return Status::Invalid("COPY line " + std::to_string(line_) + ": " + st.message());
  rows->push_back(std::move(row));
  return Status::OK();
}

Status CopyDecoder::TextRow(std::string_view line, CopyRow* row) const {
  std::string field;
  std::string written;  // the field as written (a NULL is its text as written)
  auto end_field = [&] {
    if (written == format_.null_text) {
      row->fields.push_back(std::nullopt);
    } else {
      row->fields.push_back(field);
    }
    field.clear();
    written.clear();
  };
  for (size_t i = 0; i < line.size(); i++) {
    const char c = line[i];
    if (c == format_.delimiter) {
      end_field();
      continue;
    }
    written.push_back(c);
    if (c != '\\') {
      field.push_back(c);
      continue;
    }
    if (i + 1 >= line.size()) return Status::Invalid("a backslash ends the line");
    const char e = line[++i];
    written.push_back(e);
    switch (e) {
      case 'b':
        field.push_back('\b');
        break;
      case 'f':
        field.push_back('\f');
        break;
      case 'n':
        field.push_back('\n');
        break;
      case 'r':
        field.push_back('\r');
        break;
      case 't':
        field.push_back('\t');
        break;
      case 'v':
        field.push_back('\v');
        break;
      default:
        if (e >= '0' && e <= '7') {
          int v = e - '0';
          for (int k = 0; k < 2 && i + 1 < line.size() && line[i + 1] >= '0' && line[i + 1] <= '7';
               k++) {
            v = v * 8 + (line[++i] - '0');
            written.push_back(line[i]);
          }
          field.push_back(static_cast<char>(v));
        } else {
          field.push_back(e);  // \\ and any other character stand for themselves
        }
    }
  }
  end_field();
  return Status::OK();
}

Status CopyDecoder::CsvRecord(std::string_view record, CopyRow* row) const {
  size_t i = 0;
  while (true) {
    std::string field;
    bool quoted = false;
    if (i < record.size() && record[i] == '"') {
      quoted = true;
      i++;
      while (true) {
        if (i >= record.size()) return Status::Invalid("a quoted field does not end");
        if (record[i] == '"') {
          if (i + 1 < record.size() && record[i + 1] == '"') {
            field.push_back('"');
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field.push_back(record[i++]);
      }
      if (i < record.size() && record[i] != format_.delimiter) {
        return Status::Invalid("characters after a quoted field");
      }
    } else {
      while (i < record.size() && record[i] != format_.delimiter) field.push_back(record[i++]);
    }
    // An unquoted field equal to the NULL text is NULL (a quoted one is the text itself).
    if (!quoted && field == format_.null_text) {
      row->fields.push_back(std::nullopt);
    } else {
      row->fields.push_back(std::move(field));
    }
    if (i >= record.size()) break;
    i++;  // the delimiter
  }
  return Status::OK();
}

std::string EncodeCopyRow(const std::vector<std::optional<std::string>>& cells,
                          const CopyFormat& format) {
  if (format.binary) {
    std::string out;
    PutBigEndian(static_cast<uint32_t>(cells.size()), 2, &out);
    for (const auto& c : cells) {
      PutBigEndian(c ? static_cast<uint32_t>(c->size()) : 0xffffffffu, 4, &out);
      if (c) out.append(*c);
    }
    return out;
  }
  std::string out;
  for (size_t c = 0; c < cells.size(); c++) {
    if (c) out.push_back(format.delimiter);
    if (!cells[c]) {
      out.append(format.null_text);
      continue;
    }
    const std::string& v = *cells[c];
    if (format.csv) {
      const bool quote = v.empty() || v.find_first_of(std::string("\"\n\r") + format.delimiter) !=
                                          std::string::npos;
      if (!quote) {
        out.append(v);
        continue;
      }
      out.push_back('"');
      for (char ch : v) {
        if (ch == '"') out.push_back('"');
        out.push_back(ch);
      }
      out.push_back('"');
      continue;
    }
    for (char ch : v) {
      switch (ch) {
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\r':
          out.append("\\r");
          break;
        case '\t':
          out.append("\\t");
          break;
        default:
          if (ch == format.delimiter) {
            out.push_back('\\');
          }
          out.push_back(ch);
      }
    }
  }
  out.push_back('\n');
  return out;
}

}  // namespace tributary::server

namespace tributary::server {

namespace {
// A text field longer than its CHAR/VARCHAR(n) column's n characters (BINARY/VARBINARY(n): n
// bytes, its `\x` hex form counted as bytes) is an error, as PostgreSQL's COPY and an INSERT
// say, not cut as an explicit CAST would.
Status CheckLength(const std::string& text, const DataType& type, bool text_format) {
  const bool chars = type.id == TypeId::kChar || type.id == TypeId::kVarChar;
  const bool bytes = type.id == TypeId::kBinary || type.id == TypeId::kVarBinary;
  if ((!chars && !bytes) || type.length >= kMaxVarLength) return Status::OK();
  size_t n = 0;
  if (chars) {
    for (unsigned char c : text) n += (c & 0xc0) != 0x80 ? 1 : 0;  // UTF-8 code points
  } else {
    n = text_format && text.rfind("\\x", 0) == 0 ? (text.size() - 2) / 2 : text.size();
  }
  if (n <= static_cast<size_t>(type.length)) return Status::OK();
  return Status::Invalid("value too long for type " + type.ToString() + " (" + std::to_string(n) +
                         (chars ? " characters)" : " bytes)"));
}
}  // namespace

Result<Row> CopyRowToTable(CopyRow&& r, const std::vector<int>& target,
                           const std::vector<Field>& fields, const CopyFormat& format) {
  const std::string line = "COPY line " + std::to_string(r.line);
  if (r.fields.size() != target.size()) {
    return Status::Invalid("invalid input syntax: " + line + ": " +
                           std::to_string(r.fields.size()) + " field(s), " +
                           std::to_string(target.size()) + " expected");
  }
  Row row(fields.size(), Value::Null());
  for (size_t k = 0; k < target.size(); k++) {
    if (!r.fields[k]) continue;
    const Field& f = fields[target[k]];
    Result<Value> v = Value::Null();
    if (Status st = CheckLength(*r.fields[k], f.type, !format.binary); !st.ok()) {
      return Status::Invalid("invalid input: " + line + ", column " + f.name + ": " + st.message());
    }
    if (format.binary) {
      // The column's type's binary form (the OID it is described with), then cast as a value
      // of the type that form reads as (timestamptz: microseconds since 2000 in UTC, as
      // timestamp's form: read so, then taken as the instant it is).
      const int32_t oid = pg::ColumnOf(f.name, f.type).type_oid;
      const bool instant = oid == 1184;
      auto read = pg::ParamValue(r.fields[k], instant ? 1114 : oid, /*binary=*/true, 0);
      v = read.ok() ? sql::CastValue(std::move(*read),
                                     instant ? DataType::TimestampLtz(6) : pg::BinaryValueType(oid),
                                     f.type, sql::CastMode::kExplicit)
                    : read;
    } else {
      v = sql::CastValue(Value::String(std::move(*r.fields[k])), DataType::String(), f.type,
                         sql::CastMode::kExplicit);
    }
    if (!v.ok()) {
      return Status(
          v.status().code() == StatusCode::kNotSupported ? StatusCode::kNotSupported
                                                         : StatusCode::kInvalidArgument,
          "invalid input syntax: " + line + ", column " + f.name + ": " + v.status().message());
    }
    row[target[k]] = std::move(*v);
  }
  return row;
}

std::string CopyOutQuery(const CopyStatement& copy) {
  if (!copy.query.empty()) return copy.query;
  std::string columns;
  for (const std::string& c : copy.columns) columns += (columns.empty() ? "`" : ", `") + c + "`";
  return "SELECT " + (columns.empty() ? std::string("*") : columns) + " FROM " + copy.table;
}

Status CopyOut(const CopyStatement& copy, sql::Session* session, Wire* wire) {
  std::string& out = wire->out();
  TRIB_ASSIGN_OR_RETURN(sql::StatementResult r,
                        session->ExecuteText(CopyOutQuery(copy), sql::Pos{}));
  if (!r.has_rows) return Status::Invalid("COPY (query) TO STDOUT: the statement returns no rows");
  const std::vector<Field>& fields = r.rows.fields;
  pg::AppendCopyResponse('H', fields.size(), &out, copy.format.binary);
  // The binary header goes with the first tuple (or the trailer), as PostgreSQL sends it.
  std::string header = copy.format.binary ? CopyBinaryHeader() : "";
  if (copy.format.header) {
    std::vector<std::optional<std::string>> names;
    for (const Field& f : fields) names.push_back(f.name);
    pg::AppendCopyData(EncodeCopyRow(names, copy.format), &out);
  }
  sql::SessionZoneScope zone(session->time_zone());
  std::vector<std::optional<std::string>> cells(fields.size());
  int64_t count = 0;
  auto send = [&](const std::vector<Row>& rows) -> Status {
    for (const Row& row : rows) {
      for (size_t c = 0; c < fields.size(); c++) {
        const DataType& t = fields[c].type;
        cells[c] = copy.format.binary ? pg::BinaryOf(row[c], t) : SessionZoneText(row[c], t);
      }
      pg::AppendCopyData(std::exchange(header, "") + EncodeCopyRow(cells, copy.format), &out);
      count++;
      if (out.size() > (1 << 16)) TRIB_RETURN_NOT_OK(wire->Flush());
    }
    return Status::OK();
  };
  if (r.cursor) {
    ColumnBatch batch;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, r.cursor->Next(&batch));
      if (!more) break;
      TRIB_RETURN_NOT_OK(send(sql::BatchRows(batch)));
    }
  } else {
    TRIB_RETURN_NOT_OK(send(r.rows.rows));
  }
  if (copy.format.binary) pg::AppendCopyData(header + CopyBinaryTrailer(), &out);
  pg::AppendEmpty('c', &out);  // CopyDone
  ServerStats::Get().rows_returned += count;
  pg::AppendCommandComplete("COPY " + std::to_string(count), &out);
  return Status::OK();
}

std::optional<std::string> SessionZoneText(const Value& v, const DataType& t) {
  if (!sql::HasLtz(t)) return pg::TextOf(v, t);
  const Value local = sql::ToSessionZone(v, t);
  auto text = pg::TextOf(local, t);
  if (text && t.id == TypeId::kTimestampLtz && v.is_timestamp() && local.is_timestamp()) {
    *text +=
        pg::ZoneOffsetText((local.timestamp_value().millis - v.timestamp_value().millis) / 1000);
  }
  return text;
}

}  // namespace tributary::server
