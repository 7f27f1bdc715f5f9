// The whitespace analyzer's tokenizer (index/analyzer_spec.h): for text
// tokenized elsewhere. Tokens are the runs between ASCII spaces, tabs, line
// feeds and carriage returns, kept byte for byte: no case folding, no
// normalization, punctuation kept. The query parser splits words on the
// same four characters, so a query word is one token.
//
// Ill-formed UTF-8 is repaired as everywhere else (utf8.h): readers have
// already repaired document text, so this only touches query words.
// Thread-safe (a pure function).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dps {

// Appends the tokens of `text` in text order; adds the number of ill-formed
// subsequences replaced by U+FFFD to *invalid.
void TokenizeWhitespace(std::string_view text, std::vector<std::string>* tokens, uint64_t* invalid);

}  // namespace dps
