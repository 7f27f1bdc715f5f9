// Prefix expansion (index/prefix_expansion.h) and its planning: the tree a
// prefix becomes, what matches nothing, the cap and its message, and the
// plan's terms, each checked against the index's own dictionary.
#include "index/prefix_expansion.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "index/index_reader.h"
#include "index/index_writer.h"
#include "index/query_plan.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

// "a17" (not "a" + ...: GCC 12 -Wrestrict false positive).
std::string Numbered(char c, size_t i) {
  std::string s = std::to_string(i);
  s.insert(s.begin(), c);
  return s;
}

// Documents holding net, netball, network, networks, kernel, apple (and
// a0..a29: a* has 30 terms, past a TermTable's linear search).
class PrefixExpansion : public ::testing::Test {
 protected:
  void SetUp() override {
    IndexOptions options;
    options.bins = 4;
    options.tablets = 2;
    auto writer = IndexWriter::Open(dir_.path(), options);
    ASSERT_TRUE(writer.ok());
    std::vector<testing::ModelDoc> docs;
    const std::vector<std::string> words = {"net", "netball", "network", "networks", "kernel", "apple"};
    for (size_t i = 0; i < 40; ++i) {
      testing::ModelDoc d;
      d.id = Numbered('d', i);
      d.terms[words[i % words.size()]] = 1 + static_cast<uint32_t>(i % 3);
      d.terms[Numbered('a', i % 30)] = 1;
      docs.push_back(d);
    }
    ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs)).ok());
    auto r = IndexReader::Open(dir_.path());
    ASSERT_TRUE(r.ok());
    index_ = std::move(r).value();
  }

  // The expanded tree's text, or the error.
  std::string Expand(QueryNode q, uint64_t cap = kDefaultMaxExpansions) {
    KnownTerms found;
    const Status s = ExpandPrefixes(&q, *index_->global(), cap, &found);
    if (!s.ok()) return "ERROR " + s.message();
    EXPECT_FALSE(HasPrefix(q)) << q.ToString();
    EXPECT_TRUE(ValidateQuery(q).ok()) << q.ToString();
    // Every expansion's entry is the global index's own.
    for (size_t i = 0; i < found.size(); ++i) {
      const auto& [term, info] = found.entry(i);
      bool exists = false;
      GlobalTermInfo want;
      EXPECT_TRUE(index_->global()->Lookup(term, &exists, &want).ok());
      EXPECT_TRUE(exists) << term;
      EXPECT_EQ(info.df, want.df) << term;
      EXPECT_EQ(info.refs.size(), want.refs.size()) << term;
    }
    return q.ToString();
  }

  testing::TempDir dir_;
  std::unique_ptr<IndexReader> index_;
};

using Q = QueryNode;

TEST_F(PrefixExpansion, APrefixBecomesTheOrOfItsTermsInTermOrder) {
  EXPECT_EQ(Expand(Q::Prefix("netw")), "(network OR networks)");
  EXPECT_EQ(Expand(Q::Prefix("net")), "(net OR netball OR network OR networks)");
  EXPECT_EQ(Expand(Q::Prefix("networks")), "networks");  // one term: the term alone
  EXPECT_EQ(Expand(Q::Prefix("kern")), "kernel");
  EXPECT_EQ(Expand(Q::And({Q::Term("apple"), Q::Prefix("netw", true)})), "(apple AND -(network OR networks))");
  EXPECT_EQ(Expand(Q::And({Q::Term("apple"), Q::Prefix("netb", true)})), "(apple AND -netball)");
  // ORs of ORs are flattened (the MaxScore shape: an OR of terms).
  EXPECT_EQ(Expand(Q::Or({Q::Term("apple"), Q::Prefix("netw")})), "(apple OR network OR networks)");
  EXPECT_EQ(Expand(Q::Or({Q::Prefix("netw"), Q::Prefix("netb")})), "(network OR networks OR netball)");
  // Without prefixes the tree is untouched.
  EXPECT_EQ(Expand(Q::And({Q::Term("x"), Q::Or({Q::Term("y"), Q::Term("z")})})), "(x AND (y OR z))");
}

// A prefix no term starts with becomes itself as a term: no term starts
// with it, so no document holds it, and it matches (and scores) nothing
// as an absent word does; planning then treats it as one.
TEST_F(PrefixExpansion, APrefixOfNoTermMatchesNothing) {
  EXPECT_EQ(Expand(Q::Prefix("zz")), "zz");
  EXPECT_EQ(Expand(Q::Prefix("networkss")), "networkss");
  EXPECT_EQ(Expand(Q::And({Q::Term("apple"), Q::Prefix("zz", true)})), "(apple AND -zz)");
  bool found = true;
  GlobalTermInfo info;
  ASSERT_TRUE(index_->global()->Lookup("networkss", &found, &info).ok());
  EXPECT_FALSE(found);
  auto plan = [&](const QueryNode& q) {
    auto p = PlanQuery(q, index_->global(), index_->bins());
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    return std::move(p).value();
  };
  EXPECT_TRUE(plan(Q::Prefix("zz")).empty);
  EXPECT_TRUE(plan(Q::And({Q::Term("apple"), Q::Prefix("zz")})).empty);  // required
  const QueryPlan apple = plan(Q::Term("apple"));
  ASSERT_FALSE(apple.bins.empty());
  EXPECT_EQ(plan(Q::And({Q::Term("apple"), Q::Prefix("zz", true)})).bins, apple.bins);  // subtracts nothing
  EXPECT_EQ(plan(Q::Or({Q::Term("apple"), Q::Prefix("zz")})).bins, apple.bins);  // adds nothing
  EXPECT_TRUE(plan(Q::Or({Q::Prefix("yy"), Q::Prefix("zz")})).empty);
}

