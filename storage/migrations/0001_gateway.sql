-- 0001_gateway: the gateway's durable event log, outbox and CSMS state.
-- Timestamps are milliseconds since the Unix epoch (UTC). Raw id tags are never stored: only
-- HMAC-SHA256 hashes (id_token_hash, id_tag_hash).

-- Every inbound frame as received, valid or not.
CREATE TABLE frames (
  seq INTEGER PRIMARY KEY,
  charge_point_id TEXT NOT NULL,
  received_ms INTEGER NOT NULL,
  text TEXT NOT NULL
);

-- Canonical events (analytics::Event as JSON). event_id is not unique: an exact re-send is kept
-- so analytics can count duplicates.
CREATE TABLE events (
  seq INTEGER PRIMARY KEY,
  event_id TEXT NOT NULL,
  charge_point_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  ocpp_version TEXT NOT NULL,
  event_ts_ms INTEGER NOT NULL,
  ingest_ts_ms INTEGER NOT NULL,
  frame_seq INTEGER,  -- NULL for gateway-made events (Connection)
  json TEXT NOT NULL
);
CREATE INDEX events_by_charge_point ON events (charge_point_id, seq);
CREATE INDEX events_by_event_id ON events (event_id);

-- Events not yet delivered to Kafka; the publisher joins with events and deletes on delivery.
CREATE TABLE outbox (
  event_seq INTEGER PRIMARY KEY
);

CREATE TABLE charge_points (
  id TEXT PRIMARY KEY,
  vendor TEXT,
  model TEXT,
  serial_number TEXT,
  firmware_version TEXT,
  registration_status TEXT,            -- Accepted | Pending | Rejected (last decision)
  first_seen_ms INTEGER NOT NULL,
  last_boot_ms INTEGER,
  ocpp_version TEXT,
  validation_mode TEXT,                -- strict | lenient; NULL: configured default
  basic_auth_password_hash TEXT        -- security profiles 1/2 (later issue)
);

CREATE TABLE id_tokens (
  id_token_hash TEXT PRIMARY KEY,
  status TEXT NOT NULL CHECK (status IN ('Accepted', 'Blocked', 'Expired', 'Invalid')),
  expiry_ms INTEGER,
  parent_id TEXT,                      -- group id as entered, returned as parentIdTag
  updated_ms INTEGER NOT NULL
);

-- OCPP 1.6 transactions issued by this gateway. start_key = HMAC(cp, connector, idTag,
-- timestamp, meterStart): a re-sent identical StartTransaction finds its id here.
CREATE TABLE transactions16 (
  transaction_id INTEGER PRIMARY KEY,
  charge_point_id TEXT NOT NULL,
  connector_id INTEGER NOT NULL,
  id_tag_hash TEXT NOT NULL,
  start_ts_ms INTEGER NOT NULL,
  meter_start INTEGER NOT NULL,
  start_key TEXT NOT NULL UNIQUE,
  stop_ts_ms INTEGER,
  meter_stop INTEGER,
  stop_reason TEXT
);
CREATE INDEX transactions16_active ON transactions16 (stop_ts_ms) WHERE stop_ts_ms IS NULL;

-- Transaction-id allocator: the first n not yet reserved by each node.
CREATE TABLE tx_id_reservations (
  node_index INTEGER PRIMARY KEY,
  next_n INTEGER NOT NULL
);

-- OCPP 2.0.1 transactions as seen through TransactionEvent.
CREATE TABLE transactions201 (
  charge_point_id TEXT NOT NULL,
  transaction_id TEXT NOT NULL,
  last_seq_no INTEGER NOT NULL,
  started INTEGER NOT NULL DEFAULT 0,
  ended INTEGER NOT NULL DEFAULT 0,
  seq_gaps INTEGER NOT NULL DEFAULT 0,
  first_seen_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL,
  PRIMARY KEY (charge_point_id, transaction_id)
);

-- OCPP 2.0.1 NotifyReport parts (reportData as JSON).
CREATE TABLE device_reports (
  charge_point_id TEXT NOT NULL,
  request_id INTEGER NOT NULL,
  seq_no INTEGER NOT NULL,
  received_ms INTEGER NOT NULL,
  json TEXT NOT NULL
);
CREATE INDEX device_reports_by_request ON device_reports (charge_point_id, request_id, seq_no);
