-- analytics/migrations/0003_health_index_without_session_readings.sql: silver_cp_type_ts no
-- longer holds the meter readings of transactions, which are most of a charging fleet's Silver
-- rows. A batch rewrites every index page its rows land on, and in a fleet whose chargers all
-- send at once that is a page per charge point per index per batch (analytics/README.md, "What
-- a batch costs"). The index's readers need none of those rows: health's latest Heartbeat,
-- Connection and BootNotification, the connector status history and the connection history
-- read other types, and the latest reading of a transaction is its session's last_event_ts,
-- which health now reads from charging_sessions through sessions_cp_last_event. A query can use
-- a partial index only when its WHERE repeats the index's condition, so the readers add
-- `AND (event_type <> 'MeterValues' OR transaction_id IS NULL)` (kOutsideSessions in
-- analytics/batch.hpp).
DROP INDEX silver_cp_type_ts;
CREATE INDEX silver_cp_type_ts ON silver_events(charge_point_id, event_type, event_ts)
  WHERE event_type <> 'MeterValues' OR transaction_id IS NULL;
CREATE INDEX sessions_cp_last_event ON charging_sessions(charge_point_id, last_event_ts);
