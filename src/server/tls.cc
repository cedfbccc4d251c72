#include "server/tls.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509err.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace tributary::server {

namespace {

// OpenSSL's queued errors of this thread, as one line (the queue emptied).
std::string OpenSslErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "no detail from OpenSSL" : out;
}

}  // namespace

Result<std::shared_ptr<ssl_ctx_st>> MakeTlsContext(const std::string& cert_file,
                                                   const std::string& key_file) {
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  if (!ctx) return Status::Internal("TLS: cannot make a context: " + OpenSslErrors());
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  // No session tickets or cache: each connection is one long session.
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), cert_file.c_str()) != 1) {
    return Status::Invalid("TLS certificate '" + cert_file +
                           "' cannot be used: " + OpenSslErrors());
  }
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), key_file.c_str(), SSL_FILETYPE_PEM) != 1 &&
      ERR_GET_REASON(ERR_peek_last_error()) != X509_R_KEY_VALUES_MISMATCH) {
    return Status::Invalid("TLS key '" + key_file + "' cannot be used: " + OpenSslErrors());
  }
  if (SSL_CTX_check_private_key(ctx.get()) != 1) {
    return Status::Invalid("TLS key '" + key_file + "' is not the key of certificate '" +
                           cert_file + "': " + OpenSslErrors());
  }
  return std::shared_ptr<ssl_ctx_st>(std::move(ctx));
}

Status RequireClientCertificates(ssl_ctx_st* context, const std::string& ca_file) {
  if (SSL_CTX_load_verify_locations(context, ca_file.c_str(), nullptr) != 1) {
    return Status::Invalid("TLS CA file '" + ca_file + "' cannot be used: " + OpenSslErrors());
  }
  STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(ca_file.c_str());
  if (names == nullptr) {
    return Status::Invalid("TLS CA file '" + ca_file + "' names no CA: " + OpenSslErrors());
  }
  SSL_CTX_set_client_CA_list(context, names);  // (the context owns them)
  SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  return Status::OK();
}

Status CheckRevocations(ssl_ctx_st* context, const std::string& crl_file) {
  X509_STORE* store = SSL_CTX_get_cert_store(context);
  X509_LOOKUP* lookup = store ? X509_STORE_add_lookup(store, X509_LOOKUP_file()) : nullptr;
  if (lookup == nullptr) return Status::Internal("TLS: " + OpenSslErrors());
  if (X509_load_crl_file(lookup, crl_file.c_str(), X509_FILETYPE_PEM) <= 0) {
    return Status::Invalid(
        "TLS CRL file '" + crl_file +
        "' cannot be used (a PEM file of certificate revocation lists): " + OpenSslErrors());
  }
  // As PostgreSQL's ssl_crl_file: every certificate of the client's chain is checked against
  // its issuer's list, and a chain whose issuer has none is refused.
  X509_STORE_set_flags(store, X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL);
  return Status::OK();
}

Result<TlsSettings> TlsFromEnvironment() {
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v != nullptr ? v : "");
  };
  const std::string cert = env("TRIBUTARY_TLS_CERT"), key = env("TRIBUTARY_TLS_KEY");
  const std::string ca = env("TRIBUTARY_TLS_CA"), required = env("TRIBUTARY_TLS_REQUIRED");
  const std::string crl = env("TRIBUTARY_TLS_CRL");
  if (!crl.empty() && ca.empty()) {
    return Status::Invalid(
        "TRIBUTARY_TLS_CRL is set without TRIBUTARY_TLS_CA: revocation lists "
        "apply to client certificates");
  }
  TlsSettings out;
  if (required == "true" || required == "1") {
    out.required = true;
  } else if (!required.empty() && required != "false" && required != "0") {
    return Status::Invalid("TRIBUTARY_TLS_REQUIRED '" + required + "' is neither true nor false");
  }
  if (cert.empty() && key.empty()) {
    if (!ca.empty() || out.required) {
      return Status::Invalid(
          std::string(ca.empty() ? "TRIBUTARY_TLS_REQUIRED" : "TRIBUTARY_TLS_CA") +
          " is set without TRIBUTARY_TLS_CERT and TRIBUTARY_TLS_KEY: the "
          "server needs its own certificate for TLS");
    }
    return out;
  }
  if (cert.empty() || key.empty()) {
    return Status::Invalid(std::string(cert.empty() ? "TRIBUTARY_TLS_KEY" : "TRIBUTARY_TLS_CERT") +
                           " is set without " +
                           (cert.empty() ? "TRIBUTARY_TLS_CERT" : "TRIBUTARY_TLS_KEY") +
                           ": TLS needs the certificate and its key");
  }
  TRIB_ASSIGN_OR_RETURN(out.context, MakeTlsContext(cert, key));
  if (!ca.empty()) {
    TRIB_RETURN_NOT_OK(RequireClientCertificates(out.context.get(), ca));
    if (!crl.empty()) TRIB_RETURN_NOT_OK(CheckRevocations(out.context.get(), crl));
    out.client_certificates = out.required = true;
  }
  return out;
}

