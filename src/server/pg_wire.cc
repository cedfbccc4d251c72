#include "server/pg_wire.h"

#include <algorithm>
#include <cstdio>

namespace tributary::server::pg {

namespace {

// Startup packets are small; a client sending a larger one is not speaking the protocol.
constexpr int32_t kMaxStartup = 10000;
// Messages after the startup: a query text or a COPY chunk (PostgreSQL allows 1 GB).
constexpr int64_t kMaxMessage = int64_t{1} << 30;

constexpr int32_t kSslRequest = 80877103;
constexpr int32_t kGssRequest = 80877104;
constexpr int32_t kCancelRequest = 80877102;

int32_t ReadInt32(std::string_view s, size_t at) {
  return static_cast<int32_t>((static_cast<uint32_t>(static_cast<uint8_t>(s[at])) << 24) |
                              (static_cast<uint32_t>(static_cast<uint8_t>(s[at + 1])) << 16) |
                              (static_cast<uint32_t>(static_cast<uint8_t>(s[at + 2])) << 8) |
                              static_cast<uint32_t>(static_cast<uint8_t>(s[at + 3])));
}

void PutInt32(int32_t v, std::string* out) {
  const uint32_t u = static_cast<uint32_t>(v);
  out->push_back(static_cast<char>(u >> 24));
  out->push_back(static_cast<char>(u >> 16));
  out->push_back(static_cast<char>(u >> 8));
  out->push_back(static_cast<char>(u));
}

void PutInt16(int16_t v, std::string* out) {
  const uint16_t u = static_cast<uint16_t>(v);
  out->push_back(static_cast<char>(u >> 8));
  out->push_back(static_cast<char>(u));
}

void PutCString(std::string_view s, std::string* out) {
  out->append(s.data(), s.size());
  out->push_back('\0');
}

// Starts message `type`; returns where its length goes (filled by End).
size_t Begin(char type, std::string* out) {
  out->push_back(type);
  const size_t at = out->size();
  PutInt32(0, out);
  return at;
}

void End(size_t at, std::string* out) {
  const uint32_t len = static_cast<uint32_t>(out->size() - at);
  (*out)[at] = static_cast<char>(len >> 24);
  (*out)[at + 1] = static_cast<char>(len >> 16);
  (*out)[at + 2] = static_cast<char>(len >> 8);
  (*out)[at + 3] = static_cast<char>(len);
}

}  // namespace

Result<int32_t> StartupLength(std::string_view first4) {
  if (first4.size() < 4) return Status::Invalid("a startup packet needs 4 bytes of length");
  const int32_t len = ReadInt32(first4, 0);
  if (len < 8 || len > kMaxStartup) {
    return Status::Invalid("startup packet length " + std::to_string(len) +
                           " is out of bounds (8.." + std::to_string(kMaxStartup) + ")");
  }
  return len;
}

Result<StartupPacket> ParseStartup(std::string_view packet) {
  TRIB_ASSIGN_OR_RETURN(int32_t len, StartupLength(packet));
  if (static_cast<size_t>(len) != packet.size()) {
    return Status::Invalid("startup packet: length " + std::to_string(len) + " but " +
                           std::to_string(packet.size()) + " bytes");
  }
  StartupPacket out;
  const int32_t code = ReadInt32(packet, 4);
  if (code == kSslRequest || code == kGssRequest || code == kCancelRequest) {
    out.kind = code == kSslRequest   ? StartupPacket::Kind::kSslRequest
               : code == kGssRequest ? StartupPacket::Kind::kGssRequest
                                     : StartupPacket::Kind::kCancel;
    if (out.kind == StartupPacket::Kind::kCancel) {
      if (len != 16) {
        return Status::Invalid("cancel request: length " + std::to_string(len) + ", not 16");
      }
      out.cancel_pid = ReadInt32(packet, 8);
      out.cancel_secret = ReadInt32(packet, 12);
    }
    return out;
  }
  out.protocol = code;
  if (code >> 16 != 3) {
    return Status::NotSupported("protocol version " + std::to_string(code >> 16) + "." +
                                std::to_string(code & 0xffff) +
                                " is not supported (the server speaks 3.0)");
  }
  // Pairs of NUL-terminated strings, then a final NUL.
  size_t at = 8;
  while (true) {
    if (at >= packet.size()) return Status::Invalid("startup packet: its parameters do not end");
    if (packet[at] == '\0') {
      if (at + 1 != packet.size()) {
        return Status::Invalid("startup packet: bytes after its parameters");
      }
      break;
    }
    const size_t key_end = packet.find('\0', at);
    if (key_end == std::string_view::npos)
      return Status::Invalid("startup packet: a key does not end");
    const size_t value_end = packet.find('\0', key_end + 1);
    if (value_end == std::string_view::npos) {
      return Status::Invalid("startup packet: the value of '" +
                             std::string(packet.substr(at, key_end - at)) + "' does not end");
    }
    out.params[std::string(packet.substr(at, key_end - at))] =
        std::string(packet.substr(key_end + 1, value_end - key_end - 1));
    at = value_end + 1;
  }
  return out;
}

Result<int64_t> MessageLength(std::string_view header) {
  if (header.size() < 5) return Status::Invalid("a message needs 5 bytes of header");
  const int32_t len = ReadInt32(header, 1);
  if (len < 4 || len > kMaxMessage) {
    return Status::Invalid("message '" + std::string(1, header[0]) + "' has length " +
                           std::to_string(len) + ", out of bounds");
  }
  return int64_t{len} + 1;
}

namespace {

// Reads a message body front to back; every read is checked against its end.
class Reader {
 public:
  Reader(std::string_view body, const char* what) : body_(body), what_(what) {}
  Result<std::string> CString() {
    const size_t end = body_.find('\0', at_);
    if (end == std::string_view::npos) return Short();
    std::string out(body_.substr(at_, end - at_));
    at_ = end + 1;
    return out;
  }
  Result<int32_t> Int32() {
    if (body_.size() - at_ < 4) return Short();
    const int32_t v = ReadInt32(body_, at_);
    at_ += 4;
    return v;
  }
  Result<int16_t> Int16() {
    if (body_.size() - at_ < 2) return Short();
    const int16_t v =
        static_cast<int16_t>((static_cast<uint16_t>(static_cast<uint8_t>(body_[at_])) << 8) |
                             static_cast<uint8_t>(body_[at_ + 1]));
    at_ += 2;
    return v;
  }
  // A count, then that many int16 values (Bind's format codes).
  Result<std::vector<int16_t>> Int16List() {
    TRIB_ASSIGN_OR_RETURN(size_t n, Count(2));
    std::vector<int16_t> out;
    for (size_t i = 0; i < n; i++) {
      TRIB_ASSIGN_OR_RETURN(int16_t v, Int16());
      out.push_back(v);
    }
    return out;
  }
  Result<std::string> Bytes(size_t n) {
    if (body_.size() - at_ < n) return Short();
    std::string out(body_.substr(at_, n));
    at_ += n;
    return out;
  }
  Result<char> Byte() {
    if (at_ >= body_.size()) return Short();
    return body_[at_++];
  }
  // A count of elements that follow, each at least `min_bytes` long.
  Result<size_t> Count(size_t min_bytes) {
    TRIB_ASSIGN_OR_RETURN(int16_t n, Int16());
    if (n < 0 || static_cast<size_t>(n) * min_bytes > body_.size() - at_) {
      return Status::Invalid(std::string(what_) + " message: a count of " + std::to_string(n) +
                             " does not fit its length");
    }
    return static_cast<size_t>(n);
  }

