// gateway/command_runner.hpp: runs an operator's hook command (csr_sign_command,
// ev_certificate_command) the one way the gateway runs commands: /bin/sh -c, the request on
// stdin, what identifies it in extra environment variables, the answer on stdout, within a
// timeout after which it is killed. The command inherits no descriptor of the gateway's (no
// listening socket, no database) beyond its three pipes. Blocks the calling thread.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace ocppgw::gateway {

struct CommandResult {
  bool started = false;
  bool in_time = false;
  int wait_status = 0;  // as waitpid gives it
  std::string out;      // stdout (the first MiB)
  std::string err;      // stderr (the first MiB)
  std::string error;    // why it could not be started

  bool ok() const;
  // Why it did not succeed, for a log line: "could not be started: ...", "did not finish within
  // N s", "failed (exit status 3): <stderr>".
  std::string failure() const;
  std::chrono::seconds timeout{0};
};

// `env` entries are "NAME=value", added to the gateway's environment.
CommandResult run_command(const std::string& command, const std::string& input,
                          const std::vector<std::string>& env, std::chrono::seconds timeout);

}  // namespace ocppgw::gateway
