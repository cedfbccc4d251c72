// The bytes of one client connection of `tributary serve` (server/connection.h): reading the
// client's messages through a buffer and sending the server's, over the socket or, once the
// client asked for it, over TLS (server/tls.h); and the SCRAM-SHA-256 exchange of the startup
// (server/scram.h), which runs over it.
// Thread-safety: a Wire belongs to its connection's thread.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "tributary/result.h"

struct ssl_ctx_st;

namespace tributary::server {

class TlsStream;
struct ScramVerifier;

class Wire {
 public:
  // Over socket `fd`, closed with the Wire; `peer` names the client in logs.
  Wire(int fd, std::string peer);
  ~Wire();
  Wire(const Wire&) = delete;
  Wire& operator=(const Wire&) = delete;

  // Reads exactly `n` bytes; false at the end of the stream. Reads through a buffer: one recv
  // takes whatever the client sent (a driver's Bind, Execute and Sync arrive together), not one
  // call per message part.
  Result<bool> ReadExactly(size_t n, std::string* out);
  // The next message after the startup; false at the end of the stream. A length out of bounds
  // is a protocol violation (the connection ends).
  Result<bool> ReadMessage(char* type, std::string* body);
  // What the server sends next: appended by the caller, sent by Flush.
  std::string& out() { return out_; }
  Status Flush();
  // An error before the session exists: a FATAL-level refusal, then the connection ends.
  Status Refuse(const std::string& sqlstate, const std::string& message);

  // Whether bytes were received and not read yet.
  bool HasUnreadBytes() const { return in_at_ != in_len_; }
  // The server's side of the TLS handshake; from then on every byte goes over TLS.
  Status StartTls(ssl_ctx_st* context);
  // The TLS session, once started; null before.
  const TlsStream* tls() const { return tls_.get(); }

 private:
  int fd_;
  std::string peer_;
  std::unique_ptr<TlsStream> tls_;
  std::string out_;
  // Bytes received: in_[0, in_len_), not yet read from in_at_ on (allocated at the first read,
  // never zeroed: each recv fills what it reports).
  std::unique_ptr<char[]> in_;
  size_t in_len_ = 0;
  size_t in_at_ = 0;
};

// SCRAM-SHA-256 as PostgreSQL runs it (server/scram.h): AuthenticationSASL (over TLS offering
// SCRAM-SHA-256-PLUS first: channel binding to the server's certificate, so a man in the middle
// with another certificate cannot relay the exchange), the client's SASLInitialResponse,
// AuthenticationSASLContinue, its SASLResponse, AuthenticationSASLFinal. True once the client
// proved the password (the caller sends AuthenticationOk); false once refused (the refusal
// sent) or when the client left.
Result<bool> AuthenticateScram(Wire* wire, const ScramVerifier& verifier);

}  // namespace tributary::server
