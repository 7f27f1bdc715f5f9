// The MANIFEST's text form (docs/FORMAT.md "MANIFEST"): every field
// survives a round trip, the analyzer line above all (queries are analyzed
// with it), and bad analyzer specs and other versions are refused.
#include "index/manifest.h"

#include <gtest/gtest.h>

#include "common/checksum.h"

namespace dps {
namespace {

Manifest Sample() {
  Manifest m;
  m.index_id = "5f0c2a9e4b7d41c08e3f6a1b2c3d4e5f";
  m.generation = 3;
  m.bins = 4;
  m.store_text = false;
  m.next_file_number = 9;
  m.global_index = "000008.gix";
  m.tablets = SplitBins(4, 2);
  m.tablets[0].files = {"000001.tab", "000005.tab"};
  m.tablets[1].files = {"000002.tab"};
  return m;
}

// `text` (without its checksum line) with a correct checksum line.
std::string Sealed(const std::string& text) {
  char sum[32];
  std::snprintf(sum, sizeof sum, "checksum %016llx\n", static_cast<unsigned long long>(Checksum64(text)));
  return text + sum;
}

std::string Body(const Manifest& m) {
  const std::string text = m.Encode();
  return text.substr(0, text.rfind("checksum "));
}

TEST(AnalyzerSpec, CanonicalFormsRoundTrip) {
  for (const char* text : {"icu", "whitespace", "icu fold-accents", "icu stem=english",
                           "icu fold-accents stem=porter"}) {
    auto spec = AnalyzerSpec::Parse(text);
    ASSERT_TRUE(spec.ok()) << text << ": " << spec.status().ToString();
    EXPECT_EQ(spec->ToString(), text);
  }
  EXPECT_EQ(AnalyzerSpec().ToString(), "icu");  // the default is today's analyzer
}

TEST(AnalyzerSpec, OptionsInAnyOrderMeanTheSameSpec) {
  auto a = AnalyzerSpec::Parse("icu stem=english fold-accents");
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->fold_accents);
  EXPECT_EQ(a->stem, "english");
  EXPECT_EQ(a->ToString(), "icu fold-accents stem=english");
}

TEST(AnalyzerSpec, BadSpecsAreRefusedSayingWhy) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "empty"},
      {"snowball", "unknown analyzer 'snowball'"},
      {"ICU", "unknown analyzer 'ICU'"},
      {"icu stem=", "names no language"},
      {"icu stem=English", "lower-case"},
      {"icu stem=../x", "lower-case"},
      {"icu stem=english stem=french", "stem given twice"},
      {"icu fold-accents fold-accents", "fold-accents given twice"},
      {"icu lowercase", "unknown option 'lowercase'"},
      {"whitespace fold-accents", "whitespace keeps tokens exactly as given"},
      {"whitespace stem=english", "whitespace keeps tokens exactly as given"},
  };
  for (const auto& [text, why] : cases) {
    auto spec = AnalyzerSpec::Parse(text);
    ASSERT_FALSE(spec.ok()) << text;
    EXPECT_TRUE(spec.status().IsInvalidArgument()) << text;
    EXPECT_NE(spec.status().message().find(why), std::string::npos) << text << ": " << spec.status().message();
  }
}

TEST(Manifest, EveryFieldRoundTrips) {
  for (const char* analyzer : {"icu", "whitespace", "icu fold-accents stem=english"}) {
    Manifest m = Sample();
    m.analyzer = *AnalyzerSpec::Parse(analyzer);
    const std::string text = m.Encode();
    EXPECT_NE(text.find("\nanalyzer " + std::string(analyzer) + "\n"), std::string::npos) << text;
    auto back = Manifest::Decode(text, "MANIFEST");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->analyzer, m.analyzer);
    EXPECT_EQ(back->index_id, m.index_id);
    EXPECT_EQ(back->generation, m.generation);
    EXPECT_EQ(back->bins, m.bins);
    EXPECT_EQ(back->store_text, m.store_text);
    EXPECT_EQ(back->next_file_number, m.next_file_number);
    EXPECT_EQ(back->global_index, m.global_index);
    ASSERT_EQ(back->tablets.size(), 2u);
    EXPECT_EQ(back->tablets[0].files, m.tablets[0].files);
    EXPECT_EQ(back->Encode(), text);
  }
}

