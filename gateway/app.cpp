// gateway/app.cpp
#include "gateway/app.hpp"

#include <cctype>
#include <chrono>
#include <filesystem>

#include <sys/resource.h>
#include <unistd.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/signal_set.hpp>

#include "analytics/live_pipeline.hpp"
#include "csms/sqlite_event_sink.hpp"
#include "gateway/api_backend.hpp"
#include "gateway/auth.hpp"
#include "gateway/certificate_service.hpp"
#include "gateway/certificate_signer.hpp"
#include "gateway/change_notifier.hpp"
#include "gateway/charge_point_state.hpp"
#include "gateway/command_runner.hpp"
#include "gateway/csms_commands.hpp"
#include "gateway/http_session.hpp"
#include "gateway/listener.hpp"
#include "gateway/operator_directory.hpp"
#include "gateway/thread_priority.hpp"
#include "gateway/tls.hpp"
#include "gateway/ws_session.hpp"
#include "ocpp16/protocol.hpp"
#include "ocpp201/protocol.hpp"
#include "rpc/frame_metrics.hpp"
#include "util/logging.hpp"
#include "util/thread_name.hpp"
#include "web/live_stream.hpp"
#include "web/metrics.hpp"
#include "web/openapi.hpp"

namespace ocppgw::gateway {
namespace {

namespace net = boost::asio;
using util::Status;

// How long shutdown waits for sessions to answer what they have read and close.
constexpr auto kSessionCloseGrace = std::chrono::seconds(5);
// Descriptors kept for the gateway's own files and sockets (SQLite databases and journals,
// Kafka brokers, log files) when max_connections is derived from the open-file limit.
constexpr rlim_t kReservedDescriptors = 256;

// Every connection is a descriptor, so the soft limit (often 1024) caps the fleet long before
// memory does. Raises it to the hard limit and returns the soft limit in force (0: unknown).
rlim_t raise_open_file_limit() {
  struct rlimit lim {};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return 0;
  const rlim_t before = lim.rlim_cur;
  if (lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &lim) != 0) lim.rlim_cur = before;
  }
  log::info("open_file_limit", "",
            {{"soft_at_start", std::to_string(before)},
             {"hard", lim.rlim_max == RLIM_INFINITY ? "unlimited" : std::to_string(lim.rlim_max)},
             {"soft_now", std::to_string(lim.rlim_cur)}});
  return lim.rlim_cur == RLIM_INFINITY ? 0 : lim.rlim_cur;
}

// Descriptors this process holds now, or 0 when /proc cannot tell.
rlim_t open_descriptors() {
  std::error_code ec;
  rlim_t n = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec))
    ++n;
  return ec ? 0 : n;
}

// The configured total, else what the descriptors allow: the soft limit less those the gateway
// holds once its components run (each SQLite connection in WAL mode holds two or three, and
// there are several per database) and less a reserve for what it opens later (Kafka sockets,
// Delta files, read connections opened on first use, the sockets of refused clients): a quarter
// of what is left, at most kReservedDescriptors, so that a tiny limit still leaves room for both.
int max_connections(const Limits& limits, rlim_t open_files, rlim_t in_use) {
  if (limits.max_connections > 0 || open_files == 0) return limits.max_connections;
  if (in_use >= open_files) return 1;
  const rlim_t left = open_files - in_use;
  const rlim_t reserve = std::min(kReservedDescriptors, left / 4);
  return static_cast<int>(std::min<rlim_t>(left - reserve, 1 << 24));
}

}  // namespace

