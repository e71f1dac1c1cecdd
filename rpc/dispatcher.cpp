// rpc/dispatcher.cpp
#include "rpc/dispatcher.hpp"

#include <algorithm>
#include <iterator>

#include "rpc/event_builder.hpp"
#include "rpc/mapper_util.hpp"
#include "rpc/schema_set.hpp"
#include "util/json_tape.hpp"
#include "util/json_text.hpp"
#include "util/utf8.hpp"

namespace ocppgw::rpc {
namespace {

using analytics::Event;
using analytics::EventType;
using nlohmann::json;

constexpr size_t kMaxRawKept = 64 * 1024;
// Ids and action names longer than this are cut before they are echoed (CALLERROR, event
// columns, descriptions): no real one comes close, and a hostile one must not multiply a
// frame's size into the reply, the Invalid event and the log.
constexpr size_t kMaxEchoedBytes = 128;

std::string clip(std::string_view s) { return std::string(s.substr(0, kMaxEchoedBytes)); }

std::string schema_name(const Protocol& p, std::string_view action, bool response) {
  return std::string(action) +
         std::string(response ? std::string_view("Response") : p.request_suffix);
}

json violations_json(const ValidationOutcome& v) {
  json out = json::array();
  for (const auto& x : v.violations) out.push_back({{"path", x.path}, {"message", x.message}});
  return out;
}

// Raw id tokens never leave the gateway (only their HMAC, docs/event_contract.md), not even inside
// the raw text an Invalid event keeps: in a refused CALL they are replaced by their HMAC. Text that
// did not parse cannot be redacted and is kept as sent.
constexpr std::string_view kTokenKeys[] = {"idTag", "parentIdTag", "idToken", "groupIdToken"};

bool redact_tokens(const CallContext& ctx, json& node) {
  bool changed = false;
  if (node.is_object()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      const bool token_key =
          std::find(std::begin(kTokenKeys), std::end(kTokenKeys), it.key()) != std::end(kTokenKeys);
      if (token_key && it->is_primitive() && !it->is_null()) {
        *it = "hmac:" +
              hash_token(ctx, it->is_string() ? it->get_ref<const std::string&>() : it->dump());
        changed = true;
      } else {
        changed = redact_tokens(ctx, *it) || changed;
      }
    }
  } else if (node.is_array()) {
    for (auto& child : node) changed = redact_tokens(ctx, child) || changed;
  }
  return changed;
}

// What the event log keeps of a refused frame: the text that may be stored (the redacted CALL,
// else the text as received), cut to kMaxRawKept bytes, the prefix its Invalid event keeps too.
// Keeping all of it would let a client turn each oversize frame it sends into as many bytes on
// disk. Unset: store the text as received.
std::optional<std::string> stored_refused(const std::optional<std::string>& redacted,
                                          std::string_view text) {
  const std::string_view kept = redacted ? std::string_view(*redacted) : text;
  if (kept.size() <= kMaxRawKept) return redacted;
  return std::string(util::utf8_prefix(kept, kMaxRawKept));
}

// A frame refused before or during handling: CALLERROR + Invalid event. A CALLERROR answers
// only a CALL: a broken CALLRESULT/CALLERROR is recorded, never answered (answering could start
// an endless error exchange). When no id could be read, "-1" stands in for it (OCPP 2.0.1
// part 4, RpcFrameworkError), so the peer still learns why nothing happened.
InboundResult refuse(const CallContext& ctx, Event invalid, std::string_view message_id,
                     const CallError& error, bool answer = true) {
  InboundResult r;
  r.error = error.description;
  invalid.error_code = std::string(wire_name(error.code, ctx.version));
  r.events.push_back(std::move(invalid));
  if (answer) r.error_code = error.code;
  if (answer)
    r.reply = serialize_call_error(message_id.empty() ? std::string_view("-1") : message_id,
                                   error.code, ctx.version, error.description);
  return r;
}

// Whether the text may hold an id token: a substring test, which keeps the tree walk (and the
// tape road) off exactly the frames that cannot.
bool may_hold_token(std::string_view text) {
  return text.find("idTag") != std::string_view::npos ||
         text.find("idToken") != std::string_view::npos ||
         text.find("groupIdToken") != std::string_view::npos;
}

// The CALL re-serialised with its id tokens replaced by their HMAC, or nullopt when it holds
// none.
std::optional<std::string> redacted_call(const CallContext& ctx, const Frame& frame,
                                         std::string_view text) {
  if (!may_hold_token(text)) return std::nullopt;
  json payload = frame.payload;
  if (!redact_tokens(ctx, payload)) return std::nullopt;
  return serialize_call(frame.message_id, frame.action, payload);
}

// The Invalid event of a parsed CALL; `redacted` (from redacted_call) replaces the raw text.
Event invalid_call_event(const CallContext& ctx, const std::optional<std::string>& redacted,
                         std::string_view text, std::string_view reason) {
  if (!redacted) return invalid_event(ctx, text, reason);
  Event e = invalid_event(ctx, *redacted, reason);
  e.extra["raw_redacted"] = true;
  return e;
}

// An upper bound on the events a CALL maps to, known before the handler runs: every mapper
// emits at most one event per meterValue entry (at least one per frame), so refusing here keeps
// state untouched by a frame that is answered with an error.
template <typename Value>
size_t events_upper_bound(const Value& payload) {
  const auto& meter_values = member_or_null(payload, "meterValue");
  if (!meter_values.is_array()) return 1;
  return std::max<size_t>(1, meter_values.size());
}

// A refused parsed CALL: CALLERROR + Invalid event, the frame stored as it may be (redacted).
InboundResult refuse_call(const CallContext& ctx, const ActionSpec* spec,
                          const std::optional<std::string>& redacted, std::string_view text,
                          std::string_view message_id, const CallError& error) {
  InboundResult r =
      refuse(ctx, invalid_call_event(ctx, redacted, text, error.description), message_id, error);
  r.stored_frame = stored_refused(redacted, text);
  r.type = MessageType::Call;
  r.spec = spec;
  return r;
}

// The bytes the event ids hash: the payload as dump() writes it (docs/event_contract.md),
// written by util/json_text at a fraction of dump()'s cost, or straight from the tape in the
// same order and format. A parsed payload holds valid UTF-8 only, where dump() and the writer's
// replace rule agree.
std::string payload_text(const json& payload) { return util::to_json_text(payload); }
std::string payload_text(const util::JsonTape::Value& payload) {
  std::string out;
  payload.append_text(out);
  return out;
}

// A CALL that passed every check before its handler, read as a tree or a tape: handle it,
// check the response, answer, map to events. One code for both roads, so they cannot drift.
template <typename Value, typename Handle, typename Map>
InboundResult answer_call(const Protocol& protocol, CallContext& ctx, const ActionSpec& spec,
                          std::string_view message_id, const Value& payload, Handle handle,
                          Map to_events, const ValidationOutcome& request_check,
                          const std::optional<std::string>& redacted, std::string_view text) {
  auto refuse_this = [&](const CallError& error) {
    return refuse_call(ctx, &spec, redacted, text, message_id, error);
  };
  HandleResult handled;
  try {
    handled = handle(ctx, payload);
  } catch (const json::exception& e) {
    // Only reachable in lenient mode: the payload broke the schema in a way the handler needs.
    CallError error{
        request_check.ok ? RpcError::InternalError : request_check.code,
        request_check.ok ? std::string("handler failed: ") + e.what() : request_check.summary()};
    return refuse_this(error);
  }
  if (auto* error = std::get_if<CallError>(&handled)) return refuse_this(*error);

  json& response = std::get<json>(handled);
  const ValidationOutcome response_check =
      protocol.schemas.validate(schema_name(protocol, spec.action, true), response);
  if (!response_check.ok) {
    // Our own defect; never send a response that breaks the schema.
    return refuse_this({RpcError::InternalError, "gateway produced an invalid " +
                                                     std::string(spec.action) +
                                                     " response: " + response_check.summary()});
  }

  InboundResult r;
  r.type = MessageType::Call;
  r.spec = &spec;
  r.stored_frame = redacted;
  r.reply = serialize_call_result(message_id, response);
  r.certificate_to_sign = std::move(ctx.certificate_to_sign);
  try {
    EventBuilder builder(ctx, payload_text(payload));
    to_events(ctx, payload, response, builder);
    if (ctx.security_finding) builder.add(EventType::SecurityEvent).extra = *ctx.security_finding;
    r.events = std::move(builder).finish();
  } catch (const json::exception& e) {
    // The handler has answered and may have changed state, so the reply stands; the frame is
    // kept whole as an Invalid event rather than lost.
    r.error = std::string("mapping failed: ") + e.what();
    r.events.clear();
    r.events.push_back(invalid_call_event(ctx, redacted, text, r.error));
  }
  if (r.events.size() > ctx.policy.max_events_per_frame) {
    // A mapper beyond events_upper_bound: the reply stands (the handler ran), the batch does not.
    r.error = std::to_string(r.events.size()) + " events exceed max_events_per_frame";
    r.events.clear();
    r.events.push_back(invalid_call_event(ctx, redacted, text, r.error));
  }
  return r;
}

bool too_large_for(const CallContext& ctx, std::string_view action, size_t bytes) {
  const auto& large = ctx.policy.large_call_actions;
  return bytes > ctx.policy.max_call_bytes &&
         std::find(large.begin(), large.end(), action) == large.end();
}

// The hot actions' road (ActionSpec::tape_handle): the frame read into a per-thread tape, the
// schema's fast check over it, the handler and mapper instantiated for it. Taken only where it
// is certain to give what the tree gives: a strict-mode CALL of such an action that the tape
// reads, that holds no id token (those are stored redacted, from the tree) and that every check
// before the handler passes. nullopt otherwise: the tree road then decides, with its errors.
std::optional<InboundResult> dispatch_from_tape(const Protocol& protocol, CallContext& ctx,
                                                std::string_view text) {
  if (ctx.mode != ValidationMode::Strict || !ctx.policy.tape_reads || may_hold_token(text))
    return std::nullopt;
  thread_local util::JsonTape tape;
  if (!tape.read(text, kMaxNestingDepth)) return std::nullopt;
  const util::JsonTape::Value frame = tape.root();
  if (!frame.is_array() || frame.size() != 4) return std::nullopt;
  util::JsonTape::Value parts[4];
  size_t n = 0;
  util::all_elements(frame, [&](const util::JsonTape::Value& v) {
    parts[n++] = v;
    return true;
  });
  const auto& [type, id, action, payload] = parts;
  if (!type.is_number_unsigned() || type.unsigned_value() != 2 || !id.is_string() ||
      id.string().empty() || id.string().size() > kMaxMessageIdLength || !action.is_string() ||
      !payload.is_object())
    return std::nullopt;
  const ActionSpec* spec = protocol.find(action.string());
  if (!spec || !spec->tape_handle) return std::nullopt;
  ctx.message_id = std::string(id.string());
  ctx.action = clip(action.string());
  if (!ctx.state.accepts_call(ctx) || too_large_for(ctx, spec->action, text.size()) ||
      events_upper_bound(payload) > ctx.policy.max_events_per_frame ||
      !protocol.schemas.fast_accepts(schema_name(protocol, spec->action, false), payload))
    return std::nullopt;
  InboundResult r = answer_call(protocol, ctx, *spec, ctx.message_id, payload, spec->tape_handle,
                                spec->tape_to_events, ValidationOutcome{}, std::nullopt, text);
  r.from_tape = true;
  return r;
}

}  // namespace

