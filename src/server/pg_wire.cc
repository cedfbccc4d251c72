#include "server/pg_wire.h"

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

void AppendAuthenticationOk(std::string* out) {
  const size_t at = Begin('R', out);
  PutInt32(0, out);
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
    PutInt16(0, out);   // text format
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

}  // namespace tributary::server::pg
