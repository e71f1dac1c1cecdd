// gateway/config.hpp: the gateway's settings and where they come from. Every option is declared
// once (name, description, default, how to read it: gateway/config_options.cpp); the same
// declaration serves the TOML file, the OCPPGW_<KEY> environment variables and the command-line
// flags, in that order of precedence (a flag beats the environment, which beats the file, which
// beats the embedded default). Per-charge-point overrides (validation mode, subprotocol pin) come
// from the file's [charge_points."<id>"] tables and from repeatable flags.
// Threading: a Config is built once at start-up and then only read, from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rpc/action.hpp"
#include "rpc/rpc_error.hpp"
#include "util/status.hpp"

namespace CLI {
class App;
}

namespace ocppgw::gateway {

// The defaults are sized for a real fleet (a charge point sends a few KiB per minute) while
// keeping one hostile or broken connection from taking memory, disk or CPU from the others.
struct Limits {
  size_t max_frame_bytes = 1024 * 1024;  // larger text frame: close 1009
  // A CALL larger than max_call_bytes is refused (CALLERROR GenericError) unless its action is
  // one of large_call_actions, which may use up to max_frame_bytes: only these carry bulk data.
  size_t max_call_bytes = 64 * 1024;
  std::vector<std::string> large_call_actions = rpc::default_large_call_actions();
  double max_bytes_per_s = 256 * 1024;          // per connection read budget; 0: unlimited
  size_t max_outbound_bytes = 4 * 1024 * 1024;  // queued replies and calls; over: close
  size_t max_queued_calls = 16;                 // CSMS->charge point calls waiting per connection
  int max_connections = 0;  // all listeners together; 0: from the open-file limit
  uint64_t min_free_disk_bytes = 512ull * 1024 * 1024;  // data folder floor; 0: unchecked
  int handshake_timeout_s = 10;             // HTTP upgrade request and WebSocket handshake
  int idle_timeout_s = 120;                 // no frame (not even a pong) for this long: close
  bool keepalive_pings = true;              // ping after half the idle timeout of silence
  int max_connections_per_address = 0;      // 0: unlimited (NAT and load balancers share one)
  double max_messages_per_s = 200;          // per connection; excess is delayed, never dropped
  size_t max_inflight_per_connection = 64;  // frames awaiting commit before reading pauses
  // HTTP requests other than charge point frames (the upgrade request, the REST API):
  size_t max_http_header_bytes = 8 * 1024;  // request line and fields; over: 431, closed
  size_t max_http_body_bytes = 64 * 1024;   // over: 413, closed
  int web_request_timeout_s = 10;           // reading one request on web_listen; over: closed
  size_t max_events_per_frame = 1000;       // a CALL mapping to more is refused (CALLERROR)
};

struct ChargePointOverride {
  std::optional<rpc::ValidationMode> validation;
  std::optional<rpc::OcppVersion> subprotocol;  // pin: only this version is accepted
};

struct Config {
  // Plain ws listener; an empty address turns it off (e.g. when only wss is served).
  std::string listen_address = "0.0.0.0";
  uint16_t port = 8180;
  // wss listener (OCPP security profiles 2 and 3); an empty address: off.
  std::string tls_listen_address;
  uint16_t tls_port = 0;
  std::string tls_cert;        // PEM server certificate (chain)
  std::string tls_key;         // PEM private key
  std::string tls_client_ca;   // PEM; set: client certificates required, CN = charge point id
  std::string tls_extra_cert;  // PEM; a second server certificate of the other key type
  std::string tls_extra_key;
  // SignCertificate (docs/configuration.md, "Charge point certificates"): the CA that signs, or
  // the operator's command that does; neither: CSRs are refused (NoCertAuthority).
  std::string csr_ca_cert;       // PEM signing CA certificate (intermediates after it)
  std::string csr_ca_key;        // PEM private key of csr_ca_cert
  std::string csr_sign_command;  // /bin/sh -c; CSR on stdin, PEM chain on stdout
  std::string csr_key_types = "rsa:2048,ec:P-256,ec:P-384";
  std::string csr_organization;  // set: a CSR's subject O must equal it
  int csr_validity_days = 365;
  std::string ocsp_responder_hosts;    // host:port,...; empty: no OCSP checks
  std::string ocsp_trust;              // PEM roots OCSP responses must chain to
  std::string ev_certificate_command;  // /bin/sh -c; exiRequest on stdin, exiResponse on stdout
  bool basic_auth = false;             // plain listener requires HTTP Basic (profile 1)
  bool tls_basic_auth = false;         // wss listener requires HTTP Basic (profile 2)
  std::string path_prefix = "/ocpp";
  std::string data_dir = "./data";
  std::string kafka_brokers;  // empty: events wait in the durable outbox
  std::string kafka_topic = "ocpp-events";
  // Further publisher settings and librdkafka properties from the file's [kafka] table
  // (e.g. "security.protocol" = "SASL_SSL", "sasl.password" = "env:EVENTHUB_KEY").
  std::map<std::string, std::string> kafka_settings;
  int heartbeat_interval_s = 300;
  // The analytics store's file; on a device of its own its writes do not slow the event log's
  // fsyncs, which every acknowledgement waits for (docs/configuration.md, "The disks").
  std::string analytics_db;  // empty: <data_dir>/analytics.db
  // Its writer's SQLite page cache in MiB: analytics::PipelineOptions's default (config_test
  // holds them equal; why 16: analytics/pipeline.hpp).
  int analytics_cache_mb = 16;
  // How long analytics gathers committed events into one batch: LivePipeline's default
  // (config_test holds them equal; why 1 s: analytics/live_pipeline.hpp).
  int analytics_linger_ms = 1000;
  // The Delta Lake mirror of the analytics tables (docs/delta.md).
  std::string delta_root;     // empty: <data_dir>/delta
  int delta_interval_s = 60;  // seconds between mirror cycles; 0: only `ocppgw delta sync`
  int delta_log_retention_h = 30 * 24;  // time travel reaches back this far
  int delta_file_retention_h = 7 * 24;  // vacuum keeps removed files this long
  int delta_vacuum_interval_h = 24;     // the mirror vacuums its tables this often; 0: never
  int csms_call_timeout_s = 30;         // a CSMS->charge point call unanswered this long: HTTP 504
  rpc::ValidationMode validation_mode = rpc::ValidationMode::Strict;
  std::string unknown_charge_points = "Accepted";  // Accepted | Pending | Rejected
  std::string unknown_tokens = "Invalid";          // Accepted | Invalid
  int node_index = 0;
  int node_stride = 1;
  std::string id_token_secret;  // empty: generated once and kept in <data_dir>/id_token_secret
  int threads = 0;              // 0: one per core
  int api_session_ttl_s = 12 * 3600;  // REST API login sessions (bearer token and cookie)
  // The HTTP API's own listener (docs/configuration.md, "HTTP API listener"); an empty address:
  // the API shares the charge point listeners. Set: the API is served only there (HTTPS with
  // web_tls_cert and web_tls_key) and the charge point listeners answer upgrades only.
  std::string web_listen_address;
  uint16_t web_port = 0;
  std::string web_tls_cert;
  std::string web_tls_key;
  bool metrics_require_token = false;  // /metrics for logged-in viewers only
  // Live streams of the operator page (GET /api/v1/stream) open at once; over it: 503. Each
  // holds a connection and up to 256 KiB of unsent events, and costs a write per second.
  int max_streams = 100;
  std::vector<rpc::OcppVersion> subprotocols = {rpc::OcppVersion::v201, rpc::OcppVersion::v16};
  std::map<std::string, ChargePointOverride, std::less<>> charge_points;
  Limits limits;
  std::string log_level = "info";
  std::string log_format = "text";  // text | json

