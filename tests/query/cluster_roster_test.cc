// The cluster file against what the servers said in their handshakes: the
// index most servers serve is the cluster's; tablets no range covers, ranges
// beyond the index and ranges without a usable replica are refused with
// messages naming them; bad replicas (another index, the range
// not hosted) are warned about once and refused, the others used.
#include "query/cluster_roster.h"

#include <gtest/gtest.h>

namespace dps {
namespace {

Welcome Of(const std::string& id, uint32_t first, uint32_t last, uint64_t generation = 1, uint32_t tablets = 8) {
  return Welcome{kWireVersion, id, generation, /*bins=*/16, tablets, first, last, AnalyzerSpec(), FieldSet()};
}

// A roster over `ranges` whose warnings are kept.
struct Harness {
  std::vector<ClusterRange> ranges;
  std::vector<std::string> warnings;
  WarnedServers warned;
  ClusterRoster roster;
  explicit Harness(std::vector<ClusterRange> r, WarnedServers* shared = nullptr)
      : ranges(std::move(r)),
        roster(&ranges, [this](const std::string& line) { warnings.push_back(line); },
               shared ? shared : &warned) {}
  void Welcome(const std::string& address, const dps::Welcome& w) {
    ASSERT_TRUE(roster.OnWelcome(address, w).ok()) << "before Settle every server is accepted";
  }
};

TEST(ClusterRoster, EveryTabletCoveredByGoodServers) {
  Harness h({{0, 3, {"a:1", "b:1"}}, {4, 7, {"c:1"}}});
  h.Welcome("a:1", Of("X", 0, 7));
  h.Welcome("b:1", Of("X", 0, 3));
  h.Welcome("c:1", Of("X", 4, 7));
  ASSERT_TRUE(h.roster.Settle(false).ok());
  EXPECT_TRUE(h.roster.uncovered().empty());
  EXPECT_TRUE(h.warnings.empty());
  for (const auto& r : h.ranges) {
    EXPECT_TRUE(h.roster.RangeUsable(r).ok());
    for (const auto& a : r.replicas) EXPECT_TRUE(h.roster.Usable(a, r).ok()) << a;
  }
}

// The coordinator analyzes queries with the cluster's analyzer; a server
// claiming the same index with another analyzer is not of that index.
TEST(ClusterRoster, TheClusterIdentityCarriesItsAnalyzer) {
  Harness h({{0, 7, {"a:1", "b:1", "c:1"}}});
  dps::Welcome stemmed = Of("X", 0, 7);
  stemmed.analyzer.stem = "english";
  h.Welcome("a:1", stemmed);
  h.Welcome("b:1", stemmed);
  h.Welcome("c:1", Of("X", 0, 7));
  ASSERT_TRUE(h.roster.Settle(false).ok());
  EXPECT_EQ(h.roster.identity().analyzer.ToString(), "icu stem=english");
  const Status c = h.roster.Usable("c:1", h.ranges[0]);
  ASSERT_TRUE(c.IsInvalidArgument());
  EXPECT_EQ(c.message(),
            "c:1 serves index X (16 bins, 8 tablets, analyzer icu), the others index X (16 "
            "bins, 8 tablets, analyzer icu stem=english)");
  EXPECT_TRUE(h.roster.Usable("a:1", h.ranges[0]).ok());
}

TEST(ClusterRoster, UncoveredTabletsAreAnErrorUnlessAllowed) {
  Harness h({{0, 1, {"a:1"}}, {4, 5, {"a:1"}}});
  h.Welcome("a:1", Of("X", 0, 7));
  const Status s = h.roster.Settle(false);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(s.message(), "tablets 2-3,6-7 of index X (8 tablets) are not covered by any range");

  Harness allowed({{0, 1, {"a:1"}}, {4, 5, {"a:1"}}});
  allowed.Welcome("a:1", Of("X", 0, 7));
  ASSERT_TRUE(allowed.roster.Settle(true).ok());
  EXPECT_EQ(allowed.roster.uncovered(), (std::vector<std::string>{"2-3", "6-7"}));

  Harness first_missing({{1, 7, {"a:1"}}});
  first_missing.Welcome("a:1", Of("X", 0, 7));
  EXPECT_EQ(first_missing.roster.Settle(false).message(),
            "tablets 0-0 of index X (8 tablets) are not covered by any range");
}

TEST(ClusterRoster, RangesBeyondTheIndexAreRefusedEvenWhenPartialIsAllowed) {
  Harness h({{0, 3, {"a:1"}}, {4, 9, {"a:1"}}});
  h.Welcome("a:1", Of("X", 0, 7));
  const Status s = h.roster.Settle(true);
  ASSERT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message(), "tablets 4-9 are beyond the 8 tablets of index X");
}

TEST(ClusterRoster, AReplicaOfAnotherIndexIsWarnedAboutOnceAndSkipped) {
  Harness h({{0, 3, {"w:1", "a:1"}}, {4, 7, {"b:1", "w:1"}}});
  h.Welcome("w:1", Of("W", 0, 7, 5, 4));
  h.Welcome("a:1", Of("X", 0, 3));
  h.Welcome("b:1", Of("X", 4, 7));
  ASSERT_TRUE(h.roster.Settle(false).ok());
  ASSERT_EQ(h.warnings, std::vector<std::string>{
                            "server w:1 (replica of tablets 0-3,4-7) is of another index (index W "
                            "(16 bins, 4 tablets, analyzer icu)); using the other replicas"});
  const Status u = h.roster.Usable("w:1", h.ranges[0]);
  EXPECT_TRUE(u.IsInvalidArgument());
  EXPECT_EQ(u.message(), "w:1 is of another index (index W (16 bins, 4 tablets, analyzer icu))");
  EXPECT_TRUE(h.roster.Usable("a:1", h.ranges[0]).ok());
  EXPECT_TRUE(h.roster.RangeUsable(h.ranges[1]).ok());
  EXPECT_EQ(h.warnings.size(), 1u) << "warned twice";
  // A reconnecting server of another index is refused, without a new warning.
  EXPECT_TRUE(h.roster.OnWelcome("w:1", Of("W", 0, 3, 5, 4)).IsInvalidArgument());
  EXPECT_TRUE(h.roster.OnWelcome("a:1", Of("X", 0, 3)).ok());
  EXPECT_EQ(h.warnings.size(), 1u);
}

TEST(ClusterRoster, ARangeWhoseReplicasAreAllBadIsAnError) {
  Harness h({{0, 3, {"a:1", "c:1"}}, {4, 7, {"w:1", "a:1"}}});
  h.Welcome("a:1", Of("X", 0, 3));
  h.Welcome("c:1", Of("X", 0, 7));
  h.Welcome("w:1", Of("W", 0, 7));
  const Status s = h.roster.Settle(false);
  ASSERT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message(),
            "tablets 4-7 have no usable replica: w:1 is of another index (index W (16 bins, 8 "
            "tablets, analyzer icu)), a:1 hosts tablets 0-3 only");
  EXPECT_TRUE(h.warnings.empty()) << "the error says it all";
}

