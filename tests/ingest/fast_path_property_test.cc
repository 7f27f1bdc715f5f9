// The ASCII fast path must yield exactly ICU's tokens (DESIGN.md). Each
// test draws inputs from fixed seeds and compares an analyzer with the fast
// path against one sending everything through ICU, token for token, and
// the ill-formed-UTF-8 counts. A failure prints the seed, the case and the
// input with every byte outside printable ASCII escaped.
#include <gtest/gtest.h>

#include <random>

#include "ingest/analyzer.h"
#include "ingest/ascii_tokenizer.h"
#include "ingest/icu_segmenter.h"
#include "tests/ingest/sample_corpus.h"

namespace dps {
namespace {

using Tokens = std::vector<std::string>;

std::string Escape(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out + "\"";
}

std::string Escape(const Tokens& tokens) {
  std::string out = "{";
  for (const auto& t : tokens) out += (out.size() > 1 ? ", " : "") + Escape(t);
  return out + "}";
}

std::unique_ptr<Analyzer> MakeAnalyzer(bool fast_path, size_t max_icu_chunk = size_t{1} << 20) {
  auto a = Analyzer::Create(
      AnalyzerOptions{.ascii_fast_path = fast_path, .max_icu_chunk_bytes = max_icu_chunk});
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  return a.ok() ? std::move(a).value() : nullptr;
}

// Compares `subject` with the ICU-only `reference` on one input.
class Comparer {
 public:
  Comparer(Analyzer* subject, Analyzer* reference) : subject_(subject), reference_(reference) {}

