// util/thread_name.hpp: names the calling thread (at most 15 characters), so `top -H`, perf and
// /proc/<pid>/task/*/comm tell the gateway's threads apart when an operator asks where the
// CPU goes.
#pragma once

#include <pthread.h>

#include <string_view>

namespace ocppgw::util {

// A longer name is cut to 15 characters (Linux refuses it whole, and the thread would keep the
// process's name).
inline void name_this_thread(std::string_view name) {
  char cut[16] = {};
  name.copy(cut, sizeof cut - 1);
  pthread_setname_np(pthread_self(), cut);
}

}  // namespace ocppgw::util
