// csms/sqlite_event_sink.hpp: the EventSink over the gateway's SQLite file. One thread owns
// the write connection. It waits for entries, takes everything queued (up to a bound) as one
// batch, the way LevelDB's BuildBatchGroup does, and commits the batch's raw frames, events,
// outbox rows and WriteSets in one BEGIN IMMEDIATE ... COMMIT with synchronous=FULL; while
// that fsync runs, new submissions queue up and form the next batch. Completions then run in
// submission order, then the commit listeners. A failed statement or commit rolls back and is
// sticky (see gateway/event_sink.hpp).
// Thread-safety: submit(), healthy(), stats() from any thread; add_commit_listener() before the
// first submit(); stop() from any thread except the sink thread (i.e. not from a completion).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "csms/event_sink.hpp"
#include "storage/db.hpp"

namespace ocppgw::csms {

struct SqliteSinkOptions {
  std::string db_path;
  size_t max_batch_entries = 4096;
  // After the first entry of a batch arrives, wait up to this long for more (0: commit at
  // once; under load the previous fsync already gathers the next batch).
  int max_linger_us = 0;
  int busy_timeout_ms = 5000;
  bool synchronous_full = true;  // false only for benchmarks that measure something else
  // Runs once on the sink's connection after migrations (tests use it to inject faults).
  std::function<void(storage::Db&)> on_open = nullptr;
};

// Opens and migrates the database and starts the sink thread; nullptr with *status on failure.
std::unique_ptr<EventSink> make_sqlite_event_sink(const SqliteSinkOptions& options,
                                                  storage::Status* status = nullptr);

}  // namespace ocppgw::csms
