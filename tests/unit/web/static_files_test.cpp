// tests/unit/web/static_files_test.cpp: the embedded page. Content types by extension, the
// routes over a table of test files (index at /ui/, nested paths, 404 for anything not in the
// table, ".." included, redirects), Cache-Control and ETag with 304 on If-None-Match, the
// security headers; and the real table generated from web/static/ holds index.html.
#include "web/static_files.hpp"

#include <optional>

#include <gtest/gtest.h>

namespace ocppgw::web {
namespace {

constexpr EmbeddedFile kTestFiles[] = {
    {"index.html", "<!doctype html><title>t</title>"},
    {"app.js", "console.log(1);"},
    {"css/app.css", "body{}"},
    {"img/logo.svg", "<svg/>"},
};

HttpRequest get(std::string target) {
  HttpRequest r{http::verb::get, target, 11};
  r.keep_alive(true);
  return r;
}

class StaticFilesTest : public ::testing::Test {
 protected:
  StaticFilesTest() : files_(kTestFiles) { files_.add_routes(router_); }

  HttpResponse send(HttpRequest request) {
    std::optional<HttpResponse> out;
    router_.handle(std::move(request), [&](HttpResponse res) { out = std::move(res); });
    EXPECT_TRUE(out);
    return out ? *out : HttpResponse{};
  }

  StaticFiles files_;
  Router router_;
};

TEST(StaticContentTypes, ComeFromTheExtension) {
  EXPECT_EQ(content_type_for("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(content_type_for("css/app.css"), "text/css; charset=utf-8");
  EXPECT_EQ(content_type_for("app.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(content_type_for("img/a.svg"), "image/svg+xml");
  EXPECT_EQ(content_type_for("img/a.png"), "image/png");
  EXPECT_EQ(content_type_for("data.json"), "application/json");
  EXPECT_EQ(content_type_for("fonts/x.woff2"), "font/woff2");
  EXPECT_EQ(content_type_for("robots.txt"), "text/plain; charset=utf-8");
  EXPECT_EQ(content_type_for("archive.tar.gz"), "application/octet-stream");
  EXPECT_EQ(content_type_for("js"), "application/octet-stream");
  EXPECT_EQ(content_type_for(".html"), "application/octet-stream");
}

TEST_F(StaticFilesTest, IndexAndNestedFilesAreServedWithTheirType) {
  auto res = send(get("/ui/"));
  EXPECT_EQ(res.result(), http::status::ok);
  EXPECT_EQ(res.body(), "<!doctype html><title>t</title>");
  EXPECT_EQ(res[http::field::content_type], "text/html; charset=utf-8");
  res = send(get("/ui/css/app.css"));
  EXPECT_EQ(res.result(), http::status::ok);
  EXPECT_EQ(res.body(), "body{}");
  EXPECT_EQ(res[http::field::content_type], "text/css; charset=utf-8");
  EXPECT_EQ(send(get("/ui/img/logo.svg"))[http::field::content_type], "image/svg+xml");
  EXPECT_EQ(send(get("/ui/app.js?v=3")).body(), "console.log(1);");
}

TEST_F(StaticFilesTest, AnythingNotInTheTableIs404) {
  for (const char* target :
       {"/ui/nope.js", "/ui/../gateway", "/ui/css/../app.js", "/ui/%2e%2e/etc/passwd", "/ui/css",
        "/ui/css/", "/ui/APP.JS", "/ui/./app.js", "/ui/index.html/x"}) {
    const auto res = send(get(target));
    EXPECT_EQ(res.result(), http::status::not_found) << target;
    EXPECT_EQ(res.body(), "not found\n") << target;
  }
}

TEST_F(StaticFilesTest, RootAndUiRedirectToTheIndex) {
  for (const char* target : {"/", "/ui"}) {
    const auto res = send(get(target));
    EXPECT_EQ(res.result(), http::status::found) << target;
    EXPECT_EQ(res[http::field::location], "/ui/") << target;
  }
}

TEST_F(StaticFilesTest, EveryAnswerIsRevalidatedByETagAnd304WhenUnchanged) {
  const auto first = send(get("/ui/app.js"));
  EXPECT_EQ(first[http::field::cache_control], "no-cache");
  const std::string etag(first[http::field::etag]);
  ASSERT_EQ(etag.size(), 18u) << etag;
  EXPECT_EQ(etag.front(), '"');
  // Another content, another tag.
  EXPECT_NE(send(get("/ui/css/app.css"))[http::field::etag], etag);

  for (const std::string& header : {etag, "W/" + etag, "\"other\", " + etag, std::string("*")}) {
    auto request = get("/ui/app.js");
    request.set(http::field::if_none_match, header);
    const auto res = send(std::move(request));
    EXPECT_EQ(res.result(), http::status::not_modified) << header;
    EXPECT_TRUE(res.body().empty());
    EXPECT_EQ(res[http::field::etag], etag);
  }
  auto stale = get("/ui/app.js");
  stale.set(http::field::if_none_match, "\"0000000000000000\"");
  const auto res = send(std::move(stale));
  EXPECT_EQ(res.result(), http::status::ok);
  EXPECT_EQ(res.body(), "console.log(1);");
}

TEST_F(StaticFilesTest, AnswersCarryTheSecurityHeaders) {
  const auto res = send(get("/ui/"));
  EXPECT_EQ(res["Content-Security-Policy"],
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; frame-ancestors 'none'");
  EXPECT_EQ(res["X-Content-Type-Options"], "nosniff");
  EXPECT_EQ(res["Referrer-Policy"], "no-referrer");
}

TEST(EmbeddedStaticFiles, TheGeneratedTableHoldsTheIndexPageAndNoDotFiles) {
  const StaticFiles files;
  const auto* index = files.find("index.html");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->content_type, "text/html; charset=utf-8");
  EXPECT_NE(index->bytes.find("<html"), std::string_view::npos);
  for (const auto& f : files.files()) {
    EXPECT_FALSE(f.path.starts_with('.')) << f.path;
    EXPECT_EQ(f.path.find("/."), std::string::npos) << f.path;
    EXPECT_FALSE(f.path.starts_with('/')) << f.path;
  }
}

}  // namespace
}  // namespace ocppgw::web
