// tests/unit/analytics/event_json_test.cpp: to_json_string writes the event's JSON text directly
// instead of dumping the to_json tree, and must produce exactly the tree's bytes
// (dump(-1, ' ', false, error_handler_t::replace)): every stored event already has that form.
// Checked over generated fleets, hand-made edge cases (escapes, invalid UTF-8, awkward doubles,
// extreme integers, odd extras) and thousands of random events; valid events must also survive
// the trip back through from_json. The other way, read_event_text must read exactly what
// from_json(json::parse(text)) reads wherever it answers, and answer for what the gateway writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "analytics/event.hpp"
#include "tests/support/mutate_json.hpp"
#include "tests/support/same_json.hpp"
#include "tests/unit/analytics/fleet_generator.hpp"

namespace ocppgw::analytics {
namespace {

using nlohmann::json;

std::string tree_dump(const Event& e) {
  return to_json(e).dump(-1, ' ', false, json::error_handler_t::replace);
}

// nlohmann's strict mode throws on the bytes that replace mode turns into U+FFFD.
bool is_valid_utf8(const std::string& s) {
  try {
    static_cast<void>(json(s).dump());
    return true;
  } catch (const json::type_error&) {
    return false;
  }
}

// Returns the text so callers can also check what it contains.
std::string expect_same_as_tree(const Event& e) {
  const std::string text = to_json_string(e);
  EXPECT_EQ(text, tree_dump(e));
  return text;
}

void expect_round_trip(const Event& e) {
  std::string error;
  const auto back = from_json(json::parse(to_json_string(e)), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(*back, e);
}

Event plain_event() {
  Event e;
  e.event_id = "ev-1";
  e.charge_point_id = "CP-1";
  e.event_type = EventType::MeterValues;
  e.ocpp_action = "MeterValues";
  e.event_ts_ms = 1'772'359'200'123;
  e.ingest_ts_ms = 1'772'359'201'000;
  e.ocpp_version = "1.6";
  e.gateway_node = "node-0";
  return e;
}

void set_every_string(Event& e, const std::string& s) {
  e.event_id = e.charge_point_id = e.ocpp_action = e.ocpp_version = e.gateway_node = s;
  e.message_id = e.transaction_id = e.trigger_reason = e.connector_status = e.error_code =
      e.stop_reason = e.id_token_hash = s;
  e.flags = {s, "plain", s};
  e.extra = {{s, s}, {"nested", {{"list", {s, 1}}}}};
}

void set_every_double(Event& e, double v) {
  e.meter_wh = e.power_w = e.current_a = e.voltage_v = e.soc_pct = v;
}

void set_every_integer(Event& e, int64_t v) { e.connector_id = e.evse_id = e.seq_no = v; }

TEST(EventJson, FleetEventsMatchTheTreeDump) {
  size_t events = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    testing::FleetSpec spec;
    spec.seed = seed;
    for (const Event& e : testing::generate_fleet(spec).events) {
      expect_same_as_tree(e);
      expect_round_trip(e);
      ++events;
    }
  }
  RecordProperty("events", static_cast<int>(events));
  EXPECT_GT(events, 4000u);
}

TEST(EventJson, EmptyOptionalsAreNullAndDefaultsMatch) {
  const Event empty;
  const std::string text = expect_same_as_tree(empty);
  EXPECT_NE(text.find(R"("connector_id":null)"), std::string::npos);
  EXPECT_NE(text.find(R"("voltage_v":null})"), std::string::npos);
  EXPECT_NE(text.find(R"("extra":{},"flags":[])"), std::string::npos);
  EXPECT_EQ(text.front(), '{');
  expect_round_trip(plain_event());
  expect_same_as_tree(plain_event());

  Event empty_strings = plain_event();
  set_every_string(empty_strings, "");
  expect_same_as_tree(empty_strings);
  expect_round_trip(empty_strings);
}

TEST(EventJson, EscapedCharactersMatchNlohmann) {
  std::vector<std::string> cases = {
      "say \"hi\"",
      R"(C:\path\to)",
      "\\",
      "\"",
      "/slash/",
      "\x7f",
      "tab\there",
      "a\r\nb",
      "caf\xc3\xa9",                  // 2-byte UTF-8
      "\xe2\x82\xac 5",               // 3-byte
      "\xf0\x9f\x98\x80",             // 4-byte (outside the BMP)
      "\xef\xbf\xbd already U+FFFD",  // the replacement character itself
  };
  std::string all_controls;
  for (int c = 0; c < 0x20; ++c) {
    cases.push_back(std::string(1, static_cast<char>(c)));
    cases.push_back("x" + std::string(1, static_cast<char>(c)) + "y");
    all_controls += static_cast<char>(c);
  }
  cases.push_back(all_controls);
  cases.push_back(std::string("nul\0inside", 10));
  for (const std::string& s : cases) {
    Event e = plain_event();
    set_every_string(e, s);
    SCOPED_TRACE(json(s).dump());
    expect_same_as_tree(e);
    expect_round_trip(e);
  }
  // What nlohmann does, spelled out: short escapes where JSON has them, else \u00xx lowercase.
  Event e = plain_event();
  e.charge_point_id = std::string("\x01\x08\x0c\x1f\"\\\x7f", 7);
  EXPECT_NE(expect_same_as_tree(e).find(R"("charge_point_id":"\u0001\b\f\u001f\"\\)"
                                        "\x7f\""),
            std::string::npos);
}

TEST(EventJson, InvalidUtf8IsReplacedLikeNlohmann) {
  const std::vector<std::string> cases = {
      "\x80",  // lone continuation byte
      "ab\xbf"
      "cd",        // continuation byte mid-string
      "\xe2\x82",  // truncated 3-byte sequence at the end
      "\xe2\x82"
      "A",                       // truncated sequence followed by ASCII
      "\xf0\x9f\x98",            // truncated 4-byte sequence
      "\xc0\xaf",                // overlong '/'
      "\xe0\x80\xaf",            // overlong, 3 bytes
      "\xed\xa0\x80",            // UTF-16 surrogate
      "\xf4\x90\x80\x80",        // above U+10FFFF
      "\xff\xfe",                // bytes that never occur in UTF-8
      "ok \xc3\xa9 \xc3 \"q\"",  // valid, invalid and escaped together
  };
  for (const std::string& s : cases) {
    ASSERT_FALSE(is_valid_utf8(s)) << json(s).dump(-1, ' ', true, json::error_handler_t::replace);
    Event e = plain_event();
    set_every_string(e, s);
    SCOPED_TRACE(json(s).dump(-1, ' ', true, json::error_handler_t::replace));
    const std::string text = expect_same_as_tree(e);
    EXPECT_NE(text.find("\xef\xbf\xbd"), std::string::npos);
    EXPECT_TRUE(json::accept(text));
  }
}

TEST(EventJson, DoublesMatchNlohmann) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> cases = {
      0.0, -0.0, 1234.0, 1234.5, 0.1, 0.3, 1e21, 1e-7, 1e-5, 1e-4, 0.0001234, 1e15, 1e16,
      123456789.123, 5e-324, DBL_MIN, DBL_MAX, -DBL_MAX, -1.5, -1e-300, 2.5e-308, 1e100,
      9007199254740993.0, 0.1 + 0.2, 100.0, 1e22, -123.456e10, nan, -nan, inf, -inf,
      // Grisu2 (nlohmann) digits that are not the shortest round-trip ones std::to_chars gives.
      -3.5561693938148423e-26, 1238149735313913.2, 5.4046168572124136e-195,
      -1.2635321889364135e+292};

