// Pruning (issue 18: block-max AND, MaxScore OR) never changes a ranking: on corpora whose
// lists span many 128-posting blocks, with document lengths and term
// frequencies spread wide (so the bounds differ from block to block and
// pruning fires), every bin's block-max top K equals its exhaustive top K
// bit for bit, and so do the merged answers of the in-process searchers
// (inline and fanned out, bins sharing one threshold), for random
// conjunctions and disjunctions, K and BM25 parameters. tests/server/ranked_property_test.cc
// checks the exhaustive ranking against brute force. The term-at-a-time
// exhaustive ranking equals the document-at-a-time one, bit for bit.
#include <atomic>
#include <gtest/gtest.h>

#include <random>
#include <tuple>

#include "index/index_reader.h"
#include "index/index_writer.h"
#include "index/query_plan.h"
#include "ingest/analyzer.h"
#include "query/coordinator.h"
#include "query/local_shards.h"
#include "query/parser.h"
#include "shards/bin_search.h"
#include "shards/ranking.h"
#include "shards/term_round.h"
#include "tests/server/cluster_fixture.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

bool SameRanking(const std::vector<ScoredDoc>& a, const std::vector<ScoredDoc>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const ScoredDoc& x, const ScoredDoc& y) {
    return x.score == y.score && x.bin == y.bin && x.docid == y.docid;
  });
}

// An index with the in-process searchers the tests compare: inline, and
// fanned out over two threads for every plan (bins sharing the threshold
// from two threads).
struct Searchers {
  explicit Searchers(const std::string& dir) {
    auto opened = IndexReader::Open(dir);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    auto created = Analyzer::Create();
    EXPECT_TRUE(created.ok());
    if (!opened.ok() || !created.ok()) return;
    index = std::move(opened).value();
    analyzer = std::move(created).value();
    CoordinatorOptions fanned;
    fanned.threads = 2;
    fanned.parallel_threshold = 0;
    inline_coordinator = std::make_unique<Coordinator>(index.get(), CoordinatorOptions{1});
    parallel_coordinator = std::make_unique<Coordinator>(index.get(), fanned);
  }
  std::unique_ptr<IndexReader> index;
  std::unique_ptr<Analyzer> analyzer;
  std::unique_ptr<Coordinator> inline_coordinator, parallel_coordinator;
};

// A whole query's ranked answer from `searcher`, in delivery order.
std::vector<ScoredDoc> RankedAnswer(Searcher* searcher, const QueryNode& query, size_t k, Bm25Params params,
                                    bool exhaustive) {
  SearchOptions ranked;
  ranked.top_k = k;
  ranked.bm25 = params;
  ranked.exhaustive = exhaustive;
  std::vector<ScoredDoc> got;
  const Status status = searcher->Run(query, ranked, [&](const BinResult& b) {
    for (size_t i = 0; i < b.docs.size(); ++i) got.push_back({b.scores[i], b.bin.value, b.docs[i]});
    return true;
  }, nullptr);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return got;
}

using PrunedRanker = Status (*)(const Tablet&, const QueryPlan&, BinId, const RankContext&, size_t, SharedThreshold*,
                                std::vector<ScoredDoc>*, bool*, RankStats*, const std::atomic<bool>*);

// (seed, disjunction): conjunctions take block-max AND, disjunctions MaxScore.
class BlockMax : public ::testing::TestWithParam<std::tuple<uint64_t, bool>> {};

