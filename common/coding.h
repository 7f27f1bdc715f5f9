// Little-endian fixed-width and LEB128 varint coding with bounds checks.
//
// Every on-disk and on-wire integer goes through these helpers. Decoders take
// an explicit end pointer and return nullptr when the input is truncated or
// the varint is overlong, so a corrupt length can never read out of bounds.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace dps {

inline void PutFixed16(std::string* out, uint16_t v) {
  out->push_back(static_cast<char>(v));
  out->push_back(static_cast<char>(v >> 8));
}

inline void PutFixed32(std::string* out, uint32_t v) {
  char buf[4];
  for (int i = 0; i < 4; ++i) buf[i] = static_cast<char>(v >> (8 * i));
  out->append(buf, 4);
}

inline void PutFixed64(std::string* out, uint64_t v) {
  char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>(v >> (8 * i));
  out->append(buf, 8);
}

inline uint16_t DecodeFixed16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

inline uint32_t DecodeFixed32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);  // x86-64 and aarch64 are little-endian; asserted in coding.cc
  return v;
}

inline uint64_t DecodeFixed64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline void PutVarint64(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

inline void PutVarint32(std::string* out, uint32_t v) { PutVarint64(out, v); }

// Writes the varint length of `s` then its bytes.
inline void PutLengthPrefixed(std::string* out, std::string_view s) {
  PutVarint64(out, s.size());
  out->append(s.data(), s.size());
}

// Decodes a varint of at most 10 bytes. Returns the byte after it, or nullptr
// if [p, end) ends first or the encoding is longer than a uint64.
inline const uint8_t* GetVarint64(const uint8_t* p, const uint8_t* end, uint64_t* v) {
  if (p < end && *p < 0x80) {  // one byte: most lengths, gaps and counts
    *v = *p;
    return p + 1;
  }
  uint64_t result = 0;
  for (unsigned shift = 0; shift < 64 && p < end; shift += 7) {
    uint64_t byte = *p++;
    result |= (byte & 0x7f) << shift;
    if (byte < 0x80) {
      if (shift == 63 && byte > 1) return nullptr;  // overflows 64 bits
      *v = result;
      return p;
    }
  }
  return nullptr;
}

// As GetVarint64 but also fails when the value does not fit 32 bits.
inline const uint8_t* GetVarint32(const uint8_t* p, const uint8_t* end, uint32_t* v) {
  uint64_t wide;
  p = GetVarint64(p, end, &wide);
  if (p == nullptr || wide > UINT32_MAX) return nullptr;
  *v = static_cast<uint32_t>(wide);
  return p;
}

// Reads a length-prefixed string; the view points into [p, end).
inline const uint8_t* GetLengthPrefixed(const uint8_t* p, const uint8_t* end,
                                        std::string_view* s) {
  uint64_t len;
  p = GetVarint64(p, end, &len);
  if (p == nullptr || len > static_cast<uint64_t>(end - p)) return nullptr;
  *s = std::string_view(reinterpret_cast<const char*>(p), len);
  return p + len;
}

// Bytes `a` and `b` have in common at their start (front coding).
inline size_t SharedPrefixLength(std::string_view a, std::string_view b) {
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

inline int VarintLength(uint64_t v) {
  int len = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++len;
  }
  return len;
}

}  // namespace dps
