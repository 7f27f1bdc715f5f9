// Randomised tests of the JSONL reader: documents written with every legal
// spelling JSON allows must read back exactly, and mangled input must never
// crash or produce invalid text (run under ASan/UBSan in CI). Seeds are fixed
// and printed on failure.
#include <gtest/gtest.h>

#include <random>

#include "ingest/jsonl_reader.h"
#include "ingest/utf8.h"

namespace dps {
namespace {

// Code points chosen to hit every encoder branch: controls (escaped),
// quote and backslash, ASCII, 2-, 3- and 4-byte sequences, NUL, U+FFFD and
// the last code points before and after the surrogates.
const uint32_t kCodePoints[] = {0x00,   0x01,   0x08,    0x09,    0x0A,    0x0D,   0x1F,
                                '"',    '\\',   '/',     'a',     'Z',     ' ',    '0',
                                0x7F,   0xE9,   0x7FF,   0x800,   0x20AC,  0xD7FF, 0xE000,
                                0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF};

std::string RandomText(std::mt19937_64& rng, size_t max_len) {
  std::string s;
  size_t len = std::uniform_int_distribution<size_t>(0, max_len)(rng);
  std::uniform_int_distribution<size_t> pick(0, std::size(kCodePoints) - 1);
  for (size_t i = 0; i < len; ++i) AppendUtf8(kCodePoints[pick(rng)], &s);
  return s;
}

void AppendHex4(uint32_t v, bool upper, std::string* out) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  *out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out->push_back(digits[(v >> shift) & 0xF]);
}

// Encodes `text` (valid UTF-8) as a JSON string, choosing randomly among the
// spellings of each character.
std::string JsonString(std::mt19937_64& rng, std::string_view text) {
  std::string out = "\"";
  std::bernoulli_distribution coin(0.3);
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
    for (size_t k = 1; k < len; ++k)
      cp = cp << 6 | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    const bool must_escape = cp < 0x20 || cp == '"' || cp == '\\';
    if (!must_escape && !coin(rng)) {
      out.append(text.substr(i, len));  // raw
    } else if (cp == '"' || cp == '\\' || (cp == '/' && coin(rng))) {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\n' && coin(rng)) {
      out += "\\n";
    } else if (cp == '\t' && coin(rng)) {
      out += "\\t";
    } else if (cp >= 0x10000) {
      uint32_t v = cp - 0x10000;
      bool upper = coin(rng);
      AppendHex4(0xD800 + (v >> 10), upper, &out);
      AppendHex4(0xDC00 + (v & 0x3FF), upper, &out);
    } else {
      AppendHex4(cp, coin(rng), &out);
    }
    i += len;
  }
  return out + "\"";
}

std::string Space(std::mt19937_64& rng) {
  static const char* kSpaces[] = {"", "", " ", "  ", "\t", " \t "};
  return kSpaces[std::uniform_int_distribution<size_t>(0, std::size(kSpaces) - 1)(rng)];
}

std::string IgnoredValue(std::mt19937_64& rng, int depth) {
  switch (std::uniform_int_distribution<int>(0, depth > 2 ? 3 : 5)(rng)) {
    case 0:
      return "null";
    case 1:
      return "-12.5e+3";
    case 2:
      return "true";
    case 3:
      return JsonString(rng, RandomText(rng, 5));
    // Built with += (not "[" + ...: GCC 12 -Wrestrict false positive).
    case 4: {
      std::string v = "[";
      v += IgnoredValue(rng, depth + 1);
      v += ",";
      v += Space(rng);
      v += IgnoredValue(rng, depth + 1);
      v += "]";
      return v;
    }
    default: {
      std::string v = "{\"k\"";
      v += Space(rng);
      v += ":";
      v += IgnoredValue(rng, depth + 1);
      v += "}";
      return v;
    }
  }
}

