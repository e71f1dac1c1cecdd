// sim/main.cpp: ocppsim, the charge-point fleet simulator. Parses the fleet, runs it against
// the gateway, compares the ground truth with the gateway's tables when asked, and reports.
// Exit codes: 0 ok; 1 ground-truth mismatch; 2 bad options or set-up; 3 the gateway never
// accepted a connection.
#include <cstdio>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "sim/config.hpp"
#include "sim/fleet.hpp"
#include "sim/verify.hpp"

namespace {

using namespace ocppgw::sim;

void print_human(const SimConfig& c, const RunResult& r, const Verification& v) {
  auto ms = [](uint64_t us) { return static_cast<double>(us) / 1000.0; };
  std::printf("ocppsim: %d charge points (%.0f%% 2.0.1), mode %s, %.1f s run + %.1f s drain%s\n",
              c.count, c.fraction_201 * 100, c.mode == RunMode::Load ? "load" : "fleet", r.run_s,
              r.drain_s, r.drained ? "" : " (drain timed out)");
  std::printf("  connections: %lld connects, %lld failures, %lld disconnects, max %lld open\n",
              static_cast<long long>(r.connects), static_cast<long long>(r.connect_failures),
              static_cast<long long>(r.disconnects), static_cast<long long>(r.max_connected));
  std::printf("  frames: %lld sent, %lld acked, %lld CALLERROR (+%lld provoked), %lld timed out\n",
              static_cast<long long>(r.frames_sent), static_cast<long long>(r.calls_acked),
              static_cast<long long>(r.call_errors), static_cast<long long>(r.expected_errors),
              static_cast<long long>(r.timeouts));
  std::printf(
      "  sustained: %.0f CALLs/s acknowledged over %.1f s; latency p50 %.2f ms p99 %.2f ms "
      "max %.2f ms\n",
      r.sustained_calls_per_s, r.steady_s, ms(r.steady_latency.percentile(0.5)),
      ms(r.steady_latency.percentile(0.99)), ms(r.steady_latency.max_us));
  if (r.ramp_s >= 0) std::printf("  ramp: all booted after %.2f s\n", r.ramp_s);
  if (c.storm_at_s > 0) std::printf("  storm: drained in %.2f s\n", r.storm_drain_s);
  const auto t = r.truth.summary_json();
  std::printf("  truth: %s\n", t.dump().c_str());
  for (const auto& ch : v.checks) {
    const char* o = ch.outcome == Check::Outcome::Pass   ? "PASS"
                    : ch.outcome == Check::Outcome::Fail ? "FAIL"
                                                         : "SKIP";
    std::printf("  [%s] %s", o, ch.name.c_str());
    if (!ch.expected.empty() || !ch.actual.empty())
      std::printf(" expected %s actual %s", ch.expected.c_str(), ch.actual.c_str());
    if (!ch.detail.empty()) std::printf(" (%s)", ch.detail.c_str());
    std::printf("\n");
  }
  std::printf("%d passed, %d failed, %d skipped\n", v.passed(), v.failed(), v.skipped());
}

}  // namespace

int main(int argc, char** argv) {
  SimConfig config;
  CLI::App app{
      "ocppsim: OCPP 1.6J / 2.0.1 charge-point fleet simulator with fault injection "
      "and a ground-truth check against the gateway's tables"};
  add_options(app, config);
  CLI11_PARSE(app, argc, argv);
  apply_all_faults(config);
  if (auto err = validate(config); !err.empty()) {
    std::fprintf(stderr, "ocppsim: %s\n", err.c_str());
    return 2;
  }
  Fleet fleet(config);
  if (auto err = fleet.prepare(); !err.empty()) {
    std::fprintf(stderr, "ocppsim: %s\n", err.c_str());
    return 2;
  }
  const RunResult result = fleet.run();
  Verification v;
  if (!config.gateway_db.empty() || !config.analytics_db.empty())
    v = verify(config, result.truth, result.expected_errors);

  if (!config.truth_path.empty()) {
    std::ofstream out(config.truth_path);
    for (const auto& s : result.truth.sessions) {
      out << nlohmann::json{{"cp", s.cp_id},
                            {"tx", s.tx_id},
                            {"version", s.version},
                            {"connector", s.connector},
                            {"meter_start_wh", s.meter_start_wh},
                            {"meter_stop_wh", s.meter_stop_wh},
                            {"completed", s.completed},
                            {"anomaly", s.anomaly},
                            {"minus1", s.minus1}}
                 .dump()
          << '\n';
    }
  }
  if (!config.report_path.empty()) {
    nlohmann::json report = {{"config",
                              {{"count", config.count},
                               {"fraction_201", config.fraction_201},
                               {"connectors", config.connectors},
                               {"mode", config.mode == RunMode::Load ? "load" : "fleet"},
                               {"max_inflight", config.max_inflight},
                               {"rate", config.rate},
                               {"duration_s", config.duration_s},
                               {"threads", config.threads},
                               {"urls", config.urls},
                               {"faults_on", config.faults.any()}}},
                             {"run", result.to_json()},
                             {"truth", result.truth.summary_json()},
                             {"verification", v.to_json()}};
    std::ofstream out(config.report_path);
    out << report.dump(2) << '\n';
  }
  print_human(config, result, v);
  if (result.connects == 0) return 3;
  return v.failed() > 0 ? 1 : 0;
}
