// fuzz/dispatch_fuzz.cpp: one version's whole inbound path (frame parse, schema validation,
// handler, response validation, event mapping) on arbitrary input, built once per version
// (OCPPGW_FUZZ_VERSION_201 picks 2.0.1). The CsmsState is the unit tests' in-memory fake, so
// the target is deterministic and needs no database.
// Input: one flag byte, then the frame. Flag bit 0: lenient instead of strict validation; bit 1:
// the rest is a whole frame as sent; else it is "<Action>\n<payload>" and becomes a CALL of that
// action (so most mutations reach a handler instead of stopping at the frame parser).
// Whatever the input, a well-formed CALL gets an answer (CALLRESULT or CALLERROR) for its own
// message id, every frame but a charge point's answer gives at least one event, nothing throws,
// and in strict mode the frame read as a tree gives exactly what the gateway's road gave.
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "analytics/event.hpp"
#include "fuzz/json_depth.hpp"
#include "rpc/dispatcher.hpp"
#include "rpc/frame.hpp"
#include "tests/support/fake_csms_state.hpp"
#include "tests/unit/rpc/context.hpp"
#ifdef OCPPGW_FUZZ_VERSION_201
#include "ocpp201/protocol.hpp"
namespace version = ocppgw::ocpp201;
constexpr auto kVersion = ocppgw::rpc::OcppVersion::v201;
#else
#include "ocpp16/protocol.hpp"
namespace version = ocppgw::ocpp16;
constexpr auto kVersion = ocppgw::rpc::OcppVersion::v16;
#endif

using namespace ocppgw;

namespace {

// The hot actions are read from a tape (rpc/action.hpp, TapeHandleFn): the same frame read as a
// tree, by a state of its own with the same history (none), must give the very same result.
void same_as_the_tree_road(const rpc::Protocol& protocol, const rpc::CallContext& ctx,
                           const std::string& text, const rpc::InboundResult& r) {
  testing::FakeCsmsState state;
  rpc::Policy policy = ctx.policy;
  policy.tape_reads = false;
  const rpc::CallContext tree_ctx = rpc::make_context(policy, state, ctx.charge_point_id, ctx.mode,
                                                      ctx.ingest_ts_ms, ctx.version);
  const rpc::InboundResult tree = rpc::dispatch(protocol, tree_ctx, text);
  if (tree.from_tape || r.reply != tree.reply || r.error != tree.error ||
      r.error_code != tree.error_code || r.stored_frame != tree.stored_frame ||
      r.type != tree.type || r.spec != tree.spec || r.events.size() != tree.events.size())
    std::abort();
  for (size_t i = 0; i < r.events.size(); ++i)
    if (analytics::to_json_string(r.events[i]) != analytics::to_json_string(tree.events[i]))
      std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const rpc::Protocol& protocol = version::protocol();
  std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  if (!(data[0] & 2)) {
    const size_t newline = text.find('\n');
    if (newline == std::string::npos) return 0;
    const std::string_view body = std::string_view(text).substr(newline + 1);
    if (fuzz::json_depth(body) > rpc::kMaxNestingDepth) return 0;
    const nlohmann::json payload = nlohmann::json::parse(body, nullptr, false);
    if (payload.is_discarded()) return 0;
    // The action as a JSON string (invalid UTF-8 replaced, as a charge point's frame could not
    // carry it), then the frame in the wire format.
    const std::string action = nlohmann::json(text.substr(0, newline))
                                   .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    text = "[2,\"fuzz-1\"," + action + "," + payload.dump() + "]";
  }
  testing::FakeCsmsState state;
  rpc::Policy policy{
      .heartbeat_interval_s = 300, .id_token_secret = "fuzz-secret", .gateway_node = "node-fuzz"};
  const rpc::CallContext ctx =
      rpc::make_context(policy, state, "CP-FUZZ",
                        (data[0] & 1) ? rpc::ValidationMode::Lenient : rpc::ValidationMode::Strict,
                        1717236000000, kVersion);
  const rpc::InboundResult r = rpc::dispatch(protocol, ctx, text);
  const rpc::ParseResult in = rpc::parse_frame(text);
  if (in.frame && in.frame->type == rpc::MessageType::Call) {
    const rpc::ParseResult reply = rpc::parse_frame(r.reply);
    if (!reply.frame || reply.frame->type == rpc::MessageType::Call) std::abort();
    if (reply.frame->message_id != in.frame->message_id) std::abort();
  }
  if (r.events.empty() && !r.response) std::abort();
  if (ctx.mode == rpc::ValidationMode::Strict) same_as_the_tree_road(protocol, ctx, text, r);
  return 0;
}
