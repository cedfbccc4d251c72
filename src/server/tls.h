// TLS for `tributary serve` (OpenSSL from Debian): the server's context made from a certificate
// and its key (PEM files), and one connection's session over its socket, which the PostgreSQL
// protocol starts after the client's SSLRequest is answered 'S' (docs/server.md).
// Thread-safety: a context is shared by every connection (OpenSSL's contexts are thread-safe
// once made); a TlsStream belongs to its connection's thread.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "tributary/result.h"

struct ssl_ctx_st;
struct ssl_st;

namespace tributary::server {

// A context serving `cert_file` (the certificate, then any intermediate ones) with the private
// key in `key_file`, TLS 1.2 or later. An error names the file that cannot be used (missing,
// not PEM, a key that is not the certificate's).
Result<std::shared_ptr<ssl_ctx_st>> MakeTlsContext(const std::string& cert_file,
                                                   const std::string& key_file);
// Client certificates: the context asks each client for a certificate signed by one of the CAs
// in `ca_file` (PEM) and refuses the handshake without one. An error names the file.
Status RequireClientCertificates(ssl_ctx_st* context, const std::string& ca_file);
// Revocation: a client certificate that a list in `crl_file` (PEM, one or more certificate
// revocation lists) revokes is refused, and so is one whose issuer has no list there (as
// PostgreSQL's ssl_crl_file). Read once. An error names the file.
Status CheckRevocations(ssl_ctx_st* context, const std::string& crl_file);

// What the environment asks of TLS (docs/server.md): $TRIBUTARY_TLS_CERT and $TRIBUTARY_TLS_KEY
// (both set: their context; neither: none; one alone is an error), $TRIBUTARY_TLS_CA (client
// certificates signed by these CAs, whose common name is the user, are required: the
// certificate authenticates the client) and $TRIBUTARY_TLS_REQUIRED ('true': clients that do
// not ask for TLS are refused; implied by TRIBUTARY_TLS_CA), $TRIBUTARY_TLS_CRL (revocation
// lists of those CAs: CheckRevocations; an error without TRIBUTARY_TLS_CA). Any of the last three
// without a certificate is an error.
struct TlsSettings {
  std::shared_ptr<ssl_ctx_st> context;
  bool client_certificates = false;
  bool required = false;
};
Result<TlsSettings> TlsFromEnvironment();

class TlsStream;

// Why a connection as `user` is refused by the server's TLS settings (`required`: TLS only;
// `client_certificates`: a certificate whose common name is the user, which the handshake
// verified); empty when it is not. `tls`: the connection's, null when it is plain.
std::string TlsRefusal(bool required, bool client_certificates, const TlsStream* tls,
                       const std::string& user);

class TlsStream {
 public:
  // The server's side of the handshake on socket `fd` (blocking), which stays the caller's.
  static Result<std::unique_ptr<TlsStream>> Accept(ssl_ctx_st* context, int fd);
  ~TlsStream();
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  // Reads what is there, at most `n` bytes, waiting for at least one; 0 at the end of the
  // stream (the client closed it).
  Result<size_t> Read(char* buf, size_t n);
  // Writes all `n` bytes.
  Status Write(const char* buf, size_t n);
  // The protocol and cipher ("TLSv1.3 TLS_AES_256_GCM_SHA384"), for logs.
  std::string Describe() const;
  // The common name of the client's certificate (verified by the handshake when the context
  // requires one); nullopt when the client sent none or it has no common name.
  std::optional<std::string> PeerCommonName() const;
  // RFC 5929's tls-server-end-point channel-binding data: the hash of the server's certificate
  // by its signature's hash function (SHA-256 for MD5 or SHA-1). Empty when the signature names
  // no single hash function (Ed25519): then channel binding is not offered.
  std::string ServerEndPoint() const;

 private:
  explicit TlsStream(ssl_st* ssl) : ssl_(ssl) {}
  ssl_st* ssl_;
};

}  // namespace tributary::server
