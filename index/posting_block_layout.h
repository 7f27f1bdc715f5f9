// Constants of the posting block layout (docs/FORMAT.md "Block layout")
// shared by the block encoder (posting_encoder.cc) and decoder
// (posting_codec.cc). Internal to the codec.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dps::block_layout {

inline constexpr int kMaxBits = 32;
inline constexpr size_t kLanes = 4;  // 32-bit lanes of one 16-byte vector (vertical layout)

// The header of both block kinds: the width in the low six bits of the
// first byte, and in its top bit whether exceptions follow the payload,
// announced by two more header bytes: their count and the width of their
// high bits. Most blocks have no exceptions and spend one byte on the
// header.
inline constexpr uint8_t kHasExceptions = 0x80;

constexpr uint32_t LowMask(int bits) { return static_cast<uint32_t>((uint64_t{1} << bits) - 1); }

}  // namespace dps::block_layout
