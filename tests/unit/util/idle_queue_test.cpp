// util::IdleQueue: FIFO behaviour, and no memory held once the last element has left (the
// reason it exists: an idle connection's queues are empty; see util/idle_queue.hpp).
#include "util/idle_queue.hpp"

#include <atomic>
#include <cstdlib>
#include <deque>
#include <new>
#include <string>

#include <gtest/gtest.h>

// Blocks from operator new not yet deleted, in this test binary (malloc's own statistics
// count blocks parked in its per-thread caches as in use, so they cannot tell).
namespace {
std::atomic<long> live_blocks{0};
}  // namespace

void* operator new(size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (!p) throw std::bad_alloc();
  live_blocks.fetch_add(1, std::memory_order_relaxed);
  return p;
}
void operator delete(void* p) noexcept {
  if (!p) return;
  live_blocks.fetch_sub(1, std::memory_order_relaxed);
  std::free(p);
}
void operator delete(void* p, size_t) noexcept { operator delete(p); }

namespace ocppgw::util {
namespace {

long heap_in_use() { return live_blocks.load(); }

TEST(IdleQueue, IsFirstInFirstOut) {
  IdleQueue<std::string> q;
  for (int i = 0; i < 100; ++i) q.emplace_back(std::to_string(i));
  ASSERT_EQ(q.size(), 100u);
  EXPECT_EQ(q[42], "42");
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(q.front(), std::to_string(i));
    q.pop_front();
  }
  EXPECT_TRUE(q.empty());
}

TEST(IdleQueue, EraseFromKeepsTheHeadAndTakeEmpties) {
  IdleQueue<std::string> q;
  for (const char* s : {"writing", "a", "b"}) q.emplace_back(s);
  q.erase_from(q.begin() + 1);
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q.front(), "writing");
  q.emplace_back("c");
  auto all = q.take();
  EXPECT_EQ(all.size(), 2u);
  EXPECT_TRUE(q.empty());
  q.emplace_back("again");  // usable after take()
  EXPECT_EQ(q.front(), "again");
}

TEST(IdleQueue, HoldsNoMemoryOnceEmptyUnlikeStdDeque) {
  const long before = heap_in_use();
  {
    IdleQueue<std::string> q;
    q.emplace_back("frame");
    q.pop_front();
    EXPECT_EQ(heap_in_use(), before);
    q.emplace_back("x");
    q.clear();
    EXPECT_EQ(heap_in_use(), before);
  }
  std::deque<std::string> d;  // the control: the cost IdleQueue removes
  d.emplace_back("frame");
  d.pop_front();
  EXPECT_GT(heap_in_use(), before);
}

}  // namespace
}  // namespace ocppgw::util
