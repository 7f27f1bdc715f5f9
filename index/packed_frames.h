// The shape shared by a bin's per-docid regions with O(1) access (the
// document lengths and the id column, docs/FORMAT.md): one frame per 128
// docids of the bin record's range behind a table of u32 frame offsets,
//   prefix | frame offsets (u32 x F) | frame 0 | ... | frame F-1 | 8 zero bytes
// and values bit-packed inside a frame, LSB first. The zero bytes at the end
// let a reader load 8 bytes at any value's first byte without a bounds check.
// Stateless helpers; thread-safe.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "index/types.h"

namespace dps {

inline constexpr uint32_t kPackedFrameSlots = 128;
inline constexpr size_t kFramePadding = 8;

// Frames for docids min..max (REQUIRES: min <= max).
inline uint64_t FrameCount(DocId min_docid, DocId max_docid) {
  return (uint64_t{max_docid} - min_docid + kPackedFrameSlots) / kPackedFrameSlots;
}
// Slots of frame f of those frames: 128, the last one the rest.
inline uint32_t FrameSlots(DocId min_docid, DocId max_docid, uint64_t f) {
  const uint64_t left = uint64_t{max_docid} - min_docid + 1 - f * kPackedFrameSlots;
  return static_cast<uint32_t>(left < kPackedFrameSlots ? left : kPackedFrameSlots);
}

// Bytes of n values of `width` bits (0 to 64).
inline uint64_t PackedBytes(uint64_t n, unsigned width) { return (n * width + 7) / 8; }

// Appends n values of `width` bits, LSB first from the first byte's lowest
// bit; the bits after the last value are zero. REQUIRES: each value < 2^width.
void AppendPacked(const uint64_t* values, size_t n, unsigned width, std::string* out);

// Value i of values packed at p. REQUIRES: width <= 64, and 8 readable
// bytes from the value's first byte (kFramePadding ends every region).
inline uint64_t LoadPacked(const uint8_t* p, uint64_t i, unsigned width) {
  if (width == 0) return 0;
  const uint64_t bit = i * width;
  const unsigned shift = bit % 8;
  uint64_t word;
  std::memcpy(&word, p + bit / 8, 8);  // little-endian hosts (coding.h)
  word >>= shift;
  // A value of more than 57 bits may reach a ninth byte, inside its frame.
  if (shift + width > 64) word |= uint64_t{p[bit / 8 + 8]} << (64 - shift);
  return width == 64 ? word : word & ((uint64_t{1} << width) - 1);
}

// Whether the bits after n values of `width` bits at p are zero (one
// encoding per region).
bool PackedTailIsZero(const uint8_t* p, uint64_t n, unsigned width);

// Appends `prefix | offsets | frames | padding` for frames laid out back to
// back in `frames`, frame f starting at starts[f]; offsets count from the
// start of the prefix.
void AppendFrameRegion(std::string_view prefix, std::string_view frames, const std::vector<uint32_t>& starts,
                       std::string* out);

// Reads the frame table of a region of `frames` frames after a prefix of
// `prefix_bytes`: offsets ascending from right after the table, each frame
// non-empty, the last one ending kFramePadding zero bytes before the end.
// Then `check(f, frame, span)` judges frame f from its bytes and its span
// (the bytes up to the next frame): "" if good, else what is wrong.
// Fills `offsets`; on failure returns what is wrong, else "".
std::string ReadFrameTable(std::string_view region, size_t prefix_bytes, uint64_t frames,
                           const std::function<std::string(uint64_t f, const uint8_t* frame, uint64_t span)>& check,
                           std::vector<uint32_t>* offsets);

}  // namespace dps
