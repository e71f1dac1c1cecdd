// analytics/event.cpp: serialisation of the canonical event and its id/hash helpers.
#include "analytics/event.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <limits>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "util/hex.hpp"
#include "util/json_read.hpp"
#include "util/json_text.hpp"
#include "util/time.hpp"

namespace ocppgw::analytics {
namespace {

using nlohmann::json;

// Indexed by EventType; keep in enum order.
constexpr std::array<std::string_view, 16> kEventTypeNames = {
    "BootNotification",  "Heartbeat",        "StatusNotification",
    "Authorize",         "StartTransaction", "MeterValues",
    "StopTransaction",   "DataTransfer",     "FirmwareStatus",
    "DiagnosticsStatus", "NotifyReport",     "SecurityEvent",
    "Notification",      "Connection",       "Invalid",
    "CsmsCall",
};
static_assert(kEventTypeNames.size() == static_cast<size_t>(EventType::CsmsCall) + 1);

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

// --- The JSON text writer behind to_json_string ---

// A 1.6 MeterValues event is ~560 bytes with an empty extra and ~790 with per-phase readings kept
// in extra; one reservation covers nearly every event. It stays below 1,000 bytes (std::string
// asks for one more): glibc serves a larger request as a "large" one, which first merges every
// freed small chunk of the arena (malloc_consolidate, 3.4% of a saturated gateway's samples),
// and these strings are freed on the sink's thread, so the I/O thread's own cache never has one.
constexpr size_t kTypicalEventJsonSize = 999;

// Field values go through util/json_text.hpp, whose writers give nlohmann's bytes.
void append_value(std::string& out, std::string_view s) { util::append_json_string(out, s); }
void append_value(std::string& out, int64_t v) { util::append_json_integer(out, v); }
void append_value(std::string& out, double v) { util::append_json_double(out, v); }

template <typename T>
void append_value(std::string& out, const std::optional<T>& v) {
  if (v)
    append_value(out, *v);
  else
    out += "null";
}

void append_value(std::string& out, const std::vector<std::string>& strings) {
  out += '[';
  for (size_t i = 0; i < strings.size(); ++i) {
    if (i > 0) out += ',';
    append_value(out, strings[i]);
  }
  out += ']';
}

// `"key":`, after a comma unless it is the object's first member. Keys are plain identifiers.
void append_key(std::string& out, std::string_view key) {
  if (out.back() != '{') out += ',';
  out += '"';
  out += key;
  out += "\":";
}

template <typename T>
void append_member(std::string& out, std::string_view key, const T& value) {
  append_key(out, key);
  append_value(out, value);
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
      {"event_ts", util::format_rfc3339_ms(e.event_ts_ms)},
      {"ingest_ts", util::format_rfc3339_ms(e.ingest_ts_ms)},
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

// to_json_string runs on the I/O threads for every event, and building the tree above (a
// std::map node and a json value per field) then dumping it cost ~8% of gateway CPU at
// saturation. It now appends the text straight into one string. The bytes must stay identical to
// to_json(e).dump(-1, ' ', false, error_handler_t::replace), the form every stored event already
// has, so the writer copies nlohmann's layout (members in std::map order, null for absent
// optionals, no whitespace) and leaves every formatting question it cannot answer trivially to
// nlohmann. tests/unit/analytics/event_json_test.cpp compares the two byte for byte.
std::string to_json_string(const Event& e) {
  std::string out;
  out.reserve(kTypicalEventJsonSize);
  out += '{';
  // Byte-wise key order, the order of the std::map behind nlohmann's objects.
  append_member(out, "charge_point_id", e.charge_point_id);
  append_member(out, "connector_id", e.connector_id);
  append_member(out, "connector_status", e.connector_status);
  append_member(out, "current_a", e.current_a);
  append_member(out, "error_code", e.error_code);
  append_member(out, "event_id", e.event_id);
  append_member(out, "event_ts", util::format_rfc3339_ms(e.event_ts_ms));
  append_member(out, "event_type", to_string(e.event_type));
  append_member(out, "evse_id", e.evse_id);
  append_key(out, "extra");
  // to_json writes {} for an extra that is not an object.
  if (e.extra.is_object())
    util::append_json(out, e.extra);
  else
    out += "{}";
  append_member(out, "flags", e.flags);
  append_member(out, "gateway_node", e.gateway_node);
  append_member(out, "id_token_hash", e.id_token_hash);
  append_member(out, "ingest_ts", util::format_rfc3339_ms(e.ingest_ts_ms));
  append_member(out, "message_id", e.message_id);
  append_member(out, "meter_wh", e.meter_wh);
  append_member(out, "ocpp_action", e.ocpp_action);
  append_member(out, "ocpp_version", e.ocpp_version);
  append_member(out, "power_w", e.power_w);
  append_member(out, "schema_version", static_cast<int64_t>(e.schema_version));
  append_member(out, "seq_no", e.seq_no);
  append_member(out, "soc_pct", e.soc_pct);
  append_member(out, "stop_reason", e.stop_reason);
  append_member(out, "transaction_id", e.transaction_id);
  append_member(out, "trigger_reason", e.trigger_reason);
  append_member(out, "voltage_v", e.voltage_v);
  out += '}';
  return out;
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
  auto ets = util::parse_rfc3339_ms(event_ts);
  auto its = util::parse_rfc3339_ms(ingest_ts);
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

// --- Reading an event's text straight into an Event (read_event_text) ---

namespace {

// The members of an event's JSON text, in the order to_json_string writes them (sorted), so that
// a lookup usually hits the member after the last one.
enum class Member : uint8_t {
  charge_point_id,
  connector_id,
  connector_status,
  current_a,
  error_code,
  event_id,
  event_ts,
  event_type,
  evse_id,
  extra,
  flags,
  gateway_node,
  id_token_hash,
  ingest_ts,
  message_id,
  meter_wh,
  ocpp_action,
  ocpp_version,
  power_w,
  schema_version,
  seq_no,
  soc_pct,
  stop_reason,
  transaction_id,
  trigger_reason,
  voltage_v,
  unknown
};
constexpr std::array<std::string_view, 26> kMemberNames = {
    "charge_point_id", "connector_id", "connector_status", "current_a",      "error_code",
    "event_id",        "event_ts",     "event_type",       "evse_id",        "extra",
    "flags",           "gateway_node", "id_token_hash",    "ingest_ts",      "message_id",
    "meter_wh",        "ocpp_action",  "ocpp_version",     "power_w",        "schema_version",
    "seq_no",          "soc_pct",      "stop_reason",      "transaction_id", "trigger_reason",
    "voltage_v"};
static_assert(kMemberNames.size() == static_cast<size_t>(Member::unknown));
// member_named searches it.
static_assert(std::is_sorted(kMemberNames.begin(), kMemberNames.end()));

Member member_named(std::string_view key, size_t expected) {
  if (expected < kMemberNames.size() && kMemberNames[expected] == key)
    return static_cast<Member>(expected);
  const auto* it = std::lower_bound(kMemberNames.begin(), kMemberNames.end(), key);
  return it != kMemberNames.end() && *it == key ? static_cast<Member>(it - kMemberNames.begin())
                                                : Member::unknown;
}

// Deeper extras than this go the reference road (json::parse has no bound of its own).
constexpr size_t kMaxExtraDepth = 64;

// One member value each, as from_json would read it from json::parse's tree; false: not certain
// (a type from_json would convert, ignore or refuse), the caller gives the text to the tree.
class EventTextReader {
 public:
  explicit EventTextReader(std::string_view text) : in_(text) {}

  std::optional<Event> read() {
    Event e;
    std::string type, event_ts, ingest_ts;
    uint32_t seen = 0;
    in_.skip_blanks();
    if (!in_.consume('{')) return std::nullopt;
    in_.skip_blanks();
    if (!in_.consume('}')) {
      size_t expected = 0;
      std::string key;
      for (;;) {
        key.clear();
        in_.skip_blanks();
        if (!in_.string(key)) return std::nullopt;
        in_.skip_blanks();
        if (!in_.consume(':')) return std::nullopt;
        in_.skip_blanks();
        const Member m = member_named(key, expected);
        if (m != Member::unknown) {
          const uint32_t bit = 1u << static_cast<unsigned>(m);
          if (seen & bit) return std::nullopt;  // json::parse keeps the last: not worth it
          seen |= bit;
          expected = static_cast<size_t>(m) + 1;
        }
        if (!member(m, e, type, event_ts, ingest_ts)) return std::nullopt;
        in_.skip_blanks();
        if (in_.consume('}')) break;
        if (!in_.consume(',')) return std::nullopt;
      }
    }
    in_.skip_blanks();
    if (!in_.at_end()) return std::nullopt;
    // from_json's required members; it refuses the event without them.
    for (Member m : {Member::event_id, Member::charge_point_id, Member::event_type,
                     Member::event_ts, Member::ingest_ts})
      if (!(seen & (1u << static_cast<unsigned>(m)))) return std::nullopt;
    const auto t = parse_event_type(type);
    const auto ets = util::parse_rfc3339_ms(event_ts);
    const auto its = util::parse_rfc3339_ms(ingest_ts);
    if (!t || !ets || !its) return std::nullopt;
    e.event_type = *t;
    e.event_ts_ms = *ets;
    e.ingest_ts_ms = *its;
    return e;
  }

 private:
  bool member(Member m, Event& e, std::string& type, std::string& event_ts,
              std::string& ingest_ts) {
    switch (m) {
      case Member::charge_point_id:
        return in_.string(e.charge_point_id);
      case Member::event_id:
        return in_.string(e.event_id);
      case Member::event_type:
        return in_.string(type);
      case Member::event_ts:
        return in_.string(event_ts);
      case Member::ingest_ts:
        return in_.string(ingest_ts);
      // from_json leaves these empty when they are not strings (null included): handed over.
      case Member::ocpp_action:
        return in_.string(e.ocpp_action);
      case Member::ocpp_version:
        return in_.string(e.ocpp_version);
      case Member::gateway_node:
        return in_.string(e.gateway_node);
      case Member::connector_id:
        return optional_integer(e.connector_id);
      case Member::evse_id:
        return optional_integer(e.evse_id);
      case Member::seq_no:
        return optional_integer(e.seq_no);
      case Member::message_id:
        return optional_string(e.message_id);
      case Member::transaction_id:
        return optional_string(e.transaction_id);
      case Member::trigger_reason:
        return optional_string(e.trigger_reason);
      case Member::connector_status:
        return optional_string(e.connector_status);
      case Member::error_code:
        return optional_string(e.error_code);
      case Member::stop_reason:
        return optional_string(e.stop_reason);
      case Member::id_token_hash:
        return optional_string(e.id_token_hash);
      case Member::meter_wh:
        return optional_double(e.meter_wh);
      case Member::power_w:
        return optional_double(e.power_w);
      case Member::current_a:
        return optional_double(e.current_a);
      case Member::voltage_v:
        return optional_double(e.voltage_v);
      case Member::soc_pct:
        return optional_double(e.soc_pct);
      case Member::schema_version: {
        // from_json takes an integer only (anything else keeps the default) and narrows it.
        if (!in_.number(number_) || !number_.is_number_integer()) return false;
        const auto v = number_.is_number_unsigned()
                           ? static_cast<int64_t>(std::min<uint64_t>(
                                 number_.get<uint64_t>(), std::numeric_limits<int64_t>::max()))
                           : number_.get<int64_t>();
        if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
          return false;
        e.schema_version = static_cast<int>(v);
        return true;
      }
      case Member::flags:
        return flags(e.flags);
      case Member::extra:
        // from_json keeps an object only.
        return in_.next_is('{') && in_.value(e.extra, kMaxExtraDepth);
      case Member::unknown:
        return in_.value(ignored_, kMaxExtraDepth);  // from_json reads no other member
    }
    return false;
  }

  // null, or what get<T>() gives without converting: an integer within int64_t.
  bool optional_integer(std::optional<int64_t>& out) {
    if (in_.literal("null")) return true;
    if (!in_.number(number_) || !number_.is_number_integer()) return false;
    if (number_.is_number_unsigned() &&
        number_.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return false;
    out = number_.get<int64_t>();
    return true;
  }
  // null, or any number, as get<double>() converts it.
  bool optional_double(std::optional<double>& out) {
    if (in_.literal("null")) return true;
    if (!in_.number(number_)) return false;
    out = number_.get<double>();
    return true;
  }
  bool optional_string(std::optional<std::string>& out) {
    if (in_.literal("null")) return true;
    return in_.string(out.emplace());
  }
  // from_json skips items that are not strings: handed over.
  bool flags(std::vector<std::string>& out) {
    if (!in_.consume('[')) return false;
    in_.skip_blanks();
    if (in_.consume(']')) return true;
    for (;;) {
      in_.skip_blanks();
      if (!in_.string(out.emplace_back())) return false;
      in_.skip_blanks();
      if (in_.consume(']')) return true;
      if (!in_.consume(',')) return false;
    }
  }

  util::JsonReader in_;
  json number_;
  json ignored_;
};

}  // namespace

std::optional<Event> read_event_text(std::string_view text) { return EventTextReader(text).read(); }

namespace {

// EVP_sha256() leaves the algorithm to be looked up again on every EVP_DigestInit_ex (OpenSSL 3's
// implicit fetch: 3.5% of dispatching a MeterValues frame); the one fetched here is kept for
// the life of the process.
const EVP_MD* sha256() {
  static EVP_MD* const md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  return md;
}

// Fields are length-prefixed so that ("ab","c") and ("a","bc") never hash alike.
void feed_field(EVP_MD_CTX* ctx, std::string_view part) {
  uint64_t n = part.size();
  EVP_DigestUpdate(ctx, &n, sizeof n);
  EVP_DigestUpdate(ctx, part.data(), part.size());
}

}  // namespace

EventIdHasher::EventIdHasher(std::string_view charge_point_id, std::string_view message_id,
                             std::string_view action, std::string_view payload_bytes)
    : prefix_(EVP_MD_CTX_new()) {
  EVP_DigestInit_ex(prefix_, sha256(), nullptr);
  feed_field(prefix_, charge_point_id);
  feed_field(prefix_, message_id);
  feed_field(prefix_, action);
  feed_field(prefix_, payload_bytes);
}

EventIdHasher::~EventIdHasher() { EVP_MD_CTX_free(prefix_); }

std::string EventIdHasher::id(size_t index) const {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_MD_CTX_copy_ex(ctx, prefix_);
  uint64_t idx = index;
  EVP_DigestUpdate(ctx, &idx, sizeof idx);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx, digest, &len);
  EVP_MD_CTX_free(ctx);
  return util::to_hex(digest, 16);
}

std::string make_event_id(std::string_view charge_point_id, std::string_view message_id,
                          std::string_view action, std::string_view payload_bytes, size_t index) {
  return EventIdHasher(charge_point_id, message_id, action, payload_bytes).id(index);
}

std::string hash_id_token(std::string_view secret, std::string_view token) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest, &len);
  return util::to_hex(digest, len);
}

}  // namespace ocppgw::analytics
