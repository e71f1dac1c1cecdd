// sim/csms_answers.hpp: how a simulated charge point answers the CALLs the gateway sends it
// (CSMS -> charge point actions, e.g. through POST /api/v1/charge-points/{id}/calls/{action}):
// a schema-valid CALLRESULT for every such action of 1.6 and 2.0.1, a CALLERROR, or nothing,
// after a configurable delay (--csms-answer, --csms-answer-delay).
// Pure functions; no threading concerns.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sim/messages.hpp"

namespace ocppgw::sim {

enum class CsmsAnswer {
  Result,  // a CALLRESULT that validates against the action's response schema
  Error,   // a CALLERROR (GenericError)
  Silent,  // no answer at all: the gateway's call times out
};

// The reply frame to an inbound CALL `frame` (the whole OCPP-J text), or nullopt for Silent or
// when `frame` is not a CALL. Actions the simulator does not know get NotImplemented.
std::optional<std::string> answer_csms_call(std::string_view frame, Version version,
                                            CsmsAnswer how);

}  // namespace ocppgw::sim
