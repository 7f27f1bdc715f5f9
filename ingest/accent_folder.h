// Accent folding, the `fold-accents` option of the icu analyzer
// (index/analyzer_spec.h): a case-folded word is decomposed (NFD), its
// combining diacritical marks are removed and the rest is recomposed (NFC),
// so café, cafe and CAFÉ are one term, Å folds to a, ὀδός to οδος.
//
// Removed: the code points of Unicode's combining diacritical marks blocks
// (U+0300-036F, 1AB0-1AFF, 1DC0-1DFF, 20D0-20FF, FE20-FE2F), the accents
// Latin, Greek and Cyrillic letters decompose into. Kept: marks that are
// part of other scripts' letters (Arabic harakat, Hebrew points, Indic
// vowel signs and viramas, the kana voicing marks of が), and letters that
// do not decompose (ø, ł, đ, æ; ß is already ss). docs/analyzer.md,
// "Analyzer choices", says why.
//
// ASCII words have nothing to fold and are returned as they are without
// touching ICU, so the analyzer's ASCII fast path stays exact.
// Not thread-safe (reusable buffers): one per analyzer, i.e. per thread.
#pragma once

#include <unicode/normalizer2.h>
#include <unicode/uniset.h>
#include <unicode/unistr.h>

#include <memory>
#include <string>

#include "common/status.h"

namespace dps {

class AccentFolder {
 public:
  // Fails (IOError naming ICU's error) only if ICU's data lacks NFD or NFC.
  static Result<std::unique_ptr<AccentFolder>> Create();

  // Folds *word (well-formed UTF-8) in place. Returns false, leaving *word
  // as it was, if ICU failed (out of memory).
  bool Fold(std::string* word);

  // Whether `c` is one of the marks Fold removes (tests list them).
  bool Removes(UChar32 c) const { return marks_.contains(c); }

 private:
  AccentFolder(const icu::Normalizer2* nfd, const icu::Normalizer2* nfc, icu::UnicodeSet marks,
               icu::UnicodeSet candidates);

  const icu::Normalizer2* nfd_;  // owned by ICU
  const icu::Normalizer2* nfc_;
  icu::UnicodeSet marks_;
  // The characters Fold may change: the marks and those NFD decomposes
  // (less the Hangul syllables, which decompose into jamo, never marks). A
  // word without any, most non-ASCII words, is left alone without a
  // conversion to UTF-16.
  icu::UnicodeSet candidates_;
  icu::UnicodeString decomposed_, stripped_, composed_;
};

}  // namespace dps
