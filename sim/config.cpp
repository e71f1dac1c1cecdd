// sim/config.cpp: command-line and TOML options of ocppsim. CLI11 parses both, so every flag
// below is also a key of the config file (`count = 500`, `fault-resend = 0.01`).
#include "sim/config.hpp"

#include <map>

#include <CLI/CLI.hpp>

namespace ocppgw::sim {

void add_options(CLI::App& app, SimConfig& c) {
  app.set_config("--config", "", "TOML file with any of the options below (same names)");

  app.add_option("-n,--count", c.count, "Number of charge points")->check(CLI::PositiveNumber);
  app.add_option("--first-index", c.first_index, "Index of the first charge point (id pattern)");
  app.add_option("--id-pattern", c.id_pattern,
                 "Charge point id; {05d} is replaced by the zero-padded index");
  app.add_option("--fraction-201", c.fraction_201, "Fraction of charge points speaking OCPP 2.0.1")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--connectors", c.connectors, "Connectors per charge point")
      ->check(CLI::Range(1, 16));
  app.add_option("--heartbeat", c.heartbeat_s, "Heartbeat interval, s (0: none)");
  app.add_option("--meter-interval", c.meter_interval_s, "MeterValues interval in a session, s");
  app.add_option("--sessions-per-hour", c.sessions_per_hour,
                 "Session arrival rate per connector per hour (Poisson)");
  app.add_option("--session-duration", c.session_s, "Mean session duration, s (exponential)");
  app.add_option(
      "--max-power", c.max_power_w,
      "Charging power, W: flat, then linear taper to 20% over the last 30% of a session");
  app.add_option("--id-tag-prefix", c.id_tag_prefix, "Prefix of the id tags sessions use");

  app.add_option("--url", c.urls,
                 "Gateway URL(s) up to the path prefix, e.g. ws://127.0.0.1:8180/ocpp; the cp id "
                 "is appended. Charge points are spread round-robin")
      ->expected(1, -1);
  app.add_option("--source", c.source_addresses,
                 "Local source addresses to bind (e.g. 127.0.0.2 127.0.0.3) to pass the "
                 "ephemeral-port limit of one address")
      ->expected(1, -1);
  app.add_option("--password", c.basic_password, "HTTP Basic password (user = cp id)");
  app.add_option("--ca", c.ca_file, "CA file for wss:// server verification");
  app.add_option("--cert", c.cert_file, "Client certificate (PEM) for wss:// profile 3");
  app.add_option("--key", c.key_file, "Client private key (PEM)");
  app.add_option("--connect-rate", c.connect_rate, "New connections per second")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-inflight", c.max_inflight,
                 "Outstanding CALLs per charge point (1 = strict OCPP-J)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--call-timeout", c.call_timeout_s,
                 "Seconds before an unanswered CALL counts as timed out");

  std::map<std::string, CsmsAnswer> answers{
      {"result", CsmsAnswer::Result}, {"error", CsmsAnswer::Error}, {"silent", CsmsAnswer::Silent}};
  app.add_option("--csms-answer", c.csms_answer,
                 "CALLs from the gateway: result (a schema-valid CALLRESULT), error (CALLERROR) "
                 "or silent (never answered)")
      ->transform(CLI::CheckedTransformer(answers, CLI::ignore_case));
  app.add_option("--csms-answer-delay", c.csms_answer_delay_ms,
                 "Milliseconds before a CALL from the gateway is answered")
      ->check(CLI::NonNegativeNumber);

  std::map<std::string, RunMode> modes{{"fleet", RunMode::Fleet}, {"load", RunMode::Load}};
  app.add_option("--mode", c.mode,
                 "fleet: realistic sessions; load: MeterValues-heavy mix as fast as the "
                 "in-flight window allows")
      ->transform(CLI::CheckedTransformer(modes, CLI::ignore_case));
  app.add_option("--rate", c.rate, "Load mode: total CALLs/s to pace at (0: as fast as possible)");
  app.add_option("--warmup", c.warmup_s, "Load mode: seconds excluded from sustained figures");
  app.add_option("-d,--duration", c.duration_s, "Run duration, s");
  app.add_option("--drain", c.drain_s, "After the run: max seconds to finish sessions and replays");
  app.add_option("--threads", c.threads, "I/O threads (one io_context each)")
      ->check(CLI::Range(1, 8));
  app.add_option("--seed", c.seed, "Random seed (runs are reproducible per seed)");
  app.add_option("--storm-at", c.storm_at_s,
                 "Reconnect storm: at this second every cp drops and reconnects at once");
  app.add_option("--storm-backlog", c.storm_backlog,
                 "Storm: MeterValues queued per connector while down, replayed after boot");
  app.add_option("--progress", c.progress_s, "Progress line interval, s, when stderr is not a TTY");
  app.add_option("--report", c.report_path, "Write the JSON report here");
  app.add_option("--gateway-db", c.gateway_db, "Gateway SQLite file (read-only) for ground truth");
  app.add_option("--analytics-db", c.analytics_db, "Analytics SQLite file (read-only)");
  app.add_option("--truth", c.truth_path, "Write the expected sessions (JSON lines) here");

