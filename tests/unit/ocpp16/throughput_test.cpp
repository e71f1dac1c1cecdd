// tests/unit/ocpp16/throughput_test.cpp: prints the single-thread cost of rpc::dispatch for
// typical 1.6 frames (parse, validate, handle, validate response, map). A figure for the
// benchmark notes, not a timed assertion: the only checks are on what the frames produced.
#include "ocpp16/protocol.hpp"

#include <chrono>
#include <cstdio>

#include "tests/unit/ocpp16/ocpp16_fixture.hpp"

namespace ocppgw::ocpp16 {
namespace {

TEST_F(Ocpp16Test, PrintsDispatchThroughput) {
  const std::vector<std::pair<std::string, std::string>> frames = {
      {"Heartbeat", R"([2,"h","Heartbeat",{}])"},
      {"StatusNotification",
       R"([2,"s","StatusNotification",{"connectorId":1,"errorCode":"NoError","status":"Charging","timestamp":"2025-06-15T15:00:00Z"}])"},
      {"MeterValues(4 values)",
       R"([2,"m","MeterValues",{"connectorId":1,"transactionId":1,"meterValue":[{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":"1234.5","measurand":"Energy.Active.Import.Register","unit":"Wh","context":"Sample.Periodic"},{"value":"7200","measurand":"Power.Active.Import","unit":"W"},{"value":"31.9","measurand":"Current.Import","unit":"A","phase":"L1"},{"value":"230.1","measurand":"Voltage","unit":"V","phase":"L1-N"}]}]}])"},
      {"StartTransaction",
       R"([2,"t","StartTransaction",{"connectorId":1,"idTag":"04A2B3C4D5E6F7","meterStart":1000,"timestamp":"2025-06-15T14:00:00Z"}])"},
  };
  constexpr int kIterations = 5000;
  for (const auto& [name, text] : frames) {
    size_t events = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kIterations; ++i) events += send(text).events.size();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(events, static_cast<size_t>(kIterations));
    std::printf("[ figure   ] dispatch %-22s %8.1f us/frame  %9.0f frames/s (1 thread)\n",
                name.c_str(), elapsed.count() * 1e6 / kIterations, kIterations / elapsed.count());
  }
}

}  // namespace
}  // namespace ocppgw::ocpp16
