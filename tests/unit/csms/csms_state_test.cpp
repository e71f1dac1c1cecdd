#include "csms/sqlite_csms_state.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "csms/charge_point_items.hpp"

#include "csms/sqlite_event_sink.hpp"
#include "storage/gateway_db.hpp"
#include "storage/id_token_store.hpp"
#include "tests/unit/csms/sink_test_util.hpp"
#include "tests/unit/storage/temp_dir.hpp"

namespace ocppgw::csms {
namespace {

using testing::count_rows;

constexpr const char* kSecret = "test-secret";

// Drives SqliteCsmsState as the dispatcher does: each call gets a WriteSet, which the real
// sink commits (unless the test defers it to model frame N+1 handled before frame N commits).
class CsmsStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("g.db");
    storage::Status s;
    sink_ = make_sqlite_event_sink({.db_path = path_}, &s);
    ASSERT_TRUE(sink_) << s.message();
    policy_.id_token_secret = kSecret;
    reopen();
  }

  void reopen() {
    state_.reset();
    storage::Status s;
    state_ = SqliteCsmsState::open(path_, policy_, &s);
    ASSERT_TRUE(state_) << s.message();
  }

  // A frame's context as the dispatcher builds it; the state records its rows into `writes`.
  rpc::CallContext context(const std::string& cp, std::string message_id, int64_t now_ms,
                           rpc::WriteSet& writes) {
    return rpc::CallContext{.charge_point_id = cp,
                            .version = rpc::OcppVersion::v16,
                            .message_id = std::move(message_id),
                            .action = "X",
                            .ingest_ts_ms = now_ms,
                            .policy = rpc_policy_,
                            .state = *state_,
                            .writes = &writes,
                            .flags = {},
                            .violations = nlohmann::json::array(),
                            .resolved_transaction_id = std::nullopt};
  }

  template <typename F>
  auto call(const std::string& cp, F f, bool commit_now = true, int64_t now_ms = 1'000'000) {
    rpc::WriteSet writes;
    rpc::CallContext ctx = context(cp, "m", now_ms, writes);
    auto result = f(ctx);
    if (commit_now)
      commit(cp, std::move(writes));
    else
      deferred_.push_back({cp, std::move(writes)});
    return result;
  }

  void commit(const std::string& cp, rpc::WriteSet writes) {
    SinkEntry e;
    e.charge_point_id = cp;
    e.writes = std::make_unique<rpc::WriteSet>(std::move(writes));
    ASSERT_TRUE(testing::submit_and_wait(*sink_, std::move(e)));
  }

  void commit_deferred() {
    for (auto& [cp, w] : deferred_) commit(cp, std::move(w));
    deferred_.clear();
  }

  rpc::StartTransaction16Result start(const std::string& cp, int64_t connector,
                                      const std::string& tag, int64_t ts = 100, int64_t meter = 0,
                                      bool commit_now = true) {
    return call(
        cp,
        [&](rpc::CallContext& ctx) {
          return state_->start_transaction(ctx, {connector, tag, ts, meter, std::nullopt});
        },
        commit_now);
  }

  rpc::StopTransaction16Result stop(const std::string& cp, int64_t id) {
    return call(cp, [&](rpc::CallContext& ctx) {
      return state_->stop_transaction(ctx, {id, std::nullopt, 200, 10, std::string("Local")});
    });
  }

  std::string authorize(const std::string& cp, const std::string& tag, int64_t now = 1'000'000) {
    return call(
               cp, [&](rpc::CallContext& ctx) { return state_->authorize(ctx, tag); }, true, now)
        .status;
  }

  void add_token(const std::string& tag, const std::string& status,
                 std::optional<int64_t> expiry = std::nullopt,
                 std::optional<std::string> parent = std::nullopt) {
    storage::Status s;
    auto db = storage::open_gateway_db(path_, &s);
    ASSERT_TRUE(db) << s.message();
    ASSERT_TRUE(storage::IdTokenStore(*db)
                    .upsert({analytics::hash_id_token(kSecret, tag), status, expiry, parent, 1})
                    .ok());
  }

  testing::TempDir dir_;
  std::string path_;
  std::unique_ptr<EventSink> sink_;
  CsmsPolicy policy_;
  rpc::Policy rpc_policy_;
  std::unique_ptr<SqliteCsmsState> state_;
  std::vector<std::pair<std::string, rpc::WriteSet>> deferred_;
};

TEST_F(CsmsStateTest, IdenticalStartGetsTheSameIdAlsoAfterRestart) {
  auto a = start("CP1", 1, "TAG", 100, 5);
  EXPECT_FALSE(a.replay);
  EXPECT_GT(a.transaction_id, 0);
  auto again = start("CP1", 1, "TAG", 100, 5);
  EXPECT_TRUE(again.replay);
  EXPECT_EQ(again.transaction_id, a.transaction_id);
  auto other = start("CP1", 1, "TAG", 101, 5);  // different timestamp: a new transaction
  EXPECT_NE(other.transaction_id, a.transaction_id);
  reopen();
  auto after = start("CP1", 1, "TAG", 100, 5);
  EXPECT_TRUE(after.replay);
  EXPECT_EQ(after.transaction_id, a.transaction_id);
  // Still idempotent once the transaction is stopped (the lookup is by start key).
  EXPECT_TRUE(stop("CP1", a.transaction_id).known);
  reopen();
  EXPECT_EQ(start("CP1", 1, "TAG", 100, 5).transaction_id, a.transaction_id);
}

