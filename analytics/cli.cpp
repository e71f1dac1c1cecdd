// analytics/cli.cpp: `ocppgw rebuild | reconcile | quarantine ...` (see cli.hpp).
#include "analytics/cli.hpp"

#include <fstream>
#include <iostream>
#include <sstream>

#include "analytics/read_models.hpp"
#include "storage/event_log.hpp"

namespace ocppgw::analytics {
namespace {

using nlohmann::json;

std::unique_ptr<Pipeline> open_or_fail(const AnalyticsCliEnv& env) {
  storage::Status s;
  auto p = Pipeline::open(env.analytics, &s);
  if (!p) {
    std::cerr << "cannot open analytics store: " << s.message() << "\n";
    throw CLI::RuntimeError(1);
  }
  return p;
}

void print(const json& j, bool ok) {
  std::cout << j.dump(2) << "\n";
  if (!ok) throw CLI::RuntimeError(1);
}

}  // namespace

json rebuild_from_event_log(Pipeline& pipeline, storage::Db& gateway_db, size_t batch_size,
                            storage::Status* status) {
  storage::Status s = pipeline.reset();
  json summary = {{"batches", 0}, {"events", 0}, {"conservation_violations", 0}};
  int64_t after = 0;
  while (s.ok()) {
    auto rows = storage::read_event_log(gateway_db, after, batch_size, &s);
    if (!s.ok() || rows.empty()) break;
    std::vector<RawInput> inputs;
    inputs.reserve(rows.size());
    for (auto& row : rows) inputs.push_back({std::move(row.json), std::nullopt});
    after = rows.back().seq;
    BatchReport r = pipeline.ingest_raw(inputs, Source::EventLog, after);
    s = r.status;
    summary["batches"] = summary["batches"].get<int64_t>() + 1;
    summary["events"] = summary["events"].get<int64_t>() + static_cast<int64_t>(inputs.size());
    if (!r.conservation_ok)
      summary["conservation_violations"] = summary["conservation_violations"].get<int64_t>() + 1;
  }
  ConservationCounts c = pipeline.counts();
  summary["totals"] = {{"raw", c.raw},
                       {"silver", c.silver},
                       {"duplicates", c.duplicates},
                       {"quarantine", c.quarantine}};
  summary["conservation_ok"] = c.ok();
  summary["last_seq"] = after;
  if (!s.ok()) summary["error"] = s.message();
  if (status) *status = s;
  return summary;
}

namespace {

void add_rebuild_command(CLI::App& app, const std::function<AnalyticsCliEnv()>& env) {
  auto* rebuild = app.add_subcommand(
      "rebuild", "Drop Silver/Gold and replay the gateway event log through analytics");
  auto batch = std::make_shared<size_t>(10000);
  rebuild->add_option("--batch", *batch, "events per pipeline batch")->capture_default_str();
  rebuild->callback([env, batch] {
    AnalyticsCliEnv e = env();
    auto p = open_or_fail(e);
    storage::Status s;
    storage::OpenOptions ro;
    ro.read_only = true;
    auto gw = storage::Db::open(e.gateway_db_path, ro, &s);
    if (!gw) {
      print({{"ok", false}, {"error", "cannot open " + e.gateway_db_path + ": " + s.message()}},
            false);
      return;
    }
    json summary = rebuild_from_event_log(*p, *gw, *batch, &s);
    summary["ok"] = s.ok() && summary["conservation_ok"].get<bool>();
    print(summary, summary["ok"].get<bool>());
  });
}

void add_reconcile_command(CLI::App& app, const std::function<AnalyticsCliEnv()>& env) {
  auto* reconcile =
      app.add_subcommand("reconcile", "Recompute all Gold from Silver and report differences");
  auto repair_gold = std::make_shared<bool>(false);
  reconcile->add_flag("--repair", *repair_gold,
                      "replace Gold with the recomputed tables when they differ");
  reconcile->callback([env, repair_gold] {
    auto p = open_or_fail(env());
    ReconcileReport r = p->reconcile(*repair_gold);
    json j = r.to_json();
    print(j, j["ok"].get<bool>() || (r.repaired && r.status.ok()));
  });
}

// quarantine list | repair | discard | replay.
void add_quarantine_commands(CLI::App& app, const std::function<AnalyticsCliEnv()>& env) {
  auto* quarantine = app.add_subcommand("quarantine", "Inspect and repair quarantined events");
  quarantine->require_subcommand(1);

  struct ListArgs {
    std::string status, reason;
    size_t limit = 50;
    int64_t before = 0;
  };
  auto list_args = std::make_shared<ListArgs>();
  auto* list = quarantine->add_subcommand("list", "List quarantined events, newest first");
  list->add_option("--status", list_args->status, "NEW, REPAIRED, DISCARDED or REPLAYED");
  list->add_option("--reason", list_args->reason, "reason code, e.g. CONFLICT");
  list->add_option("--limit", list_args->limit)->capture_default_str();
  list->add_option("--before", list_args->before, "page: ids below this one");
  list->callback([env, list_args] {
    AnalyticsCliEnv e = env();
    auto p = open_or_fail(e);  // applies migrations on a fresh store
    p.reset();
    storage::Status s;
    auto rm = ReadModels::open(e.analytics.path, &s);
    if (!rm) print({{"ok", false}, {"error", s.message()}}, false);
    auto opt = [](const std::string& v) {
      return v.empty() ? std::nullopt : std::optional<std::string>(v);
    };
    print(rm->quarantine_list(opt(list_args->status), opt(list_args->reason), list_args->before,
                              list_args->limit),
          true);
  });

  struct EditArgs {
    int64_t id = 0;
    std::string payload, by = "cli";
  };
  auto edit = std::make_shared<EditArgs>();
  auto* repair =
      quarantine->add_subcommand("repair", "Attach a corrected payload (status REPAIRED)");
  repair->add_option("id", edit->id)->required();
  repair->add_option("--payload", edit->payload, "corrected canonical event JSON, or @file")
      ->required();
  repair->add_option("--by", edit->by, "reviewer");
  repair->callback([env, edit] {
    std::string payload = edit->payload;
    if (!payload.empty() && payload[0] == '@') {
      std::ifstream in(payload.substr(1));
      if (!in) print({{"ok", false}, {"error", "cannot read " + payload.substr(1)}}, false);
      std::stringstream ss;
      ss << in.rdbuf();
      payload = ss.str();
    }
    auto p = open_or_fail(env());
    storage::Status s = p->repair(edit->id, payload, edit->by);
    print({{"ok", s.ok()},
           {"quarantine_id", edit->id},
           {"error", s.ok() ? json(nullptr) : json(s.message())}},
          s.ok());
  });

  auto* discard = quarantine->add_subcommand("discard", "Mark a quarantined event DISCARDED");
  discard->add_option("id", edit->id)->required();
  discard->add_option("--by", edit->by, "reviewer");
  discard->callback([env, edit] {
    auto p = open_or_fail(env());
    storage::Status s = p->discard(edit->id, edit->by);
    print({{"ok", s.ok()},
           {"quarantine_id", edit->id},
           {"error", s.ok() ? json(nullptr) : json(s.message())}},
          s.ok());
  });

  auto ids = std::make_shared<std::vector<int64_t>>();
  auto* replay =
      quarantine->add_subcommand("replay", "Send quarantined events through Silver again");
  replay->add_option("ids", *ids, "quarantine ids (default: every REPAIRED row)");
  replay->callback([env, ids] {
    auto p = open_or_fail(env());
    BatchReport r = p->replay(*ids);
    print(r.to_json(), r.status.ok());
  });
}

}  // namespace

void add_analytics_commands(CLI::App& app, std::function<AnalyticsCliEnv()> env) {
  add_rebuild_command(app, env);
  add_reconcile_command(app, env);
  add_quarantine_commands(app, env);
}

}  // namespace ocppgw::analytics