TEST(Manifest, ABadAnalyzerLineIsCorruptionNamingTheLine) {
  std::string body = Body(Sample());
  body.replace(body.find("analyzer icu"), 12, "analyzer icu stem=Klingon");
  auto m = Manifest::Decode(Sealed(body), "DIR/MANIFEST");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(m.status().IsCorruption());
  EXPECT_NE(m.status().message().find("DIR/MANIFEST: line 6: analyzer 'icu stem=Klingon'"), std::string::npos)
      << m.status().message();
}

TEST(Manifest, AMissingAnalyzerLineIsCorruption) {
  std::string body = Body(Sample());
  body.erase(body.find("analyzer icu\n"), 13);
  auto m = Manifest::Decode(Sealed(body), "MANIFEST");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(m.status().IsCorruption());
  EXPECT_NE(m.status().message().find("analyzer line"), std::string::npos) << m.status().message();
}

TEST(Manifest, PositionsAreRecordedAndRequired) {
  for (bool positions : {true, false}) {
    Manifest sample = Sample();
    sample.positions = positions;
    auto back = Manifest::Decode(sample.Encode(), "MANIFEST");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->positions, positions);
  }
  std::string body = Body(Sample());
  const size_t at = body.find("positions ");
  ASSERT_NE(at, std::string::npos);
  body.erase(at, body.find('\n', at) + 1 - at);
  auto m = Manifest::Decode(Sealed(body), "MANIFEST");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("missing its positions line"), std::string::npos) << m.status().message();
}

// `fields`: title, then the declared fields, in order; required and checked.
TEST(Manifest, FieldsRoundTripAndBadOnesAreCorrupt) {
  Manifest m = Sample();
  m.fields = FieldSet({"title", "author", "tags"});
  const std::string text = m.Encode();
  EXPECT_NE(text.find("\nfields title author tags\n"), std::string::npos) << text;
  auto back = Manifest::Decode(text, "MANIFEST");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->fields, m.fields);
  EXPECT_NE(Sample().Encode().find("\nfields\n"), std::string::npos);  // none by default
  auto none = Manifest::Decode(Sample().Encode(), "MANIFEST");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->fields.empty());
  const std::string body = Body(m);
  for (const auto& [line, why] : std::vector<std::pair<std::string, std::string>>{
           {"", "missing its fields line"},
           {"fieldz title\n", "unknown or malformed line"},
           {"fields title tags tags\n", "named twice"},
           {"fields title 9x\n", "field name '9x'"}}) {
    std::string bad = body;
    const size_t at = bad.find("fields title author tags\n");
    ASSERT_NE(at, std::string::npos);
    bad.replace(at, std::string("fields title author tags\n").size(), line);
    auto decoded = Manifest::Decode(Sealed(bad), "MANIFEST");
    ASSERT_FALSE(decoded.ok()) << line;
    EXPECT_TRUE(decoded.status().IsCorruption()) << decoded.status().ToString();
    EXPECT_NE(decoded.status().message().find(why), std::string::npos) << decoded.status().message();
  }
}

TEST(Manifest, OtherVersionsAreUnsupportedAndOlderOnesAskForReingest) {
  std::string body = Body(Sample());
  ASSERT_EQ(body.rfind("dpsearch-manifest 3\n", 0), 0u);
  for (char older : {'1', '2'}) {
    body[18] = older;
    auto old = Manifest::Decode(Sealed(body), "MANIFEST");
    ASSERT_FALSE(old.ok());
    EXPECT_EQ(old.status().code(), Status::Code::kUnsupported);
    EXPECT_EQ(old.status().message(), std::string("MANIFEST: MANIFEST version ") + older +
                                          " (this build reads 3); re-ingest the documents");
  }
  body[18] = '4';
  auto newer = Manifest::Decode(Sealed(body), "MANIFEST");
  ASSERT_FALSE(newer.ok());
  EXPECT_EQ(newer.status().code(), Status::Code::kUnsupported);
  EXPECT_EQ(newer.status().message(), "MANIFEST: MANIFEST version 4 (this build reads 3)");
}

}  // namespace
}  // namespace dps
