// analytics/cli.hpp: the analytics commands of the `ocppgw` binary (CLI11):
//   ocppgw rebuild                       empty Silver/Gold/quarantine/metrics, replay the gateway
//                                        event log (data/ocppgw.db) through the same pipeline
//   ocppgw reconcile [--repair]          recompute all Gold from Silver, report (and fix) diffs
//   ocppgw quarantine list [--status S] [--reason R] [--limit N] [--before ID]
//   ocppgw quarantine repair ID --payload JSON|@file [--by NAME]
//   ocppgw quarantine discard ID [--by NAME]
//   ocppgw quarantine replay [ID...]     no ids: every REPAIRED row
// Each prints one JSON document on stdout; a failure exits with status 1 (CLI::RuntimeError).
// Wiring in main: add_analytics_commands(app, [&] { return AnalyticsCliEnv{...from config...}; });
// The env callback runs only when one of these commands is chosen, after config is loaded.
// Run them while the gateway is stopped (the pipeline is the single writer of the store).
// Note: rebuild also forgets quarantine review state (REPAIRED/DISCARDED): the log is replayed
// as it was received.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "analytics/pipeline.hpp"

namespace ocppgw::analytics {

struct AnalyticsCliEnv {
  std::string gateway_db_path = "data/ocppgw.db";
  PipelineOptions analytics;  // analytics.path = data/analytics.db by default
};

void add_analytics_commands(CLI::App& app, std::function<AnalyticsCliEnv()> env);

// The replay behind `ocppgw rebuild`, callable from tests and tools. Returns the summary JSON.
nlohmann::json rebuild_from_event_log(Pipeline& pipeline, storage::Db& gateway_db,
                                      size_t batch_size, storage::Status* status);

}  // namespace ocppgw::analytics
