// tests/unit/rpc/rpc_error_test.cpp: CALLERROR spellings differ between 1.6 and 2.0.1.
#include "rpc/rpc_error.hpp"

#include <gtest/gtest.h>

namespace ocppgw::rpc {
namespace {

TEST(RpcError, WireNamesUseEachVersionsSpelling) {
  struct Row {
    RpcError e;
    std::string_view v16, v201;
  };
  const Row rows[] = {
      {RpcError::FormationViolation, "FormationViolation", "FormatViolation"},
      {RpcError::OccurrenceConstraintViolation, "OccurenceConstraintViolation",
       "OccurrenceConstraintViolation"},
      {RpcError::ProtocolError, "ProtocolError", "ProtocolError"},
      {RpcError::NotImplemented, "NotImplemented", "NotImplemented"},
      {RpcError::NotSupported, "NotSupported", "NotSupported"},
      {RpcError::MessageTypeNotSupported, "NotSupported", "MessageTypeNotSupported"},
      {RpcError::RpcFrameworkError, "ProtocolError", "RpcFrameworkError"},
      {RpcError::InternalError, "InternalError", "InternalError"},
      {RpcError::SecurityError, "SecurityError", "SecurityError"},
      {RpcError::PropertyConstraintViolation, "PropertyConstraintViolation",
       "PropertyConstraintViolation"},
      {RpcError::TypeConstraintViolation, "TypeConstraintViolation", "TypeConstraintViolation"},
      {RpcError::GenericError, "GenericError", "GenericError"},
  };
  for (const auto& r : rows) {
    EXPECT_EQ(wire_name(r.e, OcppVersion::v16), r.v16);
    EXPECT_EQ(wire_name(r.e, OcppVersion::v201), r.v201);
  }
}

TEST(RpcError, VersionNamesAndSubprotocols) {
  EXPECT_EQ(to_string(OcppVersion::v16), "1.6");
  EXPECT_EQ(to_string(OcppVersion::v201), "2.0.1");
  EXPECT_EQ(subprotocol(OcppVersion::v16), "ocpp1.6");
  EXPECT_EQ(subprotocol(OcppVersion::v201), "ocpp2.0.1");
}

}  // namespace
}  // namespace ocppgw::rpc
