// storage/checkpointer.cpp
#include "storage/checkpointer.hpp"

#include <sqlite3.h>

#include <spdlog/spdlog.h>

#include "util/thread_name.hpp"

namespace ocppgw::storage {

std::unique_ptr<Checkpointer> Checkpointer::attach(Db& writer, const OpenOptions& options,
                                                   CheckpointerOptions checkpoints,
                                                   Status* status) {
  OpenOptions own_options = options;
  own_options.read_only = false;  // a checkpoint writes the database file
  auto own = Db::open(writer.path(), own_options, status);
  if (!own) return nullptr;
  std::unique_ptr<Checkpointer> c(new Checkpointer(writer, std::move(own), checkpoints));
  // Replaces SQLite's automatic checkpoint, which is itself a WAL hook.
  sqlite3_wal_hook(writer.handle(), &Checkpointer::on_commit, c.get());
  return c;
}

Checkpointer::Checkpointer(Db& writer, std::unique_ptr<Db> own, CheckpointerOptions options)
    : writer_(writer), own_(std::move(own)), options_(options), thread_([this] { run(); }) {}

Checkpointer::~Checkpointer() {
  sqlite3_wal_hook(writer_.handle(), nullptr, nullptr);
  // Closing the writer's connection later checkpoints what is left (SQLite does that when the
  // last connection to a WAL database closes), so nothing is lost by stopping here.
  sqlite3_wal_autocheckpoint(writer_.handle(), 1000);  // SQLite's default again
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

CheckpointerStats Checkpointer::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void Checkpointer::wake() {
  {
    std::lock_guard lock(mutex_);
    requested_ = true;
  }
  wake_.notify_one();
}

void Checkpointer::checkpoint_on_writer(sqlite3* db, const char* schema, int64_t& counter) {
  sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  std::lock_guard lock(mutex_);
  ++counter;
}

int Checkpointer::on_commit(void* self, sqlite3* db, const char* schema, int wal_pages) {
  auto* c = static_cast<Checkpointer*>(self);
  if (const int copied = c->copied_by_thread_.exchange(-1); copied >= 0) {
    const int left = wal_pages - copied;
    if (left >= 0 && left <= c->options_.finish_pages) {
      // Nothing is appended while the writer checkpoints, so this copies every frame left and
      // the writer's next transaction restarts the WAL (unless a reader still holds an older
      // snapshot; then the thread wakes again after start_pages more frames and this repeats).
      c->checkpoint_on_writer(db, schema, c->stats_.finishing_checkpoints);
      return SQLITE_OK;
    }
    // More than that appended during the thread's pass: it copies them first, for at most
    // kMaxCatchUps passes per wake, so a writer that outpaces the copies cannot keep the thread
    // checkpointing (and fsyncing the database) back to back; the next wake tries again.
    if (left > 0 && c->catch_ups_ < kMaxCatchUps) {
      ++c->catch_ups_;
      c->wake();
      return SQLITE_OK;
    }
  }
  if (wal_pages >= c->options_.inline_pages) {
    // The thread cannot keep up (or a reader pins old frames): the writer pays, as SQLite's
    // own automatic checkpoint would, so the WAL does not grow without bound.
    c->checkpoint_on_writer(db, schema, c->stats_.inline_checkpoints);
    return SQLITE_OK;
  }
  // While a reader (the publisher, analytics reading back) holds an older snapshot, the WAL
  // cannot start over and wal_pages keeps counting past the threshold. Waking per start_pages
  // of new frames, not on every commit past it, keeps that from becoming a checkpoint and a
  // database fsync per commit (211 in 30 s at 5,000 frames/s before).
  if (wal_pages < c->pages_at_last_wake_) c->pages_at_last_wake_ = 0;  // the WAL restarted
  if (wal_pages - c->pages_at_last_wake_ >= c->options_.start_pages) {
    c->pages_at_last_wake_ = wal_pages;
    c->catch_ups_ = 0;
    c->wake();
  }
  return SQLITE_OK;
}

void Checkpointer::run() {
  util::name_this_thread("wal-checkpoint");
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return requested_ || stopping_; });
    if (stopping_) return;
    requested_ = false;
    lock.unlock();
    int frames = 0;
    int copied = 0;
    int rc = sqlite3_wal_checkpoint_v2(own_->handle(), "main", SQLITE_CHECKPOINT_PASSIVE, &frames,
                                       &copied);
    if (rc != SQLITE_OK && rc != SQLITE_BUSY)  // BUSY: the writer checkpoints itself right now
      spdlog::warn("checkpoint of {} failed: {}", own_->path(), sqlite3_errmsg(own_->handle()));
    // Every frame of the WAL as it was when the pass began is copied (a reader's older snapshot
    // would have held some back): the writer's hook finishes what it appended meanwhile.
    if (rc == SQLITE_OK && frames > 0 && copied == frames) copied_by_thread_ = copied;
    lock.lock();
    ++stats_.checkpoints;
  }
}

}  // namespace ocppgw::storage
