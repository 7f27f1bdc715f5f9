#include "ingest/icu_segmenter.h"

#include <unicode/ubrk.h>
#include <unicode/utypes.h>

#include "ingest/utf8.h"

namespace dps {
namespace {

// ICU fails at set-up almost only when its data files are missing or
// truncated, an installation problem: report it as an I/O error that names
// the object and ICU's error.
Status IcuError(const char* what, UErrorCode code) {
  return Status::IOError(std::string("ICU ") + what + ": " + u_errorName(code));
}

}  // namespace

Result<std::unique_ptr<IcuSegmenter>> IcuSegmenter::Create() {
  UErrorCode code = U_ZERO_ERROR;
  const icu::Normalizer2* nfkc_cf = icu::Normalizer2::getNFKCCasefoldInstance(code);
  if (U_FAILURE(code)) return IcuError("NFKC_Casefold normalizer (nfkc_cf)", code);
  std::unique_ptr<icu::BreakIterator> words(
      icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), code));
  if (U_FAILURE(code)) return IcuError("word break iterator (root locale)", code);
  if (words == nullptr)
    return IcuError("word break iterator (root locale)", U_MEMORY_ALLOCATION_ERROR);
  return std::unique_ptr<IcuSegmenter>(new IcuSegmenter(nfkc_cf, std::move(words)));
}

IcuSegmenter::IcuSegmenter(const icu::Normalizer2* nfkc_cf,
                           std::unique_ptr<icu::BreakIterator> words)
    : nfkc_cf_(nfkc_cf), words_(std::move(words)) {}

IcuSegmenter::~IcuSegmenter() { utext_close(&text_); }

bool IcuSegmenter::Segment(std::string_view utf8, std::vector<std::string>* tokens,
                           uint64_t* invalid) {
  if (utf8.empty()) return true;
  const auto capacity = static_cast<int32_t>(utf8.size());
  char16_t* buf = decoded_.getBuffer(capacity);
  if (buf == nullptr) return false;
  uint64_t replaced = 0;
  const size_t units = DecodeUtf8ToUtf16(utf8, buf, &replaced);
  decoded_.releaseBuffer(static_cast<int32_t>(units));
  *invalid += replaced;

  // Most text is already folded (lower case, no compatibility characters):
  // the quick check avoids copying it through the normalizer.
  UErrorCode code = U_ZERO_ERROR;
  const icu::UnicodeString* folded = &decoded_;
  if (nfkc_cf_->spanQuickCheckYes(decoded_, code) != decoded_.length()) {
    nfkc_cf_->normalize(decoded_, normalized_, code);
    folded = &normalized_;
  }
  const char16_t* text = folded->getBuffer();
  if (U_FAILURE(code) || text == nullptr) return false;

  // setText(UText*) takes a shallow clone; setText(UnicodeString) would
  // copy the string into the iterator's CharacterIterator on every call.
  utext_openUChars(&text_, text, folded->length(), &code);
  words_->setText(&text_, code);
  if (U_FAILURE(code)) return false;

  int32_t start = words_->first();
  for (int32_t end = words_->next(); end != icu::BreakIterator::DONE;
       start = end, end = words_->next()) {
    if (words_->getRuleStatus() < UBRK_WORD_NUMBER) continue;
    AppendUtf16AsUtf8(text + start, static_cast<size_t>(end - start), &tokens->emplace_back());
  }
  return true;
}

}  // namespace dps
