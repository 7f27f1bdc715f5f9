#include "index/inline_postings.h"

#include <bit>
#include <cstring>

#include "common/coding.h"

namespace dps {

bool EncodeInlinePostings(std::span<const DocId> docs, std::span<const uint32_t> weights,
                          std::string* out) {
  PutVarint32(out, docs[0]);
  for (size_t i = 1; i < docs.size(); ++i) PutVarint32(out, docs[i] - docs[i - 1] - 1);
  bool has_weights = false;
  for (uint32_t w : weights) has_weights |= w != 1;
  if (has_weights) {
    for (uint32_t w : weights) PutVarint32(out, w);
  }
  return has_weights;
}

const uint8_t* ParseInlinePostings(const uint8_t* p, const uint8_t* end, uint32_t df,
                                   bool has_weights, DocId* docs, uint32_t* weights) {
  uint64_t doc = 0;
  for (uint32_t i = 0; i < df; ++i) {
    uint32_t v;
    p = GetVarint32(p, end, &v);
    if (p == nullptr) return nullptr;
    doc = i == 0 ? v : doc + 1 + v;
    if (doc > kMaxDocId) return nullptr;
    if (docs != nullptr) docs[i] = static_cast<DocId>(doc);
  }
  for (uint32_t i = 0; i < df; ++i) {
    uint32_t w = 1;
    if (has_weights) {
      p = GetVarint32(p, end, &w);
      if (p == nullptr || w == 0) return nullptr;
    }
    if (weights != nullptr) weights[i] = w;
  }
  return p;
}

const uint8_t* SkipInlinePostings(const uint8_t* p, const uint8_t* end, uint32_t df,
                                  bool has_weights) {
  // A varint ends on each byte below 0x80: count them 8 bytes at a time.
  uint64_t left = uint64_t{df} << (has_weights ? 1 : 0);
  if (left == 0) return p;
  while (end - p >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    uint64_t ends = ~word & 0x8080808080808080ull;
    // Their count: one bit per byte, summed by a multiply (baseline x86-64
    // has no popcnt instruction).
    const uint64_t n = ((ends >> 7) * 0x0101010101010101ull) >> 56;
    if (n >= left) {
      for (; left > 1; --left) ends &= ends - 1;  // drop all but the last one wanted
      return p + std::countr_zero(ends) / 8 + 1;
    }
    left -= n;
    p += 8;
  }
  for (; p < end; ++p) {
    if (*p < 0x80 && --left == 0) return p + 1;
  }
  return nullptr;
}

}  // namespace dps
