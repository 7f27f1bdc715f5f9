// A phrase of two distinct words whose lists are long and of similar
// length is checked in one walk of both lists (index/dense_phrase_pair.h),
// alone or beside a term.
// Against brute force, on corpora of few words and thousands of documents
// (so most pairs are dense, their lists many blocks long, the words
// repeated within documents): the count, the matching documents with and
// without a limit, and the ranked K best with their scores (the phrase's
// tf is its occurrences). The same queries after deletes (which take the
// general path) and after a compaction.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "index/compaction.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "query/coordinator.h"
#include "tests/testing/bm25_oracle.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

using Live = std::map<std::string, testing::ModelDoc>;

void CheckPairs(const std::string& dir, const Live& live, const std::vector<const testing::ModelDoc*>& stored,
                size_t vocab) {
  auto index = IndexReader::Open(dir);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  Coordinator searcher(index->get(), CoordinatorOptions{1});
  std::vector<QueryNode> queries;
  for (size_t i = 0; i < vocab; ++i) {
    for (size_t j = 0; j < vocab; ++j) {
      QueryNode phrase = QueryNode::Phrase({testing::VocabTerm(i), testing::VocabTerm(j)});
      queries.push_back(phrase);
      // With a term beside it (the phrase's lists walked, the term's sought):
      // a common one, or the rarest (a leapfrog led by it instead).
      for (size_t t : {(i + j) % vocab, vocab - 1}) {
        queries.push_back(QueryNode::And({phrase, QueryNode::Term(testing::VocabTerm(t))}));
      }
      // Two terms beside it: each must hold the document the others agree on.
      queries.push_back(QueryNode::And({QueryNode::Term(testing::VocabTerm((i + 1) % vocab)), phrase,
                                        QueryNode::Term(testing::VocabTerm((j + 2) % vocab))}));
    }
  }
  {
    for (const QueryNode& q : queries) {
      SCOPED_TRACE(q.ToString());
      std::set<std::string> want;
      for (const auto& [id, d] : live) {
        if (testing::Matches(q, d)) want.insert(id);
      }
      SearchOptions count;
      count.count_only = true;
      uint64_t n = 0;
      ASSERT_TRUE(searcher.Run(q, count, [&](const BinResult& b) {
        n += b.count;
        return true;
      }, nullptr).ok());
      EXPECT_EQ(n, want.size());
      for (size_t limit : {size_t{0}, size_t{7}}) {
        SearchOptions collect;
        collect.limit = limit;
        collect.fetch = Fetch::kIdsAndTitles;
        std::vector<std::string> got;
        ASSERT_TRUE(searcher.Run(q, collect, [&](const BinResult& b) {
          for (const auto& s : b.stored) got.push_back(s.id);
          return true;
        }, nullptr).ok());
        const std::set<std::string> unique(got.begin(), got.end());
        EXPECT_EQ(unique.size(), got.size()) << "limit " << limit << ": a document twice";
        if (limit == 0) {
          EXPECT_EQ(unique, want);
        } else {
          EXPECT_EQ(got.size(), std::min(limit, want.size()));
          EXPECT_TRUE(std::includes(want.begin(), want.end(), unique.begin(), unique.end())) << "limit " << limit;
        }
      }
      const auto scores = testing::BruteForceScores(live, stored, q);
      std::vector<std::pair<double, std::string>> best;
      for (const auto& [id, s] : scores) best.emplace_back(s, id);
      std::sort(best.begin(), best.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      SearchOptions ranked;
      ranked.top_k = 10;
      ranked.fetch = Fetch::kIdsAndTitles;
      std::vector<std::pair<double, std::string>> got;
      ASSERT_TRUE(searcher.Run(q, ranked, [&](const BinResult& b) {
        for (size_t k = 0; k < b.docs.size(); ++k) got.emplace_back(b.scores[k], b.stored[k].id);
        return true;
      }, nullptr).ok());
      ASSERT_EQ(got.size(), std::min<size_t>(10, best.size()));
      for (size_t k = 0; k < got.size(); ++k) {
        EXPECT_EQ(got[k].first, best[k].first) << "rank " << k;  // ties may order ids differently
        EXPECT_EQ(got[k].first, scores.at(got[k].second)) << got[k].second << " carries another score";
      }
    }
  }
}

TEST(DensePhrasePair, CountsDocumentsAndScoresEqualBruteForce) {
  for (uint64_t seed : {1, 2}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const size_t vocab = 6;
    testing::TempDir dir;
    IndexOptions options;
    options.bins = static_cast<uint32_t>(seed);  // thousands of postings a list in one bin, half in two
    options.tablets = 1;
    options.positions = true;
    auto docs = testing::RandomCorpus(rng, 4000, vocab, 40);
    Live live;
    for (size_t k = 0; k < docs.size(); ++k) {
      docs[k].id = "d" + std::to_string(k);
      live[docs[k].id] = docs[k];
    }
    auto writer = IndexWriter::Open(dir.path(), options);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs, true)).ok());
    std::vector<const testing::ModelDoc*> stored;
    for (const auto& d : docs) stored.push_back(&d);
    CheckPairs(dir.path(), live, stored, vocab);
    // Deletes: the bins take the general path; statistics still count
    // the deleted documents until a compaction.
    std::vector<std::string> gone;
    for (size_t k = 0; k < docs.size(); k += 9) gone.push_back(docs[k].id);
    ASSERT_TRUE((*writer)->Delete(gone).ok());
    for (const auto& id : gone) live.erase(id);
    CheckPairs(dir.path(), live, stored, vocab);
    CompactionStats cs;
    ASSERT_TRUE(CompactTablet(writer->get(), 0, &cs).ok());
    stored.clear();
    for (const auto& [id, d] : live) stored.push_back(&d);
    CheckPairs(dir.path(), live, stored, vocab);
  }
}

}  // namespace
}  // namespace dps
