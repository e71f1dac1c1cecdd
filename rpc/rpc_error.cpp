// rpc/rpc_error.cpp
#include "rpc/rpc_error.hpp"

namespace ocppgw::rpc {

std::string_view to_string(OcppVersion v) { return v == OcppVersion::v16 ? "1.6" : "2.0.1"; }

std::string_view subprotocol(OcppVersion v) {
  return v == OcppVersion::v16 ? "ocpp1.6" : "ocpp2.0.1";
}

std::string_view wire_name(RpcError e, OcppVersion v) {
  const bool v16 = v == OcppVersion::v16;
  switch (e) {
    case RpcError::FormationViolation:
      return v16 ? "FormationViolation" : "FormatViolation";
    case RpcError::ProtocolError:
      return "ProtocolError";
    case RpcError::NotImplemented:
      return "NotImplemented";
    case RpcError::NotSupported:
      return "NotSupported";
    case RpcError::MessageTypeNotSupported:
      return v16 ? "NotSupported" : "MessageTypeNotSupported";
    case RpcError::RpcFrameworkError:
      return v16 ? "ProtocolError" : "RpcFrameworkError";
    case RpcError::InternalError:
      return "InternalError";
    case RpcError::SecurityError:
      return "SecurityError";
    case RpcError::PropertyConstraintViolation:
      return "PropertyConstraintViolation";
    case RpcError::OccurrenceConstraintViolation:
      return v16 ? "OccurenceConstraintViolation" : "OccurrenceConstraintViolation";
    case RpcError::TypeConstraintViolation:
      return "TypeConstraintViolation";
    case RpcError::GenericError:
      return "GenericError";
  }
  return "GenericError";
}

}  // namespace ocppgw::rpc
