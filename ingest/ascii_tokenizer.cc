#include "ingest/ascii_tokenizer.h"

#include <array>
#include <cstdint>

namespace dps {
namespace {

// Word-break class bits of an ASCII byte. kLetter/kDigit/kUnderscore are
// the classes that join with each other (WB5, 8-10, 13a/b); the Mid bits
// join only between two letters (kMidLetterJoin) or two digits
// (kMidDigitJoin), WB6/7 and WB11/12.
enum : uint8_t {
  kLetter = 1 << 0,
  kDigit = 1 << 1,
  kUnderscore = 1 << 2,
  kMidLetterJoin = 1 << 3,  // may stand between two letters: '.' '\''
  kMidDigitJoin = 1 << 4,   // may stand between two digits: '.' '\'' ',' ';'
  kUpper = 1 << 5,          // A-Z: the only bytes NFKC_Casefold changes
  kWordChar = kLetter | kDigit | kUnderscore,
  kMid = kMidLetterJoin | kMidDigitJoin,
};

struct Tables {
  std::array<uint8_t, 256> cls{};
  std::array<char, 256> lower{};
};

constexpr Tables MakeTables() {
  Tables t;
  for (int c = 0; c < 256; ++c) t.lower[c] = static_cast<char>(c);
  for (int c = 'a'; c <= 'z'; ++c) t.cls[c] = kLetter;
  for (int c = 'A'; c <= 'Z'; ++c) {
    t.cls[c] = kLetter | kUpper;
    t.lower[c] = static_cast<char>(c - 'A' + 'a');
  }
  t.cls['@'] = kLetter;
  for (int c = '0'; c <= '9'; ++c) t.cls[c] = kDigit;
  t.cls['_'] = kUnderscore;
  t.cls['.'] = kMidLetterJoin | kMidDigitJoin;
  t.cls['\''] = kMidLetterJoin | kMidDigitJoin;
  t.cls[','] = kMidDigitJoin;
  t.cls[';'] = kMidDigitJoin;
  return t;
}

constexpr Tables kTables = MakeTables();

}  // namespace

bool IsAsciiSeparator(unsigned char b) { return b < 0x80 && kTables.cls[b] == 0; }

void TokenizeAscii(std::string_view ascii, std::vector<std::string>* tokens) {
  const auto* cls = kTables.cls.data();
  const auto* p = reinterpret_cast<const unsigned char*>(ascii.data());
  const auto* end = p + ascii.size();
  while (p < end) {
    // Separators and Mid characters outside a word are segments of their
    // own with rule status 0: skipped.
    if (!(cls[*p] & kWordChar)) {
      ++p;
      continue;
    }
    const unsigned char* start = p;
    uint8_t seen = cls[*p++];
    while (p < end) {
      const uint8_t c = cls[*p];
      if (c & kWordChar) {
        seen |= c;
        ++p;
      } else if ((c & kMid) && end - p >= 2) {
        // WB6/7 and WB11/12 look one character ahead and one behind.
        const uint8_t both = cls[p[-1]] & cls[p[1]];
        if (((c & kMidLetterJoin) && (both & kLetter)) ||
            ((c & kMidDigitJoin) && (both & kDigit))) {
          seen |= cls[p[1]];
          p += 2;
        } else {
          break;
        }
      } else {
        break;
      }
    }
    const size_t len = static_cast<size_t>(p - start);
    if (len == 1 && *start == '_') continue;
    // Most tokens are lower case already: a plain copy then, no second pass.
    std::string& token = tokens->emplace_back(reinterpret_cast<const char*>(start), len);
    if (seen & kUpper) {
      for (char& ch : token) ch = kTables.lower[static_cast<unsigned char>(ch)];
    }
  }
}

}  // namespace dps
