// tests/unit/gateway/auth_test.cpp: Basic header parsing, the authenticator
// on a real SQLite file, and a plain listener that requires HTTP Basic (security profile 1).
#include "gateway/auth.hpp"

#include <algorithm>
#include <atomic>
#include <future>
#include <iostream>
#include <thread>

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

// Options for tests: the dummy hash of unknown ids as cheap as the test passwords.
BasicAuthenticator::Options test_options() {
  BasicAuthenticator::Options o;
  o.unknown_id_iterations = kTestIterations;
  return o;
}

class AuthenticatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage::Status s;
    db_ = storage::open_gateway_db(dir_.file("g.db"), &s);
    ASSERT_TRUE(db_) << s.message();
    set_password("CP-1", kPassword);
    reopen(test_options());
  }
  void reopen(const BasicAuthenticator::Options& options) {
    if (auth_) auth_->stop();
    storage::Status s;
    auth_ = BasicAuthenticator::open(dir_.file("g.db"), options, &s);
    ASSERT_TRUE(auth_) << s.message();
  }
  void set_password(const std::string& id, std::string_view password,
                    int iterations = kTestIterations) {
    auto c = make_credential(id, password, iterations, 1);
    ASSERT_TRUE(c);
    ASSERT_TRUE(storage::ChargePointCredentialStore(*db_).upsert(*c).ok());
  }
  AuthOutcome verify(const std::string& id, const std::string& header,
                     const std::string& address = "192.0.2.1") {
    std::promise<AuthOutcome> result;
    auth_->verify(id, header, address, callbacks_.get_executor(),
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

// ---- cost control: unknown ids, backoff, queue limits ----

TEST(PasswordWorkers, HalfTheIoThreadsButTwoOnAMultiCoreMachine) {
  EXPECT_EQ(BasicAuthenticator::default_threads(1, 1), 1);
  EXPECT_EQ(BasicAuthenticator::default_threads(2, 1), 1);
  EXPECT_EQ(BasicAuthenticator::default_threads(2, 2), 2);
  EXPECT_EQ(BasicAuthenticator::default_threads(1, 8), 2);
  EXPECT_EQ(BasicAuthenticator::default_threads(8, 8), 4);
}

TEST_F(AuthenticatorTest, AnUnknownIdCostsAHashLikeAWrongPassword) {
  auto unknown = verify("CP-9", basic("CP-9", kPassword));
  EXPECT_EQ(unknown.result, AuthResult::Rejected);
  EXPECT_EQ(auth_->hash_computations(), 1u);
  auto wrong = verify("CP-1", basic("CP-1", "correct-horse-batterX"));
  EXPECT_EQ(wrong.result, AuthResult::Rejected);
  EXPECT_EQ(auth_->hash_computations(), 2u);
  // The dummy hash is never a way in, not even with the password it was made of.
  EXPECT_EQ(verify("CP-9", basic("CP-9", "no charge point has this password")).result,
            AuthResult::Rejected);
}

TEST_F(AuthenticatorTest, UnknownAndWrongTakeTheSameTimeAtTheRealCost) {
  set_password("CP-T", kPassword, csms::kDefaultPasswordIterations);
  auto options = BasicAuthenticator::Options{};  // the production dummy cost
  options.max_failures_per_id = options.max_failures_per_address = 1000;
  reopen(options);
  auto time = [&](const std::string& id) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(verify(id, basic(id, "correct-horse-batterX")).result, AuthResult::Rejected);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  };
  std::vector<double> unknown, wrong;
  for (int i = 0; i < 5; ++i) {
    unknown.push_back(time("CP-UNKNOWN"));
    wrong.push_back(time("CP-T"));
  }
  EXPECT_EQ(auth_->hash_computations(), 10u);
  std::sort(unknown.begin(), unknown.end());
  std::sort(wrong.begin(), wrong.end());
  std::cout << "median refusal: unknown id " << unknown[2] << " ms, known id with a wrong password "
            << wrong[2] << " ms\n";
  // Same work on the same pool; before the dummy hash the unknown id took 3% of the time.
  EXPECT_GT(unknown[2], 0.3 * wrong[2]);
}

TEST_F(AuthenticatorTest, FailuresBackOffExponentiallyAndASuccessResets) {
  using std::chrono::milliseconds;
  auto options = test_options();
  options.max_failures_per_id = 3;
  options.backoff_initial = milliseconds(400);
  options.backoff_max = milliseconds(1600);
  reopen(options);
  const std::string wrong = basic("CP-1", "correct-horse-batterX");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(verify("CP-1", wrong).reason, "wrong password");
  EXPECT_EQ(auth_->hash_computations(), 3u);
  // Blocked: refused at once, without a hash, even with the right password.
  auto blocked = verify("CP-1", basic("CP-1", kPassword));
  EXPECT_EQ(blocked.result, AuthResult::Rejected);
  EXPECT_EQ(blocked.reason, "too many failed logins, retry after 1 s");
  EXPECT_EQ(blocked.retry_after, std::chrono::seconds(1));
  EXPECT_EQ(auth_->hash_computations(), 3u);
  EXPECT_EQ(auth_->throttled(), 1u);

  // After the block, one more failure blocks again for twice as long (800 ms).
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_EQ(verify("CP-1", wrong).reason, "wrong password");
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_NE(verify("CP-1", basic("CP-1", kPassword)).reason.find("too many failed logins"),
            std::string::npos);
  std::this_thread::sleep_for(milliseconds(400));
  EXPECT_EQ(verify("CP-1", basic("CP-1", kPassword)).result, AuthResult::Accepted);
  EXPECT_EQ(auth_->hash_computations(), 5u);

  // The success reset the count: two failures do not block, the third does.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(verify("CP-1", wrong).reason, "wrong password");
  EXPECT_EQ(verify("CP-1", wrong).retry_after, std::chrono::seconds(1));
  EXPECT_EQ(auth_->hash_computations(), 8u);
}

TEST_F(AuthenticatorTest, ARecentlyVerifiedPasswordIsNotLockedOutBySomeoneGuessingIt) {
  auto options = test_options();
  options.max_failures_per_id = 2;
  reopen(options);
  EXPECT_EQ(verify("CP-1", basic("CP-1", kPassword)).result, AuthResult::Accepted);
  for (int i = 0; i < 2; ++i)
    verify("CP-1", basic("CP-1", "guess-" + std::to_string(i)), "203.0.113.9");
  EXPECT_EQ(verify("CP-1", basic("CP-1", "guess-x"), "203.0.113.9").retry_after.count(), 1);
  EXPECT_EQ(verify("CP-1", basic("CP-1", kPassword)).result, AuthResult::Accepted);
}

TEST_F(AuthenticatorTest, FailuresFromOneAddressBlockEveryIdFromIt) {
  auto options = test_options();
  options.max_failures_per_address = 4;
  reopen(options);
  // Unknown ids count like known ones.
  for (int i = 0; i < 4; ++i) {
    const std::string id = "CP-X" + std::to_string(i);
    EXPECT_EQ(verify(id, basic(id, kPassword), "198.51.100.7").result, AuthResult::Rejected);
  }
  EXPECT_NE(verify("CP-1", basic("CP-1", kPassword), "198.51.100.7").reason.find("too many"),
            std::string::npos);
  EXPECT_EQ(verify("CP-1", basic("CP-1", kPassword), "198.51.100.8").result, AuthResult::Accepted);
}

TEST(FailedLoginTracker, KeepsAtMostItsCapacityEvictingTheLeastRecentlyFailed) {
  FailedLoginTracker t({.max_failures = 1,
                        .window = std::chrono::seconds(60),
                        .backoff_initial = std::chrono::seconds(10),
                        .backoff_max = std::chrono::seconds(10),
                        .capacity = 3});
  const auto now = FailedLoginTracker::Clock::now();
  for (const char* key : {"a", "b", "c"}) t.failed(key, now);
  t.failed("a", now);  // a is now the most recent
  t.failed("d", now);  // evicts b
  EXPECT_EQ(t.size(), 3u);
  EXPECT_GT(t.blocked_for("a", now).count(), 0);
  EXPECT_EQ(t.blocked_for("b", now).count(), 0);
  EXPECT_GT(t.blocked_for("c", now).count(), 0);
  EXPECT_GT(t.blocked_for("d", now).count(), 0);
  t.succeeded("a");
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.blocked_for("a", now).count(), 0);
}

