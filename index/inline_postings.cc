#include "index/inline_postings.h"

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

}  // namespace dps
