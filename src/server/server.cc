#include "server/server.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "server/connection.h"
#include "server/hot_tier.h"
#include "server/jobs.h"
#include "server/scram.h"
#include "server/stats.h"
#include "server/table_writers.h"
#include "server/tls.h"
#include "sql/session/session.h"

namespace tributary::server {

namespace {

std::atomic<bool> g_stop{false};

void OnStopSignal(int) { g_stop.store(true); }
std::atomic<bool> g_reload{false};
void OnReloadSignal(int) { g_reload.store(true); }

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

Result<std::shared_ptr<const ScramVerifier>> PasswordFromEnvironment() {
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v != nullptr ? v : "");
  };
  const std::string file = env("TRIBUTARY_PASSWORD_FILE"), plain = env("TRIBUTARY_PASSWORD");
  if (!file.empty() && !plain.empty()) {
    return Status::Invalid("TRIBUTARY_PASSWORD_FILE and TRIBUTARY_PASSWORD are both set: set one");
  }
  std::shared_ptr<const ScramVerifier> none;
  if (file.empty() && plain.empty()) return none;
  if (!plain.empty()) {
    auto v = MakeScramVerifier(plain);
    if (!v.ok()) return v.status().WithContext("TRIBUTARY_PASSWORD");
    return std::shared_ptr<const ScramVerifier>(std::make_shared<ScramVerifier>(std::move(*v)));
  }
  std::ifstream in(file, std::ios::binary);
  std::string line;
  if (!in || !std::getline(in, line)) {
    return Status::Invalid("TRIBUTARY_PASSWORD_FILE '" + file + "': cannot be read" +
                           (in.bad() || !in.is_open() ? std::string(": ") + std::strerror(errno)
                                                      : std::string(": it is empty")));
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  auto v =
      line.rfind("SCRAM-SHA-256$", 0) == 0 ? ParseScramVerifier(line) : MakeScramVerifier(line);
  if (!v.ok()) {
    return v.status().WithContext("TRIBUTARY_PASSWORD_FILE '" + file + "', line 1");
  }
  return std::shared_ptr<const ScramVerifier>(std::make_shared<ScramVerifier>(std::move(*v)));
}

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
  if (!IsLoopback(found->ai_addr) && !options.password && !options.client_certificates) {
    std::fprintf(stderr,
                 "error: --listen '%s' is not a loopback address: clients there must "
                 "authenticate with SCRAM-SHA-256, so user tributary needs a password "
                 "(TRIBUTARY_PASSWORD_FILE or TRIBUTARY_PASSWORD, docs/server.md), or with a "
                 "client certificate (TRIBUTARY_TLS_CA), or listen on 127.0.0.1 or ::1\n",
                 options.listen.c_str());
    return 1;
  }
  // The warehouse opens (and is created, with its database `default`) before the first client:
  // a bad one fails here.
  {
    auto probe = sql::Session::Open(options.warehouse);
    Status st = probe.status();
    if (st.ok()) {
      st = (*probe)->ExecuteText("CREATE DATABASE IF NOT EXISTS `default`", sql::Pos{}).status();
    }
    if (!st.ok()) {
      std::fprintf(stderr, "error: %s\n", st.message().c_str());
      return 1;
    }
  }
  // The hot tier: what its logs hold and the lake does not is committed before any client
  // connects (a crash loses no acknowledged write).
  TableWriters::Instance().set_commit_user(kHotTierCommitUser);
  auto hot = HotTier::Open(options.data_dir, options.warehouse);
  if (!hot.ok()) {
    std::fprintf(stderr, "error: %s\n", hot.status().message().c_str());
    return 1;
  }
  (*hot)->Start(options.freshness);
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
  sa.sa_handler = OnReloadSignal;
  ::sigaction(SIGHUP, &sa, nullptr);
  auto config = std::make_shared<ConnectionConfig>();
  config->hot = hot->get();
  ServerStats::Get().hot.store(hot->get());
  config->warehouse = options.warehouse;
  config->password = options.password;
  config->tls = options.tls;
  config->tls_required = options.tls_required;
  config->client_certificates = options.client_certificates;
  // A client gone in the middle of a TLS write must not stop the process (OpenSSL writes with
  // write(2), which raises SIGPIPE; plain sends pass MSG_NOSIGNAL).
  ::signal(SIGPIPE, SIG_IGN);
  Log("listening on " + options.listen + " (warehouse " + options.warehouse + ", hot tier " +
      options.data_dir + ", " +
      (options.client_certificates
           ? (options.password ? "client certificate and SCRAM-SHA-256 authentication"
                               : "client certificate authentication")
           : (options.password ? "SCRAM-SHA-256 authentication" : "trust authentication")) +
      (options.tls ? (options.tls_required ? ", TLS only" : ", TLS") : "") + ")");
  while (!g_stop.load()) {
    if (!config->tls && g_reload.exchange(false)) Log("SIGHUP: no TLS files to read again");
    if (g_reload.exchange(false) && config->tls) {
      // SIGHUP (PostgreSQL's reload): the certificate, key, CA and revocation files read again
      // for the connections that come next; on an error the ones read before stay.
      auto tls = TlsFromEnvironment();
      if (tls.ok() && tls->context) {
        auto next = std::make_shared<ConnectionConfig>(*config);
        next->tls = tls->context;
        config = std::move(next);
        Log("SIGHUP: TLS files read again");
      } else {
        Log("SIGHUP: TLS files not read again, the ones before stay: " +
            (tls.ok() ? std::string("TLS is no longer set") : tls.status().message()));
      }
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, 200);
    if (ready <= 0) continue;  // a time-out, or a signal: look at the flag again
    sockaddr_storage peer{};
    socklen_t peer_len = sizeof(peer);
    const int client = ::accept4(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len, SOCK_CLOEXEC);
    if (client < 0) continue;
    ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    std::thread(ServeConnection, client, config, PeerName(peer)).detach();
  }
  ::close(fd);
  // Jobs stop first (each commits what it has read), then the logs go to the lake; a statement
  // still running is logged whole or not at all (and a write logged after this is replayed at the
  // next start).
  ServerJobs::Instance().StopAll();
  (*hot)->Stop();
  Status tiered = (*hot)->TierAll();
  if (!tiered.ok()) {
    Log("stop: " + tiered.message() + " (the log keeps it: the next start commits it)");
  }
  TableWriters::Instance().CloseAll();
  // Connections still running may use the hot tier until the process exits: it stays (a write
  // they log now is committed at the next start).
  (void)hot->release();
  Log("stopped (SIGTERM or SIGINT)");
  return 0;
}

}  // namespace tributary::server
