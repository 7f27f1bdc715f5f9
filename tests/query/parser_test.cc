#include "query/parser.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace dps {
namespace {

class ParserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto a = Analyzer::Create();
    ASSERT_TRUE(a.ok());
    analyzer_ = std::move(a).value();
  }
  // An index with a title field (NAME: is refused for others).
  const FieldSet title_ = FieldSet({"title"});
  std::string P(const std::string& q) {
    auto r = ParseQuery(q, analyzer_.get(), &title_);
    return r.ok() ? r->ToString() : "ERROR " + r.status().message();
  }
  std::string G(const std::string& q) {
    auto r = ParseQueryByGrammar(q, analyzer_.get(), &title_);
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

TEST_F(ParserTest, ErrorsNamePositions) {
  EXPECT_EQ(P(""), "ERROR empty query");
  EXPECT_EQ(P("   "), "ERROR empty query");
  EXPECT_EQ(P("a OR"), "ERROR query syntax error at position 4: OR needs a term after it");
  EXPECT_EQ(P("(a b"), "ERROR query syntax error at position 4: missing ')'");
  EXPECT_EQ(P("a )"), "ERROR query syntax error at position 2: unexpected ')'");
  EXPECT_EQ(P("... ,,,"), "ERROR the query has no searchable words");
}

// Found while writing query_parser_fuzz (its inputs, a few KB at most, are
// too short to reach it): 100,000 nested groups overflowed the stack.
TEST_F(ParserTest, GroupsNestAtMost64Deep) {
  auto nested = [](size_t depth) { return std::string(depth, '(') + "a" + std::string(depth, ')'); };
  EXPECT_EQ(P(nested(kMaxGroupDepth)), "a");
  EXPECT_EQ(P(nested(kMaxGroupDepth + 1)), "ERROR query syntax error at position 64: groups nested more than 64 deep");
  EXPECT_EQ(G(nested(100000)), "ERROR query syntax error at position 64: groups nested more than 64 deep");
  std::string alternating;
  for (int i = 0; i < 100000; ++i) alternating += "(a OR ";
  EXPECT_EQ(P(alternating + "b"), "ERROR query syntax error at position 384: groups nested more than 64 deep");
}

// A negation needs a positive term beside it; the message says where the
// term is missing: the whole query, an OR branch, or under a NOT.
TEST_F(ParserTest, OnlyNegationsSayWhatIsMissingWhere) {
  const std::string e = "ERROR query syntax error at position ";
  const std::string whole = ": a query of only negations matches nothing to subtract from ";
  EXPECT_EQ(P("-a"), e + "0" + whole + "('-a'); add a positive term");
  EXPECT_EQ(P("  -a"), e + "2" + whole + "('-a'); add a positive term");
  EXPECT_EQ(P("NOT a NOT b"), e + "0" + whole + "('NOT a NOT b'); add a positive term");
  EXPECT_EQ(P("NOT (apple OR kiwi)"),
            e + "0" + whole + "('NOT (apple OR kiwi)'); add a positive term");
  EXPECT_EQ(P("(-a) -b"), e + "0" + whole + "('(-a) -b'); add a positive term");
  // `a OR -b` would match almost every document through "-b".
  const std::string branch = "; combine it with a positive term";
  EXPECT_EQ(P("a OR -b"), e + "5: an OR branch cannot be only a negation ('-b')" + branch);
  EXPECT_EQ(P("-b OR a"), e + "0: an OR branch cannot be only a negation ('-b')" + branch);
  EXPECT_EQ(P("a OR -b -c"), e + "5: an OR branch cannot be only negations ('-b -c')" + branch);
  EXPECT_EQ(P("a OR (-c)"), e + "5: an OR branch cannot be only a negation ('(-c)')" + branch);
  EXPECT_EQ(P("a OR NOT (b c)"),
            e + "5: an OR branch cannot be only a negation ('NOT (b c)')" + branch);
  EXPECT_EQ(P("apple -(kiwi OR -banana)"),
            e + "16: an OR branch cannot be only a negation ('-banana')" + branch);
  const std::string twice = " is not supported; write the terms positively";
  EXPECT_EQ(P("apple -(-banana)"), e + "6: a double negation ('-(-banana)')" + twice);
  EXPECT_EQ(P("NOT (NOT a) b"), e + "0: a double negation ('NOT (NOT a)')" + twice);
  // A group of negations beside a positive term is flattened into its AND.
  EXPECT_EQ(P("(-a) b"), "(-a AND b)");
  EXPECT_EQ(P("a (-b -c) OR d"), "((a AND -b AND -c) OR d)");
}

// Other engines' syntax is refused where it starts, never read as words.
TEST_F(ParserTest, UnsupportedSyntaxIsRefusedWithItsPosition) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"(a \"b c", "3: the phrase \"b c has no closing quote"},
      {"don\"t", "3: a quote inside a word (don\"t): a phrase is words in quotes, \"a b\""},
      {"\"a b\"x", "5: a phrase (\"a b\") must end before the next word"},
      {"\"a b\"~", "5: proximity is a phrase then ~N, N a whole number from 0 to 64 (\"a b\"~2)"},
      {"\"a b\"~x", "5: proximity is a phrase then ~N, N a whole number from 0 to 64 (\"a b\"~2)"},
      {"\"a b\"~2x", "5: proximity is a phrase then ~N, N a whole number from 0 to 64 (\"a b\"~2)"},
      {"\"a b\"~65", "5: proximity is a phrase then ~N, N a whole number from 0 to 64 (\"a b\"~2)"},
      {"\"a b\"~99999999999999999999", "5: proximity is a phrase then ~N, N a whole number from 0 to 64 (\"a b\"~2)"},
      {"\"!! ..\"", "0: the phrase \"!! ..\" has no searchable words"},
      {"12:30", "2: ':' inside a word (12:30): a field query is NAME:word, NAME a field of the index"},
      {"note:", "0: the field 'note:' needs a word, a phrase or a group right after its ':'"},
      {"a : b", "2: ':' inside a word (:): a field query is NAME:word, NAME a field of the index"},
      {"a title:b:c", "9: ':' inside a word (b:c): a field query is NAME:word, NAME a field of the index"},
      {"http://example.com/x", "0: unknown field 'http': the index's fields are title; a bare word searches "
                               "title and text"},
      {"kern?l", "4: single-character wildcards (kern?l) are not supported"},
      {"what is linux?", "13: single-character wildcards (linux?) are not supported"},
      {"netw?*", "4: single-character wildcards (netw?*) are not supported"},
      {"a * b", "2: '*' alone is not a query; a prefix query puts * after a word's start (netw*)"},
      {"*work", "0: leading wildcards (*work) are not supported; a prefix query puts * at the end (netw*)"},
      {"-*work", "1: leading wildcards (*work) are not supported; a prefix query puts * at the end (netw*)"},
      {"ne*w", "2: wildcards inside a word (ne*w) are not supported; only a final * makes a prefix query (netw*)"},
      {"netw**", "4: wildcards inside a word (netw**) are not supported; only a final * makes a prefix query (netw*)"},
      {"foo-*", "4: a prefix query needs a letter or digit before its * (foo-*): the analyzer would drop the "
                "punctuation and widen the prefix"},
      {"(c++*)", "4: a prefix query needs a letter or digit before its * (c++*): the analyzer would drop the "
                 "punctuation and widen the prefix"},
      {"kernel^2", "6: boosts (kernel^2) are not supported"},
      {"kernel~", "6: fuzzy queries (kernel~) are not supported; proximity is a phrase then ~N (\"a b\"~2)"},
      {"kernel~2 x", "6: fuzzy queries (kernel~2) are not supported; proximity is a phrase then ~N (\"a b\"~2)"},
      {"a || b", "2: '||' is not an operator: use OR"},
      {"a|b", "1: '|' is not an operator: use OR"},
      {"a && b", "2: '&&' is not an operator: use AND"},
      {"a&&b", "1: '&&' is not an operator: use AND"},
      {"!a", "0: '!' is not an operator: use NOT or -"},
      {"a !b", "2: '!' is not an operator: use NOT or -"},
      {"a (!b)", "3: '!' is not an operator: use NOT or -"},
      {"!(a)", "0: '!' is not an operator: use NOT or -"},
      {"!!!", "0: '!' is not an operator: use NOT or -"},
      {"+kernel linux", "0: '+' is not an operator: every word is required already"},
      {"a +b", "2: '+' is not an operator: every word is required already"},
      {"-+a", "1: '+' is not an operator: every word is required already"},
      {"[a TO b]", "0: '[' is not supported: there are no ranges; group with ( )"},
      {"{a TO b}", "0: '{' is not supported: there are no ranges; group with ( )"},
      {"a]", "1: ']' is not supported: there are no ranges; group with ( )"},
      {"a}", "1: '}' is not supported: there are no ranges; group with ( )"},
      // The first refused byte counts, and comes before grammar errors.
      {"netw* title:ker?el", "15: single-character wildcards (ker?el) are not supported"},
      {"-a \"b c\" d?", "10: single-character wildcards (d?) are not supported"},
      {"a OR ) b?", "8: single-character wildcards (b?) are not supported"},
      // Quoted text stays on one line and short.
      {"\"a\tb\nc", "0: the phrase \"a b c has no closing quote"},
      {std::string(50, 'a') + "?",
       "50: single-character wildcards (" + std::string(40, 'a') + "...) are not supported"},
      {std::string(39, 'a') + "\u00e9?",
       "41: single-character wildcards (" + std::string(39, 'a') + "...) are not supported"},
  };
  for (const auto& [query, message] : refused) {
    const std::string want = "ERROR query syntax error at position " + message;
    EXPECT_EQ(P(query), want) << "query [" << query << "]";
    EXPECT_EQ(G(query), want) << "query [" << query << "]";
  }
}