TEST(ClusterRoster, AServerNotHostingItsRangeIsABadReplicaOfThatRangeOnly) {
  Harness h({{0, 3, {"b:1", "a:1"}}, {4, 7, {"b:1"}}});
  h.Welcome("a:1", Of("X", 0, 3));
  h.Welcome("b:1", Of("X", 4, 7));
  ASSERT_TRUE(h.roster.Settle(false).ok());
  EXPECT_EQ(h.warnings, std::vector<std::string>{
                            "server b:1 (replica of tablets 0-3) hosts tablets 4-7 only; using the other replicas"});
  EXPECT_EQ(h.roster.Usable("b:1", h.ranges[0]).message(), "b:1 hosts tablets 4-7 only");
  EXPECT_TRUE(h.roster.Usable("b:1", h.ranges[1]).ok());
}

// Issue 22: servers follow their index, so generations differ for a
// while after every commit; they are the same index, all usable. The
// roster keeps each server's newest for --consistent.
TEST(ClusterRoster, ServersAtOtherGenerationsAreUsable) {
  Harness h({{0, 7, {"old:1", "a:1", "b:1"}}});
  h.Welcome("old:1", Of("X", 0, 7, /*generation=*/3));
  h.Welcome("a:1", Of("X", 0, 7, 4));
  h.Welcome("b:1", Of("X", 0, 7, 5));
  ASSERT_TRUE(h.roster.Settle(false).ok());
  EXPECT_TRUE(h.warnings.empty());
  for (const char* a : {"old:1", "a:1", "b:1"}) EXPECT_TRUE(h.roster.Usable(a, h.ranges[0]).ok()) << a;
  EXPECT_EQ(h.roster.NewestGeneration(), 5u);
  h.roster.SawGeneration("old:1", 7);
  EXPECT_EQ(h.roster.NewestGeneration(), 7u);
  h.roster.SawGeneration("old:1", 6);  // an answer at an older generation it still has open
  EXPECT_EQ(h.roster.NewestGeneration(), 7u);
  h.roster.SawGeneration("unknown:1", 9);  // not a server of the cluster
  EXPECT_EQ(h.roster.NewestGeneration(), 7u);
}

