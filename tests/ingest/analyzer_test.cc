// Exact token lists for the analyzer's fixed behaviour (DESIGN.md,
// "Analysis"): NFKC_Casefold, ICU word segmentation with dictionaries,
// only word/number/kana/ideograph segments, ill-formed UTF-8 replaced and
// counted. Every case runs with the ASCII fast path on and off; the lists
// are what ICU 72 produces (dictionary splits can move with ICU's data).
#include "ingest/analyzer.h"

#include <gtest/gtest.h>
#include <unicode/normalizer2.h>
#include <unicode/uscript.h>

#include <random>

#include "tests/ingest/sample_corpus.h"

namespace dps {
namespace {

using Tokens = std::vector<std::string>;

class AnalyzerTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    auto analyzer = Analyzer::Create(AnalyzerOptions{.ascii_fast_path = GetParam()});
    ASSERT_TRUE(analyzer.ok()) << analyzer.status().ToString();
    analyzer_ = std::move(analyzer).value();
    ASSERT_EQ(analyzer_->ascii_fast_path_enabled(), GetParam());
  }

  Tokens Analyze(std::string_view text) {
    Tokens tokens;
    analyzer_->Analyze(text, &tokens, &stats_);
    return tokens;
  }

  std::unique_ptr<Analyzer> analyzer_;
  AnalyzeStats stats_;
};

INSTANTIATE_TEST_SUITE_P(FastPath, AnalyzerTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "AsciiFastPath" : "IcuOnly"; });

TEST_P(AnalyzerTest, EmptyAndSeparatorOnlyInput) {
  EXPECT_EQ(Analyze(""), Tokens{});
  EXPECT_EQ(Analyze(" \t\r\n"), Tokens{});
  EXPECT_EQ(Analyze("... -- !? \"\" ()"), Tokens{});
  EXPECT_EQ(stats_.invalid_utf8_sequences, 0u);
}

TEST_P(AnalyzerTest, EnglishWordsNumbersAndUax29Joins) {
  EXPECT_EQ(
      Analyze("It costs 3.14 or 1,000 in 2024; don't foo_bar a.b"),
      (Tokens{"it", "costs", "3.14", "or", "1,000", "in", "2024", "don't", "foo_bar", "a.b"}));
  // '-' ':' '/' '$' '%' '#' '+' split; '.' between letters and digits
  // joins; ICU 72 treats '@' as a letter (e-mail addresses stay whole).
  EXPECT_EQ(Analyze("U.S.A. e.g. v1.2.3 $100 -5 +7 1e10 0x1F 50% #1 C++ C# .NET"),
            (Tokens{"u.s.a", "e.g", "v1.2.3", "100", "5", "7", "1e10", "0x1f", "50", "1", "c", "c",
                    "net"}));
  EXPECT_EQ(Analyze("e-mail: Foo@Bar.com http://example.com/a_b?c=d"),
            (Tokens{"e", "mail", "foo@bar.com", "http", "example.com", "a_b", "c", "d"}));
  EXPECT_EQ(Analyze("a:b 1;2 a;b 1.a _ __ x_"),
            (Tokens{"a", "b", "1;2", "a", "b", "1", "a", "__", "x_"}));
}

TEST_P(AnalyzerTest, ChineseUsesDictionarySegmentation) {
  // Several words: neither one token nor one token per character.
  EXPECT_EQ(Analyze("我们在北京大学学习"), (Tokens{"我们", "在", "北京", "大学", "学习"}));
  EXPECT_EQ(Analyze("中华人民共和国成立了"), (Tokens{"中华", "人民", "共和国", "成立", "了"}));
  // Full-width punctuation is dropped (NFKC makes '，' a ',').
  EXPECT_EQ(Analyze("万事俱备，只欠东风。"), (Tokens{"万事", "俱", "备", "只", "欠", "东风"}));
}

TEST_P(AnalyzerTest, JapaneseKanjiKanaMixSplits) {
  EXPECT_EQ(Analyze("日本語のテキストです"), (Tokens{"日本語", "の", "テキスト", "です"}));
  EXPECT_EQ(Analyze("東京都に住んでいます"),
            (Tokens{"東京", "都", "に", "住", "んで", "い", "ます"}));
  // Half-width katakana folds to full width.
  EXPECT_EQ(Analyze("ｶﾀｶﾅ"), (Tokens{"カタカナ"}));
}

TEST_P(AnalyzerTest, ThaiUsesDictionarySegmentation) {
  EXPECT_EQ(Analyze("ภาษาไทยง่ายนิดเดียว"), (Tokens{"ภาษา", "ไทย", "ง่าย", "นิด", "เดียว"}));
  EXPECT_EQ(Analyze("สวัสดีครับ"), (Tokens{"สวัสดี", "ครับ"}));
}

