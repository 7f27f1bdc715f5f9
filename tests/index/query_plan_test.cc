// The planner visits exactly the bins that can match: a term's bins are
// those of the documents holding it, an AND intersects its positive
// children's bins (negated ones restrict nothing), an OR unites them.
// Compared with the same sets computed from the documents themselves.
#include "index/query_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "common/checksum.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

using BinSet = std::set<uint32_t>;

BinSet Values(const std::vector<BinId>& bins) {
  BinSet out;
  for (BinId b : bins) out.insert(b.value);
  return out;
}

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

// An index of few documents over many bins (a rare term misses most bins),
// with each term's bins and document frequency counted from the documents.
struct SmallIndex {
  static constexpr uint32_t kBins = 16;
  testing::TempDir dir;
  std::unique_ptr<IndexReader> index;
  std::map<std::string, BinSet> bins_of_term;
  std::map<std::string, uint64_t> df;

  explicit SmallIndex(std::mt19937_64& rng) {
    IndexOptions options;
    options.bins = kBins;
    options.tablets = 4;
    auto writer = IndexWriter::Open(dir.path(), options);
    EXPECT_TRUE(writer.ok());
    const auto docs = testing::RandomCorpus(rng, 60, 80, 6);
    EXPECT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs)).ok());
    for (const auto& d : docs) {
      for (const auto& [term, tf] : d.terms) {
        bins_of_term[term].insert(static_cast<uint32_t>(StableHash64(d.id) % kBins));
        ++df[term];
      }
    }
    auto r = IndexReader::Open(dir.path());
    EXPECT_TRUE(r.ok());
    index = std::move(r).value();
  }
};

TEST(Planner, VisitsExactlyTheBinsThatCanMatch) {
  std::mt19937_64 rng(11);
  SmallIndex small(rng);
  size_t partial = 0;
  for (int k = 0; k < 300; ++k) {
    const QueryNode q = testing::RandomQuery(rng, 80);
    auto plan = PlanQuery(q, small.index->global(), SmallIndex::kBins);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    const BinSet want = ModelBins(q, small.bins_of_term);
    EXPECT_EQ(Values(plan->bins), want) << q.ToString();
    EXPECT_TRUE(std::is_sorted(plan->bins.begin(), plan->bins.end()));
    EXPECT_EQ(plan->empty, want.empty());
    partial += !want.empty() && want.size() < SmallIndex::kBins;
  }
  EXPECT_GT(partial, 30u) << "too few queries restrict the bins to test anything";
}

// A searcher plans every query into its last one's plan (PlanQueryInto):
// nothing of that plan is left, field by field the plan is PlanQuery's.
TEST(Planner, APlanReusedForAnotherQueryEqualsANewOne) {
  std::mt19937_64 rng(13);
  SmallIndex small(rng);
  QueryPlan reused;
  for (int k = 0; k < 300; ++k) {
    // Any shape, prefixes too; every third a conjunction of terms (the
    // fast path's plan: and_entries, estimated from the rarest).
    QueryNode q = testing::RandomQuery(rng, 80, 0, 20);
    if (k % 3 == 0) {
      q = QueryNode::And({QueryNode::Term(testing::VocabTerm(rng() % 80)), QueryNode::Term(testing::VocabTerm(rng() % 80))});
    }
    SCOPED_TRACE(q.ToString());
    auto fresh = PlanQuery(q, small.index->global(), SmallIndex::kBins);
    ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
    ASSERT_TRUE(PlanQueryInto(q, small.index->global(), SmallIndex::kBins, kDefaultMaxExpansions, &reused).ok());
    EXPECT_EQ(reused.root.ToString(), fresh->root.ToString());
    EXPECT_EQ(reused.bins, fresh->bins);
    EXPECT_EQ(reused.empty, fresh->empty);
    EXPECT_EQ(reused.pure_and, fresh->pure_and);
    EXPECT_EQ(reused.phrase_and, fresh->phrase_and);
    EXPECT_EQ(reused.and_entries, fresh->and_entries);
    EXPECT_EQ(reused.highlight, fresh->highlight);
    EXPECT_EQ(reused.scored_terms, fresh->scored_terms);
    EXPECT_EQ(reused.phrases, fresh->phrases);
    EXPECT_EQ(reused.phrase_slops, fresh->phrase_slops);
    EXPECT_EQ(reused.snippet_words(), fresh->snippet_words());
    EXPECT_EQ(reused.snippet_prefixes(), fresh->snippet_prefixes());
    EXPECT_EQ(reused.estimated_postings, fresh->estimated_postings);
    ASSERT_EQ(reused.terms.entries.size(), fresh->terms.entries.size());
    for (size_t e = 0; e < fresh->terms.entries.size(); ++e) {
      const auto& [term, info] = fresh->terms.entries[e];
      EXPECT_EQ(reused.terms.entries[e].first, term);
      EXPECT_EQ(reused.terms.entries[e].second.df, info.df);
      EXPECT_EQ(reused.terms.entries[e].second.refs.size(), info.refs.size());
      EXPECT_EQ(reused.terms.Find(term), &reused.terms.entries[e].second) << term;
    }
  }
}

