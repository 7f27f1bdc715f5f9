#include "query/parser.h"

#include <gtest/gtest.h>

#include <random>

namespace dps {
namespace {

class ParserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto a = Analyzer::Create();
    ASSERT_TRUE(a.ok());
    analyzer_ = std::move(a).value();
  }
  std::string P(const std::string& q) {
    auto r = ParseQuery(q, analyzer_.get());
    return r.ok() ? r->ToString() : "ERROR " + r.status().message();
  }
  std::string G(const std::string& q) {
    auto r = ParseQueryByGrammar(q, analyzer_.get());
    return r.ok() ? r->ToString() : "ERROR " + r.status().message();
  }
  std::unique_ptr<Analyzer> analyzer_;
};

TEST_F(ParserTest, WordsAreAndedAndAnalyzed) {
  EXPECT_EQ(P("white house"), "(white AND house)");
  EXPECT_EQ(P("White-House"), "(white AND house)");  // the analyzer splits it like text
  EXPECT_EQ(P("Straße"), "strasse");
  EXPECT_EQ(P("white AND house"), "(white AND house)");
}

TEST_F(ParserTest, PrecedenceAndGrouping) {
  EXPECT_EQ(P("a b OR c"), "((a AND b) OR c)");
  EXPECT_EQ(P("a (b OR c)"), "(a AND (b OR c))");
  EXPECT_EQ(P("(a OR b) c -d"), "((a OR b) AND c AND -d)");
  EXPECT_EQ(P("a NOT b"), "(a AND -b)");
  EXPECT_EQ(P("a -(b c)"), "(a AND -(b AND c))");
  EXPECT_EQ(P("x-ray"), "(x AND ray)");  // a dash inside a word is not NOT
}

TEST_F(ParserTest, ErrorsNamePositionsAndOnlyNegationsIsAnError) {
  EXPECT_EQ(P(""), "ERROR empty query");
  EXPECT_EQ(P("   "), "ERROR empty query");
  EXPECT_NE(P("-a").find("only negations"), std::string::npos) << P("-a");
  EXPECT_NE(P("NOT a NOT b").find("only negations"), std::string::npos);
  EXPECT_EQ(P("a OR"), "ERROR query syntax error at position 4: OR needs a term after it");
  EXPECT_EQ(P("(a b"), "ERROR query syntax error at position 4: missing ')'");
  EXPECT_EQ(P("a )"), "ERROR query syntax error at position 2: unexpected ')'");
  // A negation needs a positive term in its own AND: an OR branch of only "-b" is refused.
  EXPECT_NE(P("a OR -b").find("only negations"), std::string::npos) << P("a OR -b");
  EXPECT_EQ(P("!!! ..."), "ERROR the query has no searchable words");
}

// ParseQuery reads plain word lists without the grammar; whatever it is
// given, it must build what the grammar builds (or fail the same way).
TEST_F(ParserTest, WordListShortcutAgreesWithTheGrammar) {
  const std::vector<std::string> words = {
      "white", "House", "x-ray", "AND", "OR", "NOT", "ANDROID", "ORE", "NOTE", "and", "or",
      "-a", "a-", "-", "(b", "c)", "()", "!!!", "...", "Straße", "ﬁle", "白宫", "東京タワー",
      "ภาษาไทย", "42", "3.14", "AND-OR", "NOT-", "\tword", "\u00e9t\u00e9", "e\u0301", "🙂", "",
      " ", "\n", "a\rb"};
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string q;
    const size_t n = rng() % 6;
    for (size_t k = 0; k < n; ++k) {
      if (k > 0 || rng() % 4 == 0) q += (rng() % 5 == 0) ? "  " : " ";
      q += words[rng() % words.size()];
    }
    if (rng() % 4 == 0) q += " ";
    ASSERT_EQ(P(q), G(q)) << "query [" << q << "]";
  }
}

}  // namespace
}  // namespace dps
