// csms/sqlite_csms_state.cpp: SqliteCsmsState (see sqlite_csms_state.hpp). Lock order: mu_ is never
// held while read_mu_ is taken or the allocator runs, so handlers never wait on disk for each
// other.
#include "csms/sqlite_csms_state.hpp"

#include <limits>

#include <spdlog/spdlog.h>

#include "analytics/event.hpp"
#include "csms/charge_point_items.hpp"
#include "csms/requested_messages.hpp"
#include "rpc/mapper_util.hpp"
#include "storage/gateway_db.hpp"
#include "storage/id_token_store.hpp"
#include "util/logging.hpp"

namespace ocppgw::csms {
namespace {

using storage::Status;
using storage::Value;

constexpr size_t kRecentlyStoppedMax = 65536;
constexpr int64_t kTxIdBlock = 64;

void record(rpc::CallContext& ctx, std::string sql, std::vector<Value> values) {
  if (ctx.writes) ctx.writes->add(std::move(sql), std::move(values));
}

std::string_view decision_text(UnknownChargePoint p) {
  switch (p) {
    case UnknownChargePoint::Accept:
      return "Accepted";
    case UnknownChargePoint::Pending:
      return "Pending";
    case UnknownChargePoint::Reject:
      return "Rejected";
  }
  return "Rejected";
}

std::optional<rpc::ValidationMode> parse_mode(const std::optional<std::string>& text) {
  if (text == "strict") return rpc::ValidationMode::Strict;
  if (text == "lenient") return rpc::ValidationMode::Lenient;
  return std::nullopt;
}

Value opt(const std::optional<std::string>& v) { return v ? Value(*v) : Value(); }

// What the state keeps of a charge points row: kChargePointColumns, read by charge_point_row.
constexpr std::string_view kChargePointColumns =
    "SELECT id, registration_status, validation_mode, boot_status, registered_ms, "
    "security_profile ";

ChargePointRecord charge_point_row(const storage::Statement& st) {
  ChargePointRecord r{st.text(0),     st.opt_text(1), parse_mode(st.opt_text(2)),
                      st.opt_text(3), false,          std::nullopt};
  r.registered = st.opt_int64(4).has_value();
  if (auto p = st.opt_int64(5)) r.security_profile = static_cast<int>(*p);
  return r;
}

}  // namespace

std::unique_ptr<SqliteCsmsState> SqliteCsmsState::open(const std::string& db_path,
                                                       const CsmsPolicy& policy, Status* status) {
  auto done = [&](Status s) -> std::unique_ptr<SqliteCsmsState> {
    if (status) *status = std::move(s);
    return nullptr;
  };
  Status s;
  std::unique_ptr<storage::Db> write_db = storage::open_gateway_db(db_path, &s);
  if (!write_db) return done(s);
  auto allocator = storage::TxIdAllocator::open(std::move(write_db),
                                                {policy.node_index, policy.stride, kTxIdBlock}, &s);
  if (!allocator) return done(s);
  std::unique_ptr<storage::Db> read_db =
      storage::Db::open(db_path, storage::OpenOptions{.read_only = true}, &s);
  if (!read_db) return done(s);
  std::unique_ptr<SqliteCsmsState> state(
      new SqliteCsmsState(policy, std::move(read_db), std::move(allocator)));
  s = state->load();
  if (!s.ok()) return done(Status::error("loading CSMS state: " + s.message()));
  if (status) *status = Status();
  return state;
}

SqliteCsmsState::SqliteCsmsState(const CsmsPolicy& policy, std::unique_ptr<storage::Db> read_db,
                                 std::unique_ptr<storage::TxIdAllocator> allocator)
    : policy_(policy), allocator_(std::move(allocator)), read_db_(std::move(read_db)) {}

SqliteCsmsState::~SqliteCsmsState() = default;

Status SqliteCsmsState::load() {
  std::lock_guard read_lock(read_mu_);
  std::lock_guard lock(mu_);
  storage::Statement& tx = read_db_->cached(
      "SELECT transaction_id, charge_point_id, connector_id, id_tag_hash, start_key, "
      "start_ts_ms FROM transactions16 WHERE stop_ts_ms IS NULL");
  while (tx.step()) {
    add_active(static_cast<int32_t>(tx.int64(0)),
               {tx.text(1), tx.int64(2), tx.text(3), tx.text(4), tx.int64(5)});
  }
  Status s = tx.status();
  tx.reset();
  if (!s.ok()) return s;
  storage::Statement& cp =
      read_db_->cached(std::string(kChargePointColumns) + "FROM charge_points");
  while (cp.step()) {
    ChargePointRecord r = charge_point_row(cp);
    charge_points_.emplace(r.id, std::move(r));
  }
  s = cp.status();
  cp.reset();
  return s;
}

void SqliteCsmsState::reload_charge_point(const std::string& charge_point_id) {
  std::optional<ChargePointRecord> row;
  Status s;
  {
    std::lock_guard lock(read_mu_);
    storage::Statement& st =
        read_db_->cached(std::string(kChargePointColumns) + "FROM charge_points WHERE id = ?");
    st.bind(1, charge_point_id);
    if (st.step()) row = charge_point_row(st);
    s = st.status();
    st.reset();
  }
  if (!s.ok()) return fail(Status::error("charge point reload: " + s.message()));
  std::lock_guard lock(mu_);
  if (row)
    charge_points_.insert_or_assign(charge_point_id, std::move(*row));
  else
    charge_points_.erase(charge_point_id);
}

std::optional<int> SqliteCsmsState::security_profile(std::string_view charge_point_id) const {
  std::lock_guard lock(mu_);
  auto it = charge_points_.find(std::string(charge_point_id));
  return it == charge_points_.end() ? std::nullopt : it->second.security_profile;
}

void SqliteCsmsState::fail(const Status& s) {
  spdlog::error("csms state: {}", s.message());
  std::lock_guard lock(error_mu_);
  healthy_ = false;
  last_error_ = s.message();
}

bool SqliteCsmsState::healthy() const {
  std::lock_guard lock(error_mu_);
  return healthy_;
}

std::string SqliteCsmsState::last_error() const {
  std::lock_guard lock(error_mu_);
  return last_error_;
}

// ---- charge points ----

rpc::BootDecision SqliteCsmsState::boot(rpc::CallContext& ctx, const rpc::BootInfo& info) {
  rpc::BootDecision d;
  d.interval_s = policy_.heartbeat_interval_s;
  {
    std::lock_guard lock(mu_);
    auto [it, inserted] = charge_points_.try_emplace(std::string(ctx.charge_point_id));
    ChargePointRecord& r = it->second;
    if (inserted) r.id = it->first;
    d.status = r.boot_status ? *r.boot_status
               : r.registered || r.registration_status == "Accepted"
                   ? "Accepted"
                   : std::string(decision_text(policy_.unknown_charge_point));
    r.registration_status = d.status;
    requested_while_pending_.erase(r.id);
  }
  record(ctx,
         "INSERT INTO charge_points (id, vendor, model, serial_number, firmware_version, "
         "registration_status, first_seen_ms, last_boot_ms, ocpp_version) "
         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
         "vendor = excluded.vendor, model = excluded.model, "
         "serial_number = excluded.serial_number, firmware_version = excluded.firmware_version, "
         "registration_status = excluded.registration_status, "
         "last_boot_ms = excluded.last_boot_ms, ocpp_version = excluded.ocpp_version",
         {std::string(ctx.charge_point_id), info.vendor, info.model, opt(info.serial_number),
          opt(info.firmware_version), d.status, ctx.ingest_ts_ms, ctx.ingest_ts_ms,
          std::string(ctx.version == rpc::OcppVersion::v16 ? "1.6" : "2.0.1")});
  return d;
}

bool SqliteCsmsState::accepts_call(rpc::CallContext& ctx) {
  std::lock_guard lock(mu_);
  auto it = charge_points_.find(ctx.charge_point_id);
  if (it == charge_points_.end()) return true;
  const auto& told = it->second.registration_status;
  if (told == "Pending") {
    auto asked = requested_while_pending_.find(ctx.charge_point_id);
    return asked != requested_while_pending_.end() && asked->second.count(ctx.action) > 0;
  }
  return told != "Rejected";
}

void SqliteCsmsState::set_boot_status(const std::string& charge_point_id,
                                      std::optional<std::string> status, int64_t now_ms,
                                      rpc::WriteSet& writes) {
  {
    std::lock_guard lock(mu_);
    auto [it, inserted] = charge_points_.try_emplace(charge_point_id);
    if (inserted) it->second.id = charge_point_id;
    it->second.boot_status = status;
  }
  // An operator may decide before the charge point ever booted.
  writes.add(
      "INSERT INTO charge_points (id, first_seen_ms, boot_status) VALUES (?, ?, ?) "
      "ON CONFLICT (id) DO UPDATE SET boot_status = excluded.boot_status",
      {charge_point_id, now_ms, opt(status)});
}

std::optional<rpc::ValidationMode> SqliteCsmsState::validation_mode(
    std::string_view charge_point_id) const {
  std::lock_guard lock(mu_);
  auto it = charge_points_.find(std::string(charge_point_id));
  return it == charge_points_.end() ? std::nullopt : it->second.validation_mode;
}

std::optional<ChargePointRecord> SqliteCsmsState::charge_point(
    std::string_view charge_point_id) const {
  std::lock_guard lock(mu_);
  auto it = charge_points_.find(std::string(charge_point_id));
  if (it == charge_points_.end()) return std::nullopt;
  return it->second;
}

// ---- id tokens ----

rpc::IdTokenInfo SqliteCsmsState::lookup_token(std::string_view id_tag_hash, int64_t now_ms) {
  Status s;
  std::optional<storage::IdTokenRecord> r;
  {
    std::lock_guard lock(read_mu_);
    r = storage::IdTokenStore(*read_db_).find(id_tag_hash, &s);
  }
  if (!s.ok()) {
    fail(Status::error("id token lookup: " + s.message()));
    return {"Invalid", std::nullopt, std::nullopt};
  }
  if (!r) {
    return {policy_.unknown_id_token == UnknownIdToken::Accept ? "Accepted" : "Invalid",
            std::nullopt, std::nullopt};
  }
  return {storage::effective_token_status(*r, now_ms), r->expiry_ms, r->parent_id};
}

// Never ConcurrentTx: OCPP 1.6 section 7.2 (AuthorizationStatus) reserves that status for
// StartTransaction.conf, and an Authorize names no connector, so a tag in a transaction may well
// be authorising that transaction's stop or a start on the connector the old one is ending on.
rpc::IdTokenInfo SqliteCsmsState::authorize(rpc::CallContext& ctx, std::string_view id_token) {
  return lookup_token(analytics::hash_id_token(policy_.id_token_secret, id_token),
                      ctx.ingest_ts_ms);
}

// ---- 1.6 transactions ----

std::string SqliteCsmsState::start_key(std::string_view cp,
                                       const rpc::StartTransaction16& req) const {
  // Keyed hash: the key contains the raw idTag, which must not be recoverable from the table.
  std::string text(cp);
  for (const std::string& part :
       {std::to_string(req.connector_id), req.id_tag, std::to_string(req.timestamp_ms),
        std::to_string(req.meter_start_wh)}) {
    text += '\x1f';
    text += part;
  }
  return analytics::hash_id_token(policy_.id_token_secret, text);
}

void SqliteCsmsState::add_active(int32_t id, ActiveTx16 tx) {
  active_by_key_[tx.start_key] = id;
  active_by_tag_[tx.id_tag_hash].push_back(id);
  active_by_cp_[tx.charge_point_id].push_back(id);
  active16_[id] = std::move(tx);
}

void SqliteCsmsState::remove_active(int32_t id) {
  auto it = active16_.find(id);
  if (it == active16_.end()) return;
  const std::string cp = it->second.charge_point_id;
  auto& by_tag = active_by_tag_[it->second.id_tag_hash];
  std::erase(by_tag, id);
  if (by_tag.empty()) active_by_tag_.erase(it->second.id_tag_hash);
  auto& by_cp = active_by_cp_[cp];
  std::erase(by_cp, id);
  if (by_cp.empty()) active_by_cp_.erase(cp);
  active_by_key_.erase(it->second.start_key);
  active16_.erase(it);
  recently_stopped_[id] = cp;
  recently_stopped_order_.push_back(id);
  if (recently_stopped_order_.size() > kRecentlyStoppedMax) {
    recently_stopped_.erase(recently_stopped_order_.front());
    recently_stopped_order_.pop_front();
  }
}

// A connector runs one transaction at a time, so a new start on it means the earlier one ended
// without its StopTransaction reaching us (lost, or never sent after a reboot). Left open, its
// tag would stay "in a transaction" for ever. Only transactions that started no later than the
// new one are ended: a start delivered late (offline queue) must not end a newer session.
// The row keeps meter_stop NULL and stop_reason kSupersededReason; the events are untouched,
// so analytics applies its own rules to the session without a stop.
void SqliteCsmsState::end_superseded(rpc::CallContext& ctx, const std::string& cp,
                                     const rpc::StartTransaction16& req) {
  auto it = active_by_cp_.find(cp);
  if (it == active_by_cp_.end()) return;
  std::vector<int32_t> ended;
  for (int32_t id : it->second) {
    const ActiveTx16& tx = active16_.at(id);
    if (tx.connector_id == req.connector_id && tx.start_ts_ms <= req.timestamp_ms)
      ended.push_back(id);
  }
  for (int32_t id : ended) {
    remove_active(id);
    record(ctx,
           "UPDATE transactions16 SET stop_ts_ms = ?, stop_reason = ? "
           "WHERE transaction_id = ? AND stop_ts_ms IS NULL",
           {req.timestamp_ms, std::string(kSupersededReason), int64_t{id}});
  }
}

bool SqliteCsmsState::tag_active_elsewhere(const std::string& id_tag_hash, std::string_view cp,
                                           int64_t connector_id,
                                           std::optional<int32_t> except) const {
  auto it = active_by_tag_.find(id_tag_hash);
  if (it == active_by_tag_.end()) return false;
  for (int32_t id : it->second) {
    if (id == except) continue;
    const ActiveTx16& tx = active16_.at(id);
    if (tx.charge_point_id != cp || tx.connector_id != connector_id) return true;
  }
  return false;
}

std::optional<int32_t> SqliteCsmsState::stored_start(const std::string& key) {
  std::lock_guard lock(read_mu_);
  storage::Statement& st =
      read_db_->cached("SELECT transaction_id FROM transactions16 WHERE start_key = ?");
  st.bind(1, key);
  std::optional<int32_t> id;
  if (st.step()) id = static_cast<int32_t>(st.int64(0));
  Status s = st.status();
  st.reset();
  if (!s.ok()) fail(Status::error("start lookup: " + s.message()));
  return id;
}

std::optional<std::string> SqliteCsmsState::stored_transaction_owner(int64_t transaction_id) {
  std::lock_guard lock(read_mu_);
  storage::Statement& st =
      read_db_->cached("SELECT charge_point_id FROM transactions16 WHERE transaction_id = ?");
  st.bind(1, transaction_id);
  std::optional<std::string> cp;
  if (st.step()) cp = st.text(0);
  Status s = st.status();
  st.reset();
  if (!s.ok()) fail(Status::error("transaction lookup: " + s.message()));
  return cp;
}

rpc::StartTransaction16Result SqliteCsmsState::start_transaction(
    rpc::CallContext& ctx, const rpc::StartTransaction16& req) {
  const std::string cp(ctx.charge_point_id);
  const std::string hash = analytics::hash_id_token(policy_.id_token_secret, req.id_tag);
  const std::string key = start_key(cp, req);
  rpc::StartTransaction16Result r;
  r.id_tag_info = lookup_token(hash, ctx.ingest_ts_ms);

  std::optional<int32_t> id;
  {
    std::lock_guard lock(mu_);
    if (auto it = active_by_key_.find(key); it != active_by_key_.end()) id = it->second;
  }
  // Not active in memory: a start acknowledged in an earlier run, or one already stopped.
  if (!id) id = stored_start(key);
  if (!id) {
    Status s;
    std::optional<int32_t> fresh = allocator_->next(&s);
    if (!fresh) {
      // No id can be promised durably. Refuse the tag so the charger does not charge under an
      // id we may issue again; the failure is logged and reported by healthy().
      fail(Status::error("transaction id allocation for " + cp + ": " + s.message()));
      r.id_tag_info.status = "Invalid";
      return r;
    }
    std::lock_guard lock(mu_);
    // An identical start may have raced us through another session of the same charge point.
    if (auto it = active_by_key_.find(key); it != active_by_key_.end()) {
      id = it->second;
    } else {
      r.transaction_id = *fresh;
      end_superseded(ctx, cp, req);
      if (req.reservation_id && ctx.writes)
        ItemWriter(*ctx.writes, cp, ctx.ingest_ts_ms, policy_.id_token_secret)
            .end_reservation(*req.reservation_id, "Used");
      if (r.id_tag_info.status == "Accepted" &&
          tag_active_elsewhere(hash, cp, req.connector_id, std::nullopt))
        r.id_tag_info.status = "ConcurrentTx";
      add_active(*fresh, {cp, req.connector_id, hash, key, req.timestamp_ms});
      // Later -1 frames on this connector belong to this transaction, not to an earlier run.
      link_memory_.end(cp, req.connector_id);
      record(
          ctx,
          "INSERT OR IGNORE INTO transactions16 (transaction_id, charge_point_id, "
          "connector_id, id_tag_hash, start_ts_ms, meter_start, start_key) "
          "VALUES (?, ?, ?, ?, ?, ?, ?)",
          {int64_t{*fresh}, cp, req.connector_id, hash, req.timestamp_ms, req.meter_start_wh, key});
      return r;
    }
  }
  r.transaction_id = *id;
  r.replay = true;
  std::lock_guard lock(mu_);
  if (r.id_tag_info.status == "Accepted" && tag_active_elsewhere(hash, cp, req.connector_id, *id))
    r.id_tag_info.status = "ConcurrentTx";
  return r;
}

rpc::StopTransaction16Result SqliteCsmsState::stop_transaction(rpc::CallContext& ctx,
                                                               const rpc::StopTransaction16& req) {
  rpc::StopTransaction16Result r;
  const std::string cp(ctx.charge_point_id);
  const int64_t tx_id = req.transaction_id;
  if (tx_id > 0 && tx_id <= std::numeric_limits<int32_t>::max()) {
    const auto id = static_cast<int32_t>(tx_id);
    std::optional<bool> known;
    {
      std::lock_guard lock(mu_);
      if (auto it = active16_.find(id); it != active16_.end()) {
        known = it->second.charge_point_id == cp;
        if (*known) remove_active(id);
      } else if (auto st = recently_stopped_.find(id); st != recently_stopped_.end()) {
        known = st->second == cp;
      }
    }
    if (!known) known = stored_transaction_owner(id) == cp;
    r.known = *known;
  }
  if (r.known) {
    record(ctx,
           "UPDATE transactions16 SET stop_ts_ms = ?, meter_stop = ?, stop_reason = ? "
           "WHERE transaction_id = ?",
           {req.timestamp_ms, req.meter_stop_wh, opt(req.reason), tx_id});
  }
  if (req.id_tag) {
    r.id_tag_info = lookup_token(analytics::hash_id_token(policy_.id_token_secret, *req.id_tag),
                                 ctx.ingest_ts_ms);
  }
  return r;
}

bool SqliteCsmsState::transaction_known(rpc::CallContext& ctx, int64_t transaction_id) {
  if (transaction_id <= 0 || transaction_id > std::numeric_limits<int32_t>::max()) return false;
  const auto id = static_cast<int32_t>(transaction_id);
  {
    std::lock_guard lock(mu_);
    if (auto it = active16_.find(id); it != active16_.end())
      return it->second.charge_point_id == ctx.charge_point_id;
    if (auto it = recently_stopped_.find(id); it != recently_stopped_.end())
      return it->second == ctx.charge_point_id;
  }
  return stored_transaction_owner(id) == ctx.charge_point_id;
}

rpc::TransactionLink16Result SqliteCsmsState::link_transaction(rpc::CallContext& ctx,
                                                               const rpc::TransactionLink16& req) {
  std::optional<std::string> tag_hash;
  if (req.id_tag) tag_hash = analytics::hash_id_token(policy_.id_token_secret, *req.id_tag);
  std::lock_guard lock(mu_);
  std::vector<rpc::OpenTx16> open;
  if (auto it = active_by_cp_.find(ctx.charge_point_id); it != active_by_cp_.end()) {
    for (int32_t id : it->second) {
      const ActiveTx16& tx = active16_.at(id);
      open.push_back({id, tx.connector_id, tx.id_tag_hash, tx.start_ts_ms});
    }
  }
  return rpc::resolve_link(open, link_memory_, ctx, req, tag_hash);
}

size_t SqliteCsmsState::active_transaction_count() const {
  std::lock_guard lock(mu_);
  return active16_.size();
}

// ---- 2.0.1 ----

std::optional<SqliteCsmsState::Tx201> SqliteCsmsState::stored_tx201(
    std::string_view cp, std::string_view transaction_id) {
  std::lock_guard lock(read_mu_);
  storage::Statement& st = read_db_->cached(
      "SELECT last_seq_no, started, ended, seq_gaps FROM transactions201 "
      "WHERE charge_point_id = ? AND transaction_id = ?");
  st.bind(1, cp).bind(2, transaction_id);
  std::optional<Tx201> tx;
  if (st.step()) tx = Tx201{st.int64(0), st.int64(1) != 0, st.int64(2) != 0, st.int64(3)};
  Status s = st.status();
  st.reset();
  if (!s.ok()) fail(Status::error("transaction lookup: " + s.message()));
  return tx;
}

rpc::TransactionEvent201Result SqliteCsmsState::transaction_event(
    rpc::CallContext& ctx, const rpc::TransactionEvent201& req) {
  namespace flag = analytics::flag;
  rpc::TransactionEvent201Result r;
  std::pair<std::string, std::string> key{std::string(ctx.charge_point_id), req.transaction_id};
  bool in_memory = false;
  {
    std::lock_guard lock(mu_);
    in_memory = tx201_.count(key) > 0;
  }
  std::optional<Tx201> stored = in_memory ? std::nullopt : stored_tx201(key.first, key.second);

  Tx201 now;
  {
    std::lock_guard lock(mu_);
    auto [it, inserted] = tx201_.try_emplace(key);
    if (inserted && stored) {
      it->second = *stored;
      inserted = false;
    }
    Tx201& tx = it->second;
    if (inserted && req.event_type != "Started") {
      r.flags.emplace_back(req.event_type == "Ended" ? flag::kEndedBeforeStarted
                                                     : flag::kUnknownTransaction);
    }
    if (!inserted && req.seq_no <= tx.last_seq_no) r.flags.emplace_back(flag::kSeqNoRepeated);
    if (!inserted && req.seq_no > tx.last_seq_no + 1) {
      r.flags.emplace_back(flag::kSeqNoGap);
      ++tx.seq_gaps;
    }
    if (req.offline) r.flags.emplace_back(flag::kOfflineReplay);
    if (req.seq_no > tx.last_seq_no) tx.last_seq_no = req.seq_no;
    if (req.event_type == "Started") tx.started = true;
    if (req.event_type == "Ended") tx.ended = true;
    now = tx;
  }
  record(ctx,
         "INSERT INTO transactions201 (charge_point_id, transaction_id, last_seq_no, started, "
         "ended, seq_gaps, first_seen_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
         "ON CONFLICT (charge_point_id, transaction_id) DO UPDATE SET "
         "last_seq_no = excluded.last_seq_no, started = excluded.started, "
         "ended = excluded.ended, seq_gaps = excluded.seq_gaps, updated_ms = excluded.updated_ms",
         {key.first, key.second, now.last_seq_no, int64_t{now.started}, int64_t{now.ended},
          now.seq_gaps, ctx.ingest_ts_ms, ctx.ingest_ts_ms});
  if (req.reservation_id && ctx.writes)
    ItemWriter(*ctx.writes, key.first, ctx.ingest_ts_ms, policy_.id_token_secret)
        .end_reservation(*req.reservation_id, "Used");
  if (req.id_token) {
    r.id_token_info = lookup_token(analytics::hash_id_token(policy_.id_token_secret, *req.id_token),
                                   ctx.ingest_ts_ms);
  }
  return r;
}

rpc::CertificateDecision SqliteCsmsState::certificate_request(rpc::CallContext& ctx,
                                                              const rpc::CertificateRequest& req) {
  auto decision = check_certificate_request(policy_.csr, ctx.charge_point_id, req);
  if (!decision.accepted)
    log::warn("certificate_request_refused", ctx.charge_point_id,
              {{"certificate_type", req.certificate_type},
               {"reason_code", decision.reason_code},
               {"reason", decision.detail}});
  return decision;
}

rpc::EvCertificateResult SqliteCsmsState::ev_certificate(rpc::CallContext& ctx,
                                                         const rpc::EvCertificateRequest& req) {
  if (!policy_.ev_certificate_backend) return rpc::CsmsState::ev_certificate(ctx, req);
  rpc::EvCertificateResult r = policy_.ev_certificate_backend(ctx.charge_point_id, req);
  if (!r.accepted)
    log::warn("ev_certificate_failed", ctx.charge_point_id,
              {{"action", req.action}, {"reason_code", r.reason_code}, {"reason", r.reason}});
  return r;
}

rpc::OcspResult SqliteCsmsState::certificate_status(rpc::CallContext& ctx,
                                                    const rpc::OcspRequestData& req) {
  if (!policy_.ocsp) return rpc::CsmsState::certificate_status(ctx, req);
  rpc::OcspResult r = policy_.ocsp->check(req);
  static constexpr const char* kNames[] = {"good", "revoked", "unknown", "failed"};
  const char* name = kNames[static_cast<int>(r.status)];
  if (r.status == rpc::OcspResult::Status::Failed)
    log::warn(
        "ocsp_check_failed", ctx.charge_point_id,
        {{"serial", req.serial_number}, {"responder", req.responder_url}, {"reason", r.reason}});
  else
    log::info("ocsp_checked", ctx.charge_point_id,
              {{"serial", req.serial_number}, {"responder", req.responder_url}, {"status", name}});
  return r;
}

void SqliteCsmsState::store_report(rpc::CallContext& ctx, const nlohmann::json& request) {
  // Device-model reports are also kept whole, as they came (table device_reports).
  if (ctx.action == "NotifyReport")
    record(ctx,
           "INSERT INTO device_reports (charge_point_id, request_id, seq_no, received_ms, json) "
           "VALUES (?, ?, ?, ?, ?)",
           {std::string(ctx.charge_point_id), rpc::required_int_member(request, "requestId"),
            rpc::required_int_member(request, "seqNo"), ctx.ingest_ts_ms,
            request.value("reportData", nlohmann::json::array())
                .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)});
  if (!ctx.writes) return;
  ItemWriter items(*ctx.writes, ctx.charge_point_id, ctx.ingest_ts_ms, policy_.id_token_secret);
  record_report(items, ctx.action, request);
}

void SqliteCsmsState::call_result(rpc::CallContext& ctx, const nlohmann::json& request,
                                  const nlohmann::json& response) {
  {
    // Whatever the call's status: a charge point that refused it sends nothing anyway.
    std::lock_guard lock(mu_);
    auto it = charge_points_.find(ctx.charge_point_id);
    if (it != charge_points_.end() && it->second.registration_status == "Pending")
      for (std::string_view action : requested_messages(ctx.version, ctx.action, request))
        requested_while_pending_[ctx.charge_point_id].emplace(action);
  }
  if (!ctx.writes) return;
  ItemWriter items(*ctx.writes, ctx.charge_point_id, ctx.ingest_ts_ms, policy_.id_token_secret);
  record_call_result(items, ctx.version, ctx.action, request, response);
}

}  // namespace ocppgw::csms
