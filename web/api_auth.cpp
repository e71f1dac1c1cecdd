// web/api_auth.cpp: see api_auth.hpp.
#include "web/api_auth.hpp"

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <map>
#include <memory>

#include <boost/asio/post.hpp>

#include "util/logging.hpp"
#include "util/secret.hpp"
#include "util/time.hpp"
#include "web/api_input.hpp"

namespace ocppgw::web {
namespace {

namespace net = boost::asio;
using Check = OperatorDirectory::Check;
using ChangeResult = OperatorDirectory::ChangeResult;

bool state_changing(http::verb method) {
  return method == http::verb::post || method == http::verb::put || method == http::verb::patch ||
         method == http::verb::delete_;
}

// The credentials a request presents: the bearer token, else the session cookie.
struct Presented {
  std::string token;  // empty: none usable; `problem` says why
  bool cookie = false;
  std::string problem;
};

Presented presented(const HttpRequest& request) {
  Presented out;
  if (auto it = request.find(http::field::authorization); it != request.end()) {
    const std::string_view value = trim(it->value());
    const size_t space = value.find(' ');
    if (space == std::string_view::npos || !iequals(value.substr(0, space), "Bearer")) {
      out.problem = "Authorization must be 'Bearer <token>'";
      return out;
    }
    out.token = std::string(trim(value.substr(space + 1)));
    if (out.token.empty()) out.problem = "the bearer token is empty";
    return out;
  }
  const auto cookies = request.equal_range(http::field::cookie);
  for (auto field = cookies.first; field != cookies.second; ++field) {
    std::string_view rest = field->value();
    while (!rest.empty()) {
      const size_t semi = rest.find(';');
      const std::string_view pair = trim(rest.substr(0, semi));
      rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
      const size_t eq = pair.find('=');
      if (eq != std::string_view::npos && pair.substr(0, eq) == ApiAuth::kCookieName) {
        out.token = std::string(pair.substr(eq + 1));
        out.cookie = true;
      }
    }
  }
  if (out.token.empty())
    out.problem =
        "authentication required: log in with POST /api/v1/session, then send "
        "'Authorization: Bearer <token>'";
  return out;
}

std::string address_of(const HttpRequest& request) {
  return std::string(request[kPeerAddressField]);
}

void log_refusal(const HttpRequest& request, http::status status, std::string_view reason,
                 std::string_view operator_name) {
  log::info("api_refused", "",
            {{"method", request.method_string()},
             {"path", target_path(request.target())},
             {"status", std::to_string(static_cast<int>(status))},
             {"reason", reason},
             {"operator", operator_name},
             {"remote", request[kPeerAddressField]}});
}

// 401 with the challenge RFC 6750 asks for; `invalid_token` when a token was presented.
HttpResponse unauthorized(const HttpRequest& request, std::string_view message,
                          bool token_presented) {
  auto res = json_error(request, http::status::unauthorized, message);
  std::string challenge = "Bearer realm=\"ocppgw\"";
  if (token_presented) challenge += ", error=\"invalid_token\"";
  res.set(http::field::www_authenticate, challenge);
  return res;
}

http::status change_status(ChangeResult result, http::status ok) {
  switch (result) {
    case ChangeResult::Ok:
      return ok;
    case ChangeResult::Invalid:
      return http::status::bad_request;
    case ChangeResult::NotFound:
      return http::status::not_found;
    case ChangeResult::Conflict:
      return http::status::conflict;
    case ChangeResult::Failed:
      break;
  }
  return http::status::internal_server_error;
}

// The audit log's outcome of a change (the same words csms uses for the command line).
std::string change_outcome(ChangeResult result) {
  switch (result) {
    case ChangeResult::Ok:
      return "ok";
    case ChangeResult::Invalid:
      return "invalid";
    case ChangeResult::NotFound:
      return "not_found";
    case ChangeResult::Conflict:
      return "conflict";
    case ChangeResult::Failed:
      break;
  }
  return "failed";
}

nlohmann::json to_json(const OperatorDirectory::Account& a) {
  return {{"name", a.name},
          {"role", role_name(a.role)},
          {"created_ms", a.created_ms},
          {"updated_ms", a.updated_ms}};
}

nlohmann::json to_json(const OperatorDirectory::AuditEntry& e) {
  return {{"id", e.id},           {"ts_ms", e.ts_ms},    {"ts", util::format_rfc3339_ms(e.ts_ms)},
          {"actor", e.actor},     {"action", e.action},  {"target", e.target},
          {"details", e.details}, {"outcome", e.outcome}};
}

std::string session_cookie(std::string_view token, int64_t max_age_s, bool secure) {
  std::string cookie = std::string(ApiAuth::kCookieName) + "=" + std::string(token) +
                       "; Path=/; Max-Age=" + std::to_string(std::max<int64_t>(max_age_s, 0)) +
                       "; HttpOnly; SameSite=Strict";
  if (secure) cookie += "; Secure";
  return cookie;
}

bool over_tls(const HttpRequest& request) { return request[kSchemeField] == "https"; }

}  // namespace

std::string_view role_name(Role role) {
  switch (role) {
    case Role::Viewer:
      return "viewer";
    case Role::Operator:
      return "operator";
    case Role::Admin:
      return "admin";
  }
  return "viewer";
}

std::optional<Role> parse_role(std::string_view text) {
  for (auto role : {Role::Viewer, Role::Operator, Role::Admin})
    if (text == role_name(role)) return role;
  return std::nullopt;
}

ApiAuth::ApiAuth(OperatorDirectory& directory, Options options)
    : directory_(directory),
      options_(options),
      pool_(static_cast<size_t>(std::max(1, options.threads))) {}

ApiAuth::~ApiAuth() { stop(); }

void ApiAuth::stop() {
  pool_.stop();
  pool_.join();
}

std::optional<Check> ApiAuth::check(const HttpRequest& request, Role minimum,
                                    const HttpRespond& respond, std::string* token) const {
  auto refuse = [&](HttpResponse res, std::string_view reason, std::string_view name) {
    log_refusal(request, res.result(), reason, name);
    respond(std::move(res));
    return std::nullopt;
  };
  const Presented p = presented(request);
  if (p.token.empty()) return refuse(unauthorized(request, p.problem, false), p.problem, "");
  Check c = directory_.authenticate(p.token);
  switch (c.state) {
    case OperatorDirectory::TokenState::Valid:
      break;
    case OperatorDirectory::TokenState::Unknown:
      return refuse(
          unauthorized(request, "the session is unknown or has ended; log in again", true),
          "unknown session", "");
    case OperatorDirectory::TokenState::Expired:
      return refuse(unauthorized(request, "the session has expired; log in again", true),
                    "expired session", c.principal.name);
    case OperatorDirectory::TokenState::Unavailable:
      return refuse(json_error(request, http::status::service_unavailable,
                               "cannot check the session: " + c.error),
                    c.error, "");
  }
  if (p.cookie && state_changing(request.method())) {
    const std::string_view csrf = request[kCsrfField];
    if (csrf.empty())
      return refuse(
          json_error(request, http::status::forbidden,
                     std::string(kCsrfField) + " is required with the session cookie on a " +
                         std::string(request.method_string()) + " request"),
          "no CSRF token", c.principal.name);
    if (!util::constant_time_equal(csrf, c.csrf_token))
      return refuse(json_error(request, http::status::forbidden,
                               std::string(kCsrfField) + " does not match the session"),
                    "wrong CSRF token", c.principal.name);
  }
  if (c.principal.role < minimum)
    return refuse(
        json_error(request, http::status::forbidden,
                   "this needs the " + std::string(role_name(minimum)) + " role; " +
                       c.principal.name + " is " + std::string(role_name(c.principal.role))),
        "role too low", c.principal.name);
  if (token) *token = p.token;
  return c;
}

std::optional<Principal> ApiAuth::require(const HttpRequest& request, Role minimum,
                                          const HttpRespond& respond) const {
  auto c = check(request, minimum, respond, nullptr);
  if (!c) return std::nullopt;
  return std::move(c->principal);
}

void ApiAuth::offload(const HttpRequest& request, const HttpRespond& respond,
                      std::function<void()> work) {
  if (pending_.fetch_add(1) >= options_.max_pending) {
    --pending_;
    auto res = json_error(request, http::status::service_unavailable,
                          "too many requests are waiting; try again");
    res.set(http::field::retry_after, "1");
    respond(std::move(res));
    return;
  }
  net::post(pool_, [this, work = std::move(work)] {
    --pending_;
    work();
  });
}

void ApiAuth::audit(const Principal& actor, std::string action, std::string target,
                    nlohmann::json details, std::string outcome, std::function<void()> then) {
  OperatorDirectory::AuditEntry entry;
  entry.actor = actor.name;
  entry.action = std::move(action);
  entry.target = std::move(target);
  entry.details = std::move(details);
  entry.outcome = std::move(outcome);
  net::post(pool_, [this, entry = std::move(entry), then = std::move(then)] {
    record_audit(entry);
    if (then) then();
  });
}

void ApiAuth::add_routes(Router& router) {
  router.add(http::verb::post, "/api/v1/session",
             [this](HttpRequest&& request, HttpRespond respond) {
               login(std::move(request), std::move(respond));
             });
  router.add(http::verb::get, "/api/v1/session",
             [this](HttpRequest&& request, HttpRespond respond) {
               whoami(std::move(request), std::move(respond));
             });
  router.add(http::verb::delete_, "/api/v1/session",
             [this](HttpRequest&& request, HttpRespond respond) {
               logout(std::move(request), std::move(respond));
             });
  router.add(http::verb::get, "/api/v1/audit", [this](HttpRequest&& request, HttpRespond respond) {
    audit_page(std::move(request), std::move(respond));
  });
  router.add(http::verb::get, "/api/v1/operators",
             [this](HttpRequest&& request, HttpRespond respond) {
               list_accounts(std::move(request), std::move(respond));
             });
  router.add(http::verb::post, "/api/v1/operators",
             [this](HttpRequest&& request, HttpRespond respond) {
               add_account(std::move(request), std::move(respond));
             });
  router.add(
      http::verb::patch, "/api/v1/operators/{name}",
      RouteHandler([this](HttpRequest&& request, const PathParams& params, HttpRespond respond) {
        update_account(std::move(request), params.at("name"), std::move(respond));
      }));
  router.add(
      http::verb::delete_, "/api/v1/operators/{name}",
      RouteHandler([this](HttpRequest&& request, const PathParams& params, HttpRespond respond) {
        remove_account(std::move(request), params.at("name"), std::move(respond));
      }));
}

// ---- session ----

void ApiAuth::login(HttpRequest&& request, HttpRespond respond) {
  auto fields = string_fields(request, {"name", "password"}, respond);
  if (!fields) return;
  if (!fields->count("name") || !fields->count("password"))
    return respond(
        json_error(request, http::status::bad_request, "name and password are required"));
  auto req = std::make_shared<HttpRequest>(std::move(request));
  offload(*req, respond, [this, req, respond, fields = std::move(*fields)] {
    const std::string& name = fields.at("name");
    const std::string address = address_of(*req);
    auto result = directory_.login(name, fields.at("password"), address);
    switch (result.result) {
      case OperatorDirectory::LoginResult::Ok: {
        const auto& s = *result.session;
        record_audit({0, 0, s.principal.name, "session.login", s.principal.name,
                      nlohmann::json{{"address", address}}, "ok"});
        log::info("api_login", "", {{"operator", s.principal.name}, {"remote", address}});
        auto res = json_response(*req, http::status::ok,
                                 {{"token", s.token},
                                  {"csrf_token", s.csrf_token},
                                  {"expires_ms", s.expires_ms},
                                  {"name", s.principal.name},
                                  {"role", role_name(s.principal.role)}});
        res.set(http::field::set_cookie,
                session_cookie(s.token, (s.expires_ms - util::now_ms()) / 1000, over_tls(*req)));
        res.set(http::field::cache_control, "no-store");
        return respond(std::move(res));
      }
      case OperatorDirectory::LoginResult::Rejected:
        log_refusal(*req, http::status::unauthorized, result.error, name);
        return respond(unauthorized(*req, "wrong name or password", false));
      case OperatorDirectory::LoginResult::Throttled: {
        const int64_t seconds = (result.retry_after_ms + 999) / 1000;
        log_refusal(*req, http::status::too_many_requests, "throttled", name);
        auto res =
            json_error(*req, http::status::too_many_requests,
                       "too many failed logins; try again in " + std::to_string(seconds) + " s");
        res.set(http::field::retry_after, std::to_string(seconds));
        return respond(std::move(res));
      }
      case OperatorDirectory::LoginResult::Unavailable:
        return respond(json_error(*req, http::status::service_unavailable,
                                  "cannot log in now: " + result.error));
    }
  });
}

void ApiAuth::whoami(HttpRequest&& request, HttpRespond respond) {
  auto c = check(request, Role::Viewer, respond, nullptr);
  if (!c) return;
  // The CSRF token too: a page reloaded with only its cookie gets it back here (another site
  // cannot read this answer).
  auto res = json_response(request, http::status::ok,
                           {{"name", c->principal.name},
                            {"role", role_name(c->principal.role)},
                            {"expires_ms", c->expires_ms},
                            {"csrf_token", c->csrf_token}});
  res.set(http::field::cache_control, "no-store");
  respond(std::move(res));
}

void ApiAuth::logout(HttpRequest&& request, HttpRespond respond) {
  std::string token;
  auto c = check(request, Role::Viewer, respond, &token);
  if (!c) return;
  auto req = std::make_shared<HttpRequest>(std::move(request));
  offload(*req, respond, [this, req, respond, token, name = c->principal.name] {
    if (auto s = directory_.logout(token); !s.ok())
      return respond(json_error(*req, http::status::service_unavailable,
                                "cannot log out now: " + s.message()));
    record_audit({0, 0, name, "session.logout", name, nlohmann::json::object(), "ok"});
    HttpResponse res{http::status::no_content, req->version()};
    res.set(http::field::server, "ocppgw");
    res.set(http::field::set_cookie, session_cookie("", 0, over_tls(*req)));
    res.keep_alive(req->keep_alive());
    respond(std::move(res));
  });
}

// ---- audit log ----

void ApiAuth::audit_page(HttpRequest&& request, HttpRespond respond) {
  if (!require(request, Role::Admin, respond)) return;
  const auto cursor = int_param(request, "cursor", 0, 1, INT64_MAX, respond);
  if (!cursor) return;
  const auto limit =
      int_param(request, "limit", options_.default_audit_page, 1, options_.max_audit_page, respond);
  if (!limit) return;
  auto req = std::make_shared<HttpRequest>(std::move(request));
  offload(*req, respond, [this, req, respond, cursor = *cursor, limit = *limit] {
    util::Status s;
    auto page = directory_.audit_list(cursor > 0 ? std::optional(cursor) : std::nullopt, limit, &s);
    if (!s.ok()) return respond(json_error(*req, http::status::internal_server_error, s.message()));
    nlohmann::json items = nlohmann::json::array();
    for (const auto& e : page.items) items.push_back(to_json(e));
    respond(json_response(*req, http::status::ok,
                          {{"items", std::move(items)},
                           {"next_cursor", page.next_cursor ? nlohmann::json(*page.next_cursor)
                                                            : nlohmann::json(nullptr)}}));
  });
}

void ApiAuth::record_audit(const OperatorDirectory::AuditEntry& entry) {
  if (auto s = directory_.audit(entry); !s.ok())
    log::error("audit_failed", "",
               {{"actor", entry.actor}, {"action", entry.action}, {"error", s.message()}});
}

// ---- operator accounts (admin) ----

void ApiAuth::list_accounts(HttpRequest&& request, HttpRespond respond) {
  if (!require(request, Role::Admin, respond)) return;
  auto req = std::make_shared<HttpRequest>(std::move(request));
  offload(*req, respond, [this, req, respond] {
    util::Status s;
    const auto accounts = directory_.accounts(&s);
    if (!s.ok()) return respond(json_error(*req, http::status::internal_server_error, s.message()));
    nlohmann::json items = nlohmann::json::array();
    for (const auto& a : accounts) items.push_back(to_json(a));
    respond(json_response(*req, http::status::ok, {{"items", std::move(items)}}));
  });
}

void ApiAuth::finish_change(const HttpRequest& request, const HttpRespond& respond,
                            const Principal& actor, std::string action, const std::string& target,
                            nlohmann::json details, const OperatorDirectory::Change& change,
                            http::status ok, nlohmann::json body) {
  if (change.result != ChangeResult::Ok) details["error"] = change.message;
  record_audit({0, 0, actor.name, std::move(action), target, std::move(details),
                change_outcome(change.result)});
  const auto status = change_status(change.result, ok);
  if (change.result != ChangeResult::Ok)
    return respond(json_error(request, status, change.message));
  if (status == http::status::no_content) {
    HttpResponse res{status, request.version()};
    res.set(http::field::server, "ocppgw");
    res.keep_alive(request.keep_alive());
    return respond(std::move(res));
  }
  respond(json_response(request, status, body));
}

void ApiAuth::add_account(HttpRequest&& request, HttpRespond respond) {
  auto actor = require(request, Role::Admin, respond);
  if (!actor) return;
  auto fields = string_fields(request, {"name", "role", "password"}, respond);
  if (!fields) return;
  if (!fields->count("name") || !fields->count("role") || !fields->count("password"))
    return respond(
        json_error(request, http::status::bad_request, "name, role and password are required"));
  const auto role = parse_role(fields->at("role"));
  if (!role)
    return respond(
        json_error(request, http::status::bad_request, "role must be viewer, operator or admin"));
  auto req = std::make_shared<HttpRequest>(std::move(request));
  offload(*req, respond, [this, req, respond, actor = *actor, role = *role, fields = *fields] {
    const std::string& name = fields.at("name");
    const auto change = directory_.add_account(name, role, fields.at("password"));
    finish_change(*req, respond, actor, "operator.add", name, {{"role", role_name(role)}}, change,
                  http::status::created, {{"name", name}, {"role", role_name(role)}});
  });
}

void ApiAuth::update_account(HttpRequest&& request, const std::string& name, HttpRespond respond) {
  auto actor = require(request, Role::Admin, respond);
  if (!actor) return;
  auto fields = string_fields(request, {"role", "password"}, respond);
  if (!fields) return;
  std::optional<Role> role;
  if (auto it = fields->find("role"); it != fields->end()) {
    role = parse_role(it->second);
    if (!role)
      return respond(
          json_error(request, http::status::bad_request, "role must be viewer, operator or admin"));
  }
  std::optional<std::string> password;
  if (auto it = fields->find("password"); it != fields->end()) password = it->second;
  if (!role && !password)
    return respond(
        json_error(request, http::status::bad_request, "give a role, a password or both"));
  auto req = std::make_shared<HttpRequest>(std::move(request));
  offload(*req, respond, [this, req, respond, actor = *actor, name, role, password] {
    const auto change = directory_.update_account(name, role, password);
    // What was asked for (the outcome says whether it happened), never the password itself.
    nlohmann::json details = nlohmann::json::object();
    if (role) details["role"] = role_name(*role);
    if (password) details["new_password"] = true;
    nlohmann::json body = {{"name", name}};
    if (role) body["role"] = role_name(*role);
    if (password) body["password"] = "changed";
    finish_change(*req, respond, actor, "operator.update", name, std::move(details), change,
                  http::status::ok, std::move(body));
  });
}

void ApiAuth::remove_account(HttpRequest&& request, const std::string& name, HttpRespond respond) {
  auto actor = require(request, Role::Admin, respond);
  if (!actor) return;
  auto req = std::make_shared<HttpRequest>(std::move(request));
  offload(*req, respond, [this, req, respond, actor = *actor, name] {
    finish_change(*req, respond, actor, "operator.remove", name, nlohmann::json::object(),
                  directory_.remove_account(name), http::status::no_content, nullptr);
  });
}

}  // namespace ocppgw::web