// Fields: NAME: before a word, phrase, prefix or group makes its terms the
// field's keys (index/field_key.h), shown as NAME:term.
TEST_F(ParserTest, FieldsPrefixTheirTerms) {
  EXPECT_EQ(P("title:kernel"), "title:kernel");
  EXPECT_EQ(P("title:Kernel"), "title:kernel");  // analyzed as any word
  EXPECT_EQ(P("title:Kernel-Panic"), "(title:kernel AND title:panic)");
  EXPECT_EQ(P("title:\"Page Cache\""), "title:\"page cache\"");
  EXPECT_EQ(P("title:\u201cpage cache\u201d x"), "(title:\"page cache\" AND x)");
  EXPECT_EQ(P("title:netw*"), "title:netw*");
  EXPECT_EQ(P("linux (title:kernel)"), "(linux AND title:kernel)");
  EXPECT_EQ(P("-title:x y"), "(-title:x AND y)");
  EXPECT_EQ(P("title:(a OR -b c)"), "(title:a OR (-title:b AND title:c))");
  EXPECT_EQ(P("kernel title:kernel"), "(kernel AND title:kernel)");  // two terms
  // The key itself: the marker byte, the name, ':' and the term.
  auto q = ParseQuery("title:kernel", analyzer_.get(), &title_);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->term, std::string("\xFFtitle:kernel"));
  // An index without fields refuses any, title included.
  auto none = ParseQuery("linux title:kernel", analyzer_.get());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "query syntax error at position 6: unknown field 'title': the index has no "
                                     "fields (ingest --field NAME declares them); a bare word searches title and text");
  // Declared fields, and what stays an error.
  const FieldSet fields({"title", "author", "tags_2"});
  auto F = [&](const std::string& text) {
    auto r = ParseQuery(text, analyzer_.get(), &fields);
    return r.ok() ? r->ToString() : "ERROR " + r.status().message();
  };
  EXPECT_EQ(F("author:Smith tags_2:x"), "(author:smith AND tags_2:x)");
  EXPECT_EQ(F("Author:smith"), "ERROR query syntax error at position 0: unknown field 'Author': the index's fields are "
                               "title, author, tags_2; a bare word searches title and text");
  EXPECT_EQ(F("title:(a author:b)"),
            "ERROR query syntax error at position 9: the field 'author:' is inside the field 'title:'; a term "
            "belongs to one field");
  EXPECT_EQ(F("title:-x y"), "ERROR query syntax error at position 0: the field 'title:' applies to a word, a phrase "
                             "or a group; put a NOT before the field");
  EXPECT_EQ(F("x title: y"),
            "ERROR query syntax error at position 2: the field 'title:' needs a word, a phrase or a group right "
            "after its ':'");
  EXPECT_EQ(F("(x title:)"),
            "ERROR query syntax error at position 3: the field 'title:' needs a word, a phrase or a group right "
            "after its ':'");
  // ToString reads back as the same tree.
  for (const char* text : {"title:\"a b\" -author:c", "(author:x OR title:y*) z"}) {
    auto first = ParseQuery(text, analyzer_.get(), &fields);
    ASSERT_TRUE(first.ok()) << text;
    EXPECT_EQ(F(first->ToString()), first->ToString()) << text;
  }
}

