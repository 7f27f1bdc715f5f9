// The analyzer options an index can choose (index/analyzer_spec.h,
// docs/analyzer.md "Analyzer choices"): whitespace keeps pre-tokenized text
// as given, stem=LANG runs a Snowball stemmer, fold-accents removes
// accents after case folding; folding and stemming leave the ASCII fast
// path exact.
#include <gtest/gtest.h>

#include <unicode/normalizer2.h>

#include <algorithm>

#include "ingest/accent_folder.h"
#include "ingest/analyzer.h"
#include "ingest/stemmer.h"
#include "tests/ingest/sample_corpus.h"

namespace dps {
namespace {

using Tokens = std::vector<std::string>;

std::unique_ptr<Analyzer> Make(const std::string& spec, bool fast_path = true) {
  auto parsed = AnalyzerSpec::Parse(spec);
  EXPECT_TRUE(parsed.ok()) << spec << ": " << parsed.status().ToString();
  if (!parsed.ok()) return nullptr;
  auto analyzer = Analyzer::Create(*parsed, AnalyzerOptions{.ascii_fast_path = fast_path});
  EXPECT_TRUE(analyzer.ok()) << spec << ": " << analyzer.status().ToString();
  return analyzer.ok() ? std::move(analyzer).value() : nullptr;
}

Tokens Analyze(Analyzer* analyzer, std::string_view text, AnalyzeStats* stats = nullptr) {
  Tokens tokens;
  analyzer->Analyze(text, &tokens, stats);
  return tokens;
}

TEST(WhitespaceAnalyzer, KeepsTokensByteForByte) {
  auto ws = Make("whitespace");
  ASSERT_NE(ws, nullptr);
  EXPECT_FALSE(ws->ascii_fast_path_enabled());
  // No case folding, no normalization, punctuation and symbols kept;
  // only spaces, tabs, CR and LF separate.
  EXPECT_EQ(Analyze(ws.get(), "  Foo-Bar café, ＡＢＣ x\tY\r\nz\v\fw  Straße e\xCC\x81 😀 "),
            (Tokens{"Foo-Bar", "café,", "ＡＢＣ", "x", "Y", "z\v\fw", "Straße", "e\xCC\x81", "😀"}));
  EXPECT_EQ(Analyze(ws.get(), ""), Tokens{});
  EXPECT_EQ(Analyze(ws.get(), " \t\r\n "), Tokens{});
  // Tokens the icu analyzer would split or drop stay whole.
  EXPECT_EQ(Analyze(ws.get(), "don't e.g. 3.14 a:b http://x.org/a?b=c -- !"),
            (Tokens{"don't", "e.g.", "3.14", "a:b", "http://x.org/a?b=c", "--", "!"}));
}

TEST(WhitespaceAnalyzer, RepairsIllFormedUtf8AsEverywhereElse) {
  auto ws = Make("whitespace");
  ASSERT_NE(ws, nullptr);
  AnalyzeStats stats;
  EXPECT_EQ(Analyze(ws.get(), "a\xFF" "b \xE2\x82 c", &stats), (Tokens{"a\uFFFDb", "\uFFFD", "c"}));
  EXPECT_EQ(stats.invalid_utf8_sequences, 2u);
}

TEST(Stemming, EnglishMapsInflectionsToOneStem) {
  for (bool fast : {true, false}) {
    auto en = Make("icu stem=english", fast);
    ASSERT_NE(en, nullptr);
    EXPECT_EQ(Analyze(en.get(), "running runs run Running RUNS"), (Tokens{"run", "run", "run", "run", "run"}));
    EXPECT_EQ(Analyze(en.get(), "The connected connections connecting"),
              (Tokens{"the", "connect", "connect", "connect"}));
    // The icu analyzer's other behaviour is unchanged: numbers, joins, CJK.
    EXPECT_EQ(Analyze(en.get(), "3.14 don't 北京"), (Tokens{"3.14", "don't", "北京"}));
  }
}

TEST(Stemming, EveryLanguageOfTheLibraryIsOffered) {
  const auto& languages = Stemmer::Languages();
  EXPECT_TRUE(std::is_sorted(languages.begin(), languages.end()));
  for (const char* expected : {"english", "porter", "french", "german", "russian", "spanish"}) {
    EXPECT_NE(std::find(languages.begin(), languages.end(), expected), languages.end()) << expected;
  }
  for (const auto& language : languages) {
    auto analyzer = Make("icu stem=" + language);
    ASSERT_NE(analyzer, nullptr) << language;
    EXPECT_FALSE(Analyze(analyzer.get(), "words and numbers 42").empty()) << language;
  }
  auto fr = Make("icu stem=french");
  auto de = Make("icu stem=german");
  ASSERT_TRUE(fr != nullptr && de != nullptr);
  EXPECT_EQ(Analyze(fr.get(), "continuellement continuelle"), (Tokens{"continuel", "continuel"}));
  EXPECT_EQ(Analyze(de.get(), "Häuser Hauses"), (Tokens{"haus", "haus"}));
}

// The memo of stems is invisible: a stemmer that has seen many words (more
// than the memo holds, so it starts over) stems each as a new one does.
TEST(Stemming, TheMemoNeverChangesAStem) {
  auto used = Stemmer::Create("english");
  ASSERT_TRUE(used.ok());
  const char* roots[] = {"connect", "run", "happy", "generous", "nation", "agree", "relate", "cycle"};
  const char* ends[] = {"", "s", "ing", "ed", "ly", "ness", "ation", "ational", "ful", "er"};
  for (size_t i = 0; i < 3 * Stemmer::kMemoWords; ++i) {
    // Half the words are new (the memo fills and restarts), half repeat.
    const size_t n = i % 2 == 0 ? i : i % 97;
    std::string word = std::string(roots[n % 8]) + ends[n / 8 % 10] + (n >= 80 ? std::to_string(n) : "");
    auto fresh = Stemmer::Create("english");
    ASSERT_TRUE(fresh.ok());
    std::string a = word, b = word;
    ASSERT_TRUE((*used)->Stem(&a));
    ASSERT_TRUE((*fresh)->Stem(&b));
    ASSERT_EQ(a, b) << word;
  }
}

TEST(Stemming, AnUnknownLanguageIsRefusedListingTheKnownOnes) {
  auto unknown = Analyzer::Create(*AnalyzerSpec::Parse("icu stem=klingon"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), Status::Code::kUnsupported);
  EXPECT_NE(unknown.status().message().find("stemmer 'klingon': not one of libstemmer's (arabic, "),
            std::string::npos)
      << unknown.status().message();
  // An alias libstemmer would accept is refused: an index records one name.
  EXPECT_TRUE(Stemmer::CheckLanguage("en").IsInvalidArgument());
  EXPECT_TRUE(Stemmer::CheckLanguage("english").ok());
}

TEST(Analyzer, WhitespaceRefusesFoldingAndStemming) {
  AnalyzerSpec spec;
  spec.tokenizer = AnalyzerSpec::Tokenizer::kWhitespace;
  spec.stem = "english";
  auto a = Analyzer::Create(spec);
  ASSERT_FALSE(a.ok());
  EXPECT_TRUE(a.status().IsInvalidArgument());
  spec.stem.clear();
  spec.fold_accents = true;
  EXPECT_TRUE(Analyzer::Create(spec).status().IsInvalidArgument());
}

TEST(AccentFolding, RemovesAccentsAfterCaseFolding) {
  for (bool fast : {true, false}) {
    auto fold = Make("icu fold-accents", fast);
    ASSERT_NE(fold, nullptr);
    EXPECT_EQ(Analyze(fold.get(), "café cafe CAFÉ Cafe\xCC\x81"), (Tokens{"cafe", "cafe", "cafe", "cafe"}));
    EXPECT_EQ(Analyze(fold.get(), "Å å Ångström naïve Ærø"), (Tokens{"a", "a", "angstrom", "naive", "ærø"}));
    EXPECT_EQ(Analyze(fold.get(), "Tiếng Việt"), (Tokens{"tieng", "viet"}));
    EXPECT_EQ(Analyze(fold.get(), "ὈΔΌΣ Ελλάδα йод"), (Tokens{"οδοσ", "ελλαδα", "иод"}));
    // Not accents: other scripts' marks, letters that do not decompose.
    EXPECT_EQ(Analyze(fold.get(), "łódź straße"), (Tokens{"łodz", "strasse"}));
    EXPECT_EQ(Analyze(fold.get(), "हिन्दी"), (Tokens{"हिन्दी"}));
    EXPECT_EQ(Analyze(fold.get(), "がっこう"), Analyze(Make("icu").get(), "がっこう"));
    EXPECT_EQ(Analyze(fold.get(), "한국어 문법"), (Tokens{"한국어", "문법"}));
    EXPECT_EQ(Analyze(fold.get(), "كَتَبَ"), (Tokens{"كَتَبَ"}));
    // ASCII is untouched, whatever path took it.
    EXPECT_EQ(Analyze(fold.get(), "It costs 3.14; don't foo_bar"),
              (Tokens{"it", "costs", "3.14", "don't", "foo_bar"}));
  }
}

TEST(AccentFolding, RemovesExactlyTheCombiningDiacriticalBlocks) {
  auto folder = AccentFolder::Create();
  ASSERT_TRUE(folder.ok());
  for (UChar32 c : {0x0300, 0x0301, 0x0308, 0x030A, 0x0327, 0x036F, 0x1AB0, 0x1DC0, 0x20D0, 0xFE20}) {
    EXPECT_TRUE((*folder)->Removes(c)) << std::hex << c;
  }
  for (UChar32 c : {0x0041, 0x00E9, 0x064E, 0x05B0, 0x094D, 0x0E31, 0x3099, 0x309A, 0x02BC}) {
    EXPECT_FALSE((*folder)->Removes(c)) << std::hex << c;
  }
}

TEST(AccentFolding, IsIdempotentSoATermAnalyzesToItself) {
  auto fold = Make("icu fold-accents");
  ASSERT_NE(fold, nullptr);
  const Tokens terms = Analyze(fold.get(), "Élégamment Noël crème brûlée ÅNGSTRÖM Ὀδυσσεύς Việt");
  EXPECT_EQ(terms, (Tokens{"elegamment", "noel", "creme", "brulee", "angstrom", "οδυσσευσ", "viet"}));
  for (const auto& t : terms) EXPECT_EQ(Analyze(fold.get(), t), Tokens{t});
}

TEST(AccentFolding, FoldThenStemMakesAccentVariantsOneTerm) {
  auto fr = Make("icu fold-accents stem=french");
  ASSERT_NE(fr, nullptr);
  EXPECT_EQ(Analyze(fr.get(), "évènement"), Analyze(fr.get(), "evenement"));
  EXPECT_EQ(Analyze(fr.get(), "Café"), Analyze(fr.get(), "cafe"));
}

// The folder skips words holding no character it could change; the words
// of the multilingual sample fold as the plain definition (NFD, marks
// out, NFC) says, skipped or not.
TEST(AccentFolding, EverySampleWordFoldsAsTheDefinitionSays) {
  const std::string dir = testing::SampleCorpusDir();
  if (dir.empty()) GTEST_SKIP() << "no ../shared/corpora/samples";
  const auto docs = testing::ReadSampleCorpus(dir + "/multilingual.jsonl");
  ASSERT_FALSE(docs.empty());
  auto folder = AccentFolder::Create();
  ASSERT_TRUE(folder.ok());
  auto icu = Make("icu");
  UErrorCode code = U_ZERO_ERROR;
  const icu::Normalizer2* nfd = icu::Normalizer2::getNFDInstance(code);
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(code);
  ASSERT_TRUE(U_SUCCESS(code));
  size_t words = 0, folded = 0;
  for (const auto& doc : docs) {
    for (const std::string& word : Analyze(icu.get(), doc.title + "\n" + doc.text)) {
      const icu::UnicodeString decomposed = nfd->normalize(icu::UnicodeString::fromUTF8(word), code);
      icu::UnicodeString stripped;
      for (int32_t i = 0; i < decomposed.length(); i += U16_LENGTH(decomposed.char32At(i))) {
        if (!(*folder)->Removes(decomposed.char32At(i))) stripped.append(decomposed.char32At(i));
      }
      std::string want;
      nfc->normalize(stripped, code).toUTF8String(want);
      ASSERT_TRUE(U_SUCCESS(code));
      std::string got = word;
      ASSERT_TRUE((*folder)->Fold(&got));
      ASSERT_EQ(got, want) << doc.id << ": " << word;
      ++words;
      folded += got != word;
    }
  }
  EXPECT_GT(words, 10000u);
  EXPECT_GT(folded, 100u);  // the sample has accents to fold
}

// Folding and stemming work word by word on the tokens, which the fast
// path and ICU produce alike: the sample corpora give the same terms with
// and without the fast path under every option.
TEST(AnalyzerChoices, FastPathStaysExactOnTheSamplesWithEveryOption) {
  const std::string dir = testing::SampleCorpusDir();
  if (dir.empty()) GTEST_SKIP() << "no ../shared/corpora/samples";
  std::vector<testing::SampleDoc> docs = testing::ReadSampleCorpus(dir + "/multilingual.jsonl");
  const auto brown = testing::ReadSampleCorpus(dir + "/brown.jsonl");
  ASSERT_FALSE(docs.empty());
  ASSERT_FALSE(brown.empty());
  docs.insert(docs.end(), brown.begin(), brown.end());
  for (const char* spec : {"icu fold-accents", "icu stem=english", "icu fold-accents stem=german"}) {
    auto fast = Make(spec, true), icu = Make(spec, false);
    ASSERT_TRUE(fast != nullptr && icu != nullptr);
    ASSERT_TRUE(fast->ascii_fast_path_enabled());
    size_t changed = 0;
    uint64_t fast_bytes = 0;
    auto plain = Make("icu");
    for (const auto& doc : docs) {
      const std::string text = doc.title + "\n" + doc.text;
      AnalyzeStats fast_stats, icu_stats;
      const Tokens a = Analyze(fast.get(), text, &fast_stats), b = Analyze(icu.get(), text, &icu_stats);
      ASSERT_EQ(a, b) << spec << ": document " << doc.id;
      EXPECT_EQ(fast_stats.filter_failures, 0u);
      fast_bytes += fast_stats.ascii_fast_path_bytes;
      if (a != Analyze(plain.get(), text)) ++changed;
    }
    // The option does something on these documents (the comparison is not
    // of two unfiltered lists).
    EXPECT_GT(changed, docs.size() / 4) << spec;
    EXPECT_GT(fast_bytes, 0u) << spec;
  }
}

}  // namespace
}  // namespace dps
