// web/api_auth.hpp: who may call the REST API, and the routes of logging in and of managing
// operator accounts. Every API route starts with require(): the caller is authenticated by a
// bearer token (`Authorization: Bearer <token>`) or by the session cookie the page uses
// (`ocppgw_session`), and must have at least the route's role:
//
//   viewer    reads
//   operator  commands to charge points, quarantine actions, id token changes
//   admin     operator accounts, charge point credentials, the audit log
//
// A cookie is sent by the browser on its own, also when another site makes the request, so a
// state-changing request (POST, PUT, PATCH, DELETE) authenticated by the cookie must also carry
// the session's CSRF token in X-CSRF-Token (the login answer and GET /api/v1/session give it;
// another site cannot read either). A bearer token is never sent on its own, so it needs none.
//
// Failures answer JSON {"error": "..."}: 401 with WWW-Authenticate: Bearer for missing, unknown
// or expired credentials, 403 for a role too low or a missing or wrong CSRF token.
//
// The accounts themselves are behind OperatorDirectory, which the gateway implements over
// csms::Operators (gateway/operator_directory.cpp) and tests fake; web/ knows HTTP only.
//
// Threading: require() runs on the caller's thread and costs one authenticate() (an indexed
// lookup). Logins hash a password (PBKDF2), so they and every other directory call of these
// routes run on ApiAuth's own small worker pool, never on an I/O thread; respond() is called
// from there. With more than `max_pending` such requests queued the answer is 503.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/thread_pool.hpp>
#include <nlohmann/json.hpp>

#include "util/status.hpp"
#include "web/router.hpp"

namespace ocppgw::web {

// Ordered: each role may do what the ones before it may.
enum class Role { Viewer, Operator, Admin };
std::string_view role_name(Role role);  // "viewer", "operator", "admin"
std::optional<Role> parse_role(std::string_view text);

struct Principal {
  std::string name;
  Role role = Role::Viewer;
};

// The operator accounts as ApiAuth needs them. Implementations are thread-safe; login() and
// add/update (they hash a password) may be slow, ApiAuth calls them off the I/O threads.
class OperatorDirectory {
 public:
  struct Session {
    std::string token;
    std::string csrf_token;
    int64_t expires_ms = 0;
    Principal principal;
  };
  enum class LoginResult { Ok, Rejected, Throttled, Unavailable };
  struct Login {
    LoginResult result = LoginResult::Rejected;
    std::optional<Session> session;  // Ok
    int64_t retry_after_ms = 0;      // Throttled
    std::string error;               // for the log; never a password
  };
  enum class TokenState { Valid, Unknown, Expired, Unavailable };
  struct Check {
    TokenState state = TokenState::Unknown;
    Principal principal;  // Valid, Expired
    std::string csrf_token;
    int64_t expires_ms = 0;
    std::string error;  // Unavailable
  };
  enum class ChangeResult { Ok, Invalid, NotFound, Conflict, Failed };
  struct Change {
    ChangeResult result = ChangeResult::Ok;
    std::string message;
  };
  struct Account {
    std::string name;
    Role role = Role::Viewer;
    int64_t created_ms = 0;
    int64_t updated_ms = 0;
  };
  struct AuditEntry {
    int64_t id = 0;     // assigned by the directory
    int64_t ts_ms = 0;  // assigned by the directory
    std::string actor;
    std::string action;  // e.g. "operator.add", "session.login", "call.Reset"
    std::string target;
    nlohmann::json details = nlohmann::json::object();
    std::string outcome;  // "ok", or what went wrong ("invalid", "not_found", ...)
  };
  struct AuditPage {
    std::vector<AuditEntry> items;  // newest first
    std::optional<int64_t> next_cursor;
  };