Result<std::unique_ptr<TlsStream>> TlsStream::Accept(ssl_ctx_st* context, int fd) {
  SSL* ssl = SSL_new(context);
  if (ssl == nullptr) return Status::Internal("TLS: " + OpenSslErrors());
  std::unique_ptr<TlsStream> stream(new TlsStream(ssl));
  if (SSL_set_fd(ssl, fd) != 1) return Status::Internal("TLS: " + OpenSslErrors());
  while (true) {
    const int rc = SSL_accept(ssl);
    if (rc == 1) break;
    const int err = SSL_get_error(ssl, rc);
    if (err == SSL_ERROR_SYSCALL && errno == EINTR) continue;
    return Status::IOError("TLS handshake failed: " + OpenSslErrors());
  }
  // (With client certificates required the handshake fails on a bad one; checked again here.)
  if ((SSL_get_verify_mode(ssl) & SSL_VERIFY_PEER) != 0 &&
      SSL_get_verify_result(ssl) != X509_V_OK) {
    return Status::IOError(std::string("TLS handshake failed: client certificate: ") +
                           X509_verify_cert_error_string(SSL_get_verify_result(ssl)));
  }
  return stream;
}

TlsStream::~TlsStream() {
  SSL_shutdown(ssl_);  // a close_notify; the client's is not waited for
  SSL_free(ssl_);
}

Result<size_t> TlsStream::Read(char* buf, size_t n) {
  while (true) {
    size_t got = 0;
    const int rc = SSL_read_ex(ssl_, buf, n, &got);
    if (rc == 1) return got;
    const int err = SSL_get_error(ssl_, rc);
    if (err == SSL_ERROR_ZERO_RETURN) return size_t{0};
    if (err == SSL_ERROR_SYSCALL && errno == EINTR) continue;
    if (err == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) return size_t{0};  // cut off
    return Status::IOError("TLS read: " + OpenSslErrors());
  }
}

Status TlsStream::Write(const char* buf, size_t n) {
  size_t sent = 0;
  while (sent < n) {
    size_t wrote = 0;
    const int rc = SSL_write_ex(ssl_, buf + sent, n - sent, &wrote);
    if (rc == 1) {
      sent += wrote;
      continue;
    }
    const int err = SSL_get_error(ssl_, rc);
    if (err == SSL_ERROR_SYSCALL && errno == EINTR) continue;
    return Status::IOError("TLS write: " + (err == SSL_ERROR_SYSCALL && ERR_peek_error() == 0
                                                ? std::string(std::strerror(errno))
                                                : OpenSslErrors()));
  }
  return Status::OK();
}

std::string TlsStream::ServerEndPoint() const {
  X509* cert = SSL_get_certificate(ssl_);  // not owned
  if (cert == nullptr) return "";
  int md_nid = NID_undef, pkey_nid = NID_undef;
  if (OBJ_find_sigid_algs(X509_get_signature_nid(cert), &md_nid, &pkey_nid) != 1 ||
      md_nid == NID_undef) {
    return "";
  }
  if (md_nid == NID_md5 || md_nid == NID_sha1) md_nid = NID_sha256;
  const EVP_MD* md = EVP_get_digestbynid(md_nid);
  unsigned char hash[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (md == nullptr || X509_digest(cert, md, hash, &len) != 1) return "";
  return std::string(reinterpret_cast<const char*>(hash), len);
}

std::string TlsRefusal(bool required, bool client_certificates, const TlsStream* tls,
                       const std::string& user) {
  if (required && tls == nullptr) {
    return "connection without TLS refused: the server accepts TLS connections only (connect "
           "with sslmode=require or stronger)";
  }
  if (!client_certificates) return "";
  const std::optional<std::string> name =
      tls != nullptr ? tls->PeerCommonName() : std::optional<std::string>();
  if (name && *name == user) return "";
  return "certificate authentication failed for user \"" + user +
         "\": the client certificate's common name is " +
         (name ? "\"" + *name + "\"" : std::string("missing"));
}

std::optional<std::string> TlsStream::PeerCommonName() const {
  X509* cert = SSL_get1_peer_certificate(ssl_);
  if (cert == nullptr) return std::nullopt;
  std::optional<std::string> out;
  X509_NAME* subject = X509_get_subject_name(cert);  // (the certificate's)
  const int at = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
  if (at >= 0) {
    const ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, at));
    out = std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(data)),
                      static_cast<size_t>(ASN1_STRING_length(data)));
  }
  X509_free(cert);
  return out;
}

std::string TlsStream::Describe() const {
  return std::string(SSL_get_version(ssl_)) + " " + SSL_get_cipher_name(ssl_);
}

}  // namespace tributary::server
