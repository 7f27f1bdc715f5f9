// Other engines' query syntax that dpsearch refuses instead of reading it
// as words (DESIGN.md: never quietly read as something else; README.md,
// "Queries", lists it). Without these checks the analyzer would drop the
// punctuation: `"file system"` would mean file AND system, `title:kernel`
// title AND kernel, `netw*` the word netw.
//
// Refused anywhere in a word: " and the typographic quotes “ ” „
// (phrases, which the parser reads where they start a word), ':' (a field
// query `title:x` is read by the parser at a word's start; any other colon,
// as in 12:30, is refused), '*' and '?' (wildcards; a '*' ending a word is a prefix
// query, which the parser reads: WildcardMessage says why another is
// refused), '^' (boosts), '~' (fuzzy and
// proximity), '|' (OR of other engines), "&&", '[' ']' '{' '}' (ranges).
// Refused at the start of a word only: '!' and '+' (NOT and "required" of
// other engines); inside or after a word they are text (`wow!`, `c++`).
// Everything else is text for the analyzer: `White-House`, `don't`,
// `e.g.`, `R&D`, `I/O`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dps {

enum class Unsupported : uint8_t {
  kNone,
  kPhrase,
  kField,
  kWildcard,
  kBoost,
  kFuzzy,
  kPipe,
  kAmpersands,
  kBang,
  kPlus,
  kRange,
};

namespace unsupported_internal {
// The bytes that may start a refused construct: one table lookup per byte
// keeps the parser's plain-word check a single pass.
constexpr std::array<bool, 256> kMaybe = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : std::string_view("\":*?^~|&[]{}!+")) t[c] = true;
  t[0xE2] = true;  // the lead byte of “ ” „ (U+201C..U+201E)
  return t;
}();
}  // namespace unsupported_internal

// What the byte at text[i] starts; `word_start` says whether it begins a
// word (the lexer's words: runs without whitespace or parentheses, after
// a leading '-' operator).
// REQUIRES: i < text.size().
inline Unsupported UnsupportedAt(std::string_view text, size_t i, bool word_start) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (!unsupported_internal::kMaybe[c]) return Unsupported::kNone;
  switch (c) {
    case '"':
      return Unsupported::kPhrase;
    case ':':
      return Unsupported::kField;
    case '*':
    case '?':
      return Unsupported::kWildcard;
    case '^':
      return Unsupported::kBoost;
    case '~':
      return Unsupported::kFuzzy;
    case '|':
      return Unsupported::kPipe;
    case '[':
    case ']':
    case '{':
    case '}':
      return Unsupported::kRange;
    case '&':
      return i + 1 < text.size() && text[i + 1] == '&' ? Unsupported::kAmpersands
                                                       : Unsupported::kNone;
    case '!':
      return word_start ? Unsupported::kBang : Unsupported::kNone;
    case '+':
      return word_start ? Unsupported::kPlus : Unsupported::kNone;
    default:  // 0xE2: U+201C “, U+201D ”, U+201E „ are E2 80 9C..9E
      if (i + 2 >= text.size() || static_cast<unsigned char>(text[i + 1]) != 0x80) {
        return Unsupported::kNone;
      }
      return static_cast<unsigned char>(text[i + 2]) - 0x9Cu <= 2u ? Unsupported::kPhrase
                                                                   : Unsupported::kNone;
  }
}

// The error's text after "position N: ", such as `boosts (kernel^2) are
// not supported`. `word` is the lexer's word holding the construct and
// `rest` the query from the construct's first byte on (a phrase is quoted
// up to its closing quote, which may be words later).
std::string UnsupportedMessage(Unsupported what, std::string_view word, std::string_view rest);

// Whether the '*' or '?' at word[at] ends a prefix query: a '*' that is
// the word's last byte, after a letter or digit (an ASCII one, or any
// non-ASCII character: the analyzer judges those). After punctuation the
// analyzer would drop the punctuation and quietly widen the prefix
// (`foo-*` would mean foo*), so that is refused too.
bool IsPrefixStar(std::string_view word, size_t at);
// The error's text for a wildcard that is no prefix query: `?`, a lone
// `*`, a leading, inner or doubled `*`, a `*` after punctuation.
// REQUIRES: word[at] is '*' or '?', !IsPrefixStar(word, at).
std::string WildcardMessage(std::string_view word, size_t at);

// At most `kMaxExcerptBytes` of `text` (cut at a UTF-8 boundary, "..."
// marking the cut), control characters as spaces: user text quoted in a
// one-line error message.
inline constexpr size_t kMaxExcerptBytes = 40;
std::string Excerpt(std::string_view text);

}  // namespace dps
