// kafka/drain_stats.cpp: Drain's statistics (see drain.hpp): outbox depth and age, publish rate
// and latency percentiles per stats window, the periodic kafka.stats log line, the outbox
// high-water alert, and the snapshot that stats() hands to other threads.
#include <algorithm>
#include <optional>

#include "kafka/drain.hpp"
#include "util/logging.hpp"

namespace ocppgw::kafka {

using storage::Status;

namespace {

std::string fmt_opt(const std::optional<double>& v) {
  return v ? std::to_string(static_cast<int64_t>(*v)) : "-";
}

std::optional<double> percentile(std::vector<double>& v, double q) {
  if (v.empty()) return std::nullopt;
  size_t idx = static_cast<size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(idx), v.end());
  return v[idx];
}

}  // namespace

void Drain::refresh_stats(bool force) {
  auto now = Clock::now();
  if (!force && now < next_refresh_) return;
  next_refresh_ = now + std::chrono::milliseconds(std::max(config_.stats_refresh_ms, 10));
  Status s;
  // Rows delivered but not yet deleted are not waiting for Kafka.
  work_.outbox_depth =
      std::max<int64_t>(0, outbox_->depth(&s) - static_cast<int64_t>(to_delete_.size()));
  auto oldest = outbox_->oldest_ingest_ms(&s);
  work_.oldest_unpublished_age_ms =
      oldest ? std::optional<int64_t>(std::max<int64_t>(0, wall_ms() - *oldest)) : std::nullopt;
  if (!s.ok()) work_.last_error = "outbox stats: " + s.message();
  double secs = std::chrono::duration<double>(now - window_start_).count();
  if (secs > 0) work_.publish_rate = static_cast<double>(window_delivered_) / secs;
  window_start_ = now;
  window_delivered_ = 0;
  work_.latency_p50_ms = percentile(latency_window_, 0.50);
  work_.latency_p99_ms = percentile(latency_window_, 0.99);
  latency_window_.clear();
  work_.in_flight = static_cast<int64_t>(in_flight_.size());
  check_high_water();
  if (config_.stats_log_interval_s > 0 && now >= next_log_) {
    next_log_ = now + std::chrono::seconds(config_.stats_log_interval_s);
    // Over the whole log interval, unlike publish_rate (last stats window).
    const double log_secs = std::chrono::duration<double>(now - last_log_at_).count();
    const auto log_rate = static_cast<int64_t>(
        log_secs > 0 ? static_cast<double>(work_.delivered - delivered_at_last_log_) / log_secs
                     : 0);
    last_log_at_ = now;
    delivered_at_last_log_ = work_.delivered;
    log::info(
        "kafka.stats", "",
        {{"enabled", work_.enabled ? "true" : "false"},
         {"outbox_depth", std::to_string(work_.outbox_depth)},
         {"oldest_age_ms",
          work_.oldest_unpublished_age_ms ? std::to_string(*work_.oldest_unpublished_age_ms) : "-"},
         {"rate", std::to_string(log_rate)},
         {"delivered", std::to_string(work_.delivered)},
         {"in_flight", std::to_string(work_.in_flight)},
         {"errors", std::to_string(work_.delivery_errors)},
         {"latency_p50_ms", fmt_opt(percentile(log_latency_window_, 0.50))},
         {"latency_p99_ms", fmt_opt(percentile(log_latency_window_, 0.99))}});
    log_latency_window_.clear();
  }
}

// One warning per upward crossing; cleared below 90% so a depth hovering at the mark does
// not flap.
void Drain::check_high_water() {
  const int64_t mark = config_.outbox_high_water;
  if (mark <= 0) return;
  if (!work_.high_water_alert && work_.outbox_depth >= mark) {
    work_.high_water_alert = true;
    log::warn("kafka.outbox_high_water", "",
              {{"outbox_depth", std::to_string(work_.outbox_depth)},
               {"high_water", std::to_string(mark)},
               {"brokers", work_.enabled ? "configured" : "none"}});
  } else if (work_.high_water_alert && work_.outbox_depth < mark - mark / 10) {
    work_.high_water_alert = false;
    log::info("kafka.outbox_below_high_water", "",
              {{"outbox_depth", std::to_string(work_.outbox_depth)}});
  }
}

void Drain::publish_snapshot() {
  work_.in_flight = static_cast<int64_t>(in_flight_.size());
  std::lock_guard lock(mu_);
  snapshot_ = work_;
}

}  // namespace ocppgw::kafka
