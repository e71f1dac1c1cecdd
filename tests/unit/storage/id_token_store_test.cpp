#include "storage/id_token_store.hpp"

#include <gtest/gtest.h>

#include "storage/gateway_db.hpp"
#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::storage {
namespace {

class IdTokenStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status s;
    db_ = open_gateway_db(dir_.file("g.db"), &s);
    ASSERT_TRUE(db_) << s.message();
    store_ = std::make_unique<IdTokenStore>(*db_);
  }
  testing::TempDir dir_;
  std::unique_ptr<Db> db_;
  std::unique_ptr<IdTokenStore> store_;
};

TEST_F(IdTokenStoreTest, AddFindUpdateRemove) {
  ASSERT_TRUE(store_->upsert({"h1", "Accepted", std::nullopt, "GROUP", 10}).ok());
  auto r = store_->find("h1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "Accepted");
  EXPECT_EQ(r->parent_id, "GROUP");
  ASSERT_TRUE(store_->upsert({"h1", "Invalid", 500, std::nullopt, 20}).ok());
  r = store_->find("h1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "Invalid");
  EXPECT_EQ(r->expiry_ms, 500);
  EXPECT_FALSE(r->parent_id);
  bool found = false;
  ASSERT_TRUE(store_->remove("h1", &found).ok());
  EXPECT_TRUE(found);
  EXPECT_FALSE(store_->find("h1"));
  ASSERT_TRUE(store_->remove("h1", &found).ok());
  EXPECT_FALSE(found);
}

TEST_F(IdTokenStoreTest, BlockSetsStatusOfExistingTokenOnly) {
  ASSERT_TRUE(store_->upsert({"h1", "Accepted", std::nullopt, std::nullopt, 10}).ok());
  bool found = false;
  ASSERT_TRUE(store_->set_status("h1", "Blocked", 30, &found).ok());
  EXPECT_TRUE(found);
  EXPECT_EQ(store_->find("h1")->status, "Blocked");
  EXPECT_EQ(store_->find("h1")->updated_ms, 30);
  ASSERT_TRUE(store_->set_status("nope", "Blocked", 30, &found).ok());
  EXPECT_FALSE(found);
}

TEST_F(IdTokenStoreTest, RejectsUnknownStatus) {
  Status s = store_->upsert({"h1", "ConcurrentTx", std::nullopt, std::nullopt, 1});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("ConcurrentTx"), std::string::npos);
  EXPECT_FALSE(store_->find("h1"));
}

TEST_F(IdTokenStoreTest, ListIsOrderedByHash) {
  ASSERT_TRUE(store_->upsert({"b", "Accepted", std::nullopt, std::nullopt, 1}).ok());
  ASSERT_TRUE(store_->upsert({"a", "Blocked", std::nullopt, std::nullopt, 1}).ok());
  auto all = store_->list();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id_token_hash, "a");
  EXPECT_EQ(all[1].id_token_hash, "b");
}

TEST(IdTokenStatus, AcceptedPastExpiryIsExpired) {
  IdTokenRecord r{"h", "Accepted", 1000, std::nullopt, 0};
  EXPECT_EQ(effective_token_status(r, 999), "Accepted");
  EXPECT_EQ(effective_token_status(r, 1000), "Expired");
  r.status = "Blocked";
  EXPECT_EQ(effective_token_status(r, 2000), "Blocked");
  r.status = "Accepted";
  r.expiry_ms.reset();
  EXPECT_EQ(effective_token_status(r, 2000), "Accepted");
}

}  // namespace
}  // namespace ocppgw::storage