TEST(JsonlProperty, EverySpellingReadsBackExactly) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    std::vector<RawDocument> expected;
    std::string input;
    for (int n = 0; n < 200; ++n) {
      RawDocument doc;
      std::vector<std::string> fields;
      if (std::bernoulli_distribution(0.3)(rng)) {
        int64_t id = std::uniform_int_distribution<int64_t>(-1000000, 1000000)(rng);
        doc.id = std::to_string(id);
        fields.push_back("\"id\":" + Space(rng) + doc.id);
      } else {
        do doc.id = RandomText(rng, 8);
        while (doc.id.empty());
        fields.push_back("\"id\":" + Space(rng) + JsonString(rng, doc.id));
      }
      doc.text = RandomText(rng, 60);
      fields.push_back("\"text\"" + Space(rng) + ":" + JsonString(rng, doc.text));
      if (std::bernoulli_distribution(0.5)(rng)) {
        doc.title = RandomText(rng, 10);
        fields.push_back("\"title\":" + JsonString(rng, doc.title));
      }
      for (int extra = std::uniform_int_distribution<int>(0, 2)(rng); extra > 0; --extra) {
        fields.push_back("\"x" + std::to_string(extra) + "\":" + Space(rng) + IgnoredValue(rng, 0));
      }
      std::shuffle(fields.begin(), fields.end(), rng);
      std::string line = Space(rng) + "{" + Space(rng);
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i > 0) line += Space(rng) + "," + Space(rng);
        line += fields[i];
      }
      line += Space(rng) + "}" + Space(rng);
      input += line + (std::bernoulli_distribution(0.2)(rng) ? "\r\n" : "\n");
      expected.push_back(std::move(doc));
    }
    std::vector<RawDocument> got;
    ReaderStats stats;
    Status s = ParseJsonlBuffer(
        input, {}, [&](const RawDocument& d) { got.push_back(d); }, &stats);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].id, expected[i].id) << "document " << i;
      ASSERT_EQ(got[i].title, expected[i].title) << "document " << i;
      ASSERT_EQ(got[i].text, expected[i].text) << "document " << i;
    }
    EXPECT_EQ(stats.utf8_replacements, 0u);
  }
}

TEST(JsonlProperty, MangledInputNeverCrashesAndYieldsValidText) {
  const std::string base =
      "{\"id\": \"a\\u00e9\", \"title\": \"T\", \"text\": \"x\\ud83d\\ude00y\", \"m\": [1, {\"k\": "
      "null}]}\n"
      "{\"id\": 17, \"text\": \"caf\xC3\xA9 \\\"q\\\"\"}\n"
      "{\"text\": \"\\n\\t\", \"id\": -3, \"x\": {\"y\": [true, false, 1.5e3]}}\n";
  const char kNasty[] = {'{',  '}', '[',  ']',    '"',    '\\',   ',',    ':',    'u', '0', '\n',
                         '\r', ' ', '\0', '\x80', '\xC3', '\xED', '\xF4', '\xFF', 'e', '-', 'n'};
  for (uint64_t seed = 1; seed <= 3000; ++seed) {
    std::mt19937_64 rng(seed);
    std::string input = base;
    for (int m = std::uniform_int_distribution<int>(1, 6)(rng); m > 0; --m) {
      size_t pos = std::uniform_int_distribution<size_t>(0, input.size())(rng);
      char c = kNasty[std::uniform_int_distribution<size_t>(0, std::size(kNasty) - 1)(rng)];
      switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
        case 0:
          input.insert(input.begin() + static_cast<std::ptrdiff_t>(pos), c);
          break;
        case 1:
          if (pos < input.size()) input[pos] = c;
          break;
        case 2:
          if (pos < input.size()) input.erase(pos, 1);
          break;
        default:
          input.resize(pos);
          break;
      }
    }
    ReaderOptions options;
    options.skip_bad = true;
    ReaderStats stats;
    Status s = ParseJsonlBuffer(
        input, options,
        [&](const RawDocument& d) {
          ASSERT_FALSE(d.id.empty()) << "seed " << seed;
          ASSERT_TRUE(IsValidUtf8(d.id) && IsValidUtf8(d.title) && IsValidUtf8(d.text))
              << "seed " << seed;
        },
        &stats);
    ASSERT_TRUE(s.ok()) << "seed " << seed << ": " << s.ToString();
    for (const std::string& e : stats.first_errors) {
      ASSERT_EQ(e.rfind("<buffer>: line ", 0), 0u) << e;
      ASSERT_EQ(e.find('\n'), std::string::npos) << e;
    }
  }
}

}  // namespace
}  // namespace dps
