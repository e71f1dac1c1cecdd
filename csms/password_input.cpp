// csms/password_input.cpp: see password_input.hpp.
#include "csms/password_input.hpp"

#include <termios.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

namespace ocppgw::csms {
namespace {

// One line from `in`; with a terminal on stdin, prompted on stderr with echo off.
std::string read_line(std::istream& in, bool in_is_stdin) {
  const bool tty = in_is_stdin && ::isatty(STDIN_FILENO);
  termios saved{};
  if (tty) {
    std::cerr << "password: " << std::flush;
    ::tcgetattr(STDIN_FILENO, &saved);
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    ::tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
  }
  std::string line;
  std::getline(in, line);
  if (tty) {
    ::tcsetattr(STDIN_FILENO, TCSANOW, &saved);
    std::cerr << '\n';
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

}  // namespace

std::optional<std::string> read_password(const std::string& env_var, std::istream& in,
                                         bool in_is_stdin, std::string* error) {
  if (env_var.empty()) return read_line(in, in_is_stdin);
  const char* v = std::getenv(env_var.c_str());
  if (!v) {
    if (error) *error = "$" + env_var + " is not set";
    return std::nullopt;
  }
  return std::string(v);
}

}  // namespace ocppgw::csms
