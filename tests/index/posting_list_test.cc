#include "index/posting_list.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace dps {
namespace {

struct CodedList {
  std::vector<DocId> docs;
  std::vector<uint32_t> weights;
  std::string bytes;
};

CodedList MakeList(std::mt19937_64& rng, size_t n, uint32_t max_gap) {
  CodedList l;
  std::uniform_int_distribution<uint32_t> gap(1, max_gap), w(1, 5);
  uint64_t d = gap(rng) - 1;
  for (size_t i = 0; i < n && d <= kMaxDocId; ++i) {
    l.docs.push_back(static_cast<DocId>(d));
    l.weights.push_back(i % 97 == 3 ? 100000 : w(rng));
    d += gap(rng);
  }
  EncodePostingList(l.docs, l.weights, /*lengths=*/l.weights, /*score_avgdl=*/1.0, &l.bytes);
  return l;
}

Status Open(PostingCursor* c, const std::string& bytes, size_t df) {
  return c->Init(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), static_cast<uint32_t>(df), nullptr, 0);
}

// A list of two blocks or more with weight block `block`'s mark (the
// marks follow the doc_end column) off by one byte.
std::string MarkFlipped(const CodedList& l, size_t block) {
  const size_t blocks = (l.docs.size() + 127) / 128;
  const uint8_t layout = static_cast<uint8_t>(l.bytes[0]);
  const size_t width = layout & kSkipShortMarks ? 2 : 4;
  const size_t at = SkipTableSize(blocks, layout) - width * WeightMarks(blocks) + width * (block - 1);
  std::string bad = l.bytes;
  bad[at] = static_cast<char>(bad[at] ^ 1);
  return bad;
}

TEST(PostingCursor, IteratesEveryDocAndWeight) {
  std::mt19937_64 rng(1);
  for (size_t n : {2, 3, 127, 128, 129, 255, 256, 257, 1000, 5000}) {
    for (uint32_t max_gap : {1u, 3u, 1000u, 1u << 20}) {
      CodedList l = MakeList(rng, n, max_gap);
      PostingCursor c;
      ASSERT_TRUE(c.Init(reinterpret_cast<const uint8_t*>(l.bytes.data()), l.bytes.size(),
                         static_cast<uint32_t>(l.docs.size()), nullptr, 0)
                      .ok());
      for (size_t i = 0; i < l.docs.size(); ++i) {
        ASSERT_EQ(c.doc(), l.docs[i]) << "n=" << n << " i=" << i;
        if (i % 3 == 0) {
          ASSERT_EQ(c.weight(), l.weights[i]);
        }
        c.Next();
      }
      EXPECT_EQ(c.doc(), kEndDoc);
      EXPECT_EQ(c.Next(), kEndDoc);
      EXPECT_EQ(c.Seek(5), kEndDoc);
      EXPECT_TRUE(c.status().ok());
    }
  }
}

TEST(PostingCursor, SeekMatchesLowerBoundAndNeverMovesBack) {
  for (uint64_t seed = 0; seed < 50; ++seed) {
    std::mt19937_64 rng(seed);
    CodedList l = MakeList(rng, 1 + rng() % 3000, 1 + static_cast<uint32_t>(rng() % 500));
    if (l.docs.size() < 2) continue;
    PostingCursor c;
    ASSERT_TRUE(c.Init(reinterpret_cast<const uint8_t*>(l.bytes.data()), l.bytes.size(),
                       static_cast<uint32_t>(l.docs.size()), nullptr, 0)
                    .ok());
    DocId pos = c.doc();
    const DocId span = l.docs.back() + 10;
    for (int step = 0; step < 200 && pos != kEndDoc; ++step) {
      DocId target = static_cast<DocId>(rng() % span);
      DocId got = c.Seek(target);
      DocId want = target <= pos ? pos : [&] {
        auto it = std::lower_bound(l.docs.begin(), l.docs.end(), target);
        return it == l.docs.end() ? kEndDoc : *it;
      }();
      ASSERT_EQ(got, want) << "seed " << seed << " target " << target;
      if (got != kEndDoc) {
        size_t idx = static_cast<size_t>(std::lower_bound(l.docs.begin(), l.docs.end(), got) -
                                         l.docs.begin());
        ASSERT_EQ(c.weight(), l.weights[idx]);
      }
      pos = got;
    }
  }
}

