// Replica selection (query/replica_selector.h): the documented rank, traffic
// moving away from a server made slow and back once it recovers, censored
// samples, the queue's cubic penalty, and the first and random policies.
// The client is simulated: each Choose is a query's request, answered at
// once with the chosen server's current speed.
#include "query/replica_selector.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace dps {
namespace {

const std::vector<std::string> kReplicas = {"a:1", "b:1"};
const std::vector<size_t> kBoth = {0, 1};

ReplicaSample Answered(double us) {
  ReplicaSample s;
  s.kind = ReplicaSample::kAnswered;
  s.elapsed_us = us;
  s.service_us = static_cast<uint32_t>(us * 0.8);
  return s;
}

// Runs `queries` requests, each to the chosen replica, answered in
// speed_us[server]; returns how many went to each.
std::map<std::string, int> Serve(ReplicaSelector* sel, const std::map<std::string, double>& speed_us, int queries) {
  std::map<std::string, int> asked;
  for (int q = 0; q < queries; ++q) {
    const std::string& s = kReplicas[sel->Choose(kReplicas, kBoth)];
    ++asked[s];
    sel->Sent(s);
    sel->Ended(s, Answered(speed_us.at(s)));
  }
  return asked;
}

TEST(ReplicaSelector, RankIsC3s) {
  ReplicaSelector sel(ReplicaPolicy::kAdaptive);
  EXPECT_EQ(sel.Rank("a:1"), 0);  // nothing known
  ReplicaSample s;
  s.kind = ReplicaSample::kAnswered;
  s.elapsed_us = 1000;
  s.service_us = 600;
  s.queue_us = 1200;  // two requests' worth of queue
  sel.Ended("a:1", s);
  // (R - S) + (1 + n + Q)^3 S = 400 + 27 * 600
  EXPECT_DOUBLE_EQ(sel.Rank("a:1"), 400 + 27 * 600);
  sel.Sent("a:1");  // one in flight: (1 + 1 + 2)^3
  EXPECT_DOUBLE_EQ(sel.Rank("a:1"), 400 + 64 * 600);
  // A second answer moves each average by kAlpha toward it.
  sel.Ended("a:1", Answered(2000));
  const double r = 1000 + ReplicaSelector::kAlpha * (2000 - 1000);
  const double sv = 600 + ReplicaSelector::kAlpha * (1600 - 600);
  const double q = 2 + ReplicaSelector::kAlpha * (0 - 2);
  EXPECT_DOUBLE_EQ(sel.Rank("a:1"), (r - sv) + (1 + q) * (1 + q) * (1 + q) * sv);
  // A server never heard from ranks as the best known.
  EXPECT_DOUBLE_EQ(sel.Rank("c:1"), sel.Rank("a:1"));
}

TEST(ReplicaSelector, NothingKnownAsksTheFirstListed) {
  ReplicaSelector sel(ReplicaPolicy::kAdaptive);
  EXPECT_EQ(sel.Choose(kReplicas, kBoth), 0u);
  EXPECT_EQ(sel.Choose(kReplicas, std::vector<size_t>{1}), 1u);
}

TEST(ReplicaSelector, TrafficLeavesASlowServerAndComesBackWhenItRecovers) {
  ReplicaSelector sel(ReplicaPolicy::kAdaptive, 42);
  // Healthy: both serve (a tie shares the load).
  auto healthy = Serve(&sel, {{"a:1", 500}, {"b:1", 500}}, 200);
  EXPECT_GT(healthy["a:1"], 60);
  EXPECT_GT(healthy["b:1"], 60);
  // a turns 100 times slower: after the first slow answers it is asked
  // only now and then (a probe after being passed over long enough).
  auto degraded = Serve(&sel, {{"a:1", 50000}, {"b:1", 500}}, 400);
  EXPECT_LT(degraded["a:1"], 20) << "the slow server kept its traffic";
  EXPECT_GT(degraded["a:1"], 1) << "the slow server was never probed again";
  // a recovers: a probe finds it fast and it takes its share again.
  Serve(&sel, {{"a:1", 500}, {"b:1", 500}}, 150);
  auto recovered = Serve(&sel, {{"a:1", 500}, {"b:1", 500}}, 200);
  EXPECT_GT(recovered["a:1"], 60) << "traffic did not come back";
}

TEST(ReplicaSelector, ALostRaceCountsAsAtLeastItsTime) {
  ReplicaSelector sel(ReplicaPolicy::kAdaptive, 7);
  sel.Ended("a:1", Answered(500));
  sel.Ended("b:1", Answered(500));
  const double before = sel.Rank("a:1");
  ReplicaSample lost;
  lost.kind = ReplicaSample::kCensored;
  lost.elapsed_us = 20000;  // cancelled after 20 ms: the hedge won
  sel.Sent("a:1");
  sel.Ended("a:1", lost);
  EXPECT_GT(sel.Rank("a:1"), 10 * before);
  EXPECT_EQ(sel.Choose(kReplicas, kBoth), 1u);
  // A censored time below the estimate says nothing.
  const double now = sel.Rank("b:1");
  lost.elapsed_us = 10;
  sel.Ended("b:1", lost);
  EXPECT_DOUBLE_EQ(sel.Rank("b:1"), now);
}

TEST(ReplicaSelector, RequestsInFlightWeighCubed) {
  ReplicaSelector sel(ReplicaPolicy::kAdaptive, 3);
  sel.Ended("a:1", Answered(500));
  sel.Ended("b:1", Answered(500));
  sel.Sent("a:1");
  sel.Sent("a:1");  // two in flight to a: (1 + 2)^3 = 27 times its service
  for (int i = 0; i < 20; ++i) EXPECT_EQ(sel.Choose(kReplicas, kBoth), 1u);
}

TEST(ReplicaSelector, FirstAndRandomPolicies) {
  ReplicaSelector first(ReplicaPolicy::kFirst);
  first.Ended("a:1", Answered(90000));
  first.Ended("b:1", Answered(10));
  EXPECT_EQ(first.Choose(kReplicas, kBoth), 0u);
  EXPECT_EQ(first.Choose(kReplicas, std::vector<size_t>{1}), 1u);
  ReplicaSelector random(ReplicaPolicy::kRandom, 11);
  int a = 0;
  for (int i = 0; i < 400; ++i) a += random.Choose(kReplicas, kBoth) == 0;
  EXPECT_GT(a, 150);
  EXPECT_LT(a, 250);
  EXPECT_EQ(ParseReplicaPolicy("adaptive").value(), ReplicaPolicy::kAdaptive);
  EXPECT_FALSE(ParseReplicaPolicy("fastest").ok());
}

// Which servers' hedges wait for the query's other ranges
// (query/sibling_hedge.h): those ranked among the best of their range's
// replicas heard from, whatever the policy. One never heard from, or with
// no other replica known, is not suspect.
TEST(ReplicaSelector, AmongBestComparesTheRangesKnownReplicas) {
  ReplicaSelector sel(ReplicaPolicy::kFirst);
  EXPECT_TRUE(sel.AmongBest(kReplicas, "a:1"));
  sel.Ended("a:1", Answered(5000));
  EXPECT_TRUE(sel.AmongBest(kReplicas, "a:1"));  // b unknown
  EXPECT_TRUE(sel.AmongBest(kReplicas, "b:1"));
  sel.Ended("b:1", Answered(100));
  EXPECT_FALSE(sel.AmongBest(kReplicas, "a:1"));
  EXPECT_TRUE(sel.AmongBest(kReplicas, "b:1"));
  sel.Ended("c:1", Answered(10));  // another range's server does not count
  EXPECT_TRUE(sel.AmongBest(kReplicas, "b:1"));
  sel.Ended("a:1", Answered(110));
  for (int i = 0; i < 20; ++i) sel.Ended("a:1", Answered(100));
  EXPECT_TRUE(sel.AmongBest(kReplicas, "a:1"));  // as fast again: a tie
}

}  // namespace
}  // namespace dps
