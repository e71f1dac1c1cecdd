// gateway/handler_memory.hpp: per-thread reuse of the memory that asynchronous WebSocket writes
// keep their state in.
// Why: the state of one write (Beast's frame write over the buffered stream over the TCP stream)
// is 1,120 bytes. Asio's own per-thread cache (Boost 1.74) keeps one block of at most 1,020
// bytes, so every reply went to malloc and free, and for glibc 1,120 bytes is a "large"
// request, which first merges all freed small chunks of the arena (malloc_consolidate): about
// 5% of the I/O threads' time at saturation (perf). Here each thread keeps a few blocks of
// kBlockBytes for reuse. Reads are left to Asio's cache: their state (552 bytes) fits it, it is
// no longer evicted by the writes', and an idle connection's pending read keeps holding only
// what it needs.
#pragma once

#include <cstddef>
#include <new>
#include <utility>

namespace ocppgw::gateway {

class RecycledBlocks {
 public:
  static constexpr std::size_t kBlockBytes = 1280;

  static void* allocate(std::size_t bytes) {
    if (bytes > kBlockBytes) return ::operator new(bytes);
    Cache& c = cache();
    return c.count > 0 ? c.blocks[--c.count] : ::operator new(kBlockBytes);
  }
  static void deallocate(void* block, std::size_t bytes) {
    Cache& c = cache();
    if (bytes <= kBlockBytes && c.count < kKept)
      c.blocks[c.count++] = block;
    else
      ::operator delete(block);
  }

 private:
  // Writes are started on one I/O thread and may complete on another; blocks drift between
  // the threads' caches, and past kKept they go back to the heap.
  static constexpr int kKept = 16;
  struct Cache {
    void* blocks[kKept];
    int count = 0;
    ~Cache() {
      while (count > 0) ::operator delete(blocks[--count]);
    }
  };
  static Cache& cache() {
    thread_local Cache c;
    return c;
  }
};

// The allocator Asio finds through a handler's get_allocator() (its associated allocator) and
// uses for the state of the operation that the handler completes.
template <typename T>
struct RecyclingAllocator {
  using value_type = T;
  RecyclingAllocator() noexcept = default;
  template <typename U>
  RecyclingAllocator(const RecyclingAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(RecycledBlocks::allocate(sizeof(T) * n)); }
  void deallocate(T* p, std::size_t n) noexcept { RecycledBlocks::deallocate(p, sizeof(T) * n); }
  template <typename U>
  bool operator==(const RecyclingAllocator<U>&) const noexcept {
    return true;
  }
};

// A completion handler whose operation's state comes from RecycledBlocks.
template <typename Handler>
class WithRecycledMemory {
 public:
  using allocator_type = RecyclingAllocator<Handler>;
  explicit WithRecycledMemory(Handler handler) : handler_(std::move(handler)) {}
  allocator_type get_allocator() const noexcept { return {}; }
  template <typename... Args>
  void operator()(Args&&... args) {
    handler_(std::forward<Args>(args)...);
  }

 private:
  Handler handler_;
};

}  // namespace ocppgw::gateway
