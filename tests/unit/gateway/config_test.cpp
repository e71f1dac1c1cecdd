// tests/unit/gateway/config_test.cpp
#include "gateway/config.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>
#include <CLI/CLI.hpp>

#include "analytics/live_pipeline.hpp"
#include "analytics/pipeline.hpp"

namespace ocppgw::gateway {
namespace {

std::map<std::string, std::string> fake_env;
const char* lookup(const char* name) {
  auto it = fake_env.find(name);
  return it == fake_env.end() ? nullptr : it->second.c_str();
}

std::optional<Config> load(std::vector<std::string> args, std::string* error = nullptr) {
  CLI::App app;
  ConfigLoader loader(app);
  std::vector<const char*> argv{"ocppgw"};
  for (const auto& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  std::string e;
  auto c = loader.resolve(&e, &lookup);
  if (error) *error = e;
  return c;
}

struct TempFile {
  std::string path;
  explicit TempFile(const std::string& text) {
    path = (std::filesystem::temp_directory_path() /
            ("ocppgw-config-" + std::to_string(::getpid()) + ".toml"))
               .string();
    std::ofstream(path) << text;
  }
  ~TempFile() { std::filesystem::remove(path); }
};

TEST(Config, EmbeddedDefaultsNeedNothing) {
  fake_env.clear();
  auto c = load({});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->listen_address, "0.0.0.0");
  EXPECT_EQ(c->port, 8180);
  EXPECT_EQ(c->path_prefix, "/ocpp");
  EXPECT_EQ(c->db_path(), "./data/ocppgw.db");
  EXPECT_EQ(c->analytics_db_path(), "./data/analytics.db");
  EXPECT_TRUE(c->kafka_brokers.empty());
  EXPECT_EQ(c->heartbeat_interval_s, 300);
  EXPECT_EQ(c->validation_mode, rpc::ValidationMode::Strict);
  EXPECT_EQ(c->unknown_charge_points, "Accepted");
  EXPECT_EQ(c->unknown_tokens, "Invalid");
  EXPECT_EQ(c->limits.max_frame_bytes, 1024u * 1024u);
  ASSERT_EQ(c->subprotocols.size(), 2u);
  EXPECT_EQ(c->subprotocols[0], rpc::OcppVersion::v201);
}

TEST(Config, FlagBeatsEnvironmentWhichBeatsTheFile) {
  TempFile file(
      "listen = \"127.0.0.1:9000\"\nheartbeat_interval = 60\nidle_timeout = 30\n"
      "max_frame_bytes = 2048\n");
  fake_env = {{"OCPPGW_HEARTBEAT_INTERVAL", "90"}, {"OCPPGW_IDLE_TIMEOUT", "45"}};
  auto c = load({"--config", file.path, "--idle-timeout", "50"});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->port, 9000);
  EXPECT_EQ(c->listen_address, "127.0.0.1");
  EXPECT_EQ(c->heartbeat_interval_s, 90);
  EXPECT_EQ(c->limits.idle_timeout_s, 50);
  EXPECT_EQ(c->limits.max_frame_bytes, 2048u);
  fake_env.clear();
}

TEST(Config, AnalyticsStoreMayLiveOutsideTheDataDir) {
  fake_env = {{"OCPPGW_ANALYTICS_DB", "/fast/analytics.db"}};
  auto c = load({"--data-dir", "/var/lib/ocppgw"});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->db_path(), "/var/lib/ocppgw/ocppgw.db");
  EXPECT_EQ(c->analytics_db_path(), "/fast/analytics.db");
  c = load({"--data-dir", "/var/lib/ocppgw", "--analytics-db", ""});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->analytics_db_path(), "/var/lib/ocppgw/analytics.db");
  // The option's default is the analytics store's own (analytics/pipeline.hpp says why 16).
  EXPECT_EQ(c->analytics_cache_mb, analytics::PipelineOptions{}.cache_mb);
  c = load({"--analytics-cache-mb", "128"});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->analytics_cache_mb, 128);
  std::string error;
  EXPECT_FALSE(load({"--analytics-cache-mb", "0"}, &error));
  EXPECT_NE(error.find("--analytics-cache-mb"), std::string::npos);
  // The linger's default is the live pipeline's own (analytics/live_pipeline.hpp says why).
  EXPECT_EQ(c->analytics_linger_ms, analytics::LivePipeline::Options{}.max_linger_ms);
  c = load({"--analytics-linger-ms", "0"});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->analytics_linger_ms, 0);
  EXPECT_FALSE(load({"--analytics-linger-ms", "-1"}, &error));
  EXPECT_NE(error.find("--analytics-linger-ms"), std::string::npos);
  fake_env.clear();
}

