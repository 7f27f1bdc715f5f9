#include "ingest/whitespace_tokenizer.h"

#include "ingest/utf8.h"

namespace dps {

namespace {
bool IsSeparator(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
}  // namespace

void TokenizeWhitespace(std::string_view text, std::vector<std::string>* tokens, uint64_t* invalid) {
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsSeparator(text[i])) ++i;
    size_t j = i;
    while (j < text.size() && !IsSeparator(text[j])) ++j;
    if (j > i) {
      std::string& token = tokens->emplace_back(text.substr(i, j - i));
      SanitizeUtf8InPlace(&token, invalid);
    }
    i = j;
  }
}

}  // namespace dps