  auto& f = c.faults;
  app.add_option("--fault-resend", f.resend, "P(exact re-send, same message id) per frame");
  app.add_option("--fault-business-dup", f.business_dup,
                 "P(business duplicate: new message id, same content) per MeterValues");
  app.add_option("--fault-conflict", f.conflict,
                 "P(conflicting duplicate: same business key, other meter value) per MeterValues");
  app.add_option("--fault-out-of-order", f.out_of_order, "P(MeterValues sent after its successor)");
  app.add_option("--fault-corrupt", f.corrupt, "P(corrupted frame: invalid JSON) per frame");
  app.add_option("--fault-schema-invalid", f.schema_invalid, "P(schema-invalid payload) per frame");
  app.add_option("--fault-clock-skew", f.clock_skew, "Fraction of cps with a skewed clock");
  app.add_option("--clock-skew", f.clock_skew_s, "Clock skew, s (sign alternates per cp)");
  app.add_option("--fault-meter-reset", f.meter_reset, "P(meter register reset) per session");
  app.add_option("--fault-txid-minus1", f.txid_minus1,
                 "P(1.6 offline-started session continues with transactionId -1)");
  app.add_option("--fault-offline", f.offline, "Offline periods per cp per minute");
  app.add_option("--offline-duration", f.offline_s, "Length of an offline period, s");
  app.add_option("--fault-disconnect", f.disconnect, "Abrupt disconnects per cp per minute");
  app.add_flag("--all-faults", c.all_faults,
               "Every fault on: rates not set explicitly get a default that a short run hits");
  app.add_option("--fault-scale", c.fault_scale, "Multiplies the --all-faults default rates");
}

void apply_all_faults(SimConfig& c) {
  if (!c.all_faults) return;
  auto& g = c.faults;
  const double k = c.fault_scale;
  auto set = [k](double& rate, double dflt) {
    if (rate == 0) rate = dflt * k;
  };
  set(g.resend, 0.02), set(g.business_dup, 0.02), set(g.conflict, 0.01);
  set(g.out_of_order, 0.02), set(g.corrupt, 0.005), set(g.schema_invalid, 0.005);
  set(g.clock_skew, 0.1), set(g.meter_reset, 0.05), set(g.txid_minus1, 0.5);
  set(g.offline, 1.0), set(g.disconnect, 0.5);
}

std::string validate(const SimConfig& c) {
  if (c.urls.empty()) return "at least one --url is required";
  for (const auto& u : c.urls) {
    if (u.rfind("ws://", 0) != 0 && u.rfind("wss://", 0) != 0) return "bad url: " + u;
  }
  if (c.meter_interval_s <= 0) return "--meter-interval must be > 0";
  if (c.session_s <= 0) return "--session-duration must be > 0";
  if (c.duration_s <= 0) return "--duration must be > 0";
  if (c.id_pattern.find('{') == std::string::npos && c.count > 1)
    return "--id-pattern needs a {..d} field for more than one charge point";
  return {};
}

std::string format_cp_id(const std::string& pattern, int index) {
  const auto open = pattern.find('{');
  const auto close = pattern.find('}', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos) return pattern;
  // Only a zero-pad width is honoured ("05d" -> width 5); anything else prints the bare index.
  size_t width = 0;
  for (size_t i = open + 1; i < close && pattern[i] >= '0' && pattern[i] <= '9'; ++i)
    width = width * 10 + static_cast<size_t>(pattern[i] - '0');
  std::string digits = std::to_string(index);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return pattern.substr(0, open) + digits + pattern.substr(close + 1);
}

}  // namespace ocppgw::sim
