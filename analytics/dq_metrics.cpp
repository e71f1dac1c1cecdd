// analytics/dq_metrics.cpp: the data-quality tables and the conservation check of a batch.
// Rules: docs/analytics_rules.md (analytics/spark/ implements the same specification).
#include "analytics/dq_metrics.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "analytics/pipeline_state.hpp"
#include "util/time.hpp"

namespace ocppgw::analytics {

using nlohmann::json;
using storage::Status;

namespace {

// Upper bounds (ms) of the lag histogram's buckets, from "no lag" to a week and beyond.
constexpr std::array<int64_t, 13> kLagBuckets = {0,        1000,      5000,     10000,   30000,
                                                 60000,    300000,    900000,   3600000, 21600000,
                                                 86400000, 604800000, INT64_MAX};

// Nearest-rank percentiles; negative lags (device clock ahead) count in the first bucket.
Status record_lags(storage::Db& db, Batch& b, BatchReport& r) {
  Status s;
  if (b.lags.empty()) return s;
  std::sort(b.lags.begin(), b.lags.end());
  auto pct = [&](double p) {
    size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(b.lags.size())));
    return b.lags[std::min(b.lags.size() - 1, rank == 0 ? 0 : rank - 1)];
  };
  r.lag_p50_ms = pct(0.50);
  r.lag_p95_ms = pct(0.95);
  r.lag_p99_ms = pct(0.99);
  std::map<int64_t, int64_t> buckets;
  for (int64_t lag : b.lags)
    ++buckets[*std::lower_bound(kLagBuckets.begin(), kLagBuckets.end(), std::max<int64_t>(0, lag))];
  for (const auto& [upper, n] : buckets) {
    if (!s.ok()) break;
    s = db.cached(
              "INSERT INTO dq_lag_histogram(bucket_upper_ms, events) VALUES(?1, ?2) "
              "ON CONFLICT(bucket_upper_ms) DO UPDATE SET events = events + excluded.events")
            .bind(1, upper)
            .bind(2, n)
            .run();
  }
  return s;
}

Status record_clock_skew(storage::Db& db, const Batch& b) {
  Status s;
  for (const auto& [cp, sk] : b.skew) {
    if (!s.ok()) break;
    s = db.cached(
              "INSERT INTO dq_clock_skew(charge_point_id, events, skewed_events, max_ahead_ms, "
              "last_offset_ms) VALUES(?1, ?2, ?3, ?4, ?5) ON CONFLICT(charge_point_id) DO UPDATE "
              "SET events = events + excluded.events, "
              "skewed_events = skewed_events + excluded.skewed_events, "
              "max_ahead_ms = MAX(max_ahead_ms, excluded.max_ahead_ms), "
              "last_offset_ms = excluded.last_offset_ms")
            .bind(1, cp)
            .bind(2, sk.events)
            .bind(3, sk.skewed)
            .bind(4, sk.max_ahead)
            .bind(5, sk.last_offset)
            .run();
  }
  return s;
}

// Zero counts are skipped so dq_totals only lists metrics that ever happened.
Status add_totals(storage::Db& db, const Batch& b, const BatchReport& r) {
  std::vector<std::pair<std::string, int64_t>> totals = {
      {"raw", r.raw},
      {"silver_net", r.silver},
      {"technical_duplicates", r.technical_duplicates},
      {"business_duplicates", r.business_duplicates},
      {"quarantined", r.quarantined},
      {"conflicts", r.conflicts},
      {"demoted_winners", r.demoted_winners},
      {"unknown_field_events", r.unknown_field_events},
      {"validated_events", static_cast<int64_t>(b.lags.size())},
  };
  for (const auto& [reason_code, n] : r.quarantined_by_reason)
    totals.emplace_back("quarantine:" + reason_code, n);
  Status s;
  for (const auto& [metric, n] : totals) {
    if (!s.ok()) break;
    if (n == 0) continue;
    s = db.cached(
              "INSERT INTO dq_totals(metric, value) VALUES(?1, ?2) "
              "ON CONFLICT(metric) DO UPDATE SET value = value + excluded.value")
            .bind(1, metric)
            .bind(2, n)
            .run();
  }
  return s;
}

