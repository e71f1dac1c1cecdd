// analytics/gold_rules.hpp: the Gold derivations as pure functions of Silver rows (no SQL).
// The Pipeline fetches all Silver rows of an affected key, calls these, and writes the result;
// reconcile() calls the same functions, so "Gold is a pure function of Silver" is one code path.
//
// Session state machine, evaluated on the pipeline's data clock:
//   start and stop present ................................ COMPLETED
//   no start (meter/stop seen first, or start lost) ....... START_MISSING (repaired when it comes)
//   start, no stop, data_clock - last_event_ts > timeout .. TIMED_OUT (a late stop -> COMPLETED)
//   otherwise ............................................. IN_PROGRESS
// Energy (kWh, rounded to mWh; never negative):
//   final      = (meter_stop - meter_start) / 1000, only with both readings and no anomaly;
//   otherwise  = provisional: the sum of positive deltas between consecutive readings in event
//                order (equals last - start for a monotonic meter; a lower bound across a reset).
//   METER_ANOMALY: a reading lower than its predecessor (reset, replacement, rollover) or
//   meter_stop < meter_start; such a session is never final.
// Flags: START_MISSING, STOP_MISSING (timed out without a stop), METER_ANOMALY, CONFLICT (an
// unresolved CONFLICT quarantine row belongs to the session), CLOCK_SKEW (an event's device time
// is ahead of its receive time).
// Rules: docs/analytics_rules.md (analytics/spark/ implements the same specification).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analytics/event.hpp"

namespace ocppgw::analytics {

struct GoldRules {
  int64_t session_timeout_ms = 24LL * 3600 * 1000;
  // charging_stats_daily day boundaries: a fixed offset from UTC in minutes (0 = UTC). A fixed
  // offset (not a tz database zone) keeps the derivation free of DST tables; deployments
  // spanning DST pick the offset they report in.
  int day_offset_minutes = 0;
  int64_t default_heartbeat_interval_s = 300;  // when the boot response carried none
  int missed_heartbeats_offline = 3;
};

struct SessionEvent {
  std::string event_id;
  EventType type = EventType::MeterValues;
  int64_t event_ts = 0;
  int64_t ingest_ts = 0;
  std::optional<int64_t> seq_no;
  std::optional<double> meter_wh;
  std::optional<int64_t> connector_id;
  std::optional<std::string> stop_reason;
  bool clock_skew = false;
};

struct SessionRow {
  std::string session_id;
  std::string charge_point_id;
  std::optional<int64_t> connector_id;
  std::string transaction_id;
  std::optional<int64_t> start_ts, stop_ts;
  int64_t first_event_ts = 0, last_event_ts = 0;
  std::optional<int64_t> duration_seconds;
  std::optional<double> meter_start_wh, meter_stop_wh, last_meter_wh, energy_kwh;
  bool energy_is_final = false;
  std::string session_status;
  std::optional<std::string> stop_reason;
  int64_t event_count = 0;
  std::vector<std::string> quality_flags;  // sorted
  std::string stats_day;
  bool is_open = false;
  std::string row_hash;
};

// `events` must be non-empty; order does not matter (they are sorted here by event_ts, seq_no,
// meter_wh, ingest_ts, event_id).
SessionRow compute_session(std::string_view charge_point_id, std::string_view transaction_id,
                           std::vector<SessionEvent> events, bool conflict, int64_t data_clock_ms,
                           const GoldRules& rules);

// compute_session as a left fold over the events in its sort order. compute_session is
// "sort, add every event, finish"; the Pipeline keeps a session's fold between batches so that
// events arriving in order extend it without reading the session's earlier events again (a long
// session would otherwise cost O(its length) per batch).
class SessionFold {
 public:
  // compute_session's sort order.
  static bool before(const SessionEvent& a, const SessionEvent& b);
  // True when `e` sorts after every event added so far, i.e. add(e) gives the same result as
  // a full recompute.
  bool extends(const SessionEvent& e) const { return !last_ || before(*last_, e); }
  // Events must come in sort order (extends() true).
  void add(const SessionEvent& e);
  bool empty() const { return count_ == 0; }
  SessionRow finish(std::string_view charge_point_id, std::string_view transaction_id,
                    bool conflict, int64_t data_clock_ms, const GoldRules& rules) const;

 private:
  struct Reading {
    int64_t ts = 0;
    std::optional<double> meter_wh;
    std::optional<int64_t> connector_id;
    std::optional<std::string> stop_reason;
  };
  int64_t count_ = 0;
  int64_t first_ts_ = 0;
  std::optional<SessionEvent> last_;
  std::optional<Reading> start_, stop_;  // the first of each in sort order
  std::optional<int64_t> first_connector_;
  bool skew_ = false;
  bool anomaly_ = false;    // a reading below its predecessor
  double positive_wh_ = 0;  // sum of positive deltas between consecutive readings
  std::optional<double> prev_meter_;
};

struct StatusEvent {
  std::string event_id;
  int64_t event_ts = 0;
  std::optional<int64_t> seq_no;
  std::string status;
  std::optional<std::string> error_code;
};
struct StatusInterval {
  int64_t valid_from = 0;
  std::optional<int64_t> valid_to;
  std::string event_id;
  std::string status;
  std::optional<std::string> error_code;
  std::optional<int64_t> seq_no;
};
// Orders by event_ts, then seq_no (2.0.1), then event_id; each event opens an interval that the
// next one closes. The last interval is the connector's current status.
std::vector<StatusInterval> compute_status_intervals(std::vector<StatusEvent> events);

struct HealthInput {
  std::optional<int64_t> last_heartbeat_ts;
  int64_t last_seen_ts = 0;
  std::optional<std::string> connection_state;
  std::optional<int64_t> connection_ts;
  std::optional<int64_t> boot_ts;
  nlohmann::json boot_extra;  // extra of the latest BootNotification
};
struct HealthRow {
  std::optional<int64_t> last_heartbeat_ts;
  int64_t last_seen_ts = 0;
  std::optional<std::string> connection_state;
  std::optional<int64_t> connection_ts;
  std::optional<int64_t> boot_ts;
  std::optional<std::string> vendor, model, firmware_version;
  int64_t heartbeat_interval_s = 0;
  int64_t offline_deadline_ts = 0;
  std::string liveness;  // ONLINE | OFFLINE | DISCONNECTED
};
// OFFLINE once the data clock passes last_seen + N * heartbeat interval (any message counts as
// a sign of life, as OCPP lets a busy charger skip heartbeats); DISCONNECTED when the latest
// Connection event says so and nothing was seen after it.
HealthRow compute_health(const HealthInput& in, int64_t data_clock_ms, const GoldRules& rules);

struct DailyRow {
  int64_t sessions_total = 0, sessions_started = 0, sessions_completed = 0, sessions_timed_out = 0,
          sessions_in_progress = 0, sessions_start_missing = 0;
  double energy_kwh_final = 0, energy_kwh_provisional = 0;
  std::optional<double> avg_duration_seconds;
};
// Sessions of one charge point whose stats_day is the day; summed in transaction_id order so
// floating-point results do not depend on storage order.
DailyRow compute_daily(std::vector<SessionRow> sessions);

// YYYY-MM-DD of `ts_ms` shifted by the offset.
std::string day_of(int64_t ts_ms, int offset_minutes);
// 32 hex chars of SHA-256(charge_point_id '|' transaction_id).
std::string make_session_id(std::string_view charge_point_id, std::string_view transaction_id);
double round_kwh(double kwh);

}  // namespace ocppgw::analytics
