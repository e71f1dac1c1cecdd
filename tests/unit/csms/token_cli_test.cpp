#include "csms/token_cli.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "analytics/event.hpp"
#include "storage/gateway_db.hpp"
#include "storage/id_token_store.hpp"
#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::csms {
namespace {

class TokenCliTest : public ::testing::Test {
 protected:
  // Runs one command line the way main does; returns the exit code.
  int run(const std::string& line) {
    CLI::App app("ocppgw");
    add_token_commands(
        app,
        [&] {
          return TokenCliEnv{dir_.file("g.db"), "s3cret"};
        },
        &out_);
    try {
      app.parse(line);
    } catch (const CLI::ParseError& e) {
      std::ostringstream ignored;
      return app.exit(e, ignored, ignored);
    }
    return 0;
  }
  std::optional<storage::IdTokenRecord> find(const std::string& tag) {
    storage::Status s;
    auto db = storage::open_gateway_db(dir_.file("g.db"), &s);
    return storage::IdTokenStore(*db).find(analytics::hash_id_token("s3cret", tag));
  }
  testing::TempDir dir_;
  std::ostringstream out_;
};

TEST_F(TokenCliTest, AddBlockRemoveList) {
  ASSERT_EQ(run("tokens add TAG-1 --expiry 2030-01-01T00:00:00Z --parent G1"), 0);
  auto r = find("TAG-1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "Accepted");
  EXPECT_EQ(r->expiry_ms, 1893456000000);
  EXPECT_EQ(r->parent_id, "G1");
  ASSERT_EQ(run("tokens block TAG-1"), 0);
  EXPECT_EQ(find("TAG-1")->status, "Blocked");
  out_.str("");
  ASSERT_EQ(run("tokens list"), 0);
  EXPECT_EQ(out_.str(),
            analytics::hash_id_token("s3cret", "TAG-1") + " Blocked 2030-01-01T00:00:00.000Z G1\n");
  EXPECT_EQ(out_.str().find("TAG-1"), std::string::npos);  // raw tag never shown or stored
  ASSERT_EQ(run("tokens remove TAG-1"), 0);
  EXPECT_FALSE(find("TAG-1"));
}

TEST_F(TokenCliTest, RejectsBadInputWithNonZeroExit) {
  EXPECT_NE(run("tokens add T --status Sometimes"), 0);
  EXPECT_NE(run("tokens add T --expiry yesterday"), 0);
  EXPECT_FALSE(find("T"));
  EXPECT_NE(run("tokens block NOBODY"), 0);
  EXPECT_NE(run("tokens"), 0);
}

}  // namespace
}  // namespace ocppgw::csms
