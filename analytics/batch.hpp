// analytics/batch.hpp: the working state of one pipeline batch (Item: one input and its fate;
// Batch: the Gold keys it touched and the metrics it gathered) and the Silver row codec
// (kSilverColumns, bind_event, event_from_silver_row) that the Silver writer and the Gold
// recompute share, so the column list is spelled once. Internal to the pipeline: pipeline.hpp
// only forward-declares Item and Batch.
// Threading: a Batch and its Items belong to the batch's thread (the pipeline's writer) and
// live for one call of Pipeline::run_batch or Pipeline::reconcile.
#pragma once

#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "analytics/batch_report.hpp"
#include "analytics/event.hpp"
#include "analytics/gold_rules.hpp"
#include "analytics/silver_rules.hpp"
#include "storage/db.hpp"

namespace ocppgw::analytics {

// silver_events columns in the order bind_event binds them and event_from_silver_row reads them.
inline constexpr const char* kSilverColumns =
    "event_id, business_key, charge_point_id, connector_id, evse_id, event_type, ocpp_action, "
    "message_id, event_ts, ingest_ts, transaction_id, seq_no, trigger_reason, meter_wh, power_w, "
    "current_a, voltage_v, soc_pct, connector_status, error_code, stop_reason, id_token_hash, "
    "ocpp_version, schema_version, gateway_node, flags, extra";

// The condition of the partial index silver_cp_type_ts (every row but the meter readings of
// transactions; migrations/0003_health_index_without_session_readings.sql). SQLite uses a
// partial index only for a query whose WHERE contains this very term, so its readers add it
// with AND; a reader that needs those readings must find them elsewhere
// (charge_point_health takes them from charging_sessions).
inline constexpr const char* kOutsideSessions =
    "(event_type <> 'MeterValues' OR transaction_id IS NULL)";

std::string flags_json(const std::vector<std::string>& flags);
// Binds the kSilverColumns of `e` to parameters i .. i + 26.
void bind_event(storage::Statement& st, int i, const Event& e, const std::string& business_key);
// Reads a Silver row selected with kSilverColumns starting at column `c`.
Event event_from_silver_row(const storage::Statement& st, int c);

// (charge_point_id, transaction_id): one charging session.
using SessionKey = std::pair<std::string, std::string>;
// (charge_point_id, evse_id, connector_id), a missing id as 0.
using ConnectorKey = std::tuple<std::string, int64_t, int64_t>;

struct Item {
  std::optional<Event> event;  // normalised; set when the verdict is ok
  Verdict verdict;
  std::string raw;  // original text ("" for typed input until needed)
  const Event* original = nullptr;
  std::optional<std::string> kafka_key;
  std::optional<std::string> event_id, charge_point_id;
  bool counts_raw = true;
  std::optional<int64_t> replay_of;
  std::string outcome;

  // Typed input is serialised only when it has to be stored verbatim (audit, quarantine).
  const std::string& raw_text();
};

// An already typed event (the sink); `e` must outlive the item.
Item item_from_event(const Event& e, const SilverRules& rules);
// JSON text (event log, Kafka, JSON lines, a quarantine row).
Item item_from_text(const std::string& text, const std::optional<std::string>& kafka_key,
                    const SilverRules& rules);

struct SkewStat {
  int64_t events = 0, skewed = 0, max_ahead = 0, last_offset = 0;
};

struct Batch {
  int64_t batch_id = 0;
  Source source = Source::Live;
  std::string source_name;
  BatchReport* report = nullptr;
  // Gold keys to recompute. A connector maps to the earliest event_ts among this batch's status
  // events (its history is rewritten from there); nullopt rewrites the whole history.
  std::set<SessionKey> sessions;
  std::map<ConnectorKey, std::optional<int64_t>> connectors;
  std::set<std::string> charge_points;
  std::set<std::pair<std::string, std::string>> days;  // (charge_point_id, stats_day)
  // Rows SQLite reports inserted into each Silver output (sqlite3_changes of each insert),
  // added to table_counts once per batch; see analytics/migrations/0002.
  struct {
    int64_t silver = 0, duplicates = 0, quarantine = 0;
  } inserted;
  std::vector<int64_t> lags;
  std::map<std::string, SkewStat> skew;
  int64_t validated_clock = INT64_MIN;
  // Session events this batch added to Silver (to extend cached folds), and sessions that lost
  // a Silver row (a demoted winner, a conflict): those are recomputed from Silver.
  std::map<SessionKey, std::vector<SessionEvent>> session_additions;
  std::set<SessionKey> sessions_rewritten;

  void added_to_silver(const Event& e);
  void removed_from_silver(const Event& e);
  // Marks the Gold keys `e` feeds for recompute.
  void touch(const Event& e);
};

}  // namespace ocppgw::analytics
