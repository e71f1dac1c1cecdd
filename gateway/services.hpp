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

#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include "gateway/config.hpp"
#include "gateway/event_sink.hpp"
#include "gateway/rpc/action.hpp"

namespace ocppgw::gateway {

class SessionRegistry;

namespace http = boost::beast::http;
using HttpRequest = http::request<http::string_body>;
using HttpResponse = http::response<http::string_body>;
// Sends the response of one request; callable once, from any thread.
using HttpRespond = std::function<void(HttpResponse)>;
// The seam for every non-upgrade request (health now; web/ adds the page, REST and /metrics).
using HttpHandler = std::function<void(HttpRequest&& request, HttpRespond respond)>;

struct Services {
  const Config& config;
  const rpc::Policy& policy;
  rpc::CsmsState& state;
  EventSink& sink;
  SessionRegistry& registry;
  // The protocol implementations this build has (negotiation intersects them with the config).
  std::vector<const rpc::Protocol*> protocols;
  HttpHandler http_handler;
  // Sections of /health that components add before the listener starts ("analytics",
  // "kafka"); called from any I/O thread, so each reads thread-safe stats only.
  struct HealthPart {
    std::string name;
    std::function<nlohmann::json()> report;
  };
  std::vector<HealthPart> health_parts;
  // Validation override stored per charge point (e.g. by an operator); nullopt: config decides.
  std::function<std::optional<rpc::ValidationMode>(std::string_view)> stored_validation;

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