// InitAt (a conjunction's longer lists, opened at the rarest's first
// docid) answers as Init then Seek(target): the same docid, then the same
// docids and weights for every later Next and Seek, and the same list
// shape, though it decodes only the part holding target.
TEST(PostingCursor, InitAtAnswersAsInitThenSeek) {
  for (uint64_t seed = 0; seed < 60; ++seed) {
    std::mt19937_64 rng(seed);
    CodedList l = MakeList(rng, 2 + rng() % 3000, 1 + static_cast<uint32_t>(rng() % 500));
    if (l.docs.size() < 2) continue;
    const auto* data = reinterpret_cast<const uint8_t*>(l.bytes.data());
    const auto df = static_cast<uint32_t>(l.docs.size());
    PostingCursor whole;
    ASSERT_TRUE(whole.Init(data, l.bytes.size(), df, nullptr, 0).ok());
    const DocId span = l.docs.back() + 10;
    for (int trial = 0; trial < 20; ++trial) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " trial " + std::to_string(trial));
      const DocId target = static_cast<DocId>(rng() % span);
      PostingCursor c;
      ASSERT_TRUE(c.InitAt(data, l.bytes.size(), df, nullptr, 0, target).ok());
      EXPECT_EQ(c.num_blocks(), whole.num_blocks());
      EXPECT_EQ(c.last_doc(), l.docs.back());
      size_t i = static_cast<size_t>(std::lower_bound(l.docs.begin(), l.docs.end(), target) - l.docs.begin());
      DocId got = c.Seek(target);
      for (int step = 0; step < 400; ++step) {
        ASSERT_EQ(got, i < l.docs.size() ? l.docs[i] : kEndDoc) << "step " << step;
        if (got == kEndDoc) break;
        ASSERT_EQ(c.weight(), l.weights[i]);
        if (rng() % 4 == 0) {
          const DocId next = got + static_cast<DocId>(rng() % 700);
          got = c.Seek(next);
          i = static_cast<size_t>(std::lower_bound(l.docs.begin(), l.docs.end(), next) - l.docs.begin());
        } else {
          got = c.Next();
          ++i;
        }
      }
      EXPECT_TRUE(c.status().ok());
    }
  }
}

// InitAt(kEndDoc) decodes nothing of a list of several blocks: its first
// move is a SeekBlock, in any order, and each block then reads whole with
// its weights; a one-block list is decoded as by Init.
TEST(PostingCursor, InitAtEndLeavesBlocksToSeekBlock) {
  for (uint64_t seed = 0; seed < 30; ++seed) {
    std::mt19937_64 rng(seed);
    CodedList l = MakeList(rng, 2 + rng() % 3000, 1 + static_cast<uint32_t>(rng() % 300));
    if (l.docs.size() < 2) continue;
    SCOPED_TRACE("seed " + std::to_string(seed));
    PostingCursor c;
    ASSERT_TRUE(c.InitAt(reinterpret_cast<const uint8_t*>(l.bytes.data()), l.bytes.size(),
                         static_cast<uint32_t>(l.docs.size()), nullptr, 0, kEndDoc)
                    .ok());
    const size_t blocks = c.num_blocks();
    ASSERT_EQ(blocks, (l.docs.size() + 127) / 128);
    if (blocks == 1) {
      EXPECT_EQ(c.doc(), l.docs[0]);
    }
    for (int visit = 0; visit < 12; ++visit) {
      const size_t b = rng() % blocks;
      ASSERT_EQ(c.SeekBlock(b), l.docs[b * 128]) << "block " << b;
      const size_t n = std::min<size_t>(128, l.docs.size() - b * 128);
      ASSERT_EQ(c.run_size(), n);
      const uint32_t* w = c.run_weights();
      ASSERT_NE(w, nullptr);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(c.run()[i], l.docs[b * 128 + i]);
        ASSERT_EQ(w[i], l.weights[b * 128 + i]);
      }
    }
    EXPECT_TRUE(c.status().ok());
  }
}

