// tests/unit/kafka/event_log_writer.hpp: writes events and their outbox rows into a real,
// migrated gateway database the way the event sink does (one transaction per batch, seq in
// commit order), so publisher tests and the Kafka benchmark need no running gateway.
// One writer is one connection; use it from one thread.
#pragma once

#include <chrono>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "analytics/event.hpp"
#include "storage/gateway_db.hpp"

namespace ocppgw::testing {

struct WrittenEvent {
  int64_t seq = 0;
  std::string event_id;
  std::string charge_point_id;
  std::string json;
};

class EventLogWriter {
 public:
  explicit EventLogWriter(const std::string& path, bool durable = true) {
    storage::Status s;
    storage::OpenOptions options;
    options.synchronous_full = durable;
    db_ = storage::open_gateway_db(path, &s, options);
    if (!db_) throw std::runtime_error("open " + path + ": " + s.message());
  }

  storage::Db& db() { return *db_; }

  // Appends `per_cp` events for every charge point, interleaved (cp0#0, cp1#0, ..., cp0#1, ...)
  // so that several keys share partitions and batches, in one transaction.
  std::vector<WrittenEvent> append(const std::vector<std::string>& charge_points, int per_cp,
                                   size_t payload_bytes = 0) {
    std::vector<WrittenEvent> out;
    check(db_->begin_immediate());
    auto& ev = db_->cached(
        "INSERT INTO events (event_id, charge_point_id, event_type, ocpp_version, event_ts_ms, "
        "ingest_ts_ms, frame_seq, json) VALUES (?, ?, ?, ?, ?, ?, NULL, ?)");
    auto& ob = db_->cached("INSERT INTO outbox (event_seq) VALUES (?)");
    const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    for (int i = 0; i < per_cp; ++i) {
      for (const std::string& cp : charge_points) {
        analytics::Event e;
        const std::string message_id = std::to_string(++counter_);
        e.charge_point_id = cp;
        e.event_type = analytics::EventType::Heartbeat;
        e.ocpp_action = "Heartbeat";
        e.message_id = message_id;
        e.event_id = analytics::make_event_id(cp, message_id, "Heartbeat", "{}", 0);
        e.event_ts_ms = now;
        e.ingest_ts_ms = now;
        e.ocpp_version = "1.6";
        e.gateway_node = "test";
        if (payload_bytes) e.extra["pad"] = std::string(payload_bytes, 'x');
        WrittenEvent w{0, e.event_id, cp, analytics::to_json_string(e)};
        check(ev.bind(1, e.event_id)
                  .bind(2, cp)
                  .bind(3, "Heartbeat")
                  .bind(4, "1.6")
                  .bind(5, now)
                  .bind(6, now)
                  .bind(7, w.json)
                  .run());
        w.seq = db_->last_insert_rowid();
        check(ob.bind(1, w.seq).run());
        out.push_back(std::move(w));
      }
    }
    check(db_->commit());
    return out;
  }

  std::set<int64_t> outbox_seqs() {
    std::set<int64_t> seqs;
    auto& st = db_->cached("SELECT event_seq FROM outbox");
    while (st.step()) seqs.insert(st.int64(0));
    st.reset();
    return seqs;
  }

 private:
  static void check(const storage::Status& s) {
    if (!s.ok()) throw std::runtime_error(s.message());
  }

  std::unique_ptr<storage::Db> db_;
  int64_t counter_ = 0;
};

}  // namespace ocppgw::testing
