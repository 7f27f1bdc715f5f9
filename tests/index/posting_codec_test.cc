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

// Encodes, checks the size the format promises, then decodes on every path
// from a buffer of exactly the encoded size and compares.
void ExpectDocsRoundTrip(const std::vector<uint32_t>& docs, uint32_t prev) {
  std::string buf;
  EncodeDocBlock(docs.data(), docs.size(), prev, &buf);
  ASSERT_FALSE(buf.empty());
  const int bits = static_cast<uint8_t>(buf[0]);
  ASSERT_LE(bits, 32);
  EXPECT_EQ(buf.size(), 1 + PayloadSize(docs.size(), bits));
  ExactBuffer in(buf);
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
  ASSERT_GE(buf.size(), 2u);
  // PFOR never loses to plain FOR at the widest value's width.
  uint32_t all = 0;
  for (uint32_t w : weights) all |= w - 1;
  EXPECT_LE(buf.size(), 2 + PayloadSize(weights.size(), std::bit_width(all)));
  ExactBuffer in(buf);
  // Skipping a block (the cursor's walk to later weight blocks) ends where
  // decoding it does.
  EXPECT_EQ(SkipWeightBlock(in.begin(), in.end(), weights.size()), in.end());
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

// The byte and bit where bit t of value i lands, straight from the format
// description, to check the encoder's layout independently.
std::string ReferencePayload(const std::vector<uint32_t>& values, int bits) {
  const size_t n = values.size();
  std::string out(PayloadSize(n, bits), '\0');
  for (size_t i = 0; i < n; ++i) {
    for (int t = 0; t < bits; ++t) {
      if (((values[i] >> t) & 1) == 0) continue;
      size_t byte, bit;
      if (n == kBlockSize) {
        const size_t lane = i % 4, q = (i / 4) * bits + t;  // q: bit within the lane
        byte = 16 * (q / 32) + 4 * lane + (q % 32) / 8;
        bit = q % 8;
      } else {
        byte = (i * bits + t) / 8;
        bit = (i * bits + t) % 8;
      }
      out[byte] = static_cast<char>(out[byte] | (1 << bit));
    }
  }
  return out;
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
      EXPECT_EQ(static_cast<uint8_t>(buf[0]), bits);
      EXPECT_EQ(buf.substr(1), ReferencePayload(gaps, bits));
      ExpectDocsRoundTrip(docs, kNone);
      // The same gaps shifted so the last docid is 2^32-1.
      const uint32_t shift = UINT32_MAX - docs.back();
      if (shift == 0) continue;
      for (uint32_t& d : docs) d += shift;
      ExpectDocsRoundTrip(docs, shift - 1);
    }
  }
}

