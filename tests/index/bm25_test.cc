#include "index/bm25.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "index/query_node.h"
#include "tests/testing/bm25_oracle.h"

namespace dps {
namespace {

TEST(Bm25, MatchesTheFormulaByHand) {
  // N = 1,000 documents of 100,000 tokens (avgdl 100); a term in 10 of them.
  const CollectionStats stats{1000, 100000};
  const double idf = Bm25Idf(stats.documents, 10);
  EXPECT_DOUBLE_EQ(idf, std::log(1.0 + (1000.0 - 10.0 + 0.5) / 10.5));
  const Bm25 bm25(Bm25Params{}, stats);
  // tf 3 in a document of 50 tokens: norm = 1.2 * (0.25 + 0.75 * 0.5) = 0.75.
  EXPECT_DOUBLE_EQ(bm25.TermScore(idf, 3, 50), idf * 3.0 / (3.0 + 0.75));  // within 4 ulps
  // b = 0: length does not matter; k1 = 0: tf does not matter.
  const Bm25 flat(Bm25Params{1.2, 0.0}, stats);
  EXPECT_DOUBLE_EQ(flat.TermScore(idf, 3, 50), flat.TermScore(idf, 3, 5000));
  const Bm25 binary(Bm25Params{0.0, 0.75}, stats);
  EXPECT_DOUBLE_EQ(binary.TermScore(idf, 1, 50), binary.TermScore(idf, 9, 50));
}

TEST(Bm25, IdfFallsWithDocumentFrequencyAndStaysPositive) {
  double last = 1e300;
  for (uint64_t df = 1; df <= 1000; df += 37) {
    const double idf = Bm25Idf(1000, df);
    EXPECT_LT(idf, last);
    EXPECT_GT(idf, 0.0);  // Lucene's +1 inside the log: never negative, even at df = N
    last = idf;
  }
}

// The block-max bound: (max tf, min dl) bounds every posting of a block,
// for any k1 and b a user may pass, bit for bit (k1 = 0 made the textbook
// form idf * tf / (tf + norm) break this by an ulp).
TEST(Bm25, TheCornerBoundsEveryPosting) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 2000; ++round) {
    const CollectionStats stats{1 + rng() % 10000, 1 + rng() % 1000000};
    const Bm25Params params{static_cast<double>(rng() % 300) / 100.0, static_cast<double>(rng() % 101) / 100.0};
    const Bm25 bm25(params, stats);
    const double idf = Bm25Idf(stats.documents, 1 + rng() % stats.documents);
    const uint32_t max_tf = 1 + static_cast<uint32_t>(rng() % 50), min_dl = 1 + static_cast<uint32_t>(rng() % 500);
    const double bound = bm25.Bound(idf, max_tf, min_dl);
    for (int i = 0; i < 20; ++i) {
      const uint32_t tf = 1 + static_cast<uint32_t>(rng() % max_tf);
      const uint32_t dl = min_dl + static_cast<uint32_t>(rng() % 1000);
      EXPECT_LE(bm25.TermScore(idf, tf, dl), bound) << "k1 " << params.k1 << " b " << params.b;
    }
  }
}

