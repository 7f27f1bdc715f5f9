// Positions lists (docs/FORMAT.md "Positions", "Inline positions"): the
// documented bytes, random round trips read a posting at a time in every
// order, the whole-list check, and malformed lists refused, never a crash.
#include "index/positions.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace dps {
namespace {

using std::string_literals::operator""s;

struct PositionsList {
  std::vector<uint32_t> weights, positions;
};

PositionsList RandomList(std::mt19937_64& rng, uint64_t df) {
  PositionsList l;
  const bool long_docs = rng() % 4 == 0;
  for (uint64_t j = 0; j < df; ++j) {
    const uint32_t tf = 1 + static_cast<uint32_t>(rng() % 3 ? rng() % 3 : rng() % 300);
    l.weights.push_back(tf);
    uint64_t p = rng() % 5 == 0 ? kMaxPosition - 4000000 : rng() % (long_docs ? 100000 : 40);
    for (uint32_t i = 0; i < tf; ++i) {
      l.positions.push_back(static_cast<uint32_t>(p));
      p += 1 + rng() % (rng() % 8 ? 20 : 10000);
    }
  }
  return l;
}

// Each posting's positions read through the reader: (block, in_block).
std::vector<uint32_t> ReadAll(PositionReader* r, const PositionsList& l, bool backwards) {
  std::vector<uint32_t> all(l.positions.size());
  std::vector<uint64_t> starts(l.weights.size()), in_block(l.weights.size());
  uint64_t at = 0, in = 0;
  for (size_t j = 0; j < l.weights.size(); ++j) {
    if (j % kBlockSize == 0) in = 0;
    starts[j] = at;
    in_block[j] = in;
    at += l.weights[j];
    in += l.weights[j];
  }
  for (size_t k = 0; k < l.weights.size(); ++k) {
    const size_t j = backwards ? l.weights.size() - 1 - k : k;
    EXPECT_TRUE(r->Get(j / kBlockSize, in_block[j], l.weights[j], all.data() + starts[j]).ok());
  }
  return all;
}

TEST(Positions, BytesMatchFormatMd) {
  // Two postings: tf 2 at positions 3 and 7, tf 1 at position 0. Values 3,
  // 3 (7 - 3 - 1), 0: one value block of width 2, `02 0f`.
  std::string out;
  EncodePositionList(std::vector<uint32_t>{2, 1}, std::vector<uint32_t>{3, 7, 0}, &out);
  EXPECT_EQ(out, "\x03\x02\x0f"s);
  out.clear();
  AppendInlinePositions(std::vector<uint32_t>{2, 1}, std::vector<uint32_t>{3, 7, 0}, &out);
  EXPECT_EQ(out, "\x03\x03\x00"s);
}

TEST(Positions, TablesOfALongList) {
  // 129 postings of tf 1 at position 5: a second doc block starting at
  // value 128, and two value blocks (128 fives, then one).
  std::string out;
  EncodePositionList(std::vector<uint32_t>(129, 1), std::vector<uint32_t>(129, 5), &out);
  std::string head = "\x81\x01"s + "\x80\x00\x00\x00"s;  // 129 values; block 1 starts at 128
  EXPECT_EQ(out.substr(0, head.size()), head);
  // chunk_end[0]: value block 0 is 128 fives at width 3: 1 + 48 bytes.
  EXPECT_EQ(out.substr(head.size(), 4), "\x31\x00\x00\x00"s);
  PositionReader r;
  ASSERT_TRUE(r.Open(out, 129, "list").ok());
  uint32_t p = 0;
  ASSERT_TRUE(r.Get(1, 0, 1, &p).ok());
  EXPECT_EQ(p, 5u);
}

TEST(Positions, RandomListsRoundTripInAnyOrder) {
  std::mt19937_64 rng(19);
  for (int round = 0; round < 400; ++round) {
    const uint64_t df = 1 + rng() % (rng() % 3 ? 20 : 700);
    const PositionsList l = RandomList(rng, df);
    std::string bytes;
    EncodePositionList(l.weights, l.positions, &bytes);
    bytes += "\x7f\x7f\x7f"s;  // the region goes on after the list
    for (bool backwards : {false, true}) {
      PositionReader r;
      ASSERT_TRUE(r.Open(bytes, df, "list").ok());
      EXPECT_EQ(r.values(), l.positions.size());
      EXPECT_EQ(ReadAll(&r, l, backwards), l.positions) << "round " << round;
    }
    PositionReader r;
    ASSERT_TRUE(r.Open(bytes, df, "list").ok());
    const uint8_t* end = nullptr;
    ASSERT_TRUE(r.CheckWhole(l.weights, &end).ok());
    EXPECT_EQ(end, reinterpret_cast<const uint8_t*>(bytes.data()) + bytes.size() - 3);

    std::string inline_bytes;
    AppendInlinePositions(l.weights, l.positions, &inline_bytes);
    std::vector<uint32_t> back;
    const auto* p = reinterpret_cast<const uint8_t*>(inline_bytes.data());
    const uint8_t* e = p + inline_bytes.size();
    EXPECT_EQ(ParseInlinePositions(p, e, l.weights, &back), e);
    EXPECT_EQ(back, l.positions);
    EXPECT_EQ(SkipInlinePositions(p, e, l.positions.size()), e);
    EXPECT_EQ(SkipInlinePositions(p, e, l.positions.size() + 1), nullptr);
  }
}

// GetMany, a batch of postings at once (a phrase's candidates), reads what
// Get reads posting by posting: batches sparse and dense (so blocks are
// read in place and decoded whole), and lists inline too.
TEST(Positions, BatchesReadWhatSinglePostingsRead) {
  std::mt19937_64 rng(23);
  for (int round = 0; round < 300; ++round) {
    const uint64_t df = 1 + rng() % (rng() % 3 ? 40 : 2000);
    const PositionsList l = RandomList(rng, df);
    std::string bytes;
    EncodePositionList(l.weights, l.positions, &bytes);
    std::vector<uint64_t> starts(df), in_block(df);
    uint64_t at = 0, in = 0;
    for (size_t j = 0; j < df; ++j) {
      if (j % kBlockSize == 0) in = 0;
      starts[j] = at;
      in_block[j] = in;
      at += l.weights[j];
      in += l.weights[j];
    }
    std::vector<uint32_t> blocks, tfs, want;
    std::vector<uint64_t> ins;
    const uint64_t keep_one_in = 1 + rng() % 200;
    for (size_t j = 0; j < df; ++j) {
      if (rng() % keep_one_in != 0) continue;
      blocks.push_back(static_cast<uint32_t>(j / kBlockSize));
      ins.push_back(in_block[j]);
      tfs.push_back(l.weights[j]);
      want.insert(want.end(), l.positions.begin() + static_cast<ptrdiff_t>(starts[j]),
                  l.positions.begin() + static_cast<ptrdiff_t>(starts[j] + l.weights[j]));
    }
    PositionReader r;
    ASSERT_TRUE(r.Open(bytes, df, "list").ok());
    std::vector<uint32_t> got(want.size());
    ASSERT_TRUE(r.GetMany(blocks.data(), ins.data(), tfs.data(), blocks.size(), got.data()).ok()) << "round " << round;
    EXPECT_EQ(got, want) << "round " << round;
    if (df <= kBlockSize) {  // a list kept inline is one block
      std::string inline_bytes;
      AppendInlinePositions(l.weights, l.positions, &inline_bytes);
      PostingPositions inl;
      ASSERT_TRUE(inl.OpenInline(inline_bytes, l.weights, "list").ok());
      std::vector<uint32_t> got_inline(want.size());
      ASSERT_TRUE(inl.GetMany(blocks.data(), ins.data(), tfs.data(), blocks.size(), got_inline.data()).ok());
      EXPECT_EQ(got_inline, want) << "round " << round;
    }
  }
}

// A value block that fails to read leaves nothing behind that a later
// read could take for the block held before (the fuzzer found a view left
// half open: a null payload read after the failure). Every posting's
// positions are asked in place and whole, around a broken block.
TEST(Positions, ABadBlockLeavesNoStaleBlockBehind) {
  std::mt19937_64 rng(31);
  PositionsList l;
  for (int j = 0; j < 300; ++j) {  // tf 1: one value a posting, 3 value blocks
    l.weights.push_back(1);
    l.positions.push_back(static_cast<uint32_t>(rng() % 1000));
  }
  std::string bytes;
  EncodePositionList(l.weights, l.positions, &bytes);
  // The head: nvalues (2 bytes), 2 block_start and 2 chunk_end entries;
  // value block 1 starts at chunk_end[0]. Its header's width byte set to
  // 63 (above 32) makes it undecodable.
  const size_t blocks_at = 2 + 4 * 2 + 4 * 2;
  const uint32_t block1 = static_cast<uint32_t>(static_cast<uint8_t>(bytes[2 + 8])) |
                          static_cast<uint32_t>(static_cast<uint8_t>(bytes[2 + 9])) << 8;
  bytes[blocks_at + block1] = 63;
  // Postings p..p+k-1 of one doc block as a batch (tf 1 each).
  auto batch = [&](PositionReader* r, uint32_t block, uint64_t first, size_t k, std::vector<uint32_t>* out) {
    std::vector<uint32_t> blocks(k, block), tfs(k, 1);
    std::vector<uint64_t> ins(k);
    for (size_t i = 0; i < k; ++i) ins[i] = first + i;
    out->assign(k, 0);
    return r->GetMany(blocks.data(), ins.data(), tfs.data(), k, out->data());
  };
  for (size_t k : {size_t{1}, size_t{10}}) {  // 1: read in place; 10: decoded whole
    PositionReader r;
    ASSERT_TRUE(r.Open(bytes, 300, "list").ok());
    std::vector<uint32_t> out;
    ASSERT_TRUE(batch(&r, 0, 0, k, &out).ok());
    EXPECT_EQ(out, std::vector<uint32_t>(l.positions.begin(), l.positions.begin() + k));
    EXPECT_FALSE(batch(&r, 1, 0, k, &out).ok()) << "value block 1 is broken";
    ASSERT_TRUE(batch(&r, 0, 20, k, &out).ok());
    EXPECT_EQ(out, std::vector<uint32_t>(l.positions.begin() + 20, l.positions.begin() + 20 + k)) << k;
  }
}

// A batch out of list order, or past the list, is an error.
TEST(Positions, BatchesOutOfOrderArePositionsErrors) {
  std::mt19937_64 rng(29);
  const PositionsList l = RandomList(rng, 300);
  std::string bytes;
  EncodePositionList(l.weights, l.positions, &bytes);
  PositionReader r;
  ASSERT_TRUE(r.Open(bytes, 300, "list").ok());
  std::vector<uint32_t> out(4000);
  const uint32_t blocks[] = {1, 0};
  const uint64_t ins[] = {0, 0};
  const uint32_t tfs[] = {l.weights[128], l.weights[0]};
  EXPECT_FALSE(r.GetMany(blocks, ins, tfs, 2, out.data()).ok());
  const uint32_t past_blocks[] = {7};
  EXPECT_FALSE(r.GetMany(past_blocks, ins, tfs, 1, out.data()).ok());
}

TEST(Positions, WrongWeightsFailTheWholeCheck) {
  std::mt19937_64 rng(3);
  const PositionsList l = RandomList(rng, 300);
  std::string bytes;
  EncodePositionList(l.weights, l.positions, &bytes);
  std::vector<uint32_t> w = l.weights;
  ++w[200];
  --w[10 + (w[10] == 1 ? 1 : 0)];  // same sum when the second is above 1
  PositionReader r;
  ASSERT_TRUE(r.Open(bytes, 300, "list").ok());
  const uint8_t* end = nullptr;
  EXPECT_FALSE(r.CheckWhole(w, &end).ok());
  std::vector<uint32_t> short_weights(l.weights.begin(), l.weights.end() - 1);
  EXPECT_FALSE(r.CheckWhole(short_weights, &end).ok());
}

TEST(Positions, TruncatedOrFlippedListsAreErrorsNeverCrashes) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 15; ++round) {
    const uint64_t df = 1 + rng() % 300;
    const PositionsList l = RandomList(rng, df);
    std::string bytes;
    EncodePositionList(l.weights, l.positions, &bytes);
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
      PositionReader r;
      if (!r.Open(std::string_view(bytes.data(), cut), df, "list").ok()) continue;
      const uint8_t* end = nullptr;
      EXPECT_FALSE(r.CheckWhole(l.weights, &end).ok()) << "cut at " << cut;
    }
    for (int flip = 0; flip < 200; ++flip) {
      std::string bad = bytes;
      bad[rng() % bad.size()] ^= static_cast<char>(1 << (rng() % 8));
      PositionReader r;
      if (!r.Open(bad, df, "list").ok()) continue;
      const uint8_t* end = nullptr;
      (void)r.CheckWhole(l.weights, &end);  // any answer but a crash or an out-of-bounds read
      std::vector<uint32_t> out(300);
      (void)r.Get(static_cast<size_t>(rng() % 4), rng() % 500, 1 + static_cast<uint32_t>(rng() % 300), out.data());
    }
  }
  PositionReader r;
  EXPECT_FALSE(r.Open("\x02\x02\x0f"s, 3, "list").ok());  // fewer values than postings
  std::vector<uint32_t> back;
  const std::string past = "\xff\xff\xff\xff\x0f"s;  // 2^32 - 1: past kMaxPosition
  const auto* p = reinterpret_cast<const uint8_t*>(past.data());
  EXPECT_EQ(ParseInlinePositions(p, p + past.size(), std::vector<uint32_t>{1}, &back), nullptr);
}

// Found by run_file_fuzz: a spill run's singleton of weight 2^31 with a few
// bytes of inline positions made the parser size its output by the weight
// (8 GB) before reading a byte. Now the bytes bound it; and an empty view
// with no data (nullptr, which is also the parser's refusal) is refused.
TEST(Positions, InlineWeightsPastTheBytesAreRefusedBeforeAllocating) {
  const std::string bytes("\x03\x03\x00", 3);
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const std::vector<uint32_t> weights = {2, 1u << 26};  // 256 MB of positions
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  std::vector<uint32_t> out;
  EXPECT_EQ(ParseInlinePositions(p, p + bytes.size(), weights, &out), nullptr);
  getrusage(RUSAGE_SELF, &after);
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 64 * 1024) << "peak RSS grew by " << after.ru_maxrss - before.ru_maxrss << " KB";
  PostingPositions positions;
  const std::vector<uint32_t> one = {1};
  EXPECT_TRUE(positions.OpenInline(std::string_view(), one, "t").IsCorruption());
  EXPECT_TRUE(positions.OpenInline(bytes, std::vector<uint32_t>{2, 1}, "t").ok());  // FORMAT.md's example
}

}  // namespace
}  // namespace dps
