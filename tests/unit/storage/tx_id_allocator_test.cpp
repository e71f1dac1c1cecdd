#include "storage/tx_id_allocator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>
#include <thread>
#include <vector>

#include "storage/gateway_db.hpp"
#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::storage {
namespace {

std::unique_ptr<TxIdAllocator> open_allocator(const std::string& path,
                                              const TxIdAllocatorOptions& options) {
  Status s;
  auto db = open_gateway_db(path, &s);
  EXPECT_TRUE(db) << s.message();
  auto a = TxIdAllocator::open(std::move(db), options, &s);
  EXPECT_TRUE(a) << s.message();
  return a;
}

TEST(TxIdAllocator, FirstIdIsOneAndIdsIncrease) {
  testing::TempDir dir;
  auto a = open_allocator(dir.file("g.db"), {});
  EXPECT_EQ(a->next(), 1);
  EXPECT_EQ(a->next(), 2);
  EXPECT_EQ(a->next(), 3);
}

TEST(TxIdAllocator, UniqueAcrossThreads) {
  testing::TempDir dir;
  auto a = open_allocator(dir.file("g.db"), {.node_index = 0, .stride = 1, .block = 16});
  constexpr int kThreads = 8, kPerThread = 500;
  std::vector<std::vector<int32_t>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        Status s;
        auto id = a->next(&s);
        ASSERT_TRUE(id) << s.message();
        got[static_cast<size_t>(t)].push_back(*id);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::set<int32_t> all;
  for (const auto& v : got) {
    EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));  // increasing per caller
    all.insert(v.begin(), v.end());
  }
  EXPECT_EQ(all.size(), static_cast<size_t>(kThreads * kPerThread));
}

TEST(TxIdAllocator, NeverReusesAfterReopenWithoutCleanClose) {
  testing::TempDir dir;
  std::set<int32_t> seen;
  // Each round "crashes": the allocator is leaked mid-block (its connection never closed, the
  // rest of its block never handed out) and a new one opens the same file.
  for (int round = 0; round < 5; ++round) {
    auto a = open_allocator(dir.file("g.db"), {.node_index = 0, .stride = 1, .block = 64});
    int32_t last = 0;
    for (int i = 0; i < 10; ++i) {
      auto id = a->next();
      ASSERT_TRUE(id);
      EXPECT_TRUE(seen.insert(*id).second) << "reused " << *id;
      EXPECT_GT(*id, last);
      last = *id;
    }
    EXPECT_GE(*seen.begin(), 1);
    // Simulated kill: no destructor, no clean close. The pointer stays reachable from a static
    // so LeakSanitizer (CI's sanitizer step) does not report the deliberate "crash" as a leak.
    // (A heap vector behind a static pointer: a static vector would be destroyed before LSan
    // looks, and its pointers with it.)
    static auto* crashed = new std::vector<TxIdAllocator*>;
    crashed->push_back(a.release());
  }
  // Restarts skip the rest of each block: round r starts at r * 64 + 1.
  EXPECT_EQ(*seen.rbegin(), 4 * 64 + 10);
}

TEST(TxIdAllocator, TwoNodesNeverCollide) {
  testing::TempDir dir;
  // Each node has its own database, as in a deployment: only the partitioning keeps them apart.
  auto n0 = open_allocator(dir.file("n0.db"), {.node_index = 0, .stride = 2, .block = 8});
  auto n1 = open_allocator(dir.file("n1.db"), {.node_index = 1, .stride = 2, .block = 8});
  std::set<int32_t> all;
  for (int i = 0; i < 1000; ++i) {
    auto a = n0->next();
    auto b = n1->next();
    ASSERT_TRUE(a && b);
    EXPECT_EQ(*a % 2, 0);
    EXPECT_EQ(*b % 2, 1);
    EXPECT_TRUE(all.insert(*a).second);
    EXPECT_TRUE(all.insert(*b).second);
  }
}

TEST(TxIdAllocator, StaysWithinInt32AndFailsClearlyWhenExhausted) {
  testing::TempDir dir;
  const int32_t stride = 1000;
  const int32_t node = 7;
  const int64_t max_n = (std::numeric_limits<int32_t>::max() - node) / stride;
  {
    // Pretend this node has already used all but the last three n.
    Status s;
    auto db = open_gateway_db(dir.file("g.db"), &s);
    ASSERT_TRUE(db) << s.message();
    ASSERT_TRUE(db->cached("INSERT INTO tx_id_reservations VALUES (?, ?)")
                    .bind(1, node)
                    .bind(2, max_n - 2)
                    .run()
                    .ok());
  }
  auto a = open_allocator(dir.file("g.db"), {.node_index = node, .stride = stride, .block = 64});
  for (int i = 0; i < 3; ++i) {
    auto id = a->next();
    ASSERT_TRUE(id);
    EXPECT_EQ(*id % stride, node);
    EXPECT_EQ(static_cast<int64_t>(*id), (max_n - 2 + i) * stride + node);
  }
  Status s;
  EXPECT_FALSE(a->next(&s));
  EXPECT_NE(s.message().find("exhausted"), std::string::npos) << s.message();
}

TEST(TxIdAllocator, RejectsNodeIndexOutsideStride) {
  testing::TempDir dir;
  Status s;
  auto db = open_gateway_db(dir.file("g.db"), &s);
  EXPECT_FALSE(TxIdAllocator::open(std::move(db), {.node_index = 2, .stride = 2}, &s));
  EXPECT_NE(s.message().find("node_index"), std::string::npos);
}

TEST(TxIdAllocator, ReservationIsDurableBeforeIdsAreHandedOut) {
  testing::TempDir dir;
  auto a = open_allocator(dir.file("g.db"), {.node_index = 0, .stride = 1, .block = 64});
  ASSERT_EQ(a->next(), 1);
  // Another connection sees the committed bound right away.
  Status s;
  auto db = Db::open(dir.file("g.db"), OpenOptions{.read_only = true}, &s);
  ASSERT_TRUE(db) << s.message();
  Statement& st = db->cached("SELECT next_n FROM tx_id_reservations WHERE node_index = 0");
  ASSERT_TRUE(st.step());
  EXPECT_EQ(st.int64(0), 65);
  EXPECT_EQ(a->reserved_until(), 65);
}

}  // namespace
}  // namespace ocppgw::storage
