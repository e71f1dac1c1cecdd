// tests/unit/web/router_test.cpp: routes match paths (query ignored) with {parameters},
// literals win over parameters, unknown paths are 404, a known path with another method is 405
// with Allow, and HEAD uses the GET route; {name+} takes the rest of the path and loses to
// literals and parameters; query and percent decoding.
#include "web/router.hpp"

#include <optional>

#include <gtest/gtest.h>

namespace ocppgw::web {
namespace {

HttpRequest request(http::verb method, std::string target) {
  HttpRequest r{method, target, 11};
  r.keep_alive(true);
  return r;
}

HttpResponse route(const Router& router, HttpRequest r) {
  std::optional<HttpResponse> out;
  router.handle(std::move(r), [&](HttpResponse res) { out = std::move(res); });
  EXPECT_TRUE(out);
  return out ? *out : HttpResponse{};
}

Router make_router() {
  Router router;
  router.add(http::verb::get, "/a", [](HttpRequest&& req, HttpRespond respond) {
    respond(text_response(req, http::status::ok, "got a"));
  });
  router.add(http::verb::post, "/a", [](HttpRequest&& req, HttpRespond respond) {
    respond(text_response(req, http::status::created, "posted a"));
  });
  return router;
}

TEST(Router, MatchesMethodAndPathIgnoringTheQuery) {
  const Router router = make_router();
  auto res = route(router, request(http::verb::get, "/a?x=1"));
  EXPECT_EQ(res.result(), http::status::ok);
  EXPECT_EQ(res.body(), "got a\n");
  EXPECT_TRUE(res.keep_alive());
  EXPECT_EQ(route(router, request(http::verb::post, "/a")).result(), http::status::created);
}

TEST(Router, UnknownPathIs404AndOtherMethodIs405WithAllow) {
  const Router router = make_router();
  EXPECT_EQ(route(router, request(http::verb::get, "/b")).result(), http::status::not_found);
  EXPECT_EQ(route(router, request(http::verb::get, "/a/")).result(), http::status::not_found);
  auto res = route(router, request(http::verb::delete_, "/a"));
  EXPECT_EQ(res.result(), http::status::method_not_allowed);
  EXPECT_EQ(res[http::field::allow], "GET, HEAD, POST");
}

TEST(Router, HeadIsServedByTheGetRoute) {
  const Router router = make_router();
  EXPECT_EQ(route(router, request(http::verb::head, "/a")).result(), http::status::ok);
}

Router param_router() {
  Router router;
  auto echo = [](std::string name) {
    return RouteHandler([name](HttpRequest&& req, const PathParams& params, HttpRespond respond) {
      std::string body = name;
      for (const auto& [k, v] : params) body += " " + k + "=" + v;
      respond(text_response(req, http::status::ok, body));
    });
  };
  router.add(http::verb::post, "/cp/{id}/calls/{action}", echo("call"));
  router.add(http::verb::get, "/cp/{id}", echo("one"));
  router.add(http::verb::get, "/cp/count", echo("count"));
  return router;
}

TEST(Router, ParametersMatchOneSegmentAndArePercentDecoded) {
  const Router router = param_router();
  EXPECT_EQ(route(router, request(http::verb::post, "/cp/CP%2F1/calls/Reset?x=1")).body(),
            "call action=Reset id=CP/1\n");
  EXPECT_EQ(route(router, request(http::verb::get, "/cp/CP-1")).body(), "one id=CP-1\n");
  EXPECT_EQ(route(router, request(http::verb::get, "/cp/")).result(), http::status::not_found);
  EXPECT_EQ(route(router, request(http::verb::get, "/cp/a/b")).result(), http::status::not_found);
  EXPECT_EQ(route(router, request(http::verb::get, "/cp/%zz")).result(), http::status::not_found);
  EXPECT_EQ(route(router, request(http::verb::get, "/cp/x/calls/Reset")).result(),
            http::status::method_not_allowed);
}

TEST(Router, LiteralSegmentWinsOverAParameter) {
  const Router router = param_router();
  EXPECT_EQ(route(router, request(http::verb::get, "/cp/count")).body(), "count\n");
}

Router rest_router() {
  Router router = param_router();
  auto echo = [](std::string name) {
    return RouteHandler([name](HttpRequest&& req, const PathParams& params, HttpRespond respond) {
      std::string body = name;
      for (const auto& [k, v] : params) body += " " + k + "=" + v;
      respond(text_response(req, http::status::ok, body));
    });
  };
  router.add(http::verb::get, "/ui/", echo("index"));
  router.add(http::verb::get, "/ui/{path+}", echo("file"));
  router.add(http::verb::get, "/ui/special/{name}", echo("special"));
  router.add(http::verb::get, "/cp/{id}/{rest+}", echo("cp-rest"));
  return router;
}

TEST(Router, RestOfPathParameterTakesEveryRemainingSegment) {
  const Router router = rest_router();
  EXPECT_EQ(route(router, request(http::verb::get, "/ui/app.js?v=2")).body(), "file path=app.js\n");
  EXPECT_EQ(route(router, request(http::verb::get, "/ui/img/logo%20big.svg")).body(),
            "file path=img/logo big.svg\n");
  // The segments are passed as they are: "..", empty ones, a trailing slash. What they mean
  // (nothing, for a table of embedded files) is the route's business.
  EXPECT_EQ(route(router, request(http::verb::get, "/ui/../gateway")).body(),
            "file path=../gateway\n");
  EXPECT_EQ(route(router, request(http::verb::get, "/ui/a//b/")).body(), "file path=a//b/\n");
  // One or more segments, the first not empty: "/ui/" is the literal route, "/ui" nothing.
  EXPECT_EQ(route(router, request(http::verb::get, "/ui/")).body(), "index\n");
  EXPECT_EQ(route(router, request(http::verb::get, "/ui//x")).result(), http::status::not_found);
  EXPECT_EQ(route(router, request(http::verb::get, "/ui")).result(), http::status::not_found);
  EXPECT_EQ(route(router, request(http::verb::get, "/ui/a/%zz")).result(), http::status::not_found);
}

TEST(Router, LiteralsAndParametersWinOverTheRestOfPath) {
  const Router router = rest_router();
  EXPECT_EQ(route(router, request(http::verb::get, "/ui/special/x")).body(), "special name=x\n");
  EXPECT_EQ(route(router, request(http::verb::get, "/ui/special/x/y")).body(),
            "file path=special/x/y\n");
  // "/cp/{id}" (one parameter) and "/cp/count" keep their paths; deeper ones fall to the rest.
  EXPECT_EQ(route(router, request(http::verb::get, "/cp/CP-1")).body(), "one id=CP-1\n");
  EXPECT_EQ(route(router, request(http::verb::get, "/cp/count")).body(), "count\n");
  EXPECT_EQ(route(router, request(http::verb::get, "/cp/CP-1/a/b")).body(),
            "cp-rest id=CP-1 rest=a/b\n");
  // A POST route of the same depth still wins for its own path (405 for GET, not the rest).
  EXPECT_EQ(route(router, request(http::verb::get, "/cp/x/calls/Reset")).result(),
            http::status::method_not_allowed);
}

TEST(Router, QueryParametersAreDecoded) {
  EXPECT_EQ(query_param("/x?a=1&b=two+words&c=%41", "b"), "two words");
  EXPECT_EQ(query_param("/x?a=1&b=2&c=%41", "c"), "A");
  EXPECT_EQ(query_param("/x?a", "a"), "");
  EXPECT_FALSE(query_param("/x?a=1", "b"));
  EXPECT_FALSE(query_param("/x", "a"));
  EXPECT_FALSE(percent_decode("%4"));
}

}  // namespace
}  // namespace ocppgw::web