TEST_P(AnalyzerTest, OtherScripts) {
  EXPECT_EQ(Analyze("Привет, Мир!"), (Tokens{"привет", "мир"}));
  EXPECT_EQ(Analyze("unicode - универсальный набор символов"),
            (Tokens{"unicode", "универсальный", "набор", "символов"}));
  EXPECT_EQ(Analyze("مرحبا بالعالم"), (Tokens{"مرحبا", "بالعالم"}));
  EXPECT_EQ(Analyze("한국어 텍스트"), (Tokens{"한국어", "텍스트"}));
  // Case folding, not lower-casing: final sigma folds to σ.
  EXPECT_EQ(Analyze("ΣΊΣΥΦΟΣ"), (Tokens{"σίσυφοσ"}));
}

TEST_P(AnalyzerTest, CaseFoldingAndCompatibilityMappings) {
  EXPECT_EQ(Analyze("Straße STRASSE Maß"), (Tokens{"strasse", "strasse", "mass"}));
  EXPECT_EQ(Analyze("ﬁne ﬂower"), (Tokens{"fine", "flower"}));
  EXPECT_EQ(Analyze("ＡＢＣ ｄｅｆ １２３"), (Tokens{"abc", "def", "123"}));
  EXPECT_EQ(Analyze("x² ½ ① ™ ㎏ K"), (Tokens{"x2", "1⁄2", "1", "tm", "kg", "k"}));  // K is U+212A
  EXPECT_EQ(Analyze("İstanbul"), (Tokens{"i̇stanbul"}));  // i + U+0307, as Unicode folds it
}

TEST_P(AnalyzerTest, AccentedLatinKeepsAccentsAndMatchesAcrossForms) {
  EXPECT_EQ(Analyze("Café CAFÉ café"), (Tokens{"café", "café", "café"}));
  // É, é and e + U+0301 (decomposed) are one term.
  EXPECT_EQ(Analyze("\u00C9"), Analyze("\u00E9"));
  EXPECT_EQ(Analyze("e\u0301"), (Tokens{"\u00E9"}));
  EXPECT_EQ(Analyze("Ünïcödé naïve résumé"), (Tokens{"ünïcödé", "naïve", "résumé"}));
}

TEST_P(AnalyzerTest, PunctuationSymbolsAndEmojiAreNotTokens) {
  EXPECT_EQ(Analyze("Hello, world! 😀 👍🏽 ♥ — … «quoted» 🇩🇪"),
            (Tokens{"hello", "world", "quoted"}));
  // A soft hyphen is default-ignorable: NFKC_Casefold removes it.
  EXPECT_EQ(Analyze("co\u00ADoperate"), (Tokens{"cooperate"}));
}

TEST_P(AnalyzerTest, IllFormedUtf8IsReplacedAndCounted) {
  // FF, truncated E2 82, overlong C0 AF (two subparts): four U+FFFD, which
  // are not word characters.
  EXPECT_EQ(Analyze("a\xFF"
                    "b \xE2\x82 c\xC0\xAF"),
            (Tokens{"a", "b", "c"}));
  EXPECT_EQ(stats_.invalid_utf8_sequences, 4u);
  EXPECT_EQ(Analyze("caf\xC3"), (Tokens{"caf"}));
  EXPECT_EQ(Analyze("\xED\xA0\x80"), Tokens{});  // a surrogate: 3 subparts
  EXPECT_EQ(stats_.invalid_utf8_sequences, 8u);
}

TEST_P(AnalyzerTest, RandomBytesNeverCrashAndCountLikeSanitize) {
  std::mt19937_64 rng(7);
  Tokens tokens;
  for (int i = 0; i < 3000; ++i) {
    std::string bytes(rng() % 64, '\0');
    for (char& c : bytes)
      c = static_cast<char>(rng() % 4 == 0 ? rng() % 0x80 : 0x80 + rng() % 0x80);
    uint64_t replaced = 0;
    const std::string sanitized = SanitizeUtf8(bytes, &replaced);
    AnalyzeStats stats;
    tokens.clear();
    analyzer_->Analyze(bytes, &tokens, &stats);
    ASSERT_EQ(stats.invalid_utf8_sequences, replaced) << i;
    // Sanitizing first changes nothing but the count.
    Tokens again;
    AnalyzeStats clean;
    analyzer_->Analyze(sanitized, &again, &clean);
    ASSERT_EQ(tokens, again) << i;
    ASSERT_EQ(clean.invalid_utf8_sequences, 0u);
  }
}

TEST_P(AnalyzerTest, AppendsToExistingTokensAndAccumulatesStats) {
  Tokens tokens = {"keep"};
  AnalyzeStats stats;
  analyzer_->Analyze("one", &tokens, &stats);
  analyzer_->Analyze("deux trois", &tokens, &stats);
  analyzer_->Analyze("über", &tokens, nullptr);
  EXPECT_EQ(tokens, (Tokens{"keep", "one", "deux", "trois", "über"}));
  EXPECT_EQ(stats.ascii_fast_path_bytes + stats.icu_path_bytes, 13u);
}

