// `tributary serve`: the warehouse over the PostgreSQL v3 protocol (CONTRACT.md, docs/server.md).
// One thread per connection, each with a SQL session of its own (the statements `tributary sql`
// runs, committed to the lake as there: a write is acknowledged once its snapshot is published).
// Built so far: the startup (TLS when the server has a certificate, server/tls.h; GSS encryption
// refused with 'N'), trust authentication on loopback addresses, the simple query protocol (several
// statements per query, rows in the text format, errors with SQLSTATE codes), the extended
// query protocol in the text format (prepared statements, portals), COPY FROM STDIN / TO STDOUT
// (text and CSV, server/copy.h), subscriptions (streaming mode's DECLARE ... CURSOR / FETCH /
// CLOSE), Terminate, the hot tier (server/hot_tier.h: plain writes acknowledged once in a local
// log, committed to the lake every interval and before other statements), and SIGTERM / SIGINT
// (stop accepting, tier what the logs hold, exit 0). Refused with "not supported yet": streaming
// jobs, union reads. SCRAM-SHA-256 authentication when user
// tributary has a password (server/scram.h), which listening on other than a loopback address
// requires.
// Thread-safety: RunServer blocks its caller until the server stops.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "tributary/result.h"

namespace tributary::server {

struct ScramVerifier;
}  // namespace tributary::server
struct ssl_ctx_st;
namespace tributary::server {

struct ServerOptions {
  std::string warehouse;
  std::string listen = "127.0.0.1:5433";  // HOST:PORT
  // User tributary's password: set, every client authenticates with SCRAM-SHA-256 (needed to
  // listen on other than a loopback address); null, loopback clients are trusted.
  std::shared_ptr<const ScramVerifier> password;
  // TLS (server/tls.h, TlsFromEnvironment): clients that ask for it get it; null, none.
  std::shared_ptr<ssl_ctx_st> tls;
  bool tls_required = false;         // (ConnectionConfig's)
  bool client_certificates = false;  // (ConnectionConfig's)
  // The hot tier's logs (server/hot_tier.h).
  std::string data_dir;
  // How often the hot tier commits its logs into the lake.
  std::chrono::milliseconds freshness{1000};
};

// The password of user tributary from the environment (docs/server.md):
// $TRIBUTARY_PASSWORD_FILE, a file whose first line is the password or its SCRAM-SHA-256
// verifier as PostgreSQL stores it, or $TRIBUTARY_PASSWORD; null when neither is set (or both
// are empty); an error naming the variable or file when what it holds cannot be used.
Result<std::shared_ptr<const ScramVerifier>> PasswordFromEnvironment();

// Serves until SIGTERM or SIGINT; the process's exit status (0 after a clean stop; 1 when the
// server could not start, with the reason on stderr).
int RunServer(const ServerOptions& options);

}  // namespace tributary::server
