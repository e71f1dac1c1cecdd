// tests/unit/web/api_auth_test.cpp: ApiAuth against an in-memory OperatorDirectory: no route
// answers an anonymous client but the login; bearer tokens and the session cookie; expired and
// unknown tokens are 401 with a Bearer challenge; a role too low is 403; the cookie needs the
// CSRF token on state-changing requests (the bearer token does not); login, logout and account
// management answer as documented and write audit rows.
#include "web/api_auth.hpp"

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>

#include <gtest/gtest.h>

namespace ocppgw::web {
namespace {

using Directory = OperatorDirectory;

class FakeDirectory : public Directory {
 public:
  struct Account {
    Role role;
    std::string password;
  };
  struct Token {
    std::string name;
    std::string csrf;
    bool expired = false;
  };

  void add(const std::string& name, Role role, const std::string& password = "secret") {
    std::lock_guard lock(mu_);
    accounts_[name] = {role, password};
  }
  // A session for `name` with token "tok-<name>" and CSRF token "csrf-<name>".
  std::string session(const std::string& name, bool expired = false) {
    std::lock_guard lock(mu_);
    tokens_["tok-" + name] = {name, "csrf-" + name, expired};
    return "tok-" + name;
  }
  std::vector<AuditEntry> audit_rows() {
    std::lock_guard lock(mu_);
    return audit_;
  }
  std::string last_login_address() {
    std::lock_guard lock(mu_);
    return last_address_;
  }

  Login login(std::string_view name, std::string_view password, std::string_view address) override {
    std::lock_guard lock(mu_);
    last_address_ = std::string(address);
    if (name == "throttled") return {LoginResult::Throttled, std::nullopt, 1500, "throttled"};
    auto it = accounts_.find(std::string(name));
    if (it == accounts_.end() || it->second.password != password)
      return {LoginResult::Rejected, std::nullopt, 0, "wrong"};
    const std::string token = "tok-" + std::string(name) + "-" + std::to_string(++logins_);
    tokens_[token] = {std::string(name), "csrf-" + token, false};
    return {LoginResult::Ok,
            Session{token, "csrf-" + token, 4102444800000, {std::string(name), it->second.role}},
            0,
            {}};
  }
  Check authenticate(std::string_view token) override {
    std::lock_guard lock(mu_);
    auto it = tokens_.find(std::string(token));
    if (it == tokens_.end()) return {};
    auto account = accounts_.find(it->second.name);
    Check c;
    c.state = it->second.expired ? TokenState::Expired : TokenState::Valid;
    c.principal = {it->second.name,
                   account == accounts_.end() ? Role::Viewer : account->second.role};
    c.csrf_token = it->second.csrf;
    c.expires_ms = 4102444800000;
    return c;
  }
  util::Status logout(std::string_view token) override {
    std::lock_guard lock(mu_);
    tokens_.erase(std::string(token));
    return {};
  }
  util::Status audit(const AuditEntry& entry) override {
    std::lock_guard lock(mu_);
    audit_.push_back(entry);
    audit_.back().id = static_cast<int64_t>(audit_.size());
    return {};
  }
  AuditPage audit_list(std::optional<int64_t> cursor, int64_t limit, util::Status*) override {
    std::lock_guard lock(mu_);
    AuditPage page;
    for (auto it = audit_.rbegin(); it != audit_.rend(); ++it) {
      if (cursor && it->id >= *cursor) continue;
      if (static_cast<int64_t>(page.items.size()) == limit) {
        page.next_cursor = page.items.back().id;
        break;
      }
      page.items.push_back(*it);
    }
    return page;
  }
  std::vector<Directory::Account> accounts(util::Status*) override {
    std::lock_guard lock(mu_);
    std::vector<Directory::Account> out;
    for (const auto& [name, a] : accounts_) out.push_back({name, a.role, 1, 2});
    return out;
  }
  Change add_account(const std::string& name, Role role, std::string_view password) override {
    std::lock_guard lock(mu_);
    if (password.size() < 12) return {ChangeResult::Invalid, "the password is too short"};
    if (accounts_.count(name)) return {ChangeResult::Conflict, name + " exists"};
    accounts_[name] = {role, std::string(password)};
    return {};
  }
  Change update_account(const std::string& name, std::optional<Role> role,
                        std::optional<std::string> password) override {
    std::lock_guard lock(mu_);
    auto it = accounts_.find(name);
    if (it == accounts_.end()) return {ChangeResult::NotFound, "no operator " + name};
    if (role) it->second.role = *role;
    if (password) it->second.password = *password;
    return {};
  }
  Change remove_account(const std::string& name) override {
    std::lock_guard lock(mu_);
    if (!accounts_.erase(name)) return {ChangeResult::NotFound, "no operator " + name};
    std::erase_if(tokens_, [&](const auto& t) { return t.second.name == name; });
    return {};
  }

