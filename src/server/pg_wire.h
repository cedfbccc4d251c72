// The PostgreSQL frontend/backend protocol, version 3 (what `tributary serve` speaks): reading
// the messages a client sends and writing the ones a server answers with, as bytes. No I/O here:
// the server (server.h) moves the bytes. The subset: the startup packet (and SSL / GSS
// encryption requests, answered "no"), the simple query protocol, Terminate; the extended query
// protocol's messages are recognised so they can be refused.
// Thread-safety: free functions and value types.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/result.h"
#include "tributary/types.h"
#include "tributary/value.h"

namespace tributary::server::pg {

// The first packet of a connection: int32 length, int32 code, then the body.
struct StartupPacket {
  enum class Kind { kStartup, kSslRequest, kGssRequest, kCancel };
  Kind kind = Kind::kStartup;
  int32_t protocol = 0;                       // kStartup: 196608 for 3.0
  std::map<std::string, std::string> params;  // kStartup: user, database, options, ...
  int32_t cancel_pid = 0;                     // kCancel: the key of the connection to cancel
  int32_t cancel_secret = 0;
};

// The length of the startup packet starting at `data` (its first 4 bytes), once 4 bytes are in;
// an error when it is out of bounds (a client that is not speaking the protocol).
Result<int32_t> StartupLength(std::string_view first4);
// Decodes a whole startup packet (length included).
Result<StartupPacket> ParseStartup(std::string_view packet);

// A message after the startup: a type byte, then int32 length (itself included), then the body.
struct Message {
  char type = 0;
  std::string body;
};
// The length of the message whose first 5 bytes are `header` (type and length): the whole
// message, type byte included; an error when it is out of bounds.
Result<int64_t> MessageLength(std::string_view header);

// The extended query protocol's client messages (the text format only).
struct Parse {
  std::string statement;  // "" the unnamed one
  std::string query;
  std::vector<int32_t> type_oids;  // declared parameter types (0: unspecified)
};
struct Bind {
  std::string portal;
  std::string statement;
  std::vector<int16_t> param_formats;  // none: all text; one: for all; else one each
  std::vector<std::optional<std::string>> params;
  std::vector<int16_t> result_formats;
};
struct Execute {
  std::string portal;
  int32_t max_rows = 0;  // 0: all
};
// Describe and Close: 'S' a statement or 'P' a portal, and its name.
struct Target {
  char kind = 'S';
  std::string name;
};
Result<Parse> ParseParse(std::string_view body);
Result<Bind> ParseBind(std::string_view body);
Result<Execute> ParseExecute(std::string_view body);
Result<Target> ParseTarget(std::string_view body);
// The client's first SASL message ('p' after AuthenticationSASL): the mechanism it chose and its
// initial response. Its later ones ('p' too) are the bare data.
struct SaslInitialResponse {
  std::string mechanism;
  std::string data;
};
Result<SaslInitialResponse> ParseSaslInitialResponse(std::string_view body);

// A query's parameters as PostgreSQL writes them ($1, $2, ... outside strings, quoted names and
// comments) turned into the '?' markers of Tributary's prepared statements: `*order` receives,
// for each '?' in turn, its parameter's number (1-based), and `*count` the highest number.
std::string DollarParamsToMarkers(std::string_view query, std::vector<int>* order, int* count);

// Bytes of the server's messages, appended to `out`.
void AppendAuthenticationOk(std::string* out);
// AuthenticationSASL: the mechanisms offered.
void AppendAuthenticationSasl(const std::vector<std::string>& mechanisms, std::string* out);
// AuthenticationSASLContinue (11) or AuthenticationSASLFinal (12) with the mechanism's data.
void AppendAuthenticationSaslData(int32_t code, std::string_view data, std::string* out);
void AppendParameterStatus(const std::string& name, const std::string& value, std::string* out);
void AppendBackendKeyData(int32_t pid, int32_t secret, std::string* out);
// 'I' idle, 'T' in a transaction block, 'E' in a failed one.
void AppendReadyForQuery(char status, std::string* out);
// One column of a RowDescription.
struct Column {
  std::string name;
  int32_t type_oid = 25;  // text
  int16_t type_size = -1;
  int16_t format = 0;  // 0 text, 1 binary
};
void AppendRowDescription(const std::vector<Column>& columns, std::string* out);
// One row in the text format: nullopt is NULL.
void AppendDataRow(const std::vector<std::optional<std::string>>& cells, std::string* out);
void AppendCommandComplete(const std::string& tag, std::string* out);
void AppendEmptyQueryResponse(std::string* out);
// ParseComplete '1', BindComplete '2', CloseComplete '3', NoData 'n', PortalSuspended 's'.
void AppendEmpty(char type, std::string* out);
void AppendParameterDescription(const std::vector<int32_t>& oids, std::string* out);
// CopyInResponse 'G' or CopyOutResponse 'H': the text (or binary) format, `columns` columns.
void AppendCopyResponse(char type, size_t columns, std::string* out, bool binary = false);
void AppendCopyData(std::string_view data, std::string* out);
// PostgreSQL's message when a prepared statement's columns changed since it was described:
// sent with its routine (RevalidateCachedQuery), which drivers take as "prepare it again".
inline constexpr const char* kCachedPlanChanged = "cached plan must not change result type";
// An ErrorResponse: severity ERROR, `sqlstate` (five characters), `message`.
void AppendError(const std::string& sqlstate, const std::string& message, std::string* out);
// The same at severity FATAL: the connection ends after it (a refused startup).
void AppendFatal(const std::string& sqlstate, const std::string& message, std::string* out);
void AppendNotice(const std::string& message, std::string* out);

// The type a column of `type` is described as (its OID and size), and a value's text.
Column ColumnOf(const std::string& name, const DataType& type);
// The text format of `v` (PostgreSQL's: booleans t/f, BYTES as \x hex, others as
// `tributary sql` prints them); nullopt for NULL.
std::optional<std::string> TextOf(const Value& v, const DataType& type);
// An offset from UTC as PostgreSQL writes it after a timestamptz: "+00", "-08", "+05:30",
// "+00:19:32".
std::string ZoneOffsetText(int64_t offset_seconds);

}  // namespace tributary::server::pg
