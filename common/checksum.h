// Checksums for on-disk pages and wire frames: XXH3-64 (xxHash 0.8).
//
// Why XXH3: it runs at memory bandwidth (tens of GB/s with SSE2), so verifying
// a page the first time a process touches it costs little, and 64 bits make
// an undetected random corruption vanishingly unlikely. Not cryptographic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace dps {

uint64_t Checksum64(const void* data, size_t n);
inline uint64_t Checksum64(std::string_view s) { return Checksum64(s.data(), s.size()); }

// Stable 64-bit hash used to place documents in bins (external id -> bin).
// Never change: bins of existing indexes depend on it. XXH3-64 with seed 0.
uint64_t StableHash64(std::string_view s);

}  // namespace dps
