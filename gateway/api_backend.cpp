// gateway/api_backend.cpp: see api_backend.hpp.
#include "gateway/api_backend.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "analytics/silver_rules.hpp"
#include "csms/charge_point_admin.hpp"
#include "csms/token_admin.hpp"
#include "storage/gateway_db.hpp"
#include "storage/id_token_store.hpp"
#include "util/time.hpp"

namespace ocppgw::gateway {
namespace {

using nlohmann::json;
using web::ApiResult;
using Kind = web::ApiResult::Kind;

constexpr int64_t kDayMs = 86'400'000;
// The default range of /daily-stats when `from` is not given.
constexpr int64_t kDefaultDailyDays = 30;

const char* const kForeignCursor = "cursor is not a next_cursor of this list";

json time_or_null(const std::optional<int64_t>& ms) {
  return ms ? json(util::format_rfc3339_ms(*ms)) : json(nullptr);
}

ApiResult from_admin(const csms::AdminResult& r) {
  switch (r.kind) {
    case csms::AdminResult::Kind::Ok:
      return ApiResult::ok(json::object());
    case csms::AdminResult::Kind::Invalid:
      return ApiResult::error(Kind::Invalid, r.message);
    case csms::AdminResult::Kind::NotFound:
      return ApiResult::error(Kind::NotFound, r.message);
    case csms::AdminResult::Kind::Conflict:
      return ApiResult::error(Kind::Conflict, r.message);
    case csms::AdminResult::Kind::Failed:
      break;
  }
  return ApiResult::error(Kind::Failed, r.message);
}

ApiResult from_page(analytics::PageResult&& page) {
  if (!page.invalid.empty()) return ApiResult::error(Kind::Invalid, page.invalid);
  if (!page.status.ok()) return ApiResult::error(Kind::Failed, page.status.message());
  return ApiResult::ok(std::move(page.body));
}

json token_json(const storage::IdTokenRecord& r) {
  return {{"id_token_hash", r.id_token_hash},
          {"status", r.status},
          {"effective_status", storage::effective_token_status(r, util::now_ms())},
          {"expiry", time_or_null(r.expiry_ms)},
          {"parent_id", r.parent_id ? json(*r.parent_id) : json(nullptr)},
          {"updated", util::format_rfc3339_ms(r.updated_ms)}};
}

std::optional<std::string> filter(const web::ReadRequest& r, const char* name) {
  auto it = r.filters.find(name);
  return it == r.filters.end() ? std::nullopt : std::optional<std::string>(it->second);
}

// The cursor of a list keyed by one text column; `after` is empty on the first page.
bool decode_text_cursor(const std::string& cursor, std::string_view list, std::string* after) {
  if (cursor.empty()) return true;
  auto key = analytics::decode_cursor(cursor, 2);
  if (!key || (*key)[0] != list || !(*key)[1].is_string()) return false;
  *after = (*key)[1].get<std::string>();
  return true;
}

ApiResult apply_token_change(csms::TokenAdmin& admin, web::Change change, const std::string& tag,
                             const web::Fields& fields) {
  auto field = [&](const char* name) -> std::optional<std::string> {
    auto it = fields.find(name);
    return it == fields.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  if (change == web::Change::AddToken && !field("id_tag"))
    return ApiResult::error(Kind::Invalid, "id_tag is required");
  if (change == web::Change::UpdateToken && fields.empty())
    return ApiResult::error(Kind::Invalid, "nothing to change (status, expiry, parent_id)");
  const csms::TokenFields values{field("status"), field("expiry"), field("parent_id")};
  storage::IdTokenRecord stored;
  const csms::AdminResult r =
      change == web::Change::AddToken      ? admin.add(tag, values, false, &stored)
      : change == web::Change::UpdateToken ? admin.update(tag, values, &stored)
                                           : admin.remove(tag);
  ApiResult result = from_admin(r);
  if (r.ok() && change != web::Change::RemoveToken) result.body = token_json(stored);
  return result;
}

}  // namespace

std::unique_ptr<ApiBackend> ApiBackend::open(Sources sources, util::Status* status) {
  auto db = storage::open_gateway_db(sources.gateway_db_path, status);
  if (!db) return nullptr;
  return std::unique_ptr<ApiBackend>(new ApiBackend(std::move(sources), std::move(db)));
}

std::unique_ptr<analytics::ReadModels> ApiBackend::take_read_models(util::Status* status) {
  {
    std::lock_guard lock(free_mu_);
    if (!free_.empty()) {
      auto rm = std::move(free_.back());
      free_.pop_back();
      return rm;
    }
  }
  return analytics::ReadModels::open(sources_.analytics_db_path, status);
}

void ApiBackend::give_back(std::unique_ptr<analytics::ReadModels> rm) {
  std::lock_guard lock(free_mu_);
  free_.push_back(std::move(rm));
}

ApiResult ApiBackend::read(const web::ReadRequest& request) {
  using web::ReadView;
  if (request.view == ReadView::IdTokens || request.view == ReadView::IdToken)
    return id_tokens(request);
  if (request.view == ReadView::Lag) {
    const json health = sources_.health ? sources_.health() : json::object();
    return ApiResult::ok({{"analytics", health.value("analytics", json(nullptr))},
                          {"kafka", health.value("kafka", json(nullptr))}});
  }
  util::Status s;
  auto rm = take_read_models(&s);
  if (!rm)
    return ApiResult::error(Kind::Failed, "the analytics store is not available: " + s.message());
  ApiResult r = request.view == ReadView::Fleet ? fleet(*rm)
                : request.view == ReadView::ChargePoints || request.view == ReadView::ChargePoint
                    ? charge_points(request, *rm)
                    : analytics_view(request, *rm);
  give_back(std::move(rm));
  return r;
}

ApiResult ApiBackend::analytics_view(const web::ReadRequest& request, analytics::ReadModels& rm) {
  using web::ReadView;
  const analytics::PageRequest page{request.cursor, static_cast<size_t>(request.limit)};
  switch (request.view) {
    case ReadView::Sessions: {
      analytics::SessionFilter f{filter(request, "charge_point_id"), filter(request, "status"),
                                 filter(request, "day"), false};
      if (auto open = filter(request, "open")) {
        if (*open != "true" && *open != "false")
          return ApiResult::error(Kind::Invalid, "open must be true or false");
        f.open_only = *open == "true";
      }
      return from_page(rm.sessions(f, page));
    }
    case ReadView::Session: {
      json s = rm.session_detail(request.id);
      if (s.is_null()) return ApiResult::error(Kind::NotFound, "no such session");
      return ApiResult::ok(std::move(s));
    }
    case ReadView::ConnectionHistory:
      return from_page(rm.connection_history(request.id, page));
    case ReadView::StatusHistory: {
      auto cp = filter(request, "charge_point_id");
      if (!cp) return ApiResult::error(Kind::Invalid, "charge_point_id is required");
      std::optional<int64_t> connector;
      if (auto text = filter(request, "connector_id")) {
        int64_t v = -1;
        auto [p, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
        if (ec != std::errc() || p != text->data() + text->size() || v < 0)
          return ApiResult::error(Kind::Invalid, "connector_id must be a non-negative integer");
        connector = v;
      }
      return from_page(rm.status_history(*cp, connector, page));
    }
    case ReadView::DailyStats: {
      const std::string to =
          filter(request, "to").value_or(util::format_rfc3339_ms(util::now_ms()).substr(0, 10));
      std::string from;
      if (auto f = filter(request, "from")) {
        from = *f;
      } else if (auto to_ms = util::parse_rfc3339_ms(to + "T00:00:00Z")) {
        from = util::format_rfc3339_ms(*to_ms - (kDefaultDailyDays - 1) * kDayMs).substr(0, 10);
      }
      return from_page(rm.daily_stats_page(filter(request, "charge_point_id"), from, to, page));
    }
    case ReadView::DataQuality:
      return ApiResult::ok(rm.dq_metrics());
    case ReadView::Quarantine:
      return from_page(
          rm.quarantine_page(filter(request, "status"), filter(request, "reason"), page));
    case ReadView::Duplicates:
      return from_page(
          rm.duplicates(filter(request, "charge_point_id"), filter(request, "type"), page));
    default:
      break;
  }
  return ApiResult::error(Kind::Failed, "no such view");
}

namespace {

std::string version_name(rpc::OcppVersion v) {
  return v == rpc::OcppVersion::v16 ? "1.6" : "2.0.1";
}

// Every known or connected charge point with its OCPP version: the live connection's, else its
// last boot's.
std::map<std::string, std::optional<std::string>> versions_by_id(
    std::vector<ApiBackend::KnownId> known,
    const std::unordered_map<std::string, SessionInfo>& live) {
  std::map<std::string, std::optional<std::string>> out;
  for (auto& k : known) out.emplace(std::move(k.id), std::move(k.ocpp_version));
  for (const auto& [id, info] : live) out[id] = version_name(info.version);
  return out;
}

bool contains_ignoring_case(std::string_view text, std::string_view part) {
  auto lower = [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  return std::search(text.begin(), text.end(), part.begin(), part.end(),
                     [&](char a, char b) { return lower(a) == lower(b); }) != text.end();
}

}  // namespace

std::vector<ApiBackend::KnownId> ApiBackend::known_ids(storage::Status* status) {
  std::lock_guard lock(db_mu_);
  return db_->query_all(
      "SELECT id, ocpp_version FROM charge_points ORDER BY id",
      [](const storage::Statement& st) {
        return KnownId{st.text(0), st.opt_text(1)};
      },
      status);
}

ApiResult ApiBackend::charge_points(const web::ReadRequest& request, analytics::ReadModels& rm) {
  const bool one = request.view == web::ReadView::ChargePoint;
  std::string after;
  if (!one && !decode_text_cursor(request.cursor, "charge_points", &after))
    return ApiResult::error(Kind::Invalid, kForeignCursor);

  std::unordered_map<std::string, SessionInfo> live;
  if (sources_.registry)
    for (auto& info : sources_.registry->list()) live.emplace(info.charge_point_id, info);

  // The page's ids. Known charge points (a row: booted, registered, or set by an operator) and
  // connected ones (a charge point connected but not yet booted has no row), in id order.
  // Filters are applied here, on the server, so that a page of 20,000 charge points is
  // never shipped to a browser to be filtered there.
  std::vector<std::string> ids;
  const auto online = filter(request, "online");
  const auto version = filter(request, "version");
  const auto status = filter(request, "status");
  const auto q = filter(request, "q");
  if (one) {
    ids.push_back(request.id);
  } else {
    if (online && *online != "true" && *online != "false")
      return ApiResult::error(Kind::Invalid, "online must be true or false");
    if (version && *version != "1.6" && *version != "2.0.1")
      return ApiResult::error(Kind::Invalid, "version must be 1.6 or 2.0.1");
    if (status && !analytics::is_connector_status(*status))
      return ApiResult::error(Kind::Invalid,
                              "status must be a connector status as the views show it (AVAILABLE, "
                              "PREPARING, CHARGING, SUSPENDED_EV, ..., FAULTED, OCCUPIED)");
    if (q && (q->empty() || q->size() > 64))
      return ApiResult::error(Kind::Invalid, "q must be 1 to 64 characters");
    storage::Status s;
    std::vector<KnownId> known = known_ids(&s);
    if (!s.ok()) return ApiResult::error(Kind::Failed, s.message());
    const auto candidates = versions_by_id(std::move(known), live);
    std::unordered_set<std::string> with_status;
    if (status) {
      util::Status qs;
      for (const json& row : analytics::query_json(
               rm.db(),
               "SELECT DISTINCT charge_point_id FROM connector_current_status "
               "WHERE status = ?1 AND connector_id > 0",  // 1.6 connector 0: the charge point
               {*status}, &qs))
        with_status.insert(row["charge_point_id"].get<std::string>());
      if (!qs.ok()) return ApiResult::error(Kind::Failed, qs.message());
    }
    for (auto it = candidates.upper_bound(after); it != candidates.end(); ++it) {
      const auto& [id, cp_version] = *it;
      if (online && (live.count(id) > 0) != (*online == "true")) continue;
      if (version && cp_version != *version) continue;
      if (status && !with_status.count(id)) continue;
      if (q && !contains_ignoring_case(id, *q)) continue;
      ids.push_back(id);
      if (ids.size() > static_cast<size_t>(request.limit)) break;
    }
  }

  struct Known {
    json boot;
    bool has_password = false;
  };
  std::unordered_map<std::string, Known> rows;
  {
    std::lock_guard lock(db_mu_);
    storage::Status s;
    auto opt = [](const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); };
    const auto found = db_->query_all(
        "SELECT id, vendor, model, serial_number, firmware_version, "
        "registration_status, first_seen_ms, last_boot_ms, ocpp_version, security_profile, "
        "EXISTS (SELECT 1 FROM charge_point_credentials c "
        "WHERE c.charge_point_id = p.id), registered_ms FROM charge_points p "
        "WHERE id IN (SELECT value FROM json_each(?1))",
        [&](const storage::Statement& st) {
          return std::pair{
              st.text(0),
              Known{{{"vendor", opt(st.opt_text(1))},
                     {"model", opt(st.opt_text(2))},
                     {"serial_number", opt(st.opt_text(3))},
                     {"firmware_version", opt(st.opt_text(4))},
                     {"registration_status", opt(st.opt_text(5))},
                     {"first_seen", util::format_rfc3339_ms(st.int64(6))},
                     {"last_boot", time_or_null(st.opt_int64(7))},
                     {"ocpp_version", opt(st.opt_text(8))},
                     {"security_profile", st.opt_int64(9) ? json(*st.opt_int64(9)) : json(nullptr)},
                     {"registered", time_or_null(st.opt_int64(11))}},
                    st.int64(10) != 0}};
        },
        &s, json(ids).dump());
    if (!s.ok()) return ApiResult::error(Kind::Failed, s.message());
    for (auto& [id, known] : found) rows.emplace(id, std::move(known));
  }
  if (one && !rows.count(request.id) && !live.count(request.id))
    return ApiResult::error(Kind::NotFound, "no such charge point");
  json next = nullptr;
  if (!one && ids.size() > static_cast<size_t>(request.limit)) {
    ids.pop_back();
    next = analytics::encode_cursor(json::array({"charge_points", ids.back()}));
  }
  json items = json::array();
  for (const auto& id : ids) {
    auto row = rows.find(id);
    json item = {{"id", id}, {"has_password", row != rows.end() && row->second.has_password}};
    if (row != rows.end()) item.update(row->second.boot);
    auto it = live.find(id);
    item["connected"] = it != live.end();
    item["connection"] =
        it == live.end()
            ? json(nullptr)
            : json{{"ocpp_version", std::string(rpc::subprotocol(it->second.version))},
                   {"remote_address", it->second.remote_address},
                   {"security_profile", it->second.security_profile},
                   {"connected_since", util::format_rfc3339_ms(it->second.connected_ms)}};
    item.update(rm.charge_point(id));
    items.push_back(std::move(item));
  }
  if (one) return ApiResult::ok(std::move(items[0]));
  return ApiResult::ok({{"items", std::move(items)}, {"next_cursor", std::move(next)}});
}

ApiResult ApiBackend::fleet(analytics::ReadModels& rm) {
  storage::Status s;
  std::vector<KnownId> known = known_ids(&s);
  if (!s.ok()) return ApiResult::error(Kind::Failed, s.message());
  std::unordered_map<std::string, SessionInfo> live;
  if (sources_.registry)
    for (auto& info : sources_.registry->list()) live.emplace(info.charge_point_id, info);
  std::map<std::string, int64_t> by_version;
  const auto versions = versions_by_id(std::move(known), live);
  for (const auto& [id, version] : versions) ++by_version[version.value_or("unknown")];
  const auto total = static_cast<int64_t>(versions.size());
  json overview = rm.fleet_overview();
  const int64_t online = static_cast<int64_t>(live.size());
  overview["liveness"] = std::move(overview["charge_points"]);
  overview["charge_points"] = {{"total", total},
                               {"online", online},
                               {"offline", total - online},
                               {"by_version", by_version}};
  return ApiResult::ok(std::move(overview));
}

ApiResult ApiBackend::id_tokens(const web::ReadRequest& request) {
  std::lock_guard lock(db_mu_);
  csms::TokenAdmin admin(*db_, sources_.id_token_secret);
  storage::Status s;
  if (request.view == web::ReadView::IdToken) {
    if (auto e = csms::id_tag_error(request.id); !e.empty())
      return ApiResult::error(Kind::Invalid, e);
    auto r = admin.find(request.id, &s);
    if (!s.ok()) return ApiResult::error(Kind::Failed, s.message());
    if (!r) return ApiResult::error(Kind::NotFound, "no such token");
    return ApiResult::ok(token_json(*r));
  }
  std::string after;
  if (!decode_text_cursor(request.cursor, "id_tokens", &after))
    return ApiResult::error(Kind::Invalid, kForeignCursor);
  auto rows = admin.list(after, static_cast<size_t>(request.limit) + 1, &s);
  if (!s.ok()) return ApiResult::error(Kind::Failed, s.message());
  json next = nullptr;
  if (rows.size() > static_cast<size_t>(request.limit)) {
    rows.pop_back();
    next = analytics::encode_cursor(json::array({"id_tokens", rows.back().id_token_hash}));
  }
  json items = json::array();
  for (const auto& r : rows) items.push_back(token_json(r));
  return ApiResult::ok({{"items", std::move(items)}, {"next_cursor", std::move(next)}});
}

ApiResult ApiBackend::apply(const web::ChangeRequest& request) {
  using web::Change;
  auto field = [&](const char* name) -> std::optional<std::string> {
    auto it = request.fields.find(name);
    return it == request.fields.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  if (request.change == Change::RepairQuarantined || request.change == Change::DiscardQuarantined ||
      request.change == Change::ReplayQuarantined) {
    ApiResult result = quarantine_action(request);
    result.target = request.id;  // whatever the outcome: the audit row names the row
    return result;
  }
  if (request.change == Change::SyncDelta) return delta_sync();
  std::lock_guard lock(db_mu_);
  switch (request.change) {
    case Change::AddToken:
    case Change::UpdateToken:
    case Change::RemoveToken: {
      csms::TokenAdmin admin(*db_, sources_.id_token_secret);
      const std::string tag =
          request.change == Change::AddToken ? field("id_tag").value_or("") : request.id;
      ApiResult result = apply_token_change(admin, request.change, tag, request.fields);
      // The audit log names the token by its hash, whatever the outcome: raw tags are never
      // stored.
      result.target = csms::id_tag_error(tag).empty() ? admin.hash(tag) : "";
      return result;
    }
    case Change::SetPassword: {
      auto password = field("password");
      if (!password) return ApiResult::error(Kind::Invalid, "password is required");
      ApiResult result =
          from_admin(csms::ChargePointAdmin(*db_).set_password(request.id, *password));
      std::fill(password->begin(), password->end(), '\0');
      result.target = request.id;
      return result;
    }
    case Change::DeletePassword: {
      ApiResult result = from_admin(csms::ChargePointAdmin(*db_).delete_password(request.id));
      result.target = request.id;
      return result;
    }
    case Change::SetSecurityProfile:
    case Change::RegisterChargePoint:
    case Change::RemoveChargePoint: {
      const std::string id =
          request.change == Change::RegisterChargePoint ? field("id").value_or("") : request.id;
      csms::ChargePointAdmin admin(*db_);
      ApiResult result;
      if (request.change == Change::RemoveChargePoint) {
        result = from_admin(admin.remove_charge_point(id));
      } else {
        // Required to set a profile, optional at registration; "" clears it.
        const auto text = field("profile");
        const std::string value =
            text.value_or(request.change == Change::RegisterChargePoint ? "" : "-");
        if (value != "" && (value.size() != 1 || value[0] < '0' || value[0] > '3'))
          return ApiResult::error(Kind::Invalid,
                                  "profile must be \"0\", \"1\", \"2\", \"3\" or \"\"");
        const auto profile = value.empty() ? std::nullopt : std::optional<int>(value[0] - '0');
        result = from_admin(request.change == Change::RegisterChargePoint
                                ? admin.register_charge_point(id, profile)
                                : admin.set_security_profile(id, profile));
      }
      result.target = id;
      if (result.kind == Kind::Ok && sources_.charge_point_changed)
        sources_.charge_point_changed(id);
      if (result.kind == Kind::Ok && request.change == Change::RegisterChargePoint)
        result.body = {{"id", id}};
      return result;
    }
    default:  // the quarantine actions, above
      break;
  }
  return ApiResult::error(Kind::Failed, "no such change");
}

// The cycle's report; a cycle in which a table failed (or failed its audit) is a 503 whose
// message names the tables and why (the report is also in /health's delta section).
ApiResult ApiBackend::delta_sync() {
  util::Status status;
  auto report = sources_.delta_sync(&status);
  if (!report) return ApiResult::error(ApiResult::Kind::Failed, "delta sync: " + status.message());
  ApiResult result = ApiResult::ok(analytics::to_json(*report));
  result.target = "delta";
  if (report->ok()) return result;
  std::string why;
  for (const auto& t : report->tables)
    if (t.outcome == analytics::TableCycleReport::Outcome::kAuditFailed ||
        t.outcome == analytics::TableCycleReport::Outcome::kFailed)
      why += (why.empty() ? "" : "; ") + t.table + ": " + analytics::to_string(t.outcome) + ": " +
             t.detail;
  result = ApiResult::error(ApiResult::Kind::Failed, "delta sync: " + why);
  result.target = "delta";
  return result;
}

ApiResult ApiBackend::quarantine_action(const web::ChangeRequest& request) {
  using web::Change;
  int64_t id = 0;
  auto [p, ec] = std::from_chars(request.id.data(), request.id.data() + request.id.size(), id);
  if (ec != std::errc() || p != request.id.data() + request.id.size() || id <= 0)
    return ApiResult::error(Kind::Invalid, "the quarantine id must be a positive integer");
  std::string payload;
  if (request.change == Change::RepairQuarantined) {
    auto it = request.fields.find("payload");
    if (it == request.fields.end()) return ApiResult::error(Kind::Invalid, "payload is required");
    const json parsed = json::parse(it->second, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object())
      return ApiResult::error(Kind::Invalid,
                              "payload must be the corrected canonical event as JSON object text");
    payload = it->second;
  }
  // Which answer a refusal gets: unknown rows are 404, rows already settled 409. The action
  // checks again in its own transaction.
  util::Status s;
  auto rm = take_read_models(&s);
  if (!rm)
    return ApiResult::error(Kind::Failed, "the analytics store is not available: " + s.message());
  const json rows = analytics::query_json(
      rm->db(), "SELECT status FROM quarantine_events WHERE quarantine_id = ?1", {id}, &s);
  give_back(std::move(rm));
  if (!s.ok()) return ApiResult::error(Kind::Failed, s.message());
  if (rows.empty()) return ApiResult::error(Kind::NotFound, "no quarantined event " + request.id);
  const std::string status = rows[0]["status"];
  if (status != "NEW" && status != "REPAIRED")
    return ApiResult::error(Kind::Conflict, "quarantined event " + request.id + " is " + status +
                                                "; only NEW or REPAIRED events can change");

  ApiResult result = ApiResult::error(Kind::Failed, "analytics does not run");
  const bool ran = sources_.with_pipeline && sources_.with_pipeline([&](analytics::Pipeline& pl) {
    json body = {{"quarantine_id", id}};
    util::Status done;
    if (request.change == Change::RepairQuarantined) {
      done = pl.repair(id, payload, request.actor);
      body["status"] = "REPAIRED";
    } else if (request.change == Change::DiscardQuarantined) {
      done = pl.discard(id, request.actor);
      body["status"] = "DISCARDED";
    } else {
      analytics::BatchReport report = pl.replay({id});
      done = report.status;
      body["status"] = "REPLAYED";
      body["report"] = report.to_json();
    }
    result =
        done.ok() ? ApiResult::ok(std::move(body)) : ApiResult::error(Kind::Failed, done.message());
  });
  if (!ran) result = ApiResult::error(Kind::Failed, "analytics does not run");
  return result;
}

}  // namespace ocppgw::gateway
