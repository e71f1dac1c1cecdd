// bench/dispatch_bench.cpp: single-thread cost of rpc::dispatch (parse, validate request, handle,
// validate response, map to events) for typical 1.6 and 2.0.1 frames, against the in-memory
// FakeCsmsState so storage is not measured; for the actions read from a tape, the same frame read
// as a tree beside it (Policy::tape_reads off); then the cost of turning one MeterValues event into
// its JSON text, the json-tree dump against the direct writer (to_json_string), side by side.
// Prints figures; asserts nothing.
//   ./bench/dispatch_bench [iterations] [sample]   (sample: run only the frames whose name contains
//   it, e.g. MeterValues, for a profiler)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "analytics/event.hpp"
#include "ocpp16/protocol.hpp"
#include "ocpp201/protocol.hpp"
#include "rpc/dispatcher.hpp"
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

template <typename Serialise>
double ns_per_event(const ocppgw::analytics::Event& e, int iterations, Serialise serialise) {
  size_t bytes = 0;  // consumed so the loop cannot be optimised away
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) bytes += serialise(e).size();
  const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
  if (bytes == 0) std::printf("(empty output)\n");
  return elapsed.count() / iterations;
}

// The old path (to_json tree, then dump) against to_json_string on the same event. Rounds
// alternate the two so drift hits both; the best round of each is reported.
void bench_event_json(const ocppgw::analytics::Event& e, int iterations) {
  using nlohmann::json;
  auto tree = [](const ocppgw::analytics::Event& ev) {
    return to_json(ev).dump(-1, ' ', false, json::error_handler_t::replace);
  };
  auto direct = [](const ocppgw::analytics::Event& ev) { return to_json_string(ev); };
  const std::string text = direct(e);
  std::printf("event json: MeterValues event, %zu bytes, identical to the tree dump: %s\n",
              text.size(), text == tree(e) ? "yes" : "NO");
  double tree_ns = std::numeric_limits<double>::max(), direct_ns = tree_ns;
  for (int round = 0; round < 6; ++round) {
    tree_ns = std::min(tree_ns, ns_per_event(e, iterations, tree));
    direct_ns = std::min(direct_ns, ns_per_event(e, iterations, direct));
  }
  std::printf("event json %-28s %8.0f ns/event\n", "to_json(e).dump (tree)", tree_ns);
  std::printf("event json %-28s %8.0f ns/event  (%.1fx faster)\n", "to_json_string (direct)",
              direct_ns, tree_ns / direct_ns);
}

std::string meter_values_frame(size_t entries) {
  std::string text = R"([2,"big","MeterValues",{"connectorId":1,"transactionId":1,"meterValue":[)";
  for (size_t i = 0; i < entries; ++i) {
    if (i) text += ',';
    text += R"({"timestamp":"2025-06-15T15:00:00Z","sampledValue":[{"value":")" +
            std::to_string(i) + R"(","measurand":"Energy.Active.Import.Register","unit":"Wh"}]})";
  }
  return text + "]}]";
}

// One large MeterValues frame at each size, cap lifted, so that the per-frame cost can be seen to
// grow linearly with the entry count (it was quadratic while each event id re-hashed the payload).
void bench_large_meter_values(ocppgw::testing::FakeCsmsState& state) {
  ocppgw::rpc::Policy policy{.id_token_secret = "bench", .max_events_per_frame = 1'000'000};
  for (size_t entries : {size_t{1000}, size_t{13800}}) {
    const std::string text = meter_values_frame(entries);
    auto ctx = ocppgw::rpc::make_context(policy, state, "CP-1", ocppgw::rpc::ValidationMode::Strict,
                                         1'700'000'000'000);
    const auto start = std::chrono::steady_clock::now();
    const size_t events =
        ocppgw::rpc::dispatch(ocppgw::ocpp16::protocol(), ctx, text).events.size();
    const std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    std::printf("dispatch 1.6 MeterValues %5zu entries %9.1f ms/frame  (%zu events, %zu bytes)\n",
                entries, elapsed.count(), events, text.size());
  }
}

// Microseconds per dispatch of `sample` under `policy`; `events` counts what the last run
// produced and `from_tape` says which road the frame took.
double us_per_frame(const Sample& sample, const ocppgw::rpc::Policy& policy,
                    ocppgw::testing::FakeCsmsState& state, int iterations, size_t& events,
                    bool& from_tape) {
  const auto& protocol =
      sample.version == OcppVersion::v16 ? ocppgw::ocpp16::protocol() : ocppgw::ocpp201::protocol();
  events = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) {
    auto ctx = ocppgw::rpc::make_context(policy, state, "CP-1", ocppgw::rpc::ValidationMode::Strict,
                                         1'700'000'000'000, sample.version);
    const auto r = ocppgw::rpc::dispatch(protocol, ctx, sample.text);
    events += r.events.size();
    from_tape = r.from_tape;
  }
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return elapsed.count() * 1e6 / iterations;
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20000;
  const std::string only = argc > 2 ? argv[2] : "";
  ocppgw::testing::FakeCsmsState state;
  ocppgw::rpc::Policy policy{.id_token_secret = "bench"};
  ocppgw::rpc::Policy tree_policy = policy;
  tree_policy.tape_reads = false;
  for (const auto& sample : kSamples) {
    if (std::string_view(sample.name).find(only) == std::string_view::npos) continue;
    // Rounds alternate the gateway's road (the tape, for the actions that have one) and the tree
    // road, so drift hits both; the best round of each is reported.
    size_t events = 0;
    bool from_tape = false;
    double tape_us = std::numeric_limits<double>::max(), tree_us = tape_us;
    for (int round = 0; round < 3; ++round) {
      tape_us =
          std::min(tape_us, us_per_frame(sample, policy, state, iterations, events, from_tape));
      if (!from_tape) continue;  // the same road twice: nothing to compare
      bool unused = false;
      tree_us =
          std::min(tree_us, us_per_frame(sample, tree_policy, state, iterations, events, unused));
    }
    std::printf("dispatch %-32s %8.1f us/frame %9.0f frames/s  (%zu events, 1 thread)\n",
                sample.name, tape_us, 1e6 / tape_us, events);
    if (from_tape)
      std::printf("  the same frame read as a tree %10.1f us/frame  (the tape road %.2fx faster)\n",
                  tree_us, tree_us / tape_us);
  }
  if (!only.empty()) return 0;
  // A typical event: the first one the 1.6 MeterValues frame maps to.
  auto ctx = ocppgw::rpc::make_context(policy, state, "CP-1", ocppgw::rpc::ValidationMode::Strict,
                                       1'700'000'000'000, OcppVersion::v16);
  const auto meter_values =
      ocppgw::rpc::dispatch(ocppgw::ocpp16::protocol(), ctx, kSamples[2].text);
  if (!meter_values.events.empty()) bench_event_json(meter_values.events.front(), 10 * iterations);
  bench_large_meter_values(state);
  return 0;
}
