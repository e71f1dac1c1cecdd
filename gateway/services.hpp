// gateway/services.hpp: what the listener and every session share, wired once by gateway/app.
// Plain references to long-lived objects; the struct itself is immutable after start-up, so
// sessions on any thread read it without locks (each referenced object documents its own
// thread-safety).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>

#include "csms/event_sink.hpp"
#include "gateway/config.hpp"
#include "rpc/action.hpp"
#include "web/http.hpp"

namespace ocppgw::gateway {

class CertificateService;
class ConnectionLimiter;
class DiskGuard;
class SessionRegistry;

namespace http = boost::beast::http;
using web::HttpRequest;
using web::HttpResponse;

struct Services {
  const Config& config;
  const rpc::Policy& policy;
  rpc::CsmsState& state;
  csms::EventSink& sink;
  SessionRegistry& registry;
  // The protocol implementations this build has (negotiation intersects them with the config).
  std::vector<const rpc::Protocol*> protocols;
  // Every request that is not a charge point's upgrade goes here (web/'s router).
  web::ConnectionHandler http_handler;
  // Validation override stored per charge point (e.g. by an operator); nullopt: config decides.
  std::function<std::optional<rpc::ValidationMode>(std::string_view)> stored_validation;
  // The security profile an operator assigned to a charge point (nullopt: none): a connection
  // that provides less is refused. Null: nothing is assigned anywhere.
  std::function<std::optional<int>(std::string_view)> assigned_security_profile;
  // Shared by every listener (the total connection limit); null: each listener counts alone.
  std::shared_ptr<ConnectionLimiter> connections;
  // Null: free disk space is not watched.
  DiskGuard* disk = nullptr;
  // Where WebSocket sessions run (the I/O threads); set before the first connection. A
  // connection's handshake runs on its listener's context (gateway/app: the handshake threads,
  // at a lower priority) and moves here once upgraded.
  boost::asio::io_context* sessions = nullptr;
  // Where large frames are dispatched, off the I/O threads (see WsSession); null: inline.
  boost::asio::thread_pool* bulk = nullptr;
  // Issues certificates for accepted SignCertificate requests; null: no signer configured.
  CertificateService* certificates = nullptr;

  const rpc::Protocol* protocol(rpc::OcppVersion v) const {
    for (const auto* p : protocols)
      if (p->version == v) return p;
    return nullptr;
  }
  rpc::ValidationMode validation_for(std::string_view charge_point_id) const {
    if (stored_validation)
      if (auto m = stored_validation(charge_point_id)) return *m;
    return config.validation_for(charge_point_id);
  }
};

}  // namespace ocppgw::gateway
