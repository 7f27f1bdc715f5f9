#include "ingest/json_text.h"

#include <bit>
#include <cstring>

#include "ingest/utf8.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace dps {

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Parses the four hex digits at p (REQUIRES: 4 readable bytes); -1 if bad.
int32_t Hex4(const char* p) {
  int32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    int h = HexValue(p[i]);
    if (h < 0) return -1;
    v = v << 4 | h;
  }
  return v;
}

constexpr uint32_t kReplacementChar = 0xFFFD;

// SWAR: the high bit of each byte of the result is set where `w` (eight
// bytes in memory order) holds a backslash. Bits above the lowest marked
// byte may be false positives (borrows), the lowest one is exact.
inline uint64_t BackslashBytes(uint64_t w) {
  const uint64_t x = w ^ 0x5C5C5C5C5C5C5C5Cull;  // zero bytes where '\\' was
  return (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
}

// The index in memory order of the first byte marked by BackslashBytes.
inline size_t FirstMarkedByte(uint64_t marks) {
  if constexpr (std::endian::native == std::endian::little) {
    return static_cast<size_t>(std::countr_zero(marks)) / 8;
  } else {
    return static_cast<size_t>(std::countl_zero(marks)) / 8;
  }
}

}  // namespace

bool DecodeJsonString(std::string_view body, std::string* out, uint64_t* replaced,
                      std::string* error) {
  // Decoded text is never longer than its encoding (an escape of n bytes
  // decodes to fewer), so the output is sized once and written through a
  // pointer that never gets ahead of the input position.
  out->resize(body.size());
  char* const start = out->data();
  char* dst = start;
  const char* p = body.data();
  const char* const end = p + body.size();
  for (;;) {
    // Copy up to the next backslash a block at a time. Real text has an
    // escape every few dozen bytes (GCIDE: every 29), so finding it inside
    // the block matters as much as skipping blocks without one.
#if defined(__SSE2__)
    const __m128i kBackslash = _mm_set1_epi8('\\');
    while (end - p >= 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      // The store stays inside *out because dst - start <= p - body.data().
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), v);
      const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, kBackslash)));
      if (mask != 0) {
        const size_t k = static_cast<size_t>(std::countr_zero(mask));
        dst += k;
        p += k;
        break;
      }
      dst += 16;
      p += 16;
    }
#endif
    while (end - p >= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      // The store stays inside *out because dst - start <= p - body.data().
      std::memcpy(dst, &w, 8);
      const uint64_t backslashes = BackslashBytes(w);
      if (backslashes != 0) {
        const size_t k = FirstMarkedByte(backslashes);
        dst += k;
        p += k;
        break;
      }
      dst += 8;
      p += 8;
    }
    while (p != end && *p != '\\') *dst++ = *p++;
    if (p == end) break;
    if (++p == end) {
      *error = "backslash at the end of a string";
      return false;
    }
    const char c = *p++;
    switch (c) {
      case '"':
        *dst++ = '"';
        break;
      case '\\':
        *dst++ = '\\';
        break;
      case '/':
        *dst++ = '/';
        break;
      case 'b':
        *dst++ = '\b';
        break;
      case 'f':
        *dst++ = '\f';
        break;
      case 'n':
        *dst++ = '\n';
        break;
      case 'r':
        *dst++ = '\r';
        break;
      case 't':
        *dst++ = '\t';
        break;
      case 'u': {
        int32_t cp = end - p >= 4 ? Hex4(p) : -1;
        if (cp < 0) {
          *error = "invalid \\u escape in a string";
          return false;
        }
        p += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          // A high surrogate: only a following \uDC00-\uDFFF completes it.
          int32_t lo = end - p >= 6 && p[0] == '\\' && p[1] == 'u' ? Hex4(p + 2) : -1;
          if (lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            p += 6;
          } else {
            cp = kReplacementChar;
            ++*replaced;
          }
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          cp = kReplacementChar;
          ++*replaced;
        }
        dst += EncodeUtf8(static_cast<uint32_t>(cp), dst);
        break;
      }
      default:
        *error = "invalid escape \\";
        error->push_back(c);
        *error += " in a string";
        // A control or non-ASCII byte would make the message itself bad text.
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F) {
          *error = "invalid escape in a string";
        }
        return false;
    }
  }
  out->resize(static_cast<size_t>(dst - start));
  return true;
}

bool IsJsonInteger(std::string_view t) {
  size_t i = 0;
  if (i < t.size() && t[i] == '-') ++i;
  if (i >= t.size()) return false;
  if (t[i] == '0') return i + 1 == t.size();
  for (; i < t.size(); ++i) {
    if (t[i] < '0' || t[i] > '9') return false;
  }
  return true;
}

namespace {

// A recursive-descent recogniser over [p, end). Each function advances p
// past what it accepts and returns false on the first error.
class Skipper {
 public:
  Skipper(const char* p, const char* end) : p_(p), end_(end) {}
  const char* position() const { return p_; }

  bool Value(int depth) {
    SkipSpace();
    if (p_ == end_) return false;
    switch (*p_) {
      case '{':
        return Object(depth + 1);
      case '[':
        return Array(depth + 1);
      case '"':
        return String();
      case 't':
        return Literal("true");
      case 'f':
        return Literal("false");
      case 'n':
        return Literal("null");
      default:
        return Number();
    }
  }

 private:
  void SkipSpace() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r' || *p_ == '\n')) ++p_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  bool Literal(std::string_view word) {
    if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) {
      return false;
    }
    p_ += word.size();
    return true;
  }
  bool Digits() {
    const char* start = p_;
    while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    return p_ != start;
  }
  bool Number() {
    if (p_ != end_ && *p_ == '-') ++p_;
    if (p_ != end_ && *p_ == '0') {
      ++p_;
    } else if (!Digits()) {
      return false;
    }
    if (p_ != end_ && *p_ == '.') {
      ++p_;
      if (!Digits()) return false;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (!Digits()) return false;
    }
    return true;
  }
  bool String() {
    ++p_;  // the opening quote
    while (p_ != end_) {
      const unsigned char c = static_cast<unsigned char>(*p_++);
      if (c == '"') return true;
      if (c < 0x20) return false;
      if (c != '\\') continue;
      if (p_ == end_) return false;
      const char e = *p_++;
      if (e == 'u') {
        if (end_ - p_ < 4 || Hex4(p_) < 0) return false;
        p_ += 4;
      } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
        return false;
      }
    }
    return false;
  }
  bool Object(int depth) {
    if (depth > kMaxJsonDepth) return false;
    ++p_;  // '{'
    if (Consume('}')) return true;
    do {
      SkipSpace();
      if (p_ == end_ || *p_ != '"' || !String() || !Consume(':') || !Value(depth)) return false;
    } while (Consume(','));
    return Consume('}');
  }
  bool Array(int depth) {
    if (depth > kMaxJsonDepth) return false;
    ++p_;  // '['
    if (Consume(']')) return true;
    do {
      if (!Value(depth)) return false;
    } while (Consume(','));
    return Consume(']');
  }

  const char* p_;
  const char* const end_;
};

}  // namespace

bool SkipJsonValue(std::string_view text, size_t* length) {
  Skipper s(text.data(), text.data() + text.size());
  if (!s.Value(0)) return false;
  *length = static_cast<size_t>(s.position() - text.data());
  return true;
}

std::string_view CanonicalInteger(std::string_view token) {
  return token == "-0" ? std::string_view("0") : token;
}

}  // namespace dps
