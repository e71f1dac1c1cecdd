// tests/unit/csms/passwords_test.cpp: PBKDF2 hashing of charge point passwords and the OCPP
// length rules.
#include "csms/passwords.hpp"

#include <gtest/gtest.h>

namespace ocppgw::csms {
namespace {

constexpr char kPassword[] = "correct-horse-battery";
// Low iteration counts keep the tests fast; the algorithm is the same.
constexpr int kTestIterations = 1000;

TEST(PasswordHash, VerifiesOnlyTheRightPassword) {
  auto c = make_credential("CP-1", kPassword, kTestIterations, 42);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->charge_point_id, "CP-1");
  EXPECT_EQ(c->algorithm, "pbkdf2-sha256");
  EXPECT_EQ(c->iterations, kTestIterations);
  EXPECT_EQ(c->salt_hex.size(), 32u);
  EXPECT_EQ(c->derived_key_hex.size(), 64u);
  EXPECT_EQ(c->derived_key_hex.find(kPassword), std::string::npos);
  EXPECT_TRUE(verify_password(*c, kPassword));
  EXPECT_FALSE(verify_password(*c, "correct-horse-batterY"));
  EXPECT_FALSE(verify_password(*c, ""));
}

TEST(PasswordHash, EachCredentialHasItsOwnSalt) {
  auto a = make_credential("CP-1", kPassword, kTestIterations, 0);
  auto b = make_credential("CP-1", kPassword, kTestIterations, 0);
  ASSERT_TRUE(a && b);
  EXPECT_NE(a->salt_hex, b->salt_hex);
  EXPECT_NE(a->derived_key_hex, b->derived_key_hex);
}

TEST(PasswordHash, TamperedOrUnknownStoredValuesNeverVerify) {
  auto c = make_credential("CP-1", kPassword, kTestIterations, 0);
  ASSERT_TRUE(c);
  auto other_salt = *c;
  other_salt.salt_hex[0] = other_salt.salt_hex[0] == '0' ? '1' : '0';
  EXPECT_FALSE(verify_password(other_salt, kPassword));
  auto other_iterations = *c;
  other_iterations.iterations += 1;
  EXPECT_FALSE(verify_password(other_iterations, kPassword));
  auto other_algorithm = *c;
  other_algorithm.algorithm = "md5";
  EXPECT_FALSE(verify_password(other_algorithm, kPassword));
  auto bad_hex = *c;
  bad_hex.derived_key_hex = "zz" + c->derived_key_hex.substr(2);
  EXPECT_FALSE(verify_password(bad_hex, kPassword));
  auto short_key = *c;
  short_key.derived_key_hex.resize(62);
  EXPECT_FALSE(verify_password(short_key, kPassword));
}

TEST(PasswordHash, OcppLengthRules) {
  EXPECT_EQ(password_error(std::string(16, 'a')), "");
  EXPECT_EQ(password_error(std::string(40, 'a')), "");
  EXPECT_NE(password_error(std::string(15, 'a')), "");
  EXPECT_NE(password_error(std::string(41, 'a')), "");
  EXPECT_NE(password_error("aaaaaaaaaaaaaaa\n"), "");
}

}  // namespace
}  // namespace ocppgw::csms