TEST_P(BlockMax, PrunedRankingEqualsExhaustive) {
  const auto [seed, disjunction] = GetParam();
  const PrunedRanker ranker = disjunction ? RankBinMaxScore : RankBinBlockMax;
  SCOPED_TRACE("seed " + std::to_string(seed) + (disjunction ? " (OR)" : " (AND)"));
  std::mt19937_64 rng(seed);
  testing::TempDir dir;
  IndexOptions options;
  options.bins = 1 + static_cast<uint32_t>(rng() % 4);
  options.tablets = 1;
  const size_t vocab = 60 + rng() % 100;
  {
    auto writer = IndexWriter::Open(dir.path(), options);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    // Lengths from 1 to 400 tokens: long documents repeat the common terms.
    auto docs = testing::RandomCorpus(rng, 3000 + rng() % 3000, vocab, 40 + rng() % 360);
    ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs)).ok());
  }
  Searchers searchers(dir.path());
  ASSERT_NE(searchers.parallel_coordinator, nullptr);
  const auto* index = &searchers.index;
  const auto* analyzer = &searchers.analyzer;
  Coordinator& inline_coordinator = *searchers.inline_coordinator;
  Coordinator& parallel_coordinator = *searchers.parallel_coordinator;

  RankStats pruning;
  uint64_t matched = 0;  // by the exhaustive rankings
  uint64_t cancelled_with_matches = 0;  // bins whose cancelled ranking would have found some
  for (int q = 0; q < 250; ++q) {
    // 1 to 4 distinct terms (2 to 6 in a disjunction), common and rare.
    std::set<size_t> ranks;
    const size_t terms = disjunction ? 2 + rng() % 5 : 1 + rng() % 4;
    while (ranks.size() < terms) ranks.insert(rng() % 3 == 0 ? rng() % vocab : rng() % 12);
    std::string text;
    for (size_t r : ranks) text += (text.empty() || !disjunction ? "" : "OR ") + testing::VocabTerm(r) + " ";
    auto parsed = ParseQuery(text, analyzer->get());
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    SCOPED_TRACE("query " + text);
    Bm25Params params;
    switch (q % 4) {  // Lucene's defaults, the extremes, anything between
      case 0: break;
      case 1: params = {0.0, 0.75}; break;
      case 2: params = {2.0, rng() % 2 == 0 ? 0.0 : 1.0}; break;
      default:
        params = {std::uniform_real_distribution<double>(0, 3)(rng), std::uniform_real_distribution<double>(0, 1)(rng)};
    }
    const size_t k = std::vector<size_t>{1, 10, 100}[rng() % 3];
    SCOPED_TRACE("k " + std::to_string(k) + " k1 " + std::to_string(params.k1) + " b " + std::to_string(params.b));
    auto plan = PlanQuery(*parsed, (*index)->global(), (*index)->bins());
    ASSERT_TRUE(plan.ok());
    ASSERT_EQ(plan->pure_and, !disjunction);
    const RankContext rank(*plan, (*index)->collection_stats(), params);
    for (BinId bin : plan->bins) {
      SCOPED_TRACE("bin " + std::to_string(bin.value));
      const Tablet& tablet = (*index)->TabletOf(bin);
      std::vector<ScoredDoc> pruned, exhaustive;
      bool handled = false;
      ASSERT_TRUE(ranker(tablet, *plan, bin, rank, k, nullptr, &pruned, &handled, &pruning, nullptr).ok());
      ASSERT_TRUE(handled);  // one file per bin, nothing deleted
      // A request already cancelled stops before its first candidate (a
      // twin or hedge that lost): nothing scored, nothing offered.
      const std::atomic<bool> cancelled{true};
      std::vector<ScoredDoc> stopped;
      ASSERT_TRUE(ranker(tablet, *plan, bin, rank, k, nullptr, &stopped, &handled, nullptr, &cancelled).ok());
      EXPECT_TRUE(stopped.empty()) << stopped.size() << " ranked after the cancel";
      cancelled_with_matches += !pruned.empty();
      BinMatches m;
      ASSERT_TRUE(SearchBin(tablet, BinQuery{bin, &*plan, false, 0, nullptr}, &m).ok());
      ASSERT_TRUE(RankBin(tablet, *plan, bin, rank, m.docs, k, &exhaustive).ok());
      matched += m.docs.size();
      ASSERT_TRUE(SameRanking(pruned, exhaustive));
      // Into a vector holding another answer (the executor hands each bin
      // the last one's, whose room the K best reuse): replaced whole.
      std::vector<ScoredDoc> reused(k + 3, ScoredDoc{1e300, 99, 7});
      ASSERT_TRUE(ranker(tablet, *plan, bin, rank, k, nullptr, &reused, &handled, nullptr, nullptr).ok());
      ASSERT_TRUE(SameRanking(reused, exhaustive));
      // Term at a time (queries of many terms: a prefix's expansions) adds
      // each document's scores in the same order: the same bits.
      std::vector<ScoredDoc> by_term;
      ASSERT_TRUE(RankBinByTerm(tablet, *plan, bin, rank, m.docs, k, &by_term).ok());
      ASSERT_TRUE(SameRanking(by_term, exhaustive));
    }
    // Whole queries: bins share the threshold, inline and in parallel.
    std::vector<ScoredDoc> answers[3];
    int which = 0;
    for (auto [searcher, exhaustive] : {std::make_pair(static_cast<Searcher*>(&inline_coordinator), true),
                                        std::make_pair(static_cast<Searcher*>(&inline_coordinator), false),
                                        std::make_pair(static_cast<Searcher*>(&parallel_coordinator), false)}) {
      answers[which++] = RankedAnswer(searcher, *parsed, k, params, exhaustive);
    }
    ASSERT_TRUE(SameRanking(answers[1], answers[0]));
    ASSERT_TRUE(SameRanking(answers[2], answers[0]));
  }
  // The test proves something only if pruning happened: ranges passed
  // over, and the pruned rankings scored well under the matches.
  EXPECT_GT(pruning.skipped_ranges, 100u);
  EXPECT_GT(pruning.scored, 0u);
  EXPECT_LT(pruning.scored, matched);
  EXPECT_GT(cancelled_with_matches, 0u);  // the cancel test above stopped rankings that had answers
}

