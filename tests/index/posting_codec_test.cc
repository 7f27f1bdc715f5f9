#include "index/posting_codec.h"

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

namespace dps {
namespace {

using internal::CodecPath;
using Rng = std::mt19937_64;

constexpr uint32_t kNone = UINT32_MAX;  // "no previous docid"

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

std::vector<CodecPath> Paths() {
  if (internal::kHaveSse2Path) return {CodecPath::kScalar, CodecPath::kSse2};
  return {CodecPath::kScalar};
}


std::vector<uint32_t> DocsFromGaps(const std::vector<uint32_t>& gaps, uint32_t prev) {
  std::vector<uint32_t> docs;
  for (uint32_t g : gaps) docs.push_back(prev += g + 1);
  return docs;
}

// Every part of the full block in `in` decodes alone, given its predecessor.
void ExpectPartsDecode(const ExactBuffer& in, const std::vector<uint32_t>& docs, uint32_t prev) {
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
void ExpectDocsRoundTrip(const std::vector<uint32_t>& docs, uint32_t prev) {
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

void ExpectWeightsRoundTrip(const std::vector<uint32_t>& weights) {
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
std::vector<uint32_t> GapsOfWidth(size_t n, int bits, Rng& rng) {
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
std::string ReferenceHorizontal(const std::vector<uint32_t>& values, int bits) {
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
std::string ReferencePayload(const std::vector<uint32_t>& values, int bits) {
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
std::string ReferenceBlock(const std::vector<uint32_t>& values, int bits) {
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
int BestWidth(const std::vector<uint32_t>& values, bool docs) {
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

TEST(PostingCodecDocBlock, RoundTripsEveryLengthAndWidth) {
  Rng rng(1);
  for (size_t n = 1; n <= kBlockSize; ++n) {
    for (int bits = 0; bits <= 32; ++bits) {
      SCOPED_TRACE("n=" + std::to_string(n) + " bits=" + std::to_string(bits));
      const std::vector<uint32_t> gaps = GapsOfWidth(n, bits, rng);
      std::vector<uint32_t> docs = DocsFromGaps(gaps, kNone);
      std::string buf;
      EncodeDocBlock(docs.data(), n, kNone, &buf);
      EXPECT_EQ(buf, ReferenceBlock(gaps, BestWidth(gaps, /*docs=*/true)));
      ExpectDocsRoundTrip(docs, kNone);
      // The same gaps shifted so the last docid is 2^32-1.
      const uint32_t shift = UINT32_MAX - docs.back();
      if (shift == 0) continue;
      for (uint32_t& d : docs) d += shift;
      ExpectDocsRoundTrip(docs, shift - 1);
    }
  }
}

// Gaps all of width `bits` leave no cheaper width with exceptions: the block
// is plain FOR, its payload laid out as FORMAT.md says.
TEST(PostingCodecDocBlock, GapsOfOneWidthArePlainFor) {
  Rng rng(11);
  for (size_t n = 1; n <= kBlockSize; ++n) {
    for (int bits = 1; bits <= 24; ++bits) {
      SCOPED_TRACE("n=" + std::to_string(n) + " bits=" + std::to_string(bits));
      std::vector<uint32_t> gaps(n);
      const uint32_t low = 1u << (bits - 1);
      for (uint32_t& g : gaps) g = low + static_cast<uint32_t>(rng() % low);
      const std::vector<uint32_t> docs = DocsFromGaps(gaps, kNone);
      std::string buf;
      EncodeDocBlock(docs.data(), n, kNone, &buf);
      // Partial blocks may widen to the widest width of the same payload.
      const int width = static_cast<uint8_t>(buf[0]);
      EXPECT_TRUE(width == bits || (n < kBlockSize && width > bits &&
                                    PayloadSize(n, width) == PayloadSize(n, bits)))
          << width;
      EXPECT_EQ(buf.substr(1), ReferencePayload(gaps, width));
      ExpectDocsRoundTrip(docs, kNone);
    }
  }
}

TEST(PostingCodecDocBlock, EveryPartDecodesLikeTheWholeBlock) {
  Rng rng(17);
  for (int bits = 0; bits <= 32; ++bits) {
    // One wide gap among narrow ones (an exception), then gaps all of one
    // width (plain FOR; 128 of them fit 32 bits only up to width 24).
    for (bool one_wide : {true, false}) {
      SCOPED_TRACE("bits=" + std::to_string(bits) + " one_wide=" + std::to_string(one_wide));
      if (!one_wide && (bits == 0 || bits > 24)) continue;
      std::vector<uint32_t> gaps = GapsOfWidth(kBlockSize, bits, rng);
      if (!one_wide) {
        for (uint32_t& g : gaps) g |= 1u << (bits - 1);
      } else if (bits >= 8) {  // the others narrow
        const auto wide = std::max_element(gaps.begin(), gaps.end());
        for (auto g = gaps.begin(); g != gaps.end(); ++g) *g = g == wide ? *g : *g & 15;
      }
      // Wide gaps start at docid 0 so that 128 of them stay within 32 bits.
      const uint32_t prev = bits >= 25 ? kNone : 1000;
      std::vector<uint32_t> docs = DocsFromGaps(gaps, prev);
      std::string buf;
      EncodeDocBlock(docs.data(), kBlockSize, prev, &buf);
      // One wide gap among 4-bit ones saves far more than 16 bytes as an
      // exception; gaps of one width need none.
      if (!one_wide) {
        EXPECT_EQ(buf[0] & 0x80, 0);
      } else if (bits >= 8) {
        EXPECT_NE(buf[0] & 0x80, 0);
      }
      const auto* p = reinterpret_cast<const uint8_t*>(buf.data());
      for (size_t part = 0; part < kBlockParts; ++part) {
        uint32_t out[kBlockPartSize];
        const uint32_t before = part == 0 ? prev : docs[part * kBlockPartSize - 1];
        ASSERT_EQ(DecodeDocBlockPart(p, p + buf.size(), part, before, out), p + buf.size());
        for (size_t i = 0; i < kBlockPartSize; ++i) {
          ASSERT_EQ(out[i], docs[part * kBlockPartSize + i]) << "part " << part << " i " << i;
        }
        // Truncated input and a bad part index are rejected.
        EXPECT_EQ(DecodeDocBlockPart(p, p + buf.size() - 1, part, before, out), nullptr);
      }
      uint32_t out[kBlockPartSize];
      EXPECT_EQ(DecodeDocBlockPart(p, p + buf.size(), kBlockParts, prev, out), nullptr);
    }
  }
}

// Full docid blocks with exceptions, built by the reference encoder at every
// width below the widest gap's (most of them no writer would choose), decode
// whole and part by part.
TEST(PostingCodecDocBlock, FullBlocksWithExceptionsDecodeWholeAndByPart) {
  Rng rng(23);
  for (int rep = 0; rep < 200; ++rep) {
    std::geometric_distribution<uint32_t> small(0.05 + 0.9 * (rng() % 100) / 100.0);
    std::vector<uint32_t> gaps(kBlockSize);
    for (uint32_t& g : gaps) g = rng() % 10 == 0 ? static_cast<uint32_t>(rng() >> 44) : small(rng);
    const uint32_t prev = rep % 2 ? kNone : static_cast<uint32_t>(rng() % 1000);
    const std::vector<uint32_t> docs = DocsFromGaps(gaps, prev);
    uint32_t all = 0;
    for (uint32_t g : gaps) all |= g;
    for (int bits = 0; bits < static_cast<int>(std::bit_width(all)); ++bits) {
      SCOPED_TRACE("rep " + std::to_string(rep) + " bits " + std::to_string(bits));
      const std::string block = ReferenceBlock(gaps, bits);
      ASSERT_NE(block[0] & 0x80, 0);
      ExactBuffer in(block);
      for (CodecPath path : Paths()) {
        std::vector<uint32_t> out(kBlockSize);
        ASSERT_EQ(internal::DecodeDocBlockOn(path, in.begin(), in.end(), kBlockSize, prev,
                                             out.data()),
                  in.end());
        ASSERT_EQ(out, docs);
      }
      ExpectPartsDecode(in, docs, prev);
      ExactBuffer cut(block, block.size() - 1);
      EXPECT_EQ(DecodeDocBlockPart(cut.begin(), cut.end(), 0, prev, nullptr), nullptr);
    }
  }
}

TEST(PostingCodecDocBlock, SingleDocids) {
  for (uint32_t d : {0u, 1u, 127u, 128u, 65535u, 1u << 31, UINT32_MAX - 1, UINT32_MAX}) {
    SCOPED_TRACE(d);
    ExpectDocsRoundTrip({d}, kNone);
    if (d > 0) ExpectDocsRoundTrip({d}, d - 1);
    if (d > 0) ExpectDocsRoundTrip({d}, 0);
  }
}

TEST(PostingCodecDocBlock, DocidZeroWithoutPrevIsOneByte) {
  const uint32_t zero = 0;
  std::string buf;
  EncodeDocBlock(&zero, 1, kNone, &buf);
  EXPECT_EQ(buf, std::string(1, '\0'));
  ExpectDocsRoundTrip({0}, kNone);
}

TEST(PostingCodecDocBlock, LastDocidRightAfterPrev) {
  const uint32_t last = UINT32_MAX;
  std::string buf;
  EncodeDocBlock(&last, 1, UINT32_MAX - 1, &buf);
  EXPECT_EQ(buf, std::string(1, '\0'));
  ExpectDocsRoundTrip({UINT32_MAX}, UINT32_MAX - 1);
}

TEST(PostingCodecDocBlock, MaxGapAsFirstValueWithoutPrev) {
  const uint32_t last = UINT32_MAX;
  std::string buf;
  EncodeDocBlock(&last, 1, kNone, &buf);
  EXPECT_EQ(buf, std::string("\x20\xff\xff\xff\xff", 5));
  ExpectDocsRoundTrip({UINT32_MAX}, kNone);
}

TEST(PostingCodecDocBlock, CrossesFromSmallPrevToTopOfRange) {
  for (size_t n : {2, 3, 64, 127, 128}) {
    SCOPED_TRACE(n);
    std::vector<uint32_t> docs(n);
    for (size_t i = 0; i < n; ++i) docs[i] = static_cast<uint32_t>(UINT32_MAX - (n - 1) + i);
    ExpectDocsRoundTrip(docs, 5);
    ExpectDocsRoundTrip(docs, kNone);
    docs[0] = 7;  // a small first docid, then a jump to the top
    ExpectDocsRoundTrip(docs, 5);
  }
}

TEST(PostingCodecDocBlock, FullBlockAtWidth32) {
  std::vector<uint32_t> docs(kBlockSize);
  for (size_t i = 0; i < kBlockSize; ++i) docs[i] = (1u << 31) + static_cast<uint32_t>(i);
  ExpectDocsRoundTrip(docs, kNone);
  ExpectDocsRoundTrip(docs, 0);
}

// Pins the bytes of the worked examples in docs/format-posting-blocks.md.
TEST(PostingCodecDocBlock, GoldenBytes) {
  const std::vector<uint32_t> partial = {5, 6, 12, 13, 20};  // gaps 5 0 5 0 6
  std::string buf;
  EncodeDocBlock(partial.data(), partial.size(), kNone, &buf);
  EXPECT_EQ(buf, std::string("\x03\x45\x61", 3));

  // FORMAT.md's exceptions example: gaps 0 0 0 299 0, the values of the
  // weight block example.
  const std::vector<uint32_t> wide = {0, 1, 2, 302, 303};
  buf.clear();
  EncodeDocBlock(wide.data(), wide.size(), kNone, &buf);
  EXPECT_EQ(buf, std::string("\x81\x01\x08\x08\x03\x95", 6));

  // FORMAT.md's vertical example: lane 1 all ones, and value 6.
  std::vector<uint32_t> gaps(kBlockSize, 0);
  gaps[6] = 1;
  for (size_t i = 1; i < kBlockSize; i += 4) gaps[i] = 1;
  const std::vector<uint32_t> full = DocsFromGaps(gaps, kNone);
  buf.clear();
  EncodeDocBlock(full.data(), kBlockSize, kNone, &buf);
  EXPECT_EQ(buf, std::string("\x01"
                             "\x00\x00\x00\x00"
                             "\xff\xff\xff\xff"
                             "\x02\x00\x00\x00"
                             "\x00\x00\x00\x00",
                             17));
}

TEST(PostingCodecDocBlock, RandomListsAcrossBlocks) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    Rng rng(seed);
    const size_t len = 1 + rng() % 1000;
    const uint32_t max_gap = 1u << (rng() % 32);
    std::vector<uint32_t> docs;
    uint64_t d = rng() % 4 == 0 ? rng() % 1000 : 0;
    for (size_t i = 0; i < len && d <= UINT32_MAX; ++i, d += 1 + rng() % max_gap) {
      docs.push_back(static_cast<uint32_t>(d));
    }
    std::string buf;
    uint32_t prev = kNone;
    for (size_t i = 0; i < docs.size(); i += kBlockSize) {
      const size_t n = std::min(kBlockSize, docs.size() - i);
      EncodeDocBlock(docs.data() + i, n, prev, &buf);
      prev = docs[i + n - 1];
    }
    ExactBuffer in(buf);
    const uint8_t* p = in.begin();
    prev = kNone;
    std::vector<uint32_t> out(kBlockSize);
    for (size_t i = 0; i < docs.size(); i += kBlockSize) {
      const size_t n = std::min(kBlockSize, docs.size() - i);
      p = DecodeDocBlock(p, in.end(), n, prev, out.data());
      ASSERT_NE(p, nullptr) << "block at " << i;
      ASSERT_TRUE(std::equal(out.begin(), out.begin() + n, docs.begin() + i)) << "block at " << i;
      prev = docs[i + n - 1];
    }
    EXPECT_EQ(p, in.end());
  }
}

TEST(PostingCodecWeightBlock, RoundTripsEveryLengthAndWidth) {
  Rng rng(2);
  for (size_t n = 1; n <= kBlockSize; ++n) {
    for (int bits = 0; bits <= 32; ++bits) {
      SCOPED_TRACE("n=" + std::to_string(n) + " bits=" + std::to_string(bits));
      const uint64_t limit = bits == 32 ? UINT32_MAX - 1 : (uint64_t{1} << bits) - 1;
      std::vector<uint32_t> weights(n);
      for (uint32_t& w : weights) w = static_cast<uint32_t>(rng() % (limit + 1)) + 1;
      weights[rng() % n] = static_cast<uint32_t>(limit) + 1;
      ExpectWeightsRoundTrip(weights);
    }
  }
}

TEST(PostingCodecWeightBlock, AllOnesCostOneByte) {
  for (size_t n = 1; n <= kBlockSize; ++n) {
    const std::vector<uint32_t> ones(n, 1);
    std::string buf;
    EncodeWeightBlock(ones.data(), n, &buf);
    EXPECT_EQ(buf, std::string(1, '\0')) << n;
    ExpectWeightsRoundTrip(ones);
  }
}

TEST(PostingCodecWeightBlock, OneHugeWeightAmongOnesIsAnException) {
  for (size_t n : {16, 100, 128}) {
    for (uint32_t huge : {300u, 1u << 20, UINT32_MAX}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " huge=" + std::to_string(huge));
      std::vector<uint32_t> weights(n, 1);
      weights[n / 2] = huge;
      std::string buf;
      EncodeWeightBlock(weights.data(), n, &buf);
      // Width 0, one exception at n / 2 whose high is all of huge - 1.
      std::vector<uint32_t> values(n, 0);
      values[n / 2] = huge - 1;
      EXPECT_EQ(buf, ReferenceBlock(values, 0));
      EXPECT_EQ(buf.substr(0, 2), std::string("\x80\x01", 2));
      ExpectWeightsRoundTrip(weights);
    }
  }
}

TEST(PostingCodecWeightBlock, GoldenBytes) {
  const std::vector<uint32_t> weights = {1, 1, 1, 300, 1};
  std::string buf;
  EncodeWeightBlock(weights.data(), weights.size(), &buf);
  EXPECT_EQ(buf, std::string("\x81\x01\x08\x08\x03\x95", 6));
  // Without exceptions the header is the width alone: weights 1..4 at 2 bits.
  const std::vector<uint32_t> small = {1, 2, 3, 4};
  buf.clear();
  EncodeWeightBlock(small.data(), small.size(), &buf);
  EXPECT_EQ(buf, std::string("\x02\xe4", 2));
}

TEST(PostingCodecWeightBlock, AllDistinctAndMaximal) {
  std::vector<uint32_t> distinct(kBlockSize), top(kBlockSize, UINT32_MAX);
  for (size_t i = 0; i < kBlockSize; ++i) distinct[i] = static_cast<uint32_t>(i * 7919 + 1);
  ExpectWeightsRoundTrip(distinct);
  ExpectWeightsRoundTrip(top);
  top.resize(3);
  ExpectWeightsRoundTrip(top);
}

TEST(PostingCodecWeightBlock, SkewedRandomBlocksRoundTrip) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    Rng rng(seed);
    const size_t n = 1 + rng() % kBlockSize;
    std::geometric_distribution<uint32_t> small(0.3 + 0.6 * (rng() % 100) / 100.0);
    std::vector<uint32_t> weights(n);
    for (uint32_t& w : weights) {
      w = 1 + (rng() % 16 == 0 ? static_cast<uint32_t>(rng() >> (32 + rng() % 32)) : small(rng));
      w = std::max<uint32_t>(w, 1);
    }
    ExpectWeightsRoundTrip(weights);
  }
}

// The documented choice (FORMAT.md "Weight block"), by brute force over
// every width: the smallest block, ties to the wider width.
// Both kinds follow the documented choice (FORMAT.md "Block layout"), by
// brute force over every width: the smallest block, ties to the wider width.
TEST(PostingCodecBlock, WidthIsTheSmallestBlocksWidestTie) {
  for (uint64_t seed = 1; seed <= 2000; ++seed) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    Rng rng(seed);
    // Short blocks too: their payloads round up to bytes, so several widths tie.
    const size_t n = seed % 3 == 0 ? kBlockSize : 1 + rng() % 12;
    std::geometric_distribution<uint32_t> small(0.2 + 0.7 * (rng() % 100) / 100.0);
    std::vector<uint32_t> values(n);
    for (uint32_t& v : values) {
      v = rng() % 8 == 0 ? static_cast<uint32_t>(rng() >> (40 + rng() % 24)) : small(rng);
    }
    std::vector<uint32_t> weights(n);
    for (size_t i = 0; i < n; ++i) weights[i] = values[i] + 1;
    std::string block;
    EncodeWeightBlock(weights.data(), n, &block);
    EXPECT_EQ(block, ReferenceBlock(values, BestWidth(values, /*docs=*/false)));
    ExpectWeightsRoundTrip(weights);
    // The same values as gaps, from docid 0 (they sum to well below 2^32).
    const std::vector<uint32_t> docs = DocsFromGaps(values, kNone);
    block.clear();
    EncodeDocBlock(docs.data(), n, kNone, &block);
    EXPECT_EQ(block, ReferenceBlock(values, BestWidth(values, /*docs=*/true)));
    ExpectDocsRoundTrip(docs, kNone);
  }
}

// ------------------------------------------------------------- corruption

const uint8_t* Decode(bool docs, const ExactBuffer& in, size_t n, CodecPath path, uint32_t* out) {
  return docs ? internal::DecodeDocBlockOn(path, in.begin(), in.end(), n, 0, out)
              : internal::DecodeWeightBlockOn(path, in.begin(), in.end(), n, out);
}

TEST(PostingCodecDocBlock, RejectsWidthAbove32) {
  std::string buf(1 + 16 * 40, '\0');
  std::vector<uint32_t> out(kBlockSize);
  for (int bits = 33; bits < 256; ++bits) {
    buf[0] = static_cast<char>(bits);
    ExactBuffer in(buf);
    for (CodecPath path : Paths()) {
      EXPECT_EQ(Decode(true, in, kBlockSize, path, out.data()), nullptr) << bits;
      EXPECT_EQ(Decode(true, in, 3, path, out.data()), nullptr) << bits;
    }
  }
}

TEST(PostingCodecDocBlock, RejectsNonzeroPadding) {
  // 5 values of 3 bits use 15 bits; bit 15 is padding.
  ExactBuffer in(std::string("\x03\x45\xe1", 3));
  std::vector<uint32_t> out(kBlockSize);
  EXPECT_EQ(DecodeDocBlock(in.begin(), in.end(), 5, kNone, out.data()), nullptr);
}

TEST(PostingCodecDocBlock, RejectsGapsThatWrapPast32Bits) {
  std::vector<uint32_t> out(kBlockSize);
  ExactBuffer zero_gaps(std::string(1, '\0'));  // width 0: every gap is 0
  EXPECT_NE(DecodeDocBlock(zero_gaps.begin(), zero_gaps.end(), 1, UINT32_MAX - 1, out.data()),
            nullptr);
  EXPECT_EQ(DecodeDocBlock(zero_gaps.begin(), zero_gaps.end(), 2, UINT32_MAX - 1, out.data()),
            nullptr);
  for (size_t n : {2, 128}) {
    SCOPED_TRACE(n);
    // Width 32 with every gap 2^31: the second docid already wraps.
    std::string buf("\x20");
    for (size_t i = 0; i < n; ++i) PutFixed32(&buf, 1u << 31);
    ExactBuffer in(buf);
    for (CodecPath path : Paths()) {
      EXPECT_EQ(internal::DecodeDocBlockOn(path, in.begin(), in.end(), n, kNone, out.data()),
                nullptr);
    }
    // A gap of 2^32-1 after a docid: the sum wraps to the same docid.
    buf = "\x20";
    PutFixed32(&buf, 0);
    for (size_t i = 1; i < n; ++i) PutFixed32(&buf, UINT32_MAX);
    ExactBuffer same(buf);
    for (CodecPath path : Paths()) {
      EXPECT_EQ(internal::DecodeDocBlockOn(path, same.begin(), same.end(), n, kNone, out.data()),
                nullptr);
    }
  }
}

// Every gap 2^bits - 1 (all payload bits set), with `prev` placed so the last
// docid is exactly 2^32 - 1, then one higher so it would be 2^32.
TEST(PostingCodecDocBlock, RejectsOverflowAtEveryWidth) {
  std::vector<uint32_t> out(kBlockSize);
  for (size_t n : {1, 5, 127, 128}) {
    for (int bits = 1; bits <= 32; ++bits) {
      SCOPED_TRACE("n=" + std::to_string(n) + " bits=" + std::to_string(bits));
      std::string buf(1 + PayloadSize(n, bits), '\xff');
      buf[0] = static_cast<char>(bits);
      if (const size_t used = (n * bits) % 8; n < kBlockSize && used != 0) {
        buf.back() = static_cast<char>((1 << used) - 1);  // padding stays zero
      }
      ExactBuffer in(buf);
      const uint64_t span = uint64_t{n} << bits;  // last docid = first + span - 1
      for (CodecPath path : Paths()) {
        if (span > uint64_t{1} << 32) {
          EXPECT_EQ(internal::DecodeDocBlockOn(path, in.begin(), in.end(), n, kNone, out.data()),
                    nullptr);
          continue;
        }
        const auto first = static_cast<uint32_t>((uint64_t{1} << 32) - span);
        const uint32_t fits = first == 0 ? kNone : first - 1;
        ASSERT_EQ(internal::DecodeDocBlockOn(path, in.begin(), in.end(), n, fits, out.data()),
                  in.end());
        EXPECT_EQ(out[n - 1], UINT32_MAX);
        EXPECT_EQ(internal::DecodeDocBlockOn(path, in.begin(), in.end(), n, first, out.data()),
                  nullptr);
      }
    }
  }
}

TEST(PostingCodecDocBlock, RejectsBadLength) {
  ExactBuffer in(std::string(1, '\0'));
  std::vector<uint32_t> out(kBlockSize);
  EXPECT_EQ(DecodeDocBlock(in.begin(), in.end(), 0, kNone, out.data()), nullptr);
  EXPECT_EQ(DecodeDocBlock(in.begin(), in.end(), kBlockSize + 1, kNone, out.data()), nullptr);
  EXPECT_EQ(DecodeWeightBlock(in.begin(), in.end(), 0, out.data()), nullptr);
}

// Both kinds share the header and exception list. (As docid blocks from
// prev 0 the "2^32" values are gaps that wrap past the docid space.)
TEST(PostingCodecBlock, RejectsBadHeadersAndExceptions) {
  std::vector<uint32_t> out(kBlockSize);
  struct Case {
    const char* what;
    std::string bytes;
    size_t n;
  };
  const Case cases[] = {
      {"width above 32", std::string("\x21", 1) + std::string(200, '\0'), 4},
      {"width above 32 with exceptions", std::string("\xa1\x01\x01", 3) + std::string(200, '\0'), 4},
      {"reserved head bit 6", std::string("\x40", 1) + std::string(200, '\0'), 4},
      {"exception count 0", std::string("\x80\x00\x01", 3) + std::string(200, '\0'), 4},
      {"more exceptions than values", std::string("\x80\x05\x01", 3) + std::string(200, '\0'), 4},
      {"high width 0", std::string("\x80\x01\x00", 3) + std::string(200, '\0'), 4},
      {"high width past 32 - b", std::string("\x81\x01\x20", 3) + std::string(200, '\0'), 4},
      {"position past n", std::string("\x80\x01\x01\x04\x01", 5), 4},
      {"positions not increasing", std::string("\x80\x02\x01\x02\x02\x03", 6), 4},
      {"high zero", std::string("\x80\x01\x01\x02\x00", 5), 4},
      {"nonzero padding in the highs", std::string("\x80\x01\x01\x02\x03", 5), 4},
      {"highs cut short", std::string("\x80\x02\x08\x00\x01\xff", 6), 4},
      {"weight 2^32 (width 0)", std::string("\x80\x01\x20\x00\xff\xff\xff\xff", 8), 1},
      {"weight 2^32 (width 32)", std::string("\x20\xff\xff\xff\xff", 5), 1},
      {"nonzero padding", std::string("\x01\x02", 2), 1},
  };
  for (const Case& c : cases) {
    ExactBuffer in(c.bytes);
    for (CodecPath path : Paths()) {
      for (bool docs : {false, true}) {
        EXPECT_EQ(Decode(docs, in, c.n, path, out.data()), nullptr) << c.what << " docs " << docs;
      }
    }
  }
  // Control: the largest valid exception at width 1 (a 31-bit high)
  // decodes, as the weight 2^32 - 1 and as the gap 2^32 - 2 (docid 2^32 - 1
  // after docid 0).
  ExactBuffer ok(std::string("\x81\x01\x1f\x00\x00\xff\xff\xff\x7f", 9));
  ASSERT_EQ(DecodeWeightBlock(ok.begin(), ok.end(), 1, out.data()), ok.end());
  EXPECT_EQ(out[0], UINT32_MAX);
  ASSERT_EQ(DecodeDocBlock(ok.begin(), ok.end(), 1, 0, out.data()), ok.end());
  EXPECT_EQ(out[0], UINT32_MAX);
  // A part decoder checks the positions it uses (the block decoder checks
  // them all; page checksums stand before both).
  const std::string full("\x80\x02\x01\x05\x05\x03", 6);  // positions not increasing
  ExactBuffer bad_full(full);
  uint32_t part[kBlockPartSize];
  EXPECT_EQ(DecodeDocBlockPart(bad_full.begin(), bad_full.end(), 0, 0, part), nullptr);
  EXPECT_EQ(DecodeDocBlock(bad_full.begin(), bad_full.end(), kBlockSize, 0, out.data()), nullptr);
  const std::string past("\x80\x01\x01\x80\x01", 5);  // position 128
  ExactBuffer bad_past(past);
  for (size_t p = 0; p < kBlockParts; ++p) {
    EXPECT_EQ(DecodeDocBlockPart(bad_past.begin(), bad_past.end(), p, 0, part), nullptr) << p;
  }
}

// Blocks of every kind and region: partial and full, narrow and wide, with
// and without exceptions.
std::vector<std::pair<std::string, size_t>> SampleBlocks(bool docs, Rng& rng) {
  std::vector<std::pair<std::string, size_t>> blocks;
  for (size_t n : {1, 2, 7, 64, 127, 128}) {
    for (int bits : {0, 1, 5, 8, 13, 31, 32}) {
      std::string buf;
      std::vector<uint32_t> v = GapsOfWidth(n, bits, rng);
      if (docs) {
        v = DocsFromGaps(v, 0);
        if (v.back() < v.front()) continue;  // wrapped: not a valid list from prev 0
        EncodeDocBlock(v.data(), n, 0, &buf);
      } else {
        for (uint32_t& w : v) w = std::min(w, UINT32_MAX - 1) + 1;
        v[rng() % n] = 1 + static_cast<uint32_t>(rng() % UINT32_MAX);  // likely an exception
        EncodeWeightBlock(v.data(), n, &buf);
      }
      blocks.emplace_back(buf, n);
    }
  }
  return blocks;
}

TEST(PostingCodecCorruption, TruncationAtEveryByteIsRejected) {
  Rng rng(3);
  std::vector<uint32_t> out(kBlockSize);
  for (bool docs : {true, false}) {
    for (const auto& [buf, n] : SampleBlocks(docs, rng)) {
      for (size_t cut = 0; cut < buf.size(); ++cut) {
        ExactBuffer in(buf, cut);
        for (CodecPath path : Paths()) {
          ASSERT_EQ(Decode(docs, in, n, path, out.data()), nullptr)
              << (docs ? "docs" : "weights") << " n=" << n << " size=" << buf.size()
              << " cut=" << cut;
        }
        if (!docs) {
          ASSERT_EQ(SkipBlock(in.begin(), in.end(), n), nullptr) << "cut=" << cut;
        }
      }
    }
  }
}

// Flipped bytes must never crash or read out of bounds; when both paths
// accept the input they must agree on the values and the bytes consumed.
TEST(PostingCodecCorruption, RandomByteFlipsNeverCrashAndPathsAgree) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    Rng rng(seed);
    for (bool docs : {true, false}) {
      for (auto [buf, n] : SampleBlocks(docs, rng)) {
        for (int flips = 1 + rng() % 3; flips > 0; --flips) {
          buf[rng() % buf.size()] ^= static_cast<char>(1 + rng() % 255);
        }
        ExactBuffer in(buf);
        std::vector<std::vector<uint32_t>> outs;
        std::vector<const uint8_t*> ends;
        for (CodecPath path : Paths()) {
          outs.emplace_back(kBlockSize);
          ends.push_back(Decode(docs, in, n, path, outs.back().data()));
          if (ends.back() != nullptr) {
            ASSERT_GT(ends.back(), in.begin());
            ASSERT_LE(ends.back(), in.end());
          }
        }
        ASSERT_EQ(ends.front(), ends.back());
        if (ends.front() != nullptr) {
          ASSERT_TRUE(
              std::equal(outs.front().begin(), outs.front().begin() + n, outs.back().begin()));
        }
      }
    }
  }
}

TEST(PostingCodecCorruption, RandomBytesNeverCrashAndPathsAgree) {
  Rng rng(4);
  for (int iter = 0; iter < 50000; ++iter) {
    const size_t n = 1 + rng() % kBlockSize;
    std::string buf(rng() % 600, '\0');
    for (char& c : buf) c = static_cast<char>(rng());
    if (!buf.empty() && rng() % 2 == 0) {  // a valid width, half the time with exceptions
      buf[0] = static_cast<char>((buf[0] & 31) | (rng() % 2 ? 0x80 : 0));
    }
    if (buf.size() > 1 && rng() % 2 == 0) buf[1] = static_cast<char>(rng() % 4);  // few exceptions
    ExactBuffer in(buf);
    for (bool docs : {true, false}) {
      std::vector<uint32_t> scalar(kBlockSize), other(kBlockSize);
      const uint8_t* a = Decode(docs, in, n, CodecPath::kScalar, scalar.data());
      const uint8_t* b = Decode(docs, in, n, Paths().back(), other.data());
      ASSERT_EQ(a, b) << "iter " << iter;
      if (a != nullptr) {
        ASSERT_TRUE(std::equal(scalar.begin(), scalar.begin() + n, other.begin())) << iter;
      }
    }
  }
}

TEST(PostingCodecSse2, MatchesScalarOnEveryWidth) {
  if (!internal::kHaveSse2Path) GTEST_SKIP() << "SSE2 path not compiled";
  Rng rng(5);
  // Full blocks (vertical unpack) and partial ones (horizontal unpack, then
  // an SSE2 prefix sum over whole groups of four plus a scalar tail).
  for (size_t n : {kBlockSize, size_t{1}, size_t{3}, size_t{4}, size_t{5}, size_t{64}, size_t{127}}) {
    for (int bits = 0; bits <= 32; ++bits) {
      for (int rep = 0; rep < 20; ++rep) {
        // Arbitrary payload bits: every pattern a width can hold, not only
        // the ones valid docid lists produce (padding bits cleared, else
        // both paths reject the block alike). Every third block has a few
        // exceptions (unpacked, patched, then summed).
        const size_t size = PayloadSize(n, bits);
        std::string payload(size, '\0');
        for (char& c : payload) c = static_cast<char>(rng());
        if ((n * bits) % 8 != 0) payload[size - 1] &= static_cast<char>((1u << ((n * bits) % 8)) - 1);
        std::string positions;
        std::vector<uint32_t> highs;
        const int high_bits = bits < 32 ? 1 + static_cast<int>(rng() % std::min(8, 32 - bits)) : 0;
        if (rep % 3 == 2 && bits < 32) {
          for (size_t i = rng() % 3; i < n; i += 1 + rng() % 40) {
            positions.push_back(static_cast<char>(i));
            highs.push_back(1 + static_cast<uint32_t>(rng() % ((1u << high_bits) - 1)));
          }
        }
        std::string buf(1, static_cast<char>(bits | (highs.empty() ? 0 : 0x80)));
        if (!highs.empty()) {
          buf.push_back(static_cast<char>(highs.size()));
          buf.push_back(static_cast<char>(high_bits));
        }
        buf += payload + positions + ReferenceHorizontal(highs, high_bits);
        ExactBuffer in(buf);
        for (bool docs : {true, false}) {
          std::vector<uint32_t> scalar(kBlockSize), sse2(kBlockSize);
          const uint32_t prev = rep % 2 ? kNone : static_cast<uint32_t>(rng() % 1000);
          const uint8_t* a =
              docs ? internal::DecodeDocBlockOn(CodecPath::kScalar, in.begin(), in.end(), n, prev,
                                                scalar.data())
                   : internal::DecodeWeightBlockOn(CodecPath::kScalar, in.begin(), in.end(), n,
                                                   scalar.data());
          const uint8_t* b =
              docs ? internal::DecodeDocBlockOn(CodecPath::kSse2, in.begin(), in.end(), n, prev,
                                                sse2.data())
                   : internal::DecodeWeightBlockOn(CodecPath::kSse2, in.begin(), in.end(), n,
                                                   sse2.data());
          ASSERT_EQ(a, b) << "n " << n << " bits " << bits;
          if (a != nullptr) {
            scalar.resize(n);
            sse2.resize(n);
            ASSERT_EQ(scalar, sse2) << "n " << n << " bits " << bits;
          }
        }
      }
    }
  }
}

// ------------------------------------------------------------ lower bound

TEST(PostingCodecLowerBound, MatchesStdLowerBound) {
  using Fn = size_t (*)(const uint32_t*, size_t, uint32_t);
  const std::pair<const char*, Fn> variants[] = {
      {"LowerBoundInBlock", &LowerBoundInBlock},
      {"Binary", &internal::LowerBoundBinary},
      {"Count", &internal::LowerBoundCount},
      {"Hybrid", &internal::LowerBoundHybrid},
  };
  Rng rng(6);
  for (size_t n = 0; n <= kBlockSize; ++n) {
    for (int rep = 0; rep < 4; ++rep) {
      // Rep 1 and 3 use the high half of the range, where a signed compare
      // would go wrong.
      std::vector<uint32_t> docs;
      uint64_t d = rep % 2 ? (uint64_t{1} << 31) - 3 * n : rng() % 100;
      for (size_t i = 0; i < n; ++i, d += 1 + rng() % (rep < 2 ? 5 : 1u << 20)) {
        docs.push_back(static_cast<uint32_t>(std::min<uint64_t>(d, UINT32_MAX - (n - i))));
      }
      std::vector<uint32_t> targets = {0, 1, UINT32_MAX, 1u << 31, (1u << 31) - 1};
      for (uint32_t x : docs) targets.insert(targets.end(), {x - 1, x, x + 1});
      for (int i = 0; i < 20; ++i) targets.push_back(static_cast<uint32_t>(rng()));
      for (uint32_t t : targets) {
        const size_t want = std::lower_bound(docs.begin(), docs.end(), t) - docs.begin();
        std::vector<uint32_t> exact(docs);  // exact size: ASan sees over-reads
        for (const auto& [name, fn] : variants) {
          ASSERT_EQ(fn(exact.data(), n, t), want) << name << " n=" << n << " target=" << t;
        }
      }
    }
  }
}

}  // namespace
}  // namespace dps
