#include "index/analyzer_spec.h"

#include <vector>

namespace dps {

namespace {

constexpr std::string_view kStemPrefix = "stem=";

// Snowball's names are lower-case ASCII words ("english", "porter").
bool PlausibleLanguage(std::string_view s) {
  if (s.empty() || s.size() > 32) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || c == '_')) return false;
  }
  return true;
}

std::vector<std::string_view> SplitSpaces(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    size_t j = i;
    while (j < text.size() && text[j] != ' ') ++j;
    if (j > i) words.push_back(text.substr(i, j - i));
    i = j;
  }
  return words;
}

}  // namespace

std::string AnalyzerSpec::ToString() const {
  std::string out = tokenizer == Tokenizer::kIcu ? "icu" : "whitespace";
  if (fold_accents) out += " fold-accents";
  if (!stem.empty()) out += " stem=" + stem;
  return out;
}

Status AnalyzerSpec::Validate() const {
  if (!stem.empty() && !PlausibleLanguage(stem)) {
    return Status::InvalidArgument("stemmer language '" + stem + "': expected a lower-case name such as english");
  }
  // Whitespace promises the tokens as given: folding or stemming them would
  // break that promise, and Snowball expects case-folded words, which
  // whitespace does not make.
  if (tokenizer == Tokenizer::kWhitespace && (fold_accents || !stem.empty())) {
    return Status::InvalidArgument(std::string(fold_accents ? "fold-accents" : "stem") +
                                   " applies to the icu analyzer only: whitespace keeps tokens exactly as given");
  }
  return Status::OK();
}

Result<AnalyzerSpec> AnalyzerSpec::Parse(std::string_view text) {
  const std::vector<std::string_view> words = SplitSpaces(text);
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("analyzer '" + std::string(text) + "': " + why);
  };
  if (words.empty()) return bad("empty");
  AnalyzerSpec spec;
  if (words[0] == "whitespace") {
    spec.tokenizer = Tokenizer::kWhitespace;
  } else if (words[0] != "icu") {
    return bad("unknown analyzer '" + std::string(words[0]) + "' (icu or whitespace)");
  }
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string_view w = words[i];
    if (w == "fold-accents") {
      if (spec.fold_accents) return bad("fold-accents given twice");
      spec.fold_accents = true;
    } else if (w.substr(0, kStemPrefix.size()) == kStemPrefix) {
      if (!spec.stem.empty()) return bad("stem given twice");
      spec.stem = std::string(w.substr(kStemPrefix.size()));
      if (spec.stem.empty()) return bad("stem= names no language");
    } else {
      return bad("unknown option '" + std::string(w) + "' (fold-accents or stem=LANG)");
    }
  }
  if (Status s = spec.Validate(); !s.ok()) return bad(s.message());
  return spec;
}

}  // namespace dps
