// rpc/frame.hpp: OCPP-J framing, version-neutral.
//   CALL       [2, "<id>", "<action>", {payload}]
//   CALLRESULT [3, "<id>", {payload}]
//   CALLERROR  [4, "<id>", "<code>", "<description>", {details}]
// Parsing never throws: a bad frame yields a CallError plus the message id whenever it could be
// read, so the caller can always echo it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "rpc/rpc_error.hpp"

namespace ocppgw::rpc {

enum class MessageType { Call = 2, CallResult = 3, CallError = 4 };

struct Frame {
  MessageType type = MessageType::Call;
  std::string message_id;
  std::string action;             // CALL only
  nlohmann::json payload;         // CALL and CALLRESULT
  std::string error_code;         // CALLERROR only
  std::string error_description;  // CALLERROR only
  nlohmann::json error_details;   // CALLERROR only
};

struct ParseResult {
  std::optional<Frame> frame;             // set on success
  CallError error;                        // set on failure
  std::optional<std::string> message_id;  // readable id of a bad frame, if any
  std::optional<std::string> action;      // readable action of a bad CALL, if any
  // Message type of a bad frame when it was a readable 2, 3 or 4: a broken CALLRESULT or
  // CALLERROR is never answered with a CALLERROR.
  std::optional<MessageType> type;
};

// OCPP-J limits message ids to 36 characters.
inline constexpr size_t kMaxMessageIdLength = 36;
// Deeper JSON nesting than any OCPP message needs is refused before it is parsed: serialising,
// validating or destroying such a document recurses once per level.
inline constexpr int kMaxNestingDepth = 32;

ParseResult parse_frame(std::string_view text);

std::string serialize_call(std::string_view message_id, std::string_view action,
                           const nlohmann::json& payload);
std::string serialize_call_result(std::string_view message_id, const nlohmann::json& payload);
std::string serialize_call_error(std::string_view message_id, RpcError code, OcppVersion version,
                                 std::string_view description,
                                 const nlohmann::json& details = nlohmann::json::object());

}  // namespace ocppgw::rpc
