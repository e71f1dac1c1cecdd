-- analytics/migrations/0004_silver_sessions_through_business_keys.sql: Silver drops its index by
-- (charge point, transaction). Every insert paid for it, in a page per open transaction per
-- batch (analytics/README.md, "What a batch costs"), while its readers, a session's fold from
-- Silver and the session detail of the read API, run only when a session is read again. They
-- now find a session's rows through the unique business-key index, which every insert already
-- writes: the start's and the stop's keys, and the range that holds exactly the keys of its
-- readings (session_business_keys in analytics/silver_rules.hpp).
DROP INDEX silver_session;
