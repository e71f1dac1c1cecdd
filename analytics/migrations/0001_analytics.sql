-- analytics/migrations/0001_analytics.sql: the analytics store (data/analytics.db), separate from
-- the gateway's event log. Silver (silver_events, duplicate_events_audit, quarantine_events),
-- Gold (charging_sessions, connector_status_history, connector_current_status,
-- charge_point_health, charging_stats_daily) and data-quality tables. Timestamps are INTEGER
-- milliseconds since the Unix epoch (UTC); read models format them as RFC 3339.
-- Written only by analytics::Pipeline.

-- Scalars of the pipeline: raw_total (every input row counted once), data_clock_ms, batch_seq,
-- alerts_total, conservation_violations.
CREATE TABLE pipeline_state (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;

-- Row counts of the three Silver outputs, maintained from what SQLite reports it wrote (not by
-- the routing's own counters), so the conservation check compares the pipeline's raw counter
-- with what the tables really hold. Inserts are counted per batch since 0002; deletes and
-- REPLAYED updates by the triggers below.
CREATE TABLE table_counts (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO table_counts VALUES ('silver', 0), ('duplicates', 0), ('quarantine', 0);

-- Technical dedup registry: where the first copy of each event_id went (S, D or Q).
CREATE TABLE event_ids (
  event_id TEXT PRIMARY KEY,
  place    TEXT NOT NULL
) WITHOUT ROWID;

-- Silver: valid, normalised, deduplicated events (one per business key), event time.
CREATE TABLE silver_events (
  silver_id        INTEGER PRIMARY KEY,
  event_id         TEXT NOT NULL,
  business_key     TEXT NOT NULL,
  charge_point_id  TEXT NOT NULL CHECK (charge_point_id <> ''),
  connector_id     INTEGER,
  evse_id          INTEGER,
  event_type       TEXT NOT NULL,
  ocpp_action      TEXT NOT NULL,
  message_id       TEXT,
  event_ts         INTEGER NOT NULL,
  ingest_ts        INTEGER NOT NULL,
  transaction_id   TEXT,
  seq_no           INTEGER,
  trigger_reason   TEXT,
  meter_wh         REAL CHECK (meter_wh IS NULL OR meter_wh >= 0),
  power_w          REAL,
  current_a        REAL,
  voltage_v        REAL,
  soc_pct          REAL,
  connector_status TEXT,
  error_code       TEXT,
  stop_reason      TEXT,
  id_token_hash    TEXT,
  ocpp_version     TEXT NOT NULL,
  schema_version   INTEGER NOT NULL,
  gateway_node     TEXT NOT NULL,
  flags            TEXT NOT NULL,  -- JSON array: gateway flags plus Silver's (CLOCK_SKEW, ...)
  extra            TEXT NOT NULL,  -- JSON object: fields the mapper did not model
  source           TEXT NOT NULL,
  batch_id         INTEGER NOT NULL
);
CREATE UNIQUE INDEX silver_business_key ON silver_events(business_key);
-- Session recompute: all events of (charge point, transaction).
CREATE INDEX silver_session ON silver_events(charge_point_id, transaction_id)
  WHERE transaction_id IS NOT NULL;
-- Health (last heartbeat/boot/connection per type) and connector status history.
CREATE INDEX silver_cp_type_ts ON silver_events(charge_point_id, event_type, event_ts);

CREATE TABLE duplicate_events_audit (
  audit_id         INTEGER PRIMARY KEY,
  event_id         TEXT NOT NULL,
  duplicate_type   TEXT NOT NULL CHECK (duplicate_type IN ('TECHNICAL', 'BUSINESS')),
  winner_event_id  TEXT NOT NULL,
  business_key     TEXT,
  charge_point_id  TEXT,
  event_type       TEXT,
  event_ts         INTEGER,
  ingest_ts        INTEGER,
  payload          TEXT NOT NULL,  -- canonical event JSON of the removed copy
  source           TEXT NOT NULL,
  batch_id         INTEGER NOT NULL
);
CREATE INDEX dup_winner ON duplicate_events_audit(winner_event_id);
CREATE INDEX dup_business_key ON duplicate_events_audit(business_key)
  WHERE duplicate_type = 'BUSINESS';

CREATE TABLE quarantine_events (
  quarantine_id    INTEGER PRIMARY KEY,
  event_id         TEXT,
  charge_point_id  TEXT,
  transaction_id   TEXT,
  business_key     TEXT,
  meter_wh         REAL,
  reason           TEXT NOT NULL,
  violations       TEXT NOT NULL,  -- JSON array of every reason code found
  detail           TEXT NOT NULL,
  raw_payload      TEXT NOT NULL,  -- exactly as received
  kafka_key        TEXT,
  source           TEXT NOT NULL,
  status           TEXT NOT NULL DEFAULT 'NEW'
                   CHECK (status IN ('NEW', 'REPAIRED', 'DISCARDED', 'REPLAYED')),
  repaired_payload TEXT,
  reviewed_by      TEXT,
  replay_outcome   TEXT,
  quarantined_at   INTEGER NOT NULL,
  batch_id         INTEGER NOT NULL
);
CREATE INDEX quarantine_status ON quarantine_events(status, quarantine_id);
CREATE INDEX quarantine_reason ON quarantine_events(reason, status);
CREATE INDEX quarantine_conflict_key ON quarantine_events(business_key)
  WHERE reason = 'CONFLICT';
CREATE INDEX quarantine_conflict_session ON quarantine_events(charge_point_id, transaction_id)
  WHERE reason = 'CONFLICT';

CREATE TRIGGER silver_count_ins AFTER INSERT ON silver_events BEGIN
  UPDATE table_counts SET value = value + 1 WHERE name = 'silver'; END;
CREATE TRIGGER silver_count_del AFTER DELETE ON silver_events BEGIN
  UPDATE table_counts SET value = value - 1 WHERE name = 'silver'; END;
CREATE TRIGGER dup_count_ins AFTER INSERT ON duplicate_events_audit BEGIN
  UPDATE table_counts SET value = value + 1 WHERE name = 'duplicates'; END;
CREATE TRIGGER dup_count_del AFTER DELETE ON duplicate_events_audit BEGIN
  UPDATE table_counts SET value = value - 1 WHERE name = 'duplicates'; END;
-- A REPLAYED quarantine row has handed its event back to Silver: it leaves the live count.
CREATE TRIGGER quarantine_count_ins AFTER INSERT ON quarantine_events
  WHEN NEW.status <> 'REPLAYED' BEGIN
  UPDATE table_counts SET value = value + 1 WHERE name = 'quarantine'; END;
CREATE TRIGGER quarantine_count_del AFTER DELETE ON quarantine_events
  WHEN OLD.status <> 'REPLAYED' BEGIN
  UPDATE table_counts SET value = value - 1 WHERE name = 'quarantine'; END;
CREATE TRIGGER quarantine_count_replayed AFTER UPDATE OF status ON quarantine_events
  WHEN NEW.status = 'REPLAYED' AND OLD.status <> 'REPLAYED' BEGIN
  UPDATE table_counts SET value = value - 1 WHERE name = 'quarantine'; END;

-- ---- Gold: pure functions of Silver, recomputed per affected key ----

CREATE TABLE charging_sessions (
  session_id       TEXT PRIMARY KEY,  -- sha256(charge_point_id '|' transaction_id), 32 hex
  charge_point_id  TEXT NOT NULL,
  connector_id     INTEGER,
  transaction_id   TEXT NOT NULL,
  start_ts         INTEGER,
  stop_ts          INTEGER,
  first_event_ts   INTEGER NOT NULL,
  last_event_ts    INTEGER NOT NULL,
  duration_seconds INTEGER,
  meter_start_wh   REAL,
  meter_stop_wh    REAL,
  last_meter_wh    REAL,
  energy_kwh       REAL CHECK (energy_kwh IS NULL OR energy_kwh >= 0),
  energy_is_final  INTEGER NOT NULL,
  session_status   TEXT NOT NULL
                   CHECK (session_status IN ('IN_PROGRESS', 'COMPLETED', 'TIMED_OUT', 'START_MISSING')),
  stop_reason      TEXT,
  event_count      INTEGER NOT NULL,
  quality_flags    TEXT NOT NULL,     -- JSON array, sorted
  stats_day        TEXT NOT NULL,     -- YYYY-MM-DD of the start (configured UTC offset)
  is_open          INTEGER NOT NULL,  -- no stop and not timed out: the sweeper's work list
  row_hash         TEXT NOT NULL,
  updated_at       INTEGER NOT NULL,
  UNIQUE (charge_point_id, transaction_id)
);
CREATE INDEX sessions_cp_day ON charging_sessions(charge_point_id, stats_day);
CREATE INDEX sessions_open ON charging_sessions(last_event_ts) WHERE is_open = 1;
CREATE INDEX sessions_recent ON charging_sessions(last_event_ts);

CREATE TABLE connector_status_history (
  charge_point_id  TEXT NOT NULL,
  evse_id          INTEGER NOT NULL,  -- 0 when the message has none (1.6)
  connector_id     INTEGER NOT NULL,
  valid_from       INTEGER NOT NULL,
  event_id         TEXT NOT NULL,
  valid_to         INTEGER,           -- NULL: current
  status           TEXT NOT NULL,
  error_code       TEXT,
  seq_no           INTEGER,
  PRIMARY KEY (charge_point_id, evse_id, connector_id, valid_from, event_id)
) WITHOUT ROWID;

CREATE TABLE connector_current_status (
  charge_point_id  TEXT NOT NULL,
  evse_id          INTEGER NOT NULL,
  connector_id     INTEGER NOT NULL,
  status           TEXT NOT NULL,
  error_code       TEXT,
  status_since     INTEGER NOT NULL,
  event_id         TEXT NOT NULL,
  seq_no           INTEGER,
  PRIMARY KEY (charge_point_id, evse_id, connector_id)
) WITHOUT ROWID;
CREATE INDEX current_status_status ON connector_current_status(status);

CREATE TABLE charge_point_health (
  charge_point_id       TEXT PRIMARY KEY,
  last_heartbeat_ts     INTEGER,
  last_seen_ts          INTEGER NOT NULL,
  connection_state      TEXT,     -- connected | disconnected (latest Connection event)
  connection_changed_ts INTEGER,
  last_boot_ts          INTEGER,
  vendor                TEXT,
  model                 TEXT,
  firmware_version      TEXT,
  heartbeat_interval_s  INTEGER NOT NULL,
  offline_deadline_ts   INTEGER NOT NULL,  -- last_seen + N missed heartbeats
  liveness              TEXT NOT NULL CHECK (liveness IN ('ONLINE', 'OFFLINE', 'DISCONNECTED'))
) WITHOUT ROWID;
CREATE INDEX health_online_deadline ON charge_point_health(offline_deadline_ts)
  WHERE liveness = 'ONLINE';
CREATE INDEX health_liveness ON charge_point_health(liveness);

CREATE TABLE charging_stats_daily (
  charge_point_id        TEXT NOT NULL,
  day                    TEXT NOT NULL,
  sessions_total         INTEGER NOT NULL,
  sessions_started       INTEGER NOT NULL,
  sessions_completed     INTEGER NOT NULL,
  sessions_timed_out     INTEGER NOT NULL,
  sessions_in_progress   INTEGER NOT NULL,
  sessions_start_missing INTEGER NOT NULL,
  energy_kwh_final       REAL NOT NULL,
  energy_kwh_provisional REAL NOT NULL,
  avg_duration_seconds   REAL,      -- over completed sessions
  PRIMARY KEY (charge_point_id, day)
) WITHOUT ROWID;
CREATE INDEX daily_day ON charging_stats_daily(day);

-- ---- Data quality ----

CREATE TABLE dq_batches (
  batch_id               INTEGER PRIMARY KEY,
  source                 TEXT NOT NULL,
  finished_at            INTEGER NOT NULL,   -- wall clock
  raw                    INTEGER NOT NULL,
  silver                 INTEGER NOT NULL,
  technical_duplicates   INTEGER NOT NULL,
  business_duplicates    INTEGER NOT NULL,
  quarantined            INTEGER NOT NULL,
  quarantined_by_reason  TEXT NOT NULL,      -- JSON object reason -> count
  conflicts              INTEGER NOT NULL,
  demoted_winners        INTEGER NOT NULL,
  unknown_field_events   INTEGER NOT NULL,
  lag_p50_ms             INTEGER,
  lag_p95_ms             INTEGER,
  lag_p99_ms             INTEGER,
  sessions_recomputed    INTEGER NOT NULL,
  sessions_swept         INTEGER NOT NULL,
  raw_total              INTEGER NOT NULL,
  silver_total           INTEGER NOT NULL,
  duplicate_total        INTEGER NOT NULL,
  quarantine_total       INTEGER NOT NULL,
  conservation_ok        INTEGER NOT NULL,
  duration_us            INTEGER NOT NULL
);

-- Rolling totals by metric name (e.g. 'quarantine:CONFLICT', 'technical_duplicates').
CREATE TABLE dq_totals (
  metric TEXT PRIMARY KEY,
  value  INTEGER NOT NULL
) WITHOUT ROWID;

-- Rolling late-arrival lag histogram (ingest_ts - event_ts), log-spaced buckets.
CREATE TABLE dq_lag_histogram (
  bucket_upper_ms INTEGER PRIMARY KEY,
  events          INTEGER NOT NULL
) WITHOUT ROWID;

-- Clock skew per charge point: device time ahead of gateway receive time.
CREATE TABLE dq_clock_skew (
  charge_point_id TEXT PRIMARY KEY,
  events          INTEGER NOT NULL,
  skewed_events   INTEGER NOT NULL,
  max_ahead_ms    INTEGER NOT NULL,
  last_offset_ms  INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE dq_alerts (
  alert_id    INTEGER PRIMARY KEY,
  raised_at   INTEGER NOT NULL,
  kind        TEXT NOT NULL,
  batch_id    INTEGER,
  detail      TEXT NOT NULL
);
