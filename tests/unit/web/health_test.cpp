// tests/unit/web/health_test.cpp: /health is 200 "ok" while every gating section passes and
// 503 "unhealthy" as soon as one fails; informational sections never gate.
#include "web/health.hpp"

#include <atomic>
#include <optional>

#include <gtest/gtest.h>

namespace ocppgw::web {
namespace {

TEST(Health, GatingSectionDecidesTheStatusCodeInformationalOnesDoNot) {
  std::atomic<bool> sink_ok{true};
  Health health;
  health.add({"connections", [] { return nlohmann::json(3); }, {}});
  health.add({"sink",
              [&] {
                return nlohmann::json{{"healthy", sink_ok.load()}};
              },
              [&] { return sink_ok.load(); }});
  Router router;
  health.add_routes(router);
  auto get = [&] {
    std::optional<HttpResponse> out;
    router.handle(HttpRequest{http::verb::get, "/health", 11},
                  [&](HttpResponse res) { out = std::move(res); });
    return *out;
  };
  auto ok = get();
  EXPECT_EQ(ok.result(), http::status::ok);
  EXPECT_EQ(ok[http::field::content_type], "application/json");
  const auto body = nlohmann::json::parse(ok.body());
  EXPECT_EQ(body["status"], "ok");
  EXPECT_EQ(body["connections"], 3);
  EXPECT_EQ(body["sink"]["healthy"], true);

  sink_ok = false;
  auto bad = get();
  EXPECT_EQ(bad.result(), http::status::service_unavailable);
  EXPECT_EQ(nlohmann::json::parse(bad.body())["status"], "unhealthy");
}

}  // namespace
}  // namespace ocppgw::web