// Proximity: a phrase then ~N (Lucene's sloppy phrase), anywhere a phrase may stand.
TEST_F(ParserTest, ProximityPhrases) {
  EXPECT_EQ(P("\"a b\"~3"), "\"a b\"~3");
  EXPECT_EQ(P("\"a b\"~0"), "\"a b\"");  // slop 0 is the phrase
  EXPECT_EQ(P("x -\"a b c\"~64"), "(x AND -\"a b c\"~64)");
  EXPECT_EQ(P("title:\"a b\"~2 OR (\"c d\"~1)"), "(title:\"a b\"~2 OR \"c d\"~1)");
  EXPECT_EQ(P("\"one\"~5"), "one");  // one word: that word
  auto q = ParseQuery("\"a b\"~7", analyzer_.get());
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->kind, QueryNode::Kind::kPhrase);
  EXPECT_EQ(q->slop, 7u);
  // The text form reads back as the same tree, slop included.
  auto back = ParseQuery(q->ToString(), analyzer_.get());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->slop, 7u);
}

// Phrases: quoted words at consecutive positions, anywhere a term may stand.
TEST_F(ParserTest, PhrasesStandWhereTermsMay) {
  EXPECT_EQ(P("\"file system\""), "\"file system\"");
  EXPECT_EQ(P("kernel \"File  System\" driver"), "(kernel AND \"file system\" AND driver)");
  EXPECT_EQ(P("linux -\"module printk\""), "(linux AND -\"module printk\")");
  EXPECT_EQ(P("\"a b\" OR (c \"d e f\")"), "(\"a b\" OR (c AND \"d e f\"))");
  EXPECT_EQ(P("\u201cfile system\u201d \u201efile\""), "(\"file system\" AND file)");
  EXPECT_EQ(P("\"one\""), "one");              // a one-word phrase is the word
  EXPECT_EQ(P("\"x-ray tube\""), "\"x ray tube\"");  // the words as analyzed
  EXPECT_EQ(P("\"a a\""), "\"a a\"");          // repeats are kept
  EXPECT_EQ(P("-\"module printk\""),
            "ERROR query syntax error at position 0: a query of only negations matches nothing to subtract "
            "from ('-\"module printk\"'); add a positive term");
  std::string long_phrase = "\"";
  for (size_t i = 0; i <= kMaxPhraseWords; ++i) long_phrase += "w ";
  long_phrase += "\"";
  EXPECT_EQ(P(long_phrase).rfind("ERROR query syntax error at position 0: the phrase", 0), 0u) << P(long_phrase);
}