  ::testing::AssertionResult Same(std::string_view input) {
    got_.clear();
    want_.clear();
    AnalyzeStats got_stats, want_stats;
    subject_->Analyze(input, &got_, &got_stats);
    reference_->Analyze(input, &want_, &want_stats);
    subject_stats_.ascii_fast_path_bytes += got_stats.ascii_fast_path_bytes;
    subject_stats_.icu_path_bytes += got_stats.icu_path_bytes;
    subject_stats_.forced_icu_cuts += got_stats.forced_icu_cuts;
    ++cases_;
    if (got_stats.forced_icu_cuts > 0) {
      ++forced_;
      return ::testing::AssertionSuccess();  // may differ by design
    }
    if (got_ == want_ && got_stats.invalid_utf8_sequences == want_stats.invalid_utf8_sequences) {
      return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure()
           << "input " << Escape(input) << "\n  fast path: " << Escape(got_)
           << "\n  ICU:       " << Escape(want_)
           << "\n  invalid: " << got_stats.invalid_utf8_sequences << " vs "
           << want_stats.invalid_utf8_sequences;
  }

  const AnalyzeStats& subject_stats() const { return subject_stats_; }
  uint64_t cases() const { return cases_; }
  uint64_t forced() const { return forced_; }

 private:
  Analyzer* subject_;
  Analyzer* reference_;
  Tokens got_, want_;
  AnalyzeStats subject_stats_;
  uint64_t cases_ = 0, forced_ = 0;
};

// ASCII drawn mostly from the characters UAX #29 treats specially.
char RandomAsciiChar(std::mt19937_64& rng) {
  static constexpr std::string_view kMid = ".,'_-:@;\"";
  static constexpr std::string_view kSpace = " \t\n\r\v\f";
  const uint64_t r = rng() % 100;
  if (r < 25)
    return static_cast<char>((rng() % 2 ? 'a' : 'A') + rng() % 3);  // few letters: repeats
  if (r < 30) return static_cast<char>('a' + rng() % 26);
  if (r < 45) return static_cast<char>('0' + rng() % (rng() % 2 ? 3 : 10));
  if (r < 75) return kMid[rng() % kMid.size()];
  if (r < 87) return kSpace[rng() % kSpace.size()];
  if (r < 92) return static_cast<char>(rng() % 2 ? rng() % 0x20 : 0x7F);  // controls
  return static_cast<char>(0x20 + rng() % 0x5F);                          // any printable
}

std::string RandomAscii(std::mt19937_64& rng, size_t max_len) {
  std::string s(rng() % (max_len + 1), '\0');
  for (char& c : s) c = RandomAsciiChar(rng);
  return s;
}

// Non-ASCII pieces chosen to interact with neighbouring ASCII: combining
// marks and ignorables that attach or vanish, characters NFKC folds to
// ASCII punctuation or letters, non-ASCII Mid characters, scripts with
// dictionaries, Hebrew (the Double_Quote rules), emoji sequences,
// whitespace, and ill-formed UTF-8.
constexpr std::string_view kNonAscii[] = {"é",
                                          "É",
                                          "\u0301",
                                          "\u0308",
                                          "\u0338",
                                          "\u00AD",
                                          "\u200D",
                                          "\u200B",
                                          "\u2060",
                                          "\uFE0F",
                                          "\u20E3",
                                          "\u2019",
                                          "\u2018",
                                          "\u00B7",
                                          "\u2027",
                                          "\uFF0E",
                                          "\u2024",
                                          "\uFE52",
                                          "\uFF07",
                                          "\u037E",
                                          "\uFF0C",
                                          "\uFF1A",
                                          "\uFE55",
                                          "Ａ",
                                          "ｚ",
                                          "１",
                                          "ﬁ",
                                          "ß",
                                          "ẞ",
                                          "İ",
                                          "\u212A",
                                          "ſ",
                                          "µ",
                                          "Ω",
                                          "½",
                                          "²",
                                          "①",
                                          "Ⅻ",
                                          "\u0661",
                                          "中",
                                          "文",
                                          "北京大学",
                                          "ภาษาไทย",
                                          "ง่าย",
                                          "の",
                                          "カタカナ",
                                          "ｶﾀ",
                                          "ー",
                                          "한국",
                                          "א",
                                          "ב",
                                          "\u05F3",
                                          "😀",
                                          "👍🏽",
                                          "🇩🇪",
                                          "\u00A0",
                                          "\u3000",
                                          "\u2028",
                                          "\u0085",
                                          "\u1680",
                                          "\u202F",
                                          "\uFFFD",
                                          "\xFF",
                                          "\x80",
                                          "\xE2\x82",
                                          "\xF0\x9F",
                                          "\xC0\xAF",
                                          "\xED\xA0\x80",
                                          "\xF4\x90\x80\x80",
                                          "Σ",
                                          "ς",
                                          "ǅ",
                                          "\u0345",
                                          "\uFDFA"};

constexpr std::string_view kWhitespace[] = {" ",      "\n",     "\t",     "\r\n",   "\u3000",
                                            "\u00A0", "\u2028", "\u0085", "\u1680", "  "};

// `space_percent` of the pieces are whitespace, the rest 70% ASCII.
std::string RandomMixed(std::mt19937_64& rng, size_t max_pieces, int space_percent = 0) {
  std::string s;
  const size_t pieces = rng() % (max_pieces + 1);
  for (size_t i = 0; i < pieces; ++i) {
    if (static_cast<int>(rng() % 100) < space_percent) {
      s += kWhitespace[rng() % std::size(kWhitespace)];
    } else if (rng() % 10 < 7) {
      s += RandomAsciiChar(rng);
    } else {
      s += kNonAscii[rng() % std::size(kNonAscii)];
    }
  }
  return s;
}

std::vector<std::string> BrownLines() {
  std::vector<std::string> lines;
  const std::string dir = testing::SampleCorpusDir();
  if (dir.empty()) return lines;
  for (const auto& doc : testing::ReadSampleCorpus(dir + "/brown.jsonl")) {
    size_t start = 0;
    while (start < doc.text.size()) {
      size_t end = doc.text.find('\n', start);
      if (end == std::string::npos) end = doc.text.size();
      lines.push_back(doc.text.substr(start, end - start));
      start = end + 1;
    }
  }
  return lines;
}

// Brown text is tokenized with spaces around punctuation ("Atlanta's",
// "election ."); glue pieces back together and splice in tricky bytes so
// that real words meet '.', ',', '\'' and each other.
std::string Mutate(std::mt19937_64& rng, std::string line, bool non_ascii) {
  const size_t edits = 1 + rng() % 6;
  for (size_t e = 0; e < edits && !line.empty(); ++e) {
    const size_t at = rng() % line.size();
    switch (rng() % 4) {
      case 0:
        if (line[at] == ' ') line.erase(at, 1);
        break;
      case 1:
        line[at] = RandomAsciiChar(rng);
        break;
      case 2:
        line.insert(at, 1, RandomAsciiChar(rng));
        break;
      default:
        if (non_ascii) line.insert(at, kNonAscii[rng() % std::size(kNonAscii)]);
        break;
    }
  }
  return line;
}

TEST(FastPathProperty, RandomAsciiMatchesIcu) {
  auto fast = MakeAnalyzer(true);
  auto icu = MakeAnalyzer(false);
  ASSERT_TRUE(fast->ascii_fast_path_enabled());
  Comparer cmp(fast.get(), icu.get());
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 50000; ++i) {
      const std::string s = RandomAscii(rng, i % 4 == 0 ? 64 : 12);
      ASSERT_TRUE(cmp.Same(s)) << "seed " << seed << " case " << i;
    }
  }
  EXPECT_EQ(cmp.subject_stats().icu_path_bytes, 0u);
  EXPECT_GT(cmp.subject_stats().ascii_fast_path_bytes, 1'000'000u);
}

// Every string of up to four characters over one representative of each
// class ICU distinguishes among ASCII (ALetter in both cases and '@',
// Numeric, ExtendNumLet, MidNumLet, Single_Quote, MidNum twice, ':',
// Double_Quote, CR, LF, Newline, WSegSpace, Other). UAX #29 decides each
// boundary from at most two characters on either side, so these cover
// every rule window; the random tests cover chains of windows.
TEST(FastPathProperty, AllShortStringsOfClassRepresentativesMatchIcu) {
  static constexpr std::string_view kReps = "aA@1_.',;:\"\r\n\v -\x01\t";
  auto fast = MakeAnalyzer(true);
  auto icu = MakeAnalyzer(false);
  Comparer cmp(fast.get(), icu.get());
  std::string s;
  for (size_t len = 1; len <= 4; ++len) {
    size_t total = 1;
    for (size_t i = 0; i < len; ++i) total *= kReps.size();
    for (size_t n = 0; n < total; ++n) {
      s.clear();
      for (size_t i = 0, k = n; i < len; ++i, k /= kReps.size()) s += kReps[k % kReps.size()];
      ASSERT_TRUE(cmp.Same(s));
    }
  }
  EXPECT_EQ(cmp.subject_stats().icu_path_bytes, 0u);
}

// TokenizeAscii alone (no chunking) against ICU on whole random strings.
TEST(FastPathProperty, AsciiTokenizerMatchesIcuSegmenter) {
  auto segmenter = IcuSegmenter::Create();
  ASSERT_TRUE(segmenter.ok());
  std::mt19937_64 rng(99);
  Tokens fast, icu;
  for (int i = 0; i < 20000; ++i) {
    const std::string s = RandomAscii(rng, 24);
    fast.clear();
    icu.clear();
    uint64_t invalid = 0;
    TokenizeAscii(s, &fast);
    ASSERT_TRUE((*segmenter)->Segment(s, &icu, &invalid));
    ASSERT_EQ(fast, icu) << "case " << i << " input " << Escape(s);
  }
}

TEST(FastPathProperty, BrownLinesAndMutationsMatchIcu) {
  const auto lines = BrownLines();
  if (lines.empty()) GTEST_SKIP() << "no ../shared/corpora/samples/brown.jsonl";
  auto fast = MakeAnalyzer(true);
  auto icu = MakeAnalyzer(false);
  Comparer cmp(fast.get(), icu.get());
  for (size_t i = 0; i < lines.size(); ++i) {
    ASSERT_TRUE(cmp.Same(lines[i])) << "brown line " << i;
  }
  std::mt19937_64 rng(5);
  for (int i = 0; i < 40000; ++i) {
    const std::string s = Mutate(rng, lines[rng() % lines.size()], i % 2 == 1);
    ASSERT_TRUE(cmp.Same(s)) << "seed 5 case " << i;
  }
  EXPECT_GT(cmp.subject_stats().ascii_fast_path_bytes, 10 * cmp.subject_stats().icu_path_bytes);
}

TEST(FastPathProperty, MixedAsciiAndNonAsciiMatchesIcu) {
  auto fast = MakeAnalyzer(true);
  auto icu = MakeAnalyzer(false);
  Comparer cmp(fast.get(), icu.get());
  for (uint64_t seed = 11; seed <= 12; ++seed) {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 60000; ++i) {
      const std::string s = RandomMixed(rng, i % 4 == 0 ? 80 : 16);
      ASSERT_TRUE(cmp.Same(s)) << "seed " << seed << " case " << i;
    }
  }
  // Both paths were exercised, the fast one on a good share of the bytes.
  EXPECT_GT(cmp.subject_stats().ascii_fast_path_bytes, 100'000u);
  EXPECT_GT(cmp.subject_stats().icu_path_bytes, 100'000u);
}

// Whole documents, so that long ASCII stretches, islands and cuts occur as
// in real text.
TEST(FastPathProperty, SampleDocumentsMatchIcu) {
  const std::string dir = testing::SampleCorpusDir();
  if (dir.empty()) GTEST_SKIP() << "no ../shared/corpora/samples";
  auto fast = MakeAnalyzer(true);
  auto icu = MakeAnalyzer(false);
  Comparer cmp(fast.get(), icu.get());
  for (const char* file : {"brown.jsonl", "multilingual.jsonl"}) {
    for (const auto& doc : testing::ReadSampleCorpus(dir + "/" + file)) {
      ASSERT_TRUE(cmp.Same(doc.title + " " + doc.text)) << file << " " << doc.id;
    }
  }
  EXPECT_GT(cmp.subject_stats().ascii_fast_path_bytes, 1'000'000u);
  EXPECT_GT(cmp.subject_stats().icu_path_bytes, 300'000u);
}

// Tiny ICU pieces: every cut before whitespace must be invisible. Inputs
// with no whitespace in a piece's span get a forced cut, which may differ
// and is skipped; most inputs must still be compared.
TEST(FastPathProperty, CutsBeforeWhitespaceMatchIcu) {
  auto reference = MakeAnalyzer(false);
  for (bool fast_path : {false, true}) {
    auto chunked = MakeAnalyzer(fast_path, 32);
    Comparer cmp(chunked.get(), reference.get());
    std::mt19937_64 rng(fast_path ? 21 : 22);
    for (int i = 0; i < 30000; ++i) {
      const std::string s = RandomMixed(rng, 60, 20);
      ASSERT_TRUE(cmp.Same(s)) << "fast path " << fast_path << " seed " << (fast_path ? 21 : 22)
                               << " case " << i;
    }
    EXPECT_LT(cmp.forced(), cmp.cases() / 4);
  }
}

}  // namespace
}  // namespace dps