TEST(Analyzer, ReportsTheIcuVersionTermsDependOn) {
  const std::string version = Analyzer::IcuVersion();
  EXPECT_TRUE(version.starts_with("ICU ")) << version;
  EXPECT_NE(version.find(", Unicode "), std::string::npos) << version;
}

TEST(Analyzer, MostlyEnglishTextTakesTheFastPathAroundOneAccentedWord) {
  auto analyzer = Analyzer::Create();
  ASSERT_TRUE(analyzer.ok());
  Tokens tokens;
  AnalyzeStats stats;
  const std::string text =
      "The committee met on Friday and the chairman said the naïve plan had been "
      "dropped after a long debate about costs, schedules and the 2024 budget.";
  (*analyzer)->Analyze(text, &tokens, &stats);
  EXPECT_EQ(tokens, (Tokens{"the",       "committee", "met", "on",    "friday", "and",   "the",
                            "chairman",  "said",      "the", "naïve", "plan",   "had",   "been",
                            "dropped",   "after",     "a",   "long",  "debate", "about", "costs",
                            "schedules", "and",       "the", "2024",  "budget"}));
  // ICU sees "naïve " only: the stretch between the separators around it.
  EXPECT_EQ(stats.icu_path_bytes, std::string_view("naïve ").size());
  EXPECT_EQ(stats.ascii_fast_path_bytes, text.size() - stats.icu_path_bytes);
}

TEST(Analyzer, LongStretchesAreCutBeforeWhitespaceWithoutChangingTokens) {
  AnalyzerOptions small{.ascii_fast_path = false, .max_icu_chunk_bytes = 64};
  auto chunked = Analyzer::Create(small);
  auto whole = Analyzer::Create(AnalyzerOptions{.ascii_fast_path = false});
  ASSERT_TRUE(chunked.ok() && whole.ok());
  std::string text;
  for (int i = 0; i < 200; ++i) text += "我们在北京大学学习 Straße\u3000ภาษาไทยง่ายนิดเดียว\n";
  Tokens a, b;
  AnalyzeStats sa, sb;
  (*chunked)->Analyze(text, &a, &sa);
  (*whole)->Analyze(text, &b, &sb);
  EXPECT_EQ(a, b);
  EXPECT_EQ(sa.forced_icu_cuts, 0u);
  // Without any whitespace the cut is forced (and counted) but safe.
  std::string han;
  for (int i = 0; i < 1000; ++i) han += "学";
  a.clear();
  sa = {};
  (*chunked)->Analyze(han, &a, &sa);
  EXPECT_GT(sa.forced_icu_cuts, 0u);
  EXPECT_FALSE(a.empty());
}

// The multilingual sample: every token is non-empty, well-formed and
// already folded; Chinese and Japanese documents mix one-character and
// multi-character words (dictionary segmentation, not runs or characters).
TEST(Analyzer, MultilingualSampleTokensAreFoldedWords) {
  const std::string dir = testing::SampleCorpusDir();
  if (dir.empty()) GTEST_SKIP() << "no ../shared/corpora/samples";
  auto docs = testing::ReadSampleCorpus(dir + "/multilingual.jsonl");
  ASSERT_FALSE(docs.empty());
  auto analyzer = Analyzer::Create();
  ASSERT_TRUE(analyzer.ok());
  UErrorCode code = U_ZERO_ERROR;
  const icu::Normalizer2* nfkc_cf = icu::Normalizer2::getNFKCCasefoldInstance(code);
  ASSERT_TRUE(U_SUCCESS(code));
  size_t single_cjk = 0, multi_cjk = 0;
  for (const auto& doc : docs) {
    Tokens tokens;
    AnalyzeStats stats;
    (*analyzer)->Analyze(doc.title + " " + doc.text, &tokens, &stats);
    EXPECT_FALSE(tokens.empty()) << doc.id;
    for (const auto& t : tokens) {
      ASSERT_FALSE(t.empty()) << doc.id;
      ASSERT_EQ(WellFormedUtf8Prefix(t), t.size()) << doc.id;
      const icu::UnicodeString u = icu::UnicodeString::fromUTF8(t);
      ASSERT_TRUE(nfkc_cf->isNormalized(u, code)) << doc.id << ": " << t;
      const UScriptCode script = uscript_getScript(u.char32At(0), &code);
      if (script == USCRIPT_HAN || script == USCRIPT_HIRAGANA || script == USCRIPT_KATAKANA) {
        (u.countChar32() == 1 ? single_cjk : multi_cjk)++;
      }
    }
  }
  // On ICU 72: 11,321 single-character and 14,594 longer CJK tokens.
  EXPECT_GT(single_cjk, (single_cjk + multi_cjk) / 5);
  EXPECT_GT(multi_cjk, (single_cjk + multi_cjk) / 5);
}

}  // namespace
}  // namespace dps
