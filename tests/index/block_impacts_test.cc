#include "index/block_impacts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "common/coding.h"
#include "index/posting_list.h"

namespace dps {
namespace {

// r = tf / (tf + k1 (1 - b + b dl / avgdl)) at the default k1, b.
double TfPart(uint32_t tf, uint32_t dl, double avgdl) {
  return tf / (tf + kBlockScoreK1 * (1 - kBlockScoreB + kBlockScoreB * dl / avgdl));
}

TEST(BlockImpacts, DocumentedExampleBytes) {
  // docs/FORMAT.md "Block impacts": postings (tf, dl) = (1, 9), (1, 4),
  // (2, 7), (3, 30), (2, 5) at reference avgdl 10.
  const std::vector<uint32_t> tfs = {1, 1, 2, 3, 2}, dls = {9, 4, 7, 30, 5};
  EXPECT_EQ(BlockCorner(tfs.data(), dls.data(), tfs.size()), (Impact{3, 4}));
  std::string bytes;
  EncodeCorner(BlockCorner(tfs.data(), dls.data(), tfs.size()), &bytes);
  EXPECT_EQ(bytes, std::string("\x03\x04", 2));
  // The best r is (2, 5)'s: 2 / (2 + 0.3 + 0.9 * 0.5) = 0.72727...;
  // 65535 * 0.72727... = 47661.8..., rounded up.
  EXPECT_EQ(ScoreAvgdlUnits(10.0), 2560u);
  EXPECT_EQ(BlockScore(tfs.data(), dls.data(), tfs.size(), ScoreAvgdl(2560)), 47662u);
}

TEST(BlockImpacts, ReferenceAvgdlUnits) {
  EXPECT_EQ(ScoreAvgdlUnits(1.0), 256u);
  EXPECT_EQ(ScoreAvgdlUnits(46.53), 11912u);  // 46.53 * 256 = 11911.68
  EXPECT_EQ(ScoreAvgdl(11912), 11912.0 / 256);
  EXPECT_EQ(ScoreAvgdlUnits(0.0), 1u);  // never 0: the bin record keeps 0 for "no lists"
  EXPECT_EQ(ScoreAvgdlUnits(1e12), UINT32_MAX);
}

TEST(BlockImpacts, CornerAndScoreBoundEveryPostingAndTheScoreIsTight) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 5000; ++round) {
    const size_t n = 1 + rng() % kMaxBlockPostings;
    const uint32_t max_tf = round % 3 == 0 ? 3 : round % 3 == 1 ? 80 : 100000;
    std::vector<uint32_t> tfs(n), dls(n);
    for (size_t i = 0; i < n; ++i) {
      tfs[i] = 1 + static_cast<uint32_t>(rng() % max_tf);
      dls[i] = tfs[i] + static_cast<uint32_t>(rng() % 500);
    }
    const Impact corner = BlockCorner(tfs.data(), dls.data(), n);
    EXPECT_EQ(corner.tf, *std::max_element(tfs.begin(), tfs.end()));
    EXPECT_EQ(corner.dl, *std::min_element(dls.begin(), dls.end()));
    const double avgdl = ScoreAvgdl(ScoreAvgdlUnits(1 + static_cast<double>(rng() % 100000) / 100));
    const uint32_t q = BlockScore(tfs.data(), dls.data(), n, avgdl);
    double best = 0;
    for (size_t i = 0; i < n; ++i) best = std::max(best, TfPart(tfs[i], dls[i], avgdl));
    ASSERT_GE(q / kBlockScoreSteps, best) << "round " << round;  // a bound
    ASSERT_LT((q - 1) / kBlockScoreSteps, best) << "round " << round;  // the least one
    std::string bytes;
    EncodeCorner(corner, &bytes);
    Impact back;
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
    ASSERT_EQ(DecodeCorner(p, p + bytes.size(), &back), p + bytes.size());
    ASSERT_EQ(back, corner);
    for (size_t len = 0; len < bytes.size(); ++len) ASSERT_EQ(DecodeCorner(p, p + len, &back), nullptr);
  }
}

TEST(BlockImpacts, MalformedCornersAreRefused) {
  Impact out;
  auto decode = [&](const std::string& s) {
    const auto* p = reinterpret_cast<const uint8_t*>(s.data());
    return DecodeCorner(p, p + s.size(), &out) != nullptr;
  };
  EXPECT_TRUE(decode(std::string("\x05\x02", 2)));  // the corner's dl may be below its tf
  EXPECT_FALSE(decode(std::string("\x00\x01", 2)));  // tf 0
  EXPECT_FALSE(decode(std::string("\x01\x00", 2)));  // dl 0
  EXPECT_FALSE(decode(std::string("\x01\xff\xff\xff\xff\x1f", 6)));  // dl past 2^32 - 1
}

// The cursor's view: each block's stored score and corner are the block's,
// and BlockFor finds the block a seek would land in, without decoding.
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
    const double avgdl = 37.5;
    std::string bytes;
    EncodePostingList(docs, tfs, dls, avgdl, &bytes);
    PostingCursor c;
    ASSERT_TRUE(c.Init(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), static_cast<uint32_t>(n), nullptr, 0).ok());
    ASSERT_TRUE(c.has_impacts());
    const size_t blocks = (n + 127) / 128;
    ASSERT_EQ(c.num_blocks(), blocks);
    for (size_t pass = 0; pass < 2; ++pass) {  // the second pass walks back from the last corner
      for (size_t b = 0; b < blocks; ++b) {
        const size_t len = std::min<size_t>(128, n - 128 * b);
        Impact got;
        ASSERT_TRUE(c.ReadCorner(b, &got)) << c.status().ToString();
        ASSERT_EQ(got, BlockCorner(tfs.data() + 128 * b, dls.data() + 128 * b, len));
        ASSERT_EQ(c.block_score(b), BlockScore(tfs.data() + 128 * b, dls.data() + 128 * b, len, avgdl));
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
    // Corners are checked as they are read: a zero tf is corruption, never
    // a bound.
    std::string bad = bytes;
    size_t first_corner = 2;  // a one-block list starts with its score (u16), then its corner
    if (blocks > 1) {
      const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
      uint32_t impacts_len;
      first_corner = static_cast<size_t>(
                         GetVarint32(p + SkipTableSize(blocks, p[0]), p + bytes.size(), &impacts_len) - p) +
                     2 * blocks;
    }
    bad[first_corner] = '\x00';
    PostingCursor broken;
    Status s = broken.Init(reinterpret_cast<const uint8_t*>(bad.data()), bad.size(), static_cast<uint32_t>(n), nullptr, 0);
    if (s.ok()) {
      Impact got;
      EXPECT_FALSE(broken.ReadCorner(0, &got));
      EXPECT_TRUE(broken.status().IsCorruption());
    } else {
      EXPECT_TRUE(s.IsCorruption());
    }
  }
}

}  // namespace
}  // namespace dps
