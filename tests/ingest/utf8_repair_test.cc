#include "ingest/utf8.h"

#include <gtest/gtest.h>

#include <random>

namespace dps {
namespace {

const std::string kReplacementChar = "\xEF\xBF\xBD";

std::string SanitizeCounted(std::string_view in, uint64_t* replaced) {
  *replaced = 0;
  return SanitizeUtf8(in, replaced);
}

TEST(Utf8Repair, ValidTextPassesUnchanged) {
  for (std::string_view s :
       {std::string_view(""), std::string_view("plain ascii text, long enough"),
        std::string_view("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF"),
        std::string_view("\0nul\0", 5), std::string_view("\xED\x9F\xBF\xEE\x80\x80")}) {
    uint64_t replaced = 0;
    EXPECT_TRUE(IsValidUtf8(s));
    EXPECT_EQ(SanitizeCounted(s, &replaced), s);
    EXPECT_EQ(replaced, 0u);
    EXPECT_EQ(CountInvalidUtf8Bytes(s), 0u);
  }
}

// Unicode 15 Table 3-8 and the W3C/WHATWG examples: one U+FFFD per maximal
// ill-formed subpart.
TEST(Utf8Repair, ReplacesEachMaximalSubpartOnce) {
  struct Case {
    std::string in, out;
    uint64_t replaced, invalid_bytes;
  };
  const Case cases[] = {
      {"a\xFF"
       "b",
       "a" + kReplacementChar + "b", 1, 1},
      {"\x80\x80", kReplacementChar + kReplacementChar, 2, 2},                          // lone continuations
      {"\xC0\xAF", kReplacementChar + kReplacementChar, 2, 2},                          // C0 is never a lead
      {"\xE0\x80\xAF", kReplacementChar + kReplacementChar + kReplacementChar, 3, 3},              // overlong 3-byte
      {"\xED\xA0\x80", kReplacementChar + kReplacementChar + kReplacementChar, 3, 3},              // surrogate D800
      {"\xF4\x90\x80\x80", kReplacementChar + kReplacementChar + kReplacementChar + kReplacementChar, 4, 4},  // above U+10FFFF
      {"\xE2\x82"
       "x",
       kReplacementChar + "x", 1, 2},            // truncated 3-byte
      {"\xF0\x9F\x98", kReplacementChar, 1, 3},  // truncated at the end
      {"\xF0\x9F\x98"
       "\xF0\x9F\x98\x80",
       kReplacementChar + "\xF0\x9F\x98\x80", 1, 3},
      {"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64",
       "a" + kReplacementChar + kReplacementChar + kReplacementChar + "b" + kReplacementChar + "c" + kReplacementChar + kReplacementChar + "d", 6, 9},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.out);
    uint64_t replaced = 0;
    EXPECT_FALSE(IsValidUtf8(c.in));
    EXPECT_EQ(SanitizeCounted(c.in, &replaced), c.out);
    EXPECT_EQ(replaced, c.replaced);
    EXPECT_EQ(CountInvalidUtf8Bytes(c.in), c.invalid_bytes);
    std::string in_place = c.in;
    uint64_t in_place_replaced = 0;
    SanitizeUtf8InPlace(&in_place, &in_place_replaced);
    EXPECT_EQ(in_place, c.out);
    EXPECT_EQ(in_place_replaced, c.replaced);
  }
}

TEST(Utf8Repair, InvalidBytesAfterLongAsciiRunsAreFound) {
  // The word-at-a-time ASCII skip must stop at every alignment.
  for (size_t prefix = 0; prefix < 20; ++prefix) {
    std::string s(prefix, 'x');
    s += "\xFF";
    s += std::string(prefix, 'y');
    uint64_t replaced = 0;
    EXPECT_FALSE(IsValidUtf8(s)) << prefix;
    EXPECT_EQ(SanitizeCounted(s, &replaced), std::string(prefix, 'x') + kReplacementChar + std::string(prefix, 'y'));
    EXPECT_EQ(replaced, 1u);
  }
}

TEST(Utf8Repair, RandomBytesAlwaysSanitizeToValidUtf8) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 2000; ++round) {
    std::string s(std::uniform_int_distribution<size_t>(0, 40)(rng), '\0');
    for (char& c : s) c = static_cast<char>(rng() & (round % 2 ? 0xFF : 0xC3));
    uint64_t replaced = 0;
    std::string out = SanitizeCounted(s, &replaced);
    ASSERT_TRUE(IsValidUtf8(out)) << "round " << round;
    EXPECT_EQ(replaced == 0, IsValidUtf8(s));
    EXPECT_EQ(replaced == 0, out == s);
    EXPECT_LE(replaced, CountInvalidUtf8Bytes(s));
  }
}

TEST(Utf8Repair, AppendUtf8EncodesEveryLength) {
  std::string s;
  for (uint32_t cp : {0x41u, 0xE9u, 0x20ACu, 0x1F600u, 0x10FFFFu}) AppendUtf8(cp, &s);
  EXPECT_EQ(s, "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF");
  EXPECT_TRUE(IsValidUtf8(s));
}

}  // namespace
}  // namespace dps
