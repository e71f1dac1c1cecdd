// gateway/components.cpp: the optional parts of the gateway (app.hpp's Component): the Kafka
// publisher, the in-process analytics pipeline and the Delta Lake mirror, each started after
// the core and stopped before it.
#include <chrono>
#include <memory>
#include <span>
#include <vector>

#include "analytics/delta_mirror_worker.hpp"
#include "analytics/live_pipeline.hpp"
#include "gateway/app.hpp"
#include "gateway/change_notifier.hpp"
#include "kafka/publisher.hpp"
#include "util/logging.hpp"
#include "web/metrics.hpp"

namespace ocppgw::gateway {
namespace {

using util::Status;

class KafkaComponent : public Component {
 public:
  Status start(App& app) override {
    const Config& c = app.config();
    kafka::KafkaConfig kc;
    kc.db_path = c.db_path();
    if (auto s = kc.set("topic", c.kafka_topic); !s.ok()) return s;
    if (!c.kafka_brokers.empty())
      if (auto s = kc.set("brokers", c.kafka_brokers); !s.ok()) return s;
    for (const auto& [k, v] : c.kafka_settings)
      if (auto s = kc.set(k, v); !s.ok()) return Status::error("kafka." + k + ": " + s.message());
    publisher_ = std::make_unique<kafka::KafkaPublisher>(std::move(kc));
    if (auto s = publisher_->start(); !s.ok()) return s;
    app.sink().add_commit_listener([p = publisher_.get()](const auto&) { p->notify(); });
    app.health().add({"kafka", [p = publisher_.get()] { return to_json(p->stats()); }, {}});
    add_metrics(app.metrics(), *publisher_);
    log::info("kafka_publisher", "",
              {{"brokers",
                c.kafka_brokers.empty() ? "none (events wait in the outbox)" : c.kafka_brokers},
               {"topic", c.kafka_topic}});
    return {};
  }
  void stop() override {
    if (publisher_) publisher_->stop();
  }

  static void add_metrics(metrics::Registry& registry, const kafka::KafkaPublisher& publisher) {
    const auto* p = &publisher;
    registry.add_collected(
        "ocppgw_outbox_depth", "Events committed to the event log and not yet delivered to Kafka.",
        metrics::Type::Gauge, {}, [p] {
          return std::vector<metrics::Sample>{{{}, double(p->stats().outbox_depth)}};
        });
    registry.add_collected(
        "ocppgw_outbox_oldest_unpublished_age_seconds",
        "Age of the oldest event not yet delivered to Kafka; 0 when the outbox is empty.",
        metrics::Type::Gauge, {}, [p] {
          const auto age = p->stats().oldest_unpublished_age_ms;
          return std::vector<metrics::Sample>{{{}, age ? double(*age) / 1000 : 0.0}};
        });
    registry.add_collected("ocppgw_kafka_delivery_errors_total",
                           "Kafka delivery reports with an error, by librdkafka error name.",
                           metrics::Type::Counter, {"code"}, [p] {
                             std::vector<metrics::Sample> out;
                             for (const auto& [code, n] : p->stats().delivery_errors_by_code)
                               out.push_back({{code}, double(n)});
                             return out;
                           });
  }

 private:
  std::unique_ptr<kafka::KafkaPublisher> publisher_;
};

// The in-process analytics pipeline (Silver/Gold on data/analytics.db), fed after each commit.
class AnalyticsComponent : public Component {
 public:
  Status start(App& app) override {
    analytics::LivePipeline::Options options;
    options.pipeline.path = app.config().analytics_db_path();
    options.pipeline.cache_mb = app.config().analytics_cache_mb;
    options.max_linger_ms = app.config().analytics_linger_ms;
    // Analytics catches up from the event log's watermark after any crash, so its own commits
    // need not be fsynced (and stay off the disk the acks wait on).
    options.event_log_path = app.config().db_path();
    options.pipeline.durable = false;
    options.worker_nice = 10;  // the ack path (I/O threads, sink) comes first under contention
    // Once a batch is in the store, the read API answers differently: the live stream says so.
    options.on_batch = [feed = &app.change_feed()](std::span<const analytics::Event* const> events,
                                                   const analytics::BatchReport& report) {
      notify_batch(*feed, events, report);
    };
    Status status;
    live_ = analytics::LivePipeline::start(options, &status);
    if (!live_) return Status::error("analytics: " + status.message());
    app.sink().add_commit_listener([live = live_.get()](const csms::CommittedBatch& batch) {
      live->offer(batch.events, batch.first_seq, batch.last_seq);
    });
    app.health().add(
        {"analytics", [live = live_.get()] { return analytics::to_json(live->stats()); }, {}});
    auto* live = live_.get();
    app.metrics().add_collected(
        "ocppgw_analytics_lag_events",
        "Events committed to the event log and not yet processed by analytics.",
        metrics::Type::Gauge, {}, [live] {
          return std::vector<metrics::Sample>{{{}, double(live->stats().lag_events())}};
        });
    app.metrics().add_collected(
        "ocppgw_analytics_conservation_violations_total",
        "Analytics batches whose conservation check failed (events in != events out + "
        "quarantined + dropped duplicates); any increase is a defect.",
        metrics::Type::Counter, {}, [live] {
          return std::vector<metrics::Sample>{{{}, double(live->stats().conservation_violations)}};
        });
    app.set_live_analytics(live_.get());
    return {};
  }
  void stop() override {
    if (live_) live_->stop();
  }
  analytics::LivePipeline* pipeline() { return live_.get(); }

