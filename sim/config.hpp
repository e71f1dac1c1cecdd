// sim/config.hpp: everything that describes a simulated fleet and a run, filled from the
// command line or a TOML file (CLI11 reads the same keys from either; see `ocppsim --help`).
// Plain value, read-only once the run starts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/csms_answers.hpp"

namespace CLI {
class App;
}

namespace ocppgw::sim {

enum class RunMode { Fleet, Load };

// Rates of injected faults. Per-frame faults are probabilities applied to each eligible frame;
// per-session faults to each session; offline and disconnect are expected events per charge
// point per minute.
struct FaultRates {
  double resend = 0;          // exact re-send (same message id, same bytes), per frame
  double business_dup = 0;    // same content, new message id (MeterValues), per frame
  double conflict = 0;        // same business key, different meter value (MeterValues)
  double out_of_order = 0;    // a MeterValues held back and sent after the next one
  double corrupt = 0;         // invalid JSON frame, per frame
  double schema_invalid = 0;  // well-formed frame whose payload violates the schema
  double clock_skew = 0;      // fraction of charge points whose clock is off
  double clock_skew_s = 3600;
  double meter_reset = 0;  // per session: the register drops to 0 mid-session
  double txid_minus1 = 0;  // per offline-started 1.6 session: later frames carry -1
  double offline = 0;      // per cp per minute: go offline, queue, replay on reconnect
  double offline_s = 4;    // how long an offline period lasts
  double disconnect = 0;   // per cp per minute: abrupt TCP close, reconnect after 1 s
  bool any() const {
    return resend + business_dup + conflict + out_of_order + corrupt + schema_invalid + clock_skew +
               meter_reset + txid_minus1 + offline + disconnect >
           0;
  }
};

struct SimConfig {
  // Fleet
  int count = 10;
  int first_index = 1;
  std::string id_pattern = "SIM-{05d}";
  double fraction_201 = 0;
  int connectors = 2;
  double heartbeat_s = 60;
  double meter_interval_s = 10;
  double sessions_per_hour = 6;  // per connector
  double session_s = 120;        // mean session duration
  double max_power_w = 11000;    // curve: flat, then a linear taper over the last 30%
  std::string id_tag_prefix = "TAG";
  // Connection
  std::vector<std::string> urls = {"ws://127.0.0.1:8180/ocpp"};
  std::vector<std::string> source_addresses;
  std::string basic_password;  // user name is the charge point id
  std::string ca_file, cert_file, key_file;
  double connect_rate = 1000;  // new connections per second
  int max_inflight = 1;        // 1 = strict OCPP-J
  double call_timeout_s = 30;
  // How CALLs from the gateway are answered (sim/csms_answers.hpp), and after how long.
  CsmsAnswer csms_answer = CsmsAnswer::Result;
  double csms_answer_delay_ms = 0;
  // Run
  RunMode mode = RunMode::Fleet;
  double rate = 0;      // load mode: total CALLs/s to pace at (0: as fast as possible)
  double warmup_s = 3;  // load mode: excluded from the sustained rate and latency
  double duration_s = 30;
  double drain_s = 30;
  int threads = 1;
  uint64_t seed = 1;
  double storm_at_s = 0;  // >0: at this time every cp drops and reconnects at once
  int storm_backlog = 0;  // MeterValues queued per connector while down
  double progress_s = 5;  // interval of progress lines when stderr is not a TTY
  std::string report_path;
  // Ground truth
  std::string gateway_db;
  std::string analytics_db;
  std::string truth_path;  // optional JSON dump of the expected sessions
  FaultRates faults;
  bool all_faults = false;
  double fault_scale = 1;
};

// Registers every option on `app` (also readable from `--config file.toml`).
void add_options(CLI::App& app, SimConfig& config);
// --all-faults: default rates for every fault not set explicitly. Call after parsing.
void apply_all_faults(SimConfig& config);
// Cross-field checks after parsing; empty string when valid.
std::string validate(const SimConfig& config);
// Formats the id pattern ("CP-{05d}") for one index.
std::string format_cp_id(const std::string& pattern, int index);

}  // namespace ocppgw::sim
