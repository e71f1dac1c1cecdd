// gateway/main.cpp: the `ocppgw` binary. Without a subcommand it serves (gateway/app); the
// subcommands are registered by the modules that own them, each with a function that adds a
// CLI11 subcommand and receives the resolved configuration only when it runs.
#include <cstdlib>
#include <iostream>
#include <string_view>

#include <CLI/CLI.hpp>

#include "analytics/cli.hpp"
#include "analytics/delta_cli.hpp"
#include "csms/charge_point_cli.hpp"
#include "csms/operator_cli.hpp"
#include "csms/token_cli.hpp"
#include "gateway/app.hpp"
#include "gateway/config.hpp"
#include "kafka/publisher.hpp"
#include "kafka/tools.hpp"
#include "util/logging.hpp"

namespace {

using ocppgw::gateway::Config;

}  // namespace

int main(int argc, char** argv) {
  // Arrow (the Delta mirror's Parquet writer) allocates from glibc, not from the jemalloc pool
  // the pyarrow wheel's Arrow picks by default. A mirror cycle builds the changed partitions in
  // memory about once a minute; jemalloc kept what a cycle had freed, ~120 MB of RSS for good
  // after one cycle over 19,500 charge points, where glibc hands it back after each cycle
  // (DeltaMirrorWorker; BENCHMARKS.md, "what the slow ramp held"). Arrow reads this once,
  // before its first allocation; an operator's own choice is kept.
  ::setenv("ARROW_DEFAULT_MEMORY_POOL", "system", /*overwrite=*/0);
  // Log lines go to stderr from the start: subcommands print their results (JSON) on stdout.
  ocppgw::log::init("info", "text");
  CLI::App cli{
      "ocppgw: OCPP 1.6J / 2.0.1 central-system gateway. Charge points connect to "
      "ws://<listen>/ocpp/{chargePointId} or wss://<tls_listen>/ocpp/{chargePointId} (security "
      "profiles 1-3: basic_auth, tls_basic_auth, tls_client_ca); every frame is committed to the "
      "SQLite event log "
      "before it is answered, and published to Kafka when brokers are configured.\n"
      "Settings come from (lowest to highest precedence) the embedded defaults, the --config "
      "TOML file, OCPPGW_<OPTION> environment variables, and the flags below.",
      "ocppgw"};
  // Global options (--data-dir, --config, ...) are accepted after a subcommand too
  // (`ocppgw reconcile --data-dir ./data`): subcommands inherit this and pass options they do
  // not know up to the main command.
  cli.fallthrough();
  ocppgw::gateway::ConfigLoader loader(cli);

  // Subcommands see the configuration as resolved when they run (after parsing).
  std::optional<Config> resolved;
  auto config = [&]() -> const Config& {
    if (!resolved) {
      std::string error;
      resolved = loader.resolve(&error);
      if (!resolved) throw CLI::RuntimeError("configuration: " + error, 2);
    }
    return *resolved;
  };
  auto secret = [&](const Config& c) {
    ocppgw::util::Status status;
    auto s = ocppgw::gateway::id_token_secret(c, nullptr, &status);
    if (!s) throw CLI::RuntimeError(status.message(), 1);
    return *s;
  };

  CLI::App* tokens = ocppgw::csms::add_token_commands(cli, [&] {
    const Config& c = config();
    return ocppgw::csms::TokenCliEnv{c.db_path(), secret(c)};
  });
  ocppgw::csms::add_charge_point_commands(
      cli, [&] { return ocppgw::csms::ChargePointCliEnv{config().db_path()}; });
  ocppgw::csms::add_operator_commands(
      cli, [&] { return ocppgw::csms::OperatorCliEnv{config().db_path()}; });
  auto kafka = ocppgw::kafka::add_kafka_commands(cli, [&] {
    const Config& c = config();
    ocppgw::kafka::KafkaToolEnv env;
    env.kafka.db_path = c.db_path();
    env.kafka.topic = c.kafka_topic;
    if (!c.kafka_brokers.empty()) (void)env.kafka.set("brokers", c.kafka_brokers);
    for (const auto& [k, v] : c.kafka_settings)
      if (auto s = env.kafka.set(k, v); !s.ok())
        throw CLI::RuntimeError("kafka." + k + ": " + s.message(), 2);
    env.pipeline.path = c.analytics_db_path();
    env.pipeline.cache_mb = c.analytics_cache_mb;
    return env;
  });
  ocppgw::analytics::add_analytics_commands(cli, [&] {
    const Config& c = config();
    ocppgw::analytics::AnalyticsCliEnv env;
    env.gateway_db_path = c.db_path();
    env.analytics.path = c.analytics_db_path();
    env.analytics.cache_mb = c.analytics_cache_mb;
    return env;
  });
  ocppgw::analytics::add_delta_commands(
      cli, [&] { return ocppgw::gateway::delta_mirror_options(config()); });
  // Further subcommands register here, the same way.
  cli.require_subcommand(0, 1);

  try {
    cli.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    // A subcommand failed. CLI11's exit() prints nothing for a RuntimeError, so its reason is
    // printed here, once for every subcommand ("Runtime error" is the bare default of commands
    // that already printed a JSON report saying what failed).
    if (std::string_view(e.what()) != "Runtime error") std::cerr << "ocppgw: " << e.what() << "\n";
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  // A subcommand already ran from its callback.
  if (tokens->parsed() || kafka.parsed() || !cli.get_subcommands().empty()) return 0;

  std::string error;
  auto cfg = loader.resolve(&error);
  if (!cfg) {
    std::cerr << "ocppgw: configuration: " << error << "\n";
    return 2;
  }
  ocppgw::log::init(cfg->log_level, cfg->log_format);
  ocppgw::gateway::App app(std::move(*cfg));
  app.add_component(ocppgw::gateway::make_analytics_component());
  app.add_component(ocppgw::gateway::make_kafka_component());
  app.add_component(ocppgw::gateway::make_delta_mirror_component());
  // The web component (status page, REST API, /metrics) is added here when it lands.
  if (auto s = app.start(); !s.ok()) {
    ocppgw::log::error("startup_failed", "", {{"error", s.message()}});
    app.request_stop();
    app.wait();
    return 1;
  }
  return app.wait();
}
