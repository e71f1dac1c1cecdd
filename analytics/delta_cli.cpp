// analytics/delta_cli.cpp
#include "analytics/delta_cli.hpp"

#include <iostream>
#include <memory>

namespace ocppgw::analytics {

void add_delta_commands(CLI::App& app, std::function<DeltaMirrorOptions()> env) {
  auto* delta = app.add_subcommand("delta", "The Delta Lake mirror of the analytics tables");
  delta->require_subcommand(1);
  auto* sync = delta->add_subcommand("sync", "Run one mirror cycle now and print its report");
  auto inject = std::make_shared<std::string>();
  // For tests of the write-audit-publish path: makes that table's audit fail.
  sync->add_option("--inject-duplicate-row", *inject,
                   "Fault injection: stage the first row of TABLE twice (its audit fails)")
      ->group("");
  sync->callback([env, inject] {
    DeltaMirrorOptions options = env();
    options.inject_duplicate_row_in = *inject;
    util::Status status;
    auto report = DeltaMirror(options).run_cycle(&status);
    if (!report) throw CLI::RuntimeError("delta sync: " + status.message(), 1);
    std::cout << to_json(*report).dump(2) << "\n";
    if (!report->ok()) throw CLI::RuntimeError(1);
  });
}

}  // namespace ocppgw::analytics