 private:
  std::mutex mu_;
  std::map<std::string, Account> accounts_;
  std::map<std::string, Token> tokens_;
  std::vector<AuditEntry> audit_;
  std::string last_address_;
  int logins_ = 0;
};

// One response, which may arrive from ApiAuth's worker pool.
class Answer {
 public:
  HttpRespond respond() {
    return [this](HttpResponse res) {
      std::lock_guard lock(mu_);
      res_ = std::move(res);
      cv_.notify_all();
    };
  }
  HttpResponse wait() {
    std::unique_lock lock(mu_);
    EXPECT_TRUE(cv_.wait_for(lock, std::chrono::seconds(5), [&] { return res_.has_value(); }));
    return res_.value_or(HttpResponse{});
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<HttpResponse> res_;
};

class ApiAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_.add("ada", Role::Admin);
    directory_.add("otto", Role::Operator);
    directory_.add("vera", Role::Viewer);
    auth_.add_routes(router_);
    // A route as other parts of the API write them: require() first.
    router_.add(http::verb::post, "/api/v1/command",
                [this](HttpRequest&& request, HttpRespond respond) {
                  auto who = auth_.require(request, Role::Operator, respond);
                  if (!who) return;
                  respond(text_response(request, http::status::ok, "done by " + who->name));
                });
  }

  static HttpRequest request(http::verb method, std::string target, std::string body = {}) {
    HttpRequest r{method, target, 11};
    r.set(kPeerAddressField, "192.0.2.1");
    if (!body.empty()) {
      r.set(http::field::content_type, "application/json");
      r.body() = std::move(body);
      r.prepare_payload();
    }
    return r;
  }
  static HttpRequest bearer(HttpRequest r, const std::string& token) {
    r.set(http::field::authorization, "Bearer " + token);
    return r;
  }
  static HttpRequest cookie(HttpRequest r, const std::string& token,
                            std::optional<std::string> csrf = std::nullopt) {
    r.set(http::field::cookie, "theme=dark; ocppgw_session=" + token + "; other=1");
    if (csrf) r.set(ApiAuth::kCsrfField, *csrf);
    return r;
  }
  HttpResponse send(HttpRequest r) {
    Answer answer;
    router_.handle(std::move(r), answer.respond());
    return answer.wait();
  }
  static nlohmann::json body(const HttpResponse& res) {
    return nlohmann::json::parse(res.body(), nullptr, false);
  }

