// The planner visits exactly the bins that can match: a term's bins are
// those of the documents holding it, an AND intersects its positive
// children's bins (negated ones restrict nothing), an OR unites them.
// Compared with the same sets computed from the documents themselves.
#include "query/planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "common/checksum.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

using BinSet = std::set<uint32_t>;

BinSet ModelBins(const QueryNode& q, const std::map<std::string, BinSet>& bins_of_term) {
  if (q.kind == QueryNode::Kind::kTerm) {
    auto it = bins_of_term.find(q.term);
    return it == bins_of_term.end() ? BinSet() : it->second;
  }
  BinSet acc;
  bool first = true;
  for (const auto& c : q.children) {
    if (c.negated) continue;
    BinSet b = ModelBins(c, bins_of_term);
    if (first) {
      acc = std::move(b);
      first = false;
    } else if (q.kind == QueryNode::Kind::kAnd) {
      BinSet both;
      std::set_intersection(acc.begin(), acc.end(), b.begin(), b.end(),
                            std::inserter(both, both.end()));
      acc = std::move(both);
    } else {
      acc.insert(b.begin(), b.end());
    }
  }
  return acc;
}

TEST(Planner, VisitsExactlyTheBinsThatCanMatch) {
  constexpr uint32_t kBins = 16;
  std::mt19937_64 rng(11);
  testing::TempDir dir;
  IndexOptions options;
  options.bins = kBins;
  options.tablets = 4;
  auto writer = IndexWriter::Open(dir.path(), options);
  ASSERT_TRUE(writer.ok());
  // Few documents over many bins, so a rare term misses most bins.
  const auto docs = testing::RandomCorpus(rng, 60, 80, 6);
  ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs)).ok());
  std::map<std::string, BinSet> bins_of_term;
  for (const auto& d : docs) {
    for (const auto& [term, tf] : d.terms) {
      bins_of_term[term].insert(static_cast<uint32_t>(StableHash64(d.id) % kBins));
    }
  }
  auto index = IndexReader::Open(dir.path());
  ASSERT_TRUE(index.ok());
  size_t partial = 0;
  for (int k = 0; k < 300; ++k) {
    const QueryNode q = testing::RandomQuery(rng, 80);
    auto plan = PlanQuery(q, (*index)->global(), kBins);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    const BinSet want = ModelBins(q, bins_of_term);
    EXPECT_EQ(BinSet(plan->bins.begin(), plan->bins.end()), want) << q.ToString();
    EXPECT_TRUE(std::is_sorted(plan->bins.begin(), plan->bins.end()));
    EXPECT_EQ(plan->empty, want.empty());
    partial += !want.empty() && want.size() < kBins;
  }
  EXPECT_GT(partial, 30u) << "too few queries restrict the bins to test anything";
}

}  // namespace
}  // namespace dps
