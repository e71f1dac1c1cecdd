// analytics/gold_rules.cpp: pure Gold derivations (see gold_rules.hpp).
// Rules: docs/analytics_rules.md (analytics/spark/ implements the same specification).
#include "analytics/gold_rules.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include <openssl/sha.h>

#include "util/hex.hpp"
#include "util/time.hpp"

namespace ocppgw::analytics {
namespace {

template <typename T>
void put(std::string& s, const std::optional<T>& v) {
  if (!v) {
    s += "~|";
    return;
  }
  if constexpr (std::is_same_v<T, double>) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", *v);
    s += buf;
  } else if constexpr (std::is_same_v<T, std::string>) {
    s += *v;
  } else {
    s += std::to_string(*v);
  }
  s += '|';
}

std::optional<std::string> extra_text(const nlohmann::json& extra,
                                      std::initializer_list<const char*> path) {
  const nlohmann::json* cur = &extra;
  for (const char* k : path) {
    if (!cur->is_object()) return std::nullopt;
    auto it = cur->find(k);
    if (it == cur->end()) return std::nullopt;
    cur = &*it;
  }
  if (cur->is_string()) return cur->get<std::string>();
  return std::nullopt;
}

}  // namespace

double round_kwh(double kwh) { return std::round(kwh * 1e6) / 1e6; }

std::string day_of(int64_t ts_ms, int offset_minutes) {
  return util::format_rfc3339_ms(ts_ms + static_cast<int64_t>(offset_minutes) * 60000)
      .substr(0, 10);
}

std::string make_session_id(std::string_view charge_point_id, std::string_view transaction_id) {
  std::string s(charge_point_id);
  s += '|';
  s += transaction_id;
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(s.data()), s.size(), digest);
  return util::to_hex(digest, 16);
}

bool SessionFold::before(const SessionEvent& a, const SessionEvent& b) {
  auto key = [](const SessionEvent& e) {
    return std::tuple<int64_t, int64_t, double, int64_t, const std::string&>(
        e.event_ts, e.seq_no.value_or(-1), e.meter_wh.value_or(-1.0), e.ingest_ts, e.event_id);
  };
  return key(a) < key(b);
}

void SessionFold::add(const SessionEvent& e) {
  if (count_++ == 0) first_ts_ = e.event_ts;
  if (e.type == EventType::StartTransaction && !start_)
    start_ = Reading{e.event_ts, e.meter_wh, e.connector_id, std::nullopt};
  if (e.type == EventType::StopTransaction && !stop_)
    stop_ = Reading{e.event_ts, e.meter_wh, e.connector_id, e.stop_reason};
  if (!first_connector_) first_connector_ = e.connector_id;
  skew_ = skew_ || e.clock_skew;
  if (e.meter_wh) {
    if (prev_meter_) {
      if (*e.meter_wh < *prev_meter_)
        anomaly_ = true;
      else
        positive_wh_ += *e.meter_wh - *prev_meter_;
    }
    prev_meter_ = e.meter_wh;
  }
  last_ = e;
}

SessionRow SessionFold::finish(std::string_view charge_point_id, std::string_view transaction_id,
                               bool conflict, int64_t data_clock_ms, const GoldRules& rules) const {
  SessionRow r;
  r.session_id = make_session_id(charge_point_id, transaction_id);
  r.charge_point_id = std::string(charge_point_id);
  r.transaction_id = std::string(transaction_id);
  r.event_count = count_;
  if (last_) {
    r.first_event_ts = first_ts_;
    r.last_event_ts = last_->event_ts;
  }
  r.connector_id = start_ && start_->connector_id ? start_->connector_id : first_connector_;
  if (start_) {
    r.start_ts = start_->ts;
    r.meter_start_wh = start_->meter_wh;
  }
  if (stop_) {
    r.stop_ts = stop_->ts;
    r.meter_stop_wh = stop_->meter_wh;
    r.stop_reason = stop_->stop_reason;
  }
  if (r.start_ts && r.stop_ts)
    r.duration_seconds = std::max<int64_t>(0, (*r.stop_ts - *r.start_ts) / 1000);

  bool anomaly = anomaly_;
  r.last_meter_wh = prev_meter_;
  if (r.meter_start_wh && r.meter_stop_wh && *r.meter_stop_wh < *r.meter_start_wh) anomaly = true;
  if (start_ && stop_ && r.meter_start_wh && r.meter_stop_wh && !anomaly) {
    r.energy_kwh = round_kwh((*r.meter_stop_wh - *r.meter_start_wh) / 1000.0);
    r.energy_is_final = true;
  } else if (prev_meter_) {
    r.energy_kwh = round_kwh(positive_wh_ / 1000.0);
  }

  bool timed_out = !stop_ && data_clock_ms - r.last_event_ts > rules.session_timeout_ms;
  if (start_ && stop_)
    r.session_status = "COMPLETED";
  else if (!start_)
    r.session_status = "START_MISSING";
  else if (timed_out)
    r.session_status = "TIMED_OUT";
  else
    r.session_status = "IN_PROGRESS";
  r.is_open = !stop_ && !timed_out;
  if (!start_) r.quality_flags.emplace_back("START_MISSING");
  if (timed_out) r.quality_flags.emplace_back("STOP_MISSING");
  if (anomaly) r.quality_flags.emplace_back("METER_ANOMALY");
  if (conflict) r.quality_flags.emplace_back("CONFLICT");
  if (skew_) r.quality_flags.emplace_back("CLOCK_SKEW");
  std::sort(r.quality_flags.begin(), r.quality_flags.end());
  r.stats_day = day_of(r.start_ts.value_or(r.first_event_ts), rules.day_offset_minutes);

  std::string h;
  put(h, std::optional(r.charge_point_id));
  put(h, r.connector_id);
  put(h, std::optional(r.transaction_id));
  put(h, r.start_ts);
  put(h, r.stop_ts);
  put(h, std::optional(r.first_event_ts));
  put(h, std::optional(r.last_event_ts));
  put(h, r.duration_seconds);
  put(h, r.meter_start_wh);
  put(h, r.meter_stop_wh);
  put(h, r.last_meter_wh);
  put(h, r.energy_kwh);
  put(h, std::optional<int64_t>(r.energy_is_final));
  put(h, std::optional(r.session_status));
  put(h, r.stop_reason);
  put(h, std::optional(r.event_count));
  for (const auto& f : r.quality_flags) h += f + ",";
  put(h, std::optional(r.stats_day));
  put(h, std::optional<int64_t>(r.is_open));
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(h.data()), h.size(), digest);
  r.row_hash = util::to_hex(digest, 8);
  return r;
}

