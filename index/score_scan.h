// Scans of a posting list's block scores (index/block_impacts.h: one
// little-endian u16 per block) eight at a time. A single term ranked best
// first reads every block's score twice (its best blocks, then the blocks
// that can still reach the threshold): on a frequent term of the synthetic
// 1M corpus, thousands of blocks, the scalar loops cost more than scoring
// the ten blocks the answer needs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dps {

// The first i in [from, n) whose score is at least `least` (0 to 65536),
// or n.
size_t NextScoreAtLeast(const uint8_t* scores, size_t from, size_t n, uint32_t least);

// The first i in [0, n) whose score is 0 (a corrupt list), or n.
size_t FirstZeroScore(const uint8_t* scores, size_t n);

}  // namespace dps
