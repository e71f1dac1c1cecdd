// tests/unit/analytics/fleet_generator.hpp: a deterministic generator of canonical events for a
// fleet of charge points, with the faults real chargers produce (technical and business
// duplicates, conflicting readings, late and out-of-order delivery, missing starts and stops,
// meter resets, a skewed clock, invalid rows) and the ground truth to check Gold against.
// Used by the property tests and by bench/analytics_bench.cpp. Header-only, no I/O.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "analytics/event.hpp"

namespace ocppgw::analytics::testing {

struct FleetSpec {
  int charge_points = 40;
  int sessions_per_cp = 4;
  int readings_per_session = 6;
  uint64_t seed = 1;
  std::string cp_prefix = "CP-";
  int64_t start_ms = 1772359200000;  // 2026-03-01T10:00:00Z
  double p_missing_start = 0.06;
  double p_missing_stop = 0.10;
  double p_meter_reset = 0.06;
  double p_conflict = 0.06;
  double p_technical_dup = 0.05;
  double p_business_dup = 0.05;
  double p_late = 0.10;
  double p_invalid = 0.01;
  bool heartbeats = true;
  bool skewed_charge_point = true;  // CP index 0 runs 10 minutes ahead
};

struct TruthSession {
  std::string charge_point_id;
  std::string transaction_id;
  double energy_kwh = 0;  // what the meter really delivered (for sessions without a reset)
  bool expect_final = false;
  bool has_start = true, has_stop = true, meter_reset = false, conflict = false;
};

struct Fleet {
  std::vector<Event>
      events;  // in the order the fleet produced them (arrival order is the caller's)
  std::vector<TruthSession> sessions;
  int64_t invalid = 0, technical_dups = 0, business_dups = 0, conflicting = 0;
};

inline Fleet generate_fleet(const FleetSpec& spec) {
  Fleet f;
  std::mt19937_64 rng(spec.seed);
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  auto between = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  uint64_t next_id = 0;
  auto id = [&]() { return "ev-" + std::to_string(spec.seed) + "-" + std::to_string(next_id++); };

  for (int c = 0; c < spec.charge_points; ++c) {
    const std::string cp = spec.cp_prefix + std::to_string(c);
    const int64_t skew = spec.skewed_charge_point && c == 0 ? 10 * 60 * 1000 : 0;
    std::vector<Event> cp_events;
    auto base = [&](EventType type, int64_t t) {
      Event e;
      e.event_id = id();
      e.charge_point_id = cp;
      e.event_type = type;
      e.ocpp_action = std::string(to_string(type));
      e.event_ts_ms = t + skew;
      e.ingest_ts_ms = t + between(5, 3000);
      e.ocpp_version = c % 3 == 0 ? "2.0.1" : "1.6";
      e.gateway_node = "node-0";
      return e;
    };
    int64_t t = spec.start_ms + between(0, 600000);
    Event conn = base(EventType::Connection, t - 2000);
    conn.extra["state"] = "connected";
    cp_events.push_back(conn);
    Event boot = base(EventType::BootNotification, t - 1000);
    boot.extra = {{"chargePointVendor", "Acme"},
                  {"chargePointModel", "X" + std::to_string(c % 4)},
                  {"firmwareVersion", "1.0." + std::to_string(c % 3)},
                  {"interval", 300}};
    cp_events.push_back(boot);
    double meter = static_cast<double>(between(0, 500000));
    auto status = [&](int64_t at, const char* s) {
      Event e = base(EventType::StatusNotification, at);
      e.connector_id = 1;
      e.connector_status = s;
      cp_events.push_back(e);
    };
    status(t, "Available");
    for (int k = 0; k < spec.sessions_per_cp; ++k) {
      TruthSession truth;
      truth.charge_point_id = cp;
      truth.transaction_id = std::to_string(c * 1000 + k);
      const int64_t start = t + between(60000, 7200000);
      status(start - 30000, "Preparing");
      status(start, "Charging");
      double m = meter;
      truth.has_start = !chance(spec.p_missing_start);
      truth.has_stop = !chance(spec.p_missing_stop);
      truth.meter_reset = chance(spec.p_meter_reset);
      const int reset_at =
          truth.meter_reset ? static_cast<int>(between(0, spec.readings_per_session - 1)) : -1;
      auto tx = [&](EventType type, int64_t at, double value) {
        Event e = base(type, at);
        e.transaction_id = truth.transaction_id;
        e.connector_id = 1;
        e.meter_wh = value;
        return e;
      };
      if (truth.has_start) cp_events.push_back(tx(EventType::StartTransaction, start, m));
      int64_t at = start;
      double delivered = 0;
      for (int r = 0; r < spec.readings_per_session; ++r) {
        at += 60000;
        double inc = static_cast<double>(between(50, 2000));
        if (r == reset_at) {
          m = inc;  // meter replaced/reset: reading restarts near zero
        } else {
          m += inc;
        }
        delivered += inc;
        Event reading = tx(EventType::MeterValues, at, m);
        cp_events.push_back(reading);
        if (chance(spec.p_conflict)) {
          Event other = reading;
          other.event_id = id();
          other.meter_wh = m + 1;
          other.ingest_ts_ms += between(1, 60000);
          cp_events.push_back(other);
          truth.conflict = true;
          f.conflicting += 2;
        }
      }
      at += 30000;
      if (truth.has_stop) {
        Event stop = tx(EventType::StopTransaction, at, m);
        stop.stop_reason = k % 2 ? "EVDisconnected" : "Local";
        cp_events.push_back(stop);
        status(at, "Finishing");
        status(at + 30000, "Available");
      }
      truth.energy_kwh = std::round(delivered) / 1000.0;
      truth.expect_final = truth.has_start && truth.has_stop && !truth.meter_reset;
      meter = m;
      t = at + 60000;
      f.sessions.push_back(truth);
    }
    if (spec.heartbeats) {
      for (int64_t hb = spec.start_ms; hb < t; hb += 300000) {
        Event e = base(EventType::Heartbeat, hb);
        e.event_ts_ms = e.ingest_ts_ms;  // heartbeats carry no device time
        cp_events.push_back(e);
      }
    }
    for (auto& e : cp_events) f.events.push_back(std::move(e));
  }

  // Faults that apply to any event: late delivery, duplicates, invalid rows.
  std::vector<Event> out;
  out.reserve(f.events.size() * 11 / 10);
  for (auto& e : f.events) {
    if (chance(spec.p_late)) e.ingest_ts_ms += between(60000, 6 * 3600000);
    out.push_back(e);
    if (chance(spec.p_technical_dup)) {
      out.push_back(e);  // redelivery: byte-identical
      ++f.technical_dups;
    }
    if (chance(spec.p_business_dup) && e.event_type != EventType::Heartbeat) {
      Event again = e;
      again.event_id = id();
      again.ingest_ts_ms += between(1000, 600000);
      out.push_back(again);
      ++f.business_dups;
    }
    if (chance(spec.p_invalid)) {
      Event bad = e;
      bad.event_id = id();
      bad.meter_wh = -5;
      bad.event_type = EventType::MeterValues;
      out.push_back(bad);
      ++f.invalid;
    }
  }
  f.events = std::move(out);
  return f;
}

}  // namespace ocppgw::analytics::testing
