-- analytics/migrations/0002_count_inserts_per_batch.sql: rows inserted into the three Silver
-- outputs are counted per batch, not per row. A per-row AFTER INSERT trigger made every insert a
-- multi-statement write (a statement journal and a trigger sub-program per row), about a fifth
-- of the pipeline's time (`analytics_bench`, docs/analytics_rules.md "Conservation"). The
-- pipeline now adds SQLite's own change count of each insert statement to table_counts once per
-- batch (analytics/silver_writer.cpp), so the counts still say what the tables received, not
-- what the routing meant to write. Deletes and REPLAYED updates stay counted by triggers: they
-- are rare, and a row lost outside the pipeline still breaks conservation.
DROP TRIGGER silver_count_ins;
DROP TRIGGER dup_count_ins;
DROP TRIGGER quarantine_count_ins;
