#include "index/block_impacts.h"

#include <algorithm>

#include "common/coding.h"

namespace dps {

size_t ComputeImpacts(const uint32_t* tfs, const uint32_t* dls, size_t n, Impact (&out)[kMaxImpacts]) {
  // The shortest document per tf, small tfs in an array (one pass, no sort:
  // this runs for every block an ingest writes), the rare larger ones
  // sorted. Then from the highest tf down, a pair joins the frontier when
  // its document is shorter than every pair of higher tf.
  constexpr uint32_t kSmall = 64;
  uint32_t shortest[kSmall + 1];
  uint32_t top_small = 0;
  Impact large[kMaxBlockPostings];
  size_t large_count = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t tf = tfs[i];
    if (tf <= kSmall) {
      while (top_small < tf) shortest[++top_small] = UINT32_MAX;
      shortest[tf] = std::min(shortest[tf], dls[i]);
    } else {
      large[large_count++] = {tf, dls[i]};
    }
  }
  std::sort(large, large + large_count,
            [](const Impact& a, const Impact& b) { return a.tf != b.tf ? a.tf > b.tf : a.dl < b.dl; });
  Impact frontier[kMaxBlockPostings];
  size_t size = 0;
  auto consider = [&](Impact p) {
    if (size == 0 || p.dl < frontier[size - 1].dl) frontier[size++] = p;
  };
  for (size_t i = 0; i < large_count; ++i) consider(large[i]);
  for (uint32_t tf = top_small; tf >= 1; --tf) {
    if (shortest[tf] != UINT32_MAX) consider({tf, shortest[tf]});
  }
  std::reverse(frontier, frontier + size);  // tf and dl ascending
  while (size > kMaxImpacts) {
    size_t best = 0;
    for (size_t i = 1; i + 1 < size; ++i) {
      if (frontier[i + 1].tf - frontier[i].tf < frontier[best + 1].tf - frontier[best].tf) best = i;
    }
    frontier[best] = {frontier[best + 1].tf, frontier[best].dl};
    std::copy(frontier + best + 2, frontier + size, frontier + best + 1);
    --size;
  }
  std::copy(frontier, frontier + size, out);
  return size;
}

void EncodeImpacts(const Impact* impacts, size_t count, std::string* out) {
  out->push_back(static_cast<char>(count - 1));
  PutVarint32(out, impacts[0].tf);
  PutVarint32(out, impacts[0].dl);
  for (size_t i = 1; i < count; ++i) {
    PutVarint32(out, impacts[i].tf - impacts[i - 1].tf);
    PutVarint32(out, impacts[i].dl - impacts[i - 1].dl);
  }
}

const uint8_t* DecodeImpacts(const uint8_t* p, const uint8_t* end, Impact (&out)[kMaxImpacts], size_t* count) {
  if (p >= end || *p >= kMaxImpacts) return nullptr;
  *count = size_t{*p++} + 1;
  for (size_t i = 0; i < *count; ++i) {
    uint32_t tf, dl;
    p = GetVarint32(p, end, &tf);
    if (p != nullptr) p = GetVarint32(p, end, &dl);
    if (p == nullptr) return nullptr;
    if (i == 0) {
      if (tf == 0 || dl == 0) return nullptr;
      out[0] = {tf, dl};
    } else {
      // Strictly ascending, no wrap past 2^32.
      if (tf == 0 || dl == 0 || tf > UINT32_MAX - out[i - 1].tf || dl > UINT32_MAX - out[i - 1].dl) return nullptr;
      out[i] = {out[i - 1].tf + tf, out[i - 1].dl + dl};
    }
  }
  return p;
}

}  // namespace dps
