// storage/outbox.hpp: the publish queue of the durable event log. Every committed event gets an
// outbox row in the same transaction as the event (written by the event sink); the Kafka
// publisher reads rows in seq order and deletes them only from the delivery report. Seq order
// is commit order, so per charge point it is the order frames were acknowledged.
// An Outbox wraps one connection and is used by one thread (the publisher's).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "storage/db.hpp"

namespace ocppgw::storage {

struct OutboxRow {
  int64_t seq = 0;              // event log seq (events.seq)
  std::string charge_point_id;  // Kafka key
  std::string event_type;       // header
  std::string ocpp_version;     // header
  int64_t ingest_ts_ms = 0;
  std::string json;  // canonical event, the Kafka value
};

class Outbox {
 public:
  explicit Outbox(Db& db) : db_(db) {}
  // Up to `limit` rows with seq > after_seq, ascending.
  std::vector<OutboxRow> peek(int64_t after_seq, size_t limit, Status* status = nullptr);
  // Deletes the rows (one transaction).
  Status remove(std::span<const int64_t> seqs);
  int64_t depth(Status* status = nullptr);
  std::optional<int64_t> oldest_ingest_ms(Status* status = nullptr);

 private:
  Db& db_;
};

}  // namespace ocppgw::storage
