// tests/unit/gateway/openapi_test.cpp: the OpenAPI document (web/openapi.json) lists exactly the
// routes the gateway serves: the whole App is started as main() starts it, and its router is
// compared with the document, so a route added or renamed without its entry fails here.
#include <filesystem>
#include <set>
#include <string>
#include <utility>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gateway/app.hpp"
#include "web/openapi.hpp"

namespace ocppgw::gateway {
namespace {

using Route = std::pair<std::string, std::string>;  // (lower-case method, path pattern)

std::set<Route> documented_routes(const nlohmann::json& document) {
  static const std::set<std::string> kMethods = {"get",     "put",  "post",  "delete",
                                                 "options", "head", "patch", "trace"};
  std::set<Route> out;
  for (const auto& [path, item] : document.at("paths").items())
    for (const auto& [key, operation] : item.items())
      if (kMethods.count(key)) out.insert({key, path});
  return out;
}

TEST(OpenApi, DocumentParsesAndListsExactlyTheServedRoutes) {
  const auto document = nlohmann::json::parse(web::openapi_document(), nullptr, false);
  ASSERT_FALSE(document.is_discarded()) << "web/openapi.json is not JSON";
  EXPECT_EQ(document.value("openapi", ""), "3.0.3");

  const auto dir =
      std::filesystem::temp_directory_path() / ("ocppgw-openapi-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  Config config;
  config.data_dir = dir.string();
  config.listen_address = "127.0.0.1";
  config.port = 0;
  config.threads = 1;
  App app(config);
  app.add_component(make_analytics_component());
  app.add_component(make_kafka_component());
  ASSERT_TRUE(app.start().ok());

  std::set<Route> served;
  for (const auto& [verb, pattern] : app.router().routes()) {
    std::string method(web::http::to_string(verb));
    for (auto& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // OpenAPI has no rest-of-path template: the router's "{path+}" is documented as "{path}"
    // (its description says it may hold slashes).
    std::string path = pattern;
    if (const auto rest = path.find("+}"); rest != std::string::npos) path.erase(rest, 1);
    served.insert({method, path});
  }
  app.request_stop();
  app.wait();
  std::filesystem::remove_all(dir);

  const auto listed = documented_routes(document);
  for (const auto& [method, path] : served)
    EXPECT_TRUE(listed.count({method, path}))
        << "served but not in web/openapi.json: " << method << " " << path;
  for (const auto& [method, path] : listed)
    EXPECT_TRUE(served.count({method, path}))
        << "in web/openapi.json but not served: " << method << " " << path;
  EXPECT_GE(served.size(), 10u);
}

}  // namespace
}  // namespace ocppgw::gateway
