#include "ingest/utf8.h"

#include <cstring>

namespace dps {
namespace {

// Eight ASCII bytes at a time: text is mostly ASCII, and the byte loop is
// the bottleneck of validation.
bool NextEightAscii(const uint8_t* p, const uint8_t* end) {
  if (end - p < 8) return false;
  uint64_t w;
  std::memcpy(&w, p, 8);
  return (w & 0x8080808080808080ull) == 0;
}

bool IsContinuation(uint8_t b) { return (b & 0xC0) == 0x80; }

}  // namespace

char32_t DecodeUtf8(const uint8_t** p, const uint8_t* end) {
  const uint8_t* s = *p;
  const uint8_t b0 = s[0];
  if (b0 < 0x80) {
    *p = s + 1;
    return b0;
  }
  // Table 3-7 of the Unicode Standard: the lead byte fixes the length and
  // the range allowed for the second byte (which excludes overlongs,
  // surrogates and code points above U+10FFFF); later bytes are 80..BF.
  size_t len;
  uint8_t lo = 0x80, hi = 0xBF;
  char32_t cp;
  if (b0 < 0xC2 || b0 > 0xF4) {
    *p = s + 1;  // continuation byte, overlong lead C0/C1, or beyond U+10FFFF
    return kInvalidCodePoint;
  }
  if (b0 < 0xE0) {
    len = 2;
    cp = b0 & 0x1F;
  } else if (b0 < 0xF0) {
    len = 3;
    cp = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else {
    len = 4;
    cp = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  }
  // The maximal subpart ends before the first byte that cannot continue
  // the sequence (that byte starts the next decode) or at end of input.
  size_t i = 1;
  for (; i < len; ++i) {
    if (s + i == end) break;
    const uint8_t b = s[i];
    if (i == 1 ? (b < lo || b > hi) : !IsContinuation(b)) break;
    cp = (cp << 6) | (b & 0x3F);
  }
  *p = s + i;
  return i == len ? cp : kInvalidCodePoint;
}

size_t WellFormedUtf8Prefix(std::string_view in) {
  const uint8_t* begin = reinterpret_cast<const uint8_t*>(in.data());
  const uint8_t* end = begin + in.size();
  const uint8_t* p = begin;
  while (p < end) {
    if (NextEightAscii(p, end)) {
      p += 8;
      continue;
    }
    const uint8_t* start = p;
    if (DecodeUtf8(&p, end) == kInvalidCodePoint) return static_cast<size_t>(start - begin);
  }
  return in.size();
}

void AppendUtf8(char32_t cp, std::string* out) {
  char buf[4];
  size_t n;
  if (cp < 0x80) {
    buf[0] = static_cast<char>(cp);
    n = 1;
  } else if (cp < 0x800) {
    buf[0] = static_cast<char>(0xC0 | (cp >> 6));
    buf[1] = static_cast<char>(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    buf[0] = static_cast<char>(0xE0 | (cp >> 12));
    buf[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    buf[2] = static_cast<char>(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    buf[0] = static_cast<char>(0xF0 | (cp >> 18));
    buf[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    buf[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    buf[3] = static_cast<char>(0x80 | (cp & 0x3F));
    n = 4;
  }
  out->append(buf, n);
}

std::string SanitizeUtf8(std::string_view in, uint64_t* replaced) {
  size_t valid = WellFormedUtf8Prefix(in);
  if (valid == in.size()) return std::string(in);
  std::string out;
  out.reserve(in.size() + 16);
  out.append(in.data(), valid);
  const uint8_t* end = reinterpret_cast<const uint8_t*>(in.data()) + in.size();
  const uint8_t* p = reinterpret_cast<const uint8_t*>(in.data()) + valid;
  uint64_t count = 0;
  while (p < end) {
    const uint8_t* start = p;
    if (DecodeUtf8(&p, end) == kInvalidCodePoint) {
      AppendUtf8(kReplacementCharacter, &out);
      ++count;
    } else {
      out.append(reinterpret_cast<const char*>(start), static_cast<size_t>(p - start));
    }
  }
  if (replaced != nullptr) *replaced += count;
  return out;
}

size_t DecodeUtf8ToUtf16(std::string_view in, char16_t* out, uint64_t* replaced) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(in.data());
  const uint8_t* end = p + in.size();
  char16_t* o = out;
  uint64_t count = 0;
  while (p < end) {
    if (*p < 0x80) {
      *o++ = *p++;
      continue;
    }
    char32_t cp = DecodeUtf8(&p, end);
    if (cp == kInvalidCodePoint) {
      *o++ = static_cast<char16_t>(kReplacementCharacter);
      ++count;
    } else if (cp < 0x10000) {
      *o++ = static_cast<char16_t>(cp);
    } else {
      cp -= 0x10000;
      *o++ = static_cast<char16_t>(0xD800 | (cp >> 10));
      *o++ = static_cast<char16_t>(0xDC00 | (cp & 0x3FF));
    }
  }
  if (replaced != nullptr) *replaced += count;
  return static_cast<size_t>(o - out);
}

void AppendUtf16AsUtf8(const char16_t* s, size_t n, std::string* out) {
  for (size_t i = 0; i < n; ++i) {
    char32_t c = s[i];
    if (c < 0x80) {
      out->push_back(static_cast<char>(c));
      continue;
    }
    if (c >= 0xD800 && c <= 0xDFFF) {
      if (c <= 0xDBFF && i + 1 < n && s[i + 1] >= 0xDC00 && s[i + 1] <= 0xDFFF) {
        c = 0x10000 + ((c - 0xD800) << 10) + (s[i + 1] - 0xDC00);
        ++i;
      } else {
        c = kReplacementCharacter;
      }
    }
    AppendUtf8(c, out);
  }
}

void SanitizeUtf8InPlace(std::string* s, uint64_t* replaced) {
  if (WellFormedUtf8Prefix(*s) == s->size()) return;
  *s = SanitizeUtf8(*s, replaced);
}

uint64_t CountInvalidUtf8Bytes(std::string_view in) {
  const auto* p = reinterpret_cast<const uint8_t*>(in.data());
  const auto* end = p + in.size();
  uint64_t invalid = 0;
  while (p < end) {
    const size_t valid = WellFormedUtf8Prefix(
        std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(end - p)));
    p += valid;
    if (p >= end) break;
    const uint8_t* start = p;
    DecodeUtf8(&p, end);  // ill-formed here: skips its maximal subpart
    invalid += static_cast<uint64_t>(p - start);
  }
  return invalid;
}

size_t EncodeUtf8(char32_t cp, char* dst) {
  std::string tmp;
  AppendUtf8(cp, &tmp);
  for (size_t i = 0; i < tmp.size(); ++i) dst[i] = tmp[i];
  return tmp.size();
}

}  // namespace dps
