// tests/unit/web/csms_commands_test.cpp: the calls route maps every outcome to its HTTP status
// and JSON body, refuses bad bodies and callers the guard refuses, and passes the path
// parameters and the caller's name to CsmsCommands.
#include "web/csms_commands.hpp"

#include <optional>

#include <gtest/gtest.h>

#include "util/metrics.hpp"

namespace ocppgw::web {
namespace {

using nlohmann::json;
using Kind = CommandOutcome::Kind;

struct FakeCommands : CsmsCommands {
  CommandOutcome next;
  std::string id, action, requested_by;
  json payload;
  int calls = 0;
  void call(std::string charge_point_id, std::string a, json p, std::string who,
            std::function<void(CommandOutcome)> done) override {
    ++calls;
    id = std::move(charge_point_id);
    action = std::move(a);
    payload = std::move(p);
    requested_by = std::move(who);
    done(next);
  }
};

struct Fixture {
  FakeCommands commands;
  bool allow = true;
  std::vector<std::string> audited;  // "<who> <cp> <action> <outcome>"
  Router router;
  Fixture() {
    add_command_routes(
        router, commands,
        [this](const HttpRequest& req, const HttpRespond& respond) -> std::optional<Principal> {
          if (allow) return Principal{"alice", Role::Operator};
          respond(text_response(req, http::status::forbidden, "no"));
          return std::nullopt;
        },
        [this](const Principal& who, const std::string& cp, const std::string& action,
               const CommandOutcome& outcome, std::function<void()> then) {
          audited.push_back(who.name + " " + cp + " " + action + " " +
                            std::string(outcome_name(outcome.kind)));
          then();
        });
  }
  HttpResponse post(const std::string& target, const std::string& body) {
    HttpRequest r{http::verb::post, target, 11};
    r.body() = body;
    std::optional<HttpResponse> out;
    router.handle(std::move(r), [&](HttpResponse res) { out = std::move(res); });
    EXPECT_TRUE(out);
    return out ? *out : HttpResponse{};
  }
};

TEST(CsmsCommandsRoute, PassesTheCallOnAndAnswersWithItsResult) {
  Fixture f;
  f.commands.next.payload = {{"status", "Accepted"}};
  const auto res = f.post("/api/v1/charge-points/CP%201/calls/Reset", R"({"type":"Soft"})");
  EXPECT_EQ(res.result(), http::status::ok);
  EXPECT_EQ(json::parse(res.body()),
            json::parse(R"({"result":"CallResult","payload":{"status":"Accepted"}})"));
  EXPECT_EQ(f.commands.id, "CP 1");
  EXPECT_EQ(f.commands.action, "Reset");
  EXPECT_EQ(f.commands.payload["type"], "Soft");
  EXPECT_EQ(f.commands.requested_by, "alice");
  EXPECT_EQ(f.audited, std::vector<std::string>{"alice CP 1 Reset CallResult"});
}

TEST(CsmsCommandsRoute, EveryOutcomeHasItsStatus) {
  const std::pair<Kind, http::status> cases[] = {
      {Kind::CallError, http::status::ok},
      {Kind::InvalidResponse, http::status::bad_gateway},
      {Kind::InvalidRequest, http::status::bad_request},
      {Kind::UnknownAction, http::status::not_found},
      {Kind::NotConnected, http::status::conflict},
      {Kind::QueueFull, http::status::too_many_requests},
      {Kind::Timeout, http::status::gateway_timeout},
  };
  for (const auto& [kind, status] : cases) {
    Fixture f;
    f.commands.next.kind = kind;
    f.commands.next.code = "NotSupported";
    const auto res = f.post("/api/v1/charge-points/CP1/calls/Reset", "{}");
    EXPECT_EQ(res.result(), status) << static_cast<int>(kind);
    EXPECT_TRUE(json::parse(res.body()).is_object());
  }
  Fixture f;
  f.commands.next.kind = Kind::CallError;
  f.commands.next.code = "NotSupported";
  f.commands.next.description = "no";
  const json body = json::parse(f.post("/api/v1/charge-points/CP1/calls/Reset", "{}").body());
  EXPECT_EQ(body["result"], "CallError");
  EXPECT_EQ(body["code"], "NotSupported");
}

TEST(CsmsCommandsRoute, BodyThatIsNotAJsonObjectIs400AndNothingIsSent) {
  Fixture f;
  for (const char* body : {"", "[1]", "{bad", "\"x\""})
    EXPECT_EQ(f.post("/api/v1/charge-points/CP1/calls/Reset", body).result(),
              http::status::bad_request)
        << body;
  EXPECT_EQ(f.commands.calls, 0);
  EXPECT_TRUE(f.audited.empty());
}

TEST(CsmsCommandsRoute, RefusedCallerGetsTheGuardsAnswerAndNothingIsSent) {
  Fixture f;
  f.allow = false;
  EXPECT_EQ(f.post("/api/v1/charge-points/CP1/calls/Reset", "{}").result(),
            http::status::forbidden);
  EXPECT_EQ(f.commands.calls, 0);
}

TEST(CsmsCommandsRoute, CountsCallsByActionAndOutcomeWithUncheckedActionsAsOther) {
  auto& calls =
      metrics::process_registry().counter("ocppgw_csms_calls_total", "", {"action", "outcome"});
  auto& reset_ok = calls.with({"TestReset", "CallResult"});
  auto& other_unknown = calls.with({"other", "UnknownAction"});
  auto& other_offline = calls.with({"other", "NotConnected"});
  const uint64_t ok0 = reset_ok.value(), unknown0 = other_unknown.value(),
                 offline0 = other_offline.value();
  Fixture f;
  f.post("/api/v1/charge-points/CP-1/calls/TestReset", "{}");
  f.commands.next.kind = Kind::UnknownAction;
  f.post("/api/v1/charge-points/CP-1/calls/Misspelt", "{}");
  f.commands.next.kind = Kind::NotConnected;
  f.post("/api/v1/charge-points/CP-1/calls/AnythingAtAll", "{}");
  EXPECT_EQ(reset_ok.value() - ok0, 1u);
  EXPECT_EQ(other_unknown.value() - unknown0, 1u);
  EXPECT_EQ(other_offline.value() - offline0, 1u);
  const std::string text = metrics::process_registry().render();
  EXPECT_EQ(text.find("Misspelt"), std::string::npos);
  EXPECT_EQ(text.find("AnythingAtAll"), std::string::npos);
}

}  // namespace
}  // namespace ocppgw::web