// Every weight block after the first has its offset marked: seeks far
// ahead and back read the right weights from the marks, u16 or u32, and a
// wrong mark is reported, by the seek that uses it or by the decode of the
// block before it, instead of reading other weights.
TEST(PostingCursor, WeightMarksServeFarSeeksAndAreChecked) {
  std::mt19937_64 rng(9);
  // 40,000 postings of small weights: u16 marks; of weights up to 2^20
  // (about 2.5 bytes a weight): the last weight block starts past 65,535.
  for (uint32_t max_weight : {3u, 1u << 20}) {
    CodedList l = MakeList(rng, 40000, 40);
    for (auto& w : l.weights) w = 1 + static_cast<uint32_t>(rng() % max_weight);
    l.bytes.clear();
    EncodePostingList(l.docs, l.weights, /*lengths=*/l.weights, /*score_avgdl=*/1.0, &l.bytes);
    const size_t blocks = (l.docs.size() + 127) / 128;
    ASSERT_EQ(WeightMarks(blocks), blocks - 1);
    EXPECT_EQ((static_cast<uint8_t>(l.bytes[0]) & kSkipShortMarks) != 0, max_weight == 3u);
    for (int round = 0; round < 50; ++round) {
      PostingCursor c;
      ASSERT_TRUE(Open(&c, l.bytes, l.docs.size()).ok());
      for (size_t at = rng() % 3000; at < l.docs.size(); at += 1 + rng() % 4000) {
        ASSERT_EQ(c.Seek(l.docs[at]), l.docs[at]);
        ASSERT_EQ(c.weight(), l.weights[at]) << "posting " << at;
      }
      for (int back = 0; back < 5; ++back) {  // best-first rankings jump backwards
        const size_t b = rng() % blocks;
        ASSERT_EQ(c.SeekBlock(b), l.docs[128 * b]);
        ASSERT_EQ(c.weight(), l.weights[128 * b]) << "block " << b;
      }
      ASSERT_TRUE(c.status().ok());
    }
    for (size_t block : {size_t{1}, size_t{77}, blocks - 1}) {
      const std::string bad = MarkFlipped(l, block);
      PostingCursor walk;  // every block in order: block - 1's decode disagrees
      ASSERT_TRUE(Open(&walk, bad, l.docs.size()).ok());
      for (DocId d = walk.doc(); d != kEndDoc; d = walk.Next()) walk.weight();
      EXPECT_TRUE(walk.status().IsCorruption()) << block << " " << walk.status().ToString();
      PostingCursor jump;  // straight to the block: its mark is wrong
      ASSERT_TRUE(Open(&jump, bad, l.docs.size()).ok());
      ASSERT_EQ(jump.Seek(l.docs[128 * block + 5]), l.docs[128 * block + 5]);
      const uint32_t w = jump.weight();
      EXPECT_TRUE(jump.status().IsCorruption()) << block << ": a wrong mark read as weight " << w;
    }
  }
}

// The skip table of a three-block list, byte for byte (docs/FORMAT.md
// "Posting list"): docids 0, 2, 4, ... (300 postings), weights 1 and, for
// posting 128 on, 1000 (block 1's and 2's weight blocks are wider). The
// doc and weight blocks' own bytes have their golden tests in
// posting_codec_test.cc; here their sizes place doc_end and the marks.
TEST(PostingCursor, SkipTableGoldenBytes) {
  std::vector<DocId> docs(300);
  std::vector<uint32_t> weights(300);
  for (size_t i = 0; i < docs.size(); ++i) {
    docs[i] = static_cast<DocId>(2 * i);
    weights[i] = i < 128 ? 1 : 1000;
  }
  std::string bytes;
  EncodePostingList(docs, weights, /*lengths=*/weights, /*score_avgdl=*/1.0, &bytes);
  std::string doc0, doc1, doc2, w0, w1;
  EncodeDocBlock(docs.data(), 128, UINT32_MAX, &doc0);
  EncodeDocBlock(docs.data() + 128, 128, docs[127], &doc1);
  EncodeDocBlock(docs.data() + 256, 44, docs[255], &doc2);
  EncodeWeightBlock(weights.data(), 128, &w0);
  EncodeWeightBlock(weights.data() + 128, 128, &w1);
  auto u16 = [](uint32_t v) { return std::string{static_cast<char>(v & 0xff), static_cast<char>(v >> 8)}; };
  std::string want;
  want += '\x0f';  // narrow parts, short last_doc, short doc_end, short weight marks
  want += u16(254) + u16(510) + u16(598);  // last_doc
  want += u16(192) + u16(128) + u16(64);   // block 0's parts: docids 62, 126, 190 back from 254
  want += u16(192) + u16(128) + u16(64);   // block 1's: 318, 382, 446 back from 510
  want += u16(24) + u16(0) + u16(0);       // block 2 (44 postings): docid 574, then its last twice
  want += u16(static_cast<uint32_t>(doc0.size())) + u16(static_cast<uint32_t>(doc0.size() + doc1.size())) +
          u16(static_cast<uint32_t>(doc0.size() + doc1.size() + doc2.size()));  // doc_end
  want += u16(static_cast<uint32_t>(w0.size())) + u16(static_cast<uint32_t>(w0.size() + w1.size()));  // marks 1, 2
  ASSERT_GE(bytes.size(), want.size());
  EXPECT_EQ(bytes.substr(0, want.size()), want);
  EXPECT_EQ(SkipTableSize(3, 0x0f), want.size());
  EXPECT_EQ(SkipTableSize(3, 0), 1 + 3 * (4 + 12 + 4) + 2 * 4u);  // every column wide
  // The list ends with the three weight blocks, the last one at mark 2.
  std::string w2;
  EncodeWeightBlock(weights.data() + 256, 44, &w2);
  EXPECT_EQ(bytes.substr(bytes.size() - w0.size() - w1.size() - w2.size()), w0 + w1 + w2);
}

