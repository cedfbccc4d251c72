// `tributary serve`: the warehouse over the PostgreSQL protocol (server/server.h).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cli/commands.h"
#include "server/server.h"
#include "server/tls.h"

namespace tributary::cli {
namespace {

constexpr const char* kUsage =
    "usage: tributary serve --warehouse DIR|URI [--listen HOST:PORT] [--data-dir DIR]\n"
    "Serves the warehouse over the PostgreSQL v3 protocol: connect as user tributary to a\n"
    "database of the catalog (psql -h 127.0.0.1 -p 5433 -U tributary -d default).\n"
    "  --warehouse DIR|URI  the warehouse (default $TRIBUTARY_WAREHOUSE, else ./warehouse)\n"
    "  --listen HOST:PORT   where to listen (default 127.0.0.1:5433); other than a loopback\n"
    "                       address needs a password for user tributary\n"
    "  --data-dir DIR       the hot tier's logs: writes are acknowledged once logged there and\n"
    "                       committed to the lake every second (default <warehouse>-hot for\n"
    "                       a local warehouse; needed for one on object storage)\n"
    "Statements are those of 'tributary sql'. SIGTERM or SIGINT stops the server (exit status\n"
    "0).\n"
    "Environment: TRIBUTARY_PASSWORD_FILE (a file whose first line is user tributary's\n"
    "password or its SCRAM-SHA-256 verifier) or TRIBUTARY_PASSWORD: set, every client\n"
    "authenticates with SCRAM-SHA-256; unset, clients on loopback addresses are trusted.\n"
    "TRIBUTARY_TLS_CERT and TRIBUTARY_TLS_KEY (PEM files): clients that ask for TLS get it;\n"
    "TRIBUTARY_TLS_REQUIRED=true: the others are refused; TRIBUTARY_TLS_CA (PEM): clients\n"
    "must present a certificate signed by it whose common name is the user.\n"
    "TRIBUTARY_HOT_TIER_FRESHNESS_MS: how often the logs are committed (default 1000).\n";

}  // namespace

int RunServeCommand(int argc, char** argv) {
  server::ServerOptions options;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (a == "--version") {
      PrintVersion();
      return 0;
    }
    const size_t eq = a.find('=');
    const std::string name = a.substr(0, eq);
    std::string value;
    if (name != "--warehouse" && name != "--listen" && name != "--data-dir") {
      std::fprintf(stderr, "tributary serve: unknown option '%s'\n%s", a.c_str(), kUsage);
      return 1;
    }
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      std::fprintf(stderr, "tributary serve: %s needs a value\n", name.c_str());
      return 1;
    }
    if (name == "--warehouse") {
      options.warehouse = value;
    } else if (name == "--listen") {
      options.listen = value;
    } else {
      options.data_dir = value;
    }
  }
  if (options.warehouse.empty()) {
    const char* env = std::getenv("TRIBUTARY_WAREHOUSE");
    options.warehouse = env != nullptr && *env != '\0' ? env : "./warehouse";
  }
  if (options.data_dir.empty()) {
    if (options.warehouse.find("://") != std::string::npos) {
      std::fprintf(stderr,
                   "tributary serve: --data-dir is needed for a warehouse on object storage "
                   "('%s'): the hot tier's logs are on a local disk\n",
                   options.warehouse.c_str());
      return 1;
    }
    std::string base = options.warehouse;
    while (base.size() > 1 && base.back() == '/') base.pop_back();
    options.data_dir = base + "-hot";
  }
  if (const char* f = std::getenv("TRIBUTARY_HOT_TIER_FRESHNESS_MS"); f != nullptr && *f) {
    char* end = nullptr;
    const long long ms = std::strtoll(f, &end, 10);
    if (*end != '\0' || ms < 1) {
      std::fprintf(stderr,
                   "tributary serve: TRIBUTARY_HOT_TIER_FRESHNESS_MS '%s' is not a number of "
                   "milliseconds (1 or more)\n",
                   f);
      return 1;
    }
    options.freshness = std::chrono::milliseconds(ms);
  }
  auto password = server::PasswordFromEnvironment();
  if (!password.ok()) {
    std::fprintf(stderr, "error: %s\n", password.status().message().c_str());
    return 1;
  }
  options.password = *password;
  auto tls = server::TlsFromEnvironment();
  if (!tls.ok()) {
    std::fprintf(stderr, "error: %s\n", tls.status().message().c_str());
    return 1;
  }
  options.tls = tls->context;
  options.tls_required = tls->required;
  options.client_certificates = tls->client_certificates;
  const int status = server::RunServer(options);
  // Connections still open end with the process (each statement has committed or not).
  std::fflush(nullptr);
  std::_Exit(status);
}

}  // namespace tributary::cli
