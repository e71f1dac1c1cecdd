// csms/operator_cli.hpp: `ocppgw operators ...`, the accounts of the REST API and the page
// (csms/operators.hpp). Works on the data folder whether or not the gateway runs; a running
// gateway sees a change at the operator's next request (sessions are checked against the
// database on every request).
//
//   ocppgw operators add <name> --role viewer|operator|admin [--password-env VAR]
//   ocppgw operators passwd <name> [--password-env VAR]   (ends the operator's sessions)
//   ocppgw operators remove <name>                       (ends them too; not the last admin)
//   ocppgw operators list                                (name role created; never hashes)
//
// Passwords come from the environment variable VAR, or else one line on stdin (echo off on a
// terminal), as for `charge-points set-password` (csms/password_input.hpp). Every change is
// written to the audit log with the actor "cli:<login name>". Shape as csms/token_cli.hpp: the
// env function is called when a command runs; failures throw CLI::RuntimeError (exit code 1).
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

#include <CLI/CLI.hpp>

#include "csms/operators.hpp"

namespace ocppgw::csms {

struct OperatorCliEnv {
  std::string db_path;
  int iterations = kOperatorPasswordIterations;  // tests lower it
};

// `in` (stdin by default) supplies passwords when no --password-env is given.
CLI::App* add_operator_commands(CLI::App& app, std::function<OperatorCliEnv()> env,
                                std::istream* in = nullptr, std::ostream* out = nullptr);

}  // namespace ocppgw::csms
