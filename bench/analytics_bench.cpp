// bench/analytics_bench.cpp: events/s through Silver+Gold for a large replay, and the cost of
// one fixed-shape batch when the store holds ~100k events versus at the end of the replay
// (it should depend on the keys the batch touches, not on table size). Prints figures only.
// The events come from the test fleet generator (duplicates, conflicts, late data, resets).
// Like a real fleet's, they interleave: `--fleet` charge points send during the same hour, fed
// in arrival (ingest_ts) order, `--batch` events per pipeline batch, so each batch touches keys
// of the whole fleet; and their event ids are hashes like the gateway's (analytics/event.hpp),
// so the event-id registry takes them in random order. Both matter to SQLite: a batch rewrites
// a page per touched key in every index (analytics/README.md, "What a batch costs"). `--fleet 50
// --sequential-ids` gives the earlier, kinder shape (one small fleet after another, with ids
// "ev-<seed>-<n>" that arrive almost sorted).
#include <chrono>
#include <cstdio>
#include <filesystem>

#include <CLI/CLI.hpp>

#include "analytics/pipeline.hpp"
#include "tests/unit/analytics/fleet_generator.hpp"

using namespace ocppgw::analytics;

namespace {

constexpr int kChargePointsPerChunk = 50;

std::vector<Event> chunk(uint64_t index, uint64_t hour, int charge_points, const char* prefix,
                         bool hashed_ids) {
  testing::FleetSpec spec;
  spec.seed = index + 1;
  spec.charge_points = charge_points;
  spec.cp_prefix = std::string(prefix) + std::to_string(index) + "-";
  spec.start_ms += static_cast<int64_t>(hour) * 3600000;  // the fleet's clock moves forward
  std::vector<Event> events = testing::generate_fleet(spec).events;
  // The generator's ids stand in for the OCPP message id: copies of one event keep one hash.
  if (hashed_ids)
    for (Event& e : events)
      e.event_id = make_event_id(e.charge_point_id, e.event_id, e.ocpp_action, "", 0);
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return a.ingest_ts_ms < b.ingest_ts_ms; });
  return events;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The probe fleet runs at the replay's current hour, so it does not move the data clock.
