// tests/unit/csms/operators_test.cpp: the operator service on a real SQLite file: accounts and
// the password policy, login and sessions (only a hash of the token stored, expiry told apart
// from an unknown token, logout), the login backoff per name and per address (refusals cost no
// PBKDF2), password changes and removal ending sessions, the last admin kept, audit paging, and
// the first admin from the environment.
#include "csms/operators.hpp"

#include <gtest/gtest.h>

#include "storage/gateway_db.hpp"
#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::csms {
namespace {

constexpr char kPassword[] = "correct horse battery";
constexpr int64_t kTtl = 3600 * 1000;

class OperatorsTest : public ::testing::Test {
 protected:
  void SetUp() override { reopen(); }
  void reopen() {
    operators_.reset();
    Operators::Options options;
    options.iterations = 1000;  // fast; the algorithm is the same
    options.session_ttl_ms = kTtl;
    options.now_ms = [this] { return clock_; };
    util::Status s;
    operators_ = Operators::open(dir_.file("g.db"), options, &s);
    ASSERT_TRUE(operators_) << s.message();
  }
  OperatorSession login_ok(const std::string& name, const std::string& password = kPassword,
                           const std::string& address = "10.0.0.1") {
    auto outcome = operators_->login(name, password, address);
    EXPECT_EQ(outcome.result, LoginResult::Ok) << outcome.error;
    return outcome.session.value_or(OperatorSession{});
  }
  LoginResult attempt(const std::string& name, const std::string& password,
                      const std::string& address = "10.0.0.1") {
    return operators_->login(name, password, address).result;
  }
  void add(const std::string& name, OperatorRole role) {
    const auto c = operators_->add(name, role, kPassword);
    ASSERT_TRUE(c.ok()) << c.message;
  }
  int64_t clock_ = 1'700'000'000'000;
  testing::TempDir dir_;
  std::unique_ptr<Operators> operators_;
};

TEST_F(OperatorsTest, LoginAuthenticateLogout) {
  add("alice", OperatorRole::Operator);
  const auto session = login_ok("alice");
  EXPECT_EQ(session.token.size(), 64u);
  EXPECT_EQ(session.csrf_token.size(), 64u);
  EXPECT_NE(session.token, session.csrf_token);
  EXPECT_EQ(session.expires_ms, clock_ + kTtl);
  EXPECT_EQ(session.name, "alice");
  EXPECT_EQ(session.role, OperatorRole::Operator);

  auto check = operators_->authenticate(session.token);
  EXPECT_EQ(check.state, SessionState::Valid);
  EXPECT_EQ(check.name, "alice");
  EXPECT_EQ(check.role, OperatorRole::Operator);
  EXPECT_EQ(check.csrf_token, session.csrf_token);

  bool found = false;
  ASSERT_TRUE(operators_->logout(session.token, &found).ok());
  EXPECT_TRUE(found);
  EXPECT_EQ(operators_->authenticate(session.token).state, SessionState::Unknown);
  EXPECT_EQ(operators_->authenticate("not-a-token").state, SessionState::Unknown);
}

TEST_F(OperatorsTest, TheDatabaseHoldsNeitherTokenNorPassword) {
  add("alice", OperatorRole::Viewer);
  const auto session = login_ok("alice");
  util::Status s;
  auto db = storage::open_gateway_db(dir_.file("g.db"), &s);
  ASSERT_TRUE(db) << s.message();
  const auto rows = db->query_all(
      "SELECT token_sha256 || ' ' || csrf_token FROM operator_sessions",
      [](const storage::Statement& st) { return st.text(0); }, &s);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].find(session.token), std::string::npos);
  const auto hashes = db->query_all(
      "SELECT salt_hex || derived_key_hex FROM operators",
      [](const storage::Statement& st) { return st.text(0); }, &s);
  ASSERT_EQ(hashes.size(), 1u);
  EXPECT_EQ(hashes[0].find(kPassword), std::string::npos);
}

TEST_F(OperatorsTest, WrongPasswordAndUnknownNameAreRejectedAlike) {
  add("alice", OperatorRole::Viewer);
  const auto wrong = operators_->login("alice", "not the password", "");
  const auto unknown = operators_->login("mallory", kPassword, "");
  EXPECT_EQ(wrong.result, LoginResult::Rejected);
  EXPECT_EQ(unknown.result, LoginResult::Rejected);
  EXPECT_FALSE(wrong.session);
  // Both cost a PBKDF2, so timing does not tell which names exist.
  EXPECT_EQ(operators_->hash_computations(), 2u);
}

TEST_F(OperatorsTest, ANameNoOperatorCanHaveIsRefusedWithoutHashingButCountsForTheAddress) {
  add("alice", OperatorRole::Viewer);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(attempt(std::string(100000, 'x'), kPassword, "192.0.2.9"), LoginResult::Rejected);
  EXPECT_EQ(operators_->hash_computations(), 0u);
  EXPECT_EQ(attempt("alice", kPassword, "192.0.2.9"), LoginResult::Throttled);
}

