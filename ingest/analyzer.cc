#include "ingest/analyzer.h"

#include <unicode/uchar.h>
#include <unicode/uversion.h>

#include <algorithm>
#include <cstring>

#include "ingest/accent_folder.h"
#include "ingest/ascii_tokenizer.h"
#include "ingest/icu_segmenter.h"
#include "ingest/stemmer.h"
#include "ingest/whitespace_tokenizer.h"

namespace dps {
namespace {

// Splitting off an ASCII island between two non-ASCII stretches costs an
// extra ICU call; below this length it is cheaper to let ICU take it.
constexpr size_t kMinAsciiIsland = 48;

size_t FindNonAscii(const unsigned char* s, size_t pos, size_t n) {
  while (n - pos >= 8) {
    uint64_t w;
    std::memcpy(&w, s + pos, 8);
    if (w & 0x8080808080808080ull) break;
    pos += 8;
  }
  while (pos < n && s[pos] < 0x80) ++pos;
  return pos;
}

// The first position after `q` where text may be cut: after an ASCII
// separator and before an ASCII byte (ascii_tokenizer.h), or n.
size_t NextCut(const unsigned char* s, size_t q, size_t n) {
  size_t e = q + 1;
  while (e < n && !(s[e] < 0x80 && IsAsciiSeparator(s[e - 1]))) ++e;
  return e;
}

// Runs the fast path and ICU on one text exercising every ASCII character
// in every class context, and checks that NFKC_Casefold treats ASCII as the
// fast path assumes (lower-casing only, and a normalization boundary before
// every ASCII character, which the cuts in Analyze rely on). Joining the
// probes with '\n' relies on the cut rule, which this checks as well: a
// wrong separator shows up as a joined token.
bool FastPathAgreesWithIcu(IcuSegmenter* icu) {
  const icu::Normalizer2& nfkc_cf = icu->normalizer();
  for (char32_t c = 0; c < 0x80; ++c) {
    UErrorCode code = U_ZERO_ERROR;
    icu::UnicodeString folded =
        nfkc_cf.normalize(icu::UnicodeString(static_cast<UChar32>(c)), code);
    const char32_t lower = (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
    if (U_FAILURE(code) || folded.length() != 1 || folded[0] != lower ||
        !nfkc_cf.hasBoundaryBefore(static_cast<UChar32>(c))) {
      return false;
    }
  }
  static constexpr const char* kContexts[] = {
      "%",  "a%b", "A%B", "1%2",  "%%",   "a%",  "%a",  "1%",    "%1",    "_%",
      "%_", "a%1", "1%a", "a%%b", "1%%2", "_%_", "@%@", "a%b%c", "1%2%3", "%%%",
  };
  std::string probe;
  for (int c = 0; c < 0x80; ++c) {
    for (const char* context : kContexts) {
      for (const char* p = context; *p != '\0'; ++p)
        probe.push_back(*p == '%' ? static_cast<char>(c) : *p);
      probe.push_back('\n');
    }
  }
  std::vector<std::string> fast, reference;
  uint64_t invalid = 0;
  TokenizeAscii(probe, &fast);
  return icu->Segment(probe, &reference, &invalid) && fast == reference;
}

}  // namespace

Result<std::unique_ptr<Analyzer>> Analyzer::Create(const AnalyzerSpec& spec, const AnalyzerOptions& options) {
  DPS_RETURN_IF_ERROR(spec.Validate());
  std::unique_ptr<IcuSegmenter> icu;
  if (spec.tokenizer == AnalyzerSpec::Tokenizer::kIcu) {
    DPS_ASSIGN_OR_RETURN(icu, IcuSegmenter::Create());
  }
  std::unique_ptr<Analyzer> analyzer(new Analyzer(options, std::move(icu)));
  if (spec.fold_accents) {
    DPS_ASSIGN_OR_RETURN(analyzer->folder_, AccentFolder::Create());
  }
  if (!spec.stem.empty()) {
    DPS_ASSIGN_OR_RETURN(analyzer->stemmer_, Stemmer::Create(spec.stem));
  }
  return analyzer;
}

Analyzer::Analyzer(const AnalyzerOptions& options, std::unique_ptr<IcuSegmenter> icu)
    : icu_(std::move(icu)),
      max_icu_chunk_(
          std::clamp<size_t>(options.max_icu_chunk_bytes, 16, IcuSegmenter::kMaxInputBytes)),
      fast_path_(false) {
  if (options.ascii_fast_path && icu_ != nullptr) {
    // Checked once per process: the answer depends only on the ICU library.
    static const bool agrees = FastPathAgreesWithIcu(icu_.get());
    fast_path_ = agrees;
  }
}

Analyzer::~Analyzer() = default;

std::string Analyzer::IcuVersion() {
  UVersionInfo unicode;
  u_getUnicodeVersion(unicode);
  char unicode_string[U_MAX_VERSION_STRING_LENGTH];
  u_versionToString(unicode, unicode_string);
  return std::string("ICU ") + U_ICU_VERSION + ", Unicode " + unicode_string;
}

void Analyzer::Analyze(std::string_view utf8_text, std::vector<std::string>* tokens,
                       AnalyzeStats* stats) {
  AnalyzeStats local;
  const size_t first = tokens->size();
  if (icu_ == nullptr) {
    TokenizeWhitespace(utf8_text, tokens, &local.invalid_utf8_sequences);
  } else {
    Tokenize(utf8_text, tokens, &local);
    FilterWords(tokens, first, &local);
  }
  if (stats != nullptr) {
    stats->invalid_utf8_sequences += local.invalid_utf8_sequences;
    stats->ascii_fast_path_bytes += local.ascii_fast_path_bytes;
    stats->icu_path_bytes += local.icu_path_bytes;
    stats->forced_icu_cuts += local.forced_icu_cuts;
    stats->icu_failures += local.icu_failures;
    stats->filter_failures += local.filter_failures;
  }
}

size_t Analyzer::PieceEnd(std::string_view text, size_t min_bytes) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  for (size_t e = std::max<size_t>(min_bytes, 1); e < text.size(); ++e) {
    const unsigned char before = s[e - 1];
    const bool space = before == ' ' || before == '\t' || before == '\n' || before == '\r';
    if (space && s[e] < 0x80) return e;
  }
  return text.size();
}

// Word by word, after tokenizing: both paths of Tokenize yield the same
// tokens, so they yield the same filtered terms. Folding goes first so that
// words differing only in accents reach the stemmer as one word (a stemmer
// given café and cafe may cut them differently).
void Analyzer::FilterWords(std::vector<std::string>* tokens, size_t first, AnalyzeStats* stats) {
  // Text that took the fast path alone has only ASCII words: nothing to
  // fold (checking each word would cost gcide's ingest 10%).
  AccentFolder* folder = stats->icu_path_bytes > 0 ? folder_.get() : nullptr;
  if (folder == nullptr && stemmer_ == nullptr) return;
  for (size_t i = first; i < tokens->size(); ++i) {
    std::string& word = (*tokens)[i];
    if (folder != nullptr && !folder->Fold(&word)) ++stats->filter_failures;
    if (stemmer_ != nullptr && !stemmer_->Stem(&word)) ++stats->filter_failures;
  }
}

// Cuts are only made where the tokens of the whole text are the tokens of
// the left part followed by those of the right part: between an ASCII
// separator and an ASCII byte (docs/analyzer.md gives the argument).
void Analyzer::Tokenize(std::string_view utf8_text, std::vector<std::string>* tokens,
                        AnalyzeStats* stats) {
  if (!fast_path_) return AnalyzeWithIcu(utf8_text, tokens, stats);
  const auto* s = reinterpret_cast<const unsigned char*>(utf8_text.data());
  const size_t n = utf8_text.size();
  size_t pos = 0;
  while (pos < n) {
    size_t q = FindNonAscii(s, pos, n);
    if (q == n) {
      TokenizeAscii(utf8_text.substr(pos), tokens);
      stats->ascii_fast_path_bytes += n - pos;
      break;
    }
    // The ICU stretch starts after the last separator before q that is
    // followed by an ASCII byte, so the byte at the cut is never q's.
    size_t start = q > pos ? q - 1 : pos;
    while (start > pos && !IsAsciiSeparator(s[start - 1])) --start;
    if (start > pos) {
      TokenizeAscii(utf8_text.substr(pos, start - pos), tokens);
      stats->ascii_fast_path_bytes += start - pos;
    }
    size_t end = NextCut(s, q, n);
    while (end < n) {
      q = FindNonAscii(s, end, n);
      if (q == n || q - end >= kMinAsciiIsland) break;
      end = NextCut(s, q, n);
    }
    AnalyzeWithIcu(utf8_text.substr(start, end - start), tokens, stats);
    pos = end;
  }
}

void Analyzer::AnalyzeWithIcu(std::string_view text, std::vector<std::string>* tokens,
                              AnalyzeStats* stats) {
  stats->icu_path_bytes += text.size();
  while (!text.empty()) {
    size_t piece = text.size();
    if (piece > max_icu_chunk_) {
      bool exact = false;
      piece = FindIcuCut(text, &exact);
      if (!exact) ++stats->forced_icu_cuts;
    }
    if (!icu_->Segment(text.substr(0, piece), tokens, &stats->invalid_utf8_sequences)) {
      ++stats->icu_failures;
    }
    text.remove_prefix(piece);
  }
}

// A cut just before a whitespace character W that starts a normalization
// segment changes no token: no UAX #29 rule joins anything to a following
// W (W is not Extend, Format, ZWJ, a letter, digit or Mid character), the
// tokens after W depend only on the text from W on, and NFKC_Casefold of
// the two sides concatenates to that of the whole. Cuts fall on the same
// sequence boundaries DecodeUtf8 finds in the whole text, so the
// ill-formed subparts (and their count) do not change either.
size_t Analyzer::FindIcuCut(std::string_view text, bool* exact) const {
  const icu::Normalizer2& nfkc_cf = icu_->normalizer();
  const auto* begin = reinterpret_cast<const uint8_t*>(text.data());
  const uint8_t* end = begin + text.size();
  const uint8_t* limit = begin + max_icu_chunk_;
  size_t last_space = 0, last_segment = 0, last_char = 0;
  const uint8_t* p = begin;
  DecodeUtf8(&p, end);  // a cut at 0 would make no progress
  while (p <= limit && p < end) {
    const auto at = static_cast<size_t>(p - begin);
    char32_t c = DecodeUtf8(&p, end);
    if (c == kInvalidCodePoint) c = kReplacementCharacter;
    last_char = at;
    if (nfkc_cf.hasBoundaryBefore(static_cast<UChar32>(c))) {
      last_segment = at;
      if (u_isUWhiteSpace(static_cast<UChar32>(c))) last_space = at;
    }
  }
  *exact = last_space != 0;
  if (last_space != 0) return last_space;
  if (last_segment != 0) return last_segment;
  return last_char != 0 ? last_char : text.size();
}

}  // namespace dps
