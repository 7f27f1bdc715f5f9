#include "shards/snippet.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dps {
namespace {

// Brackets instead of terminal colours make the marked spans readable.
// Built in one initializer: GCC 12 reports a false -Wrestrict overlap on
// assigning a literal to the inlined default string (GCC PR 105329).
SnippetStyle Brackets(size_t width = 160) { return SnippetStyle{"[", "]", width}; }

std::string Repeat(std::string_view piece, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += piece;
  return out;
}

// True when `s` is a sequence of whole UTF-8 characters (no cut sequence).
bool WholeUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += len;
  }
  return true;
}

TEST(SnippetTest, WindowStartsAThirdOfTheWidthBeforeTheFirstMatch) {
  // "needle" at byte 101; width 30 -> the window is bytes [91, 121).
  const std::string text = Repeat("x", 100) + " needle " + Repeat("y", 100);
  EXPECT_EQ(MakeSnippet(text, {"needle"}, Brackets(30)),
            "…" + Repeat("x", 9) + " [needle] " + Repeat("y", 13) + "…");
}

TEST(SnippetTest, MatchNearTheStartKeepsTheStartAndMarksNoLeadingEllipsis) {
  const std::string text = "a needle in a haystack, " + Repeat("z", 100);
  EXPECT_EQ(MakeSnippet(text, {"needle"}, Brackets(20)), "a [needle] in a haysta…");
  EXPECT_EQ(MakeSnippet("needle in a haystack", {"needle"}, Brackets()), "[needle] in a haystack");
}

TEST(SnippetTest, MarkersComeFromTheStyle) {
  const std::string text = "the white house";
  EXPECT_EQ(MakeSnippet(text, {"white"}, SnippetStyle()), "the white house");
  SnippetStyle ansi;
  ansi.before = "\033[1;31m";
  ansi.after = "\033[0m";
  EXPECT_EQ(MakeSnippet(text, {"white"}, ansi), "the \033[1;31mwhite\033[0m house");
  SnippetStyle tags;
  tags.before = "<b>";
  tags.after = "</b>";
  EXPECT_EQ(MakeSnippet(text, {"house", "white"}, tags), "the <b>white</b> <b>house</b>");
}

TEST(SnippetTest, MatchingIsAsciiCaseInsensitiveAndKeepsTheTextsCase) {
  EXPECT_EQ(MakeSnippet("The NEEDLE and the Needle and the needle", {"needle"}, Brackets()),
            "The [NEEDLE] and the [Needle] and the [needle]");
}

TEST(SnippetTest, OnlyWholeWordsAreMarked) {
  EXPECT_EQ(MakeSnippet("needles haystackneedle needle2 x-needle-y needle.", {"needle"}, Brackets()),
            "needles haystackneedle needle2 x-[needle]-y [needle].");
  // Bytes of non-ASCII characters count as word characters.
  EXPECT_EQ(MakeSnippet("éneedle needleé needle", {"needle"}, Brackets()), "éneedle needleé [needle]");
}

TEST(SnippetTest, NonAsciiTermsMatchOnlyTheirExactBytes) {
  EXPECT_EQ(MakeSnippet("un café au lait", {"café"}, Brackets()), "un [café] au lait");
  // Case folding beyond ASCII is not done: É differs from é, ß from ss.
  EXPECT_EQ(MakeSnippet("UN CAFÉ", {"café"}, Brackets()), "UN CAFÉ");
  EXPECT_EQ(MakeSnippet("die Straße", {"strasse"}, Brackets()), "die Straße");
}

TEST(SnippetTest, TextShorterThanTheWidthComesWhole) {
  EXPECT_EQ(MakeSnippet("short text", {"text"}, Brackets()), "short [text]");
  EXPECT_EQ(MakeSnippet("short text", {"nothing"}, Brackets()), "short text");
  EXPECT_EQ(MakeSnippet("", {"text"}, Brackets()), "");
  // Exactly the width: no ellipsis either.
  EXPECT_EQ(MakeSnippet("0123456789", {}, Brackets(10)), "0123456789");
}

TEST(SnippetTest, NoMatchGivesTheStartOfTheText) {
  const std::string text = Repeat("abcde ", 10);
  EXPECT_EQ(MakeSnippet(text, {"zzz"}, Brackets(14)), "abcde abcde ab…");
  EXPECT_EQ(MakeSnippet(text, {}, Brackets(14)), "abcde abcde ab…");
  EXPECT_EQ(MakeSnippet(text, {""}, Brackets(14)), "abcde abcde ab…");  // an empty term matches nothing
}

TEST(SnippetTest, TheEarliestMatchOfAnyTermPlacesTheWindowAndEveryTermIsMarked) {
  EXPECT_EQ(MakeSnippet("alpha beta gamma beta alpha", {"gamma", "beta"}, Brackets()),
            "alpha [beta] [gamma] [beta] alpha");
  // beta (byte 51) comes before gamma (byte 56) whatever the terms' order.
  const std::string text = Repeat("x", 50) + " beta gamma " + Repeat("y", 50) + " gamma";
  const std::string expected = "…" + Repeat("x", 9) + " [beta] [gamma] " + Repeat("y", 9) + "…";
  EXPECT_EQ(MakeSnippet(text, {"gamma", "beta"}, Brackets(30)), expected);
  EXPECT_EQ(MakeSnippet(text, {"beta", "gamma"}, Brackets(30)), expected);
  // Terms absent from the text do not disturb the others.
  EXPECT_EQ(MakeSnippet("alpha beta", {"zeta", "beta"}, Brackets()), "alpha [beta]");
}

