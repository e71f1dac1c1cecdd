-- 0003: the event log is read by seq (publisher, analytics catch-up, replays) and by charge point;
-- nothing looks events up by event_id here (consumers and analytics dedup on their side), and the
-- index cost a B-tree insert of a random 32-char key per event on the ack path.
DROP INDEX IF EXISTS events_by_event_id;