TEST(ClusterRoster, ATieBetweenIndexesIsRefused) {
  Harness h({{0, 3, {"a:1"}}, {4, 7, {"w:1"}}});
  h.Welcome("a:1", Of("X", 0, 7));
  h.Welcome("w:1", Of("W", 0, 7));
  const Status s = h.roster.Settle(false);
  ASSERT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message(),
            "the servers disagree on the index and none is served by most of them: w:1 serve index W "
            "(16 bins, 8 tablets, analyzer icu); a:1 serve index X (16 bins, 8 tablets, analyzer icu)");
}

TEST(ClusterRoster, AServerNotReachedYetIsUsableUntilItAnswers) {
  Harness h({{0, 3, {"a:1", "late:1"}}, {4, 7, {"late:1"}}});
  h.Welcome("a:1", Of("X", 0, 7));
  ASSERT_TRUE(h.roster.Settle(false).ok());
  EXPECT_TRUE(h.roster.Usable("late:1", h.ranges[1]).ok());
  EXPECT_TRUE(h.roster.RangeUsable(h.ranges[1]).ok());
  // It answers for another index: refused, warned about, and range 4-7 is
  // left without a usable replica.
  EXPECT_TRUE(h.roster.OnWelcome("late:1", Of("W", 0, 7)).IsInvalidArgument());
  EXPECT_EQ(h.warnings.size(), 1u);
  EXPECT_FALSE(h.roster.Usable("late:1", h.ranges[0]).ok());
  EXPECT_TRUE(h.roster.RangeUsable(h.ranges[0]).ok());
  EXPECT_EQ(h.roster.RangeUsable(h.ranges[1]).message(),
            "tablets 4-7 have no usable replica: late:1 is of another index (index W (16 bins, 8 "
            "tablets, analyzer icu))");
}

TEST(ClusterRoster, ClientsSharingWarnedServersWarnOnceInAll) {
  WarnedServers shared;
  std::vector<std::string> all;
  for (int client = 0; client < 3; ++client) {
    Harness h({{0, 7, {"w:1", "a:1", "b:1"}}}, &shared);
    h.Welcome("w:1", Of("W", 0, 7));
    h.Welcome("a:1", Of("X", 0, 7));
    h.Welcome("b:1", Of("X", 0, 7));
    ASSERT_TRUE(h.roster.Settle(false).ok());
    EXPECT_FALSE(h.roster.Usable("w:1", h.ranges[0]).ok());
    all.insert(all.end(), h.warnings.begin(), h.warnings.end());
  }
  EXPECT_EQ(all.size(), 1u);
}

}  // namespace
}  // namespace dps