// A single term's blocks are scored best first, then the rest in docid
// order unless their bound is below the threshold (shards/best_first_term.cc).
// The rest matter when the K best lie in more blocks than the first round
// takes (K above 32) or the bounds are loose: bin 0's documents are short,
// bin 1's long, so bin 0's block scores (at its own mean length) bound its
// scores at the longer collection mean with room to spare, and rank its
// blocks otherwise than their best documents do. Terms of 160 blocks a
// bin, of a few (one more than a first round of 4 takes), of one, and
// kept inline. Every bin's ranking, and the whole query's with bins
// sharing the threshold, equals the exhaustive one for K from 1 to past
// the matches.
TEST(BlockMaxSingleTerm, BestFirstEqualsExhaustive) {
  RankStats pruning;
  uint64_t first_round_exceeded = 0;  // rankings that scored blocks after the first round
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    testing::TempDir dir;
    IndexOptions options;
    options.bins = 2;
    options.tablets = 2;  // a file per bin
    {
      std::vector<testing::ModelDoc> docs(20000);
      for (size_t i = 0; i < docs.size(); ++i) {
        docs[i].id = std::to_string(i);
        const bool shorter = BinOfId(docs[i].id, options.bins).value == 0;
        const uint32_t len = 1 + static_cast<uint32_t>(rng() % (shorter ? 60 : 600));
        const uint32_t tf = 1 + static_cast<uint32_t>(rng() % std::min<uint32_t>(len, rng() % 4 == 0 ? 40 : 3));
        if (rng() % 5 != 0) docs[i].terms["alpha"] = tf;
        for (uint32_t every : {16, 18, 20, 160, 4000}) {
          if (rng() % every == 0) docs[i].terms["beta" + std::to_string(every)] = tf;
        }
        if (len > tf) docs[i].terms["filler"] = len - tf;
      }
      auto writer = IndexWriter::Open(dir.path(), options);
      ASSERT_TRUE(writer.ok()) << writer.status().ToString();
      ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs)).ok());
    }
    auto index = IndexReader::Open(dir.path());
    ASSERT_TRUE(index.ok()) << index.status().ToString();
    auto analyzer = Analyzer::Create();
    ASSERT_TRUE(analyzer.ok());
    Coordinator coordinator(index->get(), CoordinatorOptions{1});
    for (const char* term : {"alpha", "beta16", "beta18", "beta20", "beta160", "beta4000"}) {
      auto parsed = ParseQuery(term, analyzer->get());
      ASSERT_TRUE(parsed.ok());
      auto plan = PlanQuery(*parsed, (*index)->global(), (*index)->bins());
      ASSERT_TRUE(plan.ok());
      const RankContext rank(*plan, (*index)->collection_stats(), Bm25Params());
      for (size_t k : {1, 3, 4, 5, 10, 32, 33, 100, 1000, 20000}) {
        SCOPED_TRACE(std::string(term) + " k " + std::to_string(k));
        for (BinId bin : plan->bins) {
          SCOPED_TRACE("bin " + std::to_string(bin.value));
          const Tablet& tablet = (*index)->TabletOf(bin);
          std::vector<ScoredDoc> pruned, exhaustive;
          bool handled = false;
          RankStats stats;
          ASSERT_TRUE(RankBinBlockMax(tablet, *plan, bin, rank, k, nullptr, &pruned, &handled, &stats).ok());
          ASSERT_TRUE(handled);
          BinMatches m;
          ASSERT_TRUE(SearchBin(tablet, BinQuery{bin, &*plan, false, 0, nullptr}, &m).ok());
          ASSERT_TRUE(RankBin(tablet, *plan, bin, rank, m.docs, k, &exhaustive).ok());
          ASSERT_TRUE(SameRanking(pruned, exhaustive));
          // Every block not scored counts as skipped; a first round scores 32 at most.
          if (stats.skipped_ranges + 32 < (m.docs.size() + 127) / 128) ++first_round_exceeded;
          ASSERT_TRUE(std::string_view(term) != "alpha" || m.docs.size() > 32u * 128);  // more blocks than a first round takes
          pruning.scored += stats.scored;
          pruning.skipped_ranges += stats.skipped_ranges;
        }
        std::vector<ScoredDoc> answers[2];
        for (bool exhaustive : {true, false}) {
          SearchOptions ranked;
          ranked.top_k = k;
          ranked.exhaustive = exhaustive;
          ASSERT_TRUE(coordinator.Run(*parsed, ranked, [&](const BinResult& b) {
            for (size_t i = 0; i < b.docs.size(); ++i) answers[exhaustive].push_back({b.scores[i], b.bin.value, b.docs[i]});
            return true;
          }, nullptr).ok());
        }
        ASSERT_TRUE(SameRanking(answers[0], answers[1]));
      }
    }
  }
  // Blocks were passed over, and blocks were scored after the first round.
  EXPECT_GT(pruning.skipped_ranges, 100u);
  EXPECT_GT(first_round_exceeded, 3u);
}