// An attacker queues hundreds of wrong passwords at once; a charge point logging in for the
// first time (nothing cached) must not wait for them. One worker: the worst case.
class LoginUnderAttackTest : public AuthenticatorTest {
 protected:
  struct Tally {
    std::atomic<int> done{0}, unavailable{0}, rejected{0};
  };
  void attack(int attempts, const std::function<std::string(int)>& id_of,
              const std::string& address, Tally& tally) {
    for (int i = 0; i < attempts; ++i) {
      const std::string id = id_of(i);
      auth_->verify(id, basic(id, "guess-" + std::to_string(i)), address, callbacks_.get_executor(),
                    [&tally](AuthOutcome o) {
                      ++(o.result == AuthResult::Unavailable ? tally.unavailable : tally.rejected);
                      ++tally.done;
                    });
    }
  }
  // Logs CP-1 in from a clean address; returns how many hashes ran between its submission and
  // its outcome (its own included).
  uint64_t legitimate_login(double* elapsed_ms) {
    std::promise<std::pair<AuthOutcome, uint64_t>> result;
    const uint64_t before = auth_->hash_computations();
    const auto start = std::chrono::steady_clock::now();
    auth_->verify("CP-1", basic("CP-1", kPassword), "192.0.2.50", callbacks_.get_executor(),
                  [&](AuthOutcome o) {
                    result.set_value({o, auth_->hash_computations()});
                  });
    auto f = result.get_future();
    EXPECT_EQ(f.wait_for(std::chrono::seconds(30)), std::future_status::ready);
    const auto [outcome, after] = f.get();
    *elapsed_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(outcome.result, AuthResult::Accepted) << outcome.reason;
    return after - before;
  }
  void wait_for(const Tally& tally, int attempts) {
    for (int i = 0; i < 3000 && tally.done < attempts; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(tally.done, attempts);
  }
};

TEST_F(LoginUnderAttackTest, HammeringOneIdDoesNotDelayAnotherIdsFirstLogin) {
  // The victim's hash costs what a real one does, so a queue of them would take seconds.
  set_password("CP-VICTIM", "the-victims-password", csms::kDefaultPasswordIterations);
  auto options = test_options();
  options.threads = 1;
  reopen(options);
  constexpr int kAttempts = 400;
  Tally tally;
  attack(
      kAttempts, [](int) { return std::string("CP-VICTIM"); }, "203.0.113.9", tally);
  double elapsed_ms = 0;
  const uint64_t hashes = legitimate_login(&elapsed_ms);
  std::cout << "first login behind " << kAttempts << " queued guesses: " << elapsed_ms << " ms, "
            << hashes << " hashes\n";
  // At most the victim's two queue places were ahead of it.
  EXPECT_LE(hashes, options.max_pending_per_id + 1);
  EXPECT_LT(elapsed_ms, 2000);
  wait_for(tally, kAttempts);
  // Nearly every guess was refused at once (503 for a full per-id queue, then the backoff).
  EXPECT_LE(auth_->hash_computations(), 12u);
  EXPECT_GE(tally.unavailable, kAttempts / 2);
}

TEST_F(LoginUnderAttackTest, SprayingIdsFromOneAddressDoesNotFillTheQueue) {
  auto options = test_options();
  options.threads = 1;
  // Each guess costs a hash of ~25 ms, as real ones cost far more than the test's cheap ones:
  // otherwise a worker that keeps up with the submitting loop (a fast machine, or a slow
  // loop under a sanitizer) drains the queue before the address's limit is reached, and the
  // test would measure scheduling instead of the limit.
  options.unknown_id_iterations = 50 * kTestIterations;
  reopen(options);
  constexpr int kAttempts = 400;
  Tally tally;
  attack(
      kAttempts, [](int i) { return "CP-GUESS-" + std::to_string(i); }, "203.0.113.9", tally);
  double elapsed_ms = 0;
  EXPECT_LE(legitimate_login(&elapsed_ms), options.max_pending_per_address + 1);
  wait_for(tally, kAttempts);
  EXPECT_GE(tally.unavailable, kAttempts / 2);
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

TEST_F(BasicListenerTest, ABlockedIdIsToldWhenToRetry) {
  auto options = test_options();
  options.max_failures_per_id = 2;
  reopen(options);
  testing::Gateway gw(testing::test_config(), true, security());
  boost::beast::http::response<boost::beast::http::string_body> res;
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(testing::upgrade_status(gw.port(), "/ocpp/CP-1", "ocpp1.6",
                                      basic("CP-1", "correct-horse-batterX"), &res),
              401);
    EXPECT_EQ(res.count(boost::beast::http::field::retry_after), 0u);
  }
  EXPECT_EQ(
      testing::upgrade_status(gw.port(), "/ocpp/CP-1", "ocpp1.6", basic("CP-1", kPassword), &res),
      401);
  EXPECT_EQ(res[boost::beast::http::field::retry_after], "1");
}

TEST_F(BasicListenerTest, ListenersWithoutBasicIgnoreCredentials) {
  testing::Gateway gw;  // no security: profile 0, as before
  EXPECT_EQ(testing::upgrade_status(gw.port(), "/ocpp/CP-9", "ocpp1.6"), 101);
}

}  // namespace
}  // namespace ocppgw::gateway
