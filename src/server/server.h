// `tributary serve`: the warehouse over the PostgreSQL v3 protocol (CONTRACT.md, docs/server.md).
// One thread per connection, each with a SQL session of its own (the statements `tributary sql`
// runs, committed to the lake as there: a write is acknowledged once its snapshot is published).
// Built so far: the startup (SSL and GSS encryption refused with 'N', as a server without them
// does), trust authentication on loopback addresses, the simple query protocol (several
// statements per query, rows in the text format, errors with SQLSTATE codes), the extended
// query protocol in the text format (prepared statements, portals), COPY FROM STDIN / TO STDOUT
// (text and CSV, server/copy.h), subscriptions (streaming mode's DECLARE ... CURSOR / FETCH /
// CLOSE), Terminate, and SIGTERM / SIGINT (stop accepting, exit 0). Refused with "not supported
// yet": other listen addresses (SCRAM-SHA-256), binary formats, streaming jobs, the hot tier.
// Thread-safety: RunServer blocks its caller until the server stops.
#pragma once

#include <string>

namespace tributary::server {

struct ServerOptions {
  std::string warehouse;
  std::string listen = "127.0.0.1:5433";  // HOST:PORT
};

// Serves until SIGTERM or SIGINT; the process's exit status (0 after a clean stop; 1 when the
// server could not start, with the reason on stderr).
int RunServer(const ServerOptions& options);

}  // namespace tributary::server