TEST(Config, PerChargePointOverridesFromFileAndFlags) {
  TempFile file(
      "subprotocols = [\"ocpp1.6\", \"ocpp2.0.1\"]\n"
      "[charge_points.\"CP-1\"]\nvalidation = \"lenient\"\nsubprotocol = \"ocpp1.6\"\n"
      "[kafka]\n\"security.protocol\" = \"SASL_SSL\"\n");
  fake_env.clear();
  auto c = load({"--config", file.path, "--lenient-charge-points", "CP-2,CP-3",
                 "--subprotocol-pins", "CP-3=ocpp2.0.1"});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->subprotocols[0], rpc::OcppVersion::v16);
  EXPECT_EQ(c->validation_for("CP-1"), rpc::ValidationMode::Lenient);
  EXPECT_EQ(c->validation_for("CP-2"), rpc::ValidationMode::Lenient);
  EXPECT_EQ(c->validation_for("CP-9"), rpc::ValidationMode::Strict);
  EXPECT_EQ(c->subprotocols_for("CP-1"), std::vector{rpc::OcppVersion::v16});
  EXPECT_EQ(c->subprotocols_for("CP-3"), std::vector{rpc::OcppVersion::v201});
  EXPECT_EQ(c->subprotocols_for("CP-9").size(), 2u);
  EXPECT_EQ(c->kafka_settings.at("security.protocol"), "SASL_SSL");
}

TEST(Config, BadValuesNameTheirSource) {
  fake_env = {{"OCPPGW_VALIDATION_MODE", "sloppy"}};
  std::string error;
  EXPECT_FALSE(load({}, &error));
  EXPECT_NE(error.find("OCPPGW_VALIDATION_MODE"), std::string::npos);
  fake_env.clear();
  EXPECT_FALSE(load({"--listen", "nowhere"}, &error));
  EXPECT_NE(error.find("--listen"), std::string::npos);
  EXPECT_FALSE(load({"--subprotocols", "ocpp1.5"}, &error));
  TempFile file("no_such_option = 1\n");
  EXPECT_FALSE(load({"--config", file.path}, &error));
  EXPECT_NE(error.find("no_such_option"), std::string::npos);
  EXPECT_FALSE(load({"--node-index", "3", "--node-stride", "2"}, &error));
}

TEST(Config, SecurityOptionsDefaultToPlainWithoutAuthentication) {
  fake_env.clear();
  auto c = load({});
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->plain_enabled());
  EXPECT_FALSE(c->tls_enabled());
  EXPECT_FALSE(c->basic_auth);
  EXPECT_FALSE(c->tls_basic_auth);
  EXPECT_TRUE(c->tls_client_ca.empty());
}

TEST(Config, TlsListenerFromFileEnvironmentAndFlags) {
  TempFile file(
      "tls_listen = \"[::1]:8443\"\ntls_cert = \"/etc/ocppgw/server.pem\"\n"
      "tls_key = \"/etc/ocppgw/server.key\"\ntls_basic_auth = \"required\"\n");
  fake_env = {{"OCPPGW_TLS_CLIENT_CA", "/etc/ocppgw/ca.pem"}};
  auto c = load({"--config", file.path, "--listen", "", "--basic-auth", "off"});
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->plain_enabled());
  EXPECT_TRUE(c->tls_enabled());
  EXPECT_EQ(c->tls_listen_address, "::1");
  EXPECT_EQ(c->tls_port, 8443);
  EXPECT_EQ(c->tls_cert, "/etc/ocppgw/server.pem");
  EXPECT_EQ(c->tls_key, "/etc/ocppgw/server.key");
  EXPECT_EQ(c->tls_client_ca, "/etc/ocppgw/ca.pem");
  EXPECT_TRUE(c->tls_basic_auth);
  EXPECT_FALSE(c->basic_auth);
  fake_env.clear();
  // "off" turns a listener off like an empty value; both listeners side by side.
  c = load({"--listen", "127.0.0.1:8180", "--basic-auth", "required", "--tls-listen",
            "0.0.0.0:8443", "--tls-cert", "c.pem", "--tls-key", "k.pem"});
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->plain_enabled() && c->tls_enabled());
  EXPECT_TRUE(c->basic_auth);
  EXPECT_FALSE(c->tls_basic_auth);
  c = load({"--listen", "off", "--tls-listen", "0.0.0.0:8443", "--tls-cert", "c.pem", "--tls-key",
            "k.pem"});
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->plain_enabled());
}

