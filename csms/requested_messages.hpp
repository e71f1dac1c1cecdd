// csms/requested_messages.hpp: which charge point requests a CSMS call asks for. While a charge
// point's registration is Pending it may send nothing of its own accord (OCPP 1.6 section 4.2,
// 2.0.1 B02), but what the central system asked for is the point of Pending: the messages a
// TriggerMessage names, the reports a Get...Report or GetDisplayMessages brings, the status
// notifications of a firmware update or a log upload. SqliteCsmsState lets these through.
#pragma once

#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "rpc/rpc_error.hpp"  // rpc::OcppVersion

namespace ocppgw::csms {

// The actions the charge point may send in answer to `action` (with its `request`) that it
// accepted; empty when the call asks for none. The views point into a static table or into
// `request`: copy them before `request` goes.
std::vector<std::string_view> requested_messages(rpc::OcppVersion version, std::string_view action,
                                                 const nlohmann::json& request);

}  // namespace ocppgw::csms
