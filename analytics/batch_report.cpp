// analytics/batch_report.cpp: names of the sources and the JSON form of a batch report.
#include "analytics/batch_report.hpp"

#include "util/time.hpp"

namespace ocppgw::analytics {

using nlohmann::json;

std::string_view to_string(Source s) {
  switch (s) {
    case Source::Live:
      return "live";
    case Source::EventLog:
      return "event_log";
    case Source::Kafka:
      return "kafka";
    case Source::File:
      return "file";
    case Source::QuarantineReplay:
      return "quarantine_replay";
    case Source::Maintenance:
      return "maintenance";
  }
  return "unknown";
}

nlohmann::json BatchReport::to_json() const {
  json j = {
      {"ok", status.ok()},
      {"batch_id", batch_id},
      {"source", std::string(ocppgw::analytics::to_string(source))},
      {"raw", raw},
      {"silver", silver},
      {"technical_duplicates", technical_duplicates},
      {"business_duplicates", business_duplicates},
      {"quarantined", quarantined},
      {"quarantined_by_reason", quarantined_by_reason},
      {"conflicts", conflicts},
      {"demoted_winners", demoted_winners},
      {"unknown_field_events", unknown_field_events},
      {"replayed", replayed},
      {"sessions_recomputed", sessions_recomputed},
      {"sessions_read", sessions_read},
      {"sessions_swept", sessions_swept},
      {"connectors_recomputed", connectors_recomputed},
      {"charge_points_recomputed", charge_points_recomputed},
      {"days_recomputed", days_recomputed},
      {"lag_p50_ms", lag_p50_ms ? json(*lag_p50_ms) : json(nullptr)},
      {"lag_p95_ms", lag_p95_ms ? json(*lag_p95_ms) : json(nullptr)},
      {"lag_p99_ms", lag_p99_ms ? json(*lag_p99_ms) : json(nullptr)},
      {"totals",
       {{"raw", totals.raw},
        {"silver", totals.silver},
        {"duplicates", totals.duplicates},
        {"quarantine", totals.quarantine}}},
      {"conservation_ok", conservation_ok},
      {"data_clock", util::format_rfc3339_ms(data_clock_ms)},
      {"duration_us", duration_us},
  };
  if (!status.ok()) j["error"] = status.message();
  return j;
}

}  // namespace ocppgw::analytics
