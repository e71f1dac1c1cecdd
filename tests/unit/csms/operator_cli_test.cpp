// tests/unit/csms/operator_cli_test.cpp: `ocppgw operators add|passwd|remove|list` on a data
// folder: passwords from an environment variable or stdin, never printed; every change audited
// with a cli: actor; bad input exits non-zero.
#include "csms/operator_cli.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::csms {
namespace {

constexpr char kPassword[] = "correct horse battery";

class OperatorCliTest : public ::testing::Test {
 protected:
  // Runs one command line the way main does, with `stdin_text` as stdin; returns the exit code.
  int run(const std::string& line, const std::string& stdin_text = "") {
    CLI::App app("ocppgw");
    std::istringstream in(stdin_text);
    add_operator_commands(
        app,
        [&] {
          return OperatorCliEnv{dir_.file("data/g.db"), 1000};
        },
        &in, &out_);
    try {
      app.parse(line);
    } catch (const CLI::ParseError& e) {
      std::ostringstream ignored;
      return app.exit(e, ignored, ignored);
    }
    return 0;
  }
  std::unique_ptr<Operators> open() {
    Operators::Options options;
    options.iterations = 1000;
    util::Status s;
    auto operators = Operators::open(dir_.file("data/g.db"), options, &s);
    EXPECT_TRUE(operators) << s.message();
    return operators;
  }
  bool can_login(const std::string& name, const std::string& password) {
    return open()->login(name, password, "").result == LoginResult::Ok;
  }
  testing::TempDir dir_;
  std::ostringstream out_;
};

TEST_F(OperatorCliTest, AddFromTheEnvironmentPasswdFromStdinListRemove) {
  ::setenv("OCPPGW_TEST_OPERATOR_PASSWORD", kPassword, 1);
  ASSERT_EQ(run("operators add alice --role admin --password-env OCPPGW_TEST_OPERATOR_PASSWORD"),
            0);
  ::unsetenv("OCPPGW_TEST_OPERATOR_PASSWORD");
  ASSERT_EQ(run("operators add bob --role viewer", std::string(kPassword) + "\r\n"), 0);
  EXPECT_TRUE(can_login("alice", kPassword));
  EXPECT_TRUE(can_login("bob", kPassword));

  const auto session = open()->login("bob", kPassword, "").session;
  ASSERT_TRUE(session);
  ASSERT_EQ(run("operators passwd bob", "another long password\n"), 0);
  EXPECT_EQ(open()->authenticate(session->token).state, SessionState::Unknown);
  EXPECT_TRUE(can_login("bob", "another long password"));

  out_.str("");
  ASSERT_EQ(run("operators list"), 0);
  const std::string listed = out_.str();
  EXPECT_EQ(listed.find("alice admin "), 0u) << listed;
  EXPECT_NE(listed.find("\nbob viewer "), std::string::npos) << listed;
  EXPECT_EQ(listed.find(kPassword), std::string::npos);
  EXPECT_EQ(listed.find("pbkdf2"), std::string::npos);

  ASSERT_EQ(run("operators remove bob"), 0);
  EXPECT_FALSE(can_login("bob", "another long password"));

  const auto audit = open()->audit_list(std::nullopt, 10);
  ASSERT_EQ(audit.items.size(), 4u);
  EXPECT_EQ(audit.items[0].action, "operator.remove");
  EXPECT_EQ(audit.items[1].action, "operator.passwd");
  EXPECT_EQ(audit.items[3].action, "operator.add");
  EXPECT_EQ(audit.items[3].target, "alice");
  EXPECT_EQ(audit.items[3].details, R"({"role":"admin"})");
  EXPECT_EQ(audit.items[3].outcome, "ok");
  EXPECT_EQ(audit.items[3].actor.rfind("cli:", 0), 0u);
}

TEST_F(OperatorCliTest, RefusesBadInputWithNonZeroExit) {
  EXPECT_NE(run("operators add alice --role root", std::string(kPassword) + "\n"), 0);
  EXPECT_NE(run("operators add alice", std::string(kPassword) + "\n"), 0);  // --role required
  EXPECT_NE(run("operators add alice --role admin", "too short\n"), 0);
  EXPECT_NE(run("operators add 'no spaces' --role admin", std::string(kPassword) + "\n"), 0);
  EXPECT_NE(run("operators add alice --role admin --password-env OCPPGW_TEST_UNSET_VARIABLE"), 0);
  EXPECT_TRUE(open()->list().empty());
  ASSERT_EQ(run("operators add alice --role admin", std::string(kPassword) + "\n"), 0);
  EXPECT_NE(run("operators add alice --role viewer", std::string(kPassword) + "\n"), 0);
  EXPECT_NE(run("operators remove alice"), 0);  // the last admin
  EXPECT_NE(run("operators remove nobody"), 0);
  EXPECT_NE(run("operators passwd nobody", std::string(kPassword) + "\n"), 0);
  EXPECT_NE(run("operators"), 0);
  // The refused changes that reached the store are audited too.
  const auto audit = open()->audit_list(std::nullopt, 20);
  ASSERT_FALSE(audit.items.empty());
  EXPECT_EQ(audit.items[0].outcome, "not_found");
}

}  // namespace
}  // namespace ocppgw::csms
