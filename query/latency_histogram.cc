#include "query/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace dps {

namespace {
// 2^kSubBits buckets per power of two above the exact range [0, 2^(kSubBits+1)).
constexpr unsigned kSubBits = 7;
constexpr uint64_t kSubBuckets = uint64_t{1} << kSubBits;  // 128
constexpr uint64_t kExact = kSubBuckets * 2;               // 256
}  // namespace

size_t LatencyHistogram::BucketOf(uint64_t ns) {
  if (ns < kExact) return static_cast<size_t>(ns);
  const unsigned e = static_cast<unsigned>(std::bit_width(ns)) - 1;  // >= kSubBits + 1
  const uint64_t sub = (ns >> (e - kSubBits)) - kSubBuckets;          // [0, 128)
  return static_cast<size_t>(kExact + (e - kSubBits - 1) * kSubBuckets + sub);
}

uint64_t LatencyHistogram::LowestIn(size_t bucket) {
  if (bucket < kExact) return bucket;
  const uint64_t past = bucket - kExact;
  const unsigned e = static_cast<unsigned>(past / kSubBuckets) + kSubBits + 1;
  const uint64_t sub = past % kSubBuckets;
  return (kSubBuckets + sub) << (e - kSubBits);
}

uint64_t LatencyHistogram::HighestIn(size_t bucket) {
  if (bucket < kExact) return bucket;
  const unsigned e = static_cast<unsigned>((bucket - kExact) / kSubBuckets) + kSubBits + 1;
  return LowestIn(bucket) + ((uint64_t{1} << (e - kSubBits)) - 1);
}

void LatencyHistogram::RecordMicros(double us, uint64_t times) {
  const double ns = us * 1e3;
  if (!(ns > 0)) return Record(0, times);
  if (ns >= 9.2e18) return Record(UINT64_MAX >> 1, times);
  Record(static_cast<uint64_t>(std::llround(ns)), times);
}

void LatencyHistogram::Record(uint64_t ns, uint64_t times) {
  if (times == 0) return;
  const size_t b = BucketOf(ns);
  if (b >= counts_.size()) counts_.resize(b + 1, 0);
  counts_[b] += times;
  count_ += times;
  min_ = std::min(min_, ns);
  max_ = std::max(max_, ns);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  if (other.counts_.size() > counts_.size()) counts_.resize(other.counts_.size(), 0);
  for (size_t i = 0; i < other.counts_.size(); ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

double LatencyHistogram::QuantileMicros(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  const uint64_t rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_))));
  uint64_t seen = 0;
  for (size_t b = 0; b < counts_.size(); ++b) {
    seen += counts_[b];
    if (seen >= rank) return static_cast<double>(std::clamp(HighestIn(b), min_, max_)) / 1e3;
  }
  return MaxMicros();
}

std::vector<std::pair<double, uint64_t>> LatencyHistogram::Buckets() const {
  std::vector<std::pair<double, uint64_t>> out;
  for (size_t b = 0; b < counts_.size(); ++b) {
    if (counts_[b] != 0) out.emplace_back(static_cast<double>(std::min(HighestIn(b), max_)) / 1e3, counts_[b]);
  }
  return out;
}

}  // namespace dps
