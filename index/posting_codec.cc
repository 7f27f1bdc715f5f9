// TEMPORARY scalar placeholder until the SIMD codec lands (same API).
#include "index/posting_codec.h"

#include <algorithm>
#include <bit>

#include "common/coding.h"

namespace dps {
namespace {
void Pack(const uint32_t* v, size_t n, unsigned b, std::string* out) {
  uint64_t acc = 0;
  unsigned bits = 0;
  for (size_t i = 0; i < n; ++i) {
    acc |= uint64_t{v[i]} << bits;
    bits += b;
    while (bits >= 8) {
      out->push_back(static_cast<char>(acc));
      acc >>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) out->push_back(static_cast<char>(acc));
}
const uint8_t* Unpack(const uint8_t* p, const uint8_t* end, size_t n, unsigned b, uint32_t* v) {
  size_t bytes = (n * b + 7) / 8;
  if (static_cast<size_t>(end - p) < bytes) return nullptr;
  uint64_t mask = b == 32 ? 0xffffffffULL : ((uint64_t{1} << b) - 1);
  for (size_t i = 0; i < n; ++i) {
    uint64_t bit = uint64_t{i} * b, acc = 0;
    for (size_t k = bit / 8, s = 0; k < (bit + b + 7) / 8 && k < bytes; ++k, s += 8) acc |= uint64_t{p[k]} << s;
    v[i] = static_cast<uint32_t>((acc >> (bit % 8)) & mask);
  }
  return p + bytes;
}
}  // namespace

void EncodeDocBlock(const uint32_t* docs, size_t n, uint32_t prev, std::string* out) {
  uint32_t gaps[kBlockSize], max = 0;
  for (size_t i = 0; i < n; ++i) {
    gaps[i] = docs[i] - prev - 1;
    prev = docs[i];
    max |= gaps[i];
  }
  unsigned b = static_cast<unsigned>(std::bit_width(max));
  out->push_back(static_cast<char>(b));
  Pack(gaps, n, b, out);
}

const uint8_t* DecodeDocBlock(const uint8_t* p, const uint8_t* end, size_t n, uint32_t prev,
                              uint32_t* docs) {
  if (p >= end || *p > 32) return nullptr;
  unsigned b = *p++;
  p = Unpack(p, end, n, b, docs);
  if (p == nullptr) return nullptr;
  for (size_t i = 0; i < n; ++i) prev = docs[i] = prev + docs[i] + 1;
  return p;
}

void EncodeWeightBlock(const uint32_t* weights, size_t n, std::string* out) {
  uint32_t v[kBlockSize], max = 0;
  for (size_t i = 0; i < n; ++i) max |= v[i] = weights[i] - 1;
  unsigned b = static_cast<unsigned>(std::bit_width(max));
  out->push_back(static_cast<char>(b));
  Pack(v, n, b, out);
}

const uint8_t* DecodeWeightBlock(const uint8_t* p, const uint8_t* end, size_t n,
                                 uint32_t* weights) {
  if (p >= end || *p > 32) return nullptr;
  unsigned b = *p++;
  p = Unpack(p, end, n, b, weights);
  if (p == nullptr) return nullptr;
  for (size_t i = 0; i < n; ++i) weights[i] += 1;
  return p;
}

size_t LowerBoundInBlock(const uint32_t* docs, size_t n, uint32_t target) {
  return static_cast<size_t>(std::lower_bound(docs, docs + n, target) - docs);
}

}  // namespace dps
