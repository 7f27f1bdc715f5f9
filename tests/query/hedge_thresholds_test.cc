// Hedge thresholds (query/hedge_thresholds.h): a request waits the lowest
// percentile among the range's other replicas, never its own server's, so
// a degraded server cannot drag up the threshold of the requests it is
// slow on; other servers' answers stand in until a replica has enough;
// nothing is hedged before that.
#include "query/hedge_thresholds.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace dps {
namespace {

TEST(HedgeThresholds, NothingKnownMeansNoHedge) {
  HedgeThresholds t;
  EXPECT_LT(t.DelayUs(0, "a:1", 95), 0);
  for (int i = 0; i < 30; ++i) t.Record(0, "a:1", 100);
  // Only a's own answers are known: they never set a's threshold.
  EXPECT_LT(t.DelayUs(0, "a:1", 95), 0);
  EXPECT_DOUBLE_EQ(t.DelayUs(0, "b:1", 95), 100);
}

TEST(HedgeThresholds, ASlowServerDoesNotRaiseItsOwnThreshold) {
  HedgeThresholds t;
  std::mt19937_64 rng(1);
  // Range 0: a answers in 100-199 us; b, degraded, takes 100 ms a third
  // of the time. Range 1: c, slow but steady.
  for (int i = 0; i < 300; ++i) {
    t.Record(0, "a:1", 100 + static_cast<double>(rng() % 100));
    t.Record(0, "b:1", i % 3 == 0 ? 100000 : 150);
    t.Record(1, "c:1", 5000 + static_cast<double>(rng() % 1000));
  }
  // A request to b is hedged after a's p95; one to a after b's (a
  // healthy server's requests are rarely slow: a late hedge costs little).
  const double to_b = t.DelayUs(0, "b:1", 95);
  EXPECT_GE(to_b, 180);
  EXPECT_LT(to_b, 200) << "b's requests do not wait a's p95";
  EXPECT_DOUBLE_EQ(t.DelayUs(0, "a:1", 95), 100000);
  // Range 1 has no other replica with answers: every other server's p95,
  // from the pool's buckets (at most 1/128 above the exact value).
  EXPECT_GE(t.DelayUs(1, "c:1", 95), 100000);
  EXPECT_LE(t.DelayUs(1, "c:1", 95), 100000 * (1 + 1.0 / 128));
}

TEST(HedgeThresholds, ThePooledPercentileLeavesTheAskedServerOut) {
  // 50 servers, each answering its own range; server 0 is slow. A range
  // whose other replicas never answered waits the pool's percentile
  // without the asked server's answers: against the exact computation.
  HedgeThresholds t;
  std::mt19937_64 rng(3);
  std::vector<std::vector<double>> answers(50);
  auto name = [](size_t s) {  // not "s" + ...: GCC 12's false -Wrestrict (PR 105329)
    std::string n = std::to_string(s);
    n.insert(n.begin(), 's');
    return n;
  };
  for (int i = 0; i < 400; ++i) {
    for (size_t s = 0; s < 50; ++s) {
      const double us = s == 0 ? 50000 + static_cast<double>(rng() % 1000) : 100 + static_cast<double>(rng() % 900);
      t.Record(s, name(s), us);
      answers[s].push_back(us);
    }
  }
  for (size_t asked : {0, 7}) {
    std::vector<double> others;
    for (size_t s = 0; s < 50; ++s) {
      if (s != asked) others.insert(others.end(), answers[s].begin(), answers[s].end());
    }
    std::sort(others.begin(), others.end());
    const double exact = others[static_cast<size_t>(0.99 * static_cast<double>(others.size()))];
    const double got = t.DelayUs(100 + asked, name(asked), 99);  // a range nobody answered
    EXPECT_GE(got, exact) << asked;
    EXPECT_LE(got, exact * (1 + 1.0 / 128)) << asked;
  }
  // Server 0's slow answers are 2% of the pool: its requests wait the
  // others' p99, far below its own latency.
  EXPECT_LT(t.DelayUs(100, "s0", 99), 1000);
}

TEST(HedgeThresholds, OtherServersStandInUntilAReplicaHasEnough) {
  // The first policy's case: every request of range 0 goes to a, which is
  // slow a fifth of the time; b, its other replica, has answered nothing
  // yet. Range 1's server d is healthy: its answers set a's threshold, so
  // a's slow requests are hedged and b starts answering.
  HedgeThresholds t;
  for (int i = 0; i < 100; ++i) {
    t.Record(0, "a:1", i % 5 == 0 ? 100000 : 300);
    t.Record(1, "d:1", 250 + i % 10);
  }
  EXPECT_LT(t.DelayUs(0, "a:1", 95), 300);
  for (int i = 0; i < 30; ++i) t.Record(0, "b:1", 400);
  EXPECT_DOUBLE_EQ(t.DelayUs(0, "a:1", 95), 400) << "b's own answers now set a's threshold";
}

TEST(HedgeThresholds, NewAnswersMoveTheThreshold) {
  HedgeThresholds t;
  for (int i = 0; i < 100; ++i) t.Record(0, "b:1", 100);
  EXPECT_DOUBLE_EQ(t.DelayUs(0, "a:1", 90), 100);
  // The window keeps the latest kWindow answers: the range got slower.
  for (size_t i = 0; i < HedgeThresholds::kWindow; ++i) t.Record(0, "b:1", 700);
  EXPECT_DOUBLE_EQ(t.DelayUs(0, "a:1", 90), 700);
}

}  // namespace
}  // namespace dps
