// A long document is analyzed a piece at a time (Analyzer::PieceEnd) and
// its terms counted as the pieces come (TermCounter): the terms,
// frequencies and positions must be those of the whole text at once, for
// every analyzer, on random text mixing ASCII, accents, CJK, Thai, every
// ASCII separator and ill-formed UTF-8.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "ingest/analyzer.h"
#include "ingest/term_counter.h"

namespace dps {
namespace {

using Tokens = std::vector<std::string>;
using Terms = std::vector<std::pair<std::string, uint32_t>>;

// Brute force: each distinct token in order of first occurrence, its count
// and its positions.
void Reference(const Tokens& tokens, const std::vector<uint32_t>& at, Terms* terms, std::vector<uint32_t>* positions) {
  std::map<std::string, size_t> index;
  std::vector<std::vector<uint32_t>> where;
  for (size_t i = 0; i < tokens.size(); ++i) {
    auto [it, added] = index.emplace(tokens[i], terms->size());
    if (added) {
      terms->emplace_back(tokens[i], 0);
      where.emplace_back();
    }
    ++(*terms)[it->second].second;
    where[it->second].push_back(at[i]);
  }
  for (const auto& w : where) positions->insert(positions->end(), w.begin(), w.end());
}

std::string RandomText(std::mt19937_64& rng, size_t pieces) {
  static const std::vector<std::string> parts = {
      "the", "The", "kernel", "KERNEL", "naïve", "Straße", "café", "学习", "我们在北京", "ภาษาไทย", "x86_64", "3.14",
      "don't", " ", "  ", "\t", "\n", "\r\n", ",", ".", "-", "\xC3", "\xFF", "\u3000", "e\u0301", " \u0301", "a",
      "b", "c", "zzzzzz", "0", "\xE2\x80\x8B"};
  std::string text;
  std::uniform_int_distribution<size_t> pick(0, parts.size() - 1);
  for (size_t i = 0; i < pieces; ++i) text += parts[pick(rng)];
  return text;
}

TEST(TermCounter, CountsTokensGivenInPiecesAsTheReferenceDoes) {
  std::mt19937_64 rng(21);
  std::uniform_int_distribution<int> word(0, 40);
  for (int round = 0; round < 200; ++round) {
    Tokens all;
    const size_t n = rng() % 3000;
    for (size_t i = 0; i < n; ++i) all.push_back(std::to_string(word(rng) * word(rng)) + "w");
    std::vector<uint32_t> at(n);
    for (size_t i = 0; i < n; ++i) at[i] = static_cast<uint32_t>(i);
    Terms want;
    std::vector<uint32_t> want_positions;
    Reference(all, at, &want, &want_positions);

    TermCounter counter;
    counter.Reset(true, rng() % 64);  // a small table must grow
    for (size_t i = 0; i < n;) {
      const size_t len = std::min<size_t>(n - i, rng() % 50);
      Tokens piece(all.begin() + static_cast<long>(i), all.begin() + static_cast<long>(i + len));
      counter.Add(&piece);
      i += len;
    }
    EXPECT_EQ(counter.tokens(), n);
    Terms got;
    std::vector<uint32_t> got_positions;
    counter.Finish(&got, &got_positions);
    ASSERT_EQ(got, want) << "round " << round;
    ASSERT_EQ(got_positions, want_positions) << "round " << round;
  }
}

TEST(TermCounter, ExplicitPositionsAndNoPositions) {
  TermCounter counter;
  Tokens tokens = {"a", "b", "a", "c", "a"};
  const std::vector<uint32_t> at = {0, 1, 102, 103, 250};
  counter.Reset(true, 2);
  counter.Add(&tokens, &at);
  Terms terms;
  std::vector<uint32_t> positions;
  counter.Finish(&terms, &positions);
  EXPECT_EQ(terms, (Terms{{"a", 3}, {"b", 1}, {"c", 1}}));
  EXPECT_EQ(positions, (std::vector<uint32_t>{0, 102, 250, 1, 103}));

  // The same counter, next document, without positions.
  tokens = {"x", "y", "x"};
  counter.Reset(false, 0);
  counter.Add(&tokens);
  positions.clear();
  counter.Finish(&terms, &positions);
  EXPECT_EQ(terms, (Terms{{"x", 2}, {"y", 1}}));
  EXPECT_TRUE(positions.empty());
}

TEST(Analyzer, PiecesCutAtPieceEndGiveTheTokensOfTheWholeText) {
  for (const char* name : {"icu", "icu stem=english fold-accents", "whitespace"}) {
    for (bool fast_path : {true, false}) {
      auto spec = AnalyzerSpec::Parse(name);
      ASSERT_TRUE(spec.ok()) << name;
      auto analyzer = Analyzer::Create(*spec, AnalyzerOptions{.ascii_fast_path = fast_path});
      ASSERT_TRUE(analyzer.ok()) << name;
      std::mt19937_64 rng(7);
      for (int round = 0; round < 60; ++round) {
        const std::string text = RandomText(rng, 50 + rng() % 2000);
        Tokens whole, pieces;
        AnalyzeStats whole_stats, piece_stats;
        (*analyzer)->Analyze(text, &whole, &whole_stats);
        const size_t min_bytes = 1 + rng() % 64;
        size_t cuts = 0;
        for (std::string_view rest = text; !rest.empty();) {
          const size_t end = Analyzer::PieceEnd(rest, min_bytes);
          ASSERT_GT(end, 0u);
          ASSERT_LE(end, rest.size());
          if (end < rest.size()) ++cuts;
          (*analyzer)->Analyze(rest.substr(0, end), &pieces, &piece_stats);
          rest.remove_prefix(end);
        }
        ASSERT_GT(cuts, 0u) << "the text was never cut";
        ASSERT_EQ(pieces, whole) << name << " fast path " << fast_path << " round " << round;
        EXPECT_EQ(piece_stats.invalid_utf8_sequences, whole_stats.invalid_utf8_sequences);
      }
    }
  }
}

TEST(Analyzer, PieceEndIsAfterWhitespaceBeforeAscii) {
  EXPECT_EQ(Analyzer::PieceEnd("abc def ghi", 2), 4u);
  EXPECT_EQ(Analyzer::PieceEnd("abc def ghi", 5), 8u);
  EXPECT_EQ(Analyzer::PieceEnd("abc \xC3\xA9t\xC3\xA9 x", 2), 10u);  // not before é's lead byte
  EXPECT_EQ(Analyzer::PieceEnd("abcdef", 2), 6u);                     // no whitespace: the whole text
  EXPECT_EQ(Analyzer::PieceEnd("a\tb", 0), 2u);
}

}  // namespace
}  // namespace dps
