// Snippets for result lines: a window of a document's stored text around
// the first occurrence of a query term, on one line, with the matches
// marked. Terms are analyzed (case-folded) forms; matching against the raw
// text is ASCII-case-insensitive, so non-ASCII terms whose folded form
// differs from the text (ß vs ss) are shown unmarked.
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
                        const SnippetStyle& style);

}  // namespace dps