TEST(SnippetTest, LineBreaksAndTabsFoldOntoOneLine) {
  EXPECT_EQ(MakeSnippet("line one\nline two\r\nline\tthree", {"two"}, Brackets()),
            "line one line [two]  line three");
  EXPECT_EQ(MakeSnippet("a\nb", {}, SnippetStyle()), "a b");
}

TEST(SnippetTest, TheWindowsEndDoesNotCutAUtf8Character) {
  // Byte 10 is the second byte of the second é: the window stops before it.
  const std::string text = "needle " + Repeat("é", 20);
  const std::string got = MakeSnippet(text, {"needle"}, Brackets(10));
  EXPECT_EQ(got, "[needle] é…");
  EXPECT_TRUE(WholeUtf8(got));
  // A four-byte character straddling the end is left out whole.
  EXPECT_EQ(MakeSnippet("needle " + Repeat("😀", 5), {"needle"}, Brackets(9)), "[needle] …");
}

TEST(SnippetTest, TheWindowsStartDoesNotCutAUtf8Character) {
  // The match is at byte 61, so the window would start at byte 51, the
  // second byte of an é: it starts at byte 50 instead.
  const std::string text = Repeat("é", 30) + " needle";
  const std::string got = MakeSnippet(text, {"needle"}, Brackets(30));
  EXPECT_EQ(got, "…" + Repeat("é", 5) + " [needle]");
  EXPECT_TRUE(WholeUtf8(got));
  // Three-byte characters (€): the start moves back over two continuation bytes.
  const std::string euros = Repeat("€", 20) + " needle " + Repeat("€", 20);
  for (size_t width = 20; width < 40; ++width) {
    const std::string s = MakeSnippet(euros, {"needle"}, Brackets(width));
    EXPECT_TRUE(WholeUtf8(s)) << "width " << width << ": " << s;
    EXPECT_NE(s.find("[needle]"), std::string::npos) << "width " << width << ": " << s;
  }
}

TEST(SnippetTest, AWidthNarrowerThanOneCharacterTakesTheRestOfTheText) {
  // The window would be empty; the code keeps the text instead of cutting.
  EXPECT_EQ(MakeSnippet("😀😀", {}, Brackets(2)), "😀😀");
}

TEST(SnippetTest, WordBoundariesHoldAtTheWindowEdges) {
  // The window opens inside "greenhouse" and closes inside "houses": neither
  // part is the word "house" (it was marked when boundaries were checked
  // inside the window only).
  const std::string text = Repeat("x ", 40) + "greenhouse house houses";
  // Width 18: the window starts 6 bytes before the match, at the "house" of
  // "greenhouse".
  EXPECT_EQ(MakeSnippet(text, {"house"}, Brackets(18)), "…house [house] houses");
  // Width 11 ends inside "houses".
  EXPECT_EQ(MakeSnippet("house houses", {"house"}, Brackets(11)), "[house] house…");
}

// A prefix (of a prefix query) marks each word it starts, whole, and only
// at a word's start; the window centres on the first match of a word or
// a prefix.
TEST(SnippetTest, PrefixesMarkTheWordsTheyStart) {
  const std::vector<std::string> none;
  EXPECT_EQ(MakeSnippet("a Network, networks and subnetworks", none, Brackets(), {"netw"}),
            "a [Network], [networks] and subnetworks");
  EXPECT_EQ(MakeSnippet("net networking", {"net"}, Brackets(), {"netw"}), "[net] [networking]");
  EXPECT_EQ(MakeSnippet("kernel net", {"kernel"}, Brackets(), {"ne"}), "[kernel] [net]");
  EXPECT_EQ(MakeSnippet(Repeat("x ", 60) + "networked", none, Brackets(20), {"netw"}),
            "…x x x [networked]");  // a third of the width before it
  EXPECT_EQ(MakeSnippet("no match here", none, Brackets(), {"netw"}), "no match here");
  EXPECT_EQ(MarkedSnippet("the networks", {}, {"netw"}), "the \x01networks\x02");
}

TEST(SnippetTest, MarkedSnippetsRenderInAnyStyle) {
  const std::string text = "the white\x1b[31m house\nand more";
  const std::string marked = MarkedSnippet(text, {"white", "house"});
  EXPECT_EQ(marked, "the \x01white\x02 [31m \x01house\x02 and more");
  EXPECT_EQ(RenderSnippet(marked, Brackets()), MakeSnippet(text, {"white", "house"}, Brackets()));
  EXPECT_EQ(RenderSnippet(marked, SnippetStyle()), "the white [31m house and more");
  // Control bytes from elsewhere (a server) never reach the output.
  EXPECT_EQ(RenderSnippet("a\x1b\x7f\tb", SnippetStyle()), "a   b");
}

}  // namespace
}  // namespace dps
