// sim/histogram.hpp: a fixed-size log-linear latency histogram in microseconds (16 sub-buckets
// per power of two, so any reported percentile is within ~6% of the true value) and a
// single-writer/multi-reader variant for live progress.
// Thread-safety: LatencyHistogram is a plain value. SharedHistogram has exactly one writer
// thread (its shard); readers on other threads take relaxed snapshots, which is all a progress
// line needs.
#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace ocppgw::sim {

inline constexpr size_t kHistogramBuckets = 32 + 16 * 40;

constexpr size_t histogram_bucket(uint64_t us) {
  if (us < 32) return static_cast<size_t>(us);
  const int msb = 63 - std::countl_zero(us);
  const int shift = msb - 4;
  const size_t idx =
      32 + static_cast<size_t>(shift - 1) * 16 + static_cast<size_t>((us >> shift) - 16);
  return idx < kHistogramBuckets ? idx : kHistogramBuckets - 1;
}

// Upper edge of a bucket (a percentile is reported as the bucket's upper edge: conservative).
constexpr uint64_t histogram_bucket_upper(size_t idx) {
  if (idx < 32) return idx;
  const size_t shift = (idx - 32) / 16 + 1;
  const uint64_t sub = (idx - 32) % 16 + 16;
  return ((sub + 1) << shift) - 1;
}

struct LatencyHistogram {
  std::array<uint64_t, kHistogramBuckets> counts{};
  uint64_t total = 0;
  uint64_t max_us = 0;

  void add(uint64_t us) {
    ++counts[histogram_bucket(us)];
    ++total;
    if (us > max_us) max_us = us;
  }
  void merge(const LatencyHistogram& o) {
    for (size_t i = 0; i < kHistogramBuckets; ++i) counts[i] += o.counts[i];
    total += o.total;
    if (o.max_us > max_us) max_us = o.max_us;
  }
  // q in [0,1]; 0 when empty.
  uint64_t percentile(double q) const {
    if (total == 0) return 0;
    auto rank = static_cast<uint64_t>(q * static_cast<double>(total));
    if (rank >= total) rank = total - 1;
    uint64_t seen = 0;
    for (size_t i = 0; i < kHistogramBuckets; ++i) {
      seen += counts[i];
      if (seen > rank) {
        const uint64_t upper = histogram_bucket_upper(i);
        return upper < max_us ? upper : max_us;
      }
    }
    return max_us;
  }
};

class SharedHistogram {
 public:
  void add(uint64_t us) {
    auto& c = counts_[histogram_bucket(us)];
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (us > max_us_.load(std::memory_order_relaxed)) max_us_.store(us, std::memory_order_relaxed);
  }
  LatencyHistogram snapshot() const {
    LatencyHistogram h;
    for (size_t i = 0; i < kHistogramBuckets; ++i) {
      h.counts[i] = counts_[i].load(std::memory_order_relaxed);
      h.total += h.counts[i];
    }
    h.max_us = max_us_.load(std::memory_order_relaxed);
    return h;
  }

 private:
  std::array<std::atomic<uint64_t>, kHistogramBuckets> counts_{};
  std::atomic<uint64_t> max_us_{0};
};

// a - b, bucket by bucket (for the latency of one progress interval).
inline LatencyHistogram histogram_delta(const LatencyHistogram& a, const LatencyHistogram& b) {
  LatencyHistogram d;
  for (size_t i = 0; i < kHistogramBuckets; ++i) {
    d.counts[i] = a.counts[i] - b.counts[i];
    d.total += d.counts[i];
    if (d.counts[i]) d.max_us = histogram_bucket_upper(i);
  }
  return d;
}

}  // namespace ocppgw::sim
