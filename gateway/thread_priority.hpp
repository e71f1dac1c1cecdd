// gateway/thread_priority.hpp: lowering the scheduling priority of worker threads. Work that
// an attacker or one busy charge point can cause in bulk (password hashing, large frames, TLS
// and HTTP handshakes) runs on such threads, so under CPU contention the I/O threads, which
// answer every connected charge point, are scheduled first.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <latch>
#include <memory>

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include "util/logging.hpp"

namespace ocppgw::gateway {

// The niceness of every such thread: weight 335 against the I/O threads' 1024 under
// contention, so their work waits for the I/O threads but still progresses at about a quarter
// of a busy machine rather than starving.
constexpr int kBelowIoNice = 5;

// Lowers the calling thread's priority to kBelowIoNice (Linux applies it per thread).
inline void lower_this_thread_priority() {
  if (::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), kBelowIoNice) != 0)
    log::warn("thread_priority", "", {{"error", "could not lower a worker's priority"}});
}

// Lowers the priority of each of `pool`'s `threads` threads. Each task waits until all have
// started, so every thread runs exactly one of them.
inline void lower_priority(boost::asio::thread_pool& pool, int threads) {
  auto all_started = std::make_shared<std::latch>(threads);
  for (int i = 0; i < threads; ++i)
    boost::asio::post(pool, [all_started] {
      lower_this_thread_priority();
      all_started->arrive_and_wait();
    });
}

}  // namespace ocppgw::gateway