  FakeDirectory directory_;
  ApiAuth auth_{directory_, ApiAuth::Options()};
  Router router_;
};

TEST_F(ApiAuthTest, EveryRouteButTheLoginRefusesAnonymousClients) {
  size_t checked = 0;
  for (const auto& [method, pattern] : router_.routes()) {
    if (method == http::verb::post && pattern == "/api/v1/session") continue;
    std::string target = pattern;
    for (size_t open; (open = target.find('{')) != std::string::npos;)
      target.replace(open, target.find('}', open) - open + 1, "x");
    const auto res = send(request(method, target, method == http::verb::get ? "" : "{}"));
    EXPECT_EQ(res.result(), http::status::unauthorized) << http::to_string(method) << " " << target;
    EXPECT_EQ(res[http::field::www_authenticate], "Bearer realm=\"ocppgw\"");
    EXPECT_TRUE(body(res).contains("error")) << res.body();
    ++checked;
  }
  EXPECT_GE(checked, 8u);
}

TEST_F(ApiAuthTest, UnknownAndExpiredTokensAre401WithAClearMessage) {
  auto res = send(bearer(request(http::verb::get, "/api/v1/session"), "no-such-token"));
  EXPECT_EQ(res.result(), http::status::unauthorized);
  EXPECT_EQ(res[http::field::www_authenticate], "Bearer realm=\"ocppgw\", error=\"invalid_token\"");
  const auto expired = directory_.session("vera", true);
  res = send(bearer(request(http::verb::get, "/api/v1/session"), expired));
  EXPECT_EQ(res.result(), http::status::unauthorized);
  EXPECT_NE(body(res)["error"].get<std::string>().find("expired"), std::string::npos);
  res = send(cookie(request(http::verb::get, "/api/v1/session"), expired));
  EXPECT_EQ(res.result(), http::status::unauthorized);
  auto basic = request(http::verb::get, "/api/v1/session");
  basic.set(http::field::authorization, "Basic dmVyYTpzZWNyZXQ=");
  EXPECT_EQ(send(std::move(basic)).result(), http::status::unauthorized);
}

TEST_F(ApiAuthTest, AViewerCannotSendACommandOrManageAccounts) {
  const auto token = directory_.session("vera");
  auto res = send(bearer(request(http::verb::post, "/api/v1/command", "{}"), token));
  EXPECT_EQ(res.result(), http::status::forbidden);
  EXPECT_NE(body(res)["error"].get<std::string>().find("operator role"), std::string::npos);
  EXPECT_EQ(send(bearer(request(http::verb::get, "/api/v1/operators"), token)).result(),
            http::status::forbidden);
  EXPECT_EQ(send(bearer(request(http::verb::get, "/api/v1/audit"), token)).result(),
            http::status::forbidden);
  // An operator may command but not manage accounts; an admin may do both.
  const auto otto = directory_.session("otto");
  EXPECT_EQ(send(bearer(request(http::verb::post, "/api/v1/command", "{}"), otto)).result(),
            http::status::ok);
  EXPECT_EQ(send(bearer(request(http::verb::post, "/api/v1/operators",
                                R"({"name":"x","role":"viewer","password":"long enough pw"})"),
                        otto))
                .result(),
            http::status::forbidden);
  const auto ada = directory_.session("ada");
  res = send(bearer(request(http::verb::post, "/api/v1/command", "{}"), ada));
  EXPECT_EQ(res.result(), http::status::ok);
  EXPECT_EQ(res.body(), "done by ada\n");
}

TEST_F(ApiAuthTest, TheCookieNeedsTheCsrfTokenOnStateChangingRequests) {
  const auto token = directory_.session("otto");
  auto res = send(cookie(request(http::verb::post, "/api/v1/command", "{}"), token));
  EXPECT_EQ(res.result(), http::status::forbidden);
  EXPECT_NE(body(res)["error"].get<std::string>().find("X-CSRF-Token"), std::string::npos);
  EXPECT_EQ(
      send(cookie(request(http::verb::post, "/api/v1/command", "{}"), token, "wrong")).result(),
      http::status::forbidden);
  EXPECT_EQ(
      send(cookie(request(http::verb::post, "/api/v1/command", "{}"), token, "csrf-otto")).result(),
      http::status::ok);
  // Reads need none; a bearer token needs none either.
  EXPECT_EQ(send(cookie(request(http::verb::get, "/api/v1/session"), token)).result(),
            http::status::ok);
  EXPECT_EQ(send(bearer(request(http::verb::post, "/api/v1/command", "{}"), token)).result(),
            http::status::ok);
}

TEST_F(ApiAuthTest, LoginAnswersTokensAndSetsTheCookie) {
  auto res =
      send(request(http::verb::post, "/api/v1/session", R"({"name":"otto","password":"secret"})"));
  ASSERT_EQ(res.result(), http::status::ok) << res.body();
  const auto b = body(res);
  const std::string token = b["token"];
  EXPECT_EQ(b["csrf_token"], "csrf-" + token);
  EXPECT_EQ(b["name"], "otto");
  EXPECT_EQ(b["role"], "operator");
  EXPECT_TRUE(b["expires_ms"].is_number());
  const std::string set_cookie(res[http::field::set_cookie]);
  EXPECT_EQ(set_cookie.rfind("ocppgw_session=" + token + "; Path=/; Max-Age=", 0), 0u)
      << set_cookie;
  EXPECT_NE(set_cookie.find("; HttpOnly; SameSite=Strict"), std::string::npos);
  EXPECT_EQ(set_cookie.find("Secure"), std::string::npos);
  EXPECT_EQ(directory_.last_login_address(), "192.0.2.1");
  // The token works as a bearer token and as the cookie.
  res = send(bearer(request(http::verb::get, "/api/v1/session"), token));
  ASSERT_EQ(res.result(), http::status::ok);
  EXPECT_EQ(body(res)["name"], "otto");
  EXPECT_EQ(body(res)["csrf_token"], "csrf-" + token);
  EXPECT_EQ(send(cookie(request(http::verb::post, "/api/v1/command", "{}"), token, "csrf-" + token))
                .result(),
            http::status::ok);
  const auto audit = directory_.audit_rows();
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0].action, "session.login");
  EXPECT_EQ(audit[0].actor, "otto");

  // Over TLS the cookie is Secure.
  auto tls = request(http::verb::post, "/api/v1/session", R"({"name":"otto","password":"secret"})");
  tls.set(kSchemeField, "https");
  res = send(std::move(tls));
  EXPECT_NE(std::string(res[http::field::set_cookie]).find("; Secure"), std::string::npos);
}