// A block whose part lasts lie up to 65,535 docids below its last docid gets
// narrow rows; one more docid of span makes the whole table wide. Both decode.
TEST(PostingCursor, SkipRowsNarrowUpTo65535DocidsOfSpan) {
  for (uint32_t span : {65535u, 65536u}) {
    std::vector<DocId> docs;
    for (DocId d = 0; d < 300; ++d) docs.push_back(d);
    docs[127] = docs[31] + span;  // block 0: part 0 ends at 31, the block at 31 + span
    for (size_t i = 128; i < docs.size(); ++i) docs[i] = docs[127] + static_cast<DocId>(i);
    std::vector<uint32_t> weights(docs.size());
    for (size_t i = 0; i < weights.size(); ++i) weights[i] = 1 + static_cast<uint32_t>(i % 7);
    std::string bytes;
    PostingSizes sizes;
    EncodePostingList(docs, weights, /*lengths=*/weights, /*score_avgdl=*/1.0, &bytes, &sizes);
    // Parts narrow up to a span of 65,535; last_doc is u32 (the last docid is
    // 65,000 and more), doc_end u16.
    const uint8_t want = (span <= 65535 ? kSkipNarrowParts : 0) | kSkipShortEnds | kSkipShortMarks;
    EXPECT_EQ(static_cast<uint8_t>(bytes[0]), want) << span;
    EXPECT_EQ(sizes.skip_bytes, 1 + 3 * (want & kSkipNarrowParts ? 12u : 18u) + 2 * 2);  // + two u16 marks
    PostingCursor c;
    ASSERT_TRUE(c.Init(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                       static_cast<uint32_t>(docs.size()), nullptr, 0)
                    .ok());
    for (size_t i : {0, 31, 32, 100, 127, 128, 200, 299}) {
      ASSERT_EQ(c.Seek(docs[i]), docs[i]) << span << " " << i;
      ASSERT_EQ(c.weight(), weights[i]);
    }
    EXPECT_EQ(c.Next(), kEndDoc);
    EXPECT_TRUE(c.status().ok());
  }
  // Any other layout byte is corruption.
  std::vector<DocId> docs(300);
  for (size_t i = 0; i < docs.size(); ++i) docs[i] = static_cast<DocId>(i);
  std::vector<uint32_t> weights(docs.size(), 1);
  std::string bytes;
  EncodePostingList(docs, weights, /*lengths=*/weights, /*score_avgdl=*/1.0, &bytes);
  EXPECT_EQ(static_cast<uint8_t>(bytes[0]), kSkipNarrowParts | kSkipShortLast | kSkipShortEnds | kSkipShortMarks);
  bytes[0] = 16;
  PostingCursor c;
  EXPECT_FALSE(c.Init(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 300, nullptr, 0).ok());
  EXPECT_EQ(c.doc(), kEndDoc);
}