SessionRow compute_session(std::string_view charge_point_id, std::string_view transaction_id,
                           std::vector<SessionEvent> events, bool conflict, int64_t data_clock_ms,
                           const GoldRules& rules) {
  std::sort(events.begin(), events.end(), SessionFold::before);
  SessionFold fold;
  for (const auto& e : events) fold.add(e);
  return fold.finish(charge_point_id, transaction_id, conflict, data_clock_ms, rules);
}

std::vector<StatusInterval> compute_status_intervals(std::vector<StatusEvent> events) {
  std::sort(events.begin(), events.end(), [](const StatusEvent& a, const StatusEvent& b) {
    return std::tuple(a.event_ts, a.seq_no.value_or(-1), a.event_id) <
           std::tuple(b.event_ts, b.seq_no.value_or(-1), b.event_id);
  });
  std::vector<StatusInterval> out;
  out.reserve(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    StatusInterval s;
    s.valid_from = events[i].event_ts;
    if (i + 1 < events.size()) s.valid_to = events[i + 1].event_ts;
    s.event_id = events[i].event_id;
    s.status = events[i].status;
    s.error_code = events[i].error_code;
    s.seq_no = events[i].seq_no;
    out.push_back(std::move(s));
  }
  return out;
}

HealthRow compute_health(const HealthInput& in, int64_t data_clock_ms, const GoldRules& rules) {
  HealthRow h;
  h.last_heartbeat_ts = in.last_heartbeat_ts;
  h.last_seen_ts = in.last_seen_ts;
  h.connection_state = in.connection_state;
  h.connection_ts = in.connection_ts;
  h.boot_ts = in.boot_ts;
  const auto& b = in.boot_extra;
  h.vendor = extra_text(b, {"chargePointVendor"});
  if (!h.vendor) h.vendor = extra_text(b, {"chargingStation", "vendorName"});
  h.model = extra_text(b, {"chargePointModel"});
  if (!h.model) h.model = extra_text(b, {"chargingStation", "model"});
  h.firmware_version = extra_text(b, {"firmwareVersion"});
  if (!h.firmware_version)
    h.firmware_version = extra_text(b, {"chargingStation", "firmwareVersion"});
  h.heartbeat_interval_s = rules.default_heartbeat_interval_s;
  if (b.is_object()) {
    if (auto it = b.find("interval");
        it != b.end() && it->is_number_integer() && it->get<int64_t>() > 0)
      h.heartbeat_interval_s = it->get<int64_t>();
  }
  h.offline_deadline_ts =
      h.last_seen_ts + rules.missed_heartbeats_offline * h.heartbeat_interval_s * 1000;
  if (in.connection_state == "disconnected" && in.connection_ts &&
      *in.connection_ts >= in.last_seen_ts)
    h.liveness = "DISCONNECTED";
  else if (data_clock_ms > h.offline_deadline_ts)
    h.liveness = "OFFLINE";
  else
    h.liveness = "ONLINE";
  return h;
}

DailyRow compute_daily(std::vector<SessionRow> sessions) {
  std::sort(sessions.begin(), sessions.end(), [](const SessionRow& a, const SessionRow& b) {
    return a.transaction_id < b.transaction_id;
  });
  DailyRow d;
  double duration_sum = 0;
  int64_t durations = 0;
  for (const auto& s : sessions) {
    ++d.sessions_total;
    if (s.start_ts) ++d.sessions_started;
    if (s.session_status == "COMPLETED") {
      ++d.sessions_completed;
      if (s.duration_seconds) {
        duration_sum += static_cast<double>(*s.duration_seconds);
        ++durations;
      }
    } else if (s.session_status == "TIMED_OUT") {
      ++d.sessions_timed_out;
    } else if (s.session_status == "IN_PROGRESS") {
      ++d.sessions_in_progress;
    } else {
      ++d.sessions_start_missing;
    }
    if (s.energy_kwh)
      (s.energy_is_final ? d.energy_kwh_final : d.energy_kwh_provisional) += *s.energy_kwh;
  }
  d.energy_kwh_final = round_kwh(d.energy_kwh_final);
  d.energy_kwh_provisional = round_kwh(d.energy_kwh_provisional);
  if (durations > 0)
    d.avg_duration_seconds =
        std::round(duration_sum / static_cast<double>(durations) * 1000) / 1000;
  return d;
}

}  // namespace ocppgw::analytics
