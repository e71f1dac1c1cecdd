// bench/dispatch_bench.cpp: single-thread cost of rpc::dispatch (parse, validate request, handle,
// validate response, map to events) for typical 1.6 and 2.0.1 frames, against the in-memory
// FakeCsmsState so storage is not measured. Prints figures; asserts nothing.
//   ./bench/dispatch_bench [iterations]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gateway/rpc/dispatcher.hpp"
#include "ocpp16/protocol.hpp"
#include "ocpp201/protocol.hpp"
#include "tests/support/fake_csms_state.hpp"
#include "tests/unit/rpc/context.hpp"

namespace {

using ocppgw::rpc::OcppVersion;

struct Sample {
  const char* name;
  OcppVersion version;
  const char* text;
};

const std::vector<Sample> kSamples = {
    {"1.6 Heartbeat", OcppVersion::v16, R"([2,"h","Heartbeat",{}])"},
    {"1.6 StatusNotification", OcppVersion::v16,
     R"([2,"s","StatusNotification",{"connectorId":1,"errorCode":"NoError","status":"Charging","timestamp":"2025-06-15T15:00:00Z"}])"},
    {"1.6 MeterValues (4 values)", OcppVersion::v16,
     R"([2,"m","MeterValues",{"connectorId":1,"transactionId":1,"meterValue":[{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":"1234.5","measurand":"Energy.Active.Import.Register","unit":"Wh","context":"Sample.Periodic"},{"value":"7200","measurand":"Power.Active.Import","unit":"W"},{"value":"31.9","measurand":"Current.Import","unit":"A","phase":"L1"},{"value":"230.1","measurand":"Voltage","unit":"V","phase":"L1-N"}]}]}])"},
    {"1.6 StartTransaction", OcppVersion::v16,
     R"([2,"t","StartTransaction",{"connectorId":1,"idTag":"04A2B3C4D5E6F7","meterStart":1000,"timestamp":"2025-06-15T14:00:00Z"}])"},
    {"2.0.1 TransactionEvent Updated", OcppVersion::v201,
     R"([2,"u","TransactionEvent",{"eventType":"Updated","timestamp":"2025-06-15T15:00:00Z","triggerReason":"MeterValuePeriodic","seqNo":3,"transactionInfo":{"transactionId":"tx-1"},"evse":{"id":1,"connectorId":1},"meterValue":[{"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":1234.5,"measurand":"Energy.Active.Import.Register","unitOfMeasure":{"unit":"Wh"}},{"value":7200,"measurand":"Power.Active.Import"}]}]}])"},
};

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20000;
  ocppgw::testing::FakeCsmsState state;
  ocppgw::rpc::Policy policy{.id_token_secret = "bench"};
  for (const auto& sample : kSamples) {
    const auto& protocol = sample.version == OcppVersion::v16 ? ocppgw::ocpp16::protocol()
                                                              : ocppgw::ocpp201::protocol();
    size_t events = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) {
      auto ctx =
          ocppgw::rpc::make_context(policy, state, "CP-1", ocppgw::rpc::ValidationMode::Strict,
                                    1'700'000'000'000, sample.version);
      events += ocppgw::rpc::dispatch(protocol, ctx, sample.text).events.size();
    }
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    std::printf("dispatch %-32s %8.1f us/frame %9.0f frames/s  (%zu events, 1 thread)\n",
                sample.name, elapsed.count() * 1e6 / iterations, iterations / elapsed.count(),
                events);
  }
  return 0;
}