TEST(Config, InconsistentSecuritySettingsAreRefused) {
  fake_env.clear();
  std::string error;
  EXPECT_FALSE(load({"--basic-auth", "sometimes"}, &error));
  EXPECT_NE(error.find("--basic-auth"), std::string::npos) << error;
  EXPECT_NE(error.find("off or required"), std::string::npos) << error;
  EXPECT_FALSE(load({"--tls-listen", "0.0.0.0:8443"}, &error));
  EXPECT_NE(error.find("tls_cert and tls_key"), std::string::npos) << error;
  EXPECT_FALSE(load({"--tls-listen", "0.0.0.0:8443", "--tls-cert", "c.pem"}, &error));
  EXPECT_FALSE(load({"--tls-client-ca", "ca.pem"}, &error));
  EXPECT_NE(error.find("tls_listen is off"), std::string::npos) << error;
  EXPECT_FALSE(load({"--tls-basic-auth", "required"}, &error));
  EXPECT_NE(error.find("tls_basic_auth"), std::string::npos) << error;
  EXPECT_FALSE(load({"--listen", ""}, &error));
  EXPECT_NE(error.find("nothing to listen on"), std::string::npos) << error;
  EXPECT_FALSE(load({"--listen", "off", "--basic-auth", "required", "--tls-listen", "[::]:8443",
                     "--tls-cert", "c.pem", "--tls-key", "k.pem"},
                    &error));
  EXPECT_NE(error.find("basic_auth"), std::string::npos) << error;
  EXPECT_FALSE(load({"--tls-listen", "8443"}, &error));
  EXPECT_NE(error.find("--tls-listen"), std::string::npos) << error;
}

TEST(Config, WebListenerAndHttpLimits) {
  fake_env.clear();
  auto c = load({});
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->web_listener_enabled());
  EXPECT_FALSE(c->metrics_require_token);
  EXPECT_EQ(c->limits.max_http_header_bytes, 8192u);
  EXPECT_EQ(c->limits.max_http_body_bytes, 65536u);
  EXPECT_EQ(c->limits.web_request_timeout_s, 10);

  fake_env = {{"OCPPGW_METRICS_REQUIRE_TOKEN", "true"}, {"OCPPGW_MAX_HTTP_BODY_BYTES", "2048"}};
  c = load({"--web-listen", "127.0.0.1:8081", "--web-tls-cert", "a.pem", "--web-tls-key", "a.key",
            "--max-http-header-bytes", "4096", "--web-request-timeout", "3"});
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->web_listener_enabled());
  EXPECT_EQ(c->web_listen_address, "127.0.0.1");
  EXPECT_EQ(c->web_port, 8081);
  EXPECT_EQ(c->web_tls_cert, "a.pem");
  EXPECT_TRUE(c->metrics_require_token);
  EXPECT_EQ(c->limits.max_http_body_bytes, 2048u);
  EXPECT_EQ(c->limits.max_http_header_bytes, 4096u);
  EXPECT_EQ(c->limits.web_request_timeout_s, 3);

  fake_env.clear();
  std::string error;
  EXPECT_FALSE(load({"--web-listen", "127.0.0.1:8081", "--web-tls-cert", "a.pem"}, &error));
  EXPECT_NE(error.find("web_tls_cert and web_tls_key go together"), std::string::npos) << error;
  EXPECT_FALSE(load({"--web-tls-cert", "a.pem", "--web-tls-key", "a.key"}, &error));
  EXPECT_NE(error.find("web_listen is off"), std::string::npos) << error;
  EXPECT_FALSE(load({"--max-http-header-bytes", "10"}, &error));
}

TEST(Config, GeneratedSecretIsKeptInTheDataDirUnlessOneIsConfigured) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("ocppgw-secret-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  Config c;
  c.data_dir = dir.string();
  bool generated = false;
  auto first = id_token_secret(c, &generated, nullptr);
  ASSERT_TRUE(first);
  EXPECT_TRUE(generated);
  EXPECT_EQ(first->size(), 64u);
  auto second = id_token_secret(c, &generated, nullptr);
  ASSERT_TRUE(second);
  EXPECT_FALSE(generated);
  EXPECT_EQ(*first, *second);
  c.id_token_secret = "configured-secret";
  EXPECT_EQ(id_token_secret(c, &generated, nullptr), "configured-secret");
  EXPECT_FALSE(generated);
  EXPECT_EQ(std::filesystem::status(dir / "id_token_secret").permissions() &
                std::filesystem::perms::group_all,
            std::filesystem::perms::none);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ocppgw::gateway
