// bench/delta_bench.cpp: the Delta mirror's costs. Prints figures only
// (docs/benchmarks_platform.md quotes them).
//  1. Write speed: an analytics store filled with --events from the test fleet generator is
//     mirrored by one cycle (every table written: Parquet through Arrow, zstd): rows/s, and the
//     cycle time at that many touched rows; then a cycle with nothing changed (the fingerprint
//     pass alone) and one after a late batch (a few partitions rewritten).
//  2. Growth over --cycles small cycles (one small batch of new traffic, then a mirror cycle),
//     two stores side by side, cycle by cycle: "maintained" (a checkpoint every 10 versions,
//     log clean-up, vacuum every 100 cycles; retentions 0 so the effect shows within the run)
//     and "bare" (no checkpoint, no clean-up, no vacuum). Size and file counts at the end, and
//     the mean time of the last 10 cycles (the snapshot read is what checkpoints bound).
#include <chrono>
#include <cstdio>
#include <filesystem>

#include <CLI/CLI.hpp>

#include "analytics/delta_mirror.hpp"
#include "analytics/pipeline.hpp"
#include "tests/unit/analytics/fleet_generator.hpp"

using namespace ocppgw::analytics;
namespace fs = std::filesystem;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<Event> traffic(uint64_t seed, uint64_t hour, int charge_points,
                           const std::string& prefix) {
  testing::FleetSpec spec;
  spec.seed = seed;
  spec.charge_points = charge_points;
  spec.cp_prefix = prefix;
  spec.start_ms += static_cast<int64_t>(hour) * 3600000;
  std::vector<Event> events = testing::generate_fleet(spec).events;
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return a.ingest_ts_ms < b.ingest_ts_ms; });
  return events;
}

struct Store {
  fs::path dir;
  std::unique_ptr<Pipeline> pipeline;
  DeltaMirrorOptions mirror;
};

Store open_store(const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  Store s;
  s.dir = dir;
  PipelineOptions o;
  o.path = (dir / "analytics.db").string();
  o.durable = false;
  o.cache_mb = 128;
  ocppgw::storage::Status st;
  s.pipeline = Pipeline::open(o, &st);
  if (!s.pipeline) {
    std::fprintf(stderr, "%s\n", st.message().c_str());
    std::exit(1);
  }
  s.mirror.analytics_db_path = o.path;
  s.mirror.root = dir / "delta";
  return s;
}

void ingest(Store& s, const std::vector<Event>& events) {
  for (size_t i = 0; i < events.size(); i += 10000) {
    const size_t n = std::min<size_t>(10000, events.size() - i);
    BatchReport r = s.pipeline->ingest(std::span(events.data() + i, n), Source::EventLog);
    if (!r.status.ok()) {
      std::fprintf(stderr, "batch failed: %s\n", r.status.message().c_str());
      std::exit(1);
    }
  }
}

CycleReport cycle(const Store& s, double* seconds) {
  auto t0 = std::chrono::steady_clock::now();
  ocppgw::util::Status st;
  auto report = DeltaMirror(s.mirror).run_cycle(&st);
  *seconds = seconds_since(t0);
  if (!report || !report->ok()) {
    std::fprintf(stderr, "cycle failed: %s\n",
                 report ? to_json(*report).dump().c_str() : st.message().c_str());
    std::exit(1);
  }
  return *report;
}

struct Footprint {
  int64_t bytes = 0, data_files = 0, log_files = 0;
};

