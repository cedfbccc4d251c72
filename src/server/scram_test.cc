// SCRAM-SHA-256 (server/scram.h) against RFC 7677's example exchange, made by another
// implementation: the same salt, iterations and nonces must give the same server messages.
#include "server/scram.h"

#include <gtest/gtest.h>

#include <string>

namespace tributary::server {
namespace {

// RFC 7677, section 3: user "user", password "pencil" (the figures agree with Python's hashlib
// and hmac computing the same exchange).
constexpr const char* kClientFirst = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
constexpr const char* kServerNonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
constexpr const char* kServerFirst =
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
constexpr const char* kClientFinal =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
    "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
constexpr const char* kServerFinal = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

ScramVerifier PencilVerifier() {
  auto salt = Base64Decode("W22ZaJ0SNY7soEsUEjb6gQ==");
  EXPECT_TRUE(salt.ok());
  auto v = MakeScramVerifierWithSalt("pencil", *salt, 4096);
  EXPECT_TRUE(v.ok()) << v.status().ToString();
  return *v;
}

TEST(ScramTest, AnswersRfc7677sExchange) {
  ScramExchange exchange(PencilVerifier(), kServerNonce);
  auto first = exchange.ClientFirst(kClientFirst);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(*first, kServerFirst);
  auto final_message = exchange.ClientFinal(kClientFinal);
  ASSERT_TRUE(final_message.ok()) << final_message.status().ToString();
  ASSERT_TRUE(final_message->has_value()) << "the right password was refused";
  EXPECT_EQ(**final_message, kServerFinal);
}

TEST(ScramTest, RefusesAnotherPassword) {
  auto salt = Base64Decode("W22ZaJ0SNY7soEsUEjb6gQ==");
  auto other = MakeScramVerifierWithSalt("pencil2", *salt, 4096);
  ASSERT_TRUE(other.ok());
  ScramExchange exchange(*other, kServerNonce);
  ASSERT_TRUE(exchange.ClientFirst(kClientFirst).ok());
  auto final_message = exchange.ClientFinal(kClientFinal);
  ASSERT_TRUE(final_message.ok()) << final_message.status().ToString();
  EXPECT_FALSE(final_message->has_value());
}

TEST(ScramTest, RefusesMalformedOrReplayedMessages) {
  {  // the nonce of another exchange
    ScramExchange exchange(PencilVerifier(), "another-server-nonce");
    ASSERT_TRUE(exchange.ClientFirst(kClientFirst).ok());
    EXPECT_FALSE(exchange.ClientFinal(kClientFinal).ok());
  }
  {  // the final message before the first
    ScramExchange exchange(PencilVerifier(), kServerNonce);
    EXPECT_FALSE(exchange.ClientFinal(kClientFinal).ok());
  }
  for (const char* bad : {"", "n,", "p=tls-server-end-point,,n=,r=abc", "n,a=someone,n=,r=abc",
                          "n,,r=abc", "n,,n=,r=", "n,,n=,r=a,b", "x,,n=,r=abc"}) {
    ScramExchange exchange(PencilVerifier(), kServerNonce);
    EXPECT_FALSE(exchange.ClientFirst(bad).ok()) << bad;
  }
  ScramExchange exchange(PencilVerifier(), kServerNonce);
  ASSERT_TRUE(exchange.ClientFirst(kClientFirst).ok());
  for (const char* bad :
       {"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0",         // no proof
        "c=eSws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=AAAA",  // other header
        "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzb"}) {
    EXPECT_FALSE(exchange.ClientFinal(bad).ok()) << bad;
  }
}

TEST(ScramTest, VerifierTextRoundTripsAndBadOnesAreNamed) {
  const ScramVerifier v = PencilVerifier();
  const std::string text = FormatScramVerifier(v);
  EXPECT_EQ(text.rfind("SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$", 0), 0u) << text;
  auto back = ParseScramVerifier(text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->stored_key, v.stored_key);
  EXPECT_EQ(back->server_key, v.server_key);
  EXPECT_EQ(back->salt, v.salt);
  for (const char* bad : {"pencil", "SCRAM-SHA-256$x:c2FsdA==$AAAA:AAAA",
                          "SCRAM-SHA-256$4096:c2FsdA==$AAAA:AAAA", "SCRAM-SHA-256$4096:$a:b"}) {
    auto r = ParseScramVerifier(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("SCRAM-SHA-256 verifier"), std::string::npos);
  }
  EXPECT_FALSE(MakeScramVerifier("").ok());
  EXPECT_FALSE(MakeScramVerifier("p\xc3\xa4ss").ok());  // would need SASLprep
  auto fresh = MakeScramVerifier("pencil");
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(fresh->salt.size(), 16u);
  EXPECT_NE(fresh->salt, v.salt);
}

TEST(ScramTest, Base64MatchesTheRfcAlphabetAndRefusesOtherText) {
  EXPECT_EQ(Base64Encode("n,,"), "biws");
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("ab"), "YWI=");
  EXPECT_EQ(*Base64Decode("YWI="), "ab");
  EXPECT_EQ(*Base64Decode("YQ=="), "a");
  EXPECT_FALSE(Base64Decode("YWI").ok());
  EXPECT_FALSE(Base64Decode("Y!I=").ok());
}

}  // namespace
}  // namespace tributary::server