TEST_F(PrefixExpansion, TheCapRefusesWithTheCountItWouldNeed) {
  std::set<std::string> a_terms = {"apple"};  // a* in term order: a0, a1, a10, ..., a9, apple
  for (size_t i = 0; i < 30; ++i) a_terms.insert(Numbered('a', i));
  std::string a_or;
  for (const auto& t : a_terms) a_or += (a_or.empty() ? "(" : " OR ") + t;
  EXPECT_EQ(Expand(Q::Prefix("a"), 31), a_or + ")");
  EXPECT_EQ(Expand(Q::Prefix("net"), 4), "(net OR netball OR network OR networks)");  // exactly the cap
  EXPECT_EQ(Expand(Q::Prefix("net"), 3),
            "ERROR prefix 'net*' expands to 4 terms, more than --max-expansions 3; raise --max-expansions to 4 "
            "to run it");
  // Every prefix is counted, also past the cap and after one matching nothing.
  EXPECT_EQ(Expand(Q::And({Q::Prefix("zz"), Q::Prefix("a"), Q::Prefix("netw")}), 2),
            "ERROR the query's prefixes expand to 33 terms (zz* 0, a* 31, netw* 2), more than --max-expansions 2; "
            "raise --max-expansions to 33 to run it");
  EXPECT_EQ(Expand(Q::Or({Q::Prefix("netw"), Q::Prefix("net")}), 6), "(network OR networks OR net OR netball OR "
                                                                      "network OR networks)");
  EXPECT_EQ(Expand(Q::Or({Q::Prefix("netw"), Q::Prefix("net")}), 5),
            "ERROR the query's prefixes expand to 6 terms (netw* 2, net* 4), more than --max-expansions 5; raise "
            "--max-expansions to 6 to run it");
}

// The plan of a query with prefixes: the expanded tree, its positive terms
// with their global entries in the same order (scores add in that order),
// the words and prefixes snippets mark, an empty plan when it matches
// nothing.
TEST_F(PrefixExpansion, PlansHoldTheExpansions) {
  const QueryNode q = Q::And({Q::Prefix("net"), Q::Term("kernel"), Q::Prefix("a2", true)});
  auto plan = PlanQuery(q, index_->global(), index_->bins(), 100);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->root.ToString(),
            "((net OR netball OR network OR networks) AND kernel AND -(a2 OR a20 OR a21 OR a22 OR a23 OR a24 OR a25 OR "
            "a26 OR a27 OR a28 OR a29))");
  EXPECT_EQ(plan->highlight, (std::vector<std::string>{"net", "netball", "network", "networks", "kernel"}));
  ASSERT_GE(plan->terms.entries.size(), plan->highlight.size());
  for (size_t h = 0; h < plan->highlight.size(); ++h) EXPECT_EQ(plan->terms.entries[h].first, plan->highlight[h]);
  ASSERT_NE(plan->terms.Find("a25"), nullptr);  // negated terms are looked up too
  EXPECT_GT(plan->terms.Find("a25")->df, 0u);
  EXPECT_EQ(plan->snippet_words(), std::vector<std::string>{"kernel"});
  EXPECT_EQ(plan->snippet_prefixes(), std::vector<std::string>{"net"});
  EXPECT_FALSE(plan->empty);

  auto over = PlanQuery(Q::Prefix("net"), index_->global(), index_->bins(), 3);
  EXPECT_TRUE(over.status().IsInvalidArgument()) << over.status().ToString();
  // A plan without prefixes marks its highlight terms.
  auto plain = PlanQuery(Q::Term("kernel"), index_->global(), index_->bins());
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->snippet_words(), std::vector<std::string>{"kernel"});
  EXPECT_TRUE(plain->snippet_prefixes().empty());
}

// Iterators are built from expanded trees only; a prefix reaching them is
// an error, never read as a term.
TEST_F(PrefixExpansion, UnexpandedPrefixesAreRefusedBelowThePlanner) {
  TermTable table;
  EXPECT_TRUE(LookupTerms(index_->global(), Q::Prefix("net"), &table).IsInvalidArgument());
  auto it = BuildIterator(index_->TabletOf(BinId{0}), BinId{0}, Q::Prefix("net"), table);
  EXPECT_TRUE(it.status().IsInvalidArgument());
  EXPECT_EQ(ValidateQuery(Q::Prefix("")).message(), "empty prefix");
}

}  // namespace
}  // namespace dps