// Each column is u16 exactly when its largest value fits: last_doc up to
// docid 65,535, doc_end up to 65,535 bytes of doc blocks; every mix reads
// back.
TEST(PostingCursor, ShortColumnsUpTo65535) {
  std::mt19937_64 rng(9);
  for (DocId last : {65535u, 65536u, 1000000u}) {
    for (bool big_blocks : {false, true}) {
      // Gaps of ~2^16 make doc blocks wide (17 bits a docid: ~272 bytes a
      // block), so 300 blocks pass 65,535 bytes; small gaps keep them short.
      const size_t n = big_blocks ? 128 * 300 : 1000;
      std::vector<DocId> docs(n);
      for (size_t i = 0; i < n; ++i) docs[i] = static_cast<DocId>(i);
      if (big_blocks) {
        for (size_t i = 1; i < n; ++i) docs[i] = docs[i - 1] + 1 + static_cast<DocId>(rng() % 131072);
      }
      // Shift so the last docid is `last` (or beyond, when gaps are large).
      const DocId shift = docs.back() < last ? last - docs.back() : 0;
      for (auto& d : docs) d += shift;
      std::vector<uint32_t> weights(n, 1);
      std::string bytes;
      EncodePostingList(docs, weights, /*lengths=*/weights, /*score_avgdl=*/1.0, &bytes);
      const uint8_t layout = static_cast<uint8_t>(bytes[0]);
      EXPECT_EQ((layout & kSkipShortLast) != 0, docs.back() <= 65535) << last << " " << big_blocks;
      EXPECT_EQ((layout & kSkipShortEnds) != 0, !big_blocks) << last;
      PostingCursor c;
      ASSERT_TRUE(c.Init(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                         static_cast<uint32_t>(n), nullptr, 0).ok());
      EXPECT_EQ(c.last_doc(), docs.back());
      for (size_t i = 0; i < n; i += 1 + rng() % 300) ASSERT_EQ(c.Seek(docs[i]), docs[i]) << i;
      EXPECT_EQ(c.Seek(docs.back()), docs.back());
      EXPECT_EQ(c.Next(), kEndDoc);
      EXPECT_TRUE(c.status().ok());
    }
  }
}

// SeekBlock visits blocks in any order (best-first rankings): each visit
// gives the block's docids and weights whole, in every order, in lists with
// weight marks and without, and the cursor then seeks on as usual.
TEST(PostingCursor, SeekBlockVisitsBlocksInAnyOrder) {
  std::mt19937_64 rng(11);
  for (size_t n : {2, 128, 129, 1000, 5000, 20000}) {
    CodedList l = MakeList(rng, n, 1 + static_cast<uint32_t>(rng() % 40));
    const size_t blocks = (l.docs.size() + 127) / 128;
    std::vector<size_t> forward(blocks), backward, shuffled;
    for (size_t b = 0; b < blocks; ++b) forward[b] = b;
    backward.assign(forward.rbegin(), forward.rend());
    shuffled = forward;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    for (const auto* order : {&forward, &backward, &shuffled}) {
      PostingCursor c;
      ASSERT_TRUE(Open(&c, l.bytes, l.docs.size()).ok());
      ASSERT_EQ(c.num_blocks(), blocks);
      for (size_t i = 0; i < order->size(); ++i) {
        // Twice now and then: a block seen (weights read) is read again alike.
        const size_t b = (*order)[i - (i > 0 && i % 7 == 0)];
        const size_t begin = b * 128, len = std::min<size_t>(128, l.docs.size() - begin);
        ASSERT_EQ(c.SeekBlock(b), l.docs[begin]) << "n " << n << " block " << b;
        ASSERT_EQ(c.run_size(), len);
        const uint32_t* w = c.run_weights();
        ASSERT_NE(w, nullptr) << c.status().ToString();
        for (size_t j = 0; j < len; ++j) {
          ASSERT_EQ(c.run()[j], l.docs[begin + j]);
          ASSERT_EQ(w[j], l.weights[begin + j]) << "n " << n << " block " << b << " posting " << j;
        }
      }
      // A block partly decoded (a seek from an earlier block decodes the
      // quarter holding its target) is decoded whole by SeekBlock.
      if (const size_t full = l.docs.size() / 128; full > 1) {
        ASSERT_EQ(c.SeekBlock(full - 2), l.docs[(full - 2) * 128]);
        ASSERT_EQ(c.Seek(l.docs[(full - 1) * 128 + 100]), l.docs[(full - 1) * 128 + 100]);
        ASSERT_EQ(c.run_size(), 28u);  // the last quarter: docids 96 to 127, from the target on
        ASSERT_EQ(c.SeekBlock(full - 1), l.docs[(full - 1) * 128]);
        ASSERT_EQ(c.run_size(), 128u);
        ASSERT_EQ(c.run()[127], l.docs[(full - 1) * 128 + 127]);
        ASSERT_EQ(c.run_weights()[5], l.weights[(full - 1) * 128 + 5]);
      }
      // From a block, Seek and Next go on forward from it.
      const size_t b = rng() % blocks, at = b * 128 + rng() % std::min<size_t>(128, l.docs.size() - b * 128);
      c.SeekBlock(b);
      ASSERT_EQ(c.Seek(l.docs[at]), l.docs[at]);
      ASSERT_EQ(c.weight(), l.weights[at]);
      if (at + 1 < l.docs.size()) {
        ASSERT_EQ(c.Next(), l.docs[at + 1]);
        ASSERT_EQ(c.weight(), l.weights[at + 1]);
      }
      EXPECT_EQ(c.SeekBlock(blocks), kEndDoc);
      EXPECT_EQ(c.SeekBlock(blocks + 5), kEndDoc);
      EXPECT_EQ(c.SeekBlock(0), l.docs[0]);
      EXPECT_TRUE(c.status().ok());
    }
  }
}

