// rpc/certificate_request.hpp: SignCertificate, the part both versions share. The version
// handlers only read their request and write their answer (1.6 has a status alone, 2.0.1 adds
// statusInfo).
#pragma once

#include "rpc/action.hpp"

namespace ocppgw::rpc {

// Asks the CSMS state whether it will have the CSR signed and records the outcome in ctx: an
// accepted request in ctx.certificate_to_sign (signed and sent once the answer is out), a
// suspicious one in ctx.security_finding (a SecurityEvent beside the frame's own event).
CertificateDecision request_certificate(CallContext& ctx, CertificateRequest req);

}  // namespace ocppgw::rpc