 private:
  Status Short() const {
    return Status::Invalid(std::string(what_) + " message ends early (" +
                           std::to_string(body_.size()) + " bytes)");
  }
  std::string_view body_;
  const char* what_;
  size_t at_ = 0;
};

}  // namespace

Result<Parse> ParseParse(std::string_view body) {
  Reader r(body, "Parse");
  Parse out;
  TRIB_ASSIGN_OR_RETURN(out.statement, r.CString());
  TRIB_ASSIGN_OR_RETURN(out.query, r.CString());
  TRIB_ASSIGN_OR_RETURN(size_t n, r.Count(4));
  for (size_t i = 0; i < n; i++) {
    TRIB_ASSIGN_OR_RETURN(int32_t oid, r.Int32());
    out.type_oids.push_back(oid);
  }
  return out;
}

Result<Bind> ParseBind(std::string_view body) {
  Reader r(body, "Bind");
  Bind out;
  TRIB_ASSIGN_OR_RETURN(out.portal, r.CString());
  TRIB_ASSIGN_OR_RETURN(out.statement, r.CString());
  TRIB_ASSIGN_OR_RETURN(out.param_formats, r.Int16List());
  TRIB_ASSIGN_OR_RETURN(size_t params, r.Count(4));
  for (size_t i = 0; i < params; i++) {
    TRIB_ASSIGN_OR_RETURN(int32_t len, r.Int32());
    if (len == -1) {
      out.params.push_back(std::nullopt);
      continue;
    }
    if (len < 0) return Status::Invalid("Bind message: parameter length " + std::to_string(len));
    TRIB_ASSIGN_OR_RETURN(std::string v, r.Bytes(static_cast<size_t>(len)));
    out.params.push_back(std::move(v));
  }
  TRIB_ASSIGN_OR_RETURN(out.result_formats, r.Int16List());
  return out;
}

Result<Execute> ParseExecute(std::string_view body) {
  Reader r(body, "Execute");
  Execute out;
  TRIB_ASSIGN_OR_RETURN(out.portal, r.CString());
  TRIB_ASSIGN_OR_RETURN(out.max_rows, r.Int32());
  return out;
}

Result<Target> ParseTarget(std::string_view body) {
  Reader r(body, "Describe/Close");
  Target out;
  TRIB_ASSIGN_OR_RETURN(out.kind, r.Byte());
  if (out.kind != 'S' && out.kind != 'P') {
    return Status::Invalid(std::string("Describe/Close of '") + out.kind +
                           "' (a statement 'S' or a portal 'P')");
  }
  TRIB_ASSIGN_OR_RETURN(out.name, r.CString());
  return out;
}

Result<SaslInitialResponse> ParseSaslInitialResponse(std::string_view body) {
  Reader r(body, "SASLInitialResponse");
  SaslInitialResponse out;
  TRIB_ASSIGN_OR_RETURN(out.mechanism, r.CString());
  TRIB_ASSIGN_OR_RETURN(int32_t len, r.Int32());
  if (len < 0) return Status::Invalid("SASLInitialResponse message: no initial response");
  TRIB_ASSIGN_OR_RETURN(out.data, r.Bytes(static_cast<size_t>(len)));
  return out;
}

std::string DollarParamsToMarkers(std::string_view q, std::vector<int>* order, int* count) {
  std::string out;
  out.reserve(q.size());
  order->clear();
  *count = 0;
  size_t i = 0;
  auto copy_quoted = [&](char quote) {
    // From the opening quote to its closing one (a doubled quote stays inside).
    out.push_back(q[i++]);
    while (i < q.size()) {
      out.push_back(q[i]);
      if (q[i] == quote) {
        if (i + 1 < q.size() && q[i + 1] == quote) {
          out.push_back(q[++i]);
        } else {
          i++;
          return;
        }
      }
      i++;
    }
  };
  while (i < q.size()) {
    const char c = q[i];
    if (c == '\'' || c == '"' || c == '`') {
      copy_quoted(c);
    } else if (c == '-' && i + 1 < q.size() && q[i + 1] == '-') {
      const size_t end = q.find('\n', i);
      const size_t stop = end == std::string_view::npos ? q.size() : end;
      out.append(q.substr(i, stop - i));
      i = stop;
    } else if (c == '/' && i + 1 < q.size() && q[i + 1] == '*') {
      const size_t end = q.find("*/", i + 2);
      const size_t stop = end == std::string_view::npos ? q.size() : end + 2;
      out.append(q.substr(i, stop - i));
      i = stop;
    } else if (c == '$' && i + 1 < q.size() && q[i + 1] >= '0' && q[i + 1] <= '9') {
      size_t j = i + 1;
      int n = 0;
      while (j < q.size() && q[j] >= '0' && q[j] <= '9' && n < 100000) n = n * 10 + (q[j++] - '0');
      out.push_back('?');
      order->push_back(n);
      *count = std::max(*count, n);
      i = j;
    } else {
      out.push_back(c);
      i++;
    }
  }
  return out;
}

void AppendAuthenticationOk(std::string* out) {
  const size_t at = Begin('R', out);
  PutInt32(0, out);
  End(at, out);
}

void AppendAuthenticationSasl(const std::vector<std::string>& mechanisms, std::string* out) {
  const size_t at = Begin('R', out);
  PutInt32(10, out);
  for (const std::string& m : mechanisms) PutCString(m, out);
  out->push_back('\0');
  End(at, out);
}

void AppendAuthenticationSaslData(int32_t code, std::string_view data, std::string* out) {
  const size_t at = Begin('R', out);
  PutInt32(code, out);
  out->append(data.data(), data.size());
  End(at, out);
}

void AppendParameterStatus(const std::string& name, const std::string& value, std::string* out) {
  const size_t at = Begin('S', out);
  PutCString(name, out);
  PutCString(value, out);
  End(at, out);
}

void AppendBackendKeyData(int32_t pid, int32_t secret, std::string* out) {
  const size_t at = Begin('K', out);
  PutInt32(pid, out);
  PutInt32(secret, out);
  End(at, out);
}

void AppendReadyForQuery(char status, std::string* out) {
  const size_t at = Begin('Z', out);
  out->push_back(status);
  End(at, out);
}

void AppendRowDescription(const std::vector<Column>& columns, std::string* out) {
  const size_t at = Begin('T', out);
  PutInt16(static_cast<int16_t>(columns.size()), out);
  for (const Column& c : columns) {
    PutCString(c.name, out);
    PutInt32(0, out);  // not a table's column
    PutInt16(0, out);
    PutInt32(c.type_oid, out);
    PutInt16(c.type_size, out);
    PutInt32(-1, out);  // no type modifier
    PutInt16(c.format, out);
  }
  End(at, out);
}

void AppendDataRow(const std::vector<std::optional<std::string>>& cells, std::string* out) {
  const size_t at = Begin('D', out);
  PutInt16(static_cast<int16_t>(cells.size()), out);
  for (const auto& c : cells) {
    if (!c) {
      PutInt32(-1, out);
      continue;
    }
    PutInt32(static_cast<int32_t>(c->size()), out);
    out->append(*c);
  }
  End(at, out);
}

void AppendCommandComplete(const std::string& tag, std::string* out) {
  const size_t at = Begin('C', out);
  PutCString(tag, out);
  End(at, out);
}

void AppendEmptyQueryResponse(std::string* out) { End(Begin('I', out), out); }

void AppendEmpty(char type, std::string* out) { End(Begin(type, out), out); }

void AppendCopyResponse(char type, size_t columns, std::string* out, bool binary) {
  const size_t at = Begin(type, out);
  out->push_back(binary ? '\1' : '\0');
  PutInt16(static_cast<int16_t>(columns), out);
  for (size_t i = 0; i < columns; i++) PutInt16(binary ? 1 : 0, out);
  End(at, out);
}

void AppendCopyData(std::string_view data, std::string* out) {
  const size_t at = Begin('d', out);
  out->append(data.data(), data.size());
  End(at, out);
}

void AppendParameterDescription(const std::vector<int32_t>& oids, std::string* out) {
  const size_t at = Begin('t', out);
  PutInt16(static_cast<int16_t>(oids.size()), out);
  for (int32_t oid : oids) PutInt32(oid, out);
  End(at, out);
}

namespace {
void AppendFields(char type, const char* severity, const std::string& sqlstate,
                  const std::string& message, std::string* out) {
  const size_t at = Begin(type, out);
  out->push_back('S');
  PutCString(severity, out);
  out->push_back('V');
  PutCString(severity, out);
  out->push_back('C');
  PutCString(sqlstate, out);
  out->push_back('M');
  // A message is a C string: a NUL inside it would end it early.
  std::string text = message;
  for (char& ch : text) {
    if (ch == '\0') ch = ' ';
  }
  PutCString(text, out);
  if (message == kCachedPlanChanged) {
    // PostgreSQL's routine for it: drivers (asyncpg, pgjdbc) prepare the statement again.
    out->push_back('R');
    PutCString("RevalidateCachedQuery", out);
  }
  out->push_back('\0');
  End(at, out);
}
}  // namespace

void AppendError(const std::string& sqlstate, const std::string& message, std::string* out) {
  AppendFields('E', "ERROR", sqlstate, message, out);
}

void AppendFatal(const std::string& sqlstate, const std::string& message, std::string* out) {
  AppendFields('E', "FATAL", sqlstate, message, out);
}

void AppendNotice(const std::string& message, std::string* out) {
  AppendFields('N', "NOTICE", "00000", message, out);
}

Column ColumnOf(const std::string& name, const DataType& type) {
  Column c;
  c.name = name;
  switch (type.id) {
    case TypeId::kBoolean:
      c.type_oid = 16;
      c.type_size = 1;
      break;
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
      c.type_oid = 21;  // int2
      c.type_size = 2;
      break;
    case TypeId::kInt:
      c.type_oid = 23;  // int4
      c.type_size = 4;
      break;
    case TypeId::kBigInt:
      c.type_oid = 20;  // int8
      c.type_size = 8;
      break;
    case TypeId::kFloat:
      c.type_oid = 700;
      c.type_size = 4;
      break;
    case TypeId::kDouble:
      c.type_oid = 701;
      c.type_size = 8;
      break;
    case TypeId::kDecimal:
      c.type_oid = 1700;  // numeric
      break;
    case TypeId::kChar:
      c.type_oid = 1042;  // bpchar
      break;
    case TypeId::kVarChar:
      c.type_oid = type.length == kMaxVarLength ? 25 : 1043;  // text, varchar
      break;
    case TypeId::kBinary:
    case TypeId::kVarBinary:
      c.type_oid = 17;  // bytea
      break;
    case TypeId::kDate:
      c.type_oid = 1082;
      c.type_size = 4;
      break;
    case TypeId::kTime:
      c.type_oid = 1083;
      c.type_size = 8;
      break;
    case TypeId::kTimestamp:
      c.type_oid = 1114;
      c.type_size = 8;
      break;
    case TypeId::kTimestampLtz:
      c.type_oid = 1184;  // timestamptz
      c.type_size = 8;
      break;
    default:
      c.type_oid = 25;  // nested values as their text
      break;
  }
  return c;
}

std::optional<std::string> TextOf(const Value& v, const DataType& type) {
  if (v.is_null()) return std::nullopt;
  if (type.id == TypeId::kBoolean && v.is_bool()) return std::string(v.bool_value() ? "t" : "f");
  if ((type.id == TypeId::kBinary || type.id == TypeId::kVarBinary) && v.is_string()) {
    static const char* kHex = "0123456789abcdef";
    const std::string& bytes = v.string_value();
    std::string out = "\\x";
    out.reserve(2 + bytes.size() * 2);
    for (unsigned char b : bytes) {
      out.push_back(kHex[b >> 4]);
      out.push_back(kHex[b & 15]);
    }
    return out;
  }
  return FormatValue(v, type);
}

std::string ZoneOffsetText(int64_t offset_seconds) {
  const int64_t a = offset_seconds < 0 ? -offset_seconds : offset_seconds;
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%c%02lld", offset_seconds < 0 ? '-' : '+',
                static_cast<long long>(a / 3600));
  std::string out = buf;
  if (a % 3600 != 0) {
    std::snprintf(buf, sizeof(buf), ":%02lld", static_cast<long long>(a % 3600 / 60));
    out += buf;
    if (a % 60 != 0) {
      std::snprintf(buf, sizeof(buf), ":%02lld", static_cast<long long>(a % 60));
      out += buf;
    }
  }
  return out;
}

}  // namespace tributary::server::pg
