// ocpp16/protocol.hpp: the OCPP 1.6J version package as seen by the gateway. protocol() bundles
// the official 1.6 JSON schemas (embedded at build time, compiled once) with the table of the
// ten charge-point-initiated actions. Both are immutable after first use and safe to share
// between threads; the first call compiles the schemas (C++ guarantees one initialisation).
#pragma once

#include "rpc/action.hpp"

namespace ocppgw::ocpp16 {

const rpc::Protocol& protocol();

}  // namespace ocppgw::ocpp16
