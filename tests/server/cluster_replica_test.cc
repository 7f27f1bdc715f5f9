// Replica selection over real servers (query/replica_selector.h): with a
// range on a slow and a fast server, adaptive selection sends the range's
// requests to the fast one after the slow one's first answers, and back to
// the first once it is fast again; the first policy keeps asking the slow
// one (and hedging). Every answer stays exact.
#include <string>
#include <vector>

#include "tests/server/cluster_fixture.h"

namespace dps {
namespace {

using namespace cluster_testing;

constexpr double kSlowMs = 40;  // every request to the slow server

// How many of `answers`' queries asked `server` first.
int FirstAsked(const std::vector<Answer>& answers, const std::string& server) {
  int n = 0;
  for (const auto& a : answers) n += !a.stats.asked.empty() && a.stats.asked[0] == server;
  return n;
}

std::vector<Answer> AskMany(ClusterClient* client, const Fixture& f, int queries) {
  std::vector<Answer> out;
  for (int i = 0; i < queries; ++i) {
    const QueryNode q = QueryNode::Term(testing::VocabTerm(static_cast<size_t>(i) % 10));
    out.push_back(Ask(client, q));
    EXPECT_TRUE(out.back().status.ok()) << out.back().status.ToString();
    EXPECT_EQ(out.back().ids, f.Want(q)) << "query " << i;
    EXPECT_FALSE(out.back().stats.partial);
  }
  return out;
}

TEST(ClusterReplicas, AdaptiveSelectionLeavesASlowServerAndComesBack) {
  Fixture f(21);
  ServerOptions slow_options;
  slow_options.delays = {DelayRule{-1, 1.0, kSlowMs, 0}};
  auto slow = f.Serve(0, 3, slow_options);
  auto fast = f.Serve(0, 3);
  const uint16_t slow_port = slow->port();
  const std::string slow_addr = Addr(slow_port), fast_addr = Addr(fast->port());
  ClusterOptions o;
  o.hedge_after_ms = 5;
  auto client = Client({{0, 3, {slow_addr, fast_addr}}}, o);
  ASSERT_NE(client, nullptr);

  // Nothing known yet: the first listed, the slow one, is asked and the
  // hedge answers; from then on the fast one is asked first.
  const std::vector<Answer> degraded = AskMany(client.get(), f, 30);
  ASSERT_FALSE(degraded[0].stats.asked.empty());
  EXPECT_EQ(degraded[0].stats.asked[0], slow_addr);
  EXPECT_EQ(degraded[0].stats.hedged, 1u);
  EXPECT_LE(FirstAsked({degraded.begin() + 1, degraded.end()}, slow_addr), 1)
      << "the slow server kept being asked first";

  // The slow server recovers (restarted on its port without the delay):
  // once a probe finds it fast, it takes its share again.
  slow->Stop();
  slow.reset();
  ServerOptions same_port;
  same_port.port = slow_port;
  auto recovered = f.Serve(0, 3, same_port);
  // The first probe comes after some hundred queries passed over (2% a
  // query toward the fast server's estimates, from a gap of about 100x);
  // probes alone would be two or three in 800, a share after it is
  // hundreds. How soon and how evenly two healthy servers share depends on
  // this machine's noise (under a parallel build, 800 queries were once
  // not enough), which the selector's unit test leaves out: up to 4,800.
  int back = 0, asked = 0;
  while (back < 60 && asked < 4800) {
    back += FirstAsked(AskMany(client.get(), f, 400), slow_addr);
    asked += 400;
  }
  EXPECT_GE(back, 60) << "traffic did not come back to the recovered server in " << asked << " queries";
}

TEST(ClusterReplicas, TheFirstPolicyKeepsAskingTheListedOrder) {
  Fixture f(22);
  ServerOptions slow_options;
  slow_options.delays = {DelayRule{-1, 1.0, kSlowMs, 0}};
  auto slow = f.Serve(0, 3, slow_options);
  auto fast = f.Serve(0, 3);
  ClusterOptions o;
  o.hedge_after_ms = 5;
  o.replica_policy = ReplicaPolicy::kFirst;
  auto client = Client({{0, 3, {Addr(slow->port()), Addr(fast->port())}}}, o);
  ASSERT_NE(client, nullptr);
  const std::vector<Answer> answers = AskMany(client.get(), f, 8);
  EXPECT_EQ(FirstAsked(answers, Addr(slow->port())), 8);
  for (const auto& a : answers) EXPECT_EQ(a.stats.hedged, 1u);
}

// Hedges against the query's other ranges (query/sibling_hedge.h), over
// two ranges of two servers each. Every server holding every request 200 ms
// is a query costly everywhere: a 100 ms threshold alone hedges both ranges,
// to servers just as slow; against the siblings nothing is late (each
// range answers within twice the other's time). With the other range on
// a fast server, the slow range is still hedged at the threshold. Every
// margin is 100 ms or more, for a loaded machine's late wake-ups.
TEST(ClusterReplicas, HedgesWaitForTheQuerysOtherRanges) {
  Fixture f(23);
  ServerOptions slow_options;
  slow_options.delays = {DelayRule{-1, 1.0, 200, 0}};
  std::vector<std::unique_ptr<ShardServer>> slow;
  for (int i = 0; i < 4; ++i) slow.push_back(f.Serve(i < 2 ? 0 : 2, i < 2 ? 1 : 3, slow_options));
  const std::vector<ClusterRange> ranges = {{0, 1, {Addr(slow[0]->port()), Addr(slow[1]->port())}},
                                            {2, 3, {Addr(slow[2]->port()), Addr(slow[3]->port())}}};
  ClusterOptions o;
  o.hedge_after_ms = 100;
  o.replica_policy = ReplicaPolicy::kFirst;
  o.hedge_siblings = 0;
  auto alone = Client(ranges, o);
  o.hedge_siblings = 2;
  auto siblings = Client(ranges, o);
  ASSERT_NE(alone, nullptr);
  ASSERT_NE(siblings, nullptr);
  uint64_t hedged_alone = 0;
  for (const Answer& a : AskMany(alone.get(), f, 4)) hedged_alone += a.stats.hedged;
  // Both ranges of each query (a late wake-up of this thread may miss one).
  EXPECT_GE(hedged_alone, 6u);
  for (const Answer& a : AskMany(siblings.get(), f, 4)) EXPECT_EQ(a.stats.hedged, 0u);

  auto fast = f.Serve(2, 3);
  auto held = Client({ranges[0], {2, 3, {Addr(fast->port())}}}, o);
  ASSERT_NE(held, nullptr);
  for (const Answer& a : AskMany(held.get(), f, 4)) {
    EXPECT_EQ(a.stats.hedged, 1u);
    EXPECT_EQ(a.stats.asked.size(), 3u);
  }
}

}  // namespace
}  // namespace dps
