// Searches inside a decoded block of docids (LowerBoundInBlock and the
// candidates measured against it, bench/posting_codec_bench.cc).
#include <algorithm>
#include <bit>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "index/posting_block_layout.h"
#include "index/posting_codec.h"
#include "index/posting_codec_internal.h"

namespace dps {

using namespace block_layout;

size_t LowerBoundInBlock(const uint32_t* docs, size_t n, uint32_t target) {
  return internal::LowerBoundHybrid(docs, n, target);
}

size_t LowerBoundNear(const uint32_t* docs, size_t n, uint32_t target) {
  if (n >= 16 && docs[15] >= target) return internal::CountBelow16(docs, target);
  return internal::LowerBoundHybrid(docs, n, target);
}

namespace internal {

// Branchless: the comparison feeds a conditional move, not a branch, so a
// random target costs log2(n) dependent loads and no mispredictions (Khuong &
// Morin, "Array layouts for comparison-based searching", 2017). Invariant:
// the answer lies in [base, base + len].
size_t LowerBoundBinary(const uint32_t* docs, size_t n, uint32_t target) {
  if (n == 0) return 0;
  const uint32_t* base = docs;
  for (size_t len = n; len > 1;) {
    const size_t half = len / 2;
    base = base[half] < target ? base + half : base;
    len -= half;
  }
  return static_cast<size_t>(base - docs) + (*base < target);
}

// The block is sorted, so the lower bound is the number of docids below the
// target. SSE2 only has a signed compare; flipping the sign bit of both sides
// turns it into an unsigned one.
size_t LowerBoundCount(const uint32_t* docs, size_t n, uint32_t target) {
  size_t i = 0;
  size_t count = 0;
#if defined(__SSE2__)
  const __m128i flip = _mm_set1_epi32(INT32_MIN);
  const __m128i key = _mm_xor_si128(_mm_set1_epi32(static_cast<int>(target)), flip);
  __m128i below = _mm_setzero_si128();  // each lane counts down by 1 per hit
  for (; i + kLanes <= n; i += kLanes) {
    const __m128i v =
        _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(docs + i)), flip);
    below = _mm_add_epi32(below, _mm_cmplt_epi32(v, key));
  }
  below = _mm_add_epi32(below, _mm_shuffle_epi32(below, 0x4e));
  below = _mm_add_epi32(below, _mm_shuffle_epi32(below, 0xb1));
  count = static_cast<uint32_t>(-_mm_cvtsi128_si32(below));
#endif
  for (; i < n; ++i) count += docs[i] < target;
  return count;
}

// How many of docs[0..16) are below the target. The compare masks of the
// sorted window are a run of ones from bit 0, so narrowing them to one byte
// each and counting trailing ones of the movemask gives the count without a
// horizontal sum (and without POPCNT, which the x86-64 baseline lacks).
size_t CountBelow16(const uint32_t* docs, uint32_t target) {
#if defined(__SSE2__)
  const __m128i flip = _mm_set1_epi32(INT32_MIN);
  const __m128i key = _mm_xor_si128(_mm_set1_epi32(static_cast<int>(target)), flip);
  const auto below = [&](size_t k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(docs + 4 * k));
    return _mm_cmplt_epi32(_mm_xor_si128(v, flip), key);
  };
  const __m128i lo = _mm_packs_epi32(below(0), below(1));  // -1/0 survive signed saturation
  const __m128i hi = _mm_packs_epi32(below(2), below(3));
  const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_packs_epi16(lo, hi)));
  return static_cast<size_t>(std::countr_one(mask));
#else
  size_t count = 0;
  for (int i = 0; i < 16; ++i) count += docs[i] < target;
  return count;
#endif
}

// Branchless halving down to a window of 16, then one 16-wide compare: for a
// full block three dependent loads instead of seven. The window is slid left
// to stay inside the block when the last halving leaves fewer than 16; what it
// then also covers is below the target anyway.
size_t LowerBoundHybrid(const uint32_t* docs, size_t n, uint32_t target) {
  if (n < 16) return LowerBoundCount(docs, n, target);
  const uint32_t* base = docs;
  for (size_t len = n; len > 16;) {
    const size_t half = len / 2;
    base = base[half] < target ? base + half : base;
    len -= half;
  }
  const uint32_t* window = std::min(base, docs + n - 16);
  return static_cast<size_t>(window - docs) + CountBelow16(window, target);
}

}  // namespace internal

}  // namespace dps
