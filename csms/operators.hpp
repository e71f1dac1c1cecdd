// csms/operators.hpp: the people who use the REST API and the page: accounts with a role,
// login sessions, and the audit log (tables of storage/operator_store.hpp). Used by the serving
// gateway (through gateway/operator_directory.cpp, which web/api_auth.hpp calls) and by
// `ocppgw operators ...` (csms/operator_cli.hpp) on the same database file.
//
// Passwords are stored only as PBKDF2 hashes (csms/passwords.hpp), at many more iterations than
// a charge point's: operators log in rarely, and a person's password has less entropy than a
// machine-made one. Session tokens are 32 random bytes (hex); the database keeps only their
// SHA-256, so a copy of it opens no session.
//
// Guessing: after `free_failures` failed logins in a row for one name, or from one address,
// further logins of that name (address) are refused without hashing for 1 s, doubling with each
// further failure up to 60 s. A name nobody has costs the same PBKDF2 as a wrong password (a
// dummy hash), so timing does not tell which names exist. Together with the caller running
// login() on a small pool, the login can be used neither to brute-force nor to burn CPU.
//
// Threading: every method may be called from any thread. One mutex serialises the database
// connection (as gateway/auth.cpp does); PBKDF2 runs outside it. login(), add() and passwd() are
// slow (one PBKDF2 each): callers serving I/O run them elsewhere.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "csms/passwords.hpp"
#include "storage/db.hpp"
#include "storage/operator_store.hpp"
#include "util/status.hpp"

namespace ocppgw::csms {

// Ordered: each role may do what the ones before it may.
enum class OperatorRole { Viewer, Operator, Admin };
std::string_view role_name(OperatorRole role);  // "viewer", "operator", "admin"
std::optional<OperatorRole> parse_role(std::string_view text);

// Operators choose their passwords, so the floor is length; the ceiling only bounds the input.
inline constexpr size_t kMinOperatorPasswordLength = 12;
inline constexpr size_t kMaxOperatorPasswordLength = 1024;
// About 0.3 s on one core: OWASP's 2023 figure for PBKDF2-HMAC-SHA256.
inline constexpr int kOperatorPasswordIterations = 600000;

// Why `password` (`name`) may not be used; empty: acceptable.
std::string operator_password_error(std::string_view password);
// 1 to 64 characters of A-Z a-z 0-9 . _ @ -, so a name is safe in a URL path, a log line and a
// terminal.
std::string operator_name_error(std::string_view name);

struct OperatorInfo {
  std::string name;
  OperatorRole role = OperatorRole::Viewer;
  int64_t created_ms = 0;
  int64_t updated_ms = 0;
};

struct OperatorSession {
  std::string token;       // the bearer token / cookie value; only its SHA-256 is stored
  std::string csrf_token;  // required with the cookie on state-changing requests
  int64_t expires_ms = 0;
  std::string name;
  OperatorRole role = OperatorRole::Viewer;
};

enum class LoginResult {
  Ok,
  Rejected,     // unknown name or wrong password (deliberately not told apart)
  Throttled,    // too many failures in a row; retry_after_ms says when to try again
  Unavailable,  // the database failed
};
struct LoginOutcome {
  LoginResult result = LoginResult::Rejected;
  std::optional<OperatorSession> session;
  int64_t retry_after_ms = 0;
  std::string error;  // for the log; never contains the password
};

enum class SessionState { Valid, Unknown, Expired, Unavailable };
struct SessionCheck {
  SessionState state = SessionState::Unknown;
  std::string name;
  OperatorRole role = OperatorRole::Viewer;
  std::string csrf_token;
  int64_t expires_ms = 0;
  std::string error;  // Unavailable: why
};

// How a management change ended, in kinds the API maps to status codes (400, 404, 409, 500).
enum class ChangeError { None, Invalid, NotFound, Conflict, Failed };
struct Change {
  ChangeError error = ChangeError::None;
  std::string message;  // empty when ok
  bool ok() const { return error == ChangeError::None; }
};
// The audit log's outcome for a change: "ok", "invalid", "not_found", "conflict", "failed".
std::string_view outcome_name(ChangeError error);

struct AuditPage {
  std::vector<storage::AuditRecord> items;  // newest first
  std::optional<int64_t> next_cursor;       // pass back for the next (older) page
};

class Operators {
 public:
  struct Options {
    int iterations = kOperatorPasswordIterations;  // for new passwords (tests lower it)
    int64_t session_ttl_ms = 12 * 3600 * 1000LL;
    int free_failures = 5;  // failed logins in a row before the backoff starts
    int64_t first_backoff_ms = 1000;
    int64_t max_backoff_ms = 60000;
    // A name or address whose last failure is older than this starts counting afresh, so a
    // typo a week ago does not count towards today's.
    int64_t forget_failures_after_ms = 15 * 60 * 1000;
    size_t max_tracked = 10000;       // names and addresses remembered, each
    std::function<int64_t()> now_ms;  // null: the system clock (tests move time)
  };

