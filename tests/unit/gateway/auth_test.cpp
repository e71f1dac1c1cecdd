// tests/unit/gateway/auth_test.cpp: Basic header parsing, the authenticator
// on a real SQLite file, and a plain listener that requires HTTP Basic (security profile 1).
#include "gateway/auth.hpp"

#include <future>

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <boost/asio/thread_pool.hpp>

#include "storage/gateway_db.hpp"
#include "tests/unit/gateway/gateway_fixture.hpp"
#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::gateway {
namespace {

using csms::make_credential;

constexpr char kPassword[] = "correct-horse-battery";
// Low iteration counts keep the tests fast; the algorithm is the same.
constexpr int kTestIterations = 1000;

std::string base64(std::string_view text) {
  std::string out(4 * ((text.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}
std::string basic(std::string_view user, std::string_view password) {
  return "Basic " + base64(std::string(user) + ":" + std::string(password));
}

TEST(BasicHeader, ParsesUserAndPassword) {
  auto p = parse_basic_authorization(basic("CP-1", kPassword));
  ASSERT_TRUE(p.credentials) << p.error;
  EXPECT_EQ(p.credentials->user, "CP-1");
  EXPECT_EQ(p.credentials->password, kPassword);
  // Scheme is case-insensitive; the password may contain ':'; surrounding blanks are ignored.
  p = parse_basic_authorization("  basic   " + base64("CP-1:a:b:c") + " ");
  ASSERT_TRUE(p.credentials) << p.error;
  EXPECT_EQ(p.credentials->password, "a:b:c");
  p = parse_basic_authorization(basic("CP-1", ""));
  ASSERT_TRUE(p.credentials);
  EXPECT_EQ(p.credentials->password, "");
}

TEST(BasicHeader, RefusesMalformedHeadersWithAReason) {
  struct Case {
    std::string header;
    std::string reason_part;
  };
  const std::vector<Case> cases = {
      {"", "no Authorization header"},
      {"Bearer abc.def", "not the Basic scheme"},
      {"Basic", "not the Basic scheme"},
      {"Basic !!!!", "not valid base64"},
      {"Basic " + base64("CP-1:pw").substr(1), "not valid base64"},  // length not a multiple of 4
      {"Basic Q1AtMTpwdw=", "not valid base64"},                     // bad padding
      {"Basic Q1AtMTpwdx==", "not valid base64"},                    // non-canonical trailing bits
      {"Basic " + base64("CP-1-no-colon"), "no ':'"},
  };
  for (const auto& c : cases) {
    auto p = parse_basic_authorization(c.header);
    EXPECT_FALSE(p.credentials) << c.header;
    EXPECT_NE(p.error.find(c.reason_part), std::string::npos) << c.header << " -> " << p.error;
  }
}

TEST(BasicHeader, ErrorsNeverContainThePassword) {
  auto p = parse_basic_authorization("Basic " + base64("CP-1" + std::string(kPassword)));
  EXPECT_FALSE(p.credentials);
  EXPECT_EQ(p.error.find(kPassword), std::string::npos);
}

class AuthenticatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage::Status s;
    db_ = storage::open_gateway_db(dir_.file("g.db"), &s);
    ASSERT_TRUE(db_) << s.message();
    set_password("CP-1", kPassword);
    auth_ = BasicAuthenticator::open(dir_.file("g.db"), {}, &s);
    ASSERT_TRUE(auth_) << s.message();
  }
  void set_password(const std::string& id, std::string_view password) {
    auto c = make_credential(id, password, kTestIterations, 1);
    ASSERT_TRUE(c);
    ASSERT_TRUE(storage::ChargePointCredentialStore(*db_).upsert(*c).ok());
  }
  AuthOutcome verify(const std::string& id, const std::string& header) {
    std::promise<AuthOutcome> result;
    auth_->verify(id, header, callbacks_.get_executor(),
                  [&](AuthOutcome o) { result.set_value(std::move(o)); });
    auto f = result.get_future();
    EXPECT_EQ(f.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    return f.get();
  }

  ocppgw::testing::TempDir dir_;
  std::unique_ptr<storage::Db> db_;
  std::unique_ptr<BasicAuthenticator> auth_;
  boost::asio::thread_pool callbacks_{1};
};

TEST_F(AuthenticatorTest, AcceptsOnlyTheRightUserAndPassword) {
  EXPECT_EQ(verify("CP-1", basic("CP-1", kPassword)).result, AuthResult::Accepted);
  auto wrong = verify("CP-1", basic("CP-1", "correct-horse-batterX"));
  EXPECT_EQ(wrong.result, AuthResult::Rejected);
  EXPECT_EQ(wrong.reason, "wrong password");
  auto other_user = verify("CP-1", basic("CP-2", kPassword));
  EXPECT_EQ(other_user.result, AuthResult::Rejected);
  EXPECT_NE(other_user.reason.find("does not match"), std::string::npos);
  auto unknown = verify("CP-9", basic("CP-9", kPassword));
  EXPECT_EQ(unknown.result, AuthResult::Rejected);
  EXPECT_NE(unknown.reason.find("no password"), std::string::npos);
  auto missing = verify("CP-1", "");
  EXPECT_EQ(missing.result, AuthResult::Rejected);
  EXPECT_NE(missing.reason.find("no Authorization"), std::string::npos);
}

TEST_F(AuthenticatorTest, RepeatedSuccessIsServedFromTheCacheUntilThePasswordChanges) {
  EXPECT_EQ(verify("CP-1", basic("CP-1", kPassword)).result, AuthResult::Accepted);
  EXPECT_EQ(auth_->hash_computations(), 1u);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(verify("CP-1", basic("CP-1", kPassword)).result, AuthResult::Accepted);
  EXPECT_EQ(auth_->hash_computations(), 1u);
  EXPECT_EQ(auth_->cache_hits(), 5u);
  // Failures are never cached: each costs a hash.
  verify("CP-1", basic("CP-1", "correct-horse-batterX"));
  verify("CP-1", basic("CP-1", "correct-horse-batterX"));
  EXPECT_EQ(auth_->hash_computations(), 3u);
  // A new password takes effect at once, cache or not.
  set_password("CP-1", "a-brand-new-password");
  EXPECT_EQ(verify("CP-1", basic("CP-1", kPassword)).result, AuthResult::Rejected);
  EXPECT_EQ(verify("CP-1", basic("CP-1", "a-brand-new-password")).result, AuthResult::Accepted);
  // And a deleted one as well.
  ASSERT_TRUE(storage::ChargePointCredentialStore(*db_).remove("CP-1").ok());
  EXPECT_EQ(verify("CP-1", basic("CP-1", "a-brand-new-password")).result, AuthResult::Rejected);
}

// ---- a plain listener requiring HTTP Basic (profile 1), end to end over loopback ----

class BasicListenerTest : public AuthenticatorTest {
 protected:
  std::shared_ptr<const ListenerSecurity> security() {
    auto s = std::make_shared<ListenerSecurity>();
    s->basic_auth = auth_.get();
    return s;
  }
};

TEST_F(BasicListenerTest, UpgradesOnlyWithTheChargePointsPassword) {
  testing::Gateway gw(testing::test_config(), true, security());
  boost::beast::http::response<boost::beast::http::string_body> res;
  EXPECT_EQ(testing::upgrade_status(gw.port(), "/ocpp/CP-1", "ocpp1.6", basic("CP-1", kPassword)),
            101);
  for (const auto& header : {std::string(), basic("CP-1", "correct-horse-batterX"),
                             basic("CP-2", kPassword), std::string("Basic !!!!")}) {
    EXPECT_EQ(testing::upgrade_status(gw.port(), "/ocpp/CP-1", "ocpp1.6", header, &res), 401)
        << header;
    EXPECT_EQ(res[boost::beast::http::field::www_authenticate], "Basic realm=\"ocppgw\"");
  }
  // Unknown charge point: the same 401 as a wrong password (the body tells nothing apart).
  EXPECT_EQ(testing::upgrade_status(gw.port(), "/ocpp/CP-9", "ocpp1.6", basic("CP-9", kPassword)),
            401);
  // Authenticated sessions work as ever.
  testing::Client cp(gw.port(), "/ocpp/CP-1", "ocpp1.6", basic("CP-1", kPassword));
  cp.send(testing::call("1", "Heartbeat", nlohmann::json::object()));
  auto reply = cp.receive_json();
  EXPECT_EQ(reply[0], 3);
  EXPECT_EQ(reply[1], "1");
}

TEST_F(BasicListenerTest, ListenersWithoutBasicIgnoreCredentials) {
  testing::Gateway gw;  // no security: profile 0, as before
  EXPECT_EQ(testing::upgrade_status(gw.port(), "/ocpp/CP-9", "ocpp1.6"), 101);
}

}  // namespace
}  // namespace ocppgw::gateway
