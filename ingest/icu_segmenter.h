// The analyzer's reference path: UTF-8 -> UTF-16 (ill-formed bytes ->
// U+FFFD) -> ICU NFKC_Casefold ("nfkc_cf") -> ICU word break iterator (root
// locale; dictionary segmentation for Chinese, Japanese, Thai, ...) ->
// tokens whose rule status is number, letter, kana or ideograph.
//
// Owns its break iterator and its UTF-16 buffers, which are reused from
// call to call, so a warmed-up segmenter allocates only the token strings.
// Not thread-safe: ICU break iterators keep per-text state. One per thread.
#pragma once

#include <unicode/brkiter.h>
#include <unicode/normalizer2.h>
#include <unicode/unistr.h>
#include <unicode/utext.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace dps {

class IcuSegmenter {
 public:
  // Fails (with ICU's error name) when ICU's data lacks the normalizer or
  // the word break rules.
  static Result<std::unique_ptr<IcuSegmenter>> Create();
  ~IcuSegmenter();

  IcuSegmenter(const IcuSegmenter&) = delete;
  IcuSegmenter& operator=(const IcuSegmenter&) = delete;

  // Appends the word tokens of `utf8` (UTF-8, folded) in text order and
  // adds the number of ill-formed subsequences replaced to *invalid.
  // Returns false (having appended no token) if ICU reported an error,
  // which in practice means it ran out of memory.
  // REQUIRES: utf8.size() <= kMaxInputBytes.
  bool Segment(std::string_view utf8, std::vector<std::string>* tokens, uint64_t* invalid);

  // Keeps every ICU length (int32_t) in range: NFKC expands a UTF-8 byte
  // to at most 6 UTF-16 units (U+FDFA, 3 bytes, becomes 18 units).
  static constexpr size_t kMaxInputBytes = size_t{256} << 20;

  // The shared NFKC_Casefold instance (owned by ICU, thread-safe).
  const icu::Normalizer2& normalizer() const { return *nfkc_cf_; }

 private:
  IcuSegmenter(const icu::Normalizer2* nfkc_cf, std::unique_ptr<icu::BreakIterator> words);

  const icu::Normalizer2* nfkc_cf_;
  std::unique_ptr<icu::BreakIterator> words_;
  icu::UnicodeString decoded_;      // the input as UTF-16
  icu::UnicodeString normalized_;   // decoded_ after NFKC_Casefold
  UText text_ = UTEXT_INITIALIZER;  // the iterator's view of the folded text
};

}  // namespace dps
