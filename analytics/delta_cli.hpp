// analytics/delta_cli.hpp: `ocppgw delta sync|history|restore|vacuum` (docs/delta.md).
// `sync` runs one mirror cycle now (analytics/delta_mirror.hpp) and prints its report as JSON;
// exits 1 when a table failed or failed its audit. All are safe beside a running gateway: the
// mirror only reads the analytics store, and concurrent writers of one Delta table are
// arbitrated by the Delta commit protocol. Each prints JSON; a bad table name or argument exits
// 2, a failed operation 1.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "analytics/delta_mirror.hpp"

namespace ocppgw::analytics {

void add_delta_commands(CLI::App& app, std::function<DeltaMirrorOptions()> env);

}  // namespace ocppgw::analytics
