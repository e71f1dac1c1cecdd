// ocpp201/protocol.hpp: OCPP 2.0.1 as an rpc::Protocol: the official 2.0.1 JSON schemas
// (schemas/, embedded at build time) and the table of every charge-point-initiated action.
// The returned object is built once, on first use, and is immutable and shared by all threads.
#pragma once

#include "rpc/action.hpp"

namespace ocppgw::ocpp201 {

const rpc::Protocol& protocol();

}  // namespace ocppgw::ocpp201