// `word*` is a prefix query wherever a term may stand; the text before
// the '*' is analyzed as a query word is (case folding, NFKC) and must be
// one term.
TEST_F(ParserTest, PrefixQueries) {
  const std::vector<std::pair<std::string, std::string>> accepted = {
      {"netw*", "netw*"},
      {"NETW*", "netw*"},
      {"\ufb01le*", "file*"},  // NFKC: the ligature is two letters
      {"\u00c9t\u00e9*", "\u00e9t\u00e9*"},
      {"e\u0301*", "\u00e9*"},  // a combining accent before the '*'
      {"Stra\u00dfe*", "strasse*"},
      {"AND*", "and*"},  // not the operator
      {"e.g*", "e.g*"},
      {"white netw*", "(white AND netw*)"},
      {"-netw* kernel", "(-netw* AND kernel)"},
      {"kernel NOT netw*", "(kernel AND -netw*)"},
      {"kernel OR netw*", "(kernel OR netw*)"},
      {"(netw* OR kern*) -foo*", "((netw* OR kern*) AND -foo*)"},
      {"a -(b* c*)", "(a AND -(b* AND c*))"},
      {"(netw*)", "netw*"},
      {"x AND y*", "(x AND y*)"},
  };
  for (const auto& [query, tree] : accepted) {
    EXPECT_EQ(P(query), tree) << "query [" << query << "]";
    EXPECT_EQ(G(query), tree) << "query [" << query << "]";
    // The tree's text reads back as the same tree (tests print and reparse).
    EXPECT_EQ(P(P(query)), tree) << "query [" << query << "]";
  }
  const std::string e = "ERROR query syntax error at position ";
  EXPECT_EQ(P("foo-b*"), e + "0: a prefix query must be one word after analysis: 'foo-b*' is 2 (foo, b)");
  EXPECT_EQ(P("a x-ray*"), e + "2: a prefix query must be one word after analysis: 'x-ray*' is 2 (x, ray)");
  EXPECT_EQ(P("a \U0001F642*"), e + "2: the prefix query '\U0001F642*' has no searchable characters");
  EXPECT_EQ(P("-netw*"), e + "0: a query of only negations matches nothing to subtract from ('-netw*'); add a "
                             "positive term");
  EXPECT_EQ(P("a OR -b*"), e + "5: an OR branch cannot be only a negation ('-b*'); combine it with a positive term");
}