// The block score bound: a block's score, written for one reference
// avgdl, bounds every posting of the block at the query's avgdl, whether
// the index's avgdl has since risen or fallen, and its floor is reached by
// one (bit for bit: the bound is
// compared with the computed scores). Blocks mix short and long documents
// and low and high tfs, so the best posting moves as avgdl does.
TEST(Bm25, TheBlockScoreBoundsEveryPostingAtAnyAvgdl) {
  std::mt19937_64 rng(5);
  size_t tight = 0, close = 0;
  for (int round = 0; round < 3000; ++round) {
    const size_t n = 1 + rng() % kMaxBlockPostings;
    std::vector<uint32_t> tfs(n), dls(n);
    for (size_t i = 0; i < n; ++i) {
      tfs[i] = 1 + static_cast<uint32_t>(rng() % (round % 2 ? 4 : 60));
      dls[i] = tfs[i] + static_cast<uint32_t>(rng() % (round % 3 ? 100 : 5000));
    }
    const uint32_t units = ScoreAvgdlUnits(1.0 + static_cast<double>(rng() % 200000) / 100.0);
    const double written_avgdl = ScoreAvgdl(units);
    const uint32_t q = BlockScore(tfs.data(), dls.data(), n, written_avgdl);
    ASSERT_GE(q, 1u);
    for (double drift : {0.25, 0.9, 0.999, 1.0, 1.001, 1.1, 4.0}) {
      // An index of 256 documents whose avgdl is about written_avgdl * drift
      // (exactly it at drift 1).
      const uint64_t docs = 256;
      const CollectionStats stats{docs, static_cast<uint64_t>(std::llround(units * drift))};
      const Bm25 bm25(Bm25Params{}, stats);
      ASSERT_TRUE(bm25.UsesBlockScores());
      const double idf = Bm25Idf(docs, 1 + rng() % docs);
      const double bound = bm25.BlockScoreBound(idf, q, written_avgdl);
      double best = 0;
      for (size_t i = 0; i < n; ++i) best = std::max(best, bm25.TermScore(idf, tfs[i], dls[i]));
      ASSERT_LE(best, bound) << "round " << round << " drift " << drift;
      if (drift == 1.0 && bound <= best + idf * 1.001 / kBlockScoreSteps) ++tight;  // one step above at most
      // The floor: some posting of the block scores at least it (a
      // threshold before any posting is scored), and within a step of
      // the best at the written avgdl.
      const double floor = bm25.BlockScoreFloor(idf, q, written_avgdl);
      ASSERT_LE(floor, best) << "round " << round << " drift " << drift;
      if (drift == 1.0 && floor >= best - idf * 1.001 / kBlockScoreSteps) ++close;
    }
  }
  EXPECT_EQ(tight, 3000u);  // at the written avgdl the bound is the block's best, rounded up
  EXPECT_EQ(close, 3000u);
}

// The corner bounds a block whatever the parameters; the block score only
// under the defaults it was computed for.
TEST(Bm25, BlockScoresApplyOnlyToTheDefaultParameters) {
  const CollectionStats stats{100, 4000};
  EXPECT_TRUE(Bm25(Bm25Params{}, stats).UsesBlockScores());
  EXPECT_FALSE(Bm25(Bm25Params{1.2, 0.7}, stats).UsesBlockScores());
  EXPECT_FALSE(Bm25(Bm25Params{0.9, 0.75}, stats).UsesBlockScores());
  EXPECT_FALSE(Bm25(Bm25Params{}, CollectionStats{}).UsesBlockScores());
}

// The tests' oracle on a corpus small enough to score by hand: three
// stored documents (one of them deleted, so it counts in N, df and avgdl
// but is not returned), the query a OR (b -c).
TEST(Bm25, TheOracleScoresByHand) {
  const testing::ModelDoc d1{"d1", {{"a", 2}, {"x", 2}}, {}, {}};           // length 4
  const testing::ModelDoc d2{"d2", {{"a", 1}, {"b", 1}}, {}, {}};           // length 2
  const testing::ModelDoc gone{"d3", {{"b", 3}, {"c", 1}, {"x", 2}}, {}, {}};  // length 6, deleted
  const std::map<std::string, testing::ModelDoc> live = {{"d1", d1}, {"d2", d2}};
  const std::vector<const testing::ModelDoc*> stored = {&d1, &d2, &gone};
  const QueryNode q = QueryNode::Or({QueryNode::Term("a"), QueryNode::And({QueryNode::Term("b"), QueryNode::Term("c", /*negated=*/true)})});
  const auto scores = testing::BruteForceScores(live, stored, q);
  ASSERT_EQ(scores.size(), 2u);
  const double avgdl = 12.0 / 3.0, idf_a = std::log(1 + (3 - 2 + 0.5) / 2.5), idf_b = std::log(1 + (3 - 2 + 0.5) / 2.5);
  auto part = [&](double idf, double tf, double dl) { return idf * tf / (tf + 1.2 * (0.25 + 0.75 * dl / avgdl)); };
  EXPECT_NEAR(scores.at("d1"), part(idf_a, 2, 4), 1e-12);
  EXPECT_NEAR(scores.at("d2"), part(idf_a, 1, 2) + part(idf_b, 1, 2), 1e-12);  // c is under NOT: no score
}

}  // namespace
}  // namespace dps
