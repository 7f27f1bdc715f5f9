// Block impacts (issue 18, block-max pruning): for each block of 128
// postings, the (tf, dl) pairs no other posting of the block beats (the
// Pareto frontier: a higher tf or a shorter document scores higher under
// BM25 for every k1, b >= 0), at most kMaxImpacts of them. The best of
// their scores bounds every posting of the block, for whatever k1, b and
// avgdl the query uses (a stored score would go stale at the next commit).
// Lucene keeps all competitive (freq, norm) pairs per skip level; here two
// (gcide: impacts of at most 1, 2 and 4 pairs take 2.1%, 3.6% and 4.7% of
// the index).
// Layout: docs/FORMAT.md ("Block impacts").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace dps {

struct Impact {
  uint32_t tf = 0;
  uint32_t dl = 0;
  bool operator==(const Impact&) const = default;
};

inline constexpr size_t kMaxImpacts = 2;
inline constexpr size_t kMaxBlockPostings = 128;  // posting_codec.h's kBlockSize

// The block's impacts into out[0..return): tf and dl both strictly
// ascending. When the frontier has more than kMaxImpacts pairs, adjacent
// pairs are merged into (the higher tf, the lower dl), which dominates
// both: the pair with the smallest tf step first (the lowest such), until
// kMaxImpacts remain. REQUIRES: 1 <= n <= kMaxBlockPostings, every tf >= 1.
size_t ComputeImpacts(const uint32_t* tfs, const uint32_t* dls, size_t n, Impact (&out)[kMaxImpacts]);

// Appends `count - 1 (u8) | tf (varint) | dl (varint) | then per further
// pair: tf step (varint, >= 1) | dl step (varint, >= 1)`.
void EncodeImpacts(const Impact* impacts, size_t count, std::string* out);

// Decodes one entry; nullptr when [p, end) does not hold a valid one.
const uint8_t* DecodeImpacts(const uint8_t* p, const uint8_t* end, Impact (&out)[kMaxImpacts], size_t* count);

}  // namespace dps