TEST(PostingCodecDocBlock, EveryPartDecodesLikeTheWholeBlock) {
  Rng rng(17);
  for (int bits = 0; bits <= 32; ++bits) {
    SCOPED_TRACE("bits=" + std::to_string(bits));
    const std::vector<uint32_t> gaps = GapsOfWidth(kBlockSize, bits, rng);
    // Wide gaps start at docid 0 so that 128 of them stay within 32 bits.
    const uint32_t prev = bits >= 25 ? kNone : 1000;
    std::vector<uint32_t> docs = DocsFromGaps(gaps, prev);
    std::string buf;
    EncodeDocBlock(docs.data(), kBlockSize, prev, &buf);
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

  std::vector<uint32_t> gaps(kBlockSize, 0);
  gaps[1] = 1;  // lane 1, bit 0 of its first word
  gaps[6] = 1;  // lane 2, bit 1 of its first word
  const std::vector<uint32_t> full = DocsFromGaps(gaps, kNone);
  buf.clear();
  EncodeDocBlock(full.data(), kBlockSize, kNone, &buf);
  EXPECT_EQ(buf, std::string("\x01"
                             "\x00\x00\x00\x00"
                             "\x01\x00\x00\x00"
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

TEST(PostingCodecWeightBlock, AllOnesCostTwoBytes) {
  for (size_t n = 1; n <= kBlockSize; ++n) {
    const std::vector<uint32_t> ones(n, 1);
    std::string buf;
    EncodeWeightBlock(ones.data(), n, &buf);
    EXPECT_EQ(buf, std::string(2, '\0')) << n;
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
      std::string expected("\x00\x01", 2);  // width 0, one exception
      expected.push_back(static_cast<char>(n / 2));
      PutVarint32(&expected, huge - 1);
      EXPECT_EQ(buf, expected);
      ExpectWeightsRoundTrip(weights);
    }
  }
}

TEST(PostingCodecWeightBlock, GoldenBytes) {
  const std::vector<uint32_t> weights = {1, 1, 1, 300, 1};
  std::string buf;
  EncodeWeightBlock(weights.data(), weights.size(), &buf);
  EXPECT_EQ(buf, std::string("\x00\x01\x03\xab\x02", 5));
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
TEST(PostingCodecWeightBlock, WidthIsTheSmallestBlocksWidestTie) {
  auto varint_len = [](uint32_t v) { return v < (1u << 7) ? 1 : v < (1u << 14) ? 2 : v < (1u << 21) ? 3 : v < (1u << 28) ? 4 : 5; };
  for (uint64_t seed = 1; seed <= 2000; ++seed) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    Rng rng(seed);
    // Short blocks too: their payloads round up to bytes, so several widths tie.
    const size_t n = seed % 3 == 0 ? kBlockSize : 1 + rng() % 12;
    std::geometric_distribution<uint32_t> small(0.2 + 0.7 * (rng() % 100) / 100.0);
    std::vector<uint32_t> weights(n);
    for (uint32_t& w : weights) {
      w = 1 + (rng() % 8 == 0 ? static_cast<uint32_t>(rng() >> (33 + rng() % 31)) : small(rng));
    }
    size_t best_size = SIZE_MAX;
    int best_bits = -1;
    for (int b = 0; b <= 32; ++b) {
      size_t size = 2 + (n == kBlockSize ? 16 * static_cast<size_t>(b) : (n * b + 7) / 8);
      for (uint32_t w : weights) {
        const uint32_t v = w - 1;
        if (b < 32 && (v >> b) != 0) size += 1 + varint_len(v >> b);
      }
      if (size <= best_size) {
        best_size = size;
        best_bits = b;
      }
    }
    std::string block;
    EncodeWeightBlock(weights.data(), n, &block);
    EXPECT_EQ(static_cast<int>(static_cast<uint8_t>(block[0])), best_bits);
    EXPECT_EQ(block.size(), best_size);
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

TEST(PostingCodecWeightBlock, RejectsBadExceptions) {
  std::vector<uint32_t> out(kBlockSize);
  struct Case {
    const char* what;
    std::string bytes;
    size_t n;
  };
  const Case cases[] = {
      {"width above 32", std::string("\x21\x00", 2) + std::string(200, '\0'), 4},
      {"more exceptions than values", std::string("\x00\x05", 2), 4},
      {"position past n", std::string("\x00\x01\x04\x01", 4), 4},
      {"positions not increasing", std::string("\x00\x02\x02\x01\x02\x01", 6), 4},
      {"high bits zero", std::string("\x00\x01\x02\x00", 4), 4},
      {"high bits past 32 (width 1)", std::string("\x01\x01\x00\x00\x80\x80\x80\x80\x08", 9), 1},
      {"weight 2^32 (width 0)", std::string("\x00\x01\x00\xff\xff\xff\xff\x0f", 8), 1},
      {"weight 2^32 (width 32)", std::string("\x20\x00\xff\xff\xff\xff", 6), 1},
      {"exception at width 32", std::string("\x20\x01\x00\x00\x00\x00\x00\x01", 8), 1},
      {"overlong varint", std::string("\x00\x01\x00\xff\xff\xff\xff\xff\x01", 9), 1},
      {"nonzero padding", std::string("\x01\x00\x02", 3), 1},
  };
  for (const Case& c : cases) {
    ExactBuffer in(c.bytes);
    for (CodecPath path : Paths()) {
      EXPECT_EQ(Decode(false, in, c.n, path, out.data()), nullptr) << c.what;
    }
  }
  // Control: the largest valid exception at width 1 decodes.
  ExactBuffer ok(std::string("\x01\x01\x00\x00\xff\xff\xff\xff\x07", 9));
  ASSERT_EQ(DecodeWeightBlock(ok.begin(), ok.end(), 1, out.data()), ok.end());
  EXPECT_EQ(out[0], UINT32_MAX);
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
          ASSERT_EQ(SkipWeightBlock(in.begin(), in.end(), n), nullptr) << "cut=" << cut;
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
    if (!buf.empty() && rng() % 2 == 0) buf[0] = static_cast<char>(buf[0] & 31);  // valid width
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
        // both paths reject the block alike).
        const size_t size = PayloadSize(n, bits);
        std::string buf(2 + size, '\0');
        for (char& c : buf) c = static_cast<char>(rng());
        buf[0] = static_cast<char>(bits);
        buf[1] = '\0';
        if ((n * bits) % 8 != 0) buf[size] &= static_cast<char>((1u << ((n * bits) % 8)) - 1);
        ExactBuffer docs_in(buf.substr(0, 1 + size));
        ExactBuffer weights_in(buf);
        for (bool docs : {true, false}) {
          const ExactBuffer& in = docs ? docs_in : weights_in;
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
