// csms/token_cli.cpp: `ocppgw tokens ...` (see token_cli.hpp), over csms/token_admin like the
// REST API. Runs in the CLI process on its own connection; the gateway, if running, sees
// changes at its next lookup (tokens are not cached).
#include "csms/token_cli.hpp"

#include <iostream>
#include <memory>

#include "csms/token_admin.hpp"
#include "storage/gateway_db.hpp"
#include "storage/id_token_store.hpp"
#include "util/time.hpp"

namespace ocppgw::csms {
namespace {

struct Args {
  std::string id_tag;
  std::string status = "Accepted";
  std::string expiry;
  std::string parent;
};

// main() prints the message and exits 1.
[[noreturn]] void fail(const std::string& message) { throw CLI::RuntimeError(message, 1); }

void check(const storage::Status& s, const std::string& what) {
  if (!s.ok()) fail(what + ": " + s.message());
}

void check(const AdminResult& r, const std::string& what) {
  if (!r.ok()) fail(what + ": " + r.message);
}

std::unique_ptr<storage::Db> open(const TokenCliEnv& env) {
  if (env.id_token_secret.empty())
    fail("tokens: no id token secret configured; hashes would not match the gateway's");
  storage::Status s;
  auto db = storage::open_gateway_db(env.db_path, &s);
  check(s, "tokens: " + env.db_path);
  return db;
}

}  // namespace

CLI::App* add_token_commands(CLI::App& app, std::function<TokenCliEnv()> env, std::ostream* out) {
  std::ostream& os = out ? *out : std::cout;
  auto args = std::make_shared<Args>();
  CLI::App* tokens =
      app.add_subcommand("tokens", "Manage the id-token list (stored as HMAC hashes of the tags)");
  tokens->require_subcommand(1);

  CLI::App* add = tokens->add_subcommand("add", "Add a token, or replace its status/expiry/parent");
  add->add_option("idTag", args->id_tag, "The id tag as the charge point sends it")->required();
  add->add_option("--status", args->status, "Accepted, Blocked, Expired or Invalid")
      ->check(CLI::IsMember({"Accepted", "Blocked", "Expired", "Invalid"}));
  add->add_option("--expiry", args->expiry,
                  "Expiry date, RFC 3339 (e.g. 2030-01-01T00:00:00Z); Expired after it");
  add->add_option("--parent", args->parent, "Parent/group id, returned as parentIdTag");
  add->callback([env, args, &os] {
    const TokenCliEnv e = env();
    auto db = open(e);
    storage::IdTokenRecord r;
    check(TokenAdmin(*db, e.id_token_secret)
              .add(args->id_tag, {args->status, args->expiry, args->parent}, true, &r),
          "tokens add");
    os << r.id_token_hash << ' ' << r.status << '\n';
  });

  auto by_tag = [&](const char* name, const char* help, auto action) {
    CLI::App* sub = tokens->add_subcommand(name, help);
    sub->add_option("idTag", args->id_tag, "The id tag")->required();
    sub->callback([env, args, action, name, &os] {
      const TokenCliEnv e = env();
      auto db = open(e);
      TokenAdmin admin(*db, e.id_token_secret);
      check(action(admin, args->id_tag), std::string("tokens ") + name);
      os << admin.hash(args->id_tag) << ' ' << name << '\n';
    });
  };
  by_tag("block", "Set a token's status to Blocked", [](TokenAdmin& admin, const std::string& tag) {
    return admin.update(tag, {.status = "Blocked"});
  });
  by_tag("remove", "Delete a token (it then gets the unknown-token policy)",
         [](TokenAdmin& admin, const std::string& tag) { return admin.remove(tag); });

  CLI::App* list = tokens->add_subcommand("list", "List tokens: hash status expiry parent");
  list->callback([env, &os] {
    auto db = open(env());
    storage::Status s;
    auto rows = storage::IdTokenStore(*db).list(&s);
    check(s, "tokens list");
    for (const auto& r : rows) {
      os << r.id_token_hash << ' ' << r.status << ' '
         << (r.expiry_ms ? util::format_rfc3339_ms(*r.expiry_ms) : "-") << ' '
         << r.parent_id.value_or("-") << '\n';
    }
  });
  return tokens;
}

}  // namespace ocppgw::csms
