// analytics/delta_cli.cpp
#include "analytics/delta_cli.hpp"

#include <iostream>
#include <memory>

namespace ocppgw::analytics {

namespace {

delta::DeltaLog table_or_throw(const DeltaMirrorOptions& options, const std::string& name,
                               const char* command) {
  util::Status s;
  auto log = DeltaMirror::table(options, name, &s);
  if (!log) throw CLI::RuntimeError(std::string(command) + ": " + s.message(), 2);
  return *log;
}

}  // namespace

void add_delta_commands(CLI::App& app, std::function<DeltaMirrorOptions()> env) {
  auto* delta = app.add_subcommand("delta", "The Delta Lake mirror of the analytics tables");
  delta->require_subcommand(1);

  auto* sync = delta->add_subcommand("sync", "Run one mirror cycle now and print its report");
  auto inject = std::make_shared<std::string>();
  auto inject_conservation = std::make_shared<bool>(false);
  // For tests of the write-audit-publish path: make that table's audit, or the whole
  // snapshot's conservation check, fail.
  sync->add_option("--inject-duplicate-row", *inject,
                   "Fault injection: stage the first row of TABLE twice (its audit fails)")
      ->group("");
  sync->add_flag("--inject-conservation-violation", *inject_conservation,
                 "Fault injection: the snapshot's conservation check fails")
      ->group("");
  sync->callback([env, inject, inject_conservation] {
    DeltaMirrorOptions options = env();
    options.inject_duplicate_row_in = *inject;
    options.inject_conservation_violation = *inject_conservation;
    util::Status status;
    auto report = DeltaMirror(options).run_cycle(&status);
    if (!report) throw CLI::RuntimeError("delta sync: " + status.message(), 1);
    std::cout << to_json(*report).dump(2) << "\n";
    if (!report->ok()) throw CLI::RuntimeError(1);
  });

  auto* history = delta->add_subcommand(
      "history", "Print a table's commits, newest first, as JSON (as DESCRIBE HISTORY)");
  auto history_table = std::make_shared<std::string>();
  auto limit = std::make_shared<int64_t>(0);
  history->add_option("table", *history_table, "Mirrored table")->required();
  history->add_option("--limit", *limit, "At most this many commits (0: all kept)");
  history->callback([env, history_table, limit] {
    const auto log = table_or_throw(env(), *history_table, "delta history");
    util::Status s;
    auto h = delta::history(log, *limit > 0 ? std::optional<int64_t>(*limit) : std::nullopt, &s);
    if (!h) throw CLI::RuntimeError("delta history: " + s.message(), 1);
    std::cout << h->dump(2) << "\n";
  });

  auto* restore = delta->add_subcommand(
      "restore",
      "Commit a new version of a table whose files are those of an older version. The running "
      "mirror rewrites what differs from the analytics store at its next batch; set "
      "delta_interval = 0 to keep the restored state");
  auto restore_table = std::make_shared<std::string>();
  auto version = std::make_shared<int64_t>(-1);
  restore->add_option("table", *restore_table, "Mirrored table")->required();
  restore->add_option("version", *version, "The version to bring back")->required();
  restore->callback([env, restore_table, version] {
    const DeltaMirrorOptions options = env();
    const auto log = table_or_throw(options, *restore_table, "delta restore");
    util::Status s;
    auto done = delta::restore(log, *version, options.log_retention, &s);
    if (!done) throw CLI::RuntimeError("delta restore: " + s.message(), 1);
    std::cout << nlohmann::json{{"table", *restore_table},
                                {"version", done->version},
                                {"restored_version", done->restored_version},
                                {"files_added", done->files_added},
                                {"files_removed", done->files_removed}}
                     .dump(2)
              << "\n";
  });

  auto* vacuum = delta->add_subcommand(
      "vacuum",
      "Delete data files no version within the retention needs, and files no commit "
      "names (left by a crashed writer)");
  auto tables = std::make_shared<std::vector<std::string>>();
  auto retain = std::make_shared<int64_t>(-1);
  auto dry_run = std::make_shared<bool>(false);
  auto force = std::make_shared<bool>(false);
  vacuum->add_option("tables", *tables, "Mirrored tables (default: all)");
  vacuum->add_option("--retain-hours", *retain,
                     "Keep removed files this many hours (default: delta_file_retention_hours)");
  vacuum->add_flag("--dry-run", *dry_run, "Only list what would be deleted");
  vacuum->add_flag("--force", *force,
                   "Allow a retention below delta_file_retention_hours (readers of older "
                   "versions, and writers committing right now, may lose their files)");
  vacuum->callback([env, tables, retain, dry_run, force] {
    DeltaMirrorOptions options = env();
    for (const auto& t : *tables) table_or_throw(options, t, "delta vacuum");
    if (*retain >= 0) {
      const auto wanted = std::chrono::hours(*retain);
      // The retention protects readers of older versions and writers between placing their
      // files and committing them; going below the configured one needs saying so.
      if (wanted < options.file_retention && !*force)
        throw CLI::RuntimeError("delta vacuum: --retain-hours " + std::to_string(*retain) +
                                    " is below delta_file_retention_hours (" +
                                    std::to_string(std::chrono::duration_cast<std::chrono::hours>(
                                                       options.file_retention)
                                                       .count()) +
                                    "); add --force if no reader or writer needs those files",
                                2);
      options.file_retention = wanted;
    }
    const nlohmann::json report = DeltaMirror(options).vacuum(*tables, *dry_run);
    std::cout << report.dump(2) << "\n";
    for (const auto& [name, r] : report.items())
      if (r.contains("error")) throw CLI::RuntimeError(1);
  });
}

}  // namespace ocppgw::analytics