TEST_F(CsmsStateTest, IdenticalStartBeforeCommitGetsTheSameId) {
  auto a = start("CP1", 1, "TAG", 100, 5, /*commit=*/false);
  auto b = start("CP1", 1, "TAG", 100, 5, /*commit=*/false);
  EXPECT_EQ(a.transaction_id, b.transaction_id);
  EXPECT_TRUE(b.replay);
  commit_deferred();
  storage::Status s;
  auto db = storage::Db::open(path_, storage::OpenOptions{.read_only = true}, &s);
  EXPECT_EQ(count_rows(*db, "SELECT count(*) FROM transactions16"), 1);
}

TEST_F(CsmsStateTest, RawIdTagsAreNeverStored) {
  start("CP1", 1, "SECRET-TAG-123");
  storage::Status s;
  auto db = storage::Db::open(path_, storage::OpenOptions{.read_only = true}, &s);
  EXPECT_EQ(count_rows(*db, "SELECT count(*) FROM transactions16 WHERE id_tag_hash = '" +
                                analytics::hash_id_token(kSecret, "SECRET-TAG-123") + "'"),
            1);
  EXPECT_EQ(count_rows(*db,
                       "SELECT count(*) FROM transactions16 WHERE id_tag_hash LIKE "
                       "'%SECRET%' OR start_key LIKE '%SECRET%'"),
            0);
}

TEST_F(CsmsStateTest, TagInActiveTransactionIsConcurrentTxOnStartButNeverOnAuthorize) {
  add_token("TAG", "Accepted");
  auto first = start("CP1", 1, "TAG");
  EXPECT_EQ(first.id_tag_info.status, "Accepted");
  // OCPP 1.6 section 7.2: ConcurrentTx is for StartTransaction.conf only.
  EXPECT_EQ(authorize("CP2", "TAG"), "Accepted");
  auto second = start("CP1", 2, "TAG", 300);  // another connector: concurrent, still an id
  EXPECT_EQ(second.id_tag_info.status, "ConcurrentTx");
  EXPECT_GT(second.transaction_id, 0);
  EXPECT_NE(second.transaction_id, first.transaction_id);
  // A replay of the first start is not concurrent with itself, but the second is still active.
  EXPECT_EQ(start("CP1", 1, "TAG").id_tag_info.status, "ConcurrentTx");
  EXPECT_TRUE(stop("CP1", second.transaction_id).known);
  EXPECT_EQ(start("CP1", 1, "TAG").id_tag_info.status, "Accepted");
  EXPECT_TRUE(stop("CP1", first.transaction_id).known);
  EXPECT_EQ(authorize("CP2", "TAG"), "Accepted");
}

TEST_F(CsmsStateTest, ActiveTransactionsSurviveRestart) {
  add_token("TAG", "Accepted");
  auto a = start("CP1", 1, "TAG");
  reopen();
  EXPECT_EQ(state_->active_transaction_count(), 1u);
  auto elsewhere = start("CP2", 1, "TAG", 300);
  EXPECT_EQ(elsewhere.id_tag_info.status, "ConcurrentTx");
  EXPECT_TRUE(call("CP1", [&](rpc::CallContext& ctx) {
    return state_->transaction_known(ctx, a.transaction_id);
  }));
  EXPECT_TRUE(stop("CP1", a.transaction_id).known);
  EXPECT_TRUE(stop("CP2", elsewhere.transaction_id).known);
  reopen();
  EXPECT_EQ(state_->active_transaction_count(), 0u);
  EXPECT_EQ(start("CP2", 1, "TAG", 400).id_tag_info.status, "Accepted");
}

TEST_F(CsmsStateTest, ANewStartOnAConnectorEndsItsEarlierOpenTransaction) {
  add_token("A", "Accepted");
  add_token("B", "Accepted");
  auto a = start("CP1", 1, "A", 100);
  auto other_cp = start("CP2", 1, "C", 100);  // same connector number, other charge point
  auto b = start("CP1", 1, "B", 200);         // A's stop never arrived
  EXPECT_EQ(b.id_tag_info.status, "Accepted");
  EXPECT_EQ(state_->active_transaction_count(), 2u);  // b and other_cp
  // A is no longer in a transaction: a start elsewhere is not concurrent.
  EXPECT_EQ(start("CP1", 2, "A", 300).id_tag_info.status, "Accepted");
  // A start delivered late (older timestamp) does not end the newer session on its connector.
  start("CP1", 1, "D", 150);
  EXPECT_EQ(state_->active_transaction_count(), 4u);
  // A replay of the superseded start is still recognised, and ends nothing.
  EXPECT_EQ(start("CP1", 1, "A", 100).transaction_id, a.transaction_id);
  EXPECT_EQ(state_->active_transaction_count(), 4u);
  {
    storage::Status s;
    auto db = storage::Db::open(path_, storage::OpenOptions{.read_only = true}, &s);
    EXPECT_EQ(count_rows(*db, "SELECT count(*) FROM transactions16 WHERE transaction_id = " +
                                  std::to_string(a.transaction_id) +
                                  " AND stop_ts_ms = 200 AND meter_stop IS NULL AND "
                                  "stop_reason = 'SupersededByNewStart'"),
              1);
    EXPECT_EQ(
        count_rows(*db, "SELECT count(*) FROM transactions16 WHERE transaction_id = " +
                            std::to_string(other_cp.transaction_id) + " AND stop_ts_ms IS NULL"),
        1);
  }
  reopen();
  EXPECT_EQ(state_->active_transaction_count(), 4u);
  // The lost stop arriving late is still answered as a known transaction.
  EXPECT_TRUE(stop("CP1", a.transaction_id).known);
}

