#include "query/unsupported_syntax.h"

namespace dps {

std::string Excerpt(std::string_view text) {
  size_t n = text.size();
  if (n > kMaxExcerptBytes) {
    n = kMaxExcerptBytes;
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;  // not mid-character
  }
  std::string out(text.substr(0, n));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == '\x7F') c = ' ';
  }
  if (n < text.size()) out += "...";
  return out;
}

namespace {
bool IsAsciiAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
}  // namespace

bool IsPrefixStar(std::string_view word, size_t at) {
  if (word[at] != '*' || at == 0 || at + 1 != word.size()) return false;
  const char before = word[at - 1];
  return IsAsciiAlnum(before) || (static_cast<unsigned char>(before) & 0x80) != 0;
}

std::string WildcardMessage(std::string_view word, size_t at) {
  const std::string w = Excerpt(word);
  if (word[at] == '?') return "single-character wildcards (" + w + ") are not supported";
  if (word.size() == 1) return "'*' alone is not a query; a prefix query puts * after a word's start (netw*)";
  if (at == 0) return "leading wildcards (" + w + ") are not supported; a prefix query puts * at the end (netw*)";
  if (at + 1 != word.size() || word[at - 1] == '*') {
    return "wildcards inside a word (" + w + ") are not supported; only a final * makes a prefix query (netw*)";
  }
  return "a prefix query needs a letter or digit before its * (" + w +
         "): the analyzer would drop the punctuation and widen the prefix";
}

std::string UnsupportedMessage(Unsupported what, std::string_view word, std::string_view rest) {
  const std::string w = Excerpt(word);
  switch (what) {
    case Unsupported::kPhrase:  // the lexer reads phrases that start a word
      return "a quote inside a word (" + w + "): a phrase is words in quotes, \"a b\"";
    case Unsupported::kField:
      return "':' inside a word (" + w + "): a field query is NAME:word, NAME a field of the index";
    case Unsupported::kWildcard:
      return "wildcards (" + w + ") are not supported";
    case Unsupported::kBoost:
      return "boosts (" + w + ") are not supported";
    case Unsupported::kFuzzy:
      return "fuzzy queries (" + w + ") are not supported; proximity is a phrase then ~N (\"a b\"~2)";
    case Unsupported::kPipe:
      return rest.size() > 1 && rest[1] == '|' ? "'||' is not an operator: use OR"
                                               : "'|' is not an operator: use OR";
    case Unsupported::kAmpersands:
      return "'&&' is not an operator: use AND";
    case Unsupported::kBang:
      return "'!' is not an operator: use NOT or -";
    case Unsupported::kPlus:
      return "'+' is not an operator: every word is required already";
    case Unsupported::kRange: {
      std::string out = "' ' is not supported: there are no ranges; group with ( )";
      out[1] = rest[0];  // '[' ']' '{' or '}'
      return out;
    }
    case Unsupported::kNone:
      break;
  }
  return "unsupported syntax";
}

}  // namespace dps