const ActionSpec* Protocol::find(std::string_view action) const {
  for (const auto& spec : actions)
    if (spec.action == action) return &spec;
  return nullptr;
}

bool Protocol::is_csms_call(std::string_view action) const {
  return std::find(csms_calls.begin(), csms_calls.end(), action) != csms_calls.end();
}

InboundResult dispatch(const Protocol& protocol, const CallContext& caller, std::string_view text) {
  CallContext ctx = caller;
  if (auto from_tape = dispatch_from_tape(protocol, ctx, text)) return std::move(*from_tape);
  ParseResult parsed = parse_frame(text);
  if (!parsed.frame) {
    ctx.message_id = clip(parsed.message_id.value_or(""));
    ctx.action = clip(parsed.action.value_or(""));
    const bool answer =
        parsed.type != MessageType::CallResult && parsed.type != MessageType::CallError;
    InboundResult r = refuse(ctx, invalid_event(ctx, text, parsed.error.description),
                             ctx.message_id, parsed.error, answer);
    r.stored_frame = stored_refused(std::nullopt, text);
    return r;
  }
  Frame& frame = *parsed.frame;
  ctx.message_id = frame.message_id;
  if (frame.type != MessageType::Call) {
    InboundResult r;
    r.type = frame.type;
    r.response = std::move(frame);
    return r;  // the session matches it against its pending calls
  }

  ctx.action = clip(frame.action);
  const std::optional<std::string> redacted = redacted_call(ctx, frame, text);
  const ActionSpec* spec = protocol.find(frame.action);
  auto refuse_this = [&](const CallError& error) {
    return refuse_call(ctx, spec, redacted, text, frame.message_id, error);
  };
  if (!spec) return refuse_this({RpcError::NotImplemented, "unknown action '" + ctx.action + "'"});
  // After a BootNotification answered Pending or Rejected the charge point must not send other
  // requests (OCPP 1.6 section 4.2). OCPP 2.0.1 B01.FR.10 and B02.FR.09 give the CSMS's answer
  // to one that does anyway: CALLERROR SecurityError, a code 1.6 OCPP-J defines too, so both
  // versions get it. A charge point that has not booted on this gateway is not refused: after
  // a reconnect it need not boot again (OCPP-J 1.6 / 2.0.1 part 4).
  if (frame.action != "BootNotification" && !ctx.state.accepts_call(ctx))
    return refuse_this({RpcError::SecurityError,
                        ctx.action + " before the charge point's registration was accepted"});
  if (too_large_for(ctx, frame.action, text.size()))
    return refuse_this({RpcError::GenericError,
                        ctx.action + " of " + std::to_string(text.size()) + " bytes; at most " +
                            std::to_string(ctx.policy.max_call_bytes) + " for this action"});

  if (const size_t bound = events_upper_bound(frame.payload);
      bound > ctx.policy.max_events_per_frame)
    return refuse_this({RpcError::OccurrenceConstraintViolation,
                        std::to_string(bound) + " meterValue entries; at most " +
                            std::to_string(ctx.policy.max_events_per_frame) + " per frame"});

  const ValidationOutcome request_check =
      protocol.schemas.validate(schema_name(protocol, frame.action, false), frame.payload);
  if (!request_check.ok) {
    if (ctx.mode == ValidationMode::Strict)
      return refuse_this({request_check.code, request_check.summary()});
    ctx.flags.emplace_back(analytics::flag::kSchemaViolation);
    ctx.violations = violations_json(request_check);
  }
  return answer_call(protocol, ctx, *spec, frame.message_id, frame.payload, spec->handle,
                     spec->to_events, request_check, redacted, text);
}