  std::string db_path() const { return data_dir + "/ocppgw.db"; }
  // The analytics store (rebuildable from the event log; see analytics/README.md).
  std::string analytics_db_path() const {
    return analytics_db.empty() ? data_dir + "/analytics.db" : analytics_db;
  }
  std::string delta_root_path() const {
    return delta_root.empty() ? data_dir + "/delta" : delta_root;
  }
  bool plain_enabled() const { return !listen_address.empty(); }
  bool tls_enabled() const { return !tls_listen_address.empty(); }
  bool web_listener_enabled() const { return !web_listen_address.empty(); }
  rpc::ValidationMode validation_for(std::string_view charge_point_id) const;
  // Server preference order for this charge point (its pin alone, when pinned).
  std::vector<rpc::OcppVersion> subprotocols_for(std::string_view charge_point_id) const;
};

// Registers every option on `app` (and --config). After app.parse(), resolve() applies the
// file, the environment and the flags, in that order, on top of the defaults.
class ConfigLoader {
 public:
  explicit ConfigLoader(CLI::App& app);
  ~ConfigLoader();
  ConfigLoader(const ConfigLoader&) = delete;
  ConfigLoader& operator=(const ConfigLoader&) = delete;

  // Returns nullopt and sets *error on an unreadable file or a bad value (naming its source).
  // `environ_lookup` is std::getenv by default; tests pass their own.
  std::optional<Config> resolve(std::string* error,
                                const char* (*environ_lookup)(const char*) = nullptr) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The HMAC key for id tokens: the configured one, else <data_dir>/id_token_secret (created,
// random, 0600, when absent; *generated tells the caller to warn that none was configured).
// The serving gateway and every CLI command resolve it here, so they hash tokens alike.
std::optional<std::string> id_token_secret(const Config& config, bool* generated,
                                           util::Status* status);

}  // namespace ocppgw::gateway