  for (double v : cases) {
    Event e = plain_event();
    set_every_double(e, v);
    SCOPED_TRACE(::testing::Message() << v);
    expect_same_as_tree(e);
    if (std::isfinite(v)) expect_round_trip(e);
  }
  auto meter_text = [](double v) {
    Event e = plain_event();
    e.meter_wh = v;
    const std::string text = expect_same_as_tree(e);
    const size_t at = text.find("\"meter_wh\":") + 11;
    return text.substr(at, text.find(',', at) - at);
  };
  EXPECT_EQ(meter_text(1234.0), "1234.0");
  EXPECT_EQ(meter_text(-0.0), "-0.0");
  EXPECT_EQ(meter_text(1e21), "1e+21");
  EXPECT_EQ(meter_text(1e-7), "1e-07");
  EXPECT_EQ(meter_text(-3.5561693938148423e-26), "-3.5561693938148423e-26");  // not ...842e-26
  EXPECT_EQ(meter_text(1238149735313913.2), "1.2381497353139133e+15");        // not ...132e+15
  EXPECT_EQ(meter_text(nan), "null");
  EXPECT_EQ(meter_text(-inf), "null");
}

TEST(EventJson, IntegersMatchNlohmann) {
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1}, int64_t{-42}, int64_t{1} << 53,
                    std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::min() + 1}) {
    Event e = plain_event();
    set_every_integer(e, v);
    SCOPED_TRACE(v);
    const std::string text = expect_same_as_tree(e);
    EXPECT_NE(text.find("\"seq_no\":" + std::to_string(v) + ","), std::string::npos);
    expect_round_trip(e);
  }
  for (int v : {0, -7, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()}) {
    Event e = plain_event();
    e.schema_version = v;
    expect_same_as_tree(e);
    expect_round_trip(e);
  }
  // Timestamps before the epoch and far ahead still format through format_rfc3339_ms.
  for (int64_t ts : {int64_t{-1}, int64_t{-86'400'001}, int64_t{0}, int64_t{253'402'300'799'999}}) {
    Event e = plain_event();
    e.event_ts_ms = e.ingest_ts_ms = ts;
    expect_same_as_tree(e);
    expect_round_trip(e);
  }
}

