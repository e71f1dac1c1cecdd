// analytics/event.cpp: serialisation of the canonical event and its id/hash helpers.
#include "analytics/event.hpp"

#include <array>
#include <cstdio>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "analytics/time.hpp"

namespace ocppgw::analytics {
namespace {

using nlohmann::json;

// Indexed by EventType; keep in enum order.
constexpr std::array<std::string_view, 15> kEventTypeNames = {
    "BootNotification",  "Heartbeat",        "StatusNotification",
    "Authorize",         "StartTransaction", "MeterValues",
    "StopTransaction",   "DataTransfer",     "FirmwareStatus",
    "DiagnosticsStatus", "NotifyReport",     "SecurityEvent",
    "Notification",      "Connection",       "Invalid",
};
static_assert(kEventTypeNames.size() == static_cast<size_t>(EventType::Invalid) + 1);

std::string to_hex(const unsigned char* bytes, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(n * 2, '0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 0xF];
  }
  return out;
}

template <typename T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

template <typename T>
bool read_opt(const json& j, const char* key, std::optional<T>& out, std::string* error) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    out.reset();
    return true;
  }
  try {
    out = it->get<T>();
    return true;
  } catch (const json::exception&) {
    if (error) *error = std::string("field '") + key + "' has the wrong type";
    return false;
  }
}

}  // namespace

std::string_view to_string(EventType t) { return kEventTypeNames[static_cast<size_t>(t)]; }

std::optional<EventType> parse_event_type(std::string_view s) {
  for (size_t i = 0; i < kEventTypeNames.size(); ++i) {
    if (kEventTypeNames[i] == s) return static_cast<EventType>(i);
  }
  return std::nullopt;
}

json to_json(const Event& e) {
  return json{
      {"event_id", e.event_id},
      {"charge_point_id", e.charge_point_id},
      {"connector_id", opt(e.connector_id)},
      {"evse_id", opt(e.evse_id)},
      {"event_type", to_string(e.event_type)},
      {"ocpp_action", e.ocpp_action},
      {"message_id", opt(e.message_id)},
      {"event_ts", format_rfc3339_ms(e.event_ts_ms)},
      {"ingest_ts", format_rfc3339_ms(e.ingest_ts_ms)},
      {"transaction_id", opt(e.transaction_id)},
      {"seq_no", opt(e.seq_no)},
      {"trigger_reason", opt(e.trigger_reason)},
      {"meter_wh", opt(e.meter_wh)},
      {"power_w", opt(e.power_w)},
      {"current_a", opt(e.current_a)},
      {"voltage_v", opt(e.voltage_v)},
      {"soc_pct", opt(e.soc_pct)},
      {"connector_status", opt(e.connector_status)},
      {"error_code", opt(e.error_code)},
      {"stop_reason", opt(e.stop_reason)},
      {"id_token_hash", opt(e.id_token_hash)},
      {"ocpp_version", e.ocpp_version},
      {"schema_version", e.schema_version},
      {"gateway_node", e.gateway_node},
      {"flags", e.flags},
      {"extra", e.extra.is_object() ? e.extra : json::object()},
  };
}

std::string to_json_string(const Event& e) {
  // Raw text kept from bad frames may hold invalid UTF-8; replace it rather than throw.
  return to_json(e).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<Event> from_json(const json& j, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<Event> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  if (!j.is_object()) return fail("event is not a JSON object");
  Event e;
  auto req_string = [&](const char* key, std::string& out) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string()) return false;
    out = it->get<std::string>();
    return true;
  };
  if (!req_string("event_id", e.event_id)) return fail("missing or non-string 'event_id'");
  if (!req_string("charge_point_id", e.charge_point_id))
    return fail("missing or non-string 'charge_point_id'");
  std::string type, event_ts, ingest_ts;
  if (!req_string("event_type", type)) return fail("missing or non-string 'event_type'");
  auto t = parse_event_type(type);
  if (!t) return fail("unknown event_type '" + type + "'");
  e.event_type = *t;
  req_string("ocpp_action", e.ocpp_action);
  req_string("ocpp_version", e.ocpp_version);
  req_string("gateway_node", e.gateway_node);
  if (!req_string("event_ts", event_ts)) return fail("missing or non-string 'event_ts'");
  if (!req_string("ingest_ts", ingest_ts)) return fail("missing or non-string 'ingest_ts'");
  auto ets = parse_rfc3339_ms(event_ts);
  auto its = parse_rfc3339_ms(ingest_ts);
  if (!ets) return fail("unparsable 'event_ts' '" + event_ts + "'");
  if (!its) return fail("unparsable 'ingest_ts' '" + ingest_ts + "'");
  e.event_ts_ms = *ets;
  e.ingest_ts_ms = *its;
  if (auto it = j.find("schema_version"); it != j.end() && it->is_number_integer())
    e.schema_version = it->get<int>();
  bool ok =
      read_opt(j, "connector_id", e.connector_id, error) &&
      read_opt(j, "evse_id", e.evse_id, error) && read_opt(j, "message_id", e.message_id, error) &&
      read_opt(j, "transaction_id", e.transaction_id, error) &&
      read_opt(j, "seq_no", e.seq_no, error) &&
      read_opt(j, "trigger_reason", e.trigger_reason, error) &&
      read_opt(j, "meter_wh", e.meter_wh, error) && read_opt(j, "power_w", e.power_w, error) &&
      read_opt(j, "current_a", e.current_a, error) &&
      read_opt(j, "voltage_v", e.voltage_v, error) && read_opt(j, "soc_pct", e.soc_pct, error) &&
      read_opt(j, "connector_status", e.connector_status, error) &&
      read_opt(j, "error_code", e.error_code, error) &&
      read_opt(j, "stop_reason", e.stop_reason, error) &&
      read_opt(j, "id_token_hash", e.id_token_hash, error);
  if (!ok) return std::nullopt;
  if (auto it = j.find("flags"); it != j.end() && it->is_array()) {
    for (const auto& f : *it)
      if (f.is_string()) e.flags.push_back(f.get<std::string>());
  }
  if (auto it = j.find("extra"); it != j.end() && it->is_object()) e.extra = *it;
  return e;
}

std::string make_event_id(std::string_view charge_point_id, std::string_view message_id,
                          std::string_view action, std::string_view payload_bytes, size_t index) {
  // Fields are length-prefixed so that ("ab","c") and ("a","bc") never hash alike.
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  auto feed = [&](std::string_view part) {
    uint64_t n = part.size();
    EVP_DigestUpdate(ctx, &n, sizeof n);
    EVP_DigestUpdate(ctx, part.data(), part.size());
  };
  feed(charge_point_id);
  feed(message_id);
  feed(action);
  feed(payload_bytes);
  uint64_t idx = index;
  EVP_DigestUpdate(ctx, &idx, sizeof idx);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx, digest, &len);
  EVP_MD_CTX_free(ctx);
  return to_hex(digest, 16);
}

std::string hash_id_token(std::string_view secret, std::string_view token) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest, &len);
  return to_hex(digest, len);
}

}  // namespace ocppgw::analytics
