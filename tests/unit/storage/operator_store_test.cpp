// tests/unit/storage/operator_store_test.cpp: the operators, operator_sessions and audit_log
// tables: insert refuses a taken name, role and password updates, removal takes the sessions
// with it (foreign key cascade), sessions read the operator's current role, expired sessions
// are purged, and the audit log pages newest first.
#include "storage/operator_store.hpp"

#include <gtest/gtest.h>

#include "storage/gateway_db.hpp"
#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::storage {
namespace {

class OperatorStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status s;
    db_ = open_gateway_db(dir_.file("g.db"), &s);
    ASSERT_TRUE(db_) << s.message();
    store_ = std::make_unique<OperatorStore>(*db_);
  }
  static OperatorRecord op(std::string name, std::string role, std::string key = "aa") {
    return {std::move(name),
            std::move(role),
            "pbkdf2-sha256",
            1000,
            "00112233445566778899aabbccddeeff",
            std::move(key),
            10,
            10};
  }
  static OperatorSessionRecord session(std::string hash, std::string name, int64_t expires) {
    return {std::move(hash), std::move(name), "csrf", 1, expires, {}};
  }
  testing::TempDir dir_;
  std::unique_ptr<Db> db_;
  std::unique_ptr<OperatorStore> store_;
};

TEST_F(OperatorStoreTest, InsertFindListAndATakenName) {
  bool exists = true;
  ASSERT_TRUE(store_->insert(op("bob", "viewer"), &exists).ok());
  EXPECT_FALSE(exists);
  ASSERT_TRUE(store_->insert(op("alice", "admin"), &exists).ok());
  ASSERT_TRUE(store_->insert(op("bob", "admin", "bb"), &exists).ok());
  EXPECT_TRUE(exists);
  const auto bob = store_->find("bob");
  ASSERT_TRUE(bob);
  EXPECT_EQ(bob->role, "viewer");  // the second insert changed nothing
  EXPECT_EQ(bob->derived_key_hex, "aa");
  const auto all = store_->list();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "alice");
  EXPECT_EQ(store_->count(), 2);
  EXPECT_EQ(store_->count_role("admin"), 1);
}

TEST_F(OperatorStoreTest, RefusesAnUnknownRoleAndAnIncompleteHash) {
  EXPECT_FALSE(store_->insert(op("bob", "root")).ok());
  EXPECT_FALSE(store_->insert(op("bob", "viewer", "")).ok());
  EXPECT_FALSE(store_->insert(op("", "viewer")).ok());
  EXPECT_EQ(store_->count(), 0);
}

TEST_F(OperatorStoreTest, UpdatesRoleAndPassword) {
  ASSERT_TRUE(store_->insert(op("bob", "viewer")).ok());
  bool found = false;
  ASSERT_TRUE(store_->update_role("bob", "operator", 20, &found).ok());
  EXPECT_TRUE(found);
  auto changed = op("bob", "ignored", "cc");
  changed.updated_ms = 30;
  ASSERT_TRUE(store_->update_password(changed, &found).ok());
  const auto bob = store_->find("bob");
  ASSERT_TRUE(bob);
  EXPECT_EQ(bob->role, "operator");
  EXPECT_EQ(bob->derived_key_hex, "cc");
  EXPECT_EQ(bob->created_ms, 10);
  EXPECT_EQ(bob->updated_ms, 30);
  ASSERT_TRUE(store_->update_role("nobody", "admin", 40, &found).ok());
  EXPECT_FALSE(found);
}

TEST_F(OperatorStoreTest, SessionsCarryTheCurrentRoleAndGoWithTheOperator) {
  ASSERT_TRUE(store_->insert(op("bob", "viewer")).ok());
  ASSERT_TRUE(store_->insert(op("carol", "viewer")).ok());
  ASSERT_TRUE(store_->insert_session(session("h1", "bob", 100)).ok());
  ASSERT_TRUE(store_->insert_session(session("h2", "bob", 100)).ok());
  ASSERT_TRUE(store_->insert_session(session("h3", "carol", 100)).ok());
  EXPECT_FALSE(store_->insert_session(session("h4", "nobody", 100)).ok());  // foreign key
  ASSERT_TRUE(store_->update_role("bob", "admin", 20).ok());
  auto s = store_->find_session("h1");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->operator_name, "bob");
  EXPECT_EQ(s->role, "admin");
  EXPECT_EQ(s->csrf_token, "csrf");
  ASSERT_TRUE(store_->remove("bob").ok());
  EXPECT_FALSE(store_->find_session("h1"));
  EXPECT_FALSE(store_->find_session("h2"));
  EXPECT_TRUE(store_->find_session("h3"));
  ASSERT_TRUE(store_->remove_sessions_of("carol").ok());
  EXPECT_FALSE(store_->find_session("h3"));
}

TEST_F(OperatorStoreTest, RemovesOneSessionAndPurgesExpiredOnes) {
  ASSERT_TRUE(store_->insert(op("bob", "viewer")).ok());
  ASSERT_TRUE(store_->insert_session(session("old", "bob", 50)).ok());
  ASSERT_TRUE(store_->insert_session(session("new", "bob", 500)).ok());
  ASSERT_TRUE(store_->purge_sessions(100).ok());
  EXPECT_FALSE(store_->find_session("old"));
  bool found = false;
  ASSERT_TRUE(store_->remove_session("new", &found).ok());
  EXPECT_TRUE(found);
  ASSERT_TRUE(store_->remove_session("new", &found).ok());
  EXPECT_FALSE(found);
}

TEST_F(OperatorStoreTest, AuditLogPagesNewestFirst) {
  for (int i = 1; i <= 5; ++i) {
    int64_t id = 0;
    ASSERT_TRUE(store_
                    ->append_audit({0, 100 + i, "alice", "operator.add", "user" + std::to_string(i),
                                    R"({"role":"viewer"})", "ok"},
                                   &id)
                    .ok());
    EXPECT_EQ(id, i);
  }
  auto page = store_->list_audit(std::nullopt, 2);
  ASSERT_EQ(page.size(), 2u);
  EXPECT_EQ(page[0].id, 5);
  EXPECT_EQ(page[0].target, "user5");
  EXPECT_EQ(page[0].details, R"({"role":"viewer"})");
  EXPECT_EQ(page[0].ts_ms, 105);
  EXPECT_EQ(page[1].id, 4);
  page = store_->list_audit(4, 10);
  ASSERT_EQ(page.size(), 3u);
  EXPECT_EQ(page[0].id, 3);
  EXPECT_EQ(page[2].id, 1);
  EXPECT_TRUE(store_->list_audit(1, 10).empty());
}

}  // namespace
}  // namespace ocppgw::storage
