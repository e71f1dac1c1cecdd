// tests/unit/gateway/operator_directory_test.cpp: web::ApiAuth over the real csms::Operators
// through gateway/operator_directory (on a SQLite file, with a test clock): an expired bearer
// token is 401 "expired", a password change through the API ends the old sessions, a refused
// password leaves the role alone, and audit rows come back with their details as JSON.
#include "gateway/operator_directory.hpp"

#include <condition_variable>
#include <mutex>

#include <gtest/gtest.h>

#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::gateway {
namespace {

namespace http = boost::beast::http;
using web::HttpRequest;
using web::HttpResponse;

constexpr int64_t kTtl = 60 * 1000;

class OperatorDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    csms::Operators::Options options;
    options.iterations = 1000;
    options.session_ttl_ms = kTtl;
    options.now_ms = [this] { return clock_.load(); };
    util::Status s;
    operators_ = csms::Operators::open(dir_.file("g.db"), options, &s);
    ASSERT_TRUE(operators_) << s.message();
    ASSERT_TRUE(operators_->ensure_first_admin("root", "root password 1").ok());
    ASSERT_TRUE(operators_->add("vic", csms::OperatorRole::Viewer, "viewer password 1").ok());
    directory_ = make_operator_directory(*operators_);
    auth_ = std::make_unique<web::ApiAuth>(*directory_, web::ApiAuth::Options());
    auth_->add_routes(router_);
  }

  HttpResponse send(http::verb method, const std::string& target, const std::string& token = {},
                    const std::string& body = {}) {
    HttpRequest r{method, target, 11};
    if (!token.empty()) r.set(http::field::authorization, "Bearer " + token);
    if (!body.empty()) {
      r.set(http::field::content_type, "application/json");
      r.body() = body;
      r.prepare_payload();
    }
    std::mutex mu;
    std::condition_variable cv;
    std::optional<HttpResponse> out;
    router_.handle(std::move(r), [&](HttpResponse res) {
      std::lock_guard lock(mu);
      out = std::move(res);
      cv.notify_all();
    });
    std::unique_lock lock(mu);
    EXPECT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return out.has_value(); }));
    return out.value_or(HttpResponse{});
  }
  std::string login(const std::string& name, const std::string& password) {
    const auto res = send(http::verb::post, "/api/v1/session", {},
                          nlohmann::json{{"name", name}, {"password", password}}.dump());
    EXPECT_EQ(res.result(), http::status::ok) << res.body();
    return nlohmann::json::parse(res.body(), nullptr, false).value("token", "");
  }

  std::atomic<int64_t> clock_{1'700'000'000'000};
  testing::TempDir dir_;
  std::unique_ptr<csms::Operators> operators_;
  std::unique_ptr<web::OperatorDirectory> directory_;
  std::unique_ptr<web::ApiAuth> auth_;
  web::Router router_;
};

TEST_F(OperatorDirectoryTest, AnExpiredBearerTokenIs401) {
  const auto token = login("vic", "viewer password 1");
  EXPECT_EQ(send(http::verb::get, "/api/v1/session", token).result(), http::status::ok);
  clock_ += kTtl;
  const auto res = send(http::verb::get, "/api/v1/session", token);
  EXPECT_EQ(res.result(), http::status::unauthorized);
  EXPECT_NE(res.body().find("expired"), std::string::npos) << res.body();
  EXPECT_EQ(res[http::field::www_authenticate], "Bearer realm=\"ocppgw\", error=\"invalid_token\"");
}

TEST_F(OperatorDirectoryTest, AccountChangesThroughTheApi) {
  const auto root = login("root", "root password 1");
  const auto vic = login("vic", "viewer password 1");
  EXPECT_EQ(send(http::verb::post, "/api/v1/operators", vic,
                 R"({"name":"eve","role":"admin","password":"long enough pw"})")
                .result(),
            http::status::forbidden);
  // A refused password leaves the role as it was.
  EXPECT_EQ(send(http::verb::patch, "/api/v1/operators/vic", root,
                 R"({"role":"operator","password":"short"})")
                .result(),
            http::status::bad_request);
  EXPECT_EQ(operators_->authenticate(vic).role, csms::OperatorRole::Viewer);
  EXPECT_EQ(send(http::verb::patch, "/api/v1/operators/vic", root,
                 R"({"role":"operator","password":"a new password"})")
                .result(),
            http::status::ok);
  EXPECT_EQ(send(http::verb::get, "/api/v1/session", vic).result(), http::status::unauthorized);
  login("vic", "a new password");
  EXPECT_EQ(send(http::verb::delete_, "/api/v1/operators/root", root).result(),
            http::status::conflict);

  const auto res = send(http::verb::get, "/api/v1/audit?limit=3", root);
  ASSERT_EQ(res.result(), http::status::ok) << res.body();
  const auto body = nlohmann::json::parse(res.body());
  ASSERT_EQ(body["items"].size(), 3u);
  const auto& remove = body["items"][0];
  EXPECT_EQ(remove["action"], "operator.remove");
  EXPECT_EQ(remove["outcome"], "conflict");
  EXPECT_NE(remove["details"]["error"].get<std::string>().find("last admin"), std::string::npos);
  EXPECT_EQ(body["items"][1]["action"], "session.login");
  EXPECT_EQ(body["items"][2]["details"],
            (nlohmann::json{{"role", "operator"}, {"new_password", true}}));
  EXPECT_TRUE(body["next_cursor"].is_number());
}

}  // namespace
}  // namespace ocppgw::gateway
