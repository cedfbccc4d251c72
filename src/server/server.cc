#include "server/server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "server/pg_wire.h"
#include "sql/binder/cast.h"
#include "sql/exec/operators.h"
#include "sql/parser/lexer.h"
#include "sql/session/session.h"

namespace tributary::server {

namespace {

std::atomic<bool> g_stop{false};

void OnStopSignal(int) { g_stop.store(true); }

// One line per event on stderr.
void Log(const std::string& line) {
  std::fprintf(stderr, "serve: %s\n", line.c_str());
  std::fflush(stderr);
}

// The SQLSTATE of a failed statement (docs/server.md): by what the message says where the
// status code is too coarse (bad input is one code here, several classes there).
std::string SqlState(const Status& st) {
  const std::string& m = st.message();
  auto says = [&](const char* words) { return m.find(words) != std::string::npos; };
  if (says("unknown column")) return "42703";
  if (says("does not exist")) return says("database") ? "3D000" : "42P01";
  if (says("already exists")) return "42P07";
  if (says("division by zero")) return "22012";
  switch (st.code()) {
    case StatusCode::kInvalidArgument:
      return says("expected") || says("syntax") || says("unexpected") ? "42601" : "22023";
    case StatusCode::kNotFound:
      return "42P01";
    case StatusCode::kAlreadyExists:
      return "42P07";
    case StatusCode::kNotSupported:
      return "0A000";
    case StatusCode::kConflict:
      return "40001";
    case StatusCode::kIOError:
      return "58030";
    case StatusCode::kCorruption:
      return "XX001";
    default:
      return "XX000";
  }
}

// The words of a statement, upper-cased, for its CommandComplete tag.
std::vector<std::string> LeadingWords(const std::string& text, size_t n) {
  std::vector<std::string> words;
  std::string w;
  for (char c : text) {
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      w.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
      continue;
    }
    if (!w.empty()) {
      words.push_back(w);
      w.clear();
      if (words.size() == n) return words;
    }
    if (words.empty() && !std::isspace(static_cast<unsigned char>(c))) break;  // a comment, '('
  }
  if (!w.empty() && words.size() < n) words.push_back(w);
  return words;
}

// The first number in `message` ("Inserted 3 rows"), else 0.
int64_t CountIn(const std::string& message) {
  const size_t at = message.find_first_of("0123456789");
  return at == std::string::npos ? 0 : std::atoll(message.c_str() + at);
}

// PostgreSQL's CommandComplete tag of a statement that returned no rows.
std::string CommandTag(const std::string& text, const std::string& message) {
  const std::vector<std::string> words = LeadingWords(text, 2);
  if (words.empty()) return "OK";
  const std::string& first = words[0];
  if (first == "INSERT") return "INSERT 0 " + std::to_string(CountIn(message));
  if (first == "UPDATE" || first == "DELETE") return first + " " + std::to_string(CountIn(message));
  if ((first == "CREATE" || first == "DROP" || first == "ALTER") && words.size() > 1) {
    return first + " " + words[1];
  }
  return first;
}

class Connection {
 public:
  Connection(int fd, std::string warehouse, std::string peer)
      : fd_(fd), warehouse_(std::move(warehouse)), peer_(std::move(peer)) {}
  ~Connection() { ::close(fd_); }

  void Run() {
    Status st = Serve();
    if (!st.ok()) Log("connection from " + peer_ + " ended: " + st.message());
  }

 private:
  // Reads exactly `n` bytes; false at the end of the stream.
  Result<bool> ReadExactly(size_t n, std::string* out) {
    out->resize(n);
    size_t got = 0;
    while (got < n) {
      const ssize_t r = ::recv(fd_, out->data() + got, n - got, 0);
      if (r == 0) return false;
      if (r < 0) {
        if (errno == EINTR) continue;
        return Status::IOError(std::string("recv: ") + std::strerror(errno));
      }
      got += static_cast<size_t>(r);
    }
    return true;
  }