TEST(EventJson, ExtraAndFlagsMatchNlohmann) {
  Event nested = plain_event();
  nested.extra = json::parse(R"({"z":1,"a":[1,2.5,-0.0,null,true,"s",{"k":{}}],"m":{"b":[],
      "a":"\u00e9\u0001","n":-9223372036854775808,"u":18446744073709551615,"f":1e300}})");
  nested.extra["bad"] = std::string("\xff raw \xe2\x82");
  expect_same_as_tree(nested);

  // to_json writes {} for an extra that is not an object.
  for (const json& extra : {json(nullptr), json::array({1, 2}), json("text"), json(3.5),
                            json::object(), json::parse(R"({"only":null})")}) {
    Event e = plain_event();
    e.extra = extra;
    const std::string text = expect_same_as_tree(e);
    if (!extra.is_object()) {
      EXPECT_NE(text.find(R"("extra":{},)"), std::string::npos);
    }
  }

  Event flagged = plain_event();
  for (int i = 0; i < 200; ++i)
    flagged.flags.push_back(i % 3 == 0 ? std::string(flag::kSeqNoGap)
                                       : "flag \"" + std::to_string(i) + "\"\n\xc3\xa9");
  expect_same_as_tree(flagged);
  expect_round_trip(flagged);
  flagged.flags = {""};
  EXPECT_NE(expect_same_as_tree(flagged).find(R"("flags":[""],)"), std::string::npos);
}

// Random events: strings of printable ASCII, of valid UTF-8 code points or (in half the events)
// of any bytes; doubles from raw bit patterns (NaN, infinities, subnormals included) or ordinary
// readings.
class RandomEvents {
 public:
  // `ascii`: printable ASCII strings only (what the gateway's own events nearly always hold).
  explicit RandomEvents(uint64_t seed, bool ascii = false) : rng_(seed), ascii_(ascii) {}

