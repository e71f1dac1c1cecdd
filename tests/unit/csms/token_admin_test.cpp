// tests/unit/csms/token_admin_test.cpp: the id-token and charge point password operations that
// the command line and the REST API share, on a real gateway database: raw tags are stored only
// as hashes, add refuses an existing token unless replacing, update changes only what is given
// (an empty expiry or parent clears it), bad values are Invalid with the reason, unknown tokens
// are NotFound, and the list pages by hash.
#include "csms/token_admin.hpp"

#include <gtest/gtest.h>

#include <set>

#include "analytics/event.hpp"
#include "csms/charge_point_admin.hpp"
#include "csms/passwords.hpp"
#include "storage/gateway_db.hpp"
#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::csms {
namespace {

using Kind = AdminResult::Kind;

class TokenAdminTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage::Status s;
    db_ = storage::open_gateway_db(dir_.file("g.db"), &s);
    ASSERT_TRUE(db_) << s.message();
  }
  testing::TempDir dir_;
  std::unique_ptr<storage::Db> db_;
};

TEST_F(TokenAdminTest, StoresHashesAndChangesOnlyWhatIsGiven) {
  TokenAdmin admin(*db_, "s3cret");
  storage::IdTokenRecord r;
  ASSERT_TRUE(admin.add("TAG-1", {std::nullopt, "2030-01-01T00:00:00Z", "G1"}, false, &r).ok());
  EXPECT_EQ(r.id_token_hash, analytics::hash_id_token("s3cret", "TAG-1"));
  EXPECT_EQ(r.status, "Accepted");
  EXPECT_EQ(admin.add("TAG-1", {}, false).kind, Kind::Conflict);
  ASSERT_TRUE(admin.update("TAG-1", {.status = "Blocked"}, &r).ok());
  EXPECT_EQ(r.status, "Blocked");
  EXPECT_EQ(r.expiry_ms, 1893456000000);  // untouched
  EXPECT_EQ(r.parent_id, "G1");
  ASSERT_TRUE(admin.update("TAG-1", {.expiry = "", .parent_id = ""}, &r).ok());
  EXPECT_FALSE(r.expiry_ms);
  EXPECT_FALSE(r.parent_id);
  storage::Status s;
  auto stored = storage::IdTokenStore(*db_).find(admin.hash("TAG-1"), &s);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->status, "Blocked");
  // Replacing (the command line's add) overwrites.
  ASSERT_TRUE(admin.add("TAG-1", {}, true, &r).ok());
  EXPECT_EQ(r.status, "Accepted");
  ASSERT_TRUE(admin.remove("TAG-1").ok());
  EXPECT_EQ(admin.remove("TAG-1").kind, Kind::NotFound);
  EXPECT_EQ(admin.update("TAG-1", {.status = "Blocked"}).kind, Kind::NotFound);
}

TEST_F(TokenAdminTest, RefusesBadValuesWithTheReason) {
  TokenAdmin admin(*db_, "s3cret");
  auto r = admin.add("TAG", {.status = "Maybe"}, false);
  EXPECT_EQ(r.kind, Kind::Invalid);
  EXPECT_NE(r.message.find("Accepted, Blocked, Expired or Invalid"), std::string::npos);
  r = admin.add("TAG", {.expiry = "tomorrow"}, false);
  EXPECT_EQ(r.kind, Kind::Invalid);
  EXPECT_NE(r.message.find("RFC 3339"), std::string::npos);
  EXPECT_EQ(admin.add("", {}, false).kind, Kind::Invalid);
  EXPECT_EQ(admin.add(std::string(37, 'x'), {}, false).kind, Kind::Invalid);
  EXPECT_EQ(admin.add("TAG", {.parent_id = std::string(37, 'p')}, false).kind, Kind::Invalid);
  storage::Status s;
  EXPECT_TRUE(storage::IdTokenStore(*db_).list(&s).empty());  // nothing half-written
}

TEST_F(TokenAdminTest, ListPagesByHashEveryTokenOnce) {
  TokenAdmin admin(*db_, "s3cret");
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(admin.add("T" + std::to_string(i), {}, false).ok());
  std::set<std::string> seen;
  std::string after;
  storage::Status s;
  for (int page = 0; page < 10; ++page) {
    auto rows = admin.list(after, 3, &s);
    ASSERT_TRUE(s.ok());
    if (rows.empty()) break;
    for (const auto& r : rows) EXPECT_TRUE(seen.insert(r.id_token_hash).second);
    after = rows.back().id_token_hash;
  }
  EXPECT_EQ(seen.size(), 7u);
}

TEST_F(TokenAdminTest, ChargePointPasswordsAreHashedAndPolicyChecked) {
  ChargePointAdmin admin(*db_);
  EXPECT_EQ(admin.set_password("CP-1", "short").kind, Kind::Invalid);
  EXPECT_EQ(admin.set_password("bad/id", "a-long-enough-password").kind, Kind::Invalid);
  ASSERT_TRUE(admin.set_password("CP-1", "a-long-enough-password").ok());
  storage::Status s;
  auto rows = admin.with_password("", 10, &s);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(verify_password(rows[0], "a-long-enough-password"));
  EXPECT_EQ(rows[0].derived_key_hex.find("a-long-enough-password"), std::string::npos);
  ASSERT_TRUE(admin.delete_password("CP-1").ok());
  EXPECT_EQ(admin.delete_password("CP-1").kind, Kind::NotFound);
}

}  // namespace
}  // namespace ocppgw::csms