  Status Flush() {
    size_t sent = 0;
    while (sent < out_.size()) {
      const ssize_t w = ::send(fd_, out_.data() + sent, out_.size() - sent, MSG_NOSIGNAL);
      if (w < 0) {
        if (errno == EINTR) continue;
        return Status::IOError(std::string("send: ") + std::strerror(errno));
      }
      sent += static_cast<size_t>(w);
    }
    out_.clear();
    return Status::OK();
  }

  // An error before the session exists: a FATAL-level refusal, then the connection ends.
  Status Refuse(const std::string& sqlstate, const std::string& message) {
    pg::AppendFatal(sqlstate, message, &out_);
    Log("refused " + peer_ + ": " + message);
    return Flush();
  }

  Status Serve() {
    // The startup packet, after any encryption requests (answered 'N': not here).
    pg::StartupPacket startup;
    while (true) {
      std::string head, rest;
      TRIB_ASSIGN_OR_RETURN(bool more, ReadExactly(4, &head));
      if (!more) return Status::OK();
      TRIB_ASSIGN_OR_RETURN(int32_t len, pg::StartupLength(head));
      TRIB_ASSIGN_OR_RETURN(more, ReadExactly(static_cast<size_t>(len) - 4, &rest));
      if (!more) return Status::OK();
      auto parsed = pg::ParseStartup(head + rest);
      if (!parsed.ok()) return Refuse("08P01", parsed.status().message());
      startup = std::move(*parsed);
      if (startup.kind == pg::StartupPacket::Kind::kCancel) {
        return Status::OK();  // cancel requests are not supported yet: nothing to cancel
      }
      if (startup.kind == pg::StartupPacket::Kind::kStartup) break;
      out_.push_back('N');
      TRIB_RETURN_NOT_OK(Flush());
    }
    const std::string user = startup.params["user"];
    if (user != "tributary") {
      return Refuse("28000", "role \"" + user + "\" does not exist (connect as user tributary)");
    }
    auto session = sql::Session::Open(warehouse_);
    if (!session.ok()) return Refuse("58030", session.status().message());
    session_ = std::move(*session);
    std::string database = startup.params["database"];
    if (database.empty()) database = "default";
    if (database != session_->current_database()) {
      auto used = session_->ExecuteText("USE `" + database + "`", sql::Pos{});
      if (!used.ok()) {
        return Refuse("3D000", "database \"" + database + "\" does not exist");
      }
    }
    pg::AppendAuthenticationOk(&out_);
    for (const auto& [name, value] :
         std::vector<std::pair<std::string, std::string>>{{"server_version", "16.0 (Tributary)"},
                                                          {"server_encoding", "UTF8"},
                                                          {"client_encoding", "UTF8"},
                                                          {"DateStyle", "ISO, MDY"},
                                                          {"integer_datetimes", "on"},
                                                          {"standard_conforming_strings", "on"},
                                                          {"TimeZone", "UTC"}}) {
      pg::AppendParameterStatus(name, value, &out_);
    }
    std::random_device rd;
    pg::AppendBackendKeyData(static_cast<int32_t>(::getpid()), static_cast<int32_t>(rd()), &out_);
    pg::AppendReadyForQuery('I', &out_);
    TRIB_RETURN_NOT_OK(Flush());
    Log("connection from " + peer_ + " to database " + database);

    bool skipping = false;  // an extended-protocol message was refused: skip until Sync
    while (true) {
      std::string header, body;
      TRIB_ASSIGN_OR_RETURN(bool more, ReadExactly(5, &header));
      if (!more) return Status::OK();
      auto len = pg::MessageLength(header);
      if (!len.ok()) return Refuse("08P01", len.status().message());
      TRIB_ASSIGN_OR_RETURN(more, ReadExactly(static_cast<size_t>(*len - 5), &body));
      if (!more) return Status::OK();
      const char type = header[0];
      switch (type) {
        case 'X':  // Terminate
          return Status::OK();
        case 'Q': {
          if (!body.empty() && body.back() == '\0') body.pop_back();
          TRIB_RETURN_NOT_OK(SimpleQuery(body));
          pg::AppendReadyForQuery('I', &out_);
          TRIB_RETURN_NOT_OK(Flush());
          break;
        }
        case 'S':  // Sync: the end of an extended-protocol exchange
          skipping = false;
          pg::AppendReadyForQuery('I', &out_);
          TRIB_RETURN_NOT_OK(Flush());
          break;
        case 'H':  // Flush
          TRIB_RETURN_NOT_OK(Flush());
          break;
        case 'P':
        case 'B':
        case 'D':
        case 'E':
        case 'C':
        case 'F':
          if (!skipping) {
            pg::AppendError("0A000",
                            "the extended query protocol (Parse / Bind / Execute, prepared "
                            "statements) is not supported yet: send statements as simple queries",
                            &out_);
            skipping = true;
          }
          break;
        case 'd':
        case 'c':
        case 'f':
          break;  // COPY data from a client: no COPY runs (refused when it is asked for)
        default:
          return Refuse("08P01", std::string("unknown message type '") + type + "'");
      }
    }
  }

