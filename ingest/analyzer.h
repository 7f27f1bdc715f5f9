// The text analyzer, shared by ingest and query (DESIGN.md, "Analysis"):
// Unicode NFKC_Casefold, then ICU word segmentation (UAX #29 rules of the
// root locale plus ICU's dictionaries for Chinese, Japanese, Thai, Khmer,
// Lao, Burmese), keeping the segments ICU tags as number, letter, kana or
// ideograph. Punctuation, spaces, symbols and emoji are dropped.
//
// Pure-ASCII stretches take a byte-table fast path that yields exactly
// ICU's tokens (ascii_tokenizer.h); the rest goes through ICU. Ill-formed
// UTF-8 is never an error: each maximal ill-formed subpart reads as U+FFFD
// (utf8.h; readers can store the same repair with SanitizeUtf8) and is
// counted. docs/analyzer.md explains the choices and the equivalence.
//
// An index chooses its analyzer at creation (index/analyzer_spec.h):
// this one (`icu`), optionally followed per word by accent folding
// (accent_folder.h) and then a Snowball stemmer (stemmer.h), or
// `whitespace` (whitespace_tokenizer.h) for pre-tokenized text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "index/analyzer_spec.h"
#include "ingest/utf8.h"

namespace dps {

class AccentFolder;
class IcuSegmenter;
class Stemmer;

struct AnalyzerOptions {
  // Tokenize pure-ASCII stretches without ICU. Same tokens, several times
  // faster on Latin-script text. false sends every byte through ICU: the
  // reference the fast path is tested against, and a benchmark baseline.
  bool ascii_fast_path = true;

  // The longest stretch handed to ICU in one piece; bounds the UTF-16
  // buffers (about 4 bytes per input byte, more for text that NFKC
  // expands). A longer stretch is cut before a whitespace character, which
  // changes no token; only a stretch with no whitespace at all in this
  // many bytes is cut elsewhere (AnalyzeStats::forced_icu_cuts), which may
  // split the token across the cut in two. Clamped to
  // [16, 256 MiB] (IcuSegmenter::kMaxInputBytes).
  size_t max_icu_chunk_bytes = size_t{1} << 20;
};

// Counters of one or more Analyze calls; Analyze adds to them.
struct AnalyzeStats {
  uint64_t invalid_utf8_sequences = 0;  // ill-formed subparts read as U+FFFD
  uint64_t ascii_fast_path_bytes = 0;   // input bytes tokenized without ICU
  uint64_t icu_path_bytes = 0;          // input bytes tokenized by ICU
  uint64_t forced_icu_cuts = 0;         // see max_icu_chunk_bytes
  uint64_t icu_failures = 0;            // stretches ICU failed on (out of
                                        // memory): they yielded no tokens
  uint64_t filter_failures = 0;         // tokens accent folding or stemming
                                        // failed on (out of memory): kept
                                        // unfolded or unstemmed
};

// Turns text into index terms. Owns an ICU break iterator and reusable
// buffers. Not thread-safe (ICU break iterators keep per-text state): use
// one Analyzer per thread. The first one in a process takes ~8 ms (ICU
// data, the fast-path self-check); later ones tens of microseconds.
class Analyzer {
 public:
  // The analyzer `spec` names (an index's MANIFEST says which, for ingest
  // and queries alike). InvalidArgument for a spec whose options do not go
  // together (AnalyzerSpec::Validate), Unsupported for a stemmer this
  // build's libstemmer lacks, IOError if ICU's data lacks the normalizers or
  // the word break rules.
  static Result<std::unique_ptr<Analyzer>> Create(const AnalyzerSpec& spec,
                                                  const AnalyzerOptions& options = {});
  // The default analyzer (`icu`).
  static Result<std::unique_ptr<Analyzer>> Create(const AnalyzerOptions& options = {}) {
    return Create(AnalyzerSpec(), options);
  }

  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  // Appends the tokens of `utf8_text` (folded, UTF-8) to *tokens in text
  // order and adds to *stats (may be null). Never fails; any bytes allowed.
  void Analyze(std::string_view utf8_text, std::vector<std::string>* tokens, AnalyzeStats* stats);

  // Where a first piece of `text`, at least `min_bytes` long, may end so
  // that analyzing the pieces one after another gives the tokens of the
  // whole: after a space, tab, CR or LF that an ASCII byte follows (the
  // analyzer's own cut rule, docs/analyzer.md; whitespace separates in
  // both tokenizers). text.size() when there is no such place.
  static size_t PieceEnd(std::string_view text, size_t min_bytes);

  // "ICU 72.1, Unicode 15.0": what the terms depend on. An ICU upgrade
  // can move dictionary splits or word-break classes, so an index should
  // record this and warn when it changes.
  static std::string IcuVersion();

  // False if options said so, if the analyzer is `whitespace` (no ICU),
  // or if the fast path disagreed with this process's ICU when first checked
  // (a future ICU may reclassify an ASCII character, as ICU 72 did with
  // '@'); then everything goes through ICU.
  bool ascii_fast_path_enabled() const { return fast_path_; }

 private:
  Analyzer(const AnalyzerOptions& options, std::unique_ptr<IcuSegmenter> icu);

  // The icu analyzer's tokens, before the word filters.
  void Tokenize(std::string_view utf8_text, std::vector<std::string>* tokens, AnalyzeStats* stats);
  // Folds accents in, then stems, (*tokens)[first...] as the spec says;
  // *stats holds this call's counts so far.
  void FilterWords(std::vector<std::string>* tokens, size_t first, AnalyzeStats* stats);

  // Tokenizes `text` with ICU, in pieces of at most max_icu_chunk_ bytes.
  void AnalyzeWithIcu(std::string_view text, std::vector<std::string>* tokens, AnalyzeStats* stats);
  // Where to end the first piece of `text` (longer than max_icu_chunk_);
  // *exact says whether the cut is before whitespace.
  size_t FindIcuCut(std::string_view text, bool* exact) const;

  std::unique_ptr<IcuSegmenter> icu_;     // null for whitespace
  std::unique_ptr<AccentFolder> folder_;  // null unless the spec folds accents
  std::unique_ptr<Stemmer> stemmer_;      // null unless the spec stems
  size_t max_icu_chunk_;
  bool fast_path_;
};

}  // namespace dps
