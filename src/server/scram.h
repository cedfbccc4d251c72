// SCRAM-SHA-256 password authentication (RFC 5802 and RFC 7677), the server's side, as
// PostgreSQL speaks it in its SASL exchange: the client-first message (no channel binding; the
// user name comes from the startup packet, so the message's n= is ignored), the server-first
// message (the client's nonce and the server's, the salt, the iteration count), the client-final
// message with its proof, and the server-final message with the server's signature; over TLS,
// channel binding of type tls-server-end-point (SCRAM-SHA-256-PLUS).
// The server keeps a verifier, never the password: PostgreSQL's `rolpassword` form,
// `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>` (base64), which a password is
// turned into once (MakeScramVerifier) or which is read as it is (ParseScramVerifier).
// docs/server.md says how the server's user is given a password.
// Thread-safety: a ScramExchange belongs to one connection; the functions are pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tributary/result.h"

namespace tributary::server {

struct ScramVerifier {
  int iterations = 4096;
  std::string salt;        // raw bytes
  std::string stored_key;  // H(ClientKey), 32 bytes
  std::string server_key;  // HMAC(SaltedPassword, "Server Key"), 32 bytes
};

// The verifier of `password` with a fresh random salt of 16 bytes (PostgreSQL's default) and
// `iterations`. A password that is not printable ASCII is Invalid: clients normalize others
// with SASLprep (NFKC), which this server does not do, so they could never match.
Result<ScramVerifier> MakeScramVerifier(std::string_view password, int iterations = 4096);
// The same with a given salt (tests).
Result<ScramVerifier> MakeScramVerifierWithSalt(std::string_view password, std::string_view salt,
                                                int iterations);
// Reads `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`; Invalid, saying what is
// wrong, for anything else.
Result<ScramVerifier> ParseScramVerifier(std::string_view text);
// The text form ParseScramVerifier reads.
std::string FormatScramVerifier(const ScramVerifier& v);

std::string Base64Encode(std::string_view raw);
// Invalid when `text` is not base64 (with padding).
Result<std::string> Base64Decode(std::string_view text);

// One authentication: ClientFirst, then ClientFinal.
class ScramExchange {
 public:
  // `server_nonce`: the server's part of the nonce; empty (always, but in tests) for 18 random
  // bytes, base64-encoded, as PostgreSQL makes it.
  explicit ScramExchange(ScramVerifier verifier, std::string server_nonce = "")
      : verifier_(std::move(verifier)), server_nonce_(std::move(server_nonce)) {}

  // Channel binding (SCRAM-SHA-256-PLUS) over TLS: `server_end_point` is the connection's
  // tls-server-end-point data (RFC 5929: the hash of the server's certificate), offered to the
  // client; `plus` whether the client chose the -PLUS mechanism. Call before ClientFirst.
  void OfferChannelBinding(std::string server_end_point, bool plus) {
    end_point_ = std::move(server_end_point);
    plus_ = plus;
  }

  // The client-first message ("n,,n=...,r=<nonce>"); returns the server-first message. A
  // message that does not follow the grammar is Invalid, and so is one whose channel binding
  // does not agree with what was offered: binding asked for but not offered, or the -PLUS
  // mechanism without it, or "y" (the client could bind but thinks the server cannot) when it
  // was offered: a man in the middle removed it.
  Result<std::string> ClientFirst(std::string_view message);
  // The client-final message ("c=biws,r=<nonce>,p=<proof>"); returns the server-final message
  // ("v=<signature>") when the proof shows the password, else nullopt (a wrong password);
  // Invalid when the message is malformed or does not continue this exchange (another nonce,
  // another channel-binding header, ClientFirst not called).
  Result<std::optional<std::string>> ClientFinal(std::string_view message);

 private:
  ScramVerifier verifier_;
  std::string server_nonce_;
  std::string gs2_header_;  // "n,,", "y,," or "p=tls-server-end-point,,"
  std::string end_point_;   // tls-server-end-point data offered; empty: no binding offered
  bool plus_ = false;
  std::string client_first_bare_;
  std::string server_first_;
  std::string nonce_;  // the client's and the server's, together
};

}  // namespace tributary::server
