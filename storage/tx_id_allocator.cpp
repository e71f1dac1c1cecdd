// storage/tx_id_allocator.cpp: block reservation of transaction ids (see tx_id_allocator.hpp).
#include "storage/tx_id_allocator.hpp"

#include <limits>

namespace ocppgw::storage {
namespace {

constexpr int64_t kMaxId = std::numeric_limits<int32_t>::max();

}  // namespace

std::unique_ptr<TxIdAllocator> TxIdAllocator::open(std::unique_ptr<Db> db,
                                                   const TxIdAllocatorOptions& options,
                                                   Status* status) {
  Status s;
  if (!db) {
    s = Status::error("tx id allocator: no database connection");
  } else if (options.stride < 1 || options.node_index < 0 || options.node_index >= options.stride) {
    s = Status::error("tx id allocator: need 0 <= node_index < stride, got node_index " +
                      std::to_string(options.node_index) + ", stride " +
                      std::to_string(options.stride));
  } else if (options.block < 1) {
    s = Status::error("tx id allocator: block must be >= 1");
  }
  if (status) *status = s;
  if (!s.ok()) return nullptr;
  // The first next() reserves; nothing is written for a node that never starts a transaction.
  return std::unique_ptr<TxIdAllocator>(new TxIdAllocator(std::move(db), options));
}

Status TxIdAllocator::reserve_block() {
  const int64_t max_n = (kMaxId - options_.node_index) / options_.stride;
  Status s = db_->begin_immediate();
  if (!s.ok()) return Status::error("tx id reservation: " + s.message());
  Statement& read = db_->cached("SELECT next_n FROM tx_id_reservations WHERE node_index = ?");
  read.bind(1, static_cast<int64_t>(options_.node_index));
  int64_t start = read.step() ? read.int64(0) : 1;
  s = read.status();
  read.reset();
  if (s.ok() && start > max_n)
    s = Status::error("transaction id space exhausted for node " +
                      std::to_string(options_.node_index) +
                      " (ids must stay <= " + std::to_string(kMaxId) + ")");
  const int64_t limit = start + std::min(options_.block, max_n - start + 1);
  if (s.ok()) {
    s = db_->cached(
               "INSERT INTO tx_id_reservations (node_index, next_n) VALUES (?, ?) "
               "ON CONFLICT (node_index) DO UPDATE SET next_n = excluded.next_n")
            .bind(1, static_cast<int64_t>(options_.node_index))
            .bind(2, limit)
            .run();
  }
  // synchronous=FULL: once COMMIT returns, the bound survives a crash, so handing out ids
  // below it can never repeat after a restart.
  if (s.ok()) s = db_->commit();
  if (!s.ok()) {
    db_->rollback();
    return s;
  }
  next_n_ = start;
  limit_n_ = limit;
  return Status();
}

std::optional<int32_t> TxIdAllocator::next(Status* status) {
  std::lock_guard lock(mu_);
  if (next_n_ >= limit_n_) {
    Status s = reserve_block();
    if (!s.ok()) {
      if (status) *status = s;
      return std::nullopt;
    }
  }
  const int64_t id = next_n_++ * options_.stride + options_.node_index;
  if (status) *status = Status();
  return static_cast<int32_t>(id);
}

int64_t TxIdAllocator::reserved_until() const {
  std::lock_guard lock(mu_);
  return limit_n_;
}

}  // namespace ocppgw::storage
