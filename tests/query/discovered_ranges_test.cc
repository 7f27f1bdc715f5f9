#include "query/discovered_ranges.h"

#include <gtest/gtest.h>

namespace dps {
namespace {

ServerRecord Server(const std::string& address, std::vector<TabletSpan> hosted) {
  return ServerRecord{address, "id", 1, 16, 8, std::move(hosted)};
}

TEST(RangesOfServers, DisjointServersAreTheirOwnRanges) {
  auto r = RangesOfServers({Server("b:2", {{4, 7}}), Server("a:1", {{0, 3}})});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], (ClusterRange{0, 3, {"a:1"}}));
  EXPECT_EQ(r[1], (ClusterRange{4, 7, {"b:2"}}));
}

TEST(RangesOfServers, OverlapsAreCutAndEqualNeighboursJoined) {
  // a hosts 0-5, b 4-7, c 0-1 and 6: pieces 0-1 {a,c}, 2-3 {a}, 4-5 {a,b}, 6 {b,c}, 7 {b}.
  auto r = RangesOfServers({Server("a:1", {{0, 5}}), Server("b:1", {{4, 7}}), Server("c:1", {{0, 1}, {6, 6}})});
  const std::vector<ClusterRange> want = {{0, 1, {"a:1", "c:1"}}, {2, 3, {"a:1"}}, {4, 5, {"a:1", "b:1"}},
                                          {6, 6, {"b:1", "c:1"}}, {7, 7, {"b:1"}}};
  EXPECT_EQ(r, want);
  // Replicas of every tablet: a range's replicas host all of it.
  auto same = RangesOfServers({Server("a:1", {{0, 3}, {4, 7}}), Server("b:1", {{0, 7}})});
  EXPECT_EQ(same, (std::vector<ClusterRange>{{0, 7, {"a:1", "b:1"}}}));
}

TEST(RangesOfServers, GapsAreLeftOut) {
  auto r = RangesOfServers({Server("a:1", {{0, 1}}), Server("b:1", {{5, 7}})});
  EXPECT_EQ(r, (std::vector<ClusterRange>{{0, 1, {"a:1"}}, {5, 7, {"b:1"}}}));
  EXPECT_TRUE(RangesOfServers({}).empty());
}

}  // namespace
}  // namespace dps

namespace dps {
namespace {

TEST(KeepUncovered, TabletsNobodyAdvertisesKeepTheirLastServers) {
  const std::vector<ClusterRange> last = {{0, 3, {"a:1", "c:1"}}, {4, 7, {"b:1", "c:1"}}};
  // c left: everything still covered, nothing kept.
  const std::vector<ClusterRange> without_c = {{0, 3, {"a:1"}}, {4, 7, {"b:1"}}};
  EXPECT_EQ(KeepUncovered(without_c, last), without_c);
  // b and c gone for a moment (re-registering): 4-7 keep b and c.
  EXPECT_EQ(KeepUncovered({{0, 3, {"a:1"}}}, last),
            (std::vector<ClusterRange>{{0, 3, {"a:1"}}, {4, 7, {"b:1", "c:1"}}}));
  // Part of a range: only the uncovered tablets keep theirs; neighbours with equal replicas join.
  EXPECT_EQ(KeepUncovered({{0, 5, {"a:1"}}}, {{0, 3, {"a:1"}}, {4, 7, {"a:1"}}}),
            (std::vector<ClusterRange>{{0, 7, {"a:1"}}}));
  EXPECT_EQ(KeepUncovered({}, last), last);
  EXPECT_EQ(KeepUncovered(last, {}), last);
}

}  // namespace
}  // namespace dps
