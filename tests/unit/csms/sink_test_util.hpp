// tests/unit/csms/sink_test_util.hpp: small helpers shared by the sink and CSMS-state tests:
// canonical events to submit, and a blocking submit that waits for the entry's completion.
#pragma once

#include <future>
#include <memory>
#include <string>

#include "analytics/event.hpp"
#include "csms/event_sink.hpp"
#include "csms/sqlite_csms_state.hpp"
#include "storage/db.hpp"

namespace ocppgw::testing {

inline analytics::Event make_event(const std::string& cp, analytics::EventType type,
                                   const std::string& id, int64_t ts_ms) {
  analytics::Event e;
  e.event_id = id;
  e.charge_point_id = cp;
  e.event_type = type;
  e.ocpp_action = std::string(analytics::to_string(type));
  e.event_ts_ms = ts_ms;
  e.ingest_ts_ms = ts_ms;
  e.ocpp_version = "1.6";
  e.gateway_node = "node-0";
  return e;
}

// Submits and waits; returns what on_durable reported.
inline bool submit_and_wait(csms::EventSink& sink, csms::SinkEntry entry) {
  auto done = std::make_shared<std::promise<bool>>();
  auto future = done->get_future();
  entry.on_durable = [done](bool committed) { done->set_value(committed); };
  sink.submit(std::move(entry));
  return future.get();
}

inline int64_t count_rows(storage::Db& db, const std::string& sql) {
  storage::Statement& st = db.cached(sql);
  int64_t n = st.step() ? st.int64(0) : -1;
  st.reset();
  return n;
}

}  // namespace ocppgw::testing
