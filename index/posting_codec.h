// Block codec for posting lists: docids and weights (term frequencies) are
// coded in separate blocks of up to kBlockSize values so that a count-only
// AND never decodes a weight.
//
// Docid blocks code the gaps d[i] - d[i-1] - 1 (the first gap relative to the
// last docid of the previous block, or to "-1" for the first block), weight
// blocks w - 1. Both are bit-packed at one width per block with patched
// exceptions (PFOR, Zukowski et al. 2006): the few values wider than the
// width that makes the block smallest keep their high bits in a list after
// the payload, so one large gap or term frequency does not widen the whole
// block; a block without exceptions is plain FOR and decodes with the
// prefix sum fused into the unpack. Full blocks use a 4-lane vertical
// layout so SSE2 unpacks four values per instruction (Lemire & Boytsov,
// "Decoding billions of integers per second through vectorization", 2015);
// partial blocks (the tail) are packed horizontally, LSB first.
// The exact bytes are specified in docs/FORMAT.md ("Posting blocks").
//
// Decoders take an explicit end pointer and validate every header field;
// corrupt input yields nullptr, never an out-of-bounds read.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace dps {

inline constexpr size_t kBlockSize = 128;
// A full docid block decodes in four independent parts of 32 docids given
// the docid before each part (posting lists keep those in their skip table).
inline constexpr size_t kBlockParts = 4;
inline constexpr size_t kBlockPartSize = kBlockSize / kBlockParts;

// Bytes of packed payload for n values of `bits` bits each (FORMAT.md's
// P(n, b)). Full blocks have no padding: 4 lanes x 32 values x bits = 16 *
// bits bytes.
constexpr size_t PayloadSize(size_t n, int bits) {
  return n == kBlockSize ? 16 * static_cast<size_t>(bits) : (n * static_cast<size_t>(bits) + 7) / 8;
}

// Appends the docid block for docs[0..n). REQUIRES: 1 <= n <= kBlockSize,
// docs strictly increasing, docs[0] > prev unless prev == UINT32_MAX (which
// stands for "no previous docid").
void EncodeDocBlock(const uint32_t* docs, size_t n, uint32_t prev, std::string* out);

// Decodes a block written by EncodeDocBlock with the same n and prev into
// docs[0..n). `docs` must have room for kBlockSize values. Returns the byte
// after the block, or nullptr if [p, end) is too short or the header invalid.
const uint8_t* DecodeDocBlock(const uint8_t* p, const uint8_t* end, size_t n, uint32_t prev,
                              uint32_t* docs);

// Decodes one part of a full (n == kBlockSize) docid block: docids
// [32 * part, 32 * part + 32) into docs[0..32). `prev` is the docid just
// before that part, so a seek decodes a quarter of a block (the 4-lane
// vertical layout puts docids 32p..32p+31 in rows 8p..8p+7, which start at a
// known bit offset). Returns the byte after the whole block, or nullptr on
// corruption.
const uint8_t* DecodeDocBlockPart(const uint8_t* p, const uint8_t* end, size_t part,
                                  uint32_t prev, uint32_t* docs);

// Appends the weight block for weights[0..n). REQUIRES: 1 <= n <= kBlockSize,
// every weight >= 1.
void EncodeWeightBlock(const uint32_t* weights, size_t n, std::string* out);

// Decodes a block written by EncodeWeightBlock. `weights` must have room for
// kBlockSize values. Returns the byte after the block or nullptr on corruption.
const uint8_t* DecodeWeightBlock(const uint8_t* p, const uint8_t* end, size_t n,
                                 uint32_t* weights);

// Appends a value block for values[0..n): the weight block's layout with
// v[i] = values[i] (any uint32), for word positions (FORMAT.md "Positions").
// REQUIRES: 1 <= n <= kBlockSize.
void EncodeValueBlock(const uint32_t* values, size_t n, std::string* out);

// Decodes a block written by EncodeValueBlock into values[0..n) (room for
// kBlockSize). Returns the byte after the block or nullptr on corruption.
const uint8_t* DecodeValueBlock(const uint8_t* p, const uint8_t* end, size_t n, uint32_t* values);

// A value block read in place, one value at a time, without decoding the
// other 127: a phrase's candidate in a frequent word's list needs one or
// two of a block's values, and extracting them costs a few loads where a
// whole decode costs hundreds of instructions. Open checks the header as
// DecodeValueBlock does (the block fits, widths valid, padding zero);
// the exception list's order is only checked by a whole decode (checksums
// guard the bytes; `dpsearch check` decodes every block).
class ValueBlockView {
 public:
  // The block of n values at p; false on a header DecodeValueBlock refuses.
  bool Open(const uint8_t* p, const uint8_t* end, size_t n);
  // values[i] as DecodeValueBlock gives it. REQUIRES: Open succeeded, i < n.
  uint32_t At(size_t i) const;
  // The checks a whole decode makes of the exceptions: positions strictly
  // ascending and below n, no high of 0. For a reader that must refuse
  // what a whole decode refuses (a posting list's weights) at a cost per
  // exception, not per value.
  bool ExceptionsAreSound() const;
  // The byte after the block.
  const uint8_t* end() const { return end_; }

 private:
  const uint8_t* payload_ = nullptr;
  const uint8_t* exception_at_ = nullptr;  // exception positions (one byte each)
  const uint8_t* highs_ = nullptr;
  const uint8_t* end_ = nullptr;
  const uint8_t* limit_ = nullptr;
  size_t n_ = 0;
  size_t exceptions_ = 0;
  size_t highs_size_ = 0;
  int bits_ = 0;
  int high_bits_ = 0;
};

// The byte after the block (docid or weight: they share the layout) of n
// values at p, from its header and exception list, without decoding it;
// nullptr on corruption.
const uint8_t* SkipBlock(const uint8_t* p, const uint8_t* end, size_t n);

// Index of the first docs[i] >= target in the sorted docs[0..n), or n.
size_t LowerBoundInBlock(const uint32_t* docs, size_t n, uint32_t target);
// The same, for a target most likely among the first 16 (a cursor's seek
// inside its decoded block: an AND's longer list is a few postings ahead
// of the shorter one's next docid): one 16-wide compare when it is there,
// LowerBoundInBlock when it is not.
size_t LowerBoundNear(const uint32_t* docs, size_t n, uint32_t target);

}  // namespace dps