// A single term's bins ranked at once (shards/term_round.h): on random
// corpora of 2 to 9 bins in 1 to 3 tablets, with long and short documents,
// every single-term top K (K up to a first round's 32) equals the
// exhaustive ranking bit for bit, from the coordinator inline and fanned
// out (bins racing for the round) and from in-process shard servers
// (shards/server_query.cc, one round per request).
TEST(TermRound, AcrossBinsEqualsExhaustive) {
  uint64_t rounds = 0;
  RankStats alone;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 rng(seed);
    IndexOptions options;  // 2 to 9 bins in 1 to 3 tablets
    options.bins = 2 + static_cast<uint32_t>(rng() % 8);
    options.tablets = 1 + static_cast<uint32_t>(rng() % std::min<uint32_t>(options.bins, 3));
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(options.bins) + " bins");
    testing::TempDir dir;
    const size_t vocab = 40 + rng() % 60;
    {
      auto writer = IndexWriter::Open(dir.path(), options);
      ASSERT_TRUE(writer.ok()) << writer.status().ToString();
      auto docs = testing::RandomCorpus(rng, 4000 + rng() % 4000, vocab, 20 + rng() % 300);
      // As in BestFirstEqualsExhaustive: even bins' documents short, odd
      // bins' long, so block scores (at each bin's mean length) are loose
      // bounds in some bins and blocks past the first rounds are scored.
      for (size_t i = 0; i < 12000; ++i) {
        testing::ModelDoc d;
        d.id = std::to_string(100000 + i);  // beyond RandomCorpus's ids
        const bool shorter = BinOfId(d.id, options.bins).value % 2 == 0;
        const uint32_t len = 1 + static_cast<uint32_t>(rng() % (shorter ? 60 : 600));
        const uint32_t tf = 1 + static_cast<uint32_t>(rng() % std::min<uint32_t>(len, rng() % 4 == 0 ? 40 : 3));
        if (rng() % 5 != 0) d.terms["alpha"] = tf;
        if (rng() % 20 == 0) d.terms["beta"] = tf;
        if (len > tf) d.terms["filler"] = len - tf;
        docs.push_back(std::move(d));
      }
      ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs)).ok());
    }
    Searchers searchers(dir.path());
    ASSERT_NE(searchers.parallel_coordinator, nullptr);
    const auto* index = &searchers.index;
    const auto* analyzer = &searchers.analyzer;
    auto shards = LocalShards::Start(std::shared_ptr<const IndexReader>(std::shared_ptr<void>(), index->get()), 1,
                                     /*workers=*/2, {}, /*seed=*/5);
    ASSERT_TRUE(shards.ok()) << shards.status().ToString();
    ClusterOptions local;
    local.local = *shards;
    auto servers = cluster_testing::Client((*shards)->ranges(), local);
    ASSERT_NE(servers, nullptr);
    for (int q = 0; q < 40; ++q) {
      const std::string term =
          q % 4 == 0 ? "alpha" : q % 4 == 1 ? "beta" : testing::VocabTerm(rng() % 3 == 0 ? rng() % vocab : rng() % 8);
      const size_t k = std::vector<size_t>{1, 2, 10, 32}[rng() % 4];
      SCOPED_TRACE(term + " k " + std::to_string(k));
      auto parsed = ParseQuery(term, analyzer->get());
      ASSERT_TRUE(parsed.ok());
      auto plan = PlanQuery(*parsed, (*index)->global(), (*index)->bins());
      ASSERT_TRUE(plan.ok());
      const RankContext rank(*plan, (*index)->collection_stats(), Bm25Params());
      if (!plan->empty && TermRound::Applies(*plan, rank, k, plan->bins)) ++rounds;
      // The bins one after the other, for the count of postings scored.
      SharedThreshold shared;
      shared.KeepBest(k);
      for (BinId bin : plan->bins) {
        std::vector<ScoredDoc> best;
        bool handled = false;
        ASSERT_TRUE(RankBinBlockMax((*index)->TabletOf(bin), *plan, bin, rank, k, &shared, &best, &handled, &alone).ok());
      }
      std::vector<ScoredDoc> answers[4];
      int which = 0;
      for (auto [searcher, exhaustive] :
           {std::make_pair(static_cast<Searcher*>(searchers.inline_coordinator.get()), true),
            std::make_pair(static_cast<Searcher*>(searchers.inline_coordinator.get()), false),
            std::make_pair(static_cast<Searcher*>(searchers.parallel_coordinator.get()), false),
            std::make_pair(static_cast<Searcher*>(servers.get()), false)}) {
        answers[which++] = RankedAnswer(searcher, *parsed, k, Bm25Params(), exhaustive);
      }
      if (!plan->empty) {
        ASSERT_EQ(answers[0].size(), std::min<size_t>(k, plan->terms.entries[0].second.df));
      }
      for (int i = 1; i < 4; ++i) ASSERT_TRUE(SameRanking(answers[i], answers[0])) << "searcher " << i;
    }
  }
  EXPECT_GT(rounds, 100u);  // the round ran, not only the bins alone
  EXPECT_GT(alone.skipped_ranges, 0u);
}