TEST_F(CsmsStateTest, UnknownStopsAreAnsweredAndMarkedUnknown) {
  auto a = start("CP1", 1, "TAG");
  EXPECT_FALSE(stop("CP1", -1).known);
  EXPECT_FALSE(stop("CP1", 999999).known);
  EXPECT_FALSE(stop("CP2", a.transaction_id).known);  // someone else's transaction
  EXPECT_FALSE(call("CP2", [&](rpc::CallContext& ctx) {
    return state_->transaction_known(ctx, a.transaction_id);
  }));
  EXPECT_TRUE(stop("CP1", a.transaction_id).known);
  EXPECT_TRUE(stop("CP1", a.transaction_id).known);  // a re-sent stop
  reopen();
  EXPECT_TRUE(call("CP1", [&](rpc::CallContext& ctx) {
    return state_->transaction_known(ctx, a.transaction_id);
  }));
  storage::Status s;
  auto db = storage::Db::open(path_, storage::OpenOptions{.read_only = true}, &s);
  EXPECT_EQ(count_rows(*db,
                       "SELECT count(*) FROM transactions16 WHERE stop_ts_ms = 200 AND "
                       "meter_stop = 10 AND stop_reason = 'Local'"),
            1);
}

TEST_F(CsmsStateTest, IdsNeverRepeatAcrossRestarts) {
  std::set<int32_t> ids;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 5; ++i)
      EXPECT_TRUE(ids.insert(start("CP1", 1, "T", round * 100 + i).transaction_id).second);
    reopen();
  }
}

