// Block impacts (issue 18, block-max pruning): two upper bounds on the BM25
// scores of each block of 128 postings, stored beside the skip table.
//
// - The block score (u16): the block's best tf part r = tf / (tf + k1 (1 -
//   b + b dl / A)) at the default k1 = 1.2, b = 0.75 and a reference avgdl
//   A (the bin's mean length when the file was written), rounded up to a
//   multiple of 1/65535. Tight for the default parameters (a term's score
//   is idf * r; a u8's 1/255 steps were too coarse near the top of a
//   frequent term's list),
//   and still a bound when the index's avgdl has moved since the file was
//   written (Bm25::BlockScoreBound). PISA stores quantized block maxima the
//   same way (Mallia et al., "An experimental study of index compression
//   and DAAT query processing methods", ECIR 2019); an exact avgdl would go
//   stale at the next commit.
// - The corner: the block's largest tf and smallest dl. BM25 grows with tf
//   and falls with dl for every k1, b >= 0 and any avgdl, so the score at
//   the corner bounds the block under whatever parameters a query asks for.
//   Looser than the block score (the two need not come from one posting).
// Layout: docs/FORMAT.md ("Block impacts").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace dps {

struct Impact {
  uint32_t tf = 0;  // the block's largest tf
  uint32_t dl = 0;  // the block's smallest document length
  bool operator==(const Impact&) const = default;
};

inline constexpr size_t kMaxBlockPostings = 128;  // posting_codec.h's kBlockSize

// The parameters block scores are computed for (Bm25Params' defaults).
inline constexpr double kBlockScoreK1 = 1.2;
inline constexpr double kBlockScoreB = 0.75;
// A block score q bounds r by q / kBlockScoreSteps.
inline constexpr double kBlockScoreSteps = 65535;
// The reference avgdl is stored in 1/256ths of a token (docs/FORMAT.md:
// the bin record's score_avgdl), so writer and reader use one exact value.
inline constexpr double kScoreAvgdlUnit = 1.0 / 256;
// The stored units of a mean document length (at least 1 unit).
uint32_t ScoreAvgdlUnits(double mean_length);
inline double ScoreAvgdl(uint32_t units) { return units * kScoreAvgdlUnit; }

// REQUIRES: 1 <= n <= kMaxBlockPostings, every tf >= 1, every dl >= its tf.
Impact BlockCorner(const uint32_t* tfs, const uint32_t* dls, size_t n);
// REQUIRES as BlockCorner, and score_avgdl > 0. The result is 1 to 65535.
uint16_t BlockScore(const uint32_t* tfs, const uint32_t* dls, size_t n, double score_avgdl);

// Appends `tf (varint) | dl (varint)`.
void EncodeCorner(const Impact& corner, std::string* out);
// Decodes one corner; nullptr when [p, end) does not start with a valid
// one (tf and dl >= 1; the corner's dl may be below its tf).
const uint8_t* DecodeCorner(const uint8_t* p, const uint8_t* end, Impact* out);

}  // namespace dps
