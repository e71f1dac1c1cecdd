// web/read_api.hpp: the REST API's reads (role viewer), GET only, documented in docs/api.md:
//   /api/v1/charge-points[/{id}]   known charge points, live: connected or not, version, vendor,
//                                  model, firmware, last heartbeat, connectors with status
//   /api/v1/sessions[/{id}]        charging sessions (filters charge_point_id, status, day, open)
//   /api/v1/status-history         connector status intervals of one charge point
//   /api/v1/daily-stats            per charge point or fleet-wide per day
//   /api/v1/data-quality           data-quality metrics and the conservation check
//   /api/v1/quarantine             quarantined events (filters status, reason)
//   /api/v1/duplicates             removed duplicates (filters charge_point_id, type)
//   /api/v1/lag                    how far analytics and Kafka trail the event log
//   /api/v1/id-tokens[/{idTag}]    the token list (hashes, never tags)
// Lists page by cursor: ?limit=1..500 (default 50) &cursor=<a next_cursor>, answering
// {"items":[...], "next_cursor":"..."|null}. Unknown query parameters, malformed values and
// foreign cursors are 400 with a precise message; an unknown {id} is 404.
//
// web/ checks the caller and the query's shape; what the views hold comes from a ReadSource,
// which the gateway implements over the analytics read models, the session registry and its
// database (gateway/api_backend.hpp). read() runs on ApiAuth's worker pool, never on an I/O
// thread, since even a bounded query may wait for the disk.
#pragma once

#include <cstdint>
#include <string>

#include "web/api_auth.hpp"
#include "web/api_input.hpp"
#include "web/api_result.hpp"
#include "web/router.hpp"

namespace ocppgw::web {

inline constexpr int64_t kDefaultPageLimit = 50;
inline constexpr int64_t kMaxPageLimit = 500;

enum class ReadView {
  Fleet,
  ChargePoints,
  ChargePoint,
  Sessions,
  Session,
  StatusHistory,
  ConnectionHistory,
  DailyStats,
  DataQuality,
  Quarantine,
  Duplicates,
  Lag,
  IdTokens,
  IdToken,
};

struct ReadRequest {
  ReadView view = ReadView::ChargePoints;
  std::string id;  // the {id} of an item view
  Fields filters;  // the view's query parameters that were given (names checked, values not)
  std::string cursor;
  int64_t limit = kDefaultPageLimit;
};

class ReadSource {
 public:
  virtual ~ReadSource() = default;
  // Thread-safe; called on ApiAuth's worker threads.
  virtual ApiResult read(const ReadRequest& request) = 0;
};

// Adds the GET routes above; `auth` and `source` must outlive the router's use of them.
void add_read_routes(Router& router, ApiAuth& auth, ReadSource& source);

}  // namespace ocppgw::web
