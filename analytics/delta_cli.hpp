// analytics/delta_cli.hpp: `ocppgw delta sync [--inject-duplicate-row TABLE]`: runs one Delta
// mirror cycle now (analytics/delta_mirror.hpp) and prints its report as JSON; exits 1 when a
// table failed or failed its audit. Safe beside a running gateway: the mirror only reads the
// analytics store, and concurrent cycles are arbitrated by the Delta commit protocol.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "analytics/delta_mirror.hpp"

namespace ocppgw::analytics {

void add_delta_commands(CLI::App& app, std::function<DeltaMirrorOptions()> env);

}  // namespace ocppgw::analytics
