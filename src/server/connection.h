// One client connection of `tributary serve` (server.h): the PostgreSQL v3 protocol's startup,
// simple and extended queries, COPY and subscriptions over one SQL session of its own
// (docs/server.md).
// Thread-safety: a connection runs on its own thread; Log may be called from any.
#pragma once

#include <memory>
#include <string>

namespace tributary::server {

struct ScramVerifier;
class HotTier;
}  // namespace tributary::server
struct ssl_ctx_st;
namespace tributary::server {

// What every connection of a server shares.
struct ConnectionConfig {
  std::string warehouse;
  // User tributary's password (server/scram.h): set, every client authenticates with
  // SCRAM-SHA-256; null, clients are trusted (loopback addresses only: server.cc).
  std::shared_ptr<const ScramVerifier> password;
  // The TLS context (server/tls.h): set, an SSLRequest is answered 'S' and the connection
  // goes on encrypted; null, it is answered 'N'.
  std::shared_ptr<ssl_ctx_st> tls;
  // TLS only: a client that does not ask for it is refused (TRIBUTARY_TLS_REQUIRED).
  bool tls_required = false;
  // Client certificates (TRIBUTARY_TLS_CA): the handshake requires one signed by the CAs, and
  // its common name must be the user: it authenticates the client (a password, if set, too).
  bool client_certificates = false;
  // The hot tier (server/hot_tier.h): plain writes go to its logs; null, every statement commits
  // to the lake. Outlives every connection.
  HotTier* hot = nullptr;
};

// Serves the client on socket `fd` (closed at the end) until it leaves, from `peer` (for logs).
void ServeConnection(int fd, std::shared_ptr<const ConnectionConfig> config, std::string peer);

// One line per event on stderr ("serve: ...").
void Log(const std::string& line);

}  // namespace tributary::server
