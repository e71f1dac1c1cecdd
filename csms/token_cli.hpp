// csms/token_cli.hpp: `ocppgw tokens ...`, managing the id-token list from the command
// line, over csms/token_admin like the REST API. Raw tags are hashed with the configured secret
// before they touch the database; `list` therefore shows hashes.
//
//   ocppgw tokens add <idTag> [--status Accepted|Blocked|Expired|Invalid] [--expiry RFC3339]
//                             [--parent ID]       (adds or replaces)
//   ocppgw tokens block <idTag>
//   ocppgw tokens remove <idTag>
//   ocppgw tokens list
//
// Usage from main:
//   CLI::App* tokens = add_token_commands(app, [&] { return TokenCliEnv{db_path, secret}; });
//   try { app.parse(argc, argv); } catch (const CLI::ParseError& e) { return app.exit(e); }
//   if (tokens->parsed()) return 0;   // the command already ran
// The env function is called when a command runs, i.e. after config, flags and environment are
// applied. Failures throw CLI::RuntimeError (exit code 1, message on stderr), so app.exit(e)
// reports them. Output goes to `out` (stdout by default).
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

#include <CLI/CLI.hpp>

namespace ocppgw::csms {

struct TokenCliEnv {
  std::string db_path;
  std::string id_token_secret;
};

CLI::App* add_token_commands(CLI::App& app, std::function<TokenCliEnv()> env,
                             std::ostream* out = nullptr);

}  // namespace ocppgw::csms
