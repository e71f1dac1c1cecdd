// storage/tx_id_allocator.hpp: OCPP 1.6 transaction ids: durable, unique across nodes,
// idempotent for a re-sent StartTransaction (docs/architecture.md). An id is
// n * stride + node_index with n >= 1, so nodes sharing a stride never collide, and every id fits
// a signed 32-bit integer. Ids are never reused, even after kill -9: n is handed out from blocks
// whose upper bound is committed (fsync) to tx_id_reservations BEFORE the first id of the block
// is returned; a restart starts at the recorded bound and skips what was left of the old block.
// Thread-safe: next() may be called from any thread; it touches the database once per block.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "storage/db.hpp"

namespace ocppgw::storage {

struct TxIdAllocatorOptions {
  int32_t node_index = 0;  // REQUIRES: 0 <= node_index < stride
  int32_t stride = 1;      // REQUIRES: stride >= 1; the same on every node of a deployment
  int64_t block = 64;      // n values reserved per durable write
};

class TxIdAllocator {
 public:
  // `db` is a read-write connection owned by the allocator, with migrations applied.
  static std::unique_ptr<TxIdAllocator> open(std::unique_ptr<Db> db,
                                             const TxIdAllocatorOptions& options, Status* status);

  // The next id, or nullopt with *status set when the reservation could not be stored or the
  // node's id space (ids <= INT32_MAX) is exhausted.
  std::optional<int32_t> next(Status* status = nullptr);

  // Largest n this node may ever hand out without a new reservation (for tests and metrics).
  int64_t reserved_until() const;

 private:
  TxIdAllocator(std::unique_ptr<Db> db, const TxIdAllocatorOptions& options)
      : db_(std::move(db)), options_(options) {}
  Status reserve_block();

  std::unique_ptr<Db> db_;
  TxIdAllocatorOptions options_;
  mutable std::mutex mu_;
  int64_t next_n_ = 0;   // next n to hand out
  int64_t limit_n_ = 0;  // first n not covered by the durable reservation
};

}  // namespace ocppgw::storage
