-- 0008: the event log is read by seq only (publisher, analytics catch-up, replays); nothing in
-- the gateway reads it by charge point (per-charge-point views come from the analytics store).
-- With many charge points each insert landed on another leaf of this index, so a group commit
-- of N frames rewrote up to N index pages: about 3.5 KB of WAL per frame, written again by the
-- checkpoint, for an index no query used. An operator who needs it for ad-hoc SQL can create
-- it on a copy of the database.
DROP INDEX IF EXISTS events_by_charge_point;
