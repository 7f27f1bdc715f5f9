#include "shards/snippet.h"

#include <algorithm>
#include <cctype>

namespace dps {

namespace {

char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }
bool IsWordByte(char c) { return std::isalnum(static_cast<unsigned char>(c)) || (c & 0x80); }

// Position of `term` in text[from, until) at a word boundary of the whole
// text, case-insensitively, or npos. A prefix needs the boundary before it
// only.
size_t FindWord(std::string_view text, std::string_view term, size_t from, size_t until, bool prefix = false) {
  if (term.empty()) return std::string_view::npos;
  for (size_t i = from; i + term.size() <= until; ++i) {
    if (i > 0 && IsWordByte(text[i - 1])) continue;
    size_t k = 0;
    while (k < term.size() && Lower(text[i + k]) == term[k]) ++k;
    if (k == term.size() && (prefix || i + k == text.size() || !IsWordByte(text[i + k]))) return i;
  }
  return std::string_view::npos;
}

// The end of the word going on at `i`, at most `until`.
size_t WordEnd(std::string_view text, size_t i, size_t until) {
  while (i < until && IsWordByte(text[i])) ++i;
  return i;
}

// Moves `pos` back to the start of a UTF-8 character.
size_t CharStart(std::string_view s, size_t pos) {
  while (pos > 0 && pos < s.size() && (static_cast<unsigned char>(s[pos]) & 0xC0) == 0x80) --pos;
  return pos;
}

}  // namespace

std::string MakeSnippet(std::string_view text, const std::vector<std::string>& terms,
                        const SnippetStyle& style, const std::vector<std::string>& prefixes) {
  size_t first = std::string_view::npos;
  for (const auto& t : terms) first = std::min(first, FindWord(text, t, 0, text.size()));
  for (const auto& p : prefixes) first = std::min(first, FindWord(text, p, 0, text.size(), true));
  size_t begin = first == std::string_view::npos ? 0 : (first > style.width / 3 ? first - style.width / 3 : 0);
  begin = CharStart(text, begin);
  size_t end = CharStart(text, std::min(text.size(), begin + style.width));
  if (end < text.size() && end <= begin) end = text.size();
  std::string out = begin > 0 ? "…" : "";
  for (size_t i = begin; i < end;) {
    size_t match = std::string_view::npos, len = 0;
    for (const auto& t : terms) {
      size_t at = FindWord(text, t, i, end);
      if (at < match) {
        match = at;
        len = t.size();
      }
    }
    for (const auto& p : prefixes) {
      size_t at = FindWord(text, p, i, end, true);
      if (at < match) {
        match = at;
        len = WordEnd(text, at + p.size(), end) - at;
      }
    }
    const size_t stop = std::min(match, end);
    for (size_t k = i; k < stop; ++k) {
      // Control characters (line breaks, tabs, a stray ESC) become spaces:
      // one line, and no text can drive the terminal it is printed on.
      const auto u = static_cast<unsigned char>(text[k]);
      out.push_back(u < 0x20 || u == 0x7f ? ' ' : text[k]);
    }
    if (match == std::string_view::npos) break;
    out += style.before;
    out.append(text.substr(match, len));
    out += style.after;
    i = match + len;
  }
  if (end < text.size()) out += "…";
  return out;
}

std::string MarkedSnippet(std::string_view text, const std::vector<std::string>& terms,
                          const std::vector<std::string>& prefixes) {
  SnippetStyle marks;
  marks.before = std::string(1, kSnippetMarkBegin);
  marks.after = std::string(1, kSnippetMarkEnd);
  return MakeSnippet(text, terms, marks, prefixes);
}

std::string RenderSnippet(std::string_view marked, const SnippetStyle& style) {
  std::string out;
  out.reserve(marked.size());
  for (char c : marked) {
    if (c == kSnippetMarkBegin) out += style.before;
    else if (c == kSnippetMarkEnd) out += style.after;
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out.push_back(' ');  // a server's stray byte
    else out.push_back(c);
  }
  return out;
}

}  // namespace dps
