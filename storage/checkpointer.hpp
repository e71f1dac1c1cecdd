// storage/checkpointer.hpp: runs a writer's WAL checkpoints on a thread of its own.
// Why: SQLite's automatic checkpoint runs inside the COMMIT that crosses its threshold, on the
// writer's thread, and copies every page the WAL holds into the database file and fsyncs it
// (also with synchronous=NORMAL). For the analytics pipeline that was about a quarter of a
// batch's time once its store held millions of rows (`bench/analytics_bench`, perf). Here the
// writer's commit only looks at the WAL's size; a second connection on its own thread copies
// the pages back (a PASSIVE checkpoint: it never blocks the writer or readers). Should the
// thread fall far behind, the writer checkpoints inline again, so the WAL stays bounded.
// The thread's checkpoints race with the writer, which appends meanwhile, so on their own they
// never copy the last frames and the WAL never restarts: it grew to the inline bound, and every
// commit extended the file, whose fdatasync then also commits the file system's journal (on
// ext4 about twice the latency of overwriting blocks the file already has; BENCHMARKS.md, "the
// event log's WAL starts over"). So once the thread has copied all but a few frames, the writer
// copies those at its next commit, and its next transaction starts the WAL over at its
// beginning, writing over the blocks the file already has.
// Threading: attach() on the writer's thread before it writes; the hook runs on the writer's
// thread at each commit; the checkpointer's connection is used only by its own thread.
// Destroy the Checkpointer before the writer's Db.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "storage/db.hpp"

namespace ocppgw::storage {

struct CheckpointerOptions {
  // The thread wakes each time the WAL has grown by this many pages (4 KiB each, ~16 MiB) since
  // it last woke, or since the WAL restarted.
  int start_pages = 4096;
  int inline_pages = 65536;  // the writer checkpoints itself beyond this: ~256 MiB
  // After a pass of the thread, the writer copies the frames it appended meanwhile itself when
  // they are at most this many; if more, the thread runs another pass first.
  int finish_pages = 256;  // ~1 MiB: a copy and an fsync of about a millisecond on the writer
};

struct CheckpointerStats {
  int64_t checkpoints = 0;            // run on the thread
  int64_t inline_checkpoints = 0;     // run by the writer because the thread fell behind
  int64_t finishing_checkpoints = 0;  // run by the writer to copy the thread's last few frames
};

class Checkpointer {
 public:
  // Opens a second connection to writer's file (same synchronous setting) and hooks the
  // writer's commits; nullptr with *status set when the connection does not open.
  static std::unique_ptr<Checkpointer> attach(Db& writer, const OpenOptions& options,
                                              CheckpointerOptions checkpoints, Status* status);
  ~Checkpointer();  // unhooks the writer, runs no further checkpoint, joins the thread
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  CheckpointerStats stats() const;

 private:
  Checkpointer(Db& writer, std::unique_ptr<Db> own, CheckpointerOptions options);
  static int on_commit(void* self, sqlite3* db, const char* schema, int wal_pages);
  void wake();  // asks the thread for a pass
  // A PASSIVE checkpoint on the writer's connection, from its commit hook; counts it in `counter`.
  void checkpoint_on_writer(sqlite3* db, const char* schema, int64_t& counter);
  void run();

  Db& writer_;
  std::unique_ptr<Db> own_;
  const CheckpointerOptions options_;
  static constexpr int kMaxCatchUps = 3;
  int pages_at_last_wake_ = 0;  // touched only by the hook, on the writer's thread
  int catch_ups_ = 0;           // passes asked for since the last wake (the hook's too)
  // The WAL's frames the thread's last complete pass copied, for the hook to finish; -1: none.
  std::atomic<int> copied_by_thread_{-1};
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool requested_ = false;
  bool stopping_ = false;
  CheckpointerStats stats_;
  std::thread thread_;
};

}  // namespace ocppgw::storage