TEST_F(OperatorsTest, ExpiredSessionsAreToldApartThenPurged) {
  add("alice", OperatorRole::Viewer);
  const auto session = login_ok("alice");
  clock_ += kTtl - 1;
  EXPECT_EQ(operators_->authenticate(session.token).state, SessionState::Valid);
  clock_ += 1;
  const auto expired = operators_->authenticate(session.token);
  EXPECT_EQ(expired.state, SessionState::Expired);
  EXPECT_EQ(expired.name, "alice");
  // A week later the next login purges the expired row.
  clock_ += 8LL * 24 * 3600 * 1000;
  login_ok("alice");
  EXPECT_EQ(operators_->authenticate(session.token).state, SessionState::Unknown);
}

TEST_F(OperatorsTest, FiveFailuresInARowThrottleTheNameWithoutHashing) {
  add("alice", OperatorRole::Viewer);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(attempt("alice", "guess" + std::to_string(i)), LoginResult::Rejected);
  const auto hashed = operators_->hash_computations();
  auto throttled = operators_->login("alice", kPassword, "10.0.0.2");  // even the right one
  EXPECT_EQ(throttled.result, LoginResult::Throttled);
  EXPECT_EQ(throttled.retry_after_ms, 1000);
  EXPECT_EQ(operators_->hash_computations(), hashed);
  // Once the second is over, the right password gets in and clears the count.
  clock_ += 1000;
  login_ok("alice");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(attempt("alice", "guess"), LoginResult::Rejected);
  EXPECT_EQ(attempt("alice", kPassword), LoginResult::Ok);
}

TEST_F(OperatorsTest, TheBackoffDoublesUpToAMinute) {
  add("alice", OperatorRole::Viewer);
  for (int i = 0; i < 5; ++i) attempt("alice", "guess");
  int64_t expected = 1000;
  for (int round = 0; round < 8; ++round) {
    const auto t = operators_->login("alice", "guess", "");
    ASSERT_EQ(t.result, LoginResult::Throttled);
    EXPECT_EQ(t.retry_after_ms, expected) << "round " << round;
    clock_ += t.retry_after_ms;
    EXPECT_EQ(attempt("alice", "guess"), LoginResult::Rejected);
    expected = std::min<int64_t>(expected * 2, 60000);
  }
  EXPECT_EQ(expected, 60000);
}

TEST_F(OperatorsTest, FailuresFromOneAddressThrottleThatAddressForEveryName) {
  add("alice", OperatorRole::Viewer);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(attempt("user" + std::to_string(i), "guess", "192.0.2.7"), LoginResult::Rejected);
  EXPECT_EQ(attempt("alice", kPassword, "192.0.2.7"), LoginResult::Throttled);
  EXPECT_EQ(attempt("alice", kPassword, "192.0.2.8"), LoginResult::Ok);
}

TEST_F(OperatorsTest, OldFailuresAreForgotten) {
  add("alice", OperatorRole::Viewer);
  for (int i = 0; i < 4; ++i) attempt("alice", "guess");
  clock_ += 16 * 60 * 1000;
  EXPECT_EQ(attempt("alice", "guess"), LoginResult::Rejected);
  EXPECT_EQ(attempt("alice", kPassword), LoginResult::Ok);  // not throttled: the count restarted
}

TEST_F(OperatorsTest, PasswordChangeAndRemovalEndSessions) {
  add("alice", OperatorRole::Admin);
  add("bob", OperatorRole::Operator);
  const auto a = login_ok("alice");
  const auto b1 = login_ok("bob");
  const auto b2 = login_ok("bob");
  ASSERT_TRUE(operators_->passwd("bob", "a brand new password").ok());
  EXPECT_EQ(operators_->authenticate(b1.token).state, SessionState::Unknown);
  EXPECT_EQ(operators_->authenticate(b2.token).state, SessionState::Unknown);
  EXPECT_EQ(operators_->authenticate(a.token).state, SessionState::Valid);
  EXPECT_EQ(attempt("bob", kPassword), LoginResult::Rejected);
  const auto b3 = login_ok("bob", "a brand new password");
  ASSERT_TRUE(operators_->remove("bob").ok());
  EXPECT_EQ(operators_->authenticate(b3.token).state, SessionState::Unknown);
  EXPECT_EQ(operators_->remove("bob").error, ChangeError::NotFound);
  EXPECT_EQ(operators_->passwd("bob", "a brand new password").error, ChangeError::NotFound);
}

TEST_F(OperatorsTest, ARoleChangeAppliesToOpenSessions) {
  add("alice", OperatorRole::Admin);
  add("bob", OperatorRole::Viewer);
  const auto b = login_ok("bob");
  ASSERT_TRUE(operators_->set_role("bob", OperatorRole::Operator).ok());
  EXPECT_EQ(operators_->authenticate(b.token).role, OperatorRole::Operator);
}