// Rewinding never skips a check: a wrong weight mark is found by the
// decode of the block before it (block 15's weights end where block 16's
// mark should point), a corrupt doc block when it is visited, and a failed
// cursor stays failed whichever block is asked for next.
TEST(PostingCursor, SeekBlockKeepsCorruptionChecks) {
  std::mt19937_64 rng(12);
  CodedList l = MakeList(rng, 20000, 40);
  const std::string bad = MarkFlipped(l, 16);
  PostingCursor c;
  ASSERT_TRUE(Open(&c, bad, l.docs.size()).ok());
  ASSERT_EQ(c.SeekBlock(40), l.docs[40 * 128]);
  ASSERT_NE(c.run_weights(), nullptr);  // marks 40 and 41 are sound
  ASSERT_EQ(c.SeekBlock(15), l.docs[15 * 128]);  // backwards: block 15 ends off mark 16
  EXPECT_EQ(c.run_weights(), nullptr);
  EXPECT_TRUE(c.status().IsCorruption()) << c.status().ToString();
  EXPECT_EQ(c.SeekBlock(0), kEndDoc);
  EXPECT_EQ(c.doc(), kEndDoc);

  // A doc block that disagrees with the skip table (its last docid), seen
  // first backwards: the cursor fails there and nothing after reads.
  const size_t last_doc_width = static_cast<uint8_t>(l.bytes[0]) & kSkipShortLast ? 2 : 4;
  std::string skewed = l.bytes;
  skewed[1 + last_doc_width * 30] = static_cast<char>(skewed[1 + last_doc_width * 30] ^ 1);  // block 30's last docid
  PostingCursor d;
  ASSERT_TRUE(Open(&d, skewed, l.docs.size()).ok());
  ASSERT_EQ(d.SeekBlock(100), l.docs[100 * 128]);
  EXPECT_EQ(d.SeekBlock(30), kEndDoc);
  EXPECT_TRUE(d.status().IsCorruption()) << d.status().ToString();
  EXPECT_EQ(d.SeekBlock(100), kEndDoc);
  EXPECT_EQ(d.Seek(0), kEndDoc);
}