  // A simple query: every statement of `text` in order, until one fails.
  Status SimpleQuery(const std::string& text) {
    std::vector<sql::StatementText> statements;
    Status split = sql::SplitStatementsPrefix(text, &statements);
    if (statements.empty() && split.ok()) {
      pg::AppendEmptyQueryResponse(&out_);
      return Status::OK();
    }
    for (const sql::StatementText& st : statements) {
      Status failed = Statement(st);
      if (!failed.ok()) {
        pg::AppendError(SqlState(failed), failed.message(), &out_);
        return Status::OK();
      }
      if (out_.size() > (1 << 16)) TRIB_RETURN_NOT_OK(Flush());
    }
    if (!split.ok()) pg::AppendError("42601", split.message(), &out_);
    return Status::OK();
  }

  // One statement: its rows (RowDescription, DataRow...) and its CommandComplete.
  Status Statement(const sql::StatementText& st) {
    const std::vector<std::string> first = LeadingWords(st.text, 1);
    auto mode = session_->options().find("execution.runtime-mode");
    if (mode != session_->options().end() && mode->second == "streaming" && !first.empty() &&
        first[0] != "SET" && first[0] != "RESET") {
      return Status::NotSupported(
          "streaming mode through the server is not supported yet (subscriptions by DECLARE "
          "... CURSOR and FETCH are planned): RESET 'execution.runtime-mode'");
    }
    if (!first.empty() && first[0] == "COPY") {
      return Status::NotSupported("COPY through the server is not supported yet");
    }
    TRIB_ASSIGN_OR_RETURN(sql::StatementResult r, session_->ExecuteText(st.text, st.start));
    if (!r.has_rows) {
      pg::AppendCommandComplete(CommandTag(st.text, r.message), &out_);
      return Status::OK();
    }
    sql::SessionZoneScope zone(session_->time_zone());
    const std::vector<Field>& fields = r.rows.fields;
    std::vector<pg::Column> columns;
    for (const Field& f : fields) columns.push_back(pg::ColumnOf(f.name, f.type));
    pg::AppendRowDescription(columns, &out_);
    int64_t count = 0;
    std::vector<std::optional<std::string>> cells(fields.size());
    auto send_rows = [&](const std::vector<Row>& rows) -> Status {
      for (const Row& row : rows) {
        for (size_t c = 0; c < fields.size(); c++) {
          const DataType& t = fields[c].type;
          cells[c] = pg::TextOf(sql::HasLtz(t) ? sql::ToSessionZone(row[c], t) : row[c], t);
        }
        pg::AppendDataRow(cells, &out_);
        count++;
        if (out_.size() > (1 << 16)) TRIB_RETURN_NOT_OK(Flush());
      }
      return Status::OK();
    };
    if (r.cursor) {
      ColumnBatch batch;
      while (true) {
        TRIB_ASSIGN_OR_RETURN(bool more, r.cursor->Next(&batch));
        if (!more) break;
        TRIB_RETURN_NOT_OK(send_rows(sql::BatchRows(batch)));
      }
    } else {
      TRIB_RETURN_NOT_OK(send_rows(r.rows.rows));
    }
    pg::AppendCommandComplete("SELECT " + std::to_string(count), &out_);
    return Status::OK();
  }

