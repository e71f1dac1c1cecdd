-- analytics/migrations/0005_event_ids_packed.sql: the dedup registry keeps the gateway's event
-- ids (32 hex digits) as their 16 bytes instead of their text, so its tree is about half as
-- large and each new id touches fewer pages once the tree outgrows the cache. event_id_key()
-- is registered by the pipeline (analytics/event_id_key.hpp), which also reads and writes every
-- key through it. The column is declared BLOB (no type conversion): it holds 16-byte blobs and,
-- for ids of any other shape, their text.
CREATE TABLE event_ids_packed (
  event_id BLOB PRIMARY KEY,
  place    TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO event_ids_packed(event_id, place) SELECT event_id_key(event_id), place FROM event_ids;
DROP TABLE event_ids;
ALTER TABLE event_ids_packed RENAME TO event_ids;
