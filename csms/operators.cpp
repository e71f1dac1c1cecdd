// csms/operators.cpp: see operators.hpp.
#include "csms/operators.hpp"

#include <algorithm>
#include <cstdlib>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "storage/gateway_db.hpp"
#include "util/hex.hpp"
#include "util/logging.hpp"
#include "util/time.hpp"

namespace ocppgw::csms {
namespace {

using storage::OperatorStore;
using util::Status;

constexpr size_t kTokenBytes = 32;
constexpr size_t kMaxNameLength = 64;
// Expired sessions stay this long (then the next login purges them), so a request with one is
// told "expired" rather than "unknown".
constexpr int64_t kKeepExpiredMs = 7 * 24 * 3600 * 1000LL;

std::string sha256_hex(std::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha256(), nullptr);
  return util::to_hex(digest, length);
}

bool is_token(std::string_view token) {
  return token.size() == 2 * kTokenBytes && std::all_of(token.begin(), token.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

Change invalid(std::string message) { return {ChangeError::Invalid, std::move(message)}; }
Change failed(const Status& s) { return {ChangeError::Failed, s.message()}; }

storage::OperatorRecord with_hash(std::string name, const PasswordHash& h, int64_t now) {
  return {std::move(name), {}, h.algorithm, h.iterations, h.salt_hex, h.derived_key_hex, now, now};
}

OperatorInfo info(const storage::OperatorRecord& r) {
  return {r.name, parse_role(r.role).value_or(OperatorRole::Viewer), r.created_ms, r.updated_ms};
}

// Conflict when `current` is the only admin: nobody could manage accounts through the API after
// the change (the command line still could, but that should be a deliberate step).
Change keep_an_admin(OperatorStore& store, const storage::OperatorRecord& current) {
  if (current.role != role_name(OperatorRole::Admin)) return {};
  Status s;
  const int64_t admins = store.count_role(role_name(OperatorRole::Admin), &s);
  if (!s.ok()) return failed(s);
  if (admins <= 1)
    return {ChangeError::Conflict, current.name + " is the last admin; make another admin first"};
  return {};
}

}  // namespace

std::string_view role_name(OperatorRole role) {
  switch (role) {
    case OperatorRole::Viewer:
      return "viewer";
    case OperatorRole::Operator:
      return "operator";
    case OperatorRole::Admin:
      return "admin";
  }
  return "viewer";
}

std::optional<OperatorRole> parse_role(std::string_view text) {
  for (auto role : {OperatorRole::Viewer, OperatorRole::Operator, OperatorRole::Admin})
    if (text == role_name(role)) return role;
  return std::nullopt;
}

std::string_view outcome_name(ChangeError error) {
  switch (error) {
    case ChangeError::None:
      return "ok";
    case ChangeError::Invalid:
      return "invalid";
    case ChangeError::NotFound:
      return "not_found";
    case ChangeError::Conflict:
      return "conflict";
    case ChangeError::Failed:
      return "failed";
  }
  return "failed";
}

std::string operator_password_error(std::string_view password) {
  if (password.size() < kMinOperatorPasswordLength)
    return "the password must have at least " + std::to_string(kMinOperatorPasswordLength) +
           " characters, this one has " + std::to_string(password.size());
  if (password.size() > kMaxOperatorPasswordLength)
    return "the password must have at most " + std::to_string(kMaxOperatorPasswordLength) +
           " characters";
  for (char ch : password) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7F) return "the password must not contain control characters";
  }
  return {};
}

std::string operator_name_error(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength)
    return "an operator name has 1 to " + std::to_string(kMaxNameLength) + " characters";
  for (char c : name) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '@' || c == '-';
    if (!ok) return "an operator name may only contain A-Z a-z 0-9 . _ @ -";
  }
  return {};
}

std::unique_ptr<Operators> Operators::open(const std::string& db_path, Options options,
                                           Status* status) {
  auto db = storage::open_gateway_db(db_path, status);
  if (!db) return nullptr;
  return std::unique_ptr<Operators>(new Operators(std::move(db), std::move(options)));
}

Operators::Operators(std::unique_ptr<storage::Db> db, Options options)
    : options_(std::move(options)), db_(std::move(db)) {}