static int io_threads(const Config& c) {
  return c.threads > 0 ? c.threads
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

App::App(Config config)
    : config_(std::move(config)), ioc_(io_threads(config_)), handshake_ioc_(io_threads(config_)) {}

App::~App() {
  if (work_ || !threads_.empty()) {
    request_stop();
    wait();
  }
}

void App::add_component(std::unique_ptr<Component> component) {
  components_.push_back(std::move(component));
}

web::ApiAuth& App::api_auth() { return *operator_api_->auth; }

uint16_t App::port() const { return listener_ ? listener_->port() : 0; }
uint16_t App::tls_port() const { return tls_listener_ ? tls_listener_->port() : 0; }
uint16_t App::web_port() const { return web_listener_ ? web_listener_->port() : 0; }

Status App::start() {
  std::error_code fs_ec;
  std::filesystem::create_directories(config_.data_dir, fs_ec);
  if (fs_ec)
    return Status::error("cannot create data dir " + config_.data_dir + ": " + fs_ec.message());
  if (const auto folder = std::filesystem::path(config_.analytics_db_path()).parent_path();
      !folder.empty()) {
    std::filesystem::create_directories(folder, fs_ec);
    if (fs_ec)
      return Status::error("cannot create the folder of analytics_db " + folder.string() + ": " +
                           fs_ec.message());
  }

  bool generated = false;
  Status status;
  const auto secret = id_token_secret(config_, &generated, &status);
  if (!secret) return status;
  if (config_.id_token_secret.empty())
    log::warn(generated ? "id_token_secret_generated" : "id_token_secret_from_data_dir", "",
              {{"path", config_.data_dir + "/id_token_secret"},
               {"hint", "set OCPPGW_ID_TOKEN_SECRET (the same on every node) in production"}});
  policy_.heartbeat_interval_s = config_.heartbeat_interval_s;
  policy_.id_token_secret = *secret;
  policy_.gateway_node = "node-" + std::to_string(config_.node_index);
  policy_.max_events_per_frame = config_.limits.max_events_per_frame;
  policy_.max_call_bytes = config_.limits.max_call_bytes;
  policy_.large_call_actions = config_.limits.large_call_actions;

  csms::CsmsPolicy csms;
  csms.unknown_charge_point =
      config_.unknown_charge_points == "Pending"    ? csms::UnknownChargePoint::Pending
      : config_.unknown_charge_points == "Rejected" ? csms::UnknownChargePoint::Reject
                                                    : csms::UnknownChargePoint::Accept;
  csms.unknown_id_token = config_.unknown_tokens == "Accepted" ? csms::UnknownIdToken::Accept
                                                               : csms::UnknownIdToken::Invalid;
  csms.heartbeat_interval_s = config_.heartbeat_interval_s;
  csms.node_index = config_.node_index;
  csms.stride = config_.node_stride;
  csms.id_token_secret = *secret;
  csms.csr.organization = config_.csr_organization;
  csms::parse_csr_key_types(config_.csr_key_types, csms.csr);  // checked by the config
  auto signer = make_certificate_signer(config_, &status);
  if (!signer && !status.ok()) return status;
  csms.csr.signer_configured = signer != nullptr;
  if (!config_.ocsp_responder_hosts.empty()) {
    csms::OcspPolicy ocsp;
    csms::parse_ocsp_hosts(config_.ocsp_responder_hosts, ocsp.allowed_hosts);  // checked
    ocsp.trust_file = config_.ocsp_trust;
    csms.ocsp = csms::OcspClient::open(std::move(ocsp), &status);
    if (!csms.ocsp) return status;
  }
  if (!config_.ev_certificate_command.empty())
    csms.ev_certificate_backend = [command = config_.ev_certificate_command](
                                      const std::string& charge_point_id,
                                      const rpc::EvCertificateRequest& req) {
      // Blocks the charge point's strand: the answer must carry the backend's response.
      const CommandResult r = run_command(
          command, req.exi_request,
          {"OCPPGW_CHARGE_POINT_ID=" + charge_point_id, "OCPPGW_15118_ACTION=" + req.action,
           "OCPPGW_15118_SCHEMA_VERSION=" + req.schema_version},
          std::chrono::seconds(10));
      std::string answer = r.out;
      while (!answer.empty() && std::isspace(static_cast<unsigned char>(answer.back())))
        answer.pop_back();
      if (!r.ok())
        return rpc::EvCertificateResult{
            false, {}, "BackendFailed", "ev_certificate_command " + r.failure()};
      if (answer.empty())
        return rpc::EvCertificateResult{
            false, {}, "BackendFailed", "ev_certificate_command printed no exiResponse"};
      return rpc::EvCertificateResult{true, std::move(answer), {}, {}};
    };

  state_ = csms::SqliteCsmsState::open(config_.db_path(), csms, &status);
  if (!state_) return Status::error("opening " + config_.db_path() + ": " + status.message());
  csms::SqliteSinkOptions sink_options;
  sink_options.db_path = config_.db_path();
  sink_ = csms::make_sqlite_event_sink(sink_options, &status);
  if (!sink_) return Status::error("starting the event sink: " + status.message());

  services_ = std::make_unique<Services>(
      Services{config_,
               policy_,
               *state_,
               *sink_,
               registry_,
               {&ocpp16::protocol(), &ocpp201::protocol()},
               router_.handler(),
               [state = state_.get()](std::string_view cp) { return state->validation_mode(cp); },
               [state = state_.get()](std::string_view cp) { return state->security_profile(cp); },
               nullptr,
               nullptr});
  services_->sessions = &ioc_;
  // Every frame counter is listed on /metrics (at 0) before the first charge point connects.
  for (const auto* protocol : services_->protocols) rpc::FrameMetrics::of(*protocol);
  start_guards();
  health_.add_routes(router_);
  static_files_.add_routes(router_);
  operator_api_ = start_operator_api(config_, router_, &status);
  if (!operator_api_) return status;
  add_command_routes();
  if (signer) {
    certificates_ = std::make_unique<CertificateService>(std::move(signer), *commands_);
    services_->certificates = certificates_.get();
  }
  web::add_openapi_route(router_, api_auth());
  add_metrics();
  if (auto s = add_api_routes(); !s.ok()) return s;
  auto cp_state = ChargePointStateService::open(config_.db_path(), *state_, *sink_, *commands_,
                                                registry_, &status);
  if (!cp_state) return Status::error("opening the charge point state: " + status.message());
  charge_point_state_ = std::move(cp_state);
  web::add_charge_point_state_routes(router_, *charge_point_state_, api_auth());
  add_live_stream();

  for (auto& c : components_) {
    if (auto s = c->start(*this); !s.ok()) return s;
    ++started_components_;
  }

  limit_connections();
  add_health_sections(health_, *services_);
  if (auto s = start_listeners(); !s.ok()) return s;

  auto signals = std::make_shared<net::signal_set>(ioc_, SIGINT, SIGTERM);
  signals->async_wait([this, signals](boost::system::error_code e, int signo) {
    if (e) return;
    log::info("signal", "", {{"signal", signo == SIGTERM ? "SIGTERM" : "SIGINT"}});
    request_stop();
  });
  watch_tls_files();

  work_.emplace(ioc_.get_executor());
  handshake_work_.emplace(handshake_ioc_.get_executor());
  live_stream_->start();
  const int n = io_threads(config_);
  for (int i = 0; i < n; ++i) {
    threads_.emplace_back([this] {
      util::name_this_thread("ocppgw-io");
      ioc_.run();
    });
    handshake_threads_.emplace_back([this] {
      util::name_this_thread("ocppgw-hshake");
      lower_this_thread_priority();
      handshake_ioc_.run();
    });
  }

  std::string subprotocols;
  for (auto v : config_.subprotocols)
    subprotocols += (subprotocols.empty() ? "" : ",") + std::string(rpc::subprotocol(v));
  auto announce = [&](const Listener& l, const std::string& address, const char* scheme,
                      const char* auth) {
    log::info("listening", "",
              {{"scheme", scheme},
               {"address", address},
               {"port", std::to_string(l.port())},
               {"auth", auth},
               {"path", config_.path_prefix + "/{chargePointId}"},
               {"subprotocols", subprotocols},
               {"db", config_.db_path()},
               {"threads", std::to_string(n)}});
  };
  if (listener_)
    announce(*listener_, config_.listen_address, "ws",
             config_.basic_auth ? "basic (profile 1)" : "none");
  if (tls_listener_)
    announce(*tls_listener_, config_.tls_listen_address, "wss",
             !config_.tls_client_ca.empty()
                 ? (config_.tls_basic_auth ? "client certificate + basic (profile 3)"
                                           : "client certificate (profile 3)")
             : config_.tls_basic_auth ? "basic (profile 2)"
                                      : "none (TLS only)");
  if (web_listener_)
    log::info("listening", "",
              {{"scheme", config_.web_tls_cert.empty() ? "http" : "https"},
               {"address", config_.web_listen_address},
               {"port", std::to_string(web_listener_->port())},
               {"serves", "the HTTP API only (web_listen)"}});
  return {};
}

// POST /api/v1/charge-points/{id}/calls/{action}: operators only, every call audited.
void App::add_command_routes() {
  // The limits the charge point reported (charge_point_state_ is opened right after this).
  commands_ = std::make_unique<SessionCommands>(
      registry_, std::chrono::seconds(config_.csms_call_timeout_s),
      [this](const std::string& cp, std::string_view action) {
        return charge_point_state_ ? charge_point_state_->message_limits(cp, action)
                                   : csms::MessageLimits{};
      });
  web::ApiAuth& auth = api_auth();
  web::add_command_routes(
      router_, *commands_,
      [&auth](const web::HttpRequest& request, const web::HttpRespond& respond) {
        return auth.require(request, web::Role::Operator, respond);
      },
      [&auth](const web::Principal& who, const std::string& charge_point_id,
              const std::string& action, const web::CommandOutcome& outcome,
              std::function<void()> then) {
        const std::string result(web::outcome_name(outcome.kind));
        auth.audit(who, "call." + action, charge_point_id, {{"result", result}},
                   outcome.kind == web::CommandOutcome::Kind::Result ? "ok" : result,
                   std::move(then));
      });
}

void App::add_metrics() {
  web::MetricsGuard guard;
  if (config_.metrics_require_token)
    guard = [&auth = api_auth()](const web::HttpRequest& request, const web::HttpRespond& respond) {
      return auth.require(request, web::Role::Viewer, respond).has_value();
    };
  web::add_metrics_route(router_, {&metrics::process_registry(), &metrics_}, std::move(guard));
  metrics_.add_collected(
      "ocppgw_event_log_writable",
      "1 while the event log accepts writes (what /readyz reports), else 0.", metrics::Type::Gauge,
      {}, [this] {
        return std::vector<metrics::Sample>{{{}, health_.failing().empty() ? 1.0 : 0.0}};
      });
}

// An operator registered, removed or re-profiled a charge point through the API: the CSMS state
// reads its row again, and a live connection that no longer qualifies is closed (removed: it
// reconnects as an unknown charge point; a higher profile: it must come back with it).
void App::charge_point_changed(const std::string& charge_point_id) {
  state_->reload_charge_point(charge_point_id);
  change_feed_.charge_point(charge_point_id);  // the page shows registration and profile
  auto session = registry_.find(charge_point_id);
  if (!session) return;
  const auto known = state_->charge_point(charge_point_id);
  const auto assigned = known ? known->security_profile : std::nullopt;
  std::string reason;
  if (!known)
    reason = "removed by an operator";
  else if (assigned && session->info().security_profile < *assigned)
    reason = "security profile " + std::to_string(*assigned) + " required";
  if (reason.empty()) return;
  log::info("charge_point_disconnected_by_operator", charge_point_id, {{"reason", reason}});
  session->close_async(boost::beast::websocket::close_code::policy_error, reason);
}

// The read and management routes (viewer reads; operator tokens; admin passwords), over one
// ApiBackend: analytics read models, the session registry and the gateway database.
Status App::add_api_routes() {
  Status status;
  api_backend_ = ApiBackend::open(
      {config_.db_path(), config_.analytics_db_path(), policy_.id_token_secret, &registry_,
       [this] {
         bool healthy = true;
         return health_.report(&healthy);
       },
       [this](const std::function<void(analytics::Pipeline&)>& task) {
         auto* live = live_analytics_.load();
         if (!live || !live->with_pipeline(task)) return false;
         // A quarantine repair, discard or replay (the only tasks): quality numbers change, and
         // a replay may add sessions and statuses of any charge point.
         change_feed_.everything();
         return true;
       },
       [this](const std::string& cp) { charge_point_changed(cp); },
       [this](Status* s) {
         // The running mirror's worker (its health and metrics record the cycle), or a cycle
         // of its own when the mirror does not run on a timer (delta_interval = 0).
         if (auto* worker = delta_mirror_.load()) return worker->run_now(s);
         return analytics::DeltaMirror(delta_mirror_options(config_)).run_cycle(s);
       }},
      &status);
  if (!api_backend_) return Status::error("opening the API's database: " + status.message());
  web::add_read_routes(router_, api_auth(), *api_backend_);
  web::add_management_routes(router_, api_auth(), *api_backend_);
  return {};
}

void App::add_live_stream() {
  registry_.set_observer([feed = &change_feed_](std::string_view id) { feed->charge_point(id); });
  web::LiveStream::Options options;
  options.max_streams = static_cast<size_t>(config_.max_streams);
  live_stream_ = std::make_unique<web::LiveStream>(
      ioc_.get_executor(), change_feed_,
      [this] {
        bool healthy = true;
        return health_.report(&healthy);
      },
      options);
  live_stream_->add_route(router_, [&auth = api_auth()](const web::HttpRequest& request,
                                                        const web::HttpRespond& respond) {
    return auth.require(request, web::Role::Viewer, respond);
  });
  health_.add({"streams", [s = live_stream_.get()] { return s->report(); }, {}});
}

void App::start_guards() {
  // One thread at a lower priority than the I/O threads for large frames (WsSession): under
  // contention the scheduler favours the connections that send ordinary frames.
  bulk_ = std::make_unique<net::thread_pool>(1);
  lower_priority(*bulk_, 1);
  services_->bulk = bulk_.get();

  // Raised first, so the components' own files count against the raised limit.
  open_file_limit_ = raise_open_file_limit();
  if (config_.limits.min_free_disk_bytes == 0) return;
  disk_ = std::make_unique<DiskGuard>(config_.data_dir, config_.limits.min_free_disk_bytes);
  services_->disk = disk_.get();
  disk_timer_ = std::make_unique<net::steady_timer>(ioc_);
  poll_disk();
}

// After the components started, so that the descriptors they hold are counted.
void App::limit_connections() {
  const rlim_t in_use = open_descriptors();
  const int max = max_connections(config_.limits, open_file_limit_, in_use);
  services_->connections =
      std::make_shared<ConnectionLimiter>(max, config_.limits.max_connections_per_address);
  log::info("connection_limits", "",
            {{"max_connections", max > 0 ? std::to_string(max) : "unlimited"},
             {"descriptors_in_use", std::to_string(in_use)},
             {"max_connections_per_address",
              config_.limits.max_connections_per_address > 0
                  ? std::to_string(config_.limits.max_connections_per_address)
                  : "unlimited"}});
}

// Once a second on an I/O thread: one statvfs call.
void App::poll_disk() {
  disk_->poll();
  disk_timer_->expires_after(std::chrono::seconds(1));
  disk_timer_->async_wait([this](boost::system::error_code ec) {
    if (!ec) poll_disk();
  });
}

Status App::start_listeners() {
  if (config_.basic_auth || config_.tls_basic_auth) {
    BasicAuthenticator::Options options;
    options.threads = BasicAuthenticator::default_threads(io_threads(config_),
                                                          std::thread::hardware_concurrency());
    Status status;
    authenticator_ = BasicAuthenticator::open(config_.db_path(), options, &status);
    if (!authenticator_)
      return Status::error("opening " + config_.db_path() + " for passwords: " + status.message());
  }
  auto make = [&](const std::string& host, uint16_t port, std::shared_ptr<ListenerSecurity> sec,
                  std::shared_ptr<Listener>* out) -> Status {
    boost::system::error_code ec;
    const auto address = net::ip::make_address(host, ec);
    if (ec) return Status::error("bad " + sec->scheme + " listen address " + host);
    *out = std::make_shared<Listener>(handshake_ioc_, net::ip::tcp::endpoint(address, port),
                                      *services_, ec, std::move(sec));
    if (ec)
      return Status::error("cannot listen on " + host + ":" + std::to_string(port) + ": " +
                           ec.message());
    (*out)->run();
    return {};
  };
  // With web_listen the API leaves the charge point listeners (ListenerSecurity::serves_api).
  const bool shared_api = !config_.web_listener_enabled();
  if (config_.plain_enabled()) {
    auto sec = std::make_shared<ListenerSecurity>();
    sec->scheme = "ws";
    sec->serves_api = shared_api;
    if (config_.basic_auth) sec->basic_auth = authenticator_.get();
    if (auto s = make(config_.listen_address, config_.port, sec, &listener_); !s.ok()) return s;
  }
  if (config_.tls_enabled()) {
    auto sec = std::make_shared<ListenerSecurity>();
    sec->scheme = "wss";
    sec->serves_api = shared_api;
    std::string error;
    sec->tls = TlsContextSlot::make({config_.tls_cert, config_.tls_key, config_.tls_client_ca,
                                     config_.tls_extra_cert, config_.tls_extra_key},
                                    &error);
    if (!sec->tls) return Status::error(error);
    tls_slots_.push_back({"tls_listen", sec->tls});
    sec->client_certificates = !config_.tls_client_ca.empty();
    if (config_.tls_basic_auth) sec->basic_auth = authenticator_.get();
    if (auto s = make(config_.tls_listen_address, config_.tls_port, sec, &tls_listener_); !s.ok())
      return s;
  }
  if (config_.web_listener_enabled()) {
    auto sec = std::make_shared<ListenerSecurity>();
    sec->serves_charge_points = false;
    sec->scheme = config_.web_tls_cert.empty() ? "http" : "https";
    if (!config_.web_tls_cert.empty()) {
      std::string error;
      sec->tls =
          TlsContextSlot::make({config_.web_tls_cert, config_.web_tls_key, "", "", ""}, &error);
      if (!sec->tls) return Status::error("web_listen: " + error);
      tls_slots_.push_back({"web_listen", sec->tls});
    }
    if (auto s = make(config_.web_listen_address, config_.web_port, sec, &web_listener_); !s.ok())
      return s;
  }
  return {};
}

// TLS certificates, keys and client CAs are re-read on SIGHUP and when a file's modification
// time changes (checked every 10 s: certificate renewal tools replace files without telling
// anyone). New connections get the new context; open ones keep theirs; a file that does not
// load is logged and changes nothing.
void App::watch_tls_files() {
  if (tls_slots_.empty()) return;
  hup_signals_ = std::make_unique<net::signal_set>(ioc_, SIGHUP);
  wait_for_hup();
  tls_timer_ = std::make_unique<net::steady_timer>(ioc_);
  poll_tls_files();
}

void App::wait_for_hup() {
  hup_signals_->async_wait([this](boost::system::error_code e, int) {
    if (e) return;
    reload_tls("SIGHUP", false);
    wait_for_hup();
  });
}

void App::poll_tls_files() {
  tls_timer_->expires_after(std::chrono::seconds(10));
  tls_timer_->async_wait([this](boost::system::error_code e) {
    if (e) return;
    reload_tls("file changed", true);
    poll_tls_files();
  });
}

void App::reload_tls(const char* trigger, bool only_changed) {
  for (const auto& [listener, slot] : tls_slots_) {
    if (only_changed && !slot->files_changed()) continue;
    if (std::string error = slot->reload(); !error.empty())
      log::error("tls_reload_failed", "",
                 {{"listener", listener},
                  {"trigger", trigger},
                  {"error", error},
                  {"kept", "the previous certificate stays in use"}});
    else
      log::info("tls_reloaded", "",
                {{"listener", listener}, {"trigger", trigger}, {"certificates", slot->describe()}});
  }
}

void App::request_stop() {
  std::lock_guard lock(mu_);
  stop_requested_ = true;
  cv_.notify_all();
}

int App::wait() {
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return stop_requested_; });
  }
  if (!work_ && threads_.empty()) return 0;
  log::info("shutdown", "",
            {{"phase", "closing sessions"}, {"sessions", std::to_string(registry_.size())}});
  if (listener_) listener_->stop();
  if (tls_listener_) tls_listener_->stop();
  if (web_listener_) web_listener_->stop();
  if (live_stream_) live_stream_->stop();  // an open stream would never end by itself
  for (const auto& s : registry_.sessions())
    s->close_async(boost::beast::websocket::close_code::going_away, "server shutting down");
  const auto deadline = std::chrono::steady_clock::now() + kSessionCloseGrace;
  while (registry_.size() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  // Handshakes still in progress are dropped with their connections: nothing they would do
  // (an upgrade, a refusal event) is wanted after this point.
  handshake_work_.reset();
  handshake_ioc_.stop();
  for (auto& t : handshake_threads_) t.join();
  handshake_threads_.clear();
  if (disk_timer_) disk_timer_->cancel();
  if (tls_timer_) tls_timer_->cancel();
  if (hup_signals_) hup_signals_->cancel();
  if (sink_) sink_->stop();  // commits everything submitted, incl. the disconnect events
  for (size_t i = started_components_; i-- > 0;) components_[i]->stop();
  started_components_ = 0;
  work_.reset();
  ioc_.stop();
  for (auto& t : threads_) t.join();
  threads_.clear();
  if (bulk_) bulk_->join();  // what it still runs posts to the stopped I/O context: dropped
  if (authenticator_) authenticator_->stop();  // no session can ask it anything any more
  if (operator_api_) operator_api_->auth->stop();
  const bool healthy = !sink_ || sink_->healthy();
  log::info("shutdown", "", {{"phase", "done"}, {"sink_healthy", healthy ? "true" : "false"}});
  spdlog::default_logger()->flush();
  return healthy ? 0 : 1;
}

}  // namespace ocppgw::gateway