void probe(Pipeline& p, uint64_t index, uint64_t hour, const char* label) {
  std::vector<Event> events = chunk(index, hour, 20, "PROBE", true);
  auto t0 = std::chrono::steady_clock::now();
  BatchReport r = p.ingest(events);
  double s = seconds_since(t0);
  std::printf(
      "probe batch at %-8s stored=%9lld: %zu events in %.1f ms (%.0f ev/s); recomputed %lld "
      "sessions, "
      "%lld connectors, %lld charge points, %lld days%s\n",
      label, static_cast<long long>(r.totals.raw - r.raw), events.size(), s * 1e3,
      static_cast<double>(events.size()) / s, static_cast<long long>(r.sessions_recomputed),
      static_cast<long long>(r.connectors_recomputed),
      static_cast<long long>(r.charge_points_recomputed), static_cast<long long>(r.days_recomputed),
      r.status.ok() ? "" : " FAILED");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"analytics pipeline benchmark"};
  int64_t total = 1000000;
  size_t batch = 10000;
  std::string path =
      (std::filesystem::temp_directory_path() / "ocppgw_analytics_bench.db").string();
  bool durable = false;
  int cache_mb = PipelineOptions{}.cache_mb;  // what the gateway runs with
  int fleet = 1000;
  bool sequential_ids = false;
  app.add_option("--events", total, "events to replay")->capture_default_str();
  app.add_option("--batch", batch, "events per pipeline batch")->capture_default_str();
  app.add_option("--db", path, "analytics store (deleted first)")->capture_default_str();
  app.add_flag("--durable", durable, "synchronous=FULL (default NORMAL)");
  app.add_option("--cache-mb", cache_mb, "SQLite page cache of the writer connection")
      ->capture_default_str();
  app.add_option("--fleet", fleet, "charge points sending at the same time (a multiple of 50)")
      ->capture_default_str()
      ->check(CLI::Range(kChargePointsPerChunk, 1000000));
  app.add_flag("--sequential-ids", sequential_ids,
               "the generator's ids (\"ev-<seed>-<n>\") instead of hashes like the gateway's");
  CLI11_PARSE(app, argc, argv);
  const uint64_t chunks_per_hour = static_cast<uint64_t>(fleet / kChargePointsPerChunk);
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);

  PipelineOptions o;
  o.path = path;
  o.durable = durable;
  o.cache_mb = cache_mb;
  ocppgw::storage::Status s;
  auto p = Pipeline::open(o, &s);
  if (!p) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  int64_t fed = 0;
  double busy = 0;
  bool probed_small = false;
  uint64_t index = 0;
  auto t_all = std::chrono::steady_clock::now();
  std::printf(
      "replaying %lld events, fleet %llu charge points, %s ids, batch %zu, %s, page cache "
      "%d MiB\n",
      static_cast<long long>(total),
      static_cast<unsigned long long>(chunks_per_hour * kChargePointsPerChunk),
      sequential_ids ? "sequential" : "hashed", batch,
      durable ? "synchronous=FULL" : "synchronous=NORMAL", cache_mb);
  while (fed < total) {
    if (!probed_small && fed >= 100000) {
      probe(*p, 1000000, index / chunks_per_hour, "~100k");
      probed_small = true;
    }
    // One hour of the whole fleet: its chunks' events merged in arrival order.
    const uint64_t first_chunk = index, hour = index / chunks_per_hour;
    std::vector<Event> events;
    for (uint64_t k = 0; k < chunks_per_hour; ++k, ++index) {
      std::vector<Event> part = chunk(index, hour, kChargePointsPerChunk, "CP", !sequential_ids);
      events.insert(events.end(), std::make_move_iterator(part.begin()),
                    std::make_move_iterator(part.end()));
    }
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
      return a.ingest_ts_ms < b.ingest_ts_ms;
    });
    for (size_t i = 0; i < events.size() && fed < total; i += batch) {
      size_t n = std::min({batch, events.size() - i, static_cast<size_t>(total - fed)});
      auto t0 = std::chrono::steady_clock::now();
      BatchReport r = p->ingest(std::span(events.data() + i, n), Source::EventLog);
      busy += seconds_since(t0);
      if (!r.status.ok() || !r.conservation_ok) {
        std::fprintf(stderr, "batch failed: %s\n", r.to_json().dump().c_str());
        return 1;
      }
      fed += static_cast<int64_t>(n);
    }
    if (first_chunk / 20 != index / 20)  // about every 20 chunks of 50 charge points
      std::printf("  %9lld events, %.0f ev/s through Silver+Gold so far\n",
                  static_cast<long long>(fed), static_cast<double>(fed) / busy);
  }
  std::printf(
      "replay: %lld events in %.1f s pipeline time (%.1f s wall incl. generation): %.0f events/s\n",
      static_cast<long long>(fed), busy, seconds_since(t_all), static_cast<double>(fed) / busy);
  probe(*p, 1000001, index / chunks_per_hour, "end");
  ConservationCounts c = p->counts();
  std::printf("totals: raw %lld = silver %lld + duplicates %lld + quarantine %lld (%s)\n",
              static_cast<long long>(c.raw), static_cast<long long>(c.silver),
              static_cast<long long>(c.duplicates), static_cast<long long>(c.quarantine),
              c.ok() ? "conserved" : "VIOLATED");
  auto t_rec = std::chrono::steady_clock::now();
  ReconcileReport rec = p->reconcile();
  std::printf("reconcile (all Gold from Silver): %.1f s, gold_matches=%s\n", seconds_since(t_rec),
              rec.gold_matches ? "true" : "false");
  std::printf("store size: %.0f MB\n", static_cast<double>(std::filesystem::file_size(path)) / 1e6);
  return 0;
}