TEST_F(ApiAuthTest, LoginFailuresAndBadBodies) {
  auto res =
      send(request(http::verb::post, "/api/v1/session", R"({"name":"otto","password":"wrong"})"));
  EXPECT_EQ(res.result(), http::status::unauthorized);
  EXPECT_EQ(body(res)["error"], "wrong name or password");
  res =
      send(request(http::verb::post, "/api/v1/session", R"({"name":"throttled","password":"x"})"));
  EXPECT_EQ(res.result(), http::status::too_many_requests);
  EXPECT_EQ(res[http::field::retry_after], "2");
  EXPECT_EQ(send(request(http::verb::post, "/api/v1/session", "{not json")).result(),
            http::status::bad_request);
  EXPECT_EQ(send(request(http::verb::post, "/api/v1/session", R"(["otto"])")).result(),
            http::status::bad_request);
  EXPECT_EQ(send(request(http::verb::post, "/api/v1/session", R"({"name":"otto"})")).result(),
            http::status::bad_request);
  res = send(request(http::verb::post, "/api/v1/session",
                     R"({"name":"otto","password":"secret","remember":"yes"})"));
  EXPECT_EQ(res.result(), http::status::bad_request);
  EXPECT_NE(body(res)["error"].get<std::string>().find("unknown field 'remember'"),
            std::string::npos);
  EXPECT_EQ(
      send(request(http::verb::post, "/api/v1/session", R"({"name":1,"password":"x"})")).result(),
      http::status::bad_request);
  auto form = request(http::verb::post, "/api/v1/session", "name=otto&password=secret");
  form.set(http::field::content_type, "application/x-www-form-urlencoded");
  EXPECT_EQ(send(std::move(form)).result(), http::status::unsupported_media_type);
  EXPECT_TRUE(directory_.audit_rows().empty());
}

TEST_F(ApiAuthTest, LogoutEndsTheSessionAndClearsTheCookie) {
  const auto token = directory_.session("vera");
  // With the cookie, logging out is state-changing too.
  EXPECT_EQ(send(cookie(request(http::verb::delete_, "/api/v1/session"), token)).result(),
            http::status::forbidden);
  auto res = send(bearer(request(http::verb::delete_, "/api/v1/session"), token));
  EXPECT_EQ(res.result(), http::status::no_content);
  EXPECT_NE(std::string(res[http::field::set_cookie]).find("ocppgw_session=; Path=/; Max-Age=0"),
            std::string::npos);
  EXPECT_EQ(send(bearer(request(http::verb::get, "/api/v1/session"), token)).result(),
            http::status::unauthorized);
  const auto audit = directory_.audit_rows();
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0].action, "session.logout");
}

