// gateway/config_options.cpp: the table of options (config_options.hpp), group by group, and the
// option kinds that build each option's setter and shower from a member pointer.
#include "gateway/config_options.hpp"

#include <charconv>
#include <initializer_list>
#include <type_traits>
#include <utility>

#include "csms/certificate_requests.hpp"
#include "csms/ocsp_client.hpp"
#include "util/text.hpp"

namespace ocppgw::gateway::detail {

using rpc::OcppVersion;
using rpc::ValidationMode;

std::optional<ValidationMode> parse_mode(std::string_view t) {
  if (t == "strict") return ValidationMode::Strict;
  if (t == "lenient") return ValidationMode::Lenient;
  return std::nullopt;
}

std::optional<OcppVersion> parse_subprotocol(std::string_view t) {
  if (t == "ocpp1.6") return OcppVersion::v16;
  if (t == "ocpp2.0.1") return OcppVersion::v201;
  return std::nullopt;
}

namespace {

using util::split_list;
using util::trim;

template <typename T>
std::string parse_number(const std::string& text, T& out, T min, T max) {
  T v{};
  const std::string t = trim(text);
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size()) return "'" + text + "' is not a number";
  if (v < min || v > max) return "'" + text + "' is out of range";
  out = v;
  return {};
}

std::string parse_bool(const std::string& text, bool& out) {
  const std::string t = trim(text);
  if (t == "true" || t == "1" || t == "yes" || t == "on") return out = true, std::string();
  if (t == "false" || t == "0" || t == "no" || t == "off") return out = false, std::string();
  return "'" + text + "' is not a boolean (true/false)";
}

// ---- option kinds: each builds a setter/shower pair from a member pointer ----

OptionSpec string_opt(std::string key, std::string help, std::string Config::*m) {
  return {std::move(key), std::move(help),
          [m](Config& c, const std::string& v) { return (c.*m = v, std::string()); },
          [m](const Config& c) { return c.*m; }};
}

// A string kept only when `check` finds nothing wrong with it (check returns why not, or "").
OptionSpec checked_opt(std::string key, std::string help, std::string Config::*m,
                       std::string (*check)(const std::string&)) {
  return {std::move(key), std::move(help),
          [m, check](Config& c, const std::string& v) {
            std::string error = check(v);
            if (error.empty()) c.*m = v;
            return error;
          },
          [m](const Config& c) { return c.*m; }};
}

template <typename T, typename Owner>
OptionSpec number_opt(std::string key, std::string help, T Owner::*m, T min, T max) {
  auto member = [m](auto& c) -> auto& {
    if constexpr (std::is_same_v<Owner, Config>)
      return c.*m;
    else
      return c.limits.*m;
  };
  return {std::move(key), std::move(help),
          [=](Config& c, const std::string& v) { return parse_number<T>(v, member(c), min, max); },
          [=](const Config& c) {
            std::ostringstream o;
            o << member(c);
            return o.str();
          }};
}

OptionSpec choice_opt(std::string key, std::string help, std::string Config::*m,
                      std::initializer_list<std::string_view> allowed) {
  std::vector<std::string_view> copy(allowed);
  return {std::move(key), std::move(help),
          [m, copy](Config& c, const std::string& v) {
            const std::string t = trim(v);
            for (auto a : copy)
              if (t == a) return (c.*m = t, std::string());
            std::string list;
            for (auto a : copy) list += (list.empty() ? "" : ", ") + std::string(a);
            return "'" + v + "' is not one of " + list;
          },
          [m](const Config& c) { return c.*m; }};
}

// host:port, [v6]:port, or empty / "off" for a listener that is turned off.
OptionSpec host_port_opt(std::string key, std::string help, std::string Config::*address,
                         uint16_t Config::*port) {
  return {std::move(key), std::move(help),
          [address, port](Config& c, const std::string& v) -> std::string {
            const std::string t = trim(v);
            if (t.empty() || t == "off") {
              c.*address = "";
              c.*port = 0;
              return {};
            }
            const auto colon = t.rfind(':');
            if (colon == std::string::npos || colon == 0) return "'" + v + "' is not host:port";
            std::string host = t.substr(0, colon);
            if (host.size() > 2 && host.front() == '[' && host.back() == ']')
              host = host.substr(1, host.size() - 2);
            uint16_t p = 0;
            if (auto e = parse_number<uint16_t>(t.substr(colon + 1), p, 0, 65535); !e.empty())
              return e;
            c.*address = host;
            c.*port = p;
            return {};
          },
          [address, port](const Config& c) -> std::string {
            if ((c.*address).empty()) return {};
            const bool v6 = (c.*address).find(':') != std::string::npos;
            return (v6 ? "[" + c.*address + "]" : c.*address) + ":" + std::to_string(c.*port);
          }};
}

OptionSpec auth_opt(std::string key, std::string help, bool Config::*m) {
  return {std::move(key), std::move(help),
          [m](Config& c, const std::string& v) -> std::string {
            const std::string t = trim(v);
            if (t == "off") return (c.*m = false, std::string());
            if (t == "required") return (c.*m = true, std::string());
            return "'" + v + "' is not off or required";
          },
          [m](const Config& c) { return std::string(c.*m ? "required" : "off"); }};
}

// Where charge points connect and how they authenticate (security profiles 1-3).
void add_listener_options(std::vector<OptionSpec>& s) {
  s.push_back(host_port_opt("listen",
                            "Address and port of the plain ws listener, host:port ([v6]:port for "
                            "IPv6); empty or off: no plain listener",
                            &Config::listen_address, &Config::port));
  s.push_back(host_port_opt("tls_listen",
                            "Address and port of the wss (TLS) listener; empty or off: none",
                            &Config::tls_listen_address, &Config::tls_port));
  s.push_back(string_opt("tls_cert", "PEM server certificate (chain) of the wss listener",
                         &Config::tls_cert));
  s.push_back(string_opt("tls_key", "PEM private key of tls_cert", &Config::tls_key));
  s.push_back(string_opt("tls_extra_cert",
                         "PEM second server certificate of the other key type (RSA beside "
                         "ECDSA, or the reverse), served on the same wss listener",
                         &Config::tls_extra_cert));
  s.push_back(
      string_opt("tls_extra_key", "PEM private key of tls_extra_cert", &Config::tls_extra_key));
  s.push_back(string_opt("tls_client_ca",
                         "PEM CA(s) for client certificates; set: the wss listener requires a "
                         "client certificate whose subject CN is the charge point id "
                         "(security profile 3)",
                         &Config::tls_client_ca));
  s.push_back(auth_opt("basic_auth",
                       "HTTP Basic authentication on the plain listener: off or required "
                       "(security profile 1; passwords via `ocppgw charge-points set-password`)",
                       &Config::basic_auth));
  s.push_back(auth_opt("tls_basic_auth",
                       "HTTP Basic authentication on the wss listener: off or required "
                       "(security profile 2)",
                       &Config::tls_basic_auth));
  s.push_back(string_opt("path_prefix",
                         "URL path prefix of charge point endpoints: <prefix>/{chargePointId}",
                         &Config::path_prefix));
}

// How charge point certificates are issued (SignCertificate, both versions).
void add_certificate_options(std::vector<OptionSpec>& s) {
  s.push_back(string_opt("csr_ca_cert",
                         "PEM CA certificate that signs charge point certificates "
                         "(SignCertificate); intermediates may follow it and are sent with "
                         "CertificateSigned. Empty, with csr_sign_command empty: CSRs are "
                         "refused (NoCertAuthority)",
                         &Config::csr_ca_cert));
  s.push_back(string_opt("csr_ca_key", "PEM private key of csr_ca_cert", &Config::csr_ca_key));
  s.push_back(string_opt("csr_sign_command",
                         "Command that signs CSRs instead of csr_ca_cert (a CA kept elsewhere): "
                         "run with /bin/sh -c, the CSR PEM on stdin, OCPPGW_CHARGE_POINT_ID and "
                         "OCPPGW_CERTIFICATE_TYPE set; prints the PEM chain, exits 0, within 30 s",
                         &Config::csr_sign_command));
  s.push_back(checked_opt(
      "csr_key_types", "Keys a CSR may carry: rsa:<least bits>, ec:<NIST curve>, comma-separated",
      &Config::csr_key_types, [](const std::string& v) {
        csms::CsrPolicy p;
        return csms::parse_csr_key_types(v, p);
      }));
  s.push_back(string_opt("csr_organization",
                         "Set: a CSR's subject O must equal it (the CSO's name); empty: any O",
                         &Config::csr_organization));
  s.push_back(number_opt("csr_validity_days", "Days an issued charge point certificate is valid",
                         &Config::csr_validity_days, 1, 3650));
  // Plug & Charge: the responder URLs come from charge points, hence the allow list.
  s.push_back(checked_opt("ocsp_responder_hosts",
                          "OCSP responders (host:port, comma-separated) that 2.0.1 Authorize "
                          "with iso15118CertificateHashData and GetCertificateStatus may ask; "
                          "empty: none (no revocation checks)",
                          &Config::ocsp_responder_hosts, [](const std::string& v) {
                            std::vector<std::string> hosts;
                            return csms::parse_ocsp_hosts(v, hosts);
                          }));
  s.push_back(string_opt("ocsp_trust",
                         "PEM certificates OCSP responses must chain to (the V2G and contract "
                         "roots); required with ocsp_responder_hosts",
                         &Config::ocsp_trust));
  s.push_back(string_opt("ev_certificate_command",
                         "Command that answers Get15118EVCertificate (the contract certificate "
                         "pool's client): run with /bin/sh -c, the base64 exiRequest on stdin, "
                         "OCPPGW_CHARGE_POINT_ID, OCPPGW_15118_ACTION and "
                         "OCPPGW_15118_SCHEMA_VERSION set; prints the base64 exiResponse, exits "
                         "0, within 10 s. Empty: answered Failed (NoContractBackend)",
                         &Config::ev_certificate_command));
}

// Where and how the HTTP API (REST, probes, /metrics) is served.
void add_web_options(std::vector<OptionSpec>& s) {
  s.push_back(host_port_opt("web_listen",
                            "Address and port of the HTTP API's own listener; set: the API (REST, "
                            "probes, /metrics) is served only there and the charge point listeners "
                            "answer WebSocket upgrades only; empty or off: the API shares them",
                            &Config::web_listen_address, &Config::web_port));
  s.push_back(string_opt("web_tls_cert",
                         "PEM server certificate (chain); set with web_tls_key: web_listen "
                         "serves HTTPS",
                         &Config::web_tls_cert));
  s.push_back(string_opt("web_tls_key", "PEM private key of web_tls_cert", &Config::web_tls_key));
  s.push_back(
      {"metrics_require_token",
       "true: /metrics answers logged-in operators (viewer and up) only; false: anyone "
       "(it carries counts, never ids or secrets)",
       [](Config& c, const std::string& v) { return parse_bool(v, c.metrics_require_token); },
       [](const Config& c) { return std::string(c.metrics_require_token ? "true" : "false"); }});
  s.push_back(number_opt("max_streams",
                         "Live streams of the operator page (GET /api/v1/stream) open at once; "
                         "more: 503 (each holds a connection and up to 256 KiB of unsent events)",
                         &Config::max_streams, 0, 100000));
  s.push_back(number_opt("max_http_header_bytes",
                         "Largest HTTP request line and header fields (upgrades and API); larger: "
                         "431 and the connection is closed",
                         &Limits::max_http_header_bytes, size_t{1024}, size_t{1} << 20));
  s.push_back(number_opt("max_http_body_bytes",
                         "Largest HTTP request body (API); larger: 413 and the connection is "
                         "closed",
                         &Limits::max_http_body_bytes, size_t{1024}, size_t{1} << 30));
  s.push_back(number_opt("web_request_timeout",
                         "Seconds web_listen allows to read one request (and a kept-alive "
                         "connection to send the next); then the connection is closed. The "
                         "charge point listeners use handshake_timeout",
                         &Limits::web_request_timeout_s, 1, 3600));
}

// Where events are kept and published.
void add_storage_options(std::vector<OptionSpec>& s) {
  s.push_back(string_opt("data_dir",
                         "Folder of the SQLite event log (ocppgw.db), the analytics store and "
                         "the secret",
                         &Config::data_dir));
  s.push_back(string_opt("analytics_db",
                         "SQLite file of the analytics store (rebuilt from the event log when "
                         "missing); empty: <data_dir>/analytics.db. On another device than "
                         "data_dir, its writes do not delay the acknowledgements",
                         &Config::analytics_db));
  s.push_back(number_opt("analytics_cache_mb",
                         "MiB of SQLite page cache for the analytics store's writer; a larger "
                         "cache adds RSS and little speed (docs/configuration.md)",
                         &Config::analytics_cache_mb, 1, 65536));
  s.push_back(number_opt("analytics_linger_ms",
                         "Milliseconds analytics gathers committed events into one batch: "
                         "longer batches cost less per event, the tables trail the acks by "
                         "about this much (docs/configuration.md)",
                         &Config::analytics_linger_ms, 0, 60000));
  s.push_back(string_opt("kafka_brokers",
                         "Kafka bootstrap servers (comma-separated); empty: events stay in the "
                         "durable outbox until brokers are configured",
                         &Config::kafka_brokers));
  s.push_back(
      string_opt("kafka_topic", "Kafka topic of the canonical events", &Config::kafka_topic));
  s.push_back(string_opt("delta_root",
                         "Folder of the Delta Lake mirror, one Delta table per analytics table; "
                         "empty: <data_dir>/delta",
                         &Config::delta_root));
  s.push_back(number_opt("delta_interval",
                         "Seconds between Delta mirror cycles; 0: only on `ocppgw delta sync`",
                         &Config::delta_interval_s, 0, 86400));
  s.push_back(number_opt("delta_log_retention_hours",
                         "Hours of Delta history kept readable (time travel); older log files "
                         "are deleted after checkpoints",
                         &Config::delta_log_retention_h, 1, 24 * 3650));
  s.push_back(number_opt("delta_file_retention_hours",
                         "Hours a data file removed from a Delta table is kept before vacuum "
                         "deletes it",
                         &Config::delta_file_retention_h, 1, 24 * 3650));
  s.push_back(number_opt("delta_vacuum_interval_hours",
                         "Hours between the mirror's vacuums of its Delta tables; 0: only "
                         "`ocppgw delta vacuum`",
                         &Config::delta_vacuum_interval_h, 0, 24 * 365));
}

// The heartbeat interval handed out at boot, and how strictly frames are checked, globally and
// per charge point.
void add_protocol_options(std::vector<OptionSpec>& s) {
  s.push_back(number_opt("csms_call_timeout",
                         "Seconds a CSMS->charge point call (REST API) waits for its answer",
                         &Config::csms_call_timeout_s, 1, 3600));
  s.push_back(number_opt("heartbeat_interval", "Heartbeat interval (s) sent in BootNotification",
                         &Config::heartbeat_interval_s, 1, 86400));
  s.push_back({"validation_mode",
               "Default schema validation: strict (violation -> CALLERROR) or lenient (answer "
               "when possible, record the violations on the event)",
               [](Config& c, const std::string& v) -> std::string {
                 auto m = parse_mode(trim(v));
                 if (!m) return "'" + v + "' is not strict or lenient";
                 c.validation_mode = *m;
                 return {};
               },
               [](const Config& c) {
                 return std::string(c.validation_mode == ValidationMode::Strict ? "strict"
                                                                                : "lenient");
               }});
  for (auto [key, mode] : {std::pair{"lenient_charge_points", ValidationMode::Lenient},
                           std::pair{"strict_charge_points", ValidationMode::Strict}}) {
    s.push_back({key,
                 std::string("Comma-separated charge point ids validated ") +
                     (mode == ValidationMode::Lenient ? "leniently" : "strictly") +
                     " whatever the default",
                 [mode](Config& c, const std::string& v) {
                   for (const auto& id : split_list(v)) c.charge_points[id].validation = mode;
                   return std::string();
                 },
                 [](const Config&) { return std::string(); }});
  }
}

// Which OCPP versions are offered, globally and per charge point.
void add_subprotocol_options(std::vector<OptionSpec>& s) {
  s.push_back({"subprotocols",
               "Accepted OCPP subprotocols in server preference order (comma-separated)",
               [](Config& c, const std::string& v) -> std::string {
                 std::vector<OcppVersion> out;
                 for (const auto& name : split_list(v)) {
                   auto p = parse_subprotocol(name);
                   if (!p) return "'" + name + "' is not ocpp1.6 or ocpp2.0.1";
                   out.push_back(*p);
                 }
                 if (out.empty()) return "at least one subprotocol is required";
                 c.subprotocols = out;
                 return {};
               },
               [](const Config& c) {
                 std::string out;
                 for (auto v : c.subprotocols)
                   out += (out.empty() ? "" : ",") + std::string(rpc::subprotocol(v));
                 return out;
               }});
  s.push_back({"subprotocol_pins",
               "Comma-separated <chargePointId>=<subprotocol> pins: that charge point may only "
               "use that version",
               [](Config& c, const std::string& v) -> std::string {
                 for (const auto& item : split_list(v)) {
                   const auto eq = item.rfind('=');
                   if (eq == std::string::npos) return "'" + item + "' is not id=subprotocol";
                   auto p = parse_subprotocol(trim(item.substr(eq + 1)));
                   if (!p) return "'" + item + "': unknown subprotocol";
                   c.charge_points[trim(item.substr(0, eq))].subprotocol = *p;
                 }
                 return {};
               },
               [](const Config&) { return std::string(); }});
}

// Answers for unknown charge points and tokens, and the ids this node hands out.
void add_identity_options(std::vector<OptionSpec>& s) {
  s.push_back(choice_opt("unknown_charge_points",
                         "BootNotification answer for a charge point never seen before",
                         &Config::unknown_charge_points, {"Accepted", "Pending", "Rejected"}));
  s.push_back(choice_opt("unknown_tokens", "Authorization status of an id token not in the store",
                         &Config::unknown_tokens, {"Accepted", "Invalid"}));
  s.push_back(number_opt("node_index",
                         "This node's index; transaction ids are n * node_stride + node_index",
                         &Config::node_index, 0, 1 << 20));
  s.push_back(number_opt("node_stride", "Number of gateway nodes sharing the id space",
                         &Config::node_stride, 1, 1 << 20));
  s.push_back(string_opt("id_token_secret",
                         "HMAC key for id token hashes; empty: a random one is generated and kept "
                         "in <data_dir>/id_token_secret (prefer the environment over the file)",
                         &Config::id_token_secret));
  s.push_back(number_opt("api_session_ttl",
                         "Seconds a REST API login (bearer token, session cookie) stays valid",
                         &Config::api_session_ttl_s, 60, 30 * 86400));
}

// Threads and per-connection limits that protect the gateway from one noisy peer.
void add_limit_options(std::vector<OptionSpec>& s) {
  s.push_back(number_opt("threads", "I/O threads (and as many handshake threads); 0: one per core",
                         &Config::threads, 0, 1024));
  s.push_back(number_opt("max_frame_bytes",
                         "Largest text frame accepted; a larger one closes the connection (1009)",
                         &Limits::max_frame_bytes, size_t{256}, size_t{1} << 30));
  s.push_back(number_opt("max_call_bytes",
                         "Largest CALL of an action not in large_call_actions; a larger one is "
                         "answered with CALLERROR GenericError and recorded as Invalid",
                         &Limits::max_call_bytes, size_t{256}, size_t{1} << 30));
  s.push_back({"large_call_actions",
               "Comma-separated actions that carry bulk data and may use up to max_frame_bytes",
               [](Config& c, const std::string& v) {
                 c.limits.large_call_actions = split_list(v);
                 return std::string();
               },
               [](const Config& c) {
                 std::string out;
                 for (const auto& a : c.limits.large_call_actions)
                   out += (out.empty() ? "" : ",") + a;
                 return out;
               }});
  s.push_back(number_opt("max_bytes_per_second",
                         "Bytes per second read from one connection (a burst of max_frame_bytes "
                         "is allowed); faster senders are slowed down, never dropped; 0: unlimited",
                         &Limits::max_bytes_per_s, 0.0, 1e12));
  s.push_back(number_opt("max_outbound_bytes",
                         "Replies and calls queued for one connection that does not read them; "
                         "beyond this the connection is closed",
                         &Limits::max_outbound_bytes, size_t{64 * 1024}, size_t{1} << 40));
  s.push_back(number_opt("max_queued_calls",
                         "CSMS->charge point calls waiting behind the outstanding one, per "
                         "connection; more are refused (HTTP 429)",
                         &Limits::max_queued_calls, size_t{1}, size_t{1} << 16));
  s.push_back(number_opt("max_connections",
                         "Connections served at once over all listeners; 0: the open-file limit "
                         "minus a reserve for the gateway's own files",
                         &Limits::max_connections, 0, 1 << 24));
  s.push_back(number_opt("min_free_disk_bytes",
                         "Free space the data folder's file system keeps: below it the heaviest "
                         "writers are paused first, below half of it every connection; 0: off",
                         &Limits::min_free_disk_bytes, uint64_t{0}, uint64_t{1} << 60));
  s.push_back(number_opt("max_events_per_frame",
                         "Most events one CALL may produce (e.g. MeterValues entries); a larger "
                         "CALL is answered with OccurrenceConstraintViolation",
                         &Limits::max_events_per_frame, size_t{1}, size_t{1} << 20));
  s.push_back(number_opt("handshake_timeout", "Seconds allowed for the HTTP upgrade and handshake",
                         &Limits::handshake_timeout_s, 1, 3600));
  s.push_back(number_opt("idle_timeout",
                         "Seconds without any frame (pongs count) before a connection is closed",
                         &Limits::idle_timeout_s, 2, 86400));
  s.push_back(
      {"keepalive_pings", "Send a WebSocket ping after half the idle timeout of silence",
       [](Config& c, const std::string& v) { return parse_bool(v, c.limits.keepalive_pings); },
       [](const Config& c) { return std::string(c.limits.keepalive_pings ? "true" : "false"); }});
  s.push_back(number_opt("max_connections_per_address",
                         "Concurrent connections allowed from one remote address; 0: unlimited",
                         &Limits::max_connections_per_address, 0, 1 << 24));
  s.push_back(number_opt("max_messages_per_second",
                         "Frames per second read from one connection; faster senders are slowed "
                         "down (never dropped); 0: unlimited",
                         &Limits::max_messages_per_s, 0.0, 1e9));
  s.push_back(number_opt("max_inflight_per_connection",
                         "Frames of one connection awaiting commit before reading pauses",
                         &Limits::max_inflight_per_connection, size_t{1}, size_t{1} << 16));
}

// What is logged and how.
void add_logging_options(std::vector<OptionSpec>& s) {
  s.push_back(choice_opt("log_level", "Log level", &Config::log_level,
                         {"trace", "debug", "info", "warn", "error", "critical", "off"}));
  s.push_back(choice_opt("log_format", "Log line format", &Config::log_format, {"text", "json"}));
}

// Options appear in --help, the TOML file and the environment in this order.
std::vector<OptionSpec> make_specs() {
  std::vector<OptionSpec> s;
  add_listener_options(s);
  add_certificate_options(s);
  add_web_options(s);
  add_storage_options(s);
  add_protocol_options(s);
  add_subprotocol_options(s);
  add_identity_options(s);
  add_limit_options(s);
  add_logging_options(s);
  return s;
}

}  // namespace

const std::vector<OptionSpec>& option_specs() {
  static const std::vector<OptionSpec> table = make_specs();
  return table;
}

}  // namespace ocppgw::gateway::detail
