// A log-linear histogram of latencies (the idea of Gil Tene's HdrHistogram,
// written here for what `bench` needs): values in nanoseconds, exact below
// 256 ns, then 128 equal buckets per power of two, so any quantile it reports
// is at most 1/128 (0.8%) above the true value and never below it. Memory is
// bounded by the largest value recorded (a few thousand counters for a
// minute), not by the number of values: a long open-loop run keeps it all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace dps {

class LatencyHistogram {
 public:
  // Negative and NaN values count as 0; above about 292 years saturate.
  void RecordMicros(double us, uint64_t times = 1);
  void Record(uint64_t ns, uint64_t times = 1);
  void Merge(const LatencyHistogram& other);

  uint64_t count() const { return count_; }
  // 0 when empty.
  double MinMicros() const { return count_ == 0 ? 0 : static_cast<double>(min_) / 1e3; }
  double MaxMicros() const { return static_cast<double>(max_) / 1e3; }
  // Nearest rank: the smallest recorded value v such that at least q of the
  // values are <= v, reported as its bucket's highest value (clamped to the
  // range recorded). 0 when empty; q is clamped to [0, 1].
  double QuantileMicros(double q) const;

  // Non-empty buckets as (highest value in µs, count), ascending: what the
  // bench JSON carries so that reports can draw and compare distributions.
  std::vector<std::pair<double, uint64_t>> Buckets() const;

  // Bucket arithmetic, exposed for tests.
  static size_t BucketOf(uint64_t ns);
  static uint64_t LowestIn(size_t bucket);
  static uint64_t HighestIn(size_t bucket);

 private:
  std::vector<uint64_t> counts_;  // grows to the highest bucket used
  uint64_t count_ = 0, min_ = UINT64_MAX, max_ = 0;
};

}  // namespace dps
