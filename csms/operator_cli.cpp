// csms/operator_cli.cpp: `ocppgw operators ...` (see operator_cli.hpp).
#include "csms/operator_cli.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include <openssl/crypto.h>
#include <nlohmann/json.hpp>

#include "csms/password_input.hpp"
#include "util/time.hpp"

namespace ocppgw::csms {
namespace {

struct Args {
  std::string name;
  std::string role;
  std::string password_env;
};

// main() prints the message and exits 1.
[[noreturn]] void fail(const std::string& message) { throw CLI::RuntimeError(message, 1); }

std::unique_ptr<Operators> open(const OperatorCliEnv& env, const std::string& command) {
  // As at gateway start: the first admin may be created before the gateway ever ran.
  std::error_code ignored;
  std::filesystem::create_directories(std::filesystem::path(env.db_path).parent_path(), ignored);
  Operators::Options options;
  options.iterations = env.iterations;
  util::Status s;
  auto operators = Operators::open(env.db_path, options, &s);
  if (!operators) fail("operators " + command + ": " + env.db_path + ": " + s.message());
  return operators;
}

// Who ran the command, for the audit log: the login name of the terminal, else $USER.
std::string cli_actor() {
  const char* user = ::getlogin();
  if (!user || !*user) user = std::getenv("USER");
  return std::string("cli:") + (user && *user ? user : "unknown");
}

std::string password(const Args& args, std::istream& in, bool from_stdin,
                     const std::string& command) {
  std::string error;
  auto read = read_password(args.password_env, in, from_stdin, &error);
  if (!read) fail("operators " + command + ": " + error);
  return std::move(*read);
}

// Audits `change` (also a refused one: a failed attempt is worth knowing about) and fails the
// command when it did not happen.
void finish(Operators& operators, const Change& change, const std::string& command,
            const std::string& action, const std::string& name, const nlohmann::json& details) {
  const std::string outcome(outcome_name(change.error));
  if (auto s = operators.audit(cli_actor(), action, name, details.dump(), outcome);
      !s.ok() && change.ok())
    fail("operators " + command + ": done, but the audit log failed: " + s.message());
  if (!change.ok()) fail("operators " + command + ": " + change.message);
}

}  // namespace

CLI::App* add_operator_commands(CLI::App& app, std::function<OperatorCliEnv()> env,
                                std::istream* in, std::ostream* out) {
  std::ostream& os = out ? *out : std::cout;
  std::istream& is = in ? *in : std::cin;
  const bool from_stdin = in == nullptr;
  auto args = std::make_shared<Args>();
  CLI::App* ops = app.add_subcommand(
      "operators", "Manage REST API operators (passwords stored as PBKDF2 hashes)");
  ops->require_subcommand(1);

  CLI::App* add = ops->add_subcommand(
      "add", "Add an operator: password from --password-env, else one line on stdin");
  add->add_option("name", args->name, "The operator's login name")->required();
  add->add_option("--role", args->role,
                  "viewer (reads), operator (commands, quarantine, tokens) or admin (accounts, "
                  "charge point credentials)")
      ->required()
      ->check(CLI::IsMember({"viewer", "operator", "admin"}));
  add->add_option("--password-env", args->password_env,
                  "Name of an environment variable holding the password");
  add->callback([env, args, &os, &is, from_stdin] {
    if (auto e = operator_name_error(args->name); !e.empty()) fail("operators add: " + e);
    std::string secret = password(*args, is, from_stdin, "add");
    auto operators = open(env(), "add");
    const Change change = operators->add(args->name, *parse_role(args->role), secret);
    OPENSSL_cleanse(secret.data(), secret.size());
    finish(*operators, change, "add", "operator.add", args->name, {{"role", args->role}});
    os << args->name << " added (" << args->role << ")\n";
  });

  CLI::App* passwd =
      ops->add_subcommand("passwd", "Replace an operator's password and end their sessions");
  passwd->add_option("name", args->name, "The operator")->required();
  passwd->add_option("--password-env", args->password_env,
                     "Name of an environment variable holding the password");
  passwd->callback([env, args, &os, &is, from_stdin] {
    std::string secret = password(*args, is, from_stdin, "passwd");
    auto operators = open(env(), "passwd");
    const Change change = operators->passwd(args->name, secret);
    OPENSSL_cleanse(secret.data(), secret.size());
    finish(*operators, change, "passwd", "operator.passwd", args->name, nlohmann::json::object());
    os << args->name << " password changed; sessions ended\n";
  });

  CLI::App* remove = ops->add_subcommand("remove", "Remove an operator and end their sessions");
  remove->add_option("name", args->name, "The operator")->required();
  remove->callback([env, args, &os] {
    auto operators = open(env(), "remove");
    finish(*operators, operators->remove(args->name), "remove", "operator.remove", args->name,
           nlohmann::json::object());
    os << args->name << " removed\n";
  });

  CLI::App* list = ops->add_subcommand("list", "Operators: name role created");
  list->callback([env, &os] {
    auto operators = open(env(), "list");
    util::Status s;
    const auto rows = operators->list(&s);
    if (!s.ok()) fail("operators list: " + s.message());
    for (const auto& r : rows)
      os << r.name << ' ' << role_name(r.role) << ' ' << util::format_rfc3339_ms(r.created_ms)
         << '\n';
  });
  return ops;
}

}  // namespace ocppgw::csms