TEST_F(CsmsStateTest, TokenListExpiryAndUnknownPolicy) {
  add_token("OK", "Accepted", std::nullopt, std::string("GROUP-1"));
  add_token("BLOCKED", "Blocked");
  add_token("OLD", "Accepted", 500'000);
  auto info = call("CP1", [&](rpc::CallContext& ctx) { return state_->authorize(ctx, "OK"); });
  EXPECT_EQ(info.status, "Accepted");
  EXPECT_EQ(info.parent_id, "GROUP-1");
  EXPECT_EQ(authorize("CP1", "BLOCKED"), "Blocked");
  EXPECT_EQ(authorize("CP1", "OLD", 400'000), "Accepted");
  EXPECT_EQ(authorize("CP1", "OLD", 600'000), "Expired");
  EXPECT_EQ(authorize("CP1", "NEVER-SEEN"), "Accepted");
  policy_.unknown_id_token = UnknownIdToken::Invalid;
  reopen();
  EXPECT_EQ(authorize("CP1", "NEVER-SEEN"), "Invalid");
  EXPECT_EQ(authorize("CP1", "OK"), "Accepted");
}

TEST_F(CsmsStateTest, BootPolicyAndAcceptedChargePointsStayAccepted) {
  policy_.unknown_charge_point = UnknownChargePoint::Pending;
  reopen();
  auto boot = [&](const std::string& cp) {
    return call(cp, [&](rpc::CallContext& ctx) {
      return state_->boot(ctx, {"Vendor", "Model", std::string("SN1"), std::nullopt, std::nullopt});
    });
  };
  EXPECT_EQ(boot("CP1").status, "Pending");
  {
    // An operator accepts CP1 (the REST API comes later; the row is what it will write).
    storage::Status s;
    auto db = storage::open_gateway_db(path_, &s);
    ASSERT_TRUE(db->exec("UPDATE charge_points SET registration_status = 'Accepted', "
                         "validation_mode = 'lenient' WHERE id = 'CP1'")
                    .ok());
  }
  policy_.unknown_charge_point = UnknownChargePoint::Reject;
  reopen();
  EXPECT_EQ(boot("CP1").status, "Accepted");
  EXPECT_EQ(boot("CP2").status, "Rejected");
  EXPECT_EQ(state_->validation_mode("CP1"), rpc::ValidationMode::Lenient);
  EXPECT_EQ(state_->validation_mode("CP2"), std::nullopt);
  ASSERT_TRUE(state_->charge_point("CP2"));
  storage::Status s;
  auto db = storage::Db::open(path_, storage::OpenOptions{.read_only = true}, &s);
  EXPECT_EQ(count_rows(*db,
                       "SELECT count(*) FROM charge_points WHERE vendor = 'Vendor' AND "
                       "serial_number = 'SN1' AND ocpp_version = '1.6'"),
            2);
}

TEST_F(CsmsStateTest, OperatorBootStatusOverridesThePolicyAndPendingRefusesOtherCalls) {
  auto boot = [&](const std::string& cp) {
    return call(cp, [&](rpc::CallContext& ctx) {
      return state_->boot(ctx, {"Vendor", "Model", std::nullopt, std::nullopt, std::nullopt});
    });
  };
  auto accepts = [&](const std::string& cp) {
    return call(cp, [&](rpc::CallContext& ctx) { return state_->accepts_call(ctx); });
  };
  EXPECT_TRUE(accepts("CP1"));  // never booted here: a reconnect need not boot again
  EXPECT_EQ(boot("CP1").status, "Accepted");
  rpc::WriteSet writes;
  state_->set_boot_status("CP1", "Pending", 5, writes);
  commit("CP1", std::move(writes));
  EXPECT_TRUE(accepts("CP1"));  // told Accepted until it boots again
  EXPECT_EQ(boot("CP1").status, "Pending");
  EXPECT_FALSE(accepts("CP1"));
  reopen();  // both the override and the last answer survive a restart
  EXPECT_FALSE(accepts("CP1"));
  EXPECT_EQ(boot("CP1").status, "Pending");
  rpc::WriteSet accept;
  state_->set_boot_status("CP1", "Accepted", 6, accept);
  commit("CP1", std::move(accept));
  EXPECT_FALSE(accepts("CP1"));
  EXPECT_EQ(boot("CP1").status, "Accepted");
  EXPECT_TRUE(accepts("CP1"));
  // Set before the charge point ever booted.
  rpc::WriteSet reject;
  state_->set_boot_status("CP9", "Rejected", 7, reject);
  commit("CP9", std::move(reject));
  reopen();
  EXPECT_EQ(boot("CP9").status, "Rejected");
  EXPECT_FALSE(accepts("CP9"));
}

TEST_F(CsmsStateTest, WhilePendingOnlyWhatTheCentralSystemAskedForIsAccepted) {
  rpc::WriteSet writes;
  state_->set_boot_status("CP1", "Pending", 5, writes);
  commit("CP1", std::move(writes));
  auto boot = [&] {
    return call("CP1", [&](rpc::CallContext& ctx) {
      return state_->boot(ctx, {"Vendor", "Model", std::nullopt, std::nullopt, std::nullopt});
    });
  };
  auto accepts = [&](const char* action) {
    return call("CP1", [&](rpc::CallContext& ctx) {
      ctx.action = action;
      return state_->accepts_call(ctx);
    });
  };
  auto asked = [&](const char* action, const nlohmann::json& request,
                   rpc::OcppVersion version = rpc::OcppVersion::v201) {
    call("CP1", [&](rpc::CallContext& ctx) {
      ctx.action = action;
      ctx.version = version;
      state_->call_result(ctx, request, {{"status", "Accepted"}});
      return 0;
    });
  };
  EXPECT_EQ(boot().status, "Pending");
  EXPECT_FALSE(accepts("StatusNotification"));
  asked("TriggerMessage", {{"requestedMessage", "StatusNotification"}});
  asked("GetBaseReport", {{"requestId", 1}, {"reportBase", "FullInventory"}});
  asked("TriggerMessage", {{"requestedMessage", "SignChargingStationCertificate"}});
  EXPECT_TRUE(accepts("StatusNotification"));
  EXPECT_TRUE(accepts("NotifyReport"));
  EXPECT_TRUE(accepts("SignCertificate"));
  EXPECT_FALSE(accepts("Heartbeat"));         // not asked for
  EXPECT_FALSE(accepts("TransactionEvent"));  // not asked for
  asked("GetDiagnostics", {{"location", "ftp://x/"}}, rpc::OcppVersion::v16);
  EXPECT_TRUE(accepts("DiagnosticsStatusNotification"));
  EXPECT_EQ(boot().status, "Pending");  // a new boot: nothing asked for yet
  EXPECT_FALSE(accepts("StatusNotification"));
  EXPECT_FALSE(accepts("NotifyReport"));
}

// The follow-up hooks through the state, committed by the real sink, read back as the API does.
class ChargePointItemsTest : public CsmsStateTest {
 protected:
  void result(const std::string& action, const nlohmann::json& request,
              const nlohmann::json& response, rpc::OcppVersion version = rpc::OcppVersion::v16,
              int64_t now_ms = 1'000'000) {
    rpc::WriteSet writes;
    rpc::CallContext ctx = context("CP1", "m", now_ms, writes);
    ctx.version = version;
    ctx.action = action;
    state_->call_result(ctx, request, response);
    commit("CP1", std::move(writes));
  }
  nlohmann::json view(std::string_view name, int64_t now_ms = 1'000'000) {
    if (!items_) {
      storage::Status s;
      items_ = ChargePointItems::open(path_, &s);
      EXPECT_TRUE(items_) << s.message();
    }
    storage::Status s;
    auto v = items_->view("CP1", name, now_ms, &s);
    EXPECT_TRUE(s.ok()) << s.message();
    return v.value_or(nlohmann::json());
  }
  std::unique_ptr<ChargePointItems> items_;
};

using nlohmann::json;

TEST_F(ChargePointItemsTest, ConfigurationFromGetAndChangeConfigurationWithoutSecrets) {
  result("GetConfiguration", json::object(),
         {{"configurationKey",
           {{{"key", "HeartbeatInterval"}, {"readonly", false}, {"value", "300"}},
            {{"key", "AuthorizationKey"}, {"readonly", false}, {"value", "s3cr3t-key-value"}}}},
          {"unknownKey", {"Nope"}}});
  result("ChangeConfiguration", {{"key", "HeartbeatInterval"}, {"value", "60"}},
         {{"status", "Accepted"}});
  result("ChangeConfiguration", {{"key", "MeterValueSampleInterval"}, {"value", "5"}},
         {{"status", "Rejected"}});
  result("ChangeConfiguration", {{"key", "AuthorizationKey"}, {"value", "0123456789abcdef"}},
         {{"status", "Accepted"}});
  const json items = view("configuration")["items"];
  ASSERT_EQ(items.size(), 1u) << items;
  EXPECT_EQ(items[0]["key"], "HeartbeatInterval");
  EXPECT_EQ(items[0]["value"], "60");
  storage::Status s;
  auto db = storage::Db::open(path_, storage::OpenOptions{.read_only = true}, &s);
  EXPECT_EQ(count_rows(*db,
                       "SELECT count(*) FROM charge_point_items WHERE json LIKE '%s3cr3t%' "
                       "OR json LIKE '%0123456789abcdef%'"),
            0);
  EXPECT_EQ(redacted_call_request("ChangeConfiguration",
                                  {{"key", "AuthorizationKey"}, {"value", "0123456789abcdef"}})
                .at("value"),
            "<redacted>");
  const json set =
      redacted_call_request("SetVariables", {{"setVariableData",
                                              {{{"attributeValue", "pw-0123456789abcdef"},
                                                {"component", {{"name", "SecurityCtrlr"}}},
                                                {"variable", {{"name", "BasicAuthPassword"}}}},
                                               {{"attributeValue", "60"},
                                                {"component", {{"name", "OCPPCommCtrlr"}}},
                                                {"variable", {{"name", "HeartbeatInterval"}}}}}}});
  EXPECT_EQ(set["setVariableData"][0]["attributeValue"], "<redacted>");
  EXPECT_EQ(set["setVariableData"][1]["attributeValue"], "60");
}

TEST_F(ChargePointItemsTest, ReservationsExpireCancelAndAreConsumedByAStart) {
  auto reserve = [&](int64_t id, const char* expiry) {
    result(
        "ReserveNow",
        {{"connectorId", 1}, {"expiryDate", expiry}, {"idTag", "RAW-TAG"}, {"reservationId", id}},
        {{"status", "Accepted"}});
  };
  reserve(1, "2030-01-01T00:00:00Z");
  reserve(2, "2030-01-01T00:00:00Z");
  reserve(3, "2000-01-01T00:00:00Z");  // already past at read time
  result("ReserveNow",
         {{"connectorId", 1},
          {"expiryDate", "2030-01-01T00:00:00Z"},
          {"idTag", "X"},
          {"reservationId", 4}},
         {{"status", "Occupied"}});  // refused: not kept
  result("CancelReservation", {{"reservationId", 2}}, {{"status", "Accepted"}});
  // 2.0.1: a reservation with an EVSE, consumed by a TransactionEvent naming it.
  result("ReserveNow",
         {{"id", 5},
          {"expiryDateTime", "2030-01-01T00:00:00Z"},
          {"idToken", {{"idToken", "RAW-TAG"}, {"type", "ISO14443"}}},
          {"evseId", 2}},
         {{"status", "Accepted"}}, rpc::OcppVersion::v201);
  rpc::WriteSet writes;
  rpc::CallContext ctx = context("CP1", "s", 1'000'000, writes);
  state_->start_transaction(ctx, {1, "RAW-TAG", 500, 0, int64_t{1}});
  rpc::TransactionEvent201 started;
  started.transaction_id = "T-5";
  started.event_type = "Started";
  started.reservation_id = 5;
  state_->transaction_event(ctx, started);
  commit("CP1", std::move(writes));
  std::map<int64_t, std::string> status;
  constexpr int64_t kIn2020 = 1'600'000'000'000;  // reservation 3 has expired, 1 and 2 not
  const json reservations = view("reservations", kIn2020);
  for (const json& r : reservations["items"]) status[r["reservationId"]] = r["status"];
  EXPECT_EQ(status, (std::map<int64_t, std::string>{
                        {1, "Used"}, {2, "Cancelled"}, {3, "Expired"}, {5, "Used"}}));
  const json first = view("reservations", kIn2020)["items"][0];
  EXPECT_EQ(first["idTokenHash"], analytics::hash_id_token(kSecret, "RAW-TAG"));
  EXPECT_EQ(first.dump().find("RAW-TAG"), std::string::npos);
}

TEST_F(ChargePointItemsTest, LocalListFullThenDifferentialAndReportedVersion) {
  result("SendLocalList",
         {{"listVersion", 3},
          {"updateType", "Full"},
          {"localAuthorizationList",
           {{{"idTag", "A"}, {"idTagInfo", {{"status", "Accepted"}}}},
            {{"idTag", "B"}, {"idTagInfo", {{"status", "Blocked"}}}}}}},
         {{"status", "Accepted"}});
  result("SendLocalList",
         {{"listVersion", 4},
          {"updateType", "Differential"},
          {"localAuthorizationList",
           {{{"idTag", "B"}}, {{"idTag", "C"}, {"idTagInfo", {{"status", "Accepted"}}}}}}},
         {{"status", "Accepted"}});
  result("SendLocalList", {{"listVersion", 9}, {"updateType", "Full"}},
         {{"status", "VersionMismatch"}});
  json list = view("local-list");
  EXPECT_EQ(list["version"], 4);
  std::set<std::string> hashes;
  for (const json& e : list["entries"]) hashes.insert(e["idTokenHash"]);
  EXPECT_EQ(hashes, (std::set<std::string>{analytics::hash_id_token(kSecret, "A"),
                                           analytics::hash_id_token(kSecret, "C")}));
  result("GetLocalListVersion", json::object(), {{"listVersion", 7}});
  EXPECT_EQ(view("local-list")["version"], 7);
}

TEST_F(ChargePointItemsTest, ChargingProfilesSetAndClearedByCriteria) {
  auto set = [&](int64_t id, int64_t connector, const char* purpose, int64_t level) {
    result("SetChargingProfile",
           {{"connectorId", connector},
            {"csChargingProfiles",
             {{"chargingProfileId", id},
              {"stackLevel", level},
              {"chargingProfilePurpose", purpose},
              {"chargingProfileKind", "Absolute"},
              {"chargingSchedule",
               {{"chargingRateUnit", "A"}, {"chargingSchedulePeriod", json::array()}}}}}},
           {{"status", "Accepted"}});
  };
  set(1, 1, "TxDefaultProfile", 0);
  set(2, 2, "TxDefaultProfile", 1);
  set(3, 2, "ChargePointMaxProfile", 0);
  set(4, 0, "TxDefaultProfile", 2);
  EXPECT_EQ(view("charging-profiles")["items"].size(), 4u);
  result("ClearChargingProfile", {{"id", 1}}, {{"status", "Accepted"}});
  result("ClearChargingProfile",
         {{"connectorId", 2}, {"chargingProfilePurpose", "TxDefaultProfile"}},
         {{"status", "Accepted"}});
  result("ClearChargingProfile", json::object(), {{"status", "Unknown"}});  // nothing cleared
  std::set<int64_t> ids;
  const json profiles = view("charging-profiles");
  for (const json& p : profiles["items"]) ids.insert(p["id"].get<int64_t>());
  EXPECT_EQ(ids, (std::set<int64_t>{3, 4}));
}

TEST_F(ChargePointItemsTest, VariablesDisplayMessagesAndMessageLimits) {
  const auto v201 = rpc::OcppVersion::v201;
  result("GetVariables", json::object(),
         {{"getVariableResult",
           {{{"attributeStatus", "Accepted"},
             {"attributeValue", "2"},
             {"component", {{"name", "DeviceDataCtrlr"}}},
             {"variable", {{"name", "ItemsPerMessage"}, {"instance", "GetVariables"}}}},
            {{"attributeStatus", "UnknownVariable"},
             {"component", {{"name", "X"}}},
             {"variable", {{"name", "Y"}}}},
            {{"attributeStatus", "Accepted"},
             {"attributeValue", "pw-should-not-be-here"},
             {"component", {{"name", "SecurityCtrlr"}}},
             {"variable", {{"name", "BasicAuthPassword"}}}}}}},
         v201);
  result("SetVariables",
         {{"setVariableData",
           {{{"attributeValue", "600"},
             {"component", {{"name", "DeviceDataCtrlr"}}},
             {"variable", {{"name", "BytesPerMessage"}, {"instance", "GetVariables"}}}}}}},
         {{"setVariableResult",
           {{{"attributeStatus", "Accepted"},
             {"component", {{"name", "DeviceDataCtrlr"}}},
             {"variable", {{"name", "BytesPerMessage"}, {"instance", "GetVariables"}}}}}}},
         v201);
  EXPECT_EQ(view("variables")["items"].size(), 2u);
  storage::Status s;
  auto items = ChargePointItems::open(path_, &s);
  ASSERT_TRUE(items);
  EXPECT_EQ(items->message_limit("CP1", "ItemsPerMessage", "GetVariables", &s), 2);
  EXPECT_EQ(items->message_limit("CP1", "BytesPerMessage", "GetVariables", &s), 600);
  EXPECT_EQ(items->message_limit("CP1", "ItemsPerMessage", "SetVariables", &s), std::nullopt);

  const json message = {{"id", 7},
                        {"priority", "NormalCycle"},
                        {"message", {{"format", "UTF8"}, {"content", "Hello"}}}};
  result("SetDisplayMessage", {{"message", message}}, {{"status", "Accepted"}}, v201);
  result(
      "SetDisplayMessage",
      {{"message",
        {{"id", 8}, {"priority", "InFront"}, {"message", {{"format", "UTF8"}, {"content", "x"}}}}}},
      {{"status", "Rejected"}}, v201);
  json shown = view("display-messages")["items"];
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_EQ(shown[0]["message"]["content"], "Hello");
  result("ClearDisplayMessage", {{"id", 7}}, {{"status", "Accepted"}}, v201);
  EXPECT_TRUE(view("display-messages")["items"].empty());
}

TEST_F(CsmsStateTest, TransactionEventFlagsMatchTheContract) {
  auto event = [&](const std::string& tx, const std::string& type, int64_t seq,
                   bool offline = false) {
    return call("CP1",
                [&](rpc::CallContext& ctx) {
                  rpc::TransactionEvent201 req;
                  req.transaction_id = tx;
                  req.event_type = type;
                  req.seq_no = seq;
                  req.offline = offline;
                  return state_->transaction_event(ctx, req);
                })
        .flags;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(event("T1", "Started", 0), V{});
  EXPECT_EQ(event("T1", "Updated", 1), V{});
  EXPECT_EQ(event("T1", "Updated", 1), V{"SEQ_NO_REPEATED"});
  EXPECT_EQ(event("T1", "Updated", 4), V{"SEQ_NO_GAP"});
  EXPECT_EQ(event("T2", "Ended", 3), V{"ENDED_BEFORE_STARTED"});
  EXPECT_EQ(event("T3", "Updated", 0, true), (V{"UNKNOWN_TRANSACTION", "OFFLINE_REPLAY"}));
  reopen();  // sequence state is durable
  EXPECT_EQ(event("T1", "Ended", 5), V{});
  EXPECT_EQ(event("T1", "Ended", 5), V{"SEQ_NO_REPEATED"});
  storage::Status s;
  auto db = storage::Db::open(path_, storage::OpenOptions{.read_only = true}, &s);
  EXPECT_EQ(count_rows(*db,
                       "SELECT count(*) FROM transactions201 WHERE transaction_id = 'T1' "
                       "AND started = 1 AND ended = 1 AND last_seq_no = 5 AND seq_gaps = 1"),
            1);
}

TEST_F(CsmsStateTest, StoresDeviceReports) {
  call("CP1", [&](rpc::CallContext& ctx) {
    ctx.action = "NotifyReport";
    state_->store_report(ctx, {{"requestId", 7},
                               {"seqNo", 0},
                               {"generatedAt", "2024-06-01T09:57:00Z"},
                               {"reportData", nlohmann::json::array({{{"component", "EVSE"}}})}});
    return 0;
  });
  storage::Status s;
  auto db = storage::Db::open(path_, storage::OpenOptions{.read_only = true}, &s);
  EXPECT_EQ(count_rows(*db,
                       "SELECT count(*) FROM device_reports WHERE charge_point_id = 'CP1' "
                       "AND request_id = 7 AND json LIKE '%EVSE%'"),
            1);
}

// ---- linking of 1.6 transactionId -1 frames ----

class LinkTest : public CsmsStateTest {
 protected:
  // Each frame gets its own message id: a repeated one is a re-send.
  rpc::TransactionLink16Result link(const std::string& cp, rpc::TransactionLink16 req,
                                    int64_t now_ms = 1'000'000) {
    rpc::WriteSet writes;
    rpc::CallContext ctx = context(cp, "link-" + std::to_string(++frames_), now_ms, writes);
    return state_->link_transaction(ctx, req);
  }
  static rpc::TransactionLink16 meter(int64_t connector) {
    return {.connector_id = connector, .timestamp_ms = 500};
  }
  static rpc::TransactionLink16 stop_req(std::optional<std::string> tag, int64_t ts = 500) {
    return {.id_tag = std::move(tag), .timestamp_ms = ts, .stop = true};
  }
  int frames_ = 0;
};

TEST_F(LinkTest, MeterValuesLinkToTheOpenTransactionOnTheirConnector) {
  auto a = start("CP1", 1, "A");
  auto b = start("CP1", 2, "B");
  start("CP2", 1, "C");  // another charge point's transaction is never a candidate
  auto r = link("CP1", meter(2));
  EXPECT_EQ(r.rule, rpc::LinkRule::Connector);
  EXPECT_EQ(r.linked_id, b.transaction_id);
  EXPECT_EQ(r.transaction_id, std::to_string(b.transaction_id));
  EXPECT_EQ(link("CP1", meter(1)).linked_id, a.transaction_id);
}

TEST_F(LinkTest, StopLinksByIdTagThenOnlyOpenThenLatestStart) {
  auto a = start("CP1", 1, "A", 100);
  auto b = start("CP1", 2, "B", 300);
  auto by_tag = link("CP1", stop_req("A"));
  EXPECT_EQ(by_tag.rule, rpc::LinkRule::IdTag);
  EXPECT_EQ(by_tag.linked_id, a.transaction_id);
  // No idTag, two open: the latest start before the stop's time wins.
  auto latest = link("CP1", stop_req(std::nullopt, 400));
  EXPECT_EQ(latest.rule, rpc::LinkRule::LatestStart);
  EXPECT_EQ(latest.linked_id, b.transaction_id);
  auto earlier = link("CP1", stop_req(std::nullopt, 200));
  EXPECT_EQ(earlier.rule, rpc::LinkRule::LatestStart);
  EXPECT_EQ(earlier.linked_id, a.transaction_id);
  EXPECT_TRUE(stop("CP1", a.transaction_id).known);
  // An unknown tag with one open transaction left: that one.
  auto only = link("CP1", stop_req("Z"));
  EXPECT_EQ(only.rule, rpc::LinkRule::OnlyOpen);
  EXPECT_EQ(only.linked_id, b.transaction_id);
}

TEST_F(LinkTest, AmbiguousStopWithTwoOpenTransactionsStaysUnlinked) {
  start("CP1", 1, "A", 100);
  start("CP1", 2, "B", 100);  // same start time: no single latest start
  auto r = link("CP1", stop_req(std::nullopt, 400));
  EXPECT_EQ(r.rule, rpc::LinkRule::None);
  EXPECT_EQ(r.transaction_id.rfind("-1:?:", 0), 0u) << r.transaction_id;
  // Both start after the stop: none is "before" it.
  auto late = link("CP1", stop_req(std::nullopt, 50));
  EXPECT_EQ(late.rule, rpc::LinkRule::None);
  EXPECT_NE(late.transaction_id, r.transaction_id);
  EXPECT_EQ(state_->active_transaction_count(), 2u);  // linking itself stops nothing
}

TEST_F(LinkTest, MeterValuesWithoutAnOpenTransactionGetARunOfTheirOwn) {
  start("CP1", 2, "B");
  auto first = link("CP1", meter(1), 1000);
  EXPECT_EQ(first.rule, rpc::LinkRule::None);
  EXPECT_EQ(first.transaction_id, "-1:1:1000:link-1");
  EXPECT_EQ(link("CP1", meter(1), 2000).transaction_id, first.transaction_id);  // same run
  EXPECT_NE(link("CP2", meter(1), 1000).transaction_id, first.transaction_id);  // per cp
  // A never-issued id (not -1) that cannot be linked is kept as sent.
  auto unknown = link("CP1", {.connector_id = 3, .timestamp_ms = 500, .minus1 = false});
  EXPECT_EQ(unknown.rule, rpc::LinkRule::None);
  EXPECT_TRUE(unknown.transaction_id.empty());
}

TEST_F(LinkTest, ARunEndsAtTheNextStartOrStop) {
  auto run1 = link("CP1", meter(1), 1000).transaction_id;
  auto a = start("CP1", 1, "A", 1500);
  EXPECT_EQ(link("CP1", meter(1), 1600).linked_id, a.transaction_id);
  EXPECT_TRUE(stop("CP1", a.transaction_id).known);
  auto run2 = link("CP1", meter(1), 3000).transaction_id;
  EXPECT_NE(run2, run1);
  EXPECT_EQ(run2.rfind("-1:1:3000:", 0), 0u) << run2;
  // The unlinked -1 stop joins the only run and ends it.
  EXPECT_EQ(link("CP1", stop_req(std::nullopt, 3500)).transaction_id, run2);
  EXPECT_NE(link("CP1", meter(1), 4000).transaction_id, run2);
}

TEST_F(LinkTest, AReSentStopGetsTheSameAnswer) {
  auto a = start("CP1", 1, "A", 100);
  start("CP1", 2, "B", 300);
  rpc::WriteSet writes;
  rpc::CallContext ctx{.charge_point_id = "CP1",
                       .version = rpc::OcppVersion::v16,
                       .message_id = "stop-1",
                       .action = "StopTransaction",
                       .ingest_ts_ms = 1'000'000,
                       .mode = rpc::ValidationMode::Strict,
                       .policy = rpc_policy_,
                       .state = *state_,
                       .writes = &writes,
                       .flags = {},
                       .violations = nlohmann::json::array(),
                       .resolved_transaction_id = std::nullopt};
  auto r = state_->link_transaction(ctx, stop_req("A"));
  ASSERT_EQ(r.linked_id, a.transaction_id);
  state_->stop_transaction(ctx, {a.transaction_id, "A", 500, 10, std::nullopt});
  // The answer was lost and the charge point sends the same frame: B (now the only open one)
  // must not be stopped by it.
  auto again = state_->link_transaction(ctx, stop_req("A"));
  EXPECT_EQ(again.linked_id, a.transaction_id);
  EXPECT_EQ(again.rule, rpc::LinkRule::IdTag);
}

TEST_F(LinkTest, LinkingSurvivesARestartThroughTheActiveTransactions) {
  auto a = start("CP1", 1, "A", 100);
  start("CP1", 2, "B", 300);
  reopen();
  auto r = link("CP1", stop_req(std::nullopt, 200));
  EXPECT_EQ(r.rule, rpc::LinkRule::LatestStart);  // start times are loaded too
  EXPECT_EQ(r.linked_id, a.transaction_id);
}

TEST_F(LinkTest, AnOlderTransactionThatLostItsStopDoesNotBlockConnectorLinking) {
  start("CP1", 1, "A", 100);  // its stop never arrived
  auto b = start("CP1", 1, "B", 300);
  auto r = link("CP1", meter(1));
  EXPECT_EQ(r.rule, rpc::LinkRule::Connector);
  EXPECT_EQ(r.linked_id, b.transaction_id);
}

}  // namespace
}  // namespace ocppgw::csms
