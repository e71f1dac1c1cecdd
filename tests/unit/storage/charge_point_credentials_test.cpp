#include "storage/charge_point_credentials.hpp"

#include <gtest/gtest.h>

#include "storage/gateway_db.hpp"
#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::storage {
namespace {

class CredentialStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status s;
    db_ = open_gateway_db(dir_.file("g.db"), &s);
    ASSERT_TRUE(db_) << s.message();
    store_ = std::make_unique<ChargePointCredentialStore>(*db_);
  }
  static ChargePointCredential credential(std::string id, std::string key, int64_t at) {
    return {std::move(id),  "pbkdf2-sha256",
            20000,          "00112233445566778899aabbccddeeff",
            std::move(key), at};
  }
  testing::TempDir dir_;
  std::unique_ptr<Db> db_;
  std::unique_ptr<ChargePointCredentialStore> store_;
};

TEST_F(CredentialStoreTest, AddFindReplaceRemove) {
  ASSERT_TRUE(store_->upsert(credential("CP-1", "aa", 10)).ok());
  auto r = store_->find("CP-1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->algorithm, "pbkdf2-sha256");
  EXPECT_EQ(r->iterations, 20000);
  EXPECT_EQ(r->salt_hex, "00112233445566778899aabbccddeeff");
  EXPECT_EQ(r->derived_key_hex, "aa");
  EXPECT_EQ(r->updated_ms, 10);
  ASSERT_TRUE(store_->upsert(credential("CP-1", "bb", 20)).ok());
  r = store_->find("CP-1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->derived_key_hex, "bb");
  EXPECT_EQ(r->updated_ms, 20);
  EXPECT_FALSE(store_->find("cp-1"));  // ids are case-sensitive, like the URL
  bool found = false;
  ASSERT_TRUE(store_->remove("CP-1", &found).ok());
  EXPECT_TRUE(found);
  EXPECT_FALSE(store_->find("CP-1"));
  ASSERT_TRUE(store_->remove("CP-1", &found).ok());
  EXPECT_FALSE(found);
}

TEST_F(CredentialStoreTest, ListsInIdOrder) {
  for (const char* id : {"CP-3", "CP-1", "CP-2"})
    ASSERT_TRUE(store_->upsert(credential(id, "aa", 1)).ok());
  Status s;
  const auto rows = store_->list(&s);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].charge_point_id, "CP-1");
  EXPECT_EQ(rows[2].charge_point_id, "CP-3");
}

TEST_F(CredentialStoreTest, RefusesIncompleteCredentials) {
  EXPECT_FALSE(store_->upsert(credential("", "aa", 1)).ok());
  EXPECT_FALSE(store_->upsert(credential("CP-1", "", 1)).ok());
  auto zero = credential("CP-1", "aa", 1);
  zero.iterations = 0;
  EXPECT_FALSE(store_->upsert(zero).ok());
  EXPECT_FALSE(store_->find("CP-1"));
}

TEST_F(CredentialStoreTest, SurvivesReopening) {
  ASSERT_TRUE(store_->upsert(credential("CP-1", "aa", 1)).ok());
  store_.reset();
  db_.reset();
  Status s;
  db_ = open_gateway_db(dir_.file("g.db"), &s);
  ASSERT_TRUE(db_) << s.message();
  EXPECT_TRUE(ChargePointCredentialStore(*db_).find("CP-1"));
}

}  // namespace
}  // namespace ocppgw::storage
