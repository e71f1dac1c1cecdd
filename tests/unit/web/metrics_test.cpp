// tests/unit/web/metrics_test.cpp: GET /metrics renders every registry given, open or behind
// its guard; the router counts each answer by route pattern (not raw path) and status.
#include "web/metrics.hpp"

#include <optional>

#include <gtest/gtest.h>

namespace ocppgw::web {
namespace {

HttpResponse get(const Router& router, const char* target) {
  std::optional<HttpResponse> out;
  router.handle(HttpRequest{http::verb::get, target, 11},
                [&](HttpResponse res) { out = std::move(res); });
  return *out;
}

TEST(MetricsRoute, RendersEveryRegistryInTextFormat) {
  metrics::Registry a, b;
  a.counter("t_a_total", "A.").get().inc(4);
  b.add_collected("t_b", "B.", metrics::Type::Gauge, {}, [] {
    return std::vector<metrics::Sample>{{{}, 7}};
  });
  Router router;
  add_metrics_route(router, {&a, &b});
  const auto res = get(router, "/metrics");
  EXPECT_EQ(res.result(), http::status::ok);
  EXPECT_EQ(res[http::field::content_type], "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(res.body(), a.render() + b.render());
  EXPECT_NE(res.body().find("t_a_total 4\n"), std::string::npos);
  EXPECT_NE(res.body().find("t_b 7\n"), std::string::npos);
}

TEST(MetricsRoute, AGuardThatAnswersKeepsTheMetricsBack) {
  metrics::Registry r;
  r.counter("t_secret_total", "x").get().inc();
  bool allow = false;
  Router router;
  add_metrics_route(router, {&r}, [&](const HttpRequest& request, const HttpRespond& respond) {
    if (!allow) respond(json_error(request, http::status::unauthorized, "log in first"));
    return allow;
  });
  auto res = get(router, "/metrics");
  EXPECT_EQ(res.result(), http::status::unauthorized);
  EXPECT_EQ(res.body().find("t_secret_total"), std::string::npos);
  allow = true;
  res = get(router, "/metrics");
  EXPECT_EQ(res.result(), http::status::ok);
  EXPECT_NE(res.body().find("t_secret_total 1\n"), std::string::npos);
}

TEST(MetricsRoute, RouterCountsByPatternAndStatusNeverByRawPath) {
  auto& requests = metrics::process_registry().counter("ocppgw_http_requests_total", "",
                                                       {"method", "route", "status"});
  auto& item = requests.with({"GET", "/t/items/{id}", "200"});
  auto& unmatched = requests.with({"GET", "unmatched", "404"});
  auto& not_allowed = requests.with({"POST", "/t/items/{id}", "405"});
  const uint64_t item0 = item.value(), unmatched0 = unmatched.value(),
                 not_allowed0 = not_allowed.value();
  Router router;
  router.add(http::verb::get, "/t/items/{id}",
             RouteHandler([](HttpRequest&& request, const PathParams&, HttpRespond respond) {
               respond(text_response(request, http::status::ok, "item"));
             }));
  get(router, "/t/items/CP-SECRET-1");
  get(router, "/t/items/CP-SECRET-2");
  get(router, "/t/nothing/here");
  std::optional<HttpResponse> out;
  router.handle(HttpRequest{http::verb::post, "/t/items/x", 11},
                [&](HttpResponse res) { out = std::move(res); });
  EXPECT_EQ(item.value() - item0, 2u);
  EXPECT_EQ(unmatched.value() - unmatched0, 1u);
  EXPECT_EQ(not_allowed.value() - not_allowed0, 1u);
  EXPECT_EQ(metrics::process_registry().render().find("CP-SECRET"), std::string::npos);
}

}  // namespace
}  // namespace ocppgw::web