// Far seeks start at a guessed block (as if the docids were spread evenly)
// and gallop from there: on lists far from even (dense clusters between
// long gaps) the block found is still the first one ending at or past the
// target, from any starting block; and warming seeks first
// (PrefetchSeeks) changes nothing a seek returns.
TEST(PostingCursor, FarSeeksFromAGuessFindTheBlockOnUnevenLists) {
  for (uint64_t seed = 0; seed < 40; ++seed) {
    std::mt19937_64 rng(seed);
    CodedList l;
    uint64_t d = rng() % 1000;
    const size_t n = 2500 + rng() % 40000;
    while (l.docs.size() < n && d <= kMaxDocId) {
      // A cluster of close docids, then a gap of up to a million.
      const size_t cluster = 1 + rng() % (seed % 2 == 0 ? 5000 : 50);
      for (size_t i = 0; i < cluster && l.docs.size() < n && d <= kMaxDocId; ++i) {
        l.docs.push_back(static_cast<DocId>(d));
        d += 1 + rng() % 3;
      }
      d += rng() % (seed % 3 == 0 ? 1000000 : 5000);
    }
    l.weights.assign(l.docs.size(), 2);
    EncodePostingList(l.docs, l.weights, /*lengths=*/l.weights, /*score_avgdl=*/1.0, &l.bytes);
    const size_t blocks = (l.docs.size() + 127) / 128;
    auto ends_at_or_past = [&](size_t b, DocId t) { return l.docs[std::min(l.docs.size(), 128 * (b + 1)) - 1] >= t; };
    PostingCursor c;
    ASSERT_TRUE(Open(&c, l.bytes, l.docs.size()).ok());
    const DocId span = l.docs.back() + 10;
    for (int probe = 0; probe < 2000; ++probe) {
      const DocId target = static_cast<DocId>(rng() % span);
      const size_t from = rng() % (blocks + 1);
      size_t want = from;
      while (want < blocks && !ends_at_or_past(want, target)) ++want;
      ASSERT_EQ(c.BlockFor(target, from), want) << "seed " << seed << " target " << target << " from " << from;
    }
    // Ascending targets, warmed a run at a time, then sought: some warmed
    // targets skipped (their hints go stale) and others sought that were
    // not warmed (a hint past them, or none: the search without one).
    std::vector<DocId> targets;
    for (int i = 0; i < 600; ++i) targets.push_back(static_cast<DocId>(rng() % span));
    std::sort(targets.begin(), targets.end());
    DocId last = 0;  // the last target sought: seeks ascend
    for (size_t at = 0; at < targets.size(); at += 128) {
      const size_t len = std::min<size_t>(128, targets.size() - at);
      c.PrefetchSeeks(targets.data() + at, len);
      std::vector<DocId> sought;
      for (size_t i = at; i < at + len; ++i) {
        if (rng() % 4 == 0) continue;
        if (rng() % 4 == 0 && last + 1 < targets[i]) sought.push_back(last + static_cast<DocId>(rng() % (targets[i] - last)));
        sought.push_back(last = targets[i]);
      }
      for (DocId t : sought) {
        auto it = std::lower_bound(l.docs.begin(), l.docs.end(), t);
        ASSERT_EQ(c.Seek(t), it == l.docs.end() ? kEndDoc : *it) << "seed " << seed;
      }
    }
    EXPECT_TRUE(c.status().ok());
  }
}

TEST(PostingCursor, LargestDocIdAndSingleton) {
  std::vector<DocId> docs = {0, kMaxDocId};
  std::vector<uint32_t> w = {1, UINT32_MAX};
  std::string bytes;
  EncodePostingList(docs, w, /*lengths=*/w, /*score_avgdl=*/1.0, &bytes);
  PostingCursor c;
  ASSERT_TRUE(c.Init(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 2, nullptr, 0).ok());
  EXPECT_EQ(c.doc(), 0u);
  EXPECT_EQ(c.Seek(1), kMaxDocId);
  EXPECT_EQ(c.weight(), UINT32_MAX);
  EXPECT_EQ(c.Next(), kEndDoc);

  PostingCursor s;
  s.InitSingleton(42, 7);
  EXPECT_EQ(s.doc(), 42u);
  EXPECT_EQ(s.weight(), 7u);
  EXPECT_EQ(s.Seek(42), 42u);
  EXPECT_EQ(s.Seek(43), kEndDoc);
}

