// Property test: random corpora committed in random batches (appends,
// replacements, deletes, compactions) over random bin/tablet layouts, random AND/OR/NOT
// trees (with prefixes too: expanded through the global index, ORs of
// more than 16 terms materialized), every result set compared with a
// brute-force evaluation.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "index/compaction.h"
#include "index/index_writer.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

using testing::ModelDoc;

std::string Describe(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += x + " ";
  return out;
}

// One random scenario; returns false (with a gtest failure) on mismatch.
// prefix_percent: the share of the queries' leaves that are prefixes.
void RunScenario(uint64_t seed, int prefix_percent = 0) {
  std::mt19937_64 rng(seed);
  testing::TempDir dir;
  IndexOptions options;
  options.bins = 1 + static_cast<uint32_t>(rng() % 8);
  options.tablets = 1 + static_cast<uint32_t>(rng() % options.bins);
  const size_t vocab = 3 + rng() % 40;
  auto writer = IndexWriter::Open(dir.path(), options);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();

  std::map<std::string, ModelDoc> live;
  const int commits = 1 + static_cast<int>(rng() % 3);
  for (int c = 0; c < commits; ++c) {
    auto docs = testing::RandomCorpus(rng, rng() % 60, vocab, 1 + rng() % 25);
    // Ids overlap across commits so later commits replace documents.
    for (auto& d : docs) d.id = "doc-" + std::to_string(rng() % 80);
    ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs)).ok());
    for (auto& d : docs) live[d.id] = d;
    if (rng() % 3 == 0) {
      std::vector<std::string> gone;
      for (int k = 0; k < 5; ++k) gone.push_back("doc-" + std::to_string(rng() % 80));
      ASSERT_TRUE((*writer)->Delete(gone).ok());
      for (const auto& id : gone) live.erase(id);
    }
    if (rng() % 3 == 0) {  // major compaction of one tablet, or the ratio rule
      CompactionStats cstats;
      Status s = rng() % 2 ? CompactTablet(writer->get(), rng() % options.tablets, &cstats)
                           : CompactWhereNeeded(writer->get(), &cstats);
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
  }
  for (int q = 0; q < 8; ++q) {
    QueryNode query = testing::RandomQuery(rng, vocab, 0, prefix_percent);
    ASSERT_TRUE(ValidateQuery(query).ok()) << query.ToString();
    std::set<std::string> want;
    for (const auto& [id, d] : live) {
      if (testing::Matches(query, d.terms)) want.insert(id);
    }
    std::set<std::string> got = testing::RunQuery(dir.path(), query);
    ASSERT_EQ(got, want) << "seed " << seed << " query " << query.ToString() << "\n got:  "
                         << Describe(got) << "\n want: " << Describe(want);
  }
}

TEST(QueryProperty, RandomTreesMatchBruteForceOnThousandCorpora) {
  for (uint64_t seed = 1; seed <= 1000; ++seed) {
    RunScenario(seed);
    if (HasFatalFailure()) return;
  }
}

// A prefix matches the documents holding a term that starts with it, in
// any tree: "t" (every term), "t1" (t1, t10..t19), whole terms, prefixes
// of no term.
TEST(QueryProperty, RandomTreesWithPrefixesMatchBruteForce) {
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    RunScenario(seed, 40);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace dps
