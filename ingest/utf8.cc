#include "ingest/utf8.h"

#include <cstring>

namespace dps {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed sequence at p (1-4), or the negated length of
// the maximal ill-formed subpart starting there (always >= 1 byte).
// REQUIRES: n >= 1.
inline int Step(const unsigned char* p, size_t n) {
  const unsigned char c = p[0];
  if (c < 0x80) return 1;
  int len;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return -1;  // continuation byte, C0/C1 or F5..FF: never a lead byte
  }
  for (int i = 1; i < len; ++i) {
    if (static_cast<size_t>(i) >= n || p[i] < lo || p[i] > hi) return -i;
    lo = 0x80;
    hi = 0xBF;
  }
  return len;
}

// Offset of the first byte that is not part of a well-formed prefix.
size_t ValidPrefix(std::string_view in) {
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  const size_t n = in.size();
  size_t i = 0;
  while (i < n) {
    // Most text is ASCII: skip it a word at a time.
    while (i + 8 <= n) {
      uint64_t word;
      std::memcpy(&word, p + i, 8);
      if (word & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= n) break;
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    int step = Step(p + i, n - i);
    if (step < 0) return i;
    i += static_cast<size_t>(step);
  }
  return n;
}

// Appends the repaired form of `in` (which starts at an ill-formed byte or
// anywhere else) to *out.
void AppendSanitized(std::string_view in, std::string* out, uint64_t* replaced) {
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  const size_t n = in.size();
  size_t i = 0;
  while (i < n) {
    size_t valid = ValidPrefix(in.substr(i));
    out->append(in.data() + i, valid);
    i += valid;
    if (i >= n) break;
    int step = Step(p + i, n - i);  // negative: ValidPrefix stopped here
    out->append(kReplacement);
    ++*replaced;
    i += static_cast<size_t>(-step);
  }
}

}  // namespace

bool IsValidUtf8(std::string_view in) { return ValidPrefix(in) == in.size(); }

std::string SanitizeUtf8(std::string_view in, uint64_t* replaced) {
  size_t valid = ValidPrefix(in);
  if (valid == in.size()) return std::string(in);
  std::string out;
  out.reserve(in.size() + 16);
  out.append(in.data(), valid);
  AppendSanitized(in.substr(valid), &out, replaced);
  return out;
}

void SanitizeUtf8InPlace(std::string* s, uint64_t* replaced) {
  size_t valid = ValidPrefix(*s);
  if (valid == s->size()) return;
  std::string out;
  out.reserve(s->size() + 16);
  out.append(s->data(), valid);
  AppendSanitized(std::string_view(*s).substr(valid), &out, replaced);
  s->swap(out);
}

uint64_t CountInvalidUtf8Bytes(std::string_view in) {
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  uint64_t invalid = 0;
  size_t i = 0;
  while (i < in.size()) {
    i += ValidPrefix(in.substr(i));
    if (i >= in.size()) break;
    int step = Step(p + i, in.size() - i);
    invalid += static_cast<uint64_t>(-step);
    i += static_cast<size_t>(-step);
  }
  return invalid;
}

size_t EncodeUtf8(uint32_t cp, char* dst) {
  if (cp < 0x80) {
    dst[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    dst[0] = static_cast<char>(0xC0 | (cp >> 6));
    dst[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    dst[0] = static_cast<char>(0xE0 | (cp >> 12));
    dst[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    dst[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  dst[0] = static_cast<char>(0xF0 | (cp >> 18));
  dst[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  dst[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  dst[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  char buf[4];
  out->append(buf, EncodeUtf8(cp, buf));
}

}  // namespace dps
