// Helpers shared by the posting codec tests: exact-size buffers (ASan sees
// any overread), round-trip checks on every decode path, and a reference
// encoder written from docs/FORMAT.md alone.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/coding.h"
#include "index/posting_codec_internal.h"

namespace dps::codec_testing {

using internal::CodecPath;
using Rng = std::mt19937_64;

inline constexpr uint32_t kNone = UINT32_MAX;  // "no previous docid"

// A copy of the first `len` bytes in a heap block of exactly that size, so
// ASan reports any read past the end the decoder was given.
struct ExactBuffer {
  ExactBuffer(const std::string& s, size_t len) : bytes(new uint8_t[len]), size(len) {
    std::memcpy(bytes.get(), s.data(), std::min(len, s.size()));
  }
  explicit ExactBuffer(const std::string& s) : ExactBuffer(s, s.size()) {}
  const uint8_t* begin() const { return bytes.get(); }
  const uint8_t* end() const { return bytes.get() + size; }
  std::unique_ptr<uint8_t[]> bytes;
  size_t size;
};

inline std::vector<CodecPath> Paths() {
  if (internal::kHaveSse2Path) return {CodecPath::kScalar, CodecPath::kSse2};
  return {CodecPath::kScalar};
}


inline std::vector<uint32_t> DocsFromGaps(const std::vector<uint32_t>& gaps, uint32_t prev) {
  std::vector<uint32_t> docs;
  for (uint32_t g : gaps) docs.push_back(prev += g + 1);
  return docs;
}

// Every part of the full block in `in` decodes alone, given its predecessor.
inline void ExpectPartsDecode(const ExactBuffer& in, const std::vector<uint32_t>& docs, uint32_t prev) {
  for (size_t part = 0; part < kBlockParts; ++part) {
    uint32_t out[kBlockPartSize];
    const uint32_t before = part == 0 ? prev : docs[part * kBlockPartSize - 1];
    ASSERT_EQ(DecodeDocBlockPart(in.begin(), in.end(), part, before, out), in.end());
    ASSERT_TRUE(std::equal(out, out + kBlockPartSize, docs.begin() + part * kBlockPartSize))
        << "part " << part;
  }
}

// Encodes, checks the size the format promises, then decodes on every path
// from a buffer of exactly the encoded size and compares.
inline void ExpectDocsRoundTrip(const std::vector<uint32_t>& docs, uint32_t prev) {
  std::string buf;
  EncodeDocBlock(docs.data(), docs.size(), prev, &buf);
  ASSERT_FALSE(buf.empty());
  // PFOR never loses to plain FOR at the widest gap's width, and a block
  // without exceptions is exactly that.
  uint32_t all = 0;
  for (size_t i = 0; i < docs.size(); ++i) all |= docs[i] - (i == 0 ? prev : docs[i - 1]) - 1;
  const size_t plain = 1 + PayloadSize(docs.size(), std::bit_width(all));
  EXPECT_LE(buf.size(), plain);
  if ((buf[0] & 0x80) == 0) {
    EXPECT_EQ(buf.size(), plain);
  }
  ExactBuffer in(buf);
  if (docs.size() == kBlockSize) ExpectPartsDecode(in, docs, prev);
  for (CodecPath path : Paths()) {
    std::vector<uint32_t> out(kBlockSize);
    const uint8_t* next =
        internal::DecodeDocBlockOn(path, in.begin(), in.end(), docs.size(), prev, out.data());
    ASSERT_EQ(next, in.end()) << "path " << static_cast<int>(path);
    out.resize(docs.size());
    ASSERT_EQ(out, docs) << "path " << static_cast<int>(path);
  }
}

inline void ExpectWeightsRoundTrip(const std::vector<uint32_t>& weights) {
  std::string buf;
  EncodeWeightBlock(weights.data(), weights.size(), &buf);
  ASSERT_GE(buf.size(), 1u);
  // PFOR never loses to plain FOR at the widest value's width (one header
  // byte, no exceptions).
  uint32_t all = 0;
  for (uint32_t w : weights) all |= w - 1;
  EXPECT_LE(buf.size(), 1 + PayloadSize(weights.size(), std::bit_width(all)));
  ExactBuffer in(buf);
  // Skipping a block (the cursor's walk to later weight blocks) ends where
  // decoding it does.
  EXPECT_EQ(SkipBlock(in.begin(), in.end(), weights.size()), in.end());
  for (CodecPath path : Paths()) {
    std::vector<uint32_t> out(kBlockSize);
    const uint8_t* next =
        internal::DecodeWeightBlockOn(path, in.begin(), in.end(), weights.size(), out.data());
    ASSERT_EQ(next, in.end()) << "path " << static_cast<int>(path);
    out.resize(weights.size());
    ASSERT_EQ(out, weights) << "path " << static_cast<int>(path);
  }
}

// n gaps whose widest has exactly `bits` bits and whose docids stay below
// 2^32 when counted from "no previous docid": the widest gap plus the others
// plus the n-1 steps of one never pass UINT32_MAX.
inline std::vector<uint32_t> GapsOfWidth(size_t n, int bits, Rng& rng) {
  std::vector<uint32_t> gaps(n, 0);
  if (bits == 0) return gaps;
  const uint64_t widest = uint64_t{1} << (bits - 1);  // smallest value of width `bits`
  const uint64_t slack = UINT32_MAX - (n - 1) - widest;
  const uint64_t each = std::min<uint64_t>((uint64_t{1} << bits) - 1, slack / n);
  for (uint32_t& g : gaps) g = static_cast<uint32_t>(rng() % (each + 1));
  const uint64_t extra = std::min<uint64_t>(widest - 1, slack / n);
  gaps[rng() % n] = static_cast<uint32_t>(widest + rng() % (extra + 1));
  return gaps;
}

// Where bit t of value i lands, straight from the format description, to
// check the encoder's layout independently. The horizontal layout: one
// stream, bit by bit.
inline std::string ReferenceHorizontal(const std::vector<uint32_t>& values, int bits) {
  std::string out((values.size() * bits + 7) / 8, '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    for (int t = 0; t < bits; ++t) {
      const size_t s = i * bits + t;
      if ((values[i] >> t) & 1) out[s / 8] = static_cast<char>(out[s / 8] | (1 << (s % 8)));
    }
  }
  return out;
}

