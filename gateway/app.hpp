// gateway/app.hpp: the serving process, wired: CSMS state and event sink over the SQLite file,
// the I/O threads, the listener, the session registry, optional components (Kafka publisher,
// analytics, web routes), and the shutdown order that keeps the ack-after-durable promise:
// stop accepting -> close sessions (frames already read are answered) -> the sink commits what
// is in flight (EventSink::stop) -> components stop -> I/O threads end.
// Threading: start(), wait() and the accessors from the main thread; request_stop() from any
// thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <sys/resource.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include "analytics/delta_mirror_worker.hpp"
#include "csms/event_sink.hpp"
#include "csms/sqlite_csms_state.hpp"
#include "gateway/config.hpp"
#include "gateway/disk_guard.hpp"
#include "gateway/services.hpp"
#include "gateway/session_registry.hpp"
#include "gateway/tls.hpp"
#include "util/metrics.hpp"
#include "util/status.hpp"
#include "web/change_feed.hpp"
#include "web/csms_commands.hpp"
#include "web/health.hpp"
#include "web/router.hpp"
#include "web/static_files.hpp"

namespace ocppgw::web {
class ApiAuth;
class LiveStream;
}  // namespace ocppgw::web
namespace ocppgw::analytics {
class LivePipeline;
}

namespace ocppgw::gateway {

class ApiBackend;
class App;
class BasicAuthenticator;
class CertificateService;
class ChargePointStateService;
class Listener;
struct OperatorApi;

// Something that lives as long as the serving process. start() runs after the sink exists and
// before the listener accepts (register commit listeners, /health sections and routes there);
// stop() runs after the sink has stopped, in reverse order of registration.
class Component {
 public:
  virtual ~Component() = default;
  virtual util::Status start(App& app) = 0;
  virtual void stop() = 0;
};

class App {
 public:
  explicit App(Config config);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  void add_component(std::unique_ptr<Component> component);  // before start()

  // Opens storage, starts components, I/O threads and the listener. Installs SIGINT/SIGTERM
  // handlers that call request_stop().
  util::Status start();
  // Blocks until request_stop(), then shuts down in order. Returns the exit code.
  int wait();
  void request_stop();

  const Config& config() const { return config_; }
  uint16_t port() const;      // of the plain ws listener (0: off)
  uint16_t tls_port() const;  // of the wss listener (0: off)
  Services& services() { return *services_; }
  csms::EventSink& sink() { return *sink_; }
  SessionRegistry& registry() { return registry_; }
  boost::asio::io_context& io_context() { return ioc_; }
  // Where components add /health sections and HTTP routes (before the listeners start).
  web::Health& health() { return health_; }
  web::Router& router() { return router_; }
  // Where components add the metrics they compute at scrape time (outbox depth, lag); the
  // instruments counted as things happen live in metrics::process_registry(). /metrics renders
  // both.
  metrics::Registry& metrics() { return metrics_; }
  uint16_t web_port() const;  // of the web_listen listener (0: off)
  // Authentication of REST API routes: a route calls api_auth().require(request, role, respond)
  // first (web/api_auth.hpp). Available from start() on, before the components start.
  web::ApiAuth& api_auth();
  // The analytics component announces its pipeline here, for quarantine review from the API.
  void set_live_analytics(analytics::LivePipeline* live) { live_analytics_ = live; }
  // The Delta mirror component announces its worker here, for `POST /api/v1/delta/sync`.
  void set_delta_mirror(analytics::DeltaMirrorWorker* worker) { delta_mirror_ = worker; }
  // What changed, for the operator page's live stream (GET /api/v1/stream): the session
  // registry and the analytics component notify it; thread-safe.
  web::ChangeFeed& change_feed() { return change_feed_; }

