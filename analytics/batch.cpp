// analytics/batch.cpp: the Silver row codec and the batch's key bookkeeping.
#include "analytics/batch.hpp"

#include <algorithm>

namespace ocppgw::analytics {

using nlohmann::json;
using storage::Statement;

std::string flags_json(const std::vector<std::string>& flags) { return json(flags).dump(); }

// The event and the key are borrowed (the caller keeps them until it has run the statement);
// the two texts made here are copied.
void bind_event(Statement& st, int i, const Event& e, const std::string& business_key) {
  st.bind_borrowed(i, e.event_id)
      .bind_borrowed(i + 1, business_key)
      .bind_borrowed(i + 2, e.charge_point_id)
      .bind(i + 3, e.connector_id)
      .bind(i + 4, e.evse_id)
      .bind_borrowed(i + 5, to_string(e.event_type))
      .bind_borrowed(i + 6, e.ocpp_action)
      .bind_borrowed(i + 7, e.message_id)
      .bind(i + 8, e.event_ts_ms)
      .bind(i + 9, e.ingest_ts_ms)
      .bind_borrowed(i + 10, e.transaction_id)
      .bind(i + 11, e.seq_no)
      .bind_borrowed(i + 12, e.trigger_reason)
      .bind(i + 13, e.meter_wh)
      .bind(i + 14, e.power_w)
      .bind(i + 15, e.current_a)
      .bind(i + 16, e.voltage_v)
      .bind(i + 17, e.soc_pct)
      .bind_borrowed(i + 18, e.connector_status)
      .bind_borrowed(i + 19, e.error_code)
      .bind_borrowed(i + 20, e.stop_reason)
      .bind_borrowed(i + 21, e.id_token_hash)
      .bind_borrowed(i + 22, e.ocpp_version)
      .bind(i + 23, static_cast<int64_t>(e.schema_version))
      .bind_borrowed(i + 24, e.gateway_node)
      .bind(i + 25, flags_json(e.flags))
      .bind(i + 26, e.extra.dump(-1, ' ', false, json::error_handler_t::replace));
}

Event event_from_silver_row(const Statement& st, int c) {
  Event e;
  e.event_id = st.text(c);
  e.charge_point_id = st.text(c + 2);
  e.connector_id = st.opt_int64(c + 3);
  e.evse_id = st.opt_int64(c + 4);
  e.event_type = parse_event_type(st.text_view(c + 5)).value_or(EventType::Invalid);
  e.ocpp_action = st.text(c + 6);
  e.message_id = st.opt_text(c + 7);
  e.event_ts_ms = st.int64(c + 8);
  e.ingest_ts_ms = st.int64(c + 9);
  e.transaction_id = st.opt_text(c + 10);
  e.seq_no = st.opt_int64(c + 11);
  e.trigger_reason = st.opt_text(c + 12);
  e.meter_wh = st.opt_real(c + 13);
  e.power_w = st.opt_real(c + 14);
  e.current_a = st.opt_real(c + 15);
  e.voltage_v = st.opt_real(c + 16);
  e.soc_pct = st.opt_real(c + 17);
  e.connector_status = st.opt_text(c + 18);
  e.error_code = st.opt_text(c + 19);
  e.stop_reason = st.opt_text(c + 20);
  e.id_token_hash = st.opt_text(c + 21);
  e.ocpp_version = st.text(c + 22);
  e.schema_version = static_cast<int>(st.int64(c + 23));
  e.gateway_node = st.text(c + 24);
  json flags = json::parse(st.text_view(c + 25), nullptr, false);
  if (flags.is_array())
    for (const auto& f : flags)
      if (f.is_string()) e.flags.push_back(f.get<std::string>());
  json extra = json::parse(st.text_view(c + 26), nullptr, false);
  e.extra = extra.is_object() ? extra : json::object();
  return e;
}

const std::string& Item::raw_text() {
  if (raw.empty() && original) raw = to_json_string(*original);
  return raw;
}

Item item_from_event(const Event& original, const SilverRules& rules) {
  Item it;
  it.original = &original;
  Event e = original;
  it.verdict = normalize_event(e, rules);
  if (!e.event_id.empty()) it.event_id = e.event_id;
  if (!e.charge_point_id.empty()) it.charge_point_id = e.charge_point_id;
  if (it.verdict.ok()) it.event = std::move(e);
  return it;
}

Item item_from_text(const std::string& text, const std::optional<std::string>& kafka_key,
                    const SilverRules& rules) {
  Item it;
  RawParse p = parse_raw_event(text, kafka_key, rules);
  it.raw = text;
  it.kafka_key = kafka_key;
  it.verdict = std::move(p.verdict);
  it.event_id = p.event_id;
  it.charge_point_id = p.charge_point_id;
  it.event = std::move(p.event);
  return it;
}

void Batch::added_to_silver(const Event& e) {
  if (!is_session_event(e)) return;
  SessionEvent se;
  se.event_id = e.event_id;
  se.type = e.event_type;
  se.event_ts = e.event_ts_ms;
  se.ingest_ts = e.ingest_ts_ms;
  se.seq_no = e.seq_no;
  se.meter_wh = e.meter_wh;
  se.connector_id = e.connector_id;
  se.stop_reason = e.stop_reason;
  se.clock_skew = std::find(e.flags.begin(), e.flags.end(), "CLOCK_SKEW") != e.flags.end();
  session_additions[{e.charge_point_id, *e.transaction_id}].push_back(std::move(se));
}

void Batch::removed_from_silver(const Event& e) {
  if (is_session_event(e)) sessions_rewritten.emplace(e.charge_point_id, *e.transaction_id);
}

void Batch::touch(const Event& e) {
  charge_points.insert(e.charge_point_id);
  if (is_session_event(e)) sessions.emplace(e.charge_point_id, *e.transaction_id);
  if (e.event_type == EventType::StatusNotification) {
    auto& slot = connectors[{e.charge_point_id, e.evse_id.value_or(0), e.connector_id.value_or(0)}];
    if (!slot || e.event_ts_ms < *slot) slot = e.event_ts_ms;
  }
}

}  // namespace ocppgw::analytics