// A conjunction of terms (repeated and absent ones included) lists each
// distinct term once, rarest first, visits exactly the bins every term
// holds, and estimates its cost from the documents' frequencies.
TEST(Planner, ConjunctionsListDistinctTermsRarestFirst) {
  std::mt19937_64 rng(12);
  SmallIndex small(rng);
  std::vector<std::string> vocabulary;
  for (const auto& [term, bins] : small.bins_of_term) vocabulary.push_back(term);
  vocabulary.push_back("zzabsent");
  size_t restricted = 0;
  for (int k = 0; k < 400; ++k) {
    std::vector<QueryNode> terms;
    const size_t n = 1 + rng() % 4;
    for (size_t i = 0; i < n; ++i) terms.push_back(QueryNode::Term(vocabulary[rng() % vocabulary.size()]));
    if (rng() % 5 == 0) terms.push_back(terms.front());  // a repeated term
    const QueryNode q = terms.size() == 1 ? terms[0] : QueryNode::And(terms);
    auto plan = PlanQuery(q, small.index->global(), SmallIndex::kBins);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    ASSERT_TRUE(plan->pure_and) << q.ToString();
    std::set<std::string> distinct;
    for (const auto& t : terms) distinct.insert(t.term);
    ASSERT_EQ(plan->and_entries.size(), distinct.size()) << q.ToString();
    std::set<std::string> listed;
    uint64_t previous_df = 0, sum = 0;
    for (size_t e : plan->and_entries) {
      const auto& [term, info] = plan->terms.entries[e];
      listed.insert(term);
      const uint64_t want_df = small.df.count(term) ? small.df.at(term) : 0;
      EXPECT_EQ(info.df, want_df) << term;
      EXPECT_GE(info.df, previous_df) << "not rarest first: " << q.ToString();
      previous_df = info.df;
      sum += info.df;
    }
    EXPECT_EQ(listed, distinct);
    const BinSet want = ModelBins(q, small.bins_of_term);
    EXPECT_EQ(Values(plan->bins), want) << q.ToString();
    EXPECT_TRUE(std::is_sorted(plan->bins.begin(), plan->bins.end()));
    EXPECT_EQ(plan->empty, want.empty());
    const uint64_t rarest = plan->terms.entries[plan->and_entries[0]].second.df;
    EXPECT_EQ(plan->estimated_postings,
              distinct.size() > 1 ? std::min<uint64_t>(sum, rarest * 32 * distinct.size()) : sum);
    restricted += !want.empty() && want.size() < SmallIndex::kBins;
  }
  EXPECT_GT(restricted, 30u) << "too few conjunctions restrict the bins to test anything";
}

}  // namespace
}  // namespace dps