// The raw counter is kept by the pipeline and the other three from what SQLite reports it wrote
// (pipeline_state.hpp), so a lost or doubled write on either side shows up here.
Status check_conservation(storage::Db& db, const Batch& b, BatchReport& r) {
  int64_t raw_total = read_state(db, "raw_total") + r.raw;
  Status s = write_state(db, "raw_total", raw_total);
  if (!s.ok()) return s;
  r.totals = read_counts(db);
  r.conservation_ok = r.totals.ok();
  if (r.conservation_ok) return s;
  std::string detail = "raw " + std::to_string(r.totals.raw) + " != silver " +
                       std::to_string(r.totals.silver) + " + duplicates " +
                       std::to_string(r.totals.duplicates) + " + quarantine " +
                       std::to_string(r.totals.quarantine);
  spdlog::error("analytics conservation violated after batch {}: {}", b.batch_id, detail);
  s = db.cached("INSERT INTO dq_alerts(raised_at, kind, batch_id, detail) VALUES(?1, ?2, ?3, ?4)")
          .bind(1, util::now_ms())
          .bind(2, "CONSERVATION_VIOLATION")
          .bind(3, b.batch_id)
          .bind(4, detail)
          .run();
  if (s.ok())
    s = write_state(db, "conservation_violations", read_state(db, "conservation_violations") + 1);
  if (s.ok()) s = write_state(db, "alerts_total", read_state(db, "alerts_total") + 1);
  return s;
}

Status insert_batch_row(storage::Db& db, const Batch& b, const BatchReport& r) {
  json reasons = json::object();
  for (const auto& [k, v] : r.quarantined_by_reason) reasons[k] = v;
  return db
      .cached(
          "INSERT INTO dq_batches(batch_id, source, finished_at, raw, silver, "
          "technical_duplicates, business_duplicates, quarantined, quarantined_by_reason, "
          "conflicts, demoted_winners, unknown_field_events, lag_p50_ms, lag_p95_ms, "
          "lag_p99_ms, sessions_recomputed, sessions_swept, raw_total, silver_total, "
          "duplicate_total, quarantine_total, conservation_ok, duration_us) VALUES(?1, ?2, "
          "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
          "?20, ?21, ?22, ?23)")
      .bind(1, b.batch_id)
      .bind(2, b.source_name)
      .bind(3, util::now_ms())
      .bind(4, r.raw)
      .bind(5, r.silver)
      .bind(6, r.technical_duplicates)
      .bind(7, r.business_duplicates)
      .bind(8, r.quarantined)
      .bind(9, reasons.dump())
      .bind(10, r.conflicts)
      .bind(11, r.demoted_winners)
      .bind(12, r.unknown_field_events)
      .bind(13, r.lag_p50_ms)
      .bind(14, r.lag_p95_ms)
      .bind(15, r.lag_p99_ms)
      .bind(16, r.sessions_recomputed)
      .bind(17, r.sessions_swept)
      .bind(18, r.totals.raw)
      .bind(19, r.totals.silver)
      .bind(20, r.totals.duplicates)
      .bind(21, r.totals.quarantine)
      .bind(22, static_cast<int64_t>(r.conservation_ok))
      .bind(23, r.duration_us)
      .run();
}

}  // namespace

Status record_batch_metrics(storage::Db& db, Batch& b, BatchReport& r) {
  Status s = record_lags(db, b, r);
  if (s.ok()) s = record_clock_skew(db, b);
  if (s.ok()) s = add_totals(db, b, r);
  if (s.ok()) s = check_conservation(db, b, r);
  if (s.ok()) s = insert_batch_row(db, b, r);
  return s;
}

}  // namespace ocppgw::analytics
