// End to end over in-process shards: random corpora with 1, 2 and many
// bins and tablets, random query trees, every result set compared with a
// brute-force reference, with one and with several threads; limits and
// counts.
#include "query/coordinator.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "index/index_writer.h"
#include "index/query_plan.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

std::set<std::string> RunQueryOn(const IndexReader& index, Coordinator* coordinator, const QueryNode& q,
                          const SearchOptions& options, uint64_t* count, SearchStats* stats) {
  auto plan = PlanQuery(q, index.global(), index.bins());
  EXPECT_TRUE(plan.ok());
  std::set<std::string> ids;
  *count = 0;
  Status s = coordinator->RunPlan(*plan, options, [&](const BinResult& r) {
    *count += r.count;
    DocId last = 0;
    for (size_t i = 0; i < r.docs.size(); ++i) {
      EXPECT_TRUE(i == 0 || r.docs[i] > last) << "docid order within a bin";
      last = r.docs[i];
      StoredDoc doc;
      EXPECT_TRUE(index.TabletOf(r.bin).GetDocument(r.bin, r.docs[i], &doc).ok());
      ids.insert(doc.id);
    }
    return true;
  }, stats);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return ids;
}

TEST(Coordinator, MatchesBruteForceAcrossLayoutsAndThreads) {
  const std::pair<uint32_t, uint32_t> layouts[] = {{1, 1}, {2, 2}, {2, 1}, {8, 3}, {32, 8}};
  for (auto [bins, tablets] : layouts) {
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      std::mt19937_64 rng(seed * 100 + bins);
      testing::TempDir dir;
      IndexOptions options;
      options.bins = bins;
      options.tablets = tablets;
      auto writer = IndexWriter::Open(dir.path(), options);
      ASSERT_TRUE(writer.ok());
      std::map<std::string, testing::ModelDoc> live;
      for (int c = 0; c < 2; ++c) {  // two commits: multi-file tablets, replacements
        auto docs = testing::RandomCorpus(rng, 300, 60, 30);
        for (auto& d : docs) d.id = "doc-" + std::to_string(rng() % 400);
        ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs)).ok());
        for (auto& d : docs) live[d.id] = d;
      }
      auto index = IndexReader::Open(dir.path());
      ASSERT_TRUE(index.ok());
      for (unsigned threads : {1u, 2u, 4u}) {
        Coordinator coordinator(index->get(), CoordinatorOptions{threads});
        for (int k = 0; k < 25; ++k) {
          QueryNode q = testing::RandomQuery(rng, 60);
          std::set<std::string> want;
          for (const auto& [id, d] : live) {
            if (testing::Matches(q, d.terms)) want.insert(id);
          }
          uint64_t count = 0;
          SearchStats stats;
          auto got = RunQueryOn(**index, &coordinator, q, SearchOptions(), &count, &stats);
          ASSERT_EQ(got, want) << "bins " << bins << " seed " << seed << " threads " << threads
                               << " query " << q.ToString();
          ASSERT_EQ(count, want.size());
          SearchOptions count_only;
          count_only.count_only = true;
          RunQueryOn(**index, &coordinator, q, count_only, &count, &stats);
          ASSERT_EQ(count, want.size()) << q.ToString();
          if (want.size() >= 3) {
            SearchOptions limited;
            limited.limit = 2;
            auto few = RunQueryOn(**index, &coordinator, q, limited, &count, &stats);
            EXPECT_EQ(count, 2u);
            EXPECT_EQ(few.size(), 2u);
            for (const auto& id : few) EXPECT_TRUE(want.count(id));
          }
        }
      }
    }
  }
}

TEST(Coordinator, AbsentTermAnswersWithoutVisitingBins) {
  testing::TempDir dir;
  auto writer = IndexWriter::Open(dir.path(), IndexOptions());
  ASSERT_TRUE(writer.ok());
  std::mt19937_64 rng(3);
  ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(testing::RandomCorpus(rng, 100, 20, 10))).ok());
  auto index = IndexReader::Open(dir.path());
  Coordinator coordinator(index->get(), CoordinatorOptions{2});
  uint64_t count = 1;
  SearchStats stats;
  auto got = RunQueryOn(**index, &coordinator,
                 QueryNode::And({QueryNode::Term("t0"), QueryNode::Term("nowhere")}), SearchOptions(),
                 &count, &stats);
  EXPECT_TRUE(got.empty());
  EXPECT_EQ(stats.bins_visited, 0u);
  EXPECT_TRUE(stats.bins.empty());
}

}  // namespace
}  // namespace dps