// Punctuation that is no operator anywhere stays text for the analyzer,
// which reads it as it reads documents.
TEST_F(ParserTest, OtherPunctuationIsText) {
  const std::vector<std::pair<std::string, std::string>> text = {
      {"don't", "don't"},
      {"l\u2019homme", "l\u2019homme"},
      {"e.g.", "e.g"},
      {"c++", "c"},
      {"C#", "c"},
      {"R&D", "(r AND d)"},
      {"wow!", "wow"},
      {"Yahoo! mail", "(yahoo AND mail)"},
      {"I/O", "(i AND o)"},
      {"foo@bar.com", "foo@bar.com"},
      {"x--y", "(x AND y)"},
      {"e\u201fx", "(e AND x)"},  // U+201F is no quote the lexer refuses
  };
  for (const auto& [query, tree] : text) {
    EXPECT_EQ(P(query), tree) << "query [" << query << "]";
    EXPECT_EQ(G(query), tree) << "query [" << query << "]";
  }
}

// A lone '-' or '&' would analyze to nothing and vanish (`jury - grand`
// would quietly be `jury grand`): both are refused where they stand.
TEST_F(ParserTest, LoneOperatorCharactersAreRefused) {
  const std::string dash = "'-' must touch the term it negates (-term); this one negates nothing";
  const std::string amp = "'&' is not an operator: use AND";
  for (const auto& [query, want] : std::vector<std::pair<std::string, std::string>>{
           {"a - b", "position 2: " + dash},
           {"jury -", "position 5: " + dash},
           {"a -- b", "position 3: " + dash},
           {"jury & grand", "position 5: " + amp},
           {"jury &", "position 5: " + amp},
           {"&& x", "position 0: '&&' is not an operator: use AND"}}) {
    EXPECT_EQ(P(query), "ERROR query syntax error at " + want) << "query [" << query << "]";
    EXPECT_EQ(G(query), "ERROR query syntax error at " + want) << "query [" << query << "]";
  }
}