 private:
  std::unique_ptr<analytics::LivePipeline> live_;
};

// The Delta Lake mirror of the analytics tables, on its own thread every delta_interval.
class DeltaMirrorComponent : public Component {
 public:
  Status start(App& app) override {
    const Config& c = app.config();
    if (c.delta_interval_s <= 0) return {};
    const analytics::DeltaMirrorOptions options = delta_mirror_options(c);
    // Nice'd like the analytics worker: the ack path comes first under contention.
    worker_ = std::make_unique<analytics::DeltaMirrorWorker>(
        options, std::chrono::seconds(c.delta_interval_s), 10);
    worker_->start();
    auto* w = worker_.get();
    app.health().add({"delta", [w] { return w->health(); }, {}});
    add_metrics(app.metrics(), w);
    app.set_delta_mirror(w);
    return {};
  }
  void stop() override {
    if (worker_) worker_->stop();
  }

 private:
  static void add_metrics(metrics::Registry& m, analytics::DeltaMirrorWorker* w) {
    using metrics::Sample;
    using metrics::Type;
    auto one = [w](auto field) {
      return [w, field] { return std::vector<Sample>{{{}, double(field(w->stats()))}}; };
    };
    using S = analytics::DeltaMirrorWorker::Stats;
    m.add_collected("ocppgw_delta_cycles_total", "Delta mirror cycles run.", Type::Counter, {},
                    one([](const S& s) { return s.cycles; }));
    m.add_collected("ocppgw_delta_failed_cycles_total",
                    "Delta mirror cycles in which some table failed or failed its audit.",
                    Type::Counter, {}, one([](const S& s) { return s.failed_cycles; }));
    m.add_collected("ocppgw_delta_audit_failures_total",
                    "Tables whose staged files failed the write-audit-publish audit (nothing "
                    "was committed for them).",
                    Type::Counter, {}, one([](const S& s) { return s.audit_failures; }));
    m.add_collected("ocppgw_delta_alert",
                    "1 while the latest attempt of some mirrored table failed (see /health).",
                    Type::Gauge, {}, one([](const S& s) { return s.alert ? 1 : 0; }));
    m.add_collected("ocppgw_delta_rows_written_total", "Rows written to Delta data files.",
                    Type::Counter, {}, one([](const S& s) { return s.rows_written; }));
    m.add_collected("ocppgw_delta_last_cycle_duration_seconds",
                    "Duration of the last Delta mirror cycle.", Type::Gauge, {},
                    one([](const S& s) { return double(s.last_duration_ms) / 1000.0; }));
    m.add_collected("ocppgw_delta_vacuums_total", "Vacuums of the mirrored tables.", Type::Counter,
                    {}, one([](const S& s) { return s.vacuums; }));
    auto per_table = [w](auto field) {
      return [w, field] {
        std::vector<Sample> out;
        for (const auto& [table, t] : w->stats().tables)
          if (auto v = field(t); v >= 0) out.push_back({{table}, double(v)});
        return out;
      };
    };
    using T = analytics::DeltaMirrorWorker::TableStats;
    m.add_collected("ocppgw_delta_table_version", "The Delta version the mirror last saw.",
                    Type::Gauge, {"table"}, per_table([](const T& t) { return t.version; }));
    m.add_collected("ocppgw_delta_last_commit_timestamp_seconds",
                    "When the mirror last committed the table (absent: not since the start).",
                    Type::Gauge, {"table"}, per_table([](const T& t) {
                      return t.last_commit_ms > 0 ? double(t.last_commit_ms) / 1000.0 : -1.0;
                    }));
  }

  std::unique_ptr<analytics::DeltaMirrorWorker> worker_;
};

}  // namespace

analytics::DeltaMirrorOptions delta_mirror_options(const Config& c) {
  analytics::DeltaMirrorOptions options;
  options.analytics_db_path = c.analytics_db_path();
  options.root = c.delta_root_path();
  options.log_retention = std::chrono::hours(c.delta_log_retention_h);
  options.file_retention = std::chrono::hours(c.delta_file_retention_h);
  options.vacuum_interval = std::chrono::hours(c.delta_vacuum_interval_h);
  return options;
}

std::unique_ptr<Component> make_delta_mirror_component() {
  return std::make_unique<DeltaMirrorComponent>();
}

std::unique_ptr<Component> make_analytics_component() {
  return std::make_unique<AnalyticsComponent>();
}

std::unique_ptr<Component> make_kafka_component() { return std::make_unique<KafkaComponent>(); }

}  // namespace ocppgw::gateway