  Event next() {
    any_bytes_ = !ascii_ && chance(0.5);
    Event e;
    e.event_id = text();
    e.charge_point_id = text();
    e.connector_id = maybe_integer();
    e.evse_id = maybe_integer();
    e.event_type = static_cast<EventType>(pick(0, static_cast<int>(EventType::Invalid)));
    e.ocpp_action = text();
    e.message_id = maybe_text();
    e.event_ts_ms = pick(-62'135'596'800'000, 253'402'300'799'999);  // years 1..9999
    e.ingest_ts_ms = pick(0, 4'102'444'800'000);
    e.transaction_id = maybe_text();
    e.seq_no = maybe_integer();
    e.trigger_reason = maybe_text();
    e.meter_wh = maybe_double();
    e.power_w = maybe_double();
    e.current_a = maybe_double();
    e.voltage_v = maybe_double();
    e.soc_pct = maybe_double();
    e.connector_status = maybe_text();
    e.error_code = maybe_text();
    e.stop_reason = maybe_text();
    e.id_token_hash = maybe_text();
    e.ocpp_version = text();
    e.schema_version = static_cast<int>(pick(-3, 3));
    e.gateway_node = text();
    for (int64_t i = pick(0, 4); i > 0; --i) e.flags.push_back(text());
    if (chance(0.6)) e.extra = object(3);
    if (chance(0.05)) e.extra = json(text());  // not an object: dumps as {}
    return e;
  }

