#include "server/scram.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <cctype>
#include <charconv>
#include <optional>
#include <string>
#include <vector>

namespace tributary::server {

namespace {

constexpr const char* kPrefix = "SCRAM-SHA-256$";
constexpr size_t kKeySize = 32;  // SHA-256
constexpr int kMaxIterations = 10000000;

std::string Hmac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string Sha256(std::string_view data) {
  unsigned char out[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out);
  return std::string(reinterpret_cast<const char*>(out), sizeof(out));
}

Result<std::string> RandomBytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    return Status::Internal("scram: no random bytes from OpenSSL");
  }
  return out;
}

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// The attributes of a SCRAM message, in order: "a=value" separated by commas.
Result<std::vector<std::pair<char, std::string_view>>> Attributes(std::string_view message) {
  std::vector<std::pair<char, std::string_view>> out;
  size_t at = 0;
  while (at <= message.size()) {
    size_t comma = message.find(',', at);
    if (comma == std::string_view::npos) comma = message.size();
    const std::string_view part = message.substr(at, comma - at);
    if (part.size() < 2 || part[1] != '=' || !std::isalpha(static_cast<unsigned char>(part[0]))) {
      return Status::Invalid("scram: malformed attribute '" + std::string(part) + "'");
    }
    out.emplace_back(part[0], part.substr(2));
    at = comma + 1;
  }
  return out;
}

bool PrintableNonce(std::string_view nonce) {
  if (nonce.empty()) return false;
  for (char c : nonce) {
    if (c < 0x21 || c > 0x7e || c == ',') return false;
  }
  return true;
}

}  // namespace

