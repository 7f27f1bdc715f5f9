#include "ingest/accent_folder.h"

#include <algorithm>
#include <climits>

namespace dps {

namespace {

bool IsAscii(const std::string& s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

}  // namespace

Result<std::unique_ptr<AccentFolder>> AccentFolder::Create() {
  UErrorCode code = U_ZERO_ERROR;
  const icu::Normalizer2* nfd = icu::Normalizer2::getNFDInstance(code);
  const icu::Normalizer2* nfc = U_SUCCESS(code) ? icu::Normalizer2::getNFCInstance(code) : nullptr;
  if (U_FAILURE(code)) return Status::IOError(std::string("ICU NFD/NFC normalizers: ") + u_errorName(code));
  icu::UnicodeSet marks;
  marks.add(0x0300, 0x036F);  // Combining Diacritical Marks
  marks.add(0x1AB0, 0x1AFF);  // ... Extended
  marks.add(0x1DC0, 0x1DFF);  // ... Supplement
  marks.add(0x20D0, 0x20FF);  // ... for Symbols
  marks.add(0xFE20, 0xFE2F);  // Combining Half Marks
  icu::UnicodeSet candidates(icu::UnicodeString(u"[[:NFD_QC=No:]-[\uAC00-\uD7A3]]"), code);
  if (U_FAILURE(code)) return Status::IOError(std::string("ICU NFD_QC property: ") + u_errorName(code));
  candidates.addAll(marks);
  marks.freeze();
  candidates.freeze();
  return std::unique_ptr<AccentFolder>(new AccentFolder(nfd, nfc, std::move(marks), std::move(candidates)));
}

AccentFolder::AccentFolder(const icu::Normalizer2* nfd, const icu::Normalizer2* nfc, icu::UnicodeSet marks,
                           icu::UnicodeSet candidates)
    : nfd_(nfd), nfc_(nfc), marks_(std::move(marks)), candidates_(std::move(candidates)) {}

bool AccentFolder::Fold(std::string* word) {
  if (IsAscii(*word)) return true;  // NFD, NFC and the marks leave ASCII alone
  const auto size = static_cast<int32_t>(std::min<size_t>(word->size(), INT32_MAX));
  if (candidates_.spanUTF8(word->data(), size, USET_SPAN_NOT_CONTAINED) == size) return true;
  UErrorCode code = U_ZERO_ERROR;
  nfd_->normalize(icu::UnicodeString::fromUTF8(*word), decomposed_, code);
  if (U_FAILURE(code)) return false;
  stripped_.remove();
  bool removed = false;
  for (int32_t i = 0; i < decomposed_.length();) {
    const UChar32 c = decomposed_.char32At(i);
    if (marks_.contains(c)) {
      removed = true;
    } else {
      stripped_.append(c);
    }
    i += U16_LENGTH(c);
  }
  if (!removed) return true;  // NFC(NFD(w)) = w: the word was NFC already
  nfc_->normalize(stripped_, composed_, code);
  if (U_FAILURE(code) || composed_.isBogus()) return false;
  word->clear();
  composed_.toUTF8String(*word);
  return true;
}

}  // namespace dps
