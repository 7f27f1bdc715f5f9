// Lines over 1 MiB are parsed by hand, without simdjson (whose index of a
// line costs a few times its size): on random lines, well-formed and
// broken, the hand path must accept exactly what the simdjson path
// accepts, and give the same document and the same count of replaced
// characters.
#include <gtest/gtest.h>

#include <cstdio>
#include <initializer_list>
#include <random>
#include <string_view>

#include "ingest/json_text.h"
#include "ingest/jsonl_parser.h"
#include "ingest/line_source.h"

namespace dps {
namespace {

std::string Pick(std::mt19937_64& rng, const std::vector<std::string>& from) { return from[rng() % from.size()]; }

// Concatenation by append (GCC 12's -Wrestrict misfires on "x" + string).
std::string Cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

// A JSON string: now and then with bad escapes, control characters,
// unpaired surrogates or invalid UTF-8 (`clean` leaves those out).
std::string RandomString(std::mt19937_64& rng, bool clean = false) {
  static const std::vector<std::string> good = {"a", "kernel", " ", "\\n", "\\\"", "\\\\", "\\/", "\\u00e9",
                                                "\\ud83d\\ude00", "é", "学", "{", "}", "[", ",", ":", "1", "null"};
  if (clean || rng() % 2 == 0) {
    std::string s = "\"";
    const size_t n = rng() % 12;
    for (size_t i = 0; i < n; ++i) s += Pick(rng, good);
    return s + "\"";
  }
  static const std::vector<std::string> parts = {
      "a",  "kernel", " ",      "\\n",        "\\\"", "\\\\", "\\/",  "\\u00e9", "\\ud83d\\ude00", "\\ud800",
      "é",  "学",     "\\t",    "\\u0000",    "\xC3", "\xFF", "\t",   "\\x",     "{",              "}",
      "[",  ",",      ":",      "\\uZZZZ",    "1",    "\x01", "null", "\\b\\f\\r"};
  std::string s = "\"";
  const size_t n = rng() % 12;
  for (size_t i = 0; i < n; ++i) s += Pick(rng, parts);
  return s + "\"";
}

std::string RandomValue(std::mt19937_64& rng, int depth = 0) {
  switch (rng() % (depth > 3 ? 6 : 9)) {
    case 0:
    case 1:
      return RandomString(rng);
    case 2:
      return Pick(rng, {"0", "-0", "42", "4.5", "1e3", "-7", "01", "1.", "-", "2E-3"});
    case 3:
      return Pick(rng, {"true", "false", "null", "nul", "tru"});
    case 4:
      return Cat({" ", RandomString(rng), "\t"});
    case 5:
      return "[]";
    case 6: {
      std::string a = "[";
      const size_t n = rng() % 4;
      for (size_t i = 0; i < n; ++i) a += Cat({i ? "," : "", RandomValue(rng, depth + 1)});
      return a + "]";
    }
    default: {
      std::string o = "{";
      const size_t n = rng() % 4;
      for (size_t i = 0; i < n; ++i) o += Cat({i ? "," : "", RandomString(rng), ":", RandomValue(rng, depth + 1)});
      return o + "}";
    }
  }
}

std::string RandomLine(std::mt19937_64& rng) {
  static const std::vector<std::string> keys = {"\"id\"", "\"text\"", "\"title\"", "\"tags\"", "\"other\"",
                                                "\"t\\u0065xt\"", "\"i\\ud800d\""};
  std::string line = Cat({Pick(rng, {"", " ", "\t"}), "{"});
  // Half the lines start with a good id and text, so that many are
  // documents; the members after them may replace either.
  const bool good = rng() % 2 == 0;
  if (good) line += Cat({"\"id\":", Pick(rng, {"\"d1\"", "7", "-0", "\"\\u00e9\""}), ",\"text\":", RandomString(rng, true)});
  const size_t members = rng() % (good ? 3 : 6);
  for (size_t i = 0; i < members; ++i) {
    if (i || good) line += Pick(rng, {",", " ,", ", "});
    line += Cat({Pick(rng, keys), Pick(rng, {":", " : ", ":\t"}), RandomValue(rng)});
  }
  line += good && rng() % 2 ? std::string("}") : Pick(rng, {"}", " }", "} ", "}x", "", "}{}"});
  // Now and then a mutation: a byte dropped, doubled or replaced.
  if (!line.empty() && rng() % 4 == 0) {
    const size_t at = rng() % line.size();
    switch (rng() % 3) {
      case 0:
        line.erase(at, 1);
        break;
      case 1:
        line.insert(at, 1, line[at]);
        break;
      default:
        line[at] = Pick(rng, {"\"", ",", ":", "}", "]", "x", "\x80"})[0];
    }
  }
  if (rng() % 8 == 0) line = Cat({"[", line, "]"});
  return line;
}

struct Parsed {
  bool ok = false;
  bool document = false;
  RawDocument doc;
  uint64_t replaced = 0;
  std::string error;
};

Parsed ParseWith(JsonlParser* parser, const std::string& line) {
  std::string padded = line;
  padded.resize(line.size() + kLinePadding, ' ');
  Parsed p;
  auto r = parser->Parse(std::string_view(padded.data(), line.size()), &p.doc, &p.replaced);
  p.ok = r.ok();
  if (r.ok()) {
    p.document = *r;
  } else {
    p.error = r.status().ToString();
  }
  return p;
}

// True when the line is one well-formed JSON value (a strict recogniser).
bool IsJsonValueLine(std::string_view line) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  size_t length = 0;
  if (!SkipJsonValue(line, &length)) return false;
  return line.substr(length).find_first_not_of(" \t\r\n") == std::string_view::npos;
}

TEST(JsonlLongLines, ByHandAcceptsExactlyWhatSimdjsonAccepts) {
  ReaderOptions options;
  options.fields = {"tags", "title"};
  JsonlParser simd(options), by_hand(options);
  by_hand.ParseByHandAbove(0);
  std::mt19937_64 rng(2121);
  size_t accepted = 0, rejected = 0;
  for (int i = 0; i < 60000; ++i) {
    const std::string line = RandomLine(rng);
    const Parsed a = ParseWith(&simd, line), b = ParseWith(&by_hand, line);
    ASSERT_EQ(a.ok, b.ok) << "line [" << line << "]: simdjson " << (a.ok ? "accepts" : a.error) << ", by hand "
                          << (b.ok ? "accepts" : b.error);
    // Accepted lines are one well-formed JSON object, and nothing else.
    if (a.ok && a.document) {
      ASSERT_TRUE(IsJsonValueLine(line)) << line;
    }
    if (!a.ok) {
      ++rejected;
      continue;
    }
    ++accepted;
    ASSERT_EQ(a.document, b.document) << line;
    if (!a.document) continue;
    EXPECT_EQ(a.doc.id, b.doc.id) << line;
    EXPECT_EQ(a.doc.title, b.doc.title) << line;
    EXPECT_EQ(a.doc.text, b.doc.text) << line;
    EXPECT_EQ(a.doc.fields, b.doc.fields) << line;
    EXPECT_EQ(a.replaced, b.replaced) << line;
  }
  // Both kinds of line must be common, or the comparison proves little.
  EXPECT_GT(accepted, 3000u);
  EXPECT_GT(rejected, 3000u);
  std::printf("%zu accepted, %zu rejected by both\n", accepted, rejected);
}

TEST(JsonlLongLines, AMultiMegabyteLineIsParsedByHand) {
  JsonlParser parser{ReaderOptions{}};
  std::string text;
  size_t escapes = 0;
  for (; text.size() < (3u << 20); escapes += 2) text += "static int foo_bar(void) { return 0; } \\n\\t";
  const std::string line = Cat({"{\"id\":\"big\",\"title\":\"drivers/x.h\",\"text\":\"", text, "\"}"});
  const Parsed p = ParseWith(&parser, line);
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.doc.id, "big");
  EXPECT_EQ(p.doc.title, "drivers/x.h");
  EXPECT_EQ(p.doc.text.size(), text.size() - escapes);  // each \n and \t one byte
  EXPECT_FALSE(ParseWith(&parser, line.substr(0, line.size() - 1)).ok);
  EXPECT_FALSE(ParseWith(&parser, Cat({line, "{}"})).ok);
}

}  // namespace
}  // namespace dps
