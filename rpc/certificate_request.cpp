// rpc/certificate_request.cpp
#include "rpc/certificate_request.hpp"

namespace ocppgw::rpc {

CertificateDecision request_certificate(CallContext& ctx, CertificateRequest req) {
  CertificateDecision decision = ctx.state.certificate_request(ctx, req);
  if (decision.accepted) {
    ctx.certificate_to_sign = std::move(req);
  } else if (decision.suspicious) {
    ctx.security_finding = nlohmann::json{{"source", "gateway"},
                                          {"type", "InvalidCertificateRequest"},
                                          {"certificate_type", req.certificate_type},
                                          {"reason_code", decision.reason_code},
                                          {"reason", decision.detail}};
  }
  return decision;
}

}  // namespace ocppgw::rpc
