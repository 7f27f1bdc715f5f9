// Corrupt posting blocks: every malformed header, width, padding, length,
// exception list and truncation is rejected on every decode path, and
// flipped bytes never crash or read out of bounds.
#include "index/posting_codec.h"

#include <gtest/gtest.h>

#include "tests/index/posting_codec_testing.h"

namespace dps {
namespace {

using namespace codec_testing;

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
      {"positions decreasing", std::string("\x80\x02\x01\x03\x01\x03", 6), 4},
      {"a position past n before a smaller one", std::string("\x80\x02\x01\xc8\x02\x03", 6), 4},
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
      {"LowerBoundNear", &LowerBoundNear},
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