int64_t Operators::now() const { return options_.now_ms ? options_.now_ms() : util::now_ms(); }

Change Operators::in_transaction(const std::function<Change(OperatorStore&)>& body) {
  std::lock_guard lock(db_mu_);
  // IMMEDIATE: checks such as "is this the last admin?" and the write they guard are one step,
  // also against a management command running in another process.
  if (auto s = db_->begin_immediate(); !s.ok()) return failed(s);
  OperatorStore store(*db_);
  Change change = body(store);
  if (change.ok()) {
    if (auto s = db_->commit(); !s.ok()) change = failed(s);
  }
  if (!change.ok()) db_->rollback();
  return change;
}

// ---- accounts ----

Change Operators::add(const std::string& name, OperatorRole role, std::string_view password) {
  if (auto e = operator_name_error(name); !e.empty()) return invalid(e);
  if (auto e = operator_password_error(password); !e.empty()) return invalid(e);
  const auto hash = hash_password(password, options_.iterations);
  if (!hash) return {ChangeError::Failed, "cannot hash (random source failed)"};
  auto record = with_hash(name, *hash, now());
  record.role = std::string(role_name(role));
  return in_transaction([&](OperatorStore& store) -> Change {
    bool exists = false;
    if (auto s = store.insert(record, &exists); !s.ok()) return failed(s);
    if (exists) return {ChangeError::Conflict, "operator " + name + " already exists"};
    return {};
  });
}

Change Operators::passwd(const std::string& name, std::string_view password) {
  if (auto e = operator_password_error(password); !e.empty()) return invalid(e);
  const auto hash = hash_password(password, options_.iterations);
  if (!hash) return {ChangeError::Failed, "cannot hash (random source failed)"};
  const auto record = with_hash(name, *hash, now());
  return in_transaction([&](OperatorStore& store) -> Change {
    bool found = false;
    if (auto s = store.update_password(record, &found); !s.ok()) return failed(s);
    if (!found) return {ChangeError::NotFound, "no operator " + name};
    // Whoever knew the old password may hold a session opened with it.
    if (auto s = store.remove_sessions_of(name); !s.ok()) return failed(s);
    return {};
  });
}

Change Operators::set_role(const std::string& name, OperatorRole role) {
  return in_transaction([&](OperatorStore& store) -> Change {
    Status s;
    const auto current = store.find(name, &s);
    if (!s.ok()) return failed(s);
    if (!current) return {ChangeError::NotFound, "no operator " + name};
    if (role != OperatorRole::Admin)
      if (Change kept = keep_an_admin(store, *current); !kept.ok()) return kept;
    if (s = store.update_role(name, role_name(role), now()); !s.ok()) return failed(s);
    return {};
  });
}

Change Operators::remove(const std::string& name) {
  return in_transaction([&](OperatorStore& store) -> Change {
    Status s;
    const auto current = store.find(name, &s);
    if (!s.ok()) return failed(s);
    if (!current) return {ChangeError::NotFound, "no operator " + name};
    if (Change kept = keep_an_admin(store, *current); !kept.ok()) return kept;
    // Sessions go with the row (ON DELETE CASCADE, migration 0004).
    if (s = store.remove(name); !s.ok()) return failed(s);
    return {};
  });
}

std::vector<OperatorInfo> Operators::list(Status* status) {
  std::vector<storage::OperatorRecord> rows;
  {
    std::lock_guard lock(db_mu_);
    rows = OperatorStore(*db_).list(status);
  }
  std::vector<OperatorInfo> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(info(r));
  return out;
}

// ---- sessions ----

std::optional<PasswordHash> Operators::stored_hash(std::string_view name, Status* status) {
  std::lock_guard lock(db_mu_);
  auto r = OperatorStore(*db_).find(name, status);
  if (!r) return std::nullopt;
  return PasswordHash{r->algorithm, r->iterations, r->salt_hex, r->derived_key_hex};
}

const PasswordHash& Operators::dummy_hash() {
  std::call_once(dummy_once_, [this] {
    // Any password: nothing can match it, since the caller ignores the result.
    dummy_ = hash_password("no operator has this name", options_.iterations)
                 .value_or(PasswordHash{std::string(kPasswordAlgorithm), options_.iterations,
                                        std::string(32, '0'), std::string(64, '0')});
  });
  return dummy_;
}

