// kafka/producer.cpp: Drain's librdkafka producer (see drain.hpp): creating and destroying the
// handle, producing one outbox row (key = charge_point_id, value = the event JSON, headers
// event_type / schema_version / ocpp_version), and the delivery-report and error callbacks,
// which librdkafka runs on the publisher thread inside rd_kafka_poll().
#include <sys/types.h>

#include <string_view>

#include "analytics/event.hpp"
#include "kafka/drain.hpp"
#include "util/logging.hpp"

namespace ocppgw::kafka {
namespace {

// The event's own schema_version (the outbox may still hold rows written by an older gateway
// version after an upgrade). The JSON is our compact dump, so a text search is exact enough and
// avoids parsing every message; falls back to the current version.
std::string schema_version_of(std::string_view json) {
  constexpr std::string_view kKey = "\"schema_version\":";
  size_t p = json.find(kKey);
  if (p == std::string_view::npos) return std::to_string(analytics::kSchemaVersion);
  p += kKey.size();
  while (p < json.size() && json[p] == ' ') ++p;
  size_t e = p;
  while (e < json.size() && json[e] >= '0' && json[e] <= '9') ++e;
  if (e == p) return std::to_string(analytics::kSchemaVersion);
  return std::string(json.substr(p, e - p));
}

// librdkafka's own log lines (connection failures, config warnings) join ours; called from its
// internal threads, which spdlog allows.
void forward_librdkafka_log(const rd_kafka_t*, int level, const char* fac, const char* buf) {
  spdlog::level::level_enum l = level <= 3   ? spdlog::level::err
                                : level == 4 ? spdlog::level::warn
                                : level <= 6 ? spdlog::level::info
                                             : spdlog::level::debug;
  log::line(l, "kafka.librdkafka", "", {{"facility", fac}, {"message", buf}});
}

}  // namespace

bool Drain::create_producer() {
  std::string error;
  rd_kafka_conf_t* conf = build_conf(config_, &error);
  if (!conf) {
    work_.last_error = error;
    return false;
  }
  rd_kafka_conf_set_opaque(conf, this);
  rd_kafka_conf_set_dr_msg_cb(conf, &Drain::on_delivery_cb);
  rd_kafka_conf_set_error_cb(conf, &Drain::on_error_cb);
  rd_kafka_conf_set_log_cb(conf, &forward_librdkafka_log);
  char errstr[512];
  rk_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (!rk_) {
    rd_kafka_conf_destroy(conf);
    work_.last_error = std::string("rd_kafka_new: ") + errstr;
    log::error("kafka.producer_create_failed", "", {{"error", errstr}});
    return false;
  }
  rkt_ = rd_kafka_topic_new(rk_, config_.topic.c_str(), nullptr);
  main_queue_ = rd_kafka_queue_get_main(rk_);
  static const char kByte = 1;
  rd_kafka_queue_io_event_enable(main_queue_, wake_write_, &kByte, 1);
  ++work_.producer_generation;
  log::info("kafka.producer_started", "",
            {{"topic", config_.topic}, {"generation", std::to_string(work_.producer_generation)}});
  return true;
}

// Purges what librdkafka still holds (its reports arrive as __PURGE_* errors and leave the
// rows in the outbox), then destroys the handle.
void Drain::destroy_producer() {
  if (!rk_) return;
  rd_kafka_purge(rk_, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
  serve_events();
  rd_kafka_queue_io_event_enable(main_queue_, -1, nullptr, 0);
  rd_kafka_queue_destroy(main_queue_);
  rd_kafka_topic_destroy(rkt_);
  rd_kafka_destroy(rk_);
  rk_ = nullptr;
  rkt_ = nullptr;
  main_queue_ = nullptr;
  in_flight_.clear();
}

void Drain::on_delivery_cb(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  static_cast<Drain*>(opaque)->on_delivery(m);
}

void Drain::on_error_cb(rd_kafka_t* handle, int err, const char* reason, void* opaque) {
  static_cast<Drain*>(opaque)->on_error(handle, static_cast<rd_kafka_resp_err_t>(err), reason);
}

void Drain::on_delivery(const rd_kafka_message_t* m) {
  const auto seq = static_cast<int64_t>(reinterpret_cast<intptr_t>(m->_private));
  int64_t ingest_ms = 0;
  if (auto it = in_flight_.find(seq); it != in_flight_.end()) {
    ingest_ms = it->second;
    in_flight_.erase(it);
  }
  queue_full_ = false;
  if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    if (to_delete_.empty()) first_delivered_at_ = Clock::now();
    to_delete_.push_back(seq);
    ++work_.delivered;
    ++window_delivered_;
    backoff_ms_ = kInitialBackoffMs;
    const auto latency = static_cast<double>(wall_ms() - ingest_ms);
    if (latency_window_.size() < kLatencySamplesPerWindow) latency_window_.push_back(latency);
    if (log_latency_window_.size() < kLatencySamplesPerWindow) {
      log_latency_window_.push_back(latency);
    }
  } else if (m->err != RD_KAFKA_RESP_ERR__PURGE_QUEUE &&
             m->err != RD_KAFKA_RESP_ERR__PURGE_INFLIGHT) {
    // Purges are ours (rewind/recreate/stop); anything else is a real failure: the row
    // stays and the drain rewinds once everything in flight has settled.
    ++work_.delivery_errors;
    ++work_.delivery_errors_by_code[rd_kafka_err2name(m->err)];
    if (!delivery_failed_) {
      log::warn("kafka.delivery_failed", "",
                {{"seq", std::to_string(seq)},
                 {"error", rd_kafka_err2name(m->err)},
                 {"reason", rd_kafka_err2str(m->err)}});
    }
    work_.last_error = std::string(rd_kafka_err2name(m->err)) + ": " + rd_kafka_err2str(m->err);
    delivery_failed_ = true;
  }
  if (config_.on_delivery) config_.on_delivery(DeliveryReport{seq, ingest_ms, m->err});
}

void Drain::on_error(rd_kafka_t* handle, rd_kafka_resp_err_t err, const char* reason) {
  if (err == RD_KAFKA_RESP_ERR__FATAL) {
    char buf[512];
    rd_kafka_resp_err_t orig = rd_kafka_fatal_error(handle, buf, sizeof buf);
    fatal_ = true;
    work_.last_error = std::string("fatal ") + rd_kafka_err2name(orig) + ": " + buf;
    ++work_.client_errors_by_code[std::string("FATAL_") + rd_kafka_err2name(orig)];
    return;  // reported when the producer is recreated
  }
  std::string name = rd_kafka_err2name(err);
  ++work_.client_errors_by_code[name];
  work_.last_error = name + ": " + reason;
  // Broker-down errors repeat on every reconnect attempt during an outage: one line per
  // error code per minute is enough.
  auto now = Clock::now();
  auto& last = client_error_logged_[name];
  if (last == Clock::time_point{} || now - last >= kClientErrorLogEvery) {
    last = now;
    log::warn("kafka.client_error", "", {{"error", name}, {"reason", reason}});
  }
}

bool Drain::produce(const storage::OutboxRow& row) {
  std::string schema = schema_version_of(row.json);
  rd_kafka_resp_err_t err = rd_kafka_producev(
      rk_, RD_KAFKA_V_RKT(rkt_), RD_KAFKA_V_PARTITION(RD_KAFKA_PARTITION_UA),
      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
      RD_KAFKA_V_KEY(const_cast<char*>(row.charge_point_id.data()), row.charge_point_id.size()),
      RD_KAFKA_V_VALUE(const_cast<char*>(row.json.data()), row.json.size()),
      RD_KAFKA_V_HEADER("event_type", row.event_type.data(),
                        static_cast<ssize_t>(row.event_type.size())),
      RD_KAFKA_V_HEADER("schema_version", schema.data(), static_cast<ssize_t>(schema.size())),
      RD_KAFKA_V_HEADER("ocpp_version", row.ocpp_version.data(),
                        static_cast<ssize_t>(row.ocpp_version.size())),
      RD_KAFKA_V_OPAQUE(reinterpret_cast<void*>(static_cast<intptr_t>(row.seq))), RD_KAFKA_V_END);
  if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    in_flight_.emplace(row.seq, row.ingest_ts_ms);
    ++work_.produced;
    return true;
  }
  if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
    // Pause: the next delivery report wakes the loop (io event on the main queue).
    queue_full_ = true;
    ++work_.queue_full_pauses;
    return false;
  }
  if (err == RD_KAFKA_RESP_ERR__FATAL) {
    fatal_ = true;
    return false;
  }
  // Local, per-message refusal (e.g. larger than message.max.bytes). Never dropped: the row
  // stays and is retried after a back-off; the error is counted and logged.
  ++work_.delivery_errors;
  ++work_.delivery_errors_by_code[rd_kafka_err2name(err)];
  work_.last_error = std::string(rd_kafka_err2name(err)) + ": " + rd_kafka_err2str(err);
  log::error("kafka.produce_refused", row.charge_point_id,
             {{"seq", std::to_string(row.seq)}, {"error", rd_kafka_err2name(err)}});
  delivery_failed_ = true;
  return false;
}

void Drain::serve_events() {
  if (!rk_) return;
  while (rd_kafka_poll(rk_, 0) > 0) {
  }
}

}  // namespace ocppgw::kafka
