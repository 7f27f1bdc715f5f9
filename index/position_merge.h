// The merge at the heart of a two-word phrase (slop 0): the first word's
// positions plus one against the second's, both as raw values (a posting's
// first position, then each gap minus one: index/positions.h). Shared by
// PhraseMatcher::MergePair and index/dense_phrase_pair.cc.
#pragma once

#include <cstdint>

namespace dps {

// v: the first word's tf0 values, *p its first position plus one; u: the
// second's tf1 values, *q its first position. Returns how many positions
// meet, stopping at the first when first_only; *p and *q end as the last
// of each read (positions ascend: each word's largest read, for the
// caller's check against kMaxPosition).
inline uint32_t MergeOccurrences(const uint32_t* v, uint32_t tf0, const uint32_t* u, uint32_t tf1, bool first_only,
                                 uint64_t* p_io, uint64_t* q_io) {
  uint64_t p = *p_io, q = *q_io;
  uint32_t t = 0, j = 0, n = 0;
  for (;;) {
    if (p < q) {
      if (++t == tf0) break;
      p += uint64_t{v[t]} + 1;
    } else if (q < p) {
      if (++j == tf1) break;
      q += uint64_t{u[j]} + 1;
    } else {
      ++n;
      if (first_only || ++t == tf0) break;
      p += uint64_t{v[t]} + 1;
    }
  }
  *p_io = p;
  *q_io = q;
  return n;
}

}  // namespace dps