LoginOutcome Operators::login(std::string_view name, std::string_view password,
                              std::string_view address) {
  const int64_t t = now();
  if (const int64_t wait = blocked_for(name, address, t); wait > 0)
    return {LoginResult::Throttled, std::nullopt, wait, "too many failed logins; wait"};
  // A name no operator can have needs no hashing to refuse, and is not remembered by name (a
  // megabyte of name per attempt would otherwise fill the failure table).
  if (!operator_name_error(name).empty()) {
    record_failure({}, address, t);
    return {LoginResult::Rejected, std::nullopt, 0, "not an operator name"};
  }

  Status s;
  const auto hash = stored_hash(name, &s);
  if (!s.ok()) return {LoginResult::Unavailable, std::nullopt, 0, s.message()};
  bool ok = false;
  ++hash_computations_;
  if (hash)
    ok = verify_password(*hash, password);
  else
    verify_password(dummy_hash(), password);  // an unknown name costs what a wrong password does
  if (!ok) {
    record_failure(name, address, t);
    return {LoginResult::Rejected, std::nullopt, 0, hash ? "wrong password" : "no such operator"};
  }
  record_success(name, address);

  auto token = util::random_hex(kTokenBytes);
  auto csrf = util::random_hex(kTokenBytes);
  if (!token || !csrf) return {LoginResult::Unavailable, std::nullopt, 0, "random source failed"};
  OperatorSession session{*token, *csrf, t + options_.session_ttl_ms, std::string(name),
                          OperatorRole::Viewer};
  const Change stored = in_transaction([&](OperatorStore& store) -> Change {
    Status st;
    // The role as of now (it may have changed while PBKDF2 ran).
    const auto current = store.find(name, &st);
    if (!st.ok()) return failed(st);
    if (!current) return {ChangeError::NotFound, "operator removed during login"};
    session.role = parse_role(current->role).value_or(OperatorRole::Viewer);
    if (st = store.purge_sessions(t - kKeepExpiredMs); !st.ok()) return failed(st);
    if (st = store.insert_session({sha256_hex(session.token),
                                   session.name,
                                   session.csrf_token,
                                   t,
                                   session.expires_ms,
                                   {}});
        !st.ok())
      return failed(st);
    return {};
  });
  if (stored.error == ChangeError::NotFound)
    return {LoginResult::Rejected, std::nullopt, 0, stored.message};
  if (!stored.ok()) return {LoginResult::Unavailable, std::nullopt, 0, stored.message};
  return {LoginResult::Ok, std::move(session), 0, {}};
}

SessionCheck Operators::authenticate(std::string_view token) {
  SessionCheck out;
  // Anything that is not one of our tokens is unknown without a query.
  if (!is_token(token)) return out;
  Status s;
  std::optional<storage::OperatorSessionRecord> row;
  {
    std::lock_guard lock(db_mu_);
    row = OperatorStore(*db_).find_session(sha256_hex(token), &s);
  }
  if (!s.ok()) {
    out.state = SessionState::Unavailable;
    out.error = s.message();
    return out;
  }
  if (!row) return out;
  out.state = row->expires_ms <= now() ? SessionState::Expired : SessionState::Valid;
  out.name = row->operator_name;
  out.role = parse_role(row->role).value_or(OperatorRole::Viewer);
  out.csrf_token = row->csrf_token;
  out.expires_ms = row->expires_ms;
  return out;
}

Status Operators::logout(std::string_view token, bool* found) {
  if (found) *found = false;
  if (!is_token(token)) return {};
  std::lock_guard lock(db_mu_);
  return OperatorStore(*db_).remove_session(sha256_hex(token), found);
}

// ---- login failures ----

int64_t Operators::blocked_for(std::string_view name, std::string_view address, int64_t t) {
  std::lock_guard lock(failures_mu_);
  int64_t wait = 0;
  auto check = [&](const FailureMap& map, std::string_view key) {
    if (key.empty()) return;
    if (auto it = map.find(std::string(key)); it != map.end())
      wait = std::max(wait, it->second.blocked_until_ms - t);
  };
  check(name_failures_, name);
  check(address_failures_, address);
  return wait;
}