Footprint footprint(const fs::path& root) {
  Footprint f;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    f.bytes += static_cast<int64_t>(e.file_size());
    const std::string p = e.path().string();
    if (p.find("/_delta_log/") != std::string::npos)
      ++f.log_files;
    else if (p.ends_with(".parquet"))
      ++f.data_files;
  }
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Delta mirror benchmark"};
  int64_t events = 100000;
  int cycles = 1000;
  fs::path work = fs::temp_directory_path() / "ocppgw_delta_bench";
  app.add_option("--events", events, "events in the store for the write-speed part")
      ->capture_default_str();
  app.add_option("--cycles", cycles, "small cycles for the growth part")->capture_default_str();
  app.add_option("--dir", work, "working folder (deleted first)")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  // 1. Write speed.
  {
    Store s = open_store(work / "speed");
    std::vector<Event> all;
    for (uint64_t chunk = 0; static_cast<int64_t>(all.size()) < events; ++chunk) {
      auto more = traffic(chunk + 1, chunk, 50, "CP" + std::to_string(chunk) + "-");
      all.insert(all.end(), more.begin(), more.end());
    }
    all.resize(static_cast<size_t>(events));
    ingest(s, all);
    double t = 0;
    CycleReport first = cycle(s, &t);
    std::printf(
        "first cycle (every table written): %lld rows read, %lld rows written in %.2f s: "
        "%.0f rows/s (Parquet zstd via Arrow, audited, committed)\n",
        static_cast<long long>(first.rows_read), static_cast<long long>(first.rows_written), t,
        static_cast<double>(first.rows_written) / t);
    for (const auto& table : first.tables)
      std::printf("  %-26s %8lld rows\n", table.table.c_str(),
                  static_cast<long long>(table.rows_written));
    CycleReport same = cycle(s, &t);
    std::printf("cycle with nothing changed: %.3f s for %lld rows fingerprinted\n", t,
                static_cast<long long>(same.rows_read));
    ingest(s, traffic(999, 1, 5, "CP0-"));  // late traffic of existing charge points
    CycleReport late = cycle(s, &t);
    int64_t partitions = 0;
    for (const auto& table : late.tables) partitions += table.partitions_replaced;
    std::printf("cycle after a late batch: %.3f s, %lld rows written, %lld partitions replaced\n",
                t, static_cast<long long>(late.rows_written), static_cast<long long>(partitions));
    const Footprint f = footprint(s.mirror.root);
    std::printf("mirror size: %.1f MB in %lld data files (analytics store %.1f MB)\n",
                static_cast<double>(f.bytes) / 1e6, static_cast<long long>(f.data_files),
                static_cast<double>(fs::file_size(s.mirror.analytics_db_path)) / 1e6);
  }

  // 2. Growth over many cycles, maintained and bare side by side.
  Store maintained = open_store(work / "maintained");
  Store bare = open_store(work / "bare");
  maintained.mirror.log_retention = std::chrono::milliseconds(0);
  maintained.mirror.file_retention = std::chrono::milliseconds(0);
  bare.mirror.checkpoint_interval = 0;
  const auto seed = traffic(1, 0, 20, "CP-");
  ingest(maintained, seed);
  ingest(bare, seed);
  double last_maintained = 0, last_bare = 0, vacuum_s = 0;
  for (int c = 0; c < cycles; ++c) {
    // The same small batch for both: two charge points' traffic an hour later each cycle.
    const auto batch = traffic(static_cast<uint64_t>(c) + 100, static_cast<uint64_t>(c) / 4, 2,
                               "CP-" + std::to_string(c % 20) + "-");
    double t_m = 0, t_b = 0;
    ingest(maintained, batch);
    cycle(maintained, &t_m);
    ingest(bare, batch);
    cycle(bare, &t_b);
    if ((c + 1) % 100 == 0) {
      auto t0 = std::chrono::steady_clock::now();
      DeltaMirror(maintained.mirror).vacuum({}, false);
      vacuum_s += seconds_since(t0);
    }
    if (c >= cycles - 10) {
      last_maintained += t_m / 10;
      last_bare += t_b / 10;
    }
    if ((c + 1) % 100 == 0)
      std::printf("  %5d cycles: cycle %.3f s maintained, %.3f s bare\n", c + 1, t_m, t_b);
  }
  const Footprint m = footprint(maintained.mirror.root), b = footprint(bare.mirror.root);
  std::printf("after %d cycles (8 tables):\n", cycles);
  std::printf(
      "  maintained (checkpoint/10, log clean-up, vacuum/100): %.1f MB, %lld data files, "
      "%lld log files; last 10 cycles %.3f s each; vacuums took %.2f s in all\n",
      static_cast<double>(m.bytes) / 1e6, static_cast<long long>(m.data_files),
      static_cast<long long>(m.log_files), last_maintained, vacuum_s);
  std::printf(
      "  bare (no checkpoint, no clean-up, no vacuum):          %.1f MB, %lld data files, "
      "%lld log files; last 10 cycles %.3f s each\n",
      static_cast<double>(b.bytes) / 1e6, static_cast<long long>(b.data_files),
      static_cast<long long>(b.log_files), last_bare);
  std::printf("  ratios bare/maintained: size %.1fx, files %.1fx, cycle time %.2fx\n",
              static_cast<double>(b.bytes) / static_cast<double>(m.bytes),
              static_cast<double>(b.data_files + b.log_files) /
                  static_cast<double>(m.data_files + m.log_files),
              last_bare / last_maintained);
  fs::remove_all(work);
  return 0;
}
