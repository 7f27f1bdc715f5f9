// Snowball stemming through libstemmer (Debian's libstemmer-dev): the
// `stem=LANG` option of an analyzer spec (index/analyzer_spec.h). Stems
// case-folded UTF-8 words, as the icu analyzer yields them.
//
// One Stemmer per thread: a libstemmer stemmer keeps its working buffer in
// the object (the analyzer owning it is per thread anyway).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"

struct sb_stemmer;

namespace dps {

class Stemmer {
 public:
  // The stemmers this build's libstemmer offers, by canonical name, sorted
  // ("arabic", ..., "english", ..., "porter", ...).
  static const std::vector<std::string>& Languages();
  // InvalidArgument naming the available languages when `language` is not
  // one of Languages() (aliases such as "en" are not accepted: an index
  // records one canonical name).
  static Status CheckLanguage(const std::string& language);
  // CheckLanguage's error as Unsupported (an index naming a stemmer this
  // build lacks is not the user's typo), or the stemmer.
  static Result<std::unique_ptr<Stemmer>> Create(const std::string& language);
  ~Stemmer();
  Stemmer(const Stemmer&) = delete;
  Stemmer& operator=(const Stemmer&) = delete;

  // Replaces *word by its stem. Returns false, leaving *word as it was, if
  // libstemmer failed (out of memory).
  bool Stem(std::string* word);

  // Words remembered with their stems: text repeats its words (Zipf), and
  // a lookup is cheaper than a Snowball run (gcide ingest, one thread:
  // stemming every token took 1.64x plain icu's time, with the memo about
  // 1.5x; bench/RESULTS.md "Analyzer choices"). When full the memo starts
  // again, bounding its memory (about 2 MB).
  static constexpr size_t kMemoWords = 1 << 14;

 private:
  explicit Stemmer(sb_stemmer* stemmer) : stemmer_(stemmer) {}
  sb_stemmer* stemmer_;
  std::unordered_map<std::string, std::string> memo_;
};

}  // namespace dps
