-- 0006_charge_point_security_profile: the OCPP security profile an operator assigned to a
-- charge point (0: none, 1: HTTP Basic over ws, 2: TLS + HTTP Basic, 3: TLS client
-- certificate); NULL: none assigned. Set by `ocppgw charge-points set-security-profile` and the
-- REST API (docs/api.md), shown in the charge point view. A connection that provides a lower
-- profile is refused at the upgrade (gateway/http_session.cpp).
ALTER TABLE charge_points ADD COLUMN security_profile INTEGER
  CHECK (security_profile IS NULL OR security_profile BETWEEN 0 AND 3);