 private:
  int64_t pick(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  std::string text() {
    std::string s;
    const int64_t kind = ascii_ ? 0 : pick(0, any_bytes_ ? 9 : 7);
    for (int64_t n = pick(0, 24); n > 0; --n) {
      if (kind < 5) {
        s += static_cast<char>(pick(0x20, 0x7e));
      } else if (kind >= 8) {
        s += static_cast<char>(pick(0, 255));
      } else {
        append_utf8(s, static_cast<uint32_t>(pick(0, 0x10ffff)));
      }
    }
    return s;
  }

  static void append_utf8(std::string& s, uint32_t cp) {
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;  // surrogates are not code points
    auto put = [&](uint32_t byte) { s += static_cast<char>(byte); };
    if (cp < 0x80) {
      put(cp);
    } else if (cp < 0x800) {
      put(0xc0 | (cp >> 6));
      put(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      put(0xe0 | (cp >> 12));
      put(0x80 | ((cp >> 6) & 0x3f));
      put(0x80 | (cp & 0x3f));
    } else {
      put(0xf0 | (cp >> 18));
      put(0x80 | ((cp >> 12) & 0x3f));
      put(0x80 | ((cp >> 6) & 0x3f));
      put(0x80 | (cp & 0x3f));
    }
  }

  // Any JSON a parsed frame can hold, nested up to `depth` levels.
  json value(int depth) {
    switch (pick(0, depth > 0 ? 8 : 6)) {
      case 0:
        return nullptr;
      case 1:
        return chance(0.5);
      case 2:
        return integer();
      case 3:
        return static_cast<uint64_t>(pick(0, std::numeric_limits<int64_t>::max())) * 2 + 1;
      case 4:
        return number();
      case 5:
      case 6:
        return text();
      case 7: {
        json array = json::array();
        for (int64_t n = pick(0, 4); n > 0; --n) array.push_back(value(depth - 1));
        return array;
      }
      default:
        return object(depth - 1);
    }
  }
  json object(int depth) {
    json members = json::object();
    for (int64_t n = pick(0, 4); n > 0; --n) members[text()] = value(depth);
    return members;
  }

  double number() {
    switch (pick(0, 3)) {
      case 0: {
        const uint64_t bits = rng_();
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return d;
      }
      case 1:
      case 2:
        return reading();
      default:
        return static_cast<double>(
            pick(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
    }
  }
  double reading() {
    return chance(0.5) ? std::uniform_real_distribution<double>(-1e6, 1e6)(rng_)
                       : static_cast<double>(pick(-1'000'000'000, 1'000'000'000)) / 10.0;
  }
  int64_t integer() {
    return chance(0.2)
               ? pick(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max())
               : pick(-1000, 100000);
  }
  std::optional<std::string> maybe_text() {
    return chance(0.5) ? std::optional(text()) : std::nullopt;
  }
  std::optional<double> maybe_double() {
    return chance(0.5) ? std::optional(number()) : std::nullopt;
  }
  std::optional<int64_t> maybe_integer() {
    return chance(0.5) ? std::optional(integer()) : std::nullopt;
  }

  std::mt19937_64 rng_;
  bool ascii_ = false;
  bool any_bytes_ = false;  // this event's strings may hold invalid UTF-8
};

// True when the event's JSON form parses back to the same event: valid UTF-8 everywhere (the
// strict dump throws otherwise), finite doubles (NaN and infinities become null) and an object
// extra (anything else is written as {}).
bool has_non_finite(const json& j) {
  if (j.is_number_float()) return !std::isfinite(j.get<double>());
  if (!j.is_structured()) return false;
  return std::any_of(j.begin(), j.end(), [](const json& item) { return has_non_finite(item); });
}

bool survives_json(const Event& e) {
  for (const auto* d : {&e.meter_wh, &e.power_w, &e.current_a, &e.voltage_v, &e.soc_pct})
    if (*d && !std::isfinite(**d)) return false;
  if (has_non_finite(e.extra)) return false;
  try {
    static_cast<void>(to_json(e).dump());
  } catch (const json::type_error&) {
    return false;
  }
  return e.extra.is_object();
}

TEST(EventJson, RandomEventsMatchAndValidOnesRoundTrip) {
  RandomEvents random(20260301);
  int round_tripped = 0, replaced = 0;
  constexpr int kEvents = 5000;
  for (int i = 0; i < kEvents; ++i) {
    const Event e = random.next();
    SCOPED_TRACE(i);
    const std::string text = expect_same_as_tree(e);
    ASSERT_TRUE(json::accept(text));
    if (survives_json(e)) {
      expect_round_trip(e);
      ++round_tripped;
    } else {
      ++replaced;
    }
  }
  RecordProperty("round_tripped", round_tripped);
  RecordProperty("replaced_or_lossy", replaced);
  // Both kinds must be well represented for the loop to prove anything.
  EXPECT_GT(round_tripped, kEvents / 4);
  EXPECT_GT(replaced, kEvents / 4);
}

// --- read_event_text: from_json(json::parse(text)) without the tree, or nullopt ---

std::optional<Event> by_tree(const std::string& text) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return from_json(j);
}

// Event's operator== compares extra with json's == (1 == 1.0) and doubles by value (0.0 ==
// -0.0); here both must be the same to the type and the bit.
::testing::AssertionResult same_event(const Event& a, const Event& b) {
  if (auto r = ocppgw::testing::same_tree(a.extra, b.extra); !r) return r;
  const std::optional<double> Event::*doubles[] = {
      &Event::meter_wh, &Event::power_w, &Event::current_a, &Event::voltage_v, &Event::soc_pct};
  for (auto d : doubles)
    if ((a.*d).has_value() && (b.*d).has_value() &&
        std::memcmp(&*(a.*d), &*(b.*d), sizeof(double)) != 0)
      return ::testing::AssertionFailure() << "a double differs in its bits";
  if (!(a == b))
    return ::testing::AssertionFailure() << to_json_string(a) << "\n vs " << to_json_string(b);
  return ::testing::AssertionSuccess();
}

// The contract for one text: an answer is the tree's answer.
::testing::AssertionResult reads_as_tree(const std::string& text, bool* answered = nullptr) {
  const std::optional<Event> fast = read_event_text(text);
  if (answered) *answered = fast.has_value();
  if (!fast) return ::testing::AssertionSuccess();
  const std::optional<Event> reference = by_tree(text);
  if (!reference)
    return ::testing::AssertionFailure() << "answered where the tree refuses: " << text;
  return same_event(*fast, *reference);
}

TEST(EventText, WhatTheGatewayWritesIsReadWithoutTheTree) {
  size_t events = 0;
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    testing::FleetSpec spec;
    spec.seed = seed;
    for (const Event& e : testing::generate_fleet(spec).events) {
      const std::string text = to_json_string(e);
      ASSERT_TRUE(read_event_text(text)) << text;  // the fast road, not the fallback
      ASSERT_TRUE(reads_as_tree(text));
      ++events;
    }
  }
  EXPECT_GT(events, 2000u);
  Event e = plain_event();
  set_every_string(e, "tab\tquote\"slash/back\\");
  set_every_double(e, -0.0);
  set_every_integer(e, std::numeric_limits<int64_t>::min());
  e.schema_version = 2;
  ASSERT_TRUE(read_event_text(to_json_string(e)));
  EXPECT_TRUE(reads_as_tree(to_json_string(e)));
  EXPECT_EQ(read_event_text(to_json_string(e))->schema_version, 2);
}

TEST(EventText, RandomEventsAgreeWithTheTree) {
  constexpr int kEvents = 5000;
  for (const bool ascii : {true, false}) {
    RandomEvents random(20261206, ascii);
    int answered = 0;
    for (int i = 0; i < kEvents; ++i) {
      const std::string text = to_json_string(random.next());
      bool a = false;
      ASSERT_TRUE(reads_as_tree(text, &a)) << i;
      answered += a ? 1 : 0;
    }
    RecordProperty(ascii ? "answered_ascii" : "answered_any", answered);
    // ASCII events are the reader's (the few refused hold an extra that is not an object);
    // the others nearly all hold UTF-8 or \u escapes, which are the tree's.
    if (ascii) {
      EXPECT_GT(answered, kEvents * 9 / 10);
    }
  }
}

// Edits of a plain event's text: those the reader takes must read as the tree reads them, those
// where from_json would convert, skip or refuse must go to the tree.
TEST(EventText, OddMembersGoToTheTree) {
  const std::string base = to_json_string(plain_event());
  const json tree = json::parse(base);
  auto with = [&](const char* key, const json& value) {
    json j = tree;
    j[key] = value;
    return j.dump();
  };
  auto without = [&](const char* key) {
    json j = tree;
    j.erase(key);
    return j.dump();
  };
  for (const std::string& text : {with("ocpp_action", nullptr),
                                  with("schema_version", "1"),
                                  with("schema_version", 1.0),
                                  with("schema_version", 4294967296LL),
                                  with("connector_id", 1.5),
                                  with("connector_id", true),
                                  with("connector_id", 18446744073709551615ULL),
                                  with("meter_wh", "5"),
                                  with("meter_wh", false),
                                  with("message_id", 7),
                                  with("flags", json::array({1})),
                                  with("flags", "x"),
                                  with("extra", json::array()),
                                  with("extra", "x"),
                                  with("charge_point_id", "caf\xc3\xa9"),
                                  with("event_type", " MeterValues"),
                                  with("event_type", "Unknown"),
                                  with("event_ts", "yesterday"),
                                  without("event_id"),
                                  without("ingest_ts"),
                                  R"({"event_id":"x",)" + base.substr(1),
                                  base + "x",
                                  base.substr(0, base.size() - 1),
                                  "[" + base + "]",
                                  std::string(R"({"charge_point_id":"\u0043P"})")}) {
    EXPECT_FALSE(read_event_text(text)) << text;
    EXPECT_TRUE(reads_as_tree(text)) << text;
  }
  for (const std::string& text :
       {tree.dump(2), with("schema_version", 2), with("meter_wh", 5), with("connector_id", nullptr),
        with("vendor_field", json{{"a", json::array({1, 2.5, nullptr})}}),
        with("extra", json{{"deep", json{{"er", json::array({json::object()})}}}}),
        R"({"zz":1,)" + base.substr(1)}) {
    EXPECT_TRUE(read_event_text(text)) << text;
    EXPECT_TRUE(reads_as_tree(text)) << text;
  }
  EXPECT_EQ(read_event_text(with("meter_wh", 5))->meter_wh, 5.0);
}

// Byte flips, cuts and splices of real event texts: every variant must agree with the tree.
TEST(EventText, MutatedTextsAgreeWithTheTree) {
  testing::FleetSpec spec;
  std::vector<std::string> texts;
  for (const Event& e : testing::generate_fleet(spec).events) texts.push_back(to_json_string(e));
  std::mt19937 random(20261206);
  size_t answered = 0;
  for (int round = 0; round < 20000; ++round) {
    const std::string text = ocppgw::testing::mutate_json(texts[random() % texts.size()], random);
    bool a = false;
    ASSERT_TRUE(reads_as_tree(text, &a)) << text;
    answered += a ? 1 : 0;
  }
  RecordProperty("answered", static_cast<int>(answered));
  EXPECT_GT(answered, 1000u);  // plenty of edits leave an event to compare
}

}  // namespace
}  // namespace ocppgw::analytics
