#include "query/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace dps {
namespace {

TEST(LatencyHistogram, BucketsTileTheIntegersWithBoundedWidth) {
  for (size_t b = 0; b < 7000; ++b) {
    ASSERT_LE(LatencyHistogram::LowestIn(b), LatencyHistogram::HighestIn(b)) << b;
    ASSERT_EQ(LatencyHistogram::HighestIn(b) + 1, LatencyHistogram::LowestIn(b + 1)) << b;
    ASSERT_EQ(LatencyHistogram::BucketOf(LatencyHistogram::LowestIn(b)), b);
    ASSERT_EQ(LatencyHistogram::BucketOf(LatencyHistogram::HighestIn(b)), b);
    // A bucket is at most 1/128 of its lowest value wide: the error bound.
    const double width = static_cast<double>(LatencyHistogram::HighestIn(b) - LatencyHistogram::LowestIn(b) + 1);
    if (b >= 256) {
      ASSERT_LE(width / static_cast<double>(LatencyHistogram::LowestIn(b)), 1.0 / 128 + 1e-12) << b;
    }
  }
  EXPECT_EQ(LatencyHistogram::BucketOf(0), 0u);
  EXPECT_EQ(LatencyHistogram::BucketOf(255), 255u);
  EXPECT_LT(LatencyHistogram::BucketOf(UINT64_MAX), 8000u);
}

TEST(LatencyHistogram, QuantilesWithinTheBoundOfTheExactNearestRank) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> latency(std::log(300.0), 1.5);  // µs, a long tail
  LatencyHistogram h;
  std::vector<double> exact;
  for (int i = 0; i < 50000; ++i) {
    const double us = latency(rng);
    // Compare with what the histogram was given: whole nanoseconds.
    exact.push_back(std::llround(us * 1e3) / 1e3);
    h.RecordMicros(us);
  }
  std::sort(exact.begin(), exact.end());
  for (double q : {0.0, 0.01, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0}) {
    const size_t rank = std::max<size_t>(1, static_cast<size_t>(std::ceil(q * exact.size())));
    const double truth = exact[rank - 1];
    const double got = h.QuantileMicros(q);
    EXPECT_GE(got, truth) << q;
    EXPECT_LE(got, truth * (1 + 1.0 / 128) + 1e-3) << q;
  }
  EXPECT_DOUBLE_EQ(h.MaxMicros(), exact.back());
  EXPECT_DOUBLE_EQ(h.QuantileMicros(1.0), exact.back());
  EXPECT_EQ(h.count(), 50000u);
}

TEST(LatencyHistogram, MergeEqualsRecordingEverything) {
  LatencyHistogram a, b, all;
  for (int i = 1; i < 5000; ++i) {
    const double us = i * 1.7;
    (i % 3 ? a : b).RecordMicros(us);
    all.RecordMicros(us);
  }
  a.Merge(b);
  EXPECT_EQ(a.Buckets(), all.Buckets());
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.QuantileMicros(0.99), all.QuantileMicros(0.99));
  EXPECT_EQ(a.MinMicros(), all.MinMicros());
}

TEST(LatencyHistogram, EmptyAndOddValues) {
  LatencyHistogram h;
  EXPECT_EQ(h.QuantileMicros(0.5), 0);
  EXPECT_EQ(h.MinMicros(), 0);
  EXPECT_TRUE(h.Buckets().empty());
  h.RecordMicros(-5);
  h.RecordMicros(std::nan(""));
  EXPECT_EQ(h.count(), 2u);
  EXPECT_EQ(h.QuantileMicros(1), 0);
  h.RecordMicros(0.2);  // 200 ns: exact below 256 ns
  EXPECT_DOUBLE_EQ(h.QuantileMicros(1), 0.2);
}

}  // namespace
}  // namespace dps