Event invalid_event(const CallContext& ctx, std::string_view raw, std::string_view reason) {
  EventBuilder builder(ctx, std::string(raw));
  Event& e = builder.add(EventType::Invalid);
  e.extra["raw"] = json(std::string(util::utf8_prefix(raw, kMaxRawKept)));
  if (raw.size() > kMaxRawKept) e.extra["raw_truncated_from"] = raw.size();
  e.extra["reason"] = std::string(reason);
  auto events = std::move(builder).finish();
  return std::move(events.front());
}

namespace {

// An event the gateway makes itself (no frame behind it): `identity` makes its event id unique,
// `details` becomes extra.
Event gateway_made_event(const CallContext& ctx, EventType type, const std::string& identity,
                         const json& details) {
  EventBuilder builder(ctx, identity);
  Event& e = builder.add(type);
  e.extra = details.is_object() ? details : json::object();
  auto events = std::move(builder).finish();
  return std::move(events.front());
}

}  // namespace

Event connection_event(const CallContext& ctx, std::string_view state, const json& details) {
  json extra = details.is_object() ? details : json::object();
  extra["state"] = std::string(state);
  return gateway_made_event(ctx, EventType::Connection,
                            std::string(state) + ":" + std::to_string(ctx.ingest_ts_ms), extra);
}

Event csms_call_event(const CallContext& ctx, const json& details) {
  return gateway_made_event(ctx, EventType::CsmsCall,
                            "csms_call:" + ctx.message_id + ":" + std::to_string(ctx.ingest_ts_ms),
                            details);
}

Event refusal_security_event(const CallContext& ctx, const json& details) {
  return gateway_made_event(ctx, EventType::SecurityEvent,
                            "refusal:" + details.value("remote_address", std::string()) + ":" +
                                std::to_string(ctx.ingest_ts_ms),
                            details);
}

}  // namespace ocppgw::rpc
