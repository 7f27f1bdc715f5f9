#include "ingest/utf8.h"

#include <gtest/gtest.h>
#include <unicode/ustring.h>

#include <random>
#include <vector>

namespace dps {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

std::string Sanitize(std::string_view in, uint64_t* replaced = nullptr) {
  uint64_t count = 0;
  std::string out = SanitizeUtf8(in, &count);
  if (replaced != nullptr) *replaced = count;
  return out;
}

TEST(Utf8, WellFormedTextIsUnchanged) {
  const std::string text = "plain ASCII, Straße, 北京, ภาษา, 😀\x7F";
  uint64_t replaced = 0;
  EXPECT_EQ(Sanitize(text, &replaced), text);
  EXPECT_EQ(replaced, 0u);
  EXPECT_EQ(WellFormedUtf8Prefix(text), text.size());
  EXPECT_EQ(Sanitize(""), "");
}

// The example of Table 3-8 in the Unicode Standard (section 3.9).
TEST(Utf8, ReplacesMaximalSubpartsAsTheUnicodeStandardRecommends) {
  uint64_t replaced = 0;
  EXPECT_EQ(Sanitize("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64", &replaced),
            "a" + kFffd + kFffd + kFffd + "b" + kFffd + "c" + kFffd + kFffd + "d");
  EXPECT_EQ(replaced, 6u);
}

TEST(Utf8, OverlongsSurrogatesAndOutOfRangeAreOneReplacementPerByte) {
  uint64_t replaced = 0;
  EXPECT_EQ(Sanitize("\xC0\xAF", &replaced), kFffd + kFffd);               // overlong '/'
  EXPECT_EQ(Sanitize("\xE0\x80\xAF"), kFffd + kFffd + kFffd);              // overlong, 3 bytes
  EXPECT_EQ(Sanitize("\xED\xA0\x80"), kFffd + kFffd + kFffd);              // surrogate D800
  EXPECT_EQ(Sanitize("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // > U+10FFFF
  EXPECT_EQ(Sanitize("\xF5\xFF"), kFffd + kFffd);
  EXPECT_EQ(replaced, 2u);
}

TEST(Utf8, TruncatedSequencesAreOneReplacement) {
  uint64_t replaced = 0;
  EXPECT_EQ(Sanitize("ab\xE2\x82", &replaced), "ab" + kFffd);
  EXPECT_EQ(Sanitize("\xF0\x9F\x98 x"), kFffd + " x");
  EXPECT_EQ(Sanitize("\xE2\x82\xE2\x82\xAC"), kFffd + "\xE2\x82\xAC");  // then a valid €
  EXPECT_EQ(replaced, 1u);
  EXPECT_EQ(WellFormedUtf8Prefix("ab\xE2\x82"), 2u);
}

TEST(Utf8, DecodeReturnsCodePointsAndAdvances) {
  const std::string s = "a\xC3\xA9\xE5\x8C\x97\xF0\x9F\x98\x80\xFF";
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const auto* end = p + s.size();
  std::vector<char32_t> got;
  while (p < end) got.push_back(DecodeUtf8(&p, end));
  EXPECT_EQ(got, (std::vector<char32_t>{'a', 0xE9, 0x5317, 0x1F600, kInvalidCodePoint}));
}

TEST(Utf8, Utf16ToUtf8WritesUnpairedSurrogatesAsReplacement) {
  const char16_t units[] = {u'a', 0xD83D, 0xDE00, 0xD800, u'b', 0xDC00};
  std::string out;
  AppendUtf16AsUtf8(units, std::size(units), &out);
  EXPECT_EQ(out, "a\xF0\x9F\x98\x80" + kFffd + "b" + kFffd);
}

// Differential: ICU's u_strFromUTF8WithSub implements the same practice;
// random bytes biased towards lead and continuation bytes.
TEST(Utf8, DecodingAgreesWithIcuOnRandomBytes) {
  std::mt19937_64 rng(3);
  static constexpr uint8_t kInteresting[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF,
                                             0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE,
                                             0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
  std::vector<char16_t> ours, theirs;
  for (int i = 0; i < 100000; ++i) {
    std::string bytes(rng() % 16, '\0');
    for (char& c : bytes) {
      c = static_cast<char>(rng() % 2 ? kInteresting[rng() % std::size(kInteresting)] : rng());
    }
    ours.assign(bytes.size() + 1, 0);
    uint64_t replaced = 0;
    ours.resize(DecodeUtf8ToUtf16(bytes, ours.data(), &replaced));

    theirs.assign(2 * bytes.size() + 2, 0);
    int32_t length = 0, substitutions = 0;
    UErrorCode code = U_ZERO_ERROR;
    u_strFromUTF8WithSub(theirs.data(), static_cast<int32_t>(theirs.size()), &length, bytes.data(),
                         static_cast<int32_t>(bytes.size()), 0xFFFD, &substitutions, &code);
    ASSERT_TRUE(U_SUCCESS(code));
    theirs.resize(static_cast<size_t>(length));
    ASSERT_EQ(ours, theirs) << "case " << i;
    ASSERT_EQ(replaced, static_cast<uint64_t>(substitutions)) << "case " << i;

    // Sanitized text is well-formed, a fixed point, and decodes the same.
    const std::string clean = Sanitize(bytes);
    ASSERT_EQ(WellFormedUtf8Prefix(clean), clean.size());
    ASSERT_EQ(Sanitize(clean), clean);
    std::string reencoded;
    AppendUtf16AsUtf8(ours.data(), ours.size(), &reencoded);
    ASSERT_EQ(reencoded, clean) << "case " << i;
  }
}

}  // namespace
}  // namespace dps