  // Opens its own connection to the gateway database at `db_path` (migrated).
  static std::unique_ptr<Operators> open(const std::string& db_path, Options options,
                                         util::Status* status);
  static std::unique_ptr<Operators> open(const std::string& db_path, util::Status* status) {
    return open(db_path, Options(), status);
  }

  // ---- accounts ----
  Change add(const std::string& name, OperatorRole role, std::string_view password);
  // Replaces the password and ends the operator's sessions.
  Change passwd(const std::string& name, std::string_view password);
  // Takes effect on open sessions at their next request. Demoting the last admin is refused.
  Change set_role(const std::string& name, OperatorRole role);
  // Removes the account and its sessions. Removing the last admin is refused.
  Change remove(const std::string& name);
  std::vector<OperatorInfo> list(util::Status* status = nullptr);

  // ---- sessions ----
  // `address` is the client's IP address (empty: not known, not throttled by address).
  LoginOutcome login(std::string_view name, std::string_view password, std::string_view address);
  SessionCheck authenticate(std::string_view token);
  util::Status logout(std::string_view token, bool* found = nullptr);

  // ---- audit log ----
  // `details` is a JSON object's text; ts is now.
  util::Status audit(std::string actor, std::string action, std::string target, std::string details,
                     std::string outcome);
  // Newest first; `cursor` from the previous page's next_cursor. limit >= 1.
  AuditPage audit_list(std::optional<int64_t> cursor, int64_t limit,
                       util::Status* status = nullptr);

  // With no operator at all: when `password` is given, creates admin `name` (audited as actor
  // "environment") and logs it; otherwise logs a warning saying how to create one. With
  // operators, does nothing (and notes that a given password is ignored). Never a default
  // password. The error of a password that breaks the policy stops the caller's start-up.
  util::Status ensure_first_admin(const std::string& name, const char* password);
  // As above from the environment: OCPPGW_ADMIN_PASSWORD, OCPPGW_ADMIN_NAME (default "admin").
  util::Status ensure_first_admin();

  // Test hook: PBKDF2 verifications run by login() (refusals while throttled run none).
  uint64_t hash_computations() const { return hash_computations_.load(); }

 private:
  // Consecutive failures of one name or one address.
  struct Failures {
    int count = 0;
    int64_t last_ms = 0;
    int64_t blocked_until_ms = 0;
  };
  using FailureMap = std::unordered_map<std::string, Failures>;

  Operators(std::unique_ptr<storage::Db> db, Options options);
  int64_t now() const;
  // Runs `body` in one write transaction under the mutex; rolled back when it fails.
  Change in_transaction(const std::function<Change(storage::OperatorStore&)>& body);
  std::optional<PasswordHash> stored_hash(std::string_view name, util::Status* status);
  const PasswordHash& dummy_hash();
  int64_t blocked_for(std::string_view name, std::string_view address, int64_t now);
  void record_failure(std::string_view name, std::string_view address, int64_t now);
  void record_success(std::string_view name, std::string_view address);
  void count_failure(FailureMap& map, std::string_view key, int64_t now);

  Options options_;
  std::mutex db_mu_;
  std::unique_ptr<storage::Db> db_;
  std::mutex failures_mu_;
  FailureMap name_failures_;
  FailureMap address_failures_;
  std::once_flag dummy_once_;
  PasswordHash dummy_;
  std::atomic<uint64_t> hash_computations_{0};
};

}  // namespace ocppgw::csms
