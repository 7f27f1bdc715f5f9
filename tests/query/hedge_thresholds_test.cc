// Hedge thresholds learned per range (query/hedge_thresholds.h): the
// fastest replica's percentile, never the slow one's, so a degraded server
// cannot drag its range's threshold up; the global percentile until a
// replica has enough answers; nothing before that.
#include "query/hedge_thresholds.h"

#include <gtest/gtest.h>

#include <random>

namespace dps {
namespace {

TEST(HedgeThresholds, NothingKnownMeansNoHedge) {
  HedgeThresholds t;
  EXPECT_LT(t.DelayUs(0, 95), 0);
  for (int i = 0; i < 5; ++i) t.Record(0, "a:1", 100);
  EXPECT_LT(t.DelayUs(0, 95), 0);
}

TEST(HedgeThresholds, ASlowReplicaDoesNotRaiseItsRangesThreshold) {
  HedgeThresholds t;
  std::mt19937_64 rng(1);
  // Range 0: a answers in 100-199 us, b (degraded) in 100 ms a third of
  // the time. Range 1: only slow answers from c.
  for (int i = 0; i < 300; ++i) {
    t.Record(0, "a:1", 100 + static_cast<double>(rng() % 100));
    t.Record(0, "b:1", i % 3 == 0 ? 100000 : 150);
    t.Record(1, "c:1", 5000 + static_cast<double>(rng() % 1000));
  }
  const double r0 = t.DelayUs(0, 95);
  EXPECT_GE(r0, 180);
  EXPECT_LT(r0, 200) << "range 0's threshold is not its fast replica's p95";
  // Range 1 learns its own, far above range 0's.
  EXPECT_GE(t.DelayUs(1, 95), 5900);
  // A global p95 over every answer would be 100 ms here.
}

TEST(HedgeThresholds, TheGlobalPercentileUntilAReplicaHasEnough) {
  HedgeThresholds t;
  for (int i = 0; i < 30; ++i) t.Record(0, "a:1", 1000 + i);
  // Range 1 has no replica with enough answers: every answer's p50 (9 and
  // 1000..1029: the 16th of 31). Range 0 has its own (the 16th of 30).
  t.Record(1, "b:1", 9);
  EXPECT_DOUBLE_EQ(t.DelayUs(1, 50), 1014);
  EXPECT_DOUBLE_EQ(t.DelayUs(0, 50), 1015);
}

TEST(HedgeThresholds, NewAnswersMoveTheThreshold) {
  HedgeThresholds t;
  for (int i = 0; i < 100; ++i) t.Record(0, "a:1", 100);
  EXPECT_DOUBLE_EQ(t.DelayUs(0, 90), 100);
  // The window keeps the latest kWindow answers: the range got slower.
  for (size_t i = 0; i < HedgeThresholds::kWindow; ++i) t.Record(0, "a:1", 700);
  EXPECT_DOUBLE_EQ(t.DelayUs(0, 90), 700);
}

}  // namespace
}  // namespace dps
