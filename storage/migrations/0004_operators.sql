-- 0004_operators: the people who use the REST API and the page, their login sessions, and the
-- audit log of what they (and the management commands) changed.

-- One row per operator account. Passwords are stored as for charge points
-- (0002_charge_point_credentials): PBKDF2-HMAC-SHA256 with a per-row salt, never the password.
CREATE TABLE operators (
  name TEXT PRIMARY KEY,
  role TEXT NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
  algorithm TEXT NOT NULL,       -- 'pbkdf2-sha256'
  iterations INTEGER NOT NULL,
  salt_hex TEXT NOT NULL,
  derived_key_hex TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL
);

-- Login sessions. The key is SHA-256 of the bearer token (hex), so a copy of the database does
-- not hand out live sessions. Removing an operator removes their sessions (ON DELETE CASCADE;
-- foreign keys are on for every connection, storage/db.cpp). Expired rows are kept for a while
-- so that a late request hears "expired" rather than "unknown", then purged at the next login.
CREATE TABLE operator_sessions (
  token_sha256 TEXT PRIMARY KEY,
  operator_name TEXT NOT NULL REFERENCES operators (name) ON DELETE CASCADE,
  csrf_token TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  expires_ms INTEGER NOT NULL
);
CREATE INDEX operator_sessions_by_operator ON operator_sessions (operator_name);
CREATE INDEX operator_sessions_by_expiry ON operator_sessions (expires_ms);

-- Who did what to which target, when, and how it ended. Append-only; read newest first by id.
-- actor is an operator name, or "cli:<os user>" for the management commands. details is a JSON
-- object (never a password or token).
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY,
  ts_ms INTEGER NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT NOT NULL,
  details TEXT NOT NULL DEFAULT '{}',
  outcome TEXT NOT NULL
);