 private:
  // Part of start(): the plain and the TLS listener as configured.
  util::Status start_listeners();
  // Part of start(): the bulk pool, the open-file limit and the disk guard.
  void start_guards();
  // Part of start(), once the components run: the connection limiter.
  void limit_connections();
  void add_command_routes();
  // /metrics and the gateway's own scrape-time metrics.
  void add_metrics();
  util::Status add_api_routes();
  void charge_point_changed(const std::string& charge_point_id);
  // GET /api/v1/stream over change_feed_, its /health section; started with the I/O threads.
  void add_live_stream();
  void poll_disk();
  // SIGHUP and a file-change poll reload the listeners' TLS contexts (tls_slots_).
  void watch_tls_files();
  void wait_for_hup();
  void poll_tls_files();
  void reload_tls(const char* trigger, bool only_changed);

  Config config_;
  rpc::Policy policy_;
  boost::asio::io_context ioc_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  std::vector<std::thread> threads_;
  // The listeners' context: accepts, TLS handshakes, upgrade requests and the HTTP API, on as
  // many threads as ioc_ but at a lower priority (start()). A connection moves to ioc_ once
  // upgraded (Services::sessions), so a storm of new connections, or of wrong passwords, takes
  // CPU from the sessions already open only when they leave it idle.
  boost::asio::io_context handshake_ioc_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>>
      handshake_work_;
  std::vector<std::thread> handshake_threads_;
  std::unique_ptr<csms::SqliteCsmsState> state_;
  std::unique_ptr<csms::EventSink> sink_;
  SessionRegistry registry_;
  std::unique_ptr<Services> services_;
  std::unique_ptr<DiskGuard> disk_;
  rlim_t open_file_limit_ = 0;  // the soft RLIMIT_NOFILE after raising it (0: unknown)
  std::unique_ptr<boost::asio::thread_pool> bulk_;    // Services::bulk
  std::unique_ptr<web::CsmsCommands> commands_;       // behind the API's calls route
  std::unique_ptr<CertificateService> certificates_;  // SignCertificate; null: no signer
  std::unique_ptr<ApiBackend> api_backend_;           // behind the read and management routes
  std::unique_ptr<ChargePointStateService> charge_point_state_;  // state views, boot, rotation
  std::atomic<analytics::LivePipeline*> live_analytics_{nullptr};
  std::atomic<analytics::DeltaMirrorWorker*> delta_mirror_{nullptr};
  std::unique_ptr<boost::asio::steady_timer> disk_timer_;
  std::unique_ptr<boost::asio::steady_timer> tls_timer_;
  std::unique_ptr<boost::asio::signal_set> hup_signals_;
  std::vector<std::pair<std::string, std::shared_ptr<TlsContextSlot>>> tls_slots_;  // by listener
  web::Health health_;
  web::StaticFiles static_files_;  // the operator page under /ui/
  web::ChangeFeed change_feed_;
  std::unique_ptr<web::LiveStream> live_stream_;
  web::Router router_;
  metrics::Registry metrics_;
  std::unique_ptr<OperatorApi> operator_api_;          // operators, sessions, audit log; ApiAuth
  std::unique_ptr<BasicAuthenticator> authenticator_;  // when a listener requires HTTP Basic
  std::shared_ptr<Listener> listener_;                 // plain ws
  std::shared_ptr<Listener> tls_listener_;             // wss
  std::shared_ptr<Listener> web_listener_;             // web_listen: the HTTP API alone
  std::vector<std::unique_ptr<Component>> components_;
  size_t started_components_ = 0;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_requested_ = false;
};

// The Kafka publisher as a Component (drains the outbox; idle without brokers).
std::unique_ptr<Component> make_kafka_component();
// The in-process analytics pipeline (analytics::LivePipeline on <data_dir>/analytics.db).
std::unique_ptr<Component> make_analytics_component();
// The Delta Lake mirror (analytics/delta_mirror.hpp), when delta_interval > 0.
std::unique_ptr<Component> make_delta_mirror_component();
// The mirror's settings from the configuration (the gateway's worker and `ocppgw delta` share
// them).
analytics::DeltaMirrorOptions delta_mirror_options(const Config& config);

}  // namespace ocppgw::gateway
