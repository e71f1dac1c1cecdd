// csms/charge_point_cli.hpp: `ocppgw charge-points ...`, the HTTP Basic passwords of charge
// points (OCPP security profiles 1 and 2). Passwords are hashed (gateway/auth.hpp) before they
// touch the database and are never printed.
//
//   ocppgw charge-points set-password <id> [--password-env VAR]   (adds or replaces)
//   ocppgw charge-points delete-password <id>
//   ocppgw charge-points set-security-profile <id> 0|1|2|3|none    (less is refused)
//   ocppgw charge-points register <id> [--security-profile N]      (Accepted at boot)
//   ocppgw charge-points remove <id>                               (forgets it, not its events)
//   ocppgw charge-points list                                      (ids with a password)
//
// set-password reads the password from the environment variable VAR, or else one line from
// stdin (echo turned off when stdin is a terminal). The gateway, if running, uses a new
// password at the next connection (its verification cache is keyed by the stored hash); the
// other changes reach a running gateway at its restart (the REST API applies them at once).
// Shape as gateway/token_cli.hpp: the env function is called when a command runs; failures
// throw CLI::RuntimeError (exit code 1).
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

#include <CLI/CLI.hpp>

namespace ocppgw::csms {

struct ChargePointCliEnv {
  std::string db_path;
};

// `in` (stdin by default) supplies set-password's password when no --password-env is given.
CLI::App* add_charge_point_commands(CLI::App& app, std::function<ChargePointCliEnv()> env,
                                    std::istream* in = nullptr, std::ostream* out = nullptr);

}  // namespace ocppgw::csms
