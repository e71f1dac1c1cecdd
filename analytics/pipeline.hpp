// analytics/pipeline.hpp: the analytics pipeline, the single writer of the analytics store
// (Silver, Gold and data-quality tables in their own SQLite file, e.g. data/analytics.db, so it
// never contends with the gateway's event-log write lock).
//
// Each call to ingest()/ingest_raw() is one batch and one SQLite transaction. Pipeline drives it
// (transaction, data clock, sweeper, quarantine workflow); each step has its own file:
//   1. Silver (silver_writer.hpp): validate/normalise (silver_rules.hpp), quarantine what fails;
//      technical dedup by event_id (first copy wins, later copies go to the duplicate audit);
//      business dedup by business key with a deterministic winner (earliest event_ts, then
//      ingest_ts, then event_id). A later-arriving event that beats the stored winner takes its
//      place and the old winner moves to the audit; audit rows always carry the current winner's
//      id. Two events with one business key but different meter values are a CONFLICT: every
//      event of that key (the stored winner, its audited duplicates and all later arrivals) goes
//      to quarantine, so neither reading is trusted and the outcome does not depend on arrival
//      order. The key stays in conflict while any of its CONFLICT rows is NEW or REPAIRED; an
//      operator resolves it by discarding the wrong reading and replaying the right one.
//   2. Gold (gold/gold.hpp): the affected keys (session = charge point + transaction, connector,
//      charge point, charge point + day) are recomputed from all their Silver rows with
//      gold_rules.hpp. The data clock (max over validated events of min(event_ts, ingest_ts +
//      skew tolerance), so a charger with a clock years ahead cannot time out the fleet) drives a
//      sweeper that recomputes open sessions past the timeout and online charge points past their
//      heartbeat deadline, so the final Gold is the same whatever order and batching the events
//      came in.
//   3. Data quality (dq_metrics.hpp): a dq_batches row, rolling totals, lag histogram, clock
//      skew per charge point; then the conservation law raw = silver + duplicates + live
//      quarantine (row counts from what SQLite reports it wrote, compared with the pipeline's
//      raw counter). A
//      violation records a dq_alerts row, bumps conservation_violations and logs an error.
// reconcile.hpp checks that Gold is a pure function of Silver; pipeline_state.hpp holds the
// counters that commit with each batch.
// Silver never rejects late data; replaying the same events again only adds technical
// duplicates to the audit. Threading: one thread at a time (LivePipeline owns it in the
// gateway); readers use their own connections (read_models.hpp), WAL lets them run concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analytics/batch_report.hpp"
#include "analytics/event.hpp"
#include "analytics/gold_rules.hpp"
#include "analytics/reconcile.hpp"
#include "analytics/silver_rules.hpp"
#include "storage/checkpointer.hpp"
#include "storage/db.hpp"

namespace ocppgw::analytics {

// The batch's working state (batch.hpp), internal to the pipeline.
struct Item;
struct Batch;

struct PipelineOptions {
  std::string path = "data/analytics.db";
  SilverRules silver;
  GoldRules gold;
  // synchronous=FULL. The store is rebuildable from the gateway's event log, so a caller that
  // catches up from the log's watermark (LivePipeline with an event log) may use NORMAL.
  bool durable = true;
  // SQLite page cache of the writer connection. Past a few MiB it buys nothing: the batches
  // touch index pages at random keys across the whole store, which no cache of a size a
  // gateway can spare holds, and misses are served from the kernel's page cache. 16 MiB and
  // 64 MiB replay at the same rate side by side (BENCHMARKS.md, "what the slow ramp held");
  // each MiB here is RSS the process holds for good.
  int cache_mb = 16;
};

class Pipeline {
 public:
  static std::unique_ptr<Pipeline> open(const PipelineOptions& options, storage::Status* status);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // In-process batch (already typed events, e.g. from the event sink). A non-zero
  // `event_log_seq` is the gateway event-log position of the batch's last event; it is stored
  // with the batch (same transaction) as the watermark event_log_seq() returns.
  BatchReport ingest(std::span<const Event> events, Source source = Source::Live,
                     int64_t event_log_seq = 0);
  // The same for events held elsewhere (the live pipeline's offers): none is copied to batch.
  BatchReport ingest(std::span<const Event* const> events, Source source = Source::Live,
                     int64_t event_log_seq = 0);
  // Replay of JSON text (event-log rows, Kafka messages with their key, JSON-lines lines).
  BatchReport ingest_raw(std::span<const RawInput> inputs, Source source,
                         int64_t event_log_seq = 0);
  // The last gateway event-log seq ingested (0: none, or the store was reset).
  int64_t event_log_seq();
  // Runs the sweeper alone (e.g. on an idle timer); batches already sweep.
  BatchReport sweep();

  // Recomputes every Gold table from Silver into temp tables and compares; `repair` then
  // replaces Gold with the recomputed tables.
  ReconcileReport reconcile(bool repair = false);
  // Empties Silver, Gold, quarantine and metrics (for `ocppgw rebuild`).
  storage::Status reset();

  // Quarantine workflow. repair: NEW/REPAIRED -> REPAIRED with a corrected payload (canonical
  // event JSON). discard: NEW/REPAIRED -> DISCARDED. replay: NEW/REPAIRED rows (all REPAIRED ones
  // when `ids` is empty) go through the same Silver logic as fresh input and become REPLAYED;
  // their outcome is recorded on the row. DISCARDED/REPLAYED rows are refused.
  storage::Status repair(int64_t quarantine_id, std::string_view payload,
                         std::string_view reviewer);
  storage::Status discard(int64_t quarantine_id, std::string_view reviewer);
  BatchReport replay(const std::vector<int64_t>& ids);

  ConservationCounts counts();
  int64_t data_clock_ms() const { return data_clock_ms_; }
  const PipelineOptions& options() const { return options_; }
  storage::Db& db() { return *db_; }

 private:
  Pipeline(std::unique_ptr<storage::Db> db, PipelineOptions options);
  BatchReport run_batch(std::vector<Item>& items, Source source,
                        const std::function<storage::Status(Batch&)>& before,
                        int64_t event_log_seq = 0);
  // The sweeper: adds open sessions past the timeout and online charge points past their
  // heartbeat deadline (on the data clock) to the keys the batch recomputes.
  void add_expired_keys(Batch& b);

  std::unique_ptr<storage::Db> db_;
  // WAL checkpoints on their own thread (storage/checkpointer.hpp); destroyed before db_.
  std::unique_ptr<storage::Checkpointer> checkpointer_;
  PipelineOptions options_;
  int64_t data_clock_ms_ = 0;
  // Each session's fold over its Silver events as of the last committed batch (see
  // SessionFold), so in-order arrivals do not re-read the whole session. Cleared on rollback and
  // reset; dropped whole when it outgrows kMaxSessionFolds (open sessions of a large fleet fit).
  static constexpr size_t kMaxSessionFolds = 100000;
  std::map<std::pair<std::string, std::string>, SessionFold> session_folds_;
};

}  // namespace ocppgw::analytics
