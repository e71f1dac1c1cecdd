// tests/unit/web/read_api_test.cpp: the query string of the read routes: every parameter must
// be one the view knows and given once, values are percent-decoded, and each refusal is a 400
// naming the parameter.
#include "web/api_input.hpp"

#include <gtest/gtest.h>

#include <optional>

#include <nlohmann/json.hpp>

namespace ocppgw::web {
namespace {

struct Answer {
  std::optional<HttpResponse> response;
  HttpRespond respond() {
    return [this](HttpResponse r) { response = std::move(r); };
  }
  std::string error() const { return nlohmann::json::parse(response->body())["error"]; }
};

HttpRequest get(const std::string& target) { return HttpRequest(http::verb::get, target, 11); }

TEST(QueryFields, DecodesKnownParameters) {
  Answer a;
  auto f = query_fields(get("/api/v1/sessions?charge_point_id=CP%2F1&day=2026-01-01&open"),
                        {"charge_point_id", "day", "open"}, a.respond());
  ASSERT_TRUE(f);
  EXPECT_FALSE(a.response);
  EXPECT_EQ(f->at("charge_point_id"), "CP/1");
  EXPECT_EQ(f->at("day"), "2026-01-01");
  EXPECT_EQ(f->at("open"), "");
  EXPECT_TRUE(query_fields(get("/api/v1/lag"), {}, a.respond())->empty());
}

TEST(QueryFields, RefusesUnknownRepeatedAndMalformedParameters) {
  for (const auto& [target, message] : std::vector<std::pair<std::string, std::string>>{
           {"/x?colour=red", "unknown query parameter 'colour' (expected day, open)"},
           {"/x?day=1&day=2", "query parameter 'day' is given twice"},
           {"/x?day=%zz", "malformed query string"},
           {"/x?limit=5", "unknown query parameter 'limit' (expected day, open)"}}) {
    Answer a;
    EXPECT_FALSE(query_fields(get(target), {"day", "open"}, a.respond())) << target;
    ASSERT_TRUE(a.response) << target;
    EXPECT_EQ(a.response->result(), http::status::bad_request);
    EXPECT_EQ(a.error(), message);
  }
  Answer a;
  EXPECT_FALSE(query_fields(get("/x?a=1"), {}, a.respond()));
  EXPECT_EQ(a.error(), "unknown query parameter 'a' (expected none)");
}

}  // namespace
}  // namespace ocppgw::web