TEST_F(ApiAuthTest, AdminsManageAccountsAndEveryChangeIsAudited) {
  const auto ada = directory_.session("ada");
  auto res =
      send(bearer(request(http::verb::post, "/api/v1/operators",
                          R"({"name":"newbie","role":"viewer","password":"long enough pw"})"),
                  ada));
  EXPECT_EQ(res.result(), http::status::created) << res.body();
  EXPECT_EQ(body(res)["role"], "viewer");
  res = send(bearer(request(http::verb::post, "/api/v1/operators",
                            R"({"name":"newbie","role":"viewer","password":"long enough pw"})"),
                    ada));
  EXPECT_EQ(res.result(), http::status::conflict);
  res = send(bearer(request(http::verb::post, "/api/v1/operators",
                            R"({"name":"x","role":"root","password":"long enough pw"})"),
                    ada));
  EXPECT_EQ(res.result(), http::status::bad_request);
  res = send(bearer(request(http::verb::post, "/api/v1/operators",
                            R"({"name":"x","role":"viewer","password":"short"})"),
                    ada));
  EXPECT_EQ(res.result(), http::status::bad_request);

  res = send(bearer(request(http::verb::patch, "/api/v1/operators/newbie",
                            R"({"role":"operator","password":"another long one"})"),
                    ada));
  EXPECT_EQ(res.result(), http::status::ok) << res.body();
  EXPECT_EQ(body(res)["role"], "operator");
  EXPECT_EQ(body(res)["password"], "changed");
  EXPECT_EQ(directory_.audit_rows().back().details,
            (nlohmann::json{{"role", "operator"}, {"new_password", true}}));
  EXPECT_EQ(
      send(bearer(request(http::verb::patch, "/api/v1/operators/newbie", "{}"), ada)).result(),
      http::status::bad_request);
  EXPECT_EQ(
      send(bearer(request(http::verb::patch, "/api/v1/operators/ghost", R"({"role":"viewer"})"),
                  ada))
          .result(),
      http::status::not_found);

  res = send(bearer(request(http::verb::get, "/api/v1/operators"), ada));
  ASSERT_EQ(res.result(), http::status::ok);
  bool listed = false;
  const auto accounts = body(res);
  for (const auto& item : accounts["items"])
    if (item["name"] == "newbie") listed = item["role"] == "operator";
  EXPECT_TRUE(listed) << res.body();
  EXPECT_EQ(res.body().find("another long one"), std::string::npos);

  EXPECT_EQ(send(bearer(request(http::verb::delete_, "/api/v1/operators/newbie"), ada)).result(),
            http::status::no_content);
  EXPECT_EQ(send(bearer(request(http::verb::delete_, "/api/v1/operators/newbie"), ada)).result(),
            http::status::not_found);

  const auto audit = directory_.audit_rows();
  std::vector<std::string> seen;
  for (const auto& e : audit) seen.push_back(e.action + ":" + e.target + ":" + e.outcome);
  EXPECT_EQ(seen,
            (std::vector<std::string>{
                "operator.add:newbie:ok", "operator.add:newbie:conflict", "operator.add:x:invalid",
                "operator.update:newbie:ok", "operator.update:ghost:not_found",
                "operator.remove:newbie:ok", "operator.remove:newbie:not_found"}));
  for (const auto& e : audit) {
    EXPECT_EQ(e.actor, "ada");
    EXPECT_EQ(e.details.dump().find("long"), std::string::npos);  // never a password
  }
}

TEST_F(ApiAuthTest, TheAuditLogPagesForAdmins) {
  const Principal ada{"ada", Role::Admin};
  for (int i = 0; i < 5; ++i) {
    Answer written;
    auth_.audit(ada, "call.Reset", "CP-" + std::to_string(i), {{"type", "Soft"}}, "ok",
                [&] { written.respond()(HttpResponse{}); });
    written.wait();
  }
  const auto token = directory_.session("ada");
  auto res = send(bearer(request(http::verb::get, "/api/v1/audit?limit=2"), token));
  ASSERT_EQ(res.result(), http::status::ok) << res.body();
  auto b = body(res);
  ASSERT_EQ(b["items"].size(), 2u);
  EXPECT_EQ(b["items"][0]["target"], "CP-4");
  EXPECT_EQ(b["items"][0]["details"]["type"], "Soft");
  EXPECT_EQ(b["items"][0]["actor"], "ada");
  EXPECT_EQ(b["next_cursor"], 4);
  res = send(bearer(request(http::verb::get, "/api/v1/audit?limit=10&cursor=4"), token));
  b = body(res);
  ASSERT_EQ(b["items"].size(), 3u);
  EXPECT_TRUE(b["next_cursor"].is_null());
  EXPECT_EQ(send(bearer(request(http::verb::get, "/api/v1/audit?limit=0"), token)).result(),
            http::status::bad_request);
  EXPECT_EQ(send(bearer(request(http::verb::get, "/api/v1/audit?cursor=abc"), token)).result(),
            http::status::bad_request);
}

}  // namespace
}  // namespace ocppgw::web
