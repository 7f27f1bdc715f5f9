#include "index/block_impacts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "common/coding.h"
#include "index/posting_list.h"

namespace dps {
namespace {

// The frontier by definition: the pairs no other pair beats (a pair beats
// another with at least its tf and at most its dl, and differs).
std::vector<Impact> BruteFrontier(const std::vector<uint32_t>& tfs, const std::vector<uint32_t>& dls) {
  std::vector<Impact> out;
  for (size_t i = 0; i < tfs.size(); ++i) {
    bool beaten = false;
    for (size_t j = 0; j < tfs.size() && !beaten; ++j) {
      beaten = tfs[j] >= tfs[i] && dls[j] <= dls[i] && (tfs[j] != tfs[i] || dls[j] != dls[i]);
    }
    const Impact p{tfs[i], dls[i]};
    if (!beaten && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  std::sort(out.begin(), out.end(), [](const Impact& a, const Impact& b) { return a.tf < b.tf; });
  return out;
}

TEST(BlockImpacts, DocumentedExampleBytes) {
  const std::vector<uint32_t> tfs = {1, 1, 2, 3, 2}, dls = {9, 4, 7, 30, 5};
  Impact got[kMaxImpacts];
  const size_t n = ComputeImpacts(tfs.data(), dls.data(), tfs.size(), got);
  // The frontier (1, 4), (2, 5), (3, 30) has both tf steps 1: the first two merge.
  ASSERT_EQ(n, 2u);
  EXPECT_EQ(got[0], (Impact{2, 4}));
  EXPECT_EQ(got[1], (Impact{3, 30}));
  std::string bytes;
  EncodeImpacts(got, n, &bytes);
  EXPECT_EQ(bytes, std::string("\x01\x02\x04\x01\x1a", 5));
}

TEST(BlockImpacts, FrontierBoundsEveryPostingAndIsExactWhenSmall) {
  std::mt19937_64 rng(7);
  size_t exact = 0, merged = 0;
  for (int round = 0; round < 5000; ++round) {
    const size_t n = 1 + rng() % kMaxBlockPostings;
    const uint32_t max_tf = round % 3 == 0 ? 3 : round % 3 == 1 ? 80 : 100000;  // small, both, large tfs
    std::vector<uint32_t> tfs(n), dls(n);
    for (size_t i = 0; i < n; ++i) {
      tfs[i] = 1 + static_cast<uint32_t>(rng() % max_tf);
      dls[i] = tfs[i] + static_cast<uint32_t>(rng() % 500);
    }
    Impact got[kMaxImpacts];
    const size_t count = ComputeImpacts(tfs.data(), dls.data(), n, got);
    ASSERT_GE(count, 1u);
    ASSERT_LE(count, kMaxImpacts);
    for (size_t i = 1; i < count; ++i) {
      ASSERT_LT(got[i - 1].tf, got[i].tf);
      ASSERT_LT(got[i - 1].dl, got[i].dl);
    }
    // Sound: every posting is matched or beaten by a pair. Not loose past
    // the corner: no pair beats (max tf, min dl).
    const uint32_t top_tf = *std::max_element(tfs.begin(), tfs.end());
    const uint32_t low_dl = *std::min_element(dls.begin(), dls.end());
    for (size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(std::any_of(got, got + count, [&](const Impact& p) { return p.tf >= tfs[i] && p.dl <= dls[i]; }))
          << "round " << round << " posting " << i;
    }
    for (size_t i = 0; i < count; ++i) ASSERT_TRUE(got[i].tf <= top_tf && got[i].dl >= low_dl);
    const std::vector<Impact> brute = BruteFrontier(tfs, dls);
    if (brute.size() <= kMaxImpacts) {
      ++exact;
      ASSERT_EQ(std::vector<Impact>(got, got + count), brute) << "round " << round;
    } else {
      ++merged;
    }
    std::string bytes;
    EncodeImpacts(got, count, &bytes);
    Impact back[kMaxImpacts];
    size_t back_count = 0;
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
    ASSERT_EQ(DecodeImpacts(p, p + bytes.size(), back, &back_count), p + bytes.size());
    ASSERT_EQ(std::vector<Impact>(back, back + back_count), std::vector<Impact>(got, got + count));
    // Any cut short is refused.
    for (size_t len = 0; len < bytes.size(); ++len) ASSERT_EQ(DecodeImpacts(p, p + len, back, &back_count), nullptr);
  }
  EXPECT_GT(exact, 1000u);  // both cases were exercised
  EXPECT_GT(merged, 1000u);
}

TEST(BlockImpacts, MalformedEntriesAreRefused) {
  Impact out[kMaxImpacts];
  size_t count = 0;
  auto decode = [&](const std::string& s) {
    const auto* p = reinterpret_cast<const uint8_t*>(s.data());
    return DecodeImpacts(p, p + s.size(), out, &count) != nullptr;
  };
  EXPECT_TRUE(decode(std::string("\x00\x01\x01", 3)));
  EXPECT_FALSE(decode(std::string("\x02\x01\x01\x01\x01\x01\x01", 7)));  // three pairs
  EXPECT_FALSE(decode(std::string("\x00\x00\x01", 3)));          // tf 0
  EXPECT_FALSE(decode(std::string("\x00\x01\x00", 3)));          // dl 0
  EXPECT_FALSE(decode(std::string("\x01\x01\x01\x00\x01", 5)));  // tf step 0
  EXPECT_FALSE(decode(std::string("\x01\x01\x01\x01\x00", 5)));  // dl step 0
  EXPECT_FALSE(decode(std::string("\x01\xff\xff\xff\xff\x0f\x01\x01\x01", 9)));  // tf past 2^32 - 1
}

// The cursor's view: each block's stored impacts are the block's, and
// BlockFor finds the block a seek would land in, without decoding.
TEST(BlockImpacts, CursorReadsEachBlocksImpactsAndFindsBlocks) {
  std::mt19937_64 rng(11);
  for (size_t n : {9, 128, 129, 300, 2000, 6000}) {
    std::vector<DocId> docs;
    std::vector<uint32_t> tfs, dls;
    DocId d = static_cast<DocId>(rng() % 5);
    for (size_t i = 0; i < n; ++i) {
      docs.push_back(d);
      tfs.push_back(1 + static_cast<uint32_t>(rng() % 6));
      dls.push_back(tfs.back() + static_cast<uint32_t>(rng() % 90));
      d += 1 + static_cast<DocId>(rng() % 40);
    }
    std::string bytes;
    EncodePostingList(docs, tfs, dls, &bytes);
    PostingCursor c;
    ASSERT_TRUE(c.Init(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), static_cast<uint32_t>(n), nullptr, 0).ok());
    ASSERT_TRUE(c.has_impacts());
    const size_t blocks = (n + 127) / 128;
    ASSERT_EQ(c.num_blocks(), blocks);
    for (size_t pass = 0; pass < 2; ++pass) {  // the second pass walks back from the last entry
      for (size_t b = 0; b < blocks; ++b) {
        const size_t len = std::min<size_t>(128, n - 128 * b);
        Impact want[kMaxImpacts], got[kMaxImpacts];
        const size_t want_count = ComputeImpacts(tfs.data() + 128 * b, dls.data() + 128 * b, len, want);
        size_t got_count = 0;
        ASSERT_TRUE(c.ReadImpacts(b, got, &got_count)) << c.status().ToString();
        ASSERT_EQ(std::vector<Impact>(got, got + got_count), std::vector<Impact>(want, want + want_count));
        ASSERT_EQ(c.block_last(b), docs[128 * b + len - 1]);
      }
    }
    for (int probe = 0; probe < 500; ++probe) {
      const DocId target = static_cast<DocId>(rng() % (docs.back() + 50));
      const size_t from = rng() % (blocks + 1);
      size_t want = from;
      while (want < blocks && docs[std::min(n, 128 * (want + 1)) - 1] < target) ++want;
      ASSERT_EQ(c.BlockFor(target, from), want) << "n " << n << " target " << target << " from " << from;
    }
    // The entries are checked as they are read: a count byte out of range is
    // corruption, never a bound.
    std::string bad = bytes;
    size_t first_entry = 0;  // a one-block list starts with its entry
    if (blocks > 1) {
      const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
      uint32_t impacts_len;
      first_entry = static_cast<size_t>(
          GetVarint32(p + SkipTableSize(blocks, p[0]), p + bytes.size(), &impacts_len) - p);
    }
    bad[first_entry] = '\x07';
    PostingCursor broken;
    Status s = broken.Init(reinterpret_cast<const uint8_t*>(bad.data()), bad.size(), static_cast<uint32_t>(n), nullptr, 0);
    if (s.ok()) {
      Impact got[kMaxImpacts];
      size_t got_count = 0;
      EXPECT_FALSE(broken.ReadImpacts(0, got, &got_count));
      EXPECT_TRUE(broken.status().IsCorruption());
    } else {
      EXPECT_TRUE(s.IsCorruption());
    }
  }
}

}  // namespace
}  // namespace dps