  int fd_;
  std::string warehouse_;
  std::string peer_;
  std::unique_ptr<sql::Session> session_;
  std::string out_;
};

// Whether `addr` is a loopback address (127.0.0.0/8 or ::1).
bool IsLoopback(const sockaddr* addr) {
  if (addr->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(addr);
    return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
  }
  if (addr->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(addr);
    return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
  }
  return false;
}

std::string PeerName(const sockaddr_storage& addr) {
  char host[NI_MAXHOST] = {0}, port[NI_MAXSERV] = {0};
  if (::getnameinfo(reinterpret_cast<const sockaddr*>(&addr), sizeof(addr), host, sizeof(host),
                    port, sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    return "?";
  }
  return std::string(host) + ":" + port;
}

}  // namespace

int RunServer(const ServerOptions& options) {
  const size_t colon = options.listen.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == options.listen.size()) {
    std::fprintf(stderr, "error: --listen '%s' is not HOST:PORT\n", options.listen.c_str());
    return 1;
  }
  std::string host = options.listen.substr(0, colon);
  const std::string port = options.listen.substr(colon + 1);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    std::fprintf(stderr, "error: --listen '%s': %s\n", options.listen.c_str(), gai_strerror(rc));
    return 1;
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addrs(found, ::freeaddrinfo);
  if (!IsLoopback(found->ai_addr)) {
    std::fprintf(stderr,
                 "error: --listen '%s' is not a loopback address: clients there would need "
                 "SCRAM-SHA-256 authentication, which is not supported yet (listen on "
                 "127.0.0.1 or ::1)\n",
                 options.listen.c_str());
    return 1;
  }
  // The warehouse opens (and is created) before the first client: a bad one fails here.
  {
    auto probe = sql::Session::Open(options.warehouse);
    if (!probe.ok()) {
      std::fprintf(stderr, "error: %s\n", probe.status().message().c_str());
      return 1;
    }
  }
  const int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    std::fprintf(stderr, "error: socket: %s\n", std::strerror(errno));
    return 1;
  }
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(fd, found->ai_addr, found->ai_addrlen) != 0 || ::listen(fd, 128) != 0) {
    std::fprintf(stderr, "error: cannot listen on %s: %s\n", options.listen.c_str(),
                 std::strerror(errno));
    ::close(fd);
    return 1;
  }
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGINT, &sa, nullptr);
  Log("listening on " + options.listen + " (warehouse " + options.warehouse + ")");
  while (!g_stop.load()) {
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, 200);
    if (ready <= 0) continue;  // a time-out, or a signal: look at the flag again
    sockaddr_storage peer{};
    socklen_t peer_len = sizeof(peer);
    const int client = ::accept4(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len, SOCK_CLOEXEC);
    if (client < 0) continue;
    ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    auto conn = std::make_shared<Connection>(client, options.warehouse, PeerName(peer));
    std::thread([conn] { conn->Run(); }).detach();
  }
  ::close(fd);
  // Every statement commits as it runs: a connection cut here loses nothing it was told was
  // done (a statement still running commits all of it or nothing).
  Log("stopped (SIGTERM or SIGINT)");
  return 0;
}

}  // namespace tributary::server
