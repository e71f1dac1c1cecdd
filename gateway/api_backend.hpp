// gateway/api_backend.hpp: what the REST API's reads and changes (web/read_api.hpp,
// web/management_api.hpp) talk to, wired: the analytics read models (analytics/read_models),
// the session registry (who is connected now, with which OCPP version), the gateway database
// (known charge points with their BootNotification data, id tokens, charge point passwords),
// the /health sections for the lag view, and the live analytics pipeline for quarantine review
// (its worker is the analytics store's single writer). Changes go through csms/token_admin and
// csms/charge_point_admin, the same code as `ocppgw tokens` and `ocppgw charge-points`.
//
// Threading: read() and apply() run on ApiAuth's worker threads (a few), never on an I/O
// thread. The gateway database is one read-write connection behind a mutex (changes are rare
// and small). ReadModels are one per thread (a connection is not to be shared), so they are
// kept in a small free list: a call takes one (opening it when none is free) and gives it back,
// so there are at most as many as calls at once, i.e. worker threads, and a connection is
// never opened per request.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analytics/delta_mirror_worker.hpp"
#include "analytics/pipeline.hpp"
#include "analytics/read_models.hpp"
#include "gateway/session_registry.hpp"
#include "storage/db.hpp"
#include "util/status.hpp"
#include "web/management_api.hpp"
#include "web/read_api.hpp"

namespace ocppgw::gateway {

class ApiBackend : public web::ReadSource, public web::ManagementTarget {
 public:
  struct Sources {
    std::string gateway_db_path;
    std::string analytics_db_path;
    std::string id_token_secret;
    const SessionRegistry* registry = nullptr;
    std::function<nlohmann::json()> health;  // the /health body (for the lag view)
    // Runs a task on the live analytics pipeline's worker (quarantine review); false when
    // analytics does not run.
    std::function<bool(const std::function<void(analytics::Pipeline&)>&)> with_pipeline;
    // Told after a charge point's registration, removal or security profile changed, so the
    // live gateway applies it at once (not at its next restart).
    std::function<void(const std::string& charge_point_id)> charge_point_changed;
    // Runs a Delta mirror cycle now (POST /api/v1/delta/sync).
    std::function<std::optional<analytics::CycleReport>(util::Status*)> delta_sync;
  };

  // Opens the gateway database; the analytics store is opened on first use (the analytics
  // component creates it after this).
  static std::unique_ptr<ApiBackend> open(Sources sources, util::Status* status);

  // A charge point with a row in the gateway database.
  struct KnownId {
    std::string id;
    std::optional<std::string> ocpp_version;  // of its last boot
  };

  web::ApiResult read(const web::ReadRequest& request) override;
  web::ApiResult apply(const web::ChangeRequest& request) override;

 private:
  ApiBackend(Sources sources, std::unique_ptr<storage::Db> db)
      : sources_(std::move(sources)), db_(std::move(db)) {}

  // Every charge point with a row in the gateway database, in id order.
  std::vector<KnownId> known_ids(storage::Status* status);
  // The charge points page (id order, filtered by online, version, connector status and id
  // substring) or one of them, joined with the live sessions and analytics.
  web::ApiResult charge_points(const web::ReadRequest& request, analytics::ReadModels& rm);
  // Counts for the fleet overview: charge points known, online, by OCPP version; connectors
  // by status, open sessions and today's totals (analytics).
  web::ApiResult fleet(analytics::ReadModels& rm);
  web::ApiResult id_tokens(const web::ReadRequest& request);
  web::ApiResult analytics_view(const web::ReadRequest& request, analytics::ReadModels& rm);
  // Repair, discard or replay one quarantined event, on the analytics worker.
  web::ApiResult quarantine_action(const web::ChangeRequest& request);
  web::ApiResult delta_sync();

  std::unique_ptr<analytics::ReadModels> take_read_models(util::Status* status);
  void give_back(std::unique_ptr<analytics::ReadModels> rm);

  Sources sources_;
  std::mutex db_mu_;  // guards db_
  std::unique_ptr<storage::Db> db_;
  std::mutex free_mu_;  // guards free_
  std::vector<std::unique_ptr<analytics::ReadModels>> free_;
};

}  // namespace ocppgw::gateway
