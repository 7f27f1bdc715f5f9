// The posting block encoder (docs/FORMAT.md "Block layout"): gaps or
// weights bit-packed at the width that makes the block smallest, with the
// few values too wide for it patched in as exceptions. The write side only;
// posting_codec.cc decodes.
#include <algorithm>
#include <bit>

#include "common/coding.h"
#include "index/posting_block_layout.h"
#include "index/posting_codec.h"

namespace dps {

using namespace block_layout;

namespace {

// A full docid block takes exceptions only when they make it more than this
// many bytes smaller than plain FOR (one bit per docid).
constexpr size_t kFullDocBlockMinSaving = kBlockSize / 8;

// ---------------------------------------------------------------- packing

// Horizontal layout (partial blocks): one LSB-first bit stream, value i in
// stream bits [i*bits, (i+1)*bits), stream bit k = bit k%8 of byte k/8. Only
// the low `bits` bits of each value are written; padding bits are zero.
void PackHorizontal(const uint32_t* v, size_t n, int bits, std::string* out) {
  const uint32_t mask = LowMask(bits);
  uint64_t acc = 0;  // holds < 8 + 32 pending bits
  int fill = 0;
  for (size_t i = 0; i < n; ++i) {
    acc |= uint64_t{v[i] & mask} << fill;
    for (fill += bits; fill >= 8; fill -= 8, acc >>= 8) out->push_back(static_cast<char>(acc));
  }
  if (fill > 0) out->push_back(static_cast<char>(acc));
}

// Vertical layout (full blocks): value i belongs to lane i%4, each lane is its
// own LSB-first stream of 32-bit words, and word k of lane l is stored as
// 32-bit word 4k+l, so one 16-byte load yields word k of all four lanes.
void PackVertical(const uint32_t* v, int bits, std::string* out) {
  const uint32_t mask = LowMask(bits);
  uint32_t words[kLanes * kMaxBits];
  for (size_t lane = 0; lane < kLanes; ++lane) {
    uint64_t acc = 0;
    int fill = 0;
    size_t k = 0;
    for (size_t i = lane; i < kBlockSize; i += kLanes) {
      acc |= uint64_t{v[i] & mask} << fill;
      fill += bits;
      if (fill >= 32) {
        words[kLanes * k++ + lane] = static_cast<uint32_t>(acc);
        acc >>= 32;
        fill -= 32;
      }
    }
  }
  for (size_t w = 0; w < kLanes * bits; ++w) PutFixed32(out, words[w]);
}

void Pack(const uint32_t* v, size_t n, int bits, std::string* out) {
  if (n == kBlockSize) {
    PackVertical(v, bits, out);
  } else {
    PackHorizontal(v, n, bits, out);
  }
}

// Bytes a block takes at width `bits`, less the head byte, given how many
// values have each bit width (none wider than max_width). Below max_width
// there are exceptions: two more header bytes, a position byte each, and
// their high bits packed at max_width - bits each.
size_t PatchedCost(const size_t (&count_by_width)[kMaxBits + 1], int max_width, size_t n,
                   int bits) {
  size_t exceptions = 0;
  for (int w = bits + 1; w <= max_width; ++w) exceptions += count_by_width[w];
  const size_t payload = PayloadSize(n, bits);
  if (exceptions == 0) return payload;
  return payload + 2 + exceptions + (exceptions * static_cast<size_t>(max_width - bits) + 7) / 8;
}

// Appends values[0..n) as a block with patched exceptions (PFOR) at the
// width that makes the block smallest, but plain FOR unless exceptions make
// it more than `min_saving` bytes smaller than FOR would.
void EncodePatched(const uint32_t* values, size_t n, size_t min_saving, std::string* out) {
  size_t count_by_width[kMaxBits + 1] = {};
  uint32_t all = 0;
  for (size_t i = 0; i < n; ++i) {
    all |= values[i];
    ++count_by_width[std::bit_width(values[i])];
  }
  // Widths from the widest value's up cost only their payload: of those,
  // the widest with the same payload wins (ties go to the wider width:
  // fewer exceptions to patch when decoding). Narrower widths add their
  // exceptions; the cheapest of those (ties again to the wider) competes.
  const int max_width = static_cast<int>(std::bit_width(all));
  const size_t plain = PayloadSize(n, max_width);
  int bits = max_width;
  while (bits < kMaxBits && PayloadSize(n, bits + 1) == plain) ++bits;
  size_t best = SIZE_MAX;
  int best_patched = -1;
  for (int b = max_width - 1; b >= 0; --b) {
    const size_t cost = PatchedCost(count_by_width, max_width, n, b);
    if (cost < best) {
      best = cost;
      best_patched = b;
    }
  }
  if (best_patched >= 0 && best + min_saving < plain) bits = best_patched;
  if (bits >= max_width) {
    out->push_back(static_cast<char>(bits));
    Pack(values, n, bits, out);
    return;
  }
  size_t exceptions = 0;
  for (int w = bits + 1; w <= max_width; ++w) exceptions += count_by_width[w];
  out->push_back(static_cast<char>(bits | kHasExceptions));
  out->push_back(static_cast<char>(exceptions));
  out->push_back(static_cast<char>(max_width - bits));
  Pack(values, n, bits, out);
  uint32_t highs[kBlockSize];
  size_t e = 0;
  for (size_t i = 0; i < n; ++i) {
    if (values[i] >> bits != 0) {
      out->push_back(static_cast<char>(i));  // positions, then the highs
      highs[e++] = values[i] >> bits;
    }
  }
  PackHorizontal(highs, exceptions, max_width - bits, out);
}

}  // namespace

void EncodeDocBlock(const uint32_t* docs, size_t n, uint32_t prev, std::string* out) {
  uint32_t gaps[kBlockSize];
  for (size_t i = 0; i < n; ++i) {
    gaps[i] = docs[i] - prev - 1;  // wraps to docs[0] for prev == UINT32_MAX
    prev = docs[i];
  }
  // A seek decodes one 32-docid part of a full block at a fixed offset;
  // exceptions cost it a search of the positions and a carry over the part
  // (+35% instructions for the median synthetic query when every full
  // block took them; +8% with this rule). So a full block takes exceptions
  // only when they save more than one bit per docid. Partial blocks are
  // always decoded whole.
  EncodePatched(gaps, n, n == kBlockSize ? kFullDocBlockMinSaving : 0, out);
}

void EncodeWeightBlock(const uint32_t* weights, size_t n, std::string* out) {
  uint32_t values[kBlockSize];
  for (size_t i = 0; i < n; ++i) values[i] = weights[i] - 1;
  EncodePatched(values, n, 0, out);
}

void EncodeValueBlock(const uint32_t* values, size_t n, std::string* out) { EncodePatched(values, n, 0, out); }

}  // namespace dps
