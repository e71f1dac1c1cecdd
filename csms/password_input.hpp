// csms/password_input.hpp: how the management commands take a password (`charge-points
// set-password`, `operators add|passwd`): from a named environment variable, for scripts, or
// else one line from `in`. When `in` is the process's stdin and that is a terminal, the prompt
// goes to stderr and echo is off, so the password shows neither on screen nor in a transcript.
// Never from a command-line argument, which other users can read in the process list.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

namespace ocppgw::csms {

// The password: the value of `env_var` when it is not empty, else one line of `in` (a trailing
// CR removed). nullopt with *error set when `env_var` is named but not set.
std::optional<std::string> read_password(const std::string& env_var, std::istream& in,
                                         bool in_is_stdin, std::string* error);

}  // namespace ocppgw::csms