  virtual ~OperatorDirectory() = default;
  // `address`: the client's IP address, for throttling guesses (empty: unknown).
  virtual Login login(std::string_view name, std::string_view password,
                      std::string_view address) = 0;
  virtual Check authenticate(std::string_view token) = 0;
  virtual util::Status logout(std::string_view token) = 0;
  virtual util::Status audit(const AuditEntry& entry) = 0;
  virtual AuditPage audit_list(std::optional<int64_t> cursor, int64_t limit,
                               util::Status* status) = 0;
  virtual std::vector<Account> accounts(util::Status* status) = 0;
  virtual Change add_account(const std::string& name, Role role, std::string_view password) = 0;
  // Changes what is given (the role first); a new password ends the account's sessions.
  virtual Change update_account(const std::string& name, std::optional<Role> role,
                                std::optional<std::string> password) = 0;
  // Removes the account and ends its sessions.
  virtual Change remove_account(const std::string& name) = 0;
};

class ApiAuth {
 public:
  static constexpr std::string_view kCookieName = "ocppgw_session";
  static constexpr std::string_view kCsrfField = "X-CSRF-Token";

  struct Options {
    int threads = 2;          // the worker pool (logins hash for ~0.3 s each)
    size_t max_pending = 64;  // queued requests on the pool; beyond: 503
    int64_t default_audit_page = 50;
    int64_t max_audit_page = 500;
  };

  // `directory` must outlive this object.
  ApiAuth(OperatorDirectory& directory, Options options);
  ~ApiAuth();
  ApiAuth(const ApiAuth&) = delete;
  ApiAuth& operator=(const ApiAuth&) = delete;

  // The caller of `request` if it is authenticated and has at least `minimum`; otherwise
  // answers 401/403 through `respond` and returns nullopt (the route then just returns).
  std::optional<Principal> require(const HttpRequest& request, Role minimum,
                                   const HttpRespond& respond) const;

  // Appends to the audit log on the worker pool, then runs `then` (if any) there: a route that
  // answers in `then` answers after its audit row is written.
  void audit(const Principal& actor, std::string action, std::string target, nlohmann::json details,
             std::string outcome, std::function<void()> then = {});

  // POST/GET/DELETE /api/v1/session, GET /api/v1/audit, and GET/POST /api/v1/operators,
  // PATCH/DELETE /api/v1/operators/{name}. This object must outlive the router's use of them.
  void add_routes(Router& router);

  // Runs `work` on the worker pool, or answers 503 when too much is queued. Routes whose work
  // reads or writes a database (the read and management APIs) run it here, off the I/O threads.
  void offload(const HttpRequest& request, const HttpRespond& respond, std::function<void()> work);

  // Waits for the worker pool; queued work is dropped (its requests are never answered).
  void stop();

 private:
  // Who sent `request`, or the refusal already sent through `respond`.
  std::optional<OperatorDirectory::Check> check(const HttpRequest& request, Role minimum,
                                                const HttpRespond& respond,
                                                std::string* token) const;
  // Writes one audit row now (on the pool); a failure is logged, the action stands.
  void record_audit(const OperatorDirectory::AuditEntry& entry);
  // Audits a management change and answers: `ok` with `body` when it happened, else the
  // status of its failure with {"error"}.
  void finish_change(const HttpRequest& request, const HttpRespond& respond, const Principal& actor,
                     std::string action, const std::string& target, nlohmann::json details,
                     const OperatorDirectory::Change& change, http::status ok, nlohmann::json body);
  void login(HttpRequest&& request, HttpRespond respond);
  void logout(HttpRequest&& request, HttpRespond respond);
  void whoami(HttpRequest&& request, HttpRespond respond);
  void audit_page(HttpRequest&& request, HttpRespond respond);
  void list_accounts(HttpRequest&& request, HttpRespond respond);
  void add_account(HttpRequest&& request, HttpRespond respond);
  void update_account(HttpRequest&& request, const std::string& name, HttpRespond respond);
  void remove_account(HttpRequest&& request, const std::string& name, HttpRespond respond);

  OperatorDirectory& directory_;
  Options options_;
  std::atomic<size_t> pending_{0};
  boost::asio::thread_pool pool_;
};

}  // namespace ocppgw::web
