// rpc/rpc_error.hpp: OCPP-J CALLERROR codes, protocol-neutral. The wire spelling differs
// between versions (1.6 "FormationViolation"/"OccurenceConstraintViolation", 2.0.1
// "FormatViolation"/"OccurrenceConstraintViolation"), so it is produced in one place only.
#pragma once

#include <string>
#include <string_view>

namespace ocppgw::rpc {

enum class OcppVersion { v16, v201 };

std::string_view to_string(OcppVersion v);    // "1.6" / "2.0.1"
std::string_view subprotocol(OcppVersion v);  // "ocpp1.6" / "ocpp2.0.1"

enum class RpcError {
  FormationViolation,       // payload or frame not conforming to the PDU structure
  ProtocolError,            // payload incomplete / frame shape wrong
  NotImplemented,           // unknown action
  NotSupported,             // known action we do not support
  MessageTypeNotSupported,  // message type number not 2/3/4
  RpcFrameworkError,        // frame unusable (2.0.1 only; 1.6 says ProtocolError)
  InternalError,
  SecurityError,
  PropertyConstraintViolation,
  OccurrenceConstraintViolation,
  TypeConstraintViolation,
  GenericError,
};

std::string_view wire_name(RpcError e, OcppVersion v);

// A CALLERROR we intend to send: the code plus a human-readable description.
struct CallError {
  RpcError code = RpcError::GenericError;
  std::string description;
};

}  // namespace ocppgw::rpc