INSTANTIATE_TEST_SUITE_P(Seeds, BlockMax, ::testing::Combine(::testing::Range<uint64_t>(1, 7), ::testing::Bool()));

}  // namespace
}  // namespace dps

namespace dps {
namespace {

// A context reset for another query equals the one made for it: nothing
// of the last query's terms (more of them here) is left.
TEST(RankContext, ResetForAnotherQueryEqualsANewContext) {
  cluster_testing::Fixture f(53);
  const std::vector<QueryNode> queries = {
      QueryNode::And({QueryNode::Term(testing::VocabTerm(1)), QueryNode::Term(testing::VocabTerm(2)),
                      QueryNode::Term(testing::VocabTerm(5))}),
      QueryNode::Term(testing::VocabTerm(0)),
      QueryNode::Or({QueryNode::Term(testing::VocabTerm(3)), QueryNode::Term("absentword")}),
  };
  std::vector<QueryPlan> plans;
  for (const QueryNode& q : queries) {
    auto plan = PlanQuery(q, f.index->global(), f.index->bins());
    ASSERT_TRUE(plan.ok());
    plans.push_back(std::move(plan).value());
  }
  RankContext reused(plans[0], f.index->collection_stats(), Bm25Params{2.0, 0.0});
  for (size_t i = 1; i < plans.size(); ++i) {
    const Bm25Params params = i % 2 == 0 ? Bm25Params() : Bm25Params{0.5, 1.0};
    const RankContext fresh(plans[i], f.index->collection_stats(), params);
    reused.Reset(plans[i], f.index->collection_stats(), params);
    SCOPED_TRACE("query " + std::to_string(i));
    EXPECT_EQ(reused.idf, fresh.idf);
    EXPECT_EQ(reused.phrase_idf, fresh.phrase_idf);
    EXPECT_EQ(reused.term_column, fresh.term_column);
    EXPECT_EQ(reused.phrase_column, fresh.phrase_column);
    EXPECT_EQ(reused.column, fresh.column);
    ASSERT_EQ(reused.column_bm25.size(), fresh.column_bm25.size());
    for (uint32_t dl : {1u, 10u, 1000u}) {
      EXPECT_EQ(reused.bm25.Norm(dl), fresh.bm25.Norm(dl));
      for (size_t c = 0; c < fresh.column_bm25.size(); ++c) EXPECT_EQ(reused.column_bm25[c].Norm(dl), fresh.column_bm25[c].Norm(dl));
    }
  }
}

}  // namespace
}  // namespace dps
