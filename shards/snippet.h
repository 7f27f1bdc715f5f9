// Snippets for result lines: a window of a document's stored text around
// the first occurrence of a query term, on one line, with the matches
// marked. Terms are analyzed (case-folded) forms; matching against the raw
// text is ASCII-case-insensitive, so non-ASCII terms whose folded form
// differs from the text (ß vs ss) are shown unmarked. A match counts only
// at word boundaries of the whole text, also at the window's edges. A
// prefix (of a prefix query) matches at a word's start and marks the whole
// word.
//
// Snippets are made where the text is (the bin executor, in-process or in
// a shard server) with neutral marks around the matches (control bytes,
// which never survive from the text: control characters become spaces),
// and rendered by whoever prints them (colour on a terminal, none in
// jsonl): only the snippet, never the whole text, leaves the doc store.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dps {

struct SnippetStyle {
  std::string before;  // e.g. "\033[1;31m" on a terminal, "" otherwise
  std::string after;   // e.g. "\033[0m"
  size_t width = 160;  // bytes of text around the first match
};

std::string MakeSnippet(std::string_view text, const std::vector<std::string>& terms,
                        const SnippetStyle& style, const std::vector<std::string>& prefixes = {});

// The marks of a marked snippet (MarkedSnippet), and how to render one.
inline constexpr char kSnippetMarkBegin = '\x01';
inline constexpr char kSnippetMarkEnd = '\x02';
std::string MarkedSnippet(std::string_view text, const std::vector<std::string>& terms,
                          const std::vector<std::string>& prefixes = {});
std::string RenderSnippet(std::string_view marked, const SnippetStyle& style);

}  // namespace dps
