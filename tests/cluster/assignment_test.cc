#include "cluster/assignment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

namespace dps {
namespace {

std::vector<std::string> Servers(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("127.0.0.1:" + std::to_string(7701 + i));
  return out;
}

// Every tablet has min(R, servers) distinct live servers, and the loads
// differ by at most one.
void ExpectBalanced(const Assignment& a, const std::vector<std::string>& live, uint32_t r) {
  std::map<std::string, size_t> load;
  for (const auto& s : live) load[s] = 0;
  for (size_t t = 0; t < a.servers.size(); ++t) {
    const auto& s = a.servers[t];
    EXPECT_EQ(s.size(), std::min<size_t>(r, live.size())) << "tablet " << t;
    EXPECT_EQ(std::set<std::string>(s.begin(), s.end()).size(), s.size()) << "tablet " << t;
    for (const auto& x : s) {
      ASSERT_TRUE(load.count(x)) << x << " is not live";
      ++load[x];
    }
  }
  size_t lo = SIZE_MAX, hi = 0;
  for (const auto& [s, n] : load) lo = std::min(lo, n), hi = std::max(hi, n);
  EXPECT_LE(hi, lo + 1);
}

TEST(PlanAssignment, GivesEveryTabletRReplicasEvenly) {
  const auto live = Servers(4);
  const Assignment a = PlanAssignment({}, live, 8, 2);
  EXPECT_EQ(a.replicas, 2u);
  ExpectBalanced(a, live, 2);
  EXPECT_EQ(PlanAssignment({}, live, 8, 2), a);  // one plan, whoever makes it
  EXPECT_EQ(PlanAssignment(a, live, 8, 2), a);   // a plan that holds stays
}

// Balance may need a live server's replica to move too (when the dead
// server shared all its tablets with one server, the others take them all
// and one of theirs goes back), but never more than that one, and no tablet
// loses every server it had.
TEST(PlanAssignment, ADeadServersTabletsAreTakenOverWithAtMostOneOtherMove) {
  for (int dead = 0; dead < 4; ++dead) {
    auto live = Servers(4);
    const Assignment before = PlanAssignment({}, live, 8, 2);
    const std::string gone = live[dead];
    live.erase(live.begin() + dead);
    const Assignment after = PlanAssignment(before, live, 8, 2);
    ExpectBalanced(after, live, 2);
    size_t moved = 0;
    for (size_t t = 0; t < 8; ++t) {
      size_t kept = 0;
      for (const auto& s : before.servers[t]) {
        if (s == gone) continue;
        const bool still = std::count(after.servers[t].begin(), after.servers[t].end(), s) > 0;
        kept += still;
        moved += !still;
      }
      EXPECT_GE(kept, 1u) << "tablet " << t << " lost every server, dead " << gone;
    }
    EXPECT_LE(moved, 1u) << "dead " << gone;
  }
}

TEST(PlanAssignment, ANewServerIsGivenItsShare) {
  auto live = Servers(4);
  const Assignment before = PlanAssignment({}, live, 8, 2);
  live.push_back("127.0.0.1:7799");
  const Assignment after = PlanAssignment(before, live, 8, 2);
  ExpectBalanced(after, live, 2);
  EXPECT_FALSE(after.TabletsOf("127.0.0.1:7799").empty());
  // Only what the newcomer took moved: each tablet kept at least one server.
  for (size_t t = 0; t < 8; ++t) {
    std::vector<std::string> kept;
    std::set_intersection(before.servers[t].begin(), before.servers[t].end(), after.servers[t].begin(),
                          after.servers[t].end(), std::back_inserter(kept));
    EXPECT_GE(kept.size(), 1u) << t;
  }
}

TEST(PlanAssignment, FewerServersThanReplicas) {
  const Assignment a = PlanAssignment({}, Servers(1), 4, 3);
  EXPECT_EQ(a.replicas, 1u);
  ExpectBalanced(a, Servers(1), 3);
  EXPECT_TRUE(PlanAssignment({}, {}, 4, 2).TabletsOf("x").empty());
}

TEST(Assignment, EncodesTheDocumentedTextAndRoundTrips) {
  Assignment a;
  a.replicas = 2;
  a.servers = {{"127.0.0.1:7701", "127.0.0.1:7702"}, {"127.0.0.1:7702", "127.0.0.1:7703"}};
  EXPECT_EQ(EncodeAssignment(a),
            "dpsearch-assignment 1\n"
            "replicas 2\n"
            "tablets 2\n"
            "tablet 0 127.0.0.1:7701 127.0.0.1:7702\n"
            "tablet 1 127.0.0.1:7702 127.0.0.1:7703\n");
  auto back = DecodeAssignment(EncodeAssignment(a));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, a);
  EXPECT_EQ(a.TabletsOf("127.0.0.1:7702"), (std::vector<TabletSpan>{{0, 1}}));
  EXPECT_EQ(a.TabletsOf("127.0.0.1:7703"), (std::vector<TabletSpan>{{1, 1}}));
}

TEST(Assignment, RefusesBadText) {
  for (const std::string text : {"", "dpsearch-assignment 2\nreplicas 1\ntablets 0\n",
                                 "dpsearch-assignment 1\nreplicas x\ntablets 0\n",
                                 "dpsearch-assignment 1\nreplicas 1\ntablets 2\ntablet 0 a:1\n",
                                 "dpsearch-assignment 1\nreplicas 1\ntablets 1\ntablet 1 a:1\n"}) {
    auto a = DecodeAssignment(text);
    EXPECT_FALSE(a.ok()) << text;
    EXPECT_TRUE(a.status().IsCorruption()) << text;
  }
}

}  // namespace
}  // namespace dps