// ParseQuery reads plain word lists without the grammar; whatever it is
// given, it must build what the grammar builds (or fail the same way).
TEST_F(ParserTest, WordListShortcutAgreesWithTheGrammar) {
  const std::vector<std::string> words = {
      "white",   "House",  "x-ray",  "AND",  "OR",         "NOT",
      "ANDROID", "ORE",    "NOTE",   "and",  "or",         "-a",
      "a-",      "-",      "(b",     "c)",   "()",         "!!!",
      "...",     "Straße", "ﬁle",    "白宫", "東京タワー", "ภาษาไทย",
      "42",      "3.14",   "AND-OR", "NOT-", "\tword",     "\u00e9t\u00e9",
      "e\u0301", "🙂",   "",       " ",    "\n",         "a\rb",
      "R&D",     "&",      "a!",     "c++",  "\xE2\x80",   "e\u201fx",
      "don't",   "e.g.",    "netw*",  "X*",   "-ab*",       "white*",
      "title:kernel", "-title:x", "title:\"a b\"", "title:ab*", "title:(a OR b)"};
  // Other engines' syntax, which both must refuse alike.
  const std::vector<std::string> refused_words = {
      "x\"file", "system\"", "\"",  "a:b",          "12:30",   ":",
      "kern?l", "?",        "*",   "^2",           "a^2",     "~",     "a~2",     "ne*w",  "*x",
      "x-*",
      "||",     "|",        "a|b", "&&",           "a&&b",    "!",     "!a",
      "!!!",    "+a",       "+",   "[a",           "b]",      "{",     "}",
      "-\"a",   "-+a",      "-!a", "\u201cx",      "y\u201d", "\u201e", "\"a b\"x"};
  std::mt19937_64 rng(11);
  int refused = 0, accepted = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    std::string q;
    const size_t n = rng() % 6;
    for (size_t k = 0; k < n; ++k) {
      if (k > 0 || rng() % 4 == 0) q += (rng() % 5 == 0) ? "  " : " ";
      q += rng() % 6 == 0 ? refused_words[rng() % refused_words.size()]
                          : words[rng() % words.size()];
    }
    if (rng() % 4 == 0) q += " ";
    const std::string p = P(q);
    ASSERT_EQ(p, G(q)) << "query [" << q << "]";
    refused += p.find("not supported") != std::string::npos ||
               p.find("not an operator") != std::string::npos || p.find("quote") != std::string::npos ||
               p.find("phrase") != std::string::npos;
    accepted += p.rfind("ERROR", 0) != 0;
  }
  // Both kinds of query are drawn often.
  EXPECT_GT(refused, 800);
  EXPECT_GT(accepted, 800);
}

// Real query sets (../shared/corpora/queries, as tests/corpora reads them)
// stay answerable: no query is refused, and each phrase set's queries
// hold a phrase.
TEST_F(ParserTest, SharedQuerySetsAreAccepted) {
  const char* shared = std::getenv("DPS_SHARED");
  const std::filesystem::path dir =
      std::filesystem::path(shared != nullptr ? shared : DPS_SOURCE_DIR "/../shared") /
      "corpora/queries";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  size_t sets = 0, and_queries = 0, phrase_queries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".tsv") continue;
    ++sets;
    const bool phrases = entry.path().stem().extension() == ".phrases";
    std::ifstream in(entry.path());
    std::string line;
    for (size_t n = 1; std::getline(in, line); ++n) {
      // id<TAB>query<TAB>expected count
      const size_t tab = line.find('\t');
      ASSERT_NE(tab, std::string::npos) << entry.path() << ":" << n;
      const std::string query = line.substr(tab + 1, line.find('\t', tab + 1) - tab - 1);
      const std::string got = P(query);
      ASSERT_EQ(got, G(query)) << entry.path() << ":" << n;
      EXPECT_EQ(got.rfind("ERROR", 0), std::string::npos) << entry.path() << ":" << n << " " << got;
      if (phrases) {
        ++phrase_queries;
        // A phrase of two or more distinct analyzed words shows as one.
        if (query.find(' ', query.find('"')) < query.find('"', query.find('"') + 1)) {
          EXPECT_NE(got.find('"'), std::string::npos) << entry.path() << ":" << n << " " << got;
        }
      } else {
        ++and_queries;
      }
    }
  }
  EXPECT_GE(sets, 4u);
  EXPECT_GE(and_queries, 4000u);
  EXPECT_GT(phrase_queries, 0u);
}

}  // namespace
}  // namespace dps
