// csms/charge_point_cli.cpp: `ocppgw charge-points ...` (see charge_point_cli.hpp), over
// csms/charge_point_admin like the REST API.
#include "csms/charge_point_cli.hpp"

#include <filesystem>
#include <iostream>
#include <memory>

#include <openssl/crypto.h>

#include "csms/charge_point_admin.hpp"
#include "csms/charge_point_id.hpp"
#include "csms/password_input.hpp"
#include "storage/charge_point_credentials.hpp"
#include "storage/gateway_db.hpp"
#include "util/time.hpp"

namespace ocppgw::csms {
namespace {

struct Args {
  std::string id;
  std::string password_env;
};

// main() prints the message and exits 1.
[[noreturn]] void fail(const std::string& message) { throw CLI::RuntimeError(message, 1); }

std::unique_ptr<storage::Db> open(const ChargePointCliEnv& env, const std::string& command) {
  // As at gateway start: the data dir may not exist yet when passwords are provisioned first.
  std::error_code ignored;
  std::filesystem::create_directories(std::filesystem::path(env.db_path).parent_path(), ignored);
  storage::Status s;
  auto db = storage::open_gateway_db(env.db_path, &s);
  if (!db) fail("charge-points " + command + ": " + env.db_path + ": " + s.message());
  return db;
}

void check_id(const std::string& id, const std::string& command) {
  if (auto e = charge_point_id_error(id); !e.empty()) fail("charge-points " + command + ": " + e);
}

}  // namespace

CLI::App* add_charge_point_commands(CLI::App& app, std::function<ChargePointCliEnv()> env,
                                    std::istream* in, std::ostream* out) {
  std::ostream& os = out ? *out : std::cout;
  std::istream& is = in ? *in : std::cin;
  const bool from_stdin = in == nullptr;
  auto args = std::make_shared<Args>();
  CLI::App* cps = app.add_subcommand(
      "charge-points", "Manage charge point HTTP Basic passwords (stored as PBKDF2 hashes)");
  cps->require_subcommand(1);

  CLI::App* set = cps->add_subcommand(
      "set-password",
      "Set (or replace) a charge point's password: from --password-env, else one line on stdin");
  set->add_option("id", args->id, "The charge point id (the Basic user name)")->required();
  set->add_option("--password-env", args->password_env,
                  "Name of an environment variable holding the password");
  set->callback([env, args, &os, &is, from_stdin] {
    check_id(args->id, "set-password");
    std::string error;
    auto read = read_password(args->password_env, is, from_stdin, &error);
    if (!read) fail("charge-points set-password: " + error);
    std::string password = std::move(*read);
    auto db = open(env(), "set-password");
    const AdminResult r = ChargePointAdmin(*db).set_password(args->id, password);
    OPENSSL_cleanse(password.data(), password.size());
    if (!r.ok()) fail("charge-points set-password: " + r.message);
    os << args->id << " password set\n";
  });

  CLI::App* del = cps->add_subcommand("delete-password",
                                      "Delete a charge point's password (it can then no longer "
                                      "connect where HTTP Basic is required)");
  del->add_option("id", args->id, "The charge point id")->required();
  del->callback([env, args, &os] {
    auto db = open(env(), "delete-password");
    if (auto r = ChargePointAdmin(*db).delete_password(args->id); !r.ok())
      fail("charge-points delete-password: " + r.message);
    os << args->id << " password deleted\n";
  });

  auto profile = std::make_shared<std::string>();
  CLI::App* sp = cps->add_subcommand(
      "set-security-profile",
      "Assign OCPP security profile 0-3, or 'none': a connection providing less is refused");
  sp->add_option("id", args->id, "The charge point id")->required();
  sp->add_option("profile", *profile, "0, 1, 2, 3 or none")
      ->required()
      ->check(CLI::IsMember({"0", "1", "2", "3", "none"}));
  sp->callback([env, args, profile, &os] {
    auto db = open(env(), "set-security-profile");
    const std::optional<int> value =
        *profile == "none" ? std::nullopt : std::optional<int>(std::stoi(*profile));
    if (auto r = ChargePointAdmin(*db).set_security_profile(args->id, value); !r.ok())
      fail("charge-points set-security-profile: " + r.message);
    os << args->id << " security profile " << *profile << '\n';
  });

  CLI::App* reg = cps->add_subcommand(
      "register",
      "Register a charge point: its BootNotification is Accepted whatever unknown_charge_points "
      "says");
  reg->add_option("id", args->id, "The charge point id")->required();
  auto reg_profile = std::make_shared<std::string>();
  reg->add_option("--security-profile", *reg_profile, "0, 1, 2 or 3")
      ->check(CLI::IsMember({"0", "1", "2", "3"}));
  reg->callback([env, args, reg_profile, &os] {
    auto db = open(env(), "register");
    const std::optional<int> value =
        reg_profile->empty() ? std::nullopt : std::optional<int>(std::stoi(*reg_profile));
    if (auto r = ChargePointAdmin(*db).register_charge_point(args->id, value); !r.ok())
      fail("charge-points register: " + r.message);
    os << args->id << " registered\n";
  });

  CLI::App* rm = cps->add_subcommand(
      "remove",
      "Forget a charge point: its registration, password and kept state (not its events)");
  rm->add_option("id", args->id, "The charge point id")->required();
  rm->callback([env, args, &os] {
    auto db = open(env(), "remove");
    if (auto r = ChargePointAdmin(*db).remove_charge_point(args->id); !r.ok())
      fail("charge-points remove: " + r.message);
    os << args->id << " removed\n";
  });

  CLI::App* list =
      cps->add_subcommand("list", "Charge points with a password: id algorithm updated");
  list->callback([env, &os] {
    auto db = open(env(), "list");
    storage::Status s;
    const auto rows = storage::ChargePointCredentialStore(*db).list(&s);
    if (!s.ok()) fail("charge-points list: " + s.message());
    for (const auto& r : rows)
      os << r.charge_point_id << ' ' << r.algorithm << ':' << r.iterations << ' '
         << util::format_rfc3339_ms(r.updated_ms) << '\n';
  });
  return cps;
}

}  // namespace ocppgw::csms
