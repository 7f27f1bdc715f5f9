// Internals of the posting block codec exposed for tests and benchmarks only:
// the decoders pinned to one code path (so tests can check that the SSE2 and
// the portable scalar unpackers agree byte for byte) and the LowerBoundInBlock
// variants that were measured against each other. Production code includes
// index/posting_codec.h instead.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dps::internal {

enum class CodecPath {
  kScalar,  // portable; the only path on targets without SSE2
  kSse2,    // x86-64 baseline; falls back to kScalar when not compiled in
};

#if defined(__SSE2__)
inline constexpr bool kHaveSse2Path = true;
#else
inline constexpr bool kHaveSse2Path = false;
#endif

// DecodeDocBlock / DecodeWeightBlock with the unpacker chosen by `path`.
// Partial blocks are unpacked by the same scalar code on both paths; the
// SSE2 path then turns their gaps into docids four at a time.
const uint8_t* DecodeDocBlockOn(CodecPath path, const uint8_t* p, const uint8_t* end, size_t n,
                                uint32_t prev, uint32_t* docs);
const uint8_t* DecodeWeightBlockOn(CodecPath path, const uint8_t* p, const uint8_t* end, size_t n,
                                   uint32_t* weights);

// Candidates for LowerBoundInBlock, same contract. LowerBoundInBlock is one
// of them; bench/posting_codec_bench.cc has the comparison.
size_t LowerBoundBinary(const uint32_t* docs, size_t n, uint32_t target);  // branchless
size_t LowerBoundCount(const uint32_t* docs, size_t n, uint32_t target);   // SSE2 count
size_t LowerBoundHybrid(const uint32_t* docs, size_t n, uint32_t target);  // binary, then count
size_t CountBelow16(const uint32_t* docs, uint32_t target);  // docs[0..16) below target

}  // namespace dps::internal