// weight_alone reads one posting's weight without decoding its block:
// the same weight as weight() for every posting (exceptions, partial last
// blocks, one-block lists), whether a block is asked once, twice (then
// decoded whole) or again after a backward SeekBlock; and a truncated
// weight block is an error, as with weight().
TEST(PostingCursor, WeightAloneAgreesWithTheDecodedBlock) {
  for (uint64_t seed = 0; seed < 30; ++seed) {
    std::mt19937_64 rng(seed);
    // One-block lists (every fifth seed) and longer ones.
    CodedList l = MakeList(rng, seed % 5 == 0 ? 2 + rng() % 127 : 1 + rng() % 6000, 1 + static_cast<uint32_t>(rng() % 300));
    PostingCursor c;
    ASSERT_TRUE(Open(&c, l.bytes, l.docs.size()).ok());
    const DocId span = l.docs.back() + 10;
    for (DocId target = 0; c.doc() != kEndDoc; target += 1 + static_cast<DocId>(rng() % (span / 40 + 1))) {
      const DocId d = c.Seek(target);
      if (d == kEndDoc) break;
      const size_t i = static_cast<size_t>(std::lower_bound(l.docs.begin(), l.docs.end(), d) - l.docs.begin());
      ASSERT_EQ(rng() % 4 == 0 ? c.weight() : c.weight_alone(), l.weights[i]) << "seed " << seed << " doc " << d;
      if (rng() % 3 == 0 && c.Next() != kEndDoc) {  // a second ask in the block, or the next one's first
        ASSERT_EQ(c.weight_alone(), l.weights[i + 1]) << "seed " << seed;
      }
    }
    ASSERT_TRUE(c.status().ok()) << c.status().ToString();
    // Backwards, block by block (a best-first ranking's order).
    for (size_t b = c.num_blocks(); b-- > 0;) {
      if (c.SeekBlock(b) == kEndDoc) break;
      ASSERT_EQ(c.weight_alone(), l.weights[128 * b]) << "seed " << seed << " block " << b;
    }
    ASSERT_TRUE(c.status().ok()) << c.status().ToString();
  }
  std::mt19937_64 rng(9);
  CodedList l = MakeList(rng, 1000, 50);
  for (size_t cut = 0; cut < l.bytes.size(); cut += 13) {
    PostingCursor c;
    (void)c.Init(reinterpret_cast<const uint8_t*>(l.bytes.data()), cut, 1000, nullptr, 0);
    for (DocId d = c.doc(); d != kEndDoc; d = c.Next()) c.weight_alone();
    EXPECT_FALSE(c.status().ok()) << cut;
  }
}

TEST(PostingCursor, CorruptBytesGiveAnErrorNotAWrongList) {
  std::mt19937_64 rng(5);
  CodedList l = MakeList(rng, 1000, 50);
  for (size_t i = 0; i < l.bytes.size(); i += 7) {
    std::string bad = l.bytes;
    bad[i] ^= 0x5a;
    PostingCursor c;
    (void)c.Init(reinterpret_cast<const uint8_t*>(bad.data()), bad.size(), 1000, nullptr, 0);
    std::vector<DocId> got;
    for (DocId d = c.doc(); d != kEndDoc && got.size() <= 1000; d = c.Next()) got.push_back(d);
    // Without checksums (they live a layer up) a flip may decode to other
    // docids, but never crash, never read out of bounds, and never loop.
    EXPECT_LE(got.size(), 1000u);
  }
  for (size_t cut = 0; cut < l.bytes.size(); cut += 13) {
    PostingCursor c;
    Status s = c.Init(reinterpret_cast<const uint8_t*>(l.bytes.data()), cut, 1000, nullptr, 0);
    // Every truncation loses a doc or weight block: reading all of them fails.
    for (DocId d = c.doc(); d != kEndDoc; d = c.Next()) c.weight();
    EXPECT_FALSE(c.status().ok()) << cut;
  }
}

// Found by term_list_fuzz: after a weight block failed to decode, the next
// Next() took the cursor for one in the middle of a block and decoded its
// next part through the skip table (null in a one-block list: a crash).
TEST(PostingCursor, MovesAfterABadWeightBlockEndTheList) {
  for (size_t n : {11, 300}) {
    std::vector<DocId> docs;
    std::vector<uint32_t> weights;
    for (uint32_t i = 0; i < n; ++i) {
      docs.push_back(3 + 11 * i);
      weights.push_back(i % 3 == 1 ? 300 : 1);
    }
    std::string bytes;
    EncodePostingList(docs, weights, /*lengths=*/weights, /*score_avgdl=*/1.0, &bytes);
    bytes.pop_back();  // the last weight block cut short
    PostingCursor c;
    ASSERT_TRUE(Open(&c, bytes, n).ok()) << n;
    size_t seen = 0;
    for (DocId d = c.doc(); d != kEndDoc; d = c.Next()) {
      ASSERT_LT(seen++, n) << n;
      c.weight();
    }
    EXPECT_TRUE(c.status().IsCorruption()) << n;
    EXPECT_EQ(c.Next(), kEndDoc) << n;
    EXPECT_EQ(c.Seek(docs.back()), kEndDoc) << n;
  }
}

}  // namespace
}  // namespace dps