void Operators::count_failure(FailureMap& map, std::string_view key, int64_t t) {
  if (key.empty()) return;
  if (map.size() >= options_.max_tracked && map.find(std::string(key)) == map.end()) {
    std::erase_if(map, [&](const auto& e) {
      return t - e.second.last_ms > options_.forget_failures_after_ms;
    });
    // Still full of recent failures: forget the oldest one rather than grow without bound.
    if (map.size() >= options_.max_tracked)
      map.erase(std::min_element(map.begin(), map.end(), [](const auto& a, const auto& b) {
        return a.second.last_ms < b.second.last_ms;
      }));
  }
  Failures& f = map[std::string(key)];
  if (t - f.last_ms > options_.forget_failures_after_ms) f.count = 0;
  f.last_ms = t;
  if (++f.count < options_.free_failures) return;
  // 1 s at the free_failures-th failure, doubling with each one after it, up to the maximum.
  const int doublings = std::min(f.count - options_.free_failures, 30);
  f.blocked_until_ms =
      t + std::min(options_.max_backoff_ms, options_.first_backoff_ms << doublings);
}

void Operators::record_failure(std::string_view name, std::string_view address, int64_t t) {
  std::lock_guard lock(failures_mu_);
  count_failure(name_failures_, name, t);
  count_failure(address_failures_, address, t);
}

void Operators::record_success(std::string_view name, std::string_view address) {
  std::lock_guard lock(failures_mu_);
  name_failures_.erase(std::string(name));
  address_failures_.erase(std::string(address));
}

// ---- audit log ----

Status Operators::audit(std::string actor, std::string action, std::string target,
                        std::string details, std::string outcome) {
  const storage::AuditRecord record{0,
                                    now(),
                                    std::move(actor),
                                    std::move(action),
                                    std::move(target),
                                    std::move(details),
                                    std::move(outcome)};
  std::lock_guard lock(db_mu_);
  return OperatorStore(*db_).append_audit(record);
}

AuditPage Operators::audit_list(std::optional<int64_t> cursor, int64_t limit, Status* status) {
  AuditPage page;
  {
    std::lock_guard lock(db_mu_);
    // One row more than asked tells whether an older page exists.
    page.items = OperatorStore(*db_).list_audit(cursor, std::max<int64_t>(limit, 1) + 1, status);
  }
  if (static_cast<int64_t>(page.items.size()) > std::max<int64_t>(limit, 1)) {
    page.items.pop_back();
    page.next_cursor = page.items.back().id;
  }
  return page;
}

// ---- the first admin ----

Status Operators::ensure_first_admin(const std::string& name, const char* password) {
  Status s;
  int64_t count = 0;
  {
    std::lock_guard lock(db_mu_);
    count = OperatorStore(*db_).count(&s);
  }
  if (!s.ok()) return Status::error("operators: " + s.message());
  if (count > 0) {
    if (password)
      log::info("first_admin_skipped", "",
                {{"reason", "operators exist; OCPPGW_ADMIN_PASSWORD is ignored"},
                 {"operators", std::to_string(count)}});
    return {};
  }
  if (!password) {
    log::warn("api_no_operators", "",
              {{"hint",
                "the REST API has no operators yet: run `ocppgw operators add NAME --role admin` "
                "or start once with OCPPGW_ADMIN_PASSWORD (and OCPPGW_ADMIN_NAME) set"}});
    return {};
  }
  const Change change = add(name, OperatorRole::Admin, password);
  // Another node sharing the file created it first: that is the same outcome.
  if (change.error == ChangeError::Conflict) return {};
  if (!change.ok())
    return Status::error("creating the first admin " + name + ": " + change.message);
  log::info("first_admin_created", "", {{"name", name}, {"from", "OCPPGW_ADMIN_PASSWORD"}});
  return audit("environment", "operator.add", name, R"({"role":"admin"})", "ok");
}

Status Operators::ensure_first_admin() {
  const char* name = std::getenv("OCPPGW_ADMIN_NAME");
  return ensure_first_admin(name && *name ? name : "admin", std::getenv("OCPPGW_ADMIN_PASSWORD"));
}

}  // namespace ocppgw::csms
