// storage/event_log.hpp: read access to the durable event log (written only by the event sink).
// Used by replays (analytics rebuild), tests that prove durability, and tools.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "storage/db.hpp"

namespace ocppgw::storage {

struct LoggedEvent {
  int64_t seq = 0;
  std::string event_id;
  std::string charge_point_id;
  std::string event_type;
  std::string json;  // canonical event
};

// Up to `limit` events with seq > after_seq, ascending.
std::vector<LoggedEvent> read_event_log(Db& db, int64_t after_seq, size_t limit,
                                        Status* status = nullptr);
int64_t event_log_count(Db& db, Status* status = nullptr);

}  // namespace ocppgw::storage
