// tests/unit/gateway/limits_test.cpp: the limits that keep one connection from hurting the
// others: outbound queue bound, byte-rate budget, total connection limit, free-disk floor.
// (The per-action CALL size limit is the dispatcher's: tests/unit/rpc/dispatcher_test.cpp.)
#include <atomic>
#include <chrono>

#include "gateway/disk_guard.hpp"
#include "tests/unit/gateway/gateway_fixture.hpp"

namespace ocppgw::gateway::testing {
namespace {

using analytics::EventType;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string disconnect_reason(const MemorySink& sink, const std::string& charge_point_id) {
  for (int i = 0; i < 300; ++i) {
    for (const auto& e : sink.events_of_type(EventType::Connection))
      if (e.charge_point_id == charge_point_id && e.extra["state"] == "disconnected")
        return e.extra["reason"];
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return {};
}

TEST(Limits, PeerThatDoesNotReadIsClosedOnceItsRepliesExceedTheBound) {
  Config config = test_config();
  config.limits.max_outbound_bytes = 64 * 1024;
  config.limits.max_inflight_per_connection = 1024;
  Gateway gw(config);
  Client other(gw.port(), "/ocpp/CP2", "ocpp1.6");
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6", {}, 4096);
  // Each CALLERROR echoes a 128-byte action name: ~20 MB of replies if nothing stopped them,
  // far more than the socket buffers hold.
  const std::string frame = call("1", std::string(120, 'A') + "Unknown", json::object());
  beast::error_code ec;
  for (int i = 0; i < 60000 && !ec; ++i) {
    try {
      cp.send(frame);
    } catch (const boost::system::system_error& e) {
      ec = e.code();
    }
  }
  const std::string reason = disconnect_reason(gw.sink, "CP1");
  EXPECT_NE(reason.find("max_outbound_bytes"), std::string::npos) << reason;
  other.send(call("7", "Heartbeat", json::object()));
  EXPECT_EQ(other.receive_json()[1], "7");
}

TEST(Limits, ByteRateBudgetDelaysAFastSenderWithoutDroppingAnything) {
  Config config = test_config();
  config.limits.max_bytes_per_s = 20 * 1024;  // burst: max(rate, max_frame_bytes) = 20 KiB
  Gateway gw(config);
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
  const std::string data = std::string(3900, 'x');
  const auto start = Clock::now();
  constexpr int kFrames = 15;  // ~60 KB: 20 KB at once, the rest at 20 KiB/s (about 2 s)
  for (int i = 0; i < kFrames; ++i)
    cp.send(call(std::to_string(i), "DataTransfer", {{"vendorId", "V"}, {"data", data}}));
  for (int i = 0; i < kFrames; ++i) EXPECT_EQ(cp.receive_json()[1], std::to_string(i));
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_GT(seconds, 1.5);
  EXPECT_LT(seconds, 10.0);
}

TEST(Limits, ConnectionsBeyondTheTotalAreRefusedWith503) {
  Config config = test_config();
  config.limits.max_connections = 2;
  Gateway gw(config);
  Client a(gw.port(), "/ocpp/CP1", "ocpp1.6");
  Client b(gw.port(), "/ocpp/CP2", "ocpp1.6");
  EXPECT_EQ(upgrade_status(gw.port(), "/ocpp/CP3", "ocpp1.6"), 503);
  a.close();
  for (int i = 0; i < 200 && gw.registry.size() > 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the slot goes with the socket
  Client c(gw.port(), "/ocpp/CP3", "ocpp1.6");
  c.send(call("1", "Heartbeat", json::object()));
  EXPECT_EQ(c.receive_json()[1], "1");
}

// ---- free disk space ----

struct FakeDisk {
  std::atomic<uint64_t> free{10'000};
  DiskGuard::FreeSpace fn() {
    return [this]() -> std::optional<uint64_t> { return free.load(); };
  }
};

TEST(DiskGuard, PausesTheHeaviestWritersFirstThenEveryone) {
  FakeDisk disk;
  DiskGuard guard("/unused", 1000, disk.fn());
  guard.poll();
  EXPECT_TRUE(guard.healthy());
  EXPECT_TRUE(guard.allows(1e9));

  disk.free = 900;  // below the floor: only writers under the first threshold read
  guard.poll();
  EXPECT_EQ(guard.state(), DiskGuard::State::Low);
  EXPECT_FALSE(guard.healthy());
  EXPECT_FALSE(guard.allows(DiskGuard::kFirstThreshold * 2));
  EXPECT_TRUE(guard.allows(DiskGuard::kFirstThreshold / 4));

  disk.free = 800;  // still falling: the threshold halves
  guard.poll();
  EXPECT_FALSE(guard.allows(DiskGuard::kFirstThreshold * 0.75));
  EXPECT_TRUE(guard.allows(DiskGuard::kFirstThreshold / 4));
  guard.poll();  // not falling any more: the threshold stays
  EXPECT_TRUE(guard.allows(DiskGuard::kFirstThreshold / 4));

  for (uint64_t f = 790; f > 700; f -= 5) {  // falling for long: the threshold stops halving
    disk.free = f;
    guard.poll();
  }
  EXPECT_FALSE(guard.allows(DiskGuard::kLowestThreshold * 2));
  EXPECT_TRUE(guard.allows(DiskGuard::kLowestThreshold / 2));  // a charge point in normal use

  disk.free = 400;  // below half the floor: nobody
  guard.poll();
  EXPECT_EQ(guard.state(), DiskGuard::State::Critical);
  EXPECT_FALSE(guard.allows(0));
  EXPECT_EQ(guard.report()["state"], "critical");

  disk.free = 5000;
  guard.poll();
  EXPECT_TRUE(guard.allows(1e9));
  EXPECT_EQ(guard.report()["state"], "ok");
}

TEST(DiskGuard, ZeroFloorNeverPauses) {
  FakeDisk disk;
  disk.free = 0;
  DiskGuard guard("/unused", 0, disk.fn());
  guard.poll();
  EXPECT_TRUE(guard.allows(1e12));
}

TEST(Limits, BelowTheDiskFloorFramesWaitUnansweredAndAreAnsweredOnceSpaceReturns) {
  FakeDisk disk;
  disk.free = 100;  // critical
  DiskGuard guard("/unused", 1000, disk.fn());
  guard.poll();
  Gateway gw;
  gw.set_disk_guard(&guard);
  Client cp(gw.port(), "/ocpp/CP1", "ocpp1.6");
  cp.send(call("1", "Heartbeat", json::object()));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(guard.report()["paused_connections"], 1);
  for (const auto& e : gw.sink.entries()) EXPECT_EQ(e.raw.find("Heartbeat"), std::string::npos);
  disk.free = 5000;
  guard.poll();
  EXPECT_EQ(cp.receive_json()[1], "1");  // within the session's 1 s re-check
  EXPECT_EQ(guard.report()["paused_connections"], 0);
}

}  // namespace
}  // namespace ocppgw::gateway::testing
