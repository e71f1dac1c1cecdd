// analytics/batch_report.hpp: what one pipeline batch takes in and reports back (RawInput,
// Source, BatchReport) and the conservation counts it checks. Plain values with no store behind
// them, so the CLI, the live worker and the tests can use them without the writer; pipeline.hpp
// includes this header. Threading: value types, no shared state.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "storage/db.hpp"

namespace ocppgw::analytics {

enum class Source { Live, EventLog, Kafka, File, QuarantineReplay, Maintenance };
std::string_view to_string(Source s);

// One replayed message: the canonical event JSON and, for Kafka, the message key.
struct RawInput {
  std::string text;
  std::optional<std::string> kafka_key;
};

// The conservation law: every raw event ends up in exactly one of Silver, the duplicate audit or
// live quarantine (status <> REPLAYED).
struct ConservationCounts {
  int64_t raw = 0, silver = 0, duplicates = 0, quarantine = 0;
  bool ok() const { return raw == silver + duplicates + quarantine; }
};

struct BatchReport {
  storage::Status status;
  int64_t batch_id = 0;
  Source source = Source::Live;
  int64_t raw = 0, silver = 0, technical_duplicates = 0, business_duplicates = 0, quarantined = 0;
  std::map<std::string, int64_t> quarantined_by_reason;
  int64_t conflicts = 0, demoted_winners = 0, unknown_field_events = 0, replayed = 0;
  int64_t sessions_recomputed = 0, sessions_read = 0, sessions_swept = 0, connectors_recomputed = 0,
          charge_points_recomputed = 0, days_recomputed = 0;
  std::optional<int64_t> lag_p50_ms, lag_p95_ms, lag_p99_ms;
  ConservationCounts totals;
  bool conservation_ok = true;
  int64_t data_clock_ms = 0;
  int64_t duration_us = 0;
  nlohmann::json to_json() const;
};

}  // namespace ocppgw::analytics
