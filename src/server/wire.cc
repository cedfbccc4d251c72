#include "server/wire.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "server/connection.h"
#include "server/pg_wire.h"
#include "server/scram.h"
#include "server/tls.h"

namespace tributary::server {

Wire::Wire(int fd, std::string peer) : fd_(fd), peer_(std::move(peer)) {}

Wire::~Wire() {
  tls_.reset();  // its close_notify goes out before the socket closes
  ::close(fd_);
}

Status Wire::StartTls(ssl_ctx_st* context) {
  TRIB_ASSIGN_OR_RETURN(tls_, TlsStream::Accept(context, fd_));
  return Status::OK();
}

Result<bool> Wire::ReadExactly(size_t n, std::string* out) {
  constexpr size_t kBuffer = 64 << 10;
  out->clear();
  out->reserve(n);
  while (out->size() < n) {
    if (in_at_ == in_len_) {
      if (!in_) in_.reset(new char[kBuffer]);
      in_at_ = in_len_ = 0;
      ssize_t r;
      if (tls_) {
        TRIB_ASSIGN_OR_RETURN(size_t got, tls_->Read(in_.get(), kBuffer));
        r = static_cast<ssize_t>(got);
      } else {
        do {
          r = ::recv(fd_, in_.get(), kBuffer, 0);
        } while (r < 0 && errno == EINTR);
      }
      if (r == 0) return false;
      if (r < 0) return Status::IOError(std::string("recv: ") + std::strerror(errno));
      in_len_ = static_cast<size_t>(r);
    }
    const size_t take = std::min(n - out->size(), in_len_ - in_at_);
    out->append(in_.get() + in_at_, take);
    in_at_ += take;
  }
  return true;
}

Result<bool> Wire::ReadMessage(char* type, std::string* body) {
  std::string header;
  TRIB_ASSIGN_OR_RETURN(bool more, ReadExactly(5, &header));
  if (!more) return false;
  TRIB_ASSIGN_OR_RETURN(int64_t len, pg::MessageLength(header));
  TRIB_ASSIGN_OR_RETURN(more, ReadExactly(static_cast<size_t>(len - 5), body));
  *type = header[0];
  return more;
}

Status Wire::Flush() {
  if (tls_) {
    Status st = tls_->Write(out_.data(), out_.size());
    out_.clear();
    return st;
  }
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

Status Wire::Refuse(const std::string& sqlstate, const std::string& message) {
  pg::AppendFatal(sqlstate, message, &out_);
  Log("refused " + peer_ + ": " + message);
  return Flush();
}

Result<bool> AuthenticateScram(Wire* wire, const ScramVerifier& verifier) {
  // Over TLS, channel binding to the server's certificate is offered first (libpq takes it
  // by default): a man in the middle with another certificate cannot relay the exchange.
  const std::string end_point = wire->tls() ? wire->tls()->ServerEndPoint() : std::string();
  std::vector<std::string> mechanisms = {"SCRAM-SHA-256"};
  if (!end_point.empty()) mechanisms.insert(mechanisms.begin(), "SCRAM-SHA-256-PLUS");
  pg::AppendAuthenticationSasl(mechanisms, &wire->out());
  TRIB_RETURN_NOT_OK(wire->Flush());
  char type = 0;
  std::string body;
  TRIB_ASSIGN_OR_RETURN(bool more, wire->ReadMessage(&type, &body));
  if (!more) return false;
  if (type != 'p') {
    TRIB_RETURN_NOT_OK(wire->Refuse("08P01", "expected a SASLInitialResponse message"));
    return false;
  }
  auto initial = pg::ParseSaslInitialResponse(body);
  if (!initial.ok()) {
    TRIB_RETURN_NOT_OK(wire->Refuse("08P01", initial.status().message()));
    return false;
  }
  if (std::find(mechanisms.begin(), mechanisms.end(), initial->mechanism) == mechanisms.end()) {
    TRIB_RETURN_NOT_OK(wire->Refuse("28000", "SASL mechanism '" + initial->mechanism +
                                                 "' is not offered (" + mechanisms[0] + " is)"));
    return false;
  }
  ScramExchange exchange(verifier);
  exchange.OfferChannelBinding(end_point, initial->mechanism == "SCRAM-SHA-256-PLUS");
  auto first = exchange.ClientFirst(initial->data);
  if (!first.ok()) {
    TRIB_RETURN_NOT_OK(wire->Refuse("08P01", first.status().message()));
    return false;
  }
  pg::AppendAuthenticationSaslData(11, *first, &wire->out());
  TRIB_RETURN_NOT_OK(wire->Flush());
  TRIB_ASSIGN_OR_RETURN(more, wire->ReadMessage(&type, &body));
  if (!more) return false;
  if (type != 'p') {
    TRIB_RETURN_NOT_OK(wire->Refuse("08P01", "expected a SASLResponse message"));
    return false;
  }
  auto last = exchange.ClientFinal(body);
  if (!last.ok()) {
    TRIB_RETURN_NOT_OK(wire->Refuse("08P01", last.status().message()));
    return false;
  }
  if (!last->has_value()) {
    TRIB_RETURN_NOT_OK(
        wire->Refuse("28P01", "password authentication failed for user \"tributary\""));
    return false;
  }
  pg::AppendAuthenticationSaslData(12, **last, &wire->out());
  return true;
}

}  // namespace tributary::server