std::string Base64Encode(std::string_view raw) {
  std::string out(4 * ((raw.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(raw.data()),
                                static_cast<int>(raw.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return Status::Invalid("not base64 (length not a multiple of 4)");
  size_t pad = 0;
  while (pad < 2 && pad < text.size() && text[text.size() - 1 - pad] == '=') pad++;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t acc = 0;
  for (size_t i = 0; i < text.size(); i++) {
    int v = 0;
    if (i < text.size() - pad) {
      v = Base64Value(text[i]);
      if (v < 0) return Status::Invalid("not base64 (character " + std::to_string(i + 1) + ")");
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    if (i % 4 == 3) {
      out.push_back(static_cast<char>((acc >> 16) & 0xff));
      out.push_back(static_cast<char>((acc >> 8) & 0xff));
      out.push_back(static_cast<char>(acc & 0xff));
      acc = 0;
    }
  }
  out.resize(out.size() - pad);
  return out;
}

Result<ScramVerifier> MakeScramVerifierWithSalt(std::string_view password, std::string_view salt,
                                                int iterations) {
  for (char c : password) {
    if (c < 0x20 || c > 0x7e) {
      return Status::Invalid(
          "the password holds a character that is not printable ASCII: clients normalize such "
          "passwords with SASLprep, which is not supported yet (give a verifier made by "
          "PostgreSQL instead: SCRAM-SHA-256$...)");
    }
  }
  if (password.empty()) return Status::Invalid("the password is empty");
  if (iterations < 1 || iterations > kMaxIterations) {
    return Status::Invalid("scram: iteration count " + std::to_string(iterations) +
                           " out of range 1.." + std::to_string(kMaxIterations));
  }
  unsigned char salted[kKeySize];
  if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                        reinterpret_cast<const unsigned char*>(salt.data()),
                        static_cast<int>(salt.size()), iterations, EVP_sha256(), kKeySize,
                        salted) != 1) {
    return Status::Internal("scram: PBKDF2 failed");
  }
  const std::string_view salted_password(reinterpret_cast<const char*>(salted), kKeySize);
  ScramVerifier v;
  v.iterations = iterations;
  v.salt = std::string(salt);
  v.stored_key = Sha256(Hmac(salted_password, "Client Key"));
  v.server_key = Hmac(salted_password, "Server Key");
  OPENSSL_cleanse(salted, sizeof(salted));
  return v;
}

Result<ScramVerifier> MakeScramVerifier(std::string_view password, int iterations) {
  TRIB_ASSIGN_OR_RETURN(std::string salt, RandomBytes(16));
  return MakeScramVerifierWithSalt(password, salt, iterations);
}

Result<ScramVerifier> ParseScramVerifier(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return Status::Invalid("not a SCRAM-SHA-256 verifier (" + why +
                           "): expected SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>");
  };
  const std::string_view prefix = kPrefix;
  if (text.substr(0, prefix.size()) != prefix) return bad("no SCRAM-SHA-256$ prefix");
  text.remove_prefix(prefix.size());
  const size_t dollar = text.find('$');
  if (dollar == std::string_view::npos) return bad("no '$' before the keys");
  const std::string_view head = text.substr(0, dollar), keys = text.substr(dollar + 1);
  const size_t c1 = head.find(':'), c2 = keys.find(':');
  if (c1 == std::string_view::npos || c2 == std::string_view::npos) return bad("missing ':'");
  ScramVerifier v;
  const std::string_view iter = head.substr(0, c1);
  auto [end, ec] = std::from_chars(iter.data(), iter.data() + iter.size(), v.iterations);
  if (ec != std::errc() || end != iter.data() + iter.size() || v.iterations < 1 ||
      v.iterations > kMaxIterations) {
    return bad("iteration count '" + std::string(iter) + "'");
  }
  auto salt = Base64Decode(head.substr(c1 + 1));
  auto stored = Base64Decode(keys.substr(0, c2));
  auto server = Base64Decode(keys.substr(c2 + 1));
  if (!salt.ok() || salt->empty()) return bad("the salt is not base64");
  if (!stored.ok() || stored->size() != kKeySize) return bad("StoredKey is not 32 bytes of base64");
  if (!server.ok() || server->size() != kKeySize) return bad("ServerKey is not 32 bytes of base64");
  v.salt = std::move(*salt);
  v.stored_key = std::move(*stored);
  v.server_key = std::move(*server);
  return v;
}

std::string FormatScramVerifier(const ScramVerifier& v) {
  return std::string(kPrefix) + std::to_string(v.iterations) + ":" + Base64Encode(v.salt) + "$" +
         Base64Encode(v.stored_key) + ":" + Base64Encode(v.server_key);
}

Result<std::string> ScramExchange::ClientFirst(std::string_view message) {
  // gs2-header: "n,," (no channel binding), "y,," (the client could bind but thinks the server
  // cannot) or "p=tls-server-end-point,," (binding to the TLS connection's certificate).
  const size_t first = message.find(',');
  const size_t second = first == std::string_view::npos ? first : message.find(',', first + 1);
  if (second == std::string_view::npos) {
    return Status::Invalid("scram: malformed client-first message");
  }
  if (second != first + 1) {
    return Status::Invalid("scram: an authorization identity is not supported");
  }
  const std::string_view flag = message.substr(0, first);
  if (flag == "p=tls-server-end-point") {
    if (end_point_.empty() || !plus_) {
      return Status::Invalid("scram: channel binding was asked for, but SCRAM-SHA-256-PLUS was " +
                             std::string(end_point_.empty() ? "not offered" : "not chosen"));
    }
  } else if (flag.substr(0, 2) == "p=") {
    return Status::Invalid("scram: channel binding type '" + std::string(flag.substr(2)) +
                           "' is not supported (tls-server-end-point is)");
  } else if (flag == "n" || flag == "y") {
    if (plus_) {
      return Status::Invalid("scram: SCRAM-SHA-256-PLUS was chosen without channel binding");
    }
    if (flag == "y" && !end_point_.empty()) {
      return Status::Invalid(
          "scram: the client supports channel binding and thinks the server "
          "does not, but it was offered (a downgrade)");
    }
  } else {
    return Status::Invalid("scram: malformed client-first message");
  }
  gs2_header_ = std::string(message.substr(0, second + 1));
  client_first_bare_ = std::string(message.substr(second + 1));
  TRIB_ASSIGN_OR_RETURN(auto attrs, Attributes(client_first_bare_));
  if (attrs.size() < 2 || attrs[0].first != 'n' || attrs[1].first != 'r') {
    return Status::Invalid("scram: the client-first message needs n= then r=");
  }
  const std::string_view client_nonce = attrs[1].second;
  if (!PrintableNonce(client_nonce)) return Status::Invalid("scram: malformed client nonce");
  if (server_nonce_.empty()) {
    TRIB_ASSIGN_OR_RETURN(std::string raw, RandomBytes(18));
    server_nonce_ = Base64Encode(raw);
  }
  nonce_ = std::string(client_nonce) + server_nonce_;
  server_first_ = "r=" + nonce_ + ",s=" + Base64Encode(verifier_.salt) +
                  ",i=" + std::to_string(verifier_.iterations);
  return server_first_;
}

Result<std::optional<std::string>> ScramExchange::ClientFinal(std::string_view message) {
  if (server_first_.empty()) return Status::Invalid("scram: client-final message out of order");
  const size_t proof_at = message.rfind(",p=");
  if (proof_at == std::string_view::npos) {
    return Status::Invalid("scram: the client-final message has no proof");
  }
  const std::string_view without_proof = message.substr(0, proof_at);
  TRIB_ASSIGN_OR_RETURN(auto attrs, Attributes(without_proof));
  if (attrs.size() < 2 || attrs[0].first != 'c' || attrs[1].first != 'r') {
    return Status::Invalid("scram: the client-final message needs c= then r=");
  }
  auto binding = Base64Decode(attrs[0].second);
  const bool bound = gs2_header_[0] == 'p';
  if (!binding.ok() || *binding != gs2_header_ + (bound ? end_point_ : std::string())) {
    return Status::Invalid("scram: the channel binding does not match the client-first message");
  }
  if (attrs[1].second != nonce_) return Status::Invalid("scram: the nonce does not match");
  auto proof = Base64Decode(message.substr(proof_at + 3));
  if (!proof.ok() || proof->size() != kKeySize) {
    return Status::Invalid("scram: the proof is not 32 bytes of base64");
  }
  const std::string auth_message =
      client_first_bare_ + "," + server_first_ + "," + std::string(without_proof);
  const std::string client_signature = Hmac(verifier_.stored_key, auth_message);
  std::string client_key(kKeySize, '\0');
  for (size_t i = 0; i < kKeySize; i++) client_key[i] = (*proof)[i] ^ client_signature[i];
  const std::string stored = Sha256(client_key);
  if (CRYPTO_memcmp(stored.data(), verifier_.stored_key.data(), kKeySize) != 0) {
    return std::optional<std::string>();
  }
  return std::optional<std::string>("v=" + Base64Encode(Hmac(verifier_.server_key, auth_message)));
}

}  // namespace tributary::server
