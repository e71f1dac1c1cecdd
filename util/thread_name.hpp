// util/thread_name.hpp: names the calling thread (at most 15 characters), so `top -H`, perf and
// /proc/<pid>/task/*/comm tell the gateway's threads apart when an operator asks where the
// CPU goes.
#pragma once

#include <pthread.h>

namespace ocppgw::util {

inline void name_this_thread(const char* name) { pthread_setname_np(pthread_self(), name); }

}  // namespace ocppgw::util