TEST_F(OperatorsTest, PolicyNamesAndDuplicates) {
  EXPECT_EQ(operators_->add("alice", OperatorRole::Admin, "elevenchars").error,
            ChangeError::Invalid);
  EXPECT_TRUE(operators_->add("alice", OperatorRole::Admin, "twelve chars").ok());
  EXPECT_EQ(operators_->add("alice", OperatorRole::Viewer, kPassword).error, ChangeError::Conflict);
  EXPECT_EQ(operators_->add("bob", OperatorRole::Viewer, "tab\tin the middle").error,
            ChangeError::Invalid);
  EXPECT_EQ(operators_->add("bob smith", OperatorRole::Viewer, kPassword).error,
            ChangeError::Invalid);
  EXPECT_EQ(operators_->add("", OperatorRole::Viewer, kPassword).error, ChangeError::Invalid);
  EXPECT_EQ(operators_->add(std::string(65, 'a'), OperatorRole::Viewer, kPassword).error,
            ChangeError::Invalid);
  EXPECT_TRUE(operators_->add("bob.smith@example-1_x", OperatorRole::Viewer, kPassword).ok());
  EXPECT_EQ(operators_->passwd("alice", "short").error, ChangeError::Invalid);
  const auto all = operators_->list();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "alice");
  EXPECT_EQ(all[0].role, OperatorRole::Admin);
  EXPECT_EQ(all[0].created_ms, clock_);
}

TEST_F(OperatorsTest, TheLastAdminStays) {
  add("alice", OperatorRole::Admin);
  EXPECT_EQ(operators_->remove("alice").error, ChangeError::Conflict);
  EXPECT_EQ(operators_->set_role("alice", OperatorRole::Operator).error, ChangeError::Conflict);
  EXPECT_TRUE(operators_->set_role("alice", OperatorRole::Admin).ok());
  add("bob", OperatorRole::Admin);
  EXPECT_TRUE(operators_->set_role("alice", OperatorRole::Viewer).ok());
  EXPECT_EQ(operators_->remove("bob").error, ChangeError::Conflict);
  EXPECT_TRUE(operators_->remove("alice").ok());
}

TEST_F(OperatorsTest, AuditLogPages) {
  for (int i = 1; i <= 5; ++i) {
    clock_ += 1;
    ASSERT_TRUE(
        operators_->audit("alice", "operator.add", "u" + std::to_string(i), "{}", "ok").ok());
  }
  auto page = operators_->audit_list(std::nullopt, 2);
  ASSERT_EQ(page.items.size(), 2u);
  EXPECT_EQ(page.items[0].target, "u5");
  EXPECT_EQ(page.items[0].ts_ms, clock_);
  EXPECT_EQ(page.items[0].actor, "alice");
  EXPECT_EQ(page.next_cursor, 4);
  page = operators_->audit_list(page.next_cursor, 2);
  ASSERT_EQ(page.items.size(), 2u);
  EXPECT_EQ(page.items[0].target, "u3");
  EXPECT_EQ(page.next_cursor, 2);
  page = operators_->audit_list(page.next_cursor, 2);
  ASSERT_EQ(page.items.size(), 1u);
  EXPECT_EQ(page.items[0].target, "u1");
  EXPECT_FALSE(page.next_cursor);
}

TEST_F(OperatorsTest, TheFirstAdminComesFromTheEnvironmentOnly) {
  ASSERT_TRUE(operators_->ensure_first_admin("root", nullptr).ok());
  EXPECT_TRUE(operators_->list().empty());  // no default password, ever
  EXPECT_FALSE(operators_->ensure_first_admin("root", "short").ok());
  EXPECT_TRUE(operators_->list().empty());
  ASSERT_TRUE(operators_->ensure_first_admin("root", kPassword).ok());
  auto all = operators_->list();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].name, "root");
  EXPECT_EQ(all[0].role, OperatorRole::Admin);
  const auto audit = operators_->audit_list(std::nullopt, 10);
  ASSERT_EQ(audit.items.size(), 1u);
  EXPECT_EQ(audit.items[0].action, "operator.add");
  EXPECT_EQ(audit.items[0].actor, "environment");
  // Once there are operators a changed variable changes nothing.
  ASSERT_TRUE(operators_->ensure_first_admin("root", "another long password").ok());
  ASSERT_TRUE(operators_->ensure_first_admin("other", "another long password").ok());
  EXPECT_EQ(operators_->list().size(), 1u);
  login_ok("root");
}

TEST_F(OperatorsTest, SessionsSurviveARestart) {
  add("alice", OperatorRole::Viewer);
  const auto session = login_ok("alice");
  reopen();
  EXPECT_EQ(operators_->authenticate(session.token).state, SessionState::Valid);
}

}  // namespace
}  // namespace ocppgw::csms
