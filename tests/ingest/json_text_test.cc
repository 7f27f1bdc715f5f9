#include "ingest/json_text.h"

#include <gtest/gtest.h>

namespace dps {
namespace {

struct Decoded {
  bool ok;
  std::string out;
  uint64_t replaced = 0;
  std::string error;
};

Decoded Decode(std::string_view body) {
  Decoded d;
  d.out = "stale contents";
  d.ok = DecodeJsonString(body, &d.out, &d.replaced, &d.error);
  return d;
}

TEST(JsonText, DecodesEveryEscape) {
  Decoded d = Decode(R"(a\"b\\c\/d\be\ff\ng\rh\ti)");
  ASSERT_TRUE(d.ok) << d.error;
  EXPECT_EQ(d.out, "a\"b\\c/d\be\ff\ng\rh\ti");
  d = Decode(R"(\u0041\u00e9\u00E9\u20ac\uFFFF\u0000)");
  ASSERT_TRUE(d.ok) << d.error;
  EXPECT_EQ(d.out, std::string("A\xC3\xA9\xC3\xA9\xE2\x82\xAC\xEF\xBF\xBF\0", 12));
  EXPECT_EQ(d.replaced, 0u);
}

TEST(JsonText, CombinesSurrogatePairsAndReplacesLoneOnes) {
  Decoded d = Decode(R"(\ud83d\ude00\uDBFF\uDFFF)");
  ASSERT_TRUE(d.ok);
  EXPECT_EQ(d.out, "\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF");
  EXPECT_EQ(d.replaced, 0u);

  d = Decode(R"(\ud800|\udfff|\ud800\ud800\udc00|\ud800\n)");
  ASSERT_TRUE(d.ok);
  EXPECT_EQ(d.out, "\xEF\xBF\xBD|\xEF\xBF\xBD|\xEF\xBF\xBD\xF0\x90\x80\x80|\xEF\xBF\xBD\n");
  EXPECT_EQ(d.replaced, 4u);

  d = Decode(R"(\ud800)");  // at the very end
  ASSERT_TRUE(d.ok);
  EXPECT_EQ(d.out, "\xEF\xBF\xBD");
}

TEST(JsonText, RejectsBadEscapes) {
  EXPECT_EQ(Decode(R"(\x)").error, "invalid escape \\x in a string");
  EXPECT_EQ(Decode(R"(\u12)").error, "invalid \\u escape in a string");
  EXPECT_EQ(Decode(R"(\u12g4)").error, "invalid \\u escape in a string");
  EXPECT_EQ(Decode("\\").error, "backslash at the end of a string");
  EXPECT_EQ(Decode("\\\x01").error, "invalid escape in a string");
  EXPECT_FALSE(Decode(R"(ok \q)").ok);
}

TEST(JsonText, RecognisesIntegers) {
  for (std::string_view t : {"0", "-0", "7", "-12", "123456789012345678901234567890"}) {
    EXPECT_TRUE(IsJsonInteger(t)) << t;
  }
  for (std::string_view t : {"", "-", "01", "-01", "1.0", "1e3", "+1", " 1", "1 ", "0x10", "--1"}) {
    EXPECT_FALSE(IsJsonInteger(t)) << t;
  }
  EXPECT_EQ(CanonicalInteger("-0"), "0");
  EXPECT_EQ(CanonicalInteger("-5"), "-5");
}

TEST(JsonText, SkipsWellFormedValuesOnly) {
  struct Case {
    std::string_view text;
    bool ok;
    size_t length;
  };
  const Case cases[] = {
      {"null,", true, 4},
      {"  true}", true, 6},
      {"-1.5e+10 ,", true, 8},
      {"0", true, 1},
      {R"("a\"b\u00e9")", true, 12},
      {R"({"a": [1, {"b": []}, "x"], "c": {}})", true, 35},
      {"[]", true, 2},
      {"[1,,2]", false, 0},
      {"[1,]", false, 0},
      {R"({"a":})", false, 0},
      {R"({"a" 1})", false, 0},
      {R"({a: 1})", false, 0},
      {"tru", false, 0},
      {"-", false, 0},
      {"1.", false, 0},
      {"1e", false, 0},
      {"01", true, 1},  // the caller checks what follows
      {R"("\q")", false, 0},
      {R"("open)", false, 0},
      {"\"a\tb\"", false, 0},
      {"", false, 0},
  };
  for (const Case& c : cases) {
    size_t length = 0;
    EXPECT_EQ(SkipJsonValue(c.text, &length), c.ok) << c.text;
    if (c.ok) {
      EXPECT_EQ(length, c.length) << c.text;
    }
  }
  std::string deep(kMaxJsonDepth, '[');
  deep += std::string(kMaxJsonDepth, ']');
  size_t length = 0;
  EXPECT_TRUE(SkipJsonValue(deep, &length));
  std::string too_deep(kMaxJsonDepth + 1, '[');
  too_deep += std::string(kMaxJsonDepth + 1, ']');
  EXPECT_FALSE(SkipJsonValue(too_deep, &length));
}

}  // namespace
}  // namespace dps
