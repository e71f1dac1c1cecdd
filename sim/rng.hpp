// sim/rng.hpp: the per-charge-point pseudo-random source. Every random decision of a charge
// point (arrivals, durations, faults) draws from its own Rng, so a run is reproducible per
// --seed no matter how the charge points are spread over shards.
// Threading: a plain value; each instance is used by one thread only.
#pragma once

#include <cmath>
#include <cstdint>

namespace ocppgw::sim {

// splitmix64: 8 bytes of state instead of a 2.5 KB mt19937 for each of up to a million charge
// points.
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return p > 0 && uniform() < p; }
  double exponential(double mean) { return -mean * std::log(1.0 - uniform()); }
};

}  // namespace ocppgw::sim
