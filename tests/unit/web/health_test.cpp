// tests/unit/web/health_test.cpp: /health is 200 "ok" while every gating section passes and
// 503 "unhealthy" as soon as one fails; informational sections never gate. /readyz follows the
// gating sections and names the failing ones; /healthz is 200 regardless.
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

TEST(Health, ReadyzNamesTheFailingGatingSectionsHealthzStaysAlive) {
  std::atomic<bool> sink_ok{true}, disk_ok{true};
  Health health;
  health.add({"connections", [] { return nlohmann::json(0); }, [] { return true; }});
  health.add({"sink", [] { return nlohmann::json{}; }, [&] { return sink_ok.load(); }});
  health.add({"disk", [] { return nlohmann::json{}; }, [&] { return disk_ok.load(); }});
  health.add({"info", [] { return nlohmann::json{}; }, {}});
  Router router;
  health.add_routes(router);
  auto get = [&](const char* path) {
    std::optional<HttpResponse> out;
    router.handle(HttpRequest{http::verb::get, path, 11},
                  [&](HttpResponse res) { out = std::move(res); });
    return *out;
  };
  EXPECT_EQ(get("/readyz").result(), http::status::ok);
  EXPECT_EQ(nlohmann::json::parse(get("/readyz").body())["status"], "ready");
  EXPECT_TRUE(health.failing().empty());

  sink_ok = false;
  disk_ok = false;
  const auto res = get("/readyz");
  EXPECT_EQ(res.result(), http::status::service_unavailable);
  const auto body = nlohmann::json::parse(res.body());
  EXPECT_EQ(body["failing"], nlohmann::json({"sink", "disk"}));
  EXPECT_EQ(body["error"], "the event log refuses writes (failing: sink, disk)");
  EXPECT_EQ(get("/healthz").result(), http::status::ok);
  EXPECT_EQ(nlohmann::json::parse(get("/healthz").body())["status"], "alive");
}

}  // namespace
}  // namespace ocppgw::web
