// tests/unit/util/secret_test.cpp: the data folder's secret file is created once, private, and
// read back unchanged; an unwritable place is a clear error.
#include "util/secret.hpp"

#include <sys/stat.h>

#include <fstream>

#include <gtest/gtest.h>

#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::util {
namespace {

TEST(Secret, CreatedOnceWithMode0600ThenReadBack) {
  testing::TempDir dir;
  const std::string path = dir.file("sub/id_token_secret");
  bool generated = false;
  Status status;
  const auto first = load_or_create_secret(path, &generated, &status);
  ASSERT_TRUE(first) << status.message();
  EXPECT_TRUE(generated);
  EXPECT_EQ(first->size(), 64u);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const auto second = load_or_create_secret(path, &generated, &status);
  ASSERT_TRUE(second);
  EXPECT_FALSE(generated);
  EXPECT_EQ(*second, *first);
}

TEST(Secret, AnExistingFileIsTrimmedAndKept) {
  testing::TempDir dir;
  const std::string path = dir.file("secret");
  std::ofstream(path) << "  my-configured-secret \n";
  bool generated = true;
  EXPECT_EQ(load_or_create_secret(path, &generated, nullptr), "my-configured-secret");
  EXPECT_FALSE(generated);
}

TEST(Secret, APlaceThatCannotHoldTheFileIsAClearError) {
  testing::TempDir dir;
  std::ofstream(dir.file("not-a-folder")) << "x";  // a file where a folder is needed
  Status status;
  const auto secret = load_or_create_secret(dir.file("not-a-folder/secret"), nullptr, &status);
  EXPECT_FALSE(secret);
  EXPECT_NE(status.message().find("cannot create"), std::string::npos) << status.message();
}

TEST(Secret, ConstantTimeEqualIsPlainEquality) {
  EXPECT_TRUE(constant_time_equal("", ""));
  EXPECT_TRUE(constant_time_equal("csrf-token", "csrf-token"));
  EXPECT_FALSE(constant_time_equal("csrf-token", "csrf-tokeN"));
  EXPECT_FALSE(constant_time_equal("csrf-token", "csrf-toke"));
  EXPECT_FALSE(constant_time_equal("", "x"));
}

}  // namespace
}  // namespace ocppgw::util
