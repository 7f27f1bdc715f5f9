#include "index/score_scan.h"

#include "common/coding.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace dps {

size_t NextScoreAtLeast(const uint8_t* scores, size_t from, size_t n, uint32_t least) {
  if (least == 0) return from < n ? from : n;
  if (least > 0xffff) return n;
  size_t i = from;
#if defined(__SSE2__)
  // s >= least exactly when the saturating least - s is 0 (unsigned: SSE2
  // has no unsigned 16-bit compare).
  const __m128i bar = _mm_set1_epi16(static_cast<short>(least));
  const __m128i zero = _mm_setzero_si128();
  for (; i + 8 <= n; i += 8) {
    const __m128i s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(scores + 2 * i));
    const int reach = _mm_movemask_epi8(_mm_cmpeq_epi16(_mm_subs_epu16(bar, s), zero));
    if (reach != 0) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(reach))) / 2;
  }
#endif
  for (; i < n; ++i) {
    if (DecodeFixed16(scores + 2 * i) >= least) return i;
  }
  return n;
}

size_t FirstZeroScore(const uint8_t* scores, size_t n) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  for (; i + 8 <= n; i += 8) {
    const __m128i s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(scores + 2 * i));
    const int zeros = _mm_movemask_epi8(_mm_cmpeq_epi16(s, zero));
    if (zeros != 0) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(zeros))) / 2;
  }
#endif
  for (; i < n; ++i) {
    if (DecodeFixed16(scores + 2 * i) == 0) return i;
  }
  return n;
}

}  // namespace dps
