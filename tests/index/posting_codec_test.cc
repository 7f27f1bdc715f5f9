#include "index/posting_codec.h"

#include <gtest/gtest.h>

#include "tests/index/posting_codec_testing.h"

namespace dps {
namespace {

using namespace codec_testing;

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

// A value block read in place (ValueBlockView) gives every value the whole
// decode gives, at every length (vertical and horizontal layouts), every
// width and with exceptions, reading nothing past the block's bytes.
TEST(PostingCodecValueBlock, ReadInPlaceEqualsTheWholeDecode) {
  for (uint64_t seed = 1; seed <= 600; ++seed) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    Rng rng(seed);
    const size_t n = seed % 3 == 0 ? kBlockSize : 1 + rng() % kBlockSize;
    const int width = static_cast<int>(rng() % 33);
    std::vector<uint32_t> values(n);
    for (uint32_t& v : values) {
      v = static_cast<uint32_t>(width == 32 ? rng() : rng() & ((uint64_t{1} << width) - 1));
      if (rng() % 20 == 0) v = static_cast<uint32_t>(rng());  // an exception
    }
    std::string bytes;
    EncodeValueBlock(values.data(), n, &bytes);
    const ExactBuffer exact(bytes);
    std::vector<uint32_t> whole(kBlockSize);
    ASSERT_EQ(DecodeValueBlock(exact.begin(), exact.end(), n, whole.data()), exact.end());
    ValueBlockView view;
    ASSERT_TRUE(view.Open(exact.begin(), exact.end(), n));
    EXPECT_EQ(view.end(), exact.end());
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(view.At(i), values[i]) << "value " << i;
  }
}

TEST(PostingCodecValueBlock, ViewRefusesWhatTheDecodeRefuses) {
  Rng rng(5);
  for (int round = 0; round < 300; ++round) {
    const size_t n = 1 + rng() % kBlockSize;
    std::vector<uint32_t> values(n);
    for (uint32_t& v : values) v = static_cast<uint32_t>(rng() % 1000 + (rng() % 10 == 0 ? rng() : 0));
    std::string bytes;
    EncodeValueBlock(values.data(), n, &bytes);
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
      const ExactBuffer exact(bytes, cut);
      std::vector<uint32_t> whole(kBlockSize);
      ValueBlockView view;
      const bool opened = view.Open(exact.begin(), exact.end(), n);
      if (DecodeValueBlock(exact.begin(), exact.end(), n, whole.data()) == nullptr) {
        EXPECT_FALSE(opened) << "cut at " << cut;
      }
      if (opened) {
        for (size_t i = 0; i < n; ++i) (void)view.At(i);  // in bounds (ASan)
      }
    }
    // A flipped byte: the view with its exceptions checked accepts exactly
    // what the whole decode accepts (a posting list's weight read alone
    // must refuse what its block's decode refuses).
    for (size_t at = 0; at < bytes.size(); ++at) {
      std::string bad = bytes;
      bad[at] = static_cast<char>(bad[at] ^ (1 << (rng() % 8)));
      const ExactBuffer exact(bad);
      std::vector<uint32_t> whole(kBlockSize);
      ValueBlockView view;
      const bool sound = view.Open(exact.begin(), exact.end(), n) && view.ExceptionsAreSound();
      EXPECT_EQ(sound, DecodeValueBlock(exact.begin(), exact.end(), n, whole.data()) != nullptr) << "flip at " << at;
    }
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

}  // namespace
}  // namespace dps