// A block's payload: horizontal when partial, the 4-lane vertical layout
// when full.
inline std::string ReferencePayload(const std::vector<uint32_t>& values, int bits) {
  const size_t n = values.size();
  if (n != kBlockSize) return ReferenceHorizontal(values, bits);
  std::string out(PayloadSize(n, bits), '\0');
  for (size_t i = 0; i < n; ++i) {
    for (int t = 0; t < bits; ++t) {
      if (((values[i] >> t) & 1) == 0) continue;
      const size_t lane = i % 4, q = (i / 4) * bits + t;  // q: bit within the lane
      const size_t byte = 16 * (q / 32) + 4 * lane + (q % 32) / 8;
      out[byte] = static_cast<char>(out[byte] | (1 << (q % 8)));
    }
  }
  return out;
}

// The whole block at width `bits`, from FORMAT.md ("Block layout"): head,
// then with exceptions their count and high width, the payload, then the
// exceptions' positions and high bits.
inline std::string ReferenceBlock(const std::vector<uint32_t>& values, int bits) {
  uint32_t all = 0;
  for (uint32_t v : values) all |= v;
  const int high_bits = std::max(0, static_cast<int>(std::bit_width(all)) - bits);
  std::string positions;
  std::vector<uint32_t> highs;
  for (size_t i = 0; i < values.size(); ++i) {
    if (bits < 32 && values[i] >> bits != 0) {
      positions.push_back(static_cast<char>(i));
      highs.push_back(values[i] >> bits);
    }
  }
  if (highs.empty()) return std::string(1, static_cast<char>(bits)) + ReferencePayload(values, bits);
  std::string block(1, static_cast<char>(bits | 0x80));
  block.push_back(static_cast<char>(highs.size()));
  block.push_back(static_cast<char>(high_bits));
  return block + ReferencePayload(values, bits) + positions + ReferenceHorizontal(highs, high_bits);
}

// The width FORMAT.md says the writer picks, by brute force over every
// width: the smallest block, ties to the wider width; but a full docid
// block takes exceptions only if they save more than 16 bytes.
inline int BestWidth(const std::vector<uint32_t>& values, bool docs) {
  uint32_t all = 0;
  for (uint32_t v : values) all |= v;
  const int widest = static_cast<int>(std::bit_width(all));
  const size_t min_saving = docs && values.size() == kBlockSize ? 16 : 0;
  size_t plain_size = SIZE_MAX, patched_size = SIZE_MAX;
  int plain_bits = -1, patched_bits = -1;
  for (int b = 0; b <= 32; ++b) {
    const size_t size = ReferenceBlock(values, b).size();
    size_t& best_size = b < widest ? patched_size : plain_size;
    if (size <= best_size) {
      best_size = size;
      (b < widest ? patched_bits : plain_bits) = b;
    }
  }
  return patched_bits >= 0 && patched_size + min_saving < plain_size ? patched_bits : plain_bits;
}

}  // namespace dps::codec_testing
