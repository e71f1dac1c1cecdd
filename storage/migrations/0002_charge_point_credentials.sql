-- 0002_charge_point_credentials: HTTP Basic passwords of charge points (OCPP security profiles
-- 1 and 2). Only a salted, slow hash is stored, never the password: derived_key is
-- PBKDF2-HMAC-SHA256(password, salt, iterations), hex-encoded like the salt. The algorithm and
-- iteration count are kept per row so that a later, stronger setting applies to new passwords
-- without invalidating old ones.
CREATE TABLE charge_point_credentials (
  charge_point_id TEXT PRIMARY KEY,
  algorithm TEXT NOT NULL,       -- 'pbkdf2-sha256'
  iterations INTEGER NOT NULL,
  salt_hex TEXT NOT NULL,
  derived_key_hex TEXT NOT NULL,
  updated_ms INTEGER NOT NULL
);
