// tests/unit/gateway/change_notifier_test.cpp: which analytics batches tell the live stream
// what (gateway/change_notifier.hpp): status, heartbeat, boot and connection events name their
// charge point; transaction events also set `sessions`; quarantines and duplicates set
// `quality`; a batch read back from the event log, or a sweep that timed something out, is "*";
// events the page does not show, and quiet batches, are no change at all. And the session
// registry tells its observer about connects and disconnects.
#include "gateway/change_notifier.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gateway/session_registry.hpp"

namespace ocppgw::gateway {
namespace {

using analytics::BatchReport;
using analytics::Event;
using analytics::EventType;
using analytics::Source;
using nlohmann::json;

Event event(EventType type, std::string cp) {
  Event e;
  e.event_type = type;
  e.charge_point_id = std::move(cp);
  return e;
}

// The live pipeline hands on_batch pointers into the events it was offered.
std::vector<const Event*> refs(const std::vector<Event>& events) {
  std::vector<const Event*> out;
  for (const Event& e : events) out.push_back(&e);
  return out;
}

BatchReport live(int64_t raw) {
  BatchReport r;
  r.source = Source::Live;
  r.raw = raw;
  return r;
}

TEST(ChangeNotifier, ChargePointEventsNameTheirChargePoint) {
  web::ChangeFeed feed;
  const std::vector<Event> events = {
      event(EventType::StatusNotification, "CP-2"), event(EventType::Heartbeat, "CP-1"),
      event(EventType::BootNotification, "CP-3"),   event(EventType::Connection, "CP-4"),
      event(EventType::Authorize, "CP-9"),          event(EventType::DataTransfer, "CP-9")};
  notify_batch(feed, refs(events), live(6));
  EXPECT_EQ(*feed.take(), (json{{"charge_points", {"CP-1", "CP-2", "CP-3", "CP-4"}},
                                {"sessions", false},
                                {"quality", false},
                                {"seq", 1}}));
}

TEST(ChangeNotifier, TransactionEventsSetSessions) {
  for (auto type :
       {EventType::StartTransaction, EventType::MeterValues, EventType::StopTransaction}) {
    web::ChangeFeed feed;
    const std::vector<Event> events = {event(type, "CP-7")};
    notify_batch(feed, refs(events), live(1));
    const auto changes = feed.take();
    ASSERT_TRUE(changes) << analytics::to_string(type);
    EXPECT_EQ((*changes)["sessions"], true);
    EXPECT_EQ((*changes)["charge_points"], json::array({"CP-7"}));
  }
}

TEST(ChangeNotifier, QuarantinesAndDuplicatesSetQuality) {
  for (auto set : {+[](BatchReport& r) { r.quarantined = 1; },
                   +[](BatchReport& r) { r.technical_duplicates = 2; },
                   +[](BatchReport& r) { r.business_duplicates = 1; },
                   +[](BatchReport& r) { r.conservation_ok = false; }}) {
    web::ChangeFeed feed;
    auto report = live(1);
    set(report);
    const std::vector<Event> events = {event(EventType::Authorize, "CP-1")};
    notify_batch(feed, refs(events), report);
    const auto changes = feed.take();
    ASSERT_TRUE(changes);
    EXPECT_EQ((*changes)["quality"], true);
    EXPECT_EQ((*changes)["sessions"], false);
  }
}

TEST(ChangeNotifier, UnknownIdsMeanEverything) {
  web::ChangeFeed feed;
  BatchReport from_log;
  from_log.source = Source::EventLog;
  from_log.raw = 10;
  notify_batch(feed, {}, from_log);
  EXPECT_EQ((*feed.take())["charge_points"], "*");

  BatchReport sweep;
  sweep.source = Source::Maintenance;
  notify_batch(feed, {}, sweep);
  EXPECT_FALSE(feed.take()) << "a sweep that changed nothing";
  sweep.sessions_swept = 1;
  notify_batch(feed, {}, sweep);
  const auto changes = feed.take();
  ASSERT_TRUE(changes);
  EXPECT_EQ((*changes)["charge_points"], "*");
  EXPECT_EQ((*changes)["sessions"], true);
}

TEST(ChangeNotifier, QuietBatchesAreNoChange) {
  web::ChangeFeed feed;
  notify_batch(feed, {}, live(0));
  const std::vector<Event> events = {event(EventType::Authorize, "CP-1"),
                                     event(EventType::FirmwareStatus, "CP-1")};
  notify_batch(feed, refs(events), live(2));
  EXPECT_FALSE(feed.take());
}

TEST(SessionRegistryObserver, IsToldOfConnectsAndDisconnects) {
  SessionRegistry registry;
  std::vector<std::string> told;
  registry.set_observer([&](std::string_view id) { told.emplace_back(id); });
  registry.add("CP-1", nullptr);
  registry.remove("CP-1", nullptr);
  registry.remove("CP-2", nullptr);  // never there: nothing changed
  EXPECT_EQ(told, (std::vector<std::string>{"CP-1", "CP-1"}));
}

}  // namespace
}  // namespace ocppgw::gateway
