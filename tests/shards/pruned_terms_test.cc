// The pruned rankings' bounds on corrupt block scores: a score of 0 (the
// writer never stores one) would bound its block at 0 and silently skip
// the block's documents; reading one is Corruption instead, for a block's
// bound and for a list's.
#include "shards/pruned_terms.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

namespace dps {
namespace {

struct ScoredList {
  std::string bytes;
  PostingCursor cursor;
};

// A list of `postings` postings (300: 3 blocks), block b's score set to 0
// when b >= 0.
void MakeList(int zero_block, ScoredList* l, DocId postings = 300) {
  std::vector<DocId> docs;
  std::vector<uint32_t> tfs, dls;
  for (DocId d = 0; d < postings; ++d) {
    docs.push_back(d * 3);
    tfs.push_back(1 + d % 4);
    dls.push_back(10 + d % 50);
  }
  EncodePostingList(docs, tfs, dls, /*score_avgdl=*/30.0, &l->bytes);
  if (zero_block >= 0) {
    // docs/FORMAT.md "Posting list": the scores follow the skip table and
    // impacts_len (a varint).
    const auto* p = reinterpret_cast<const uint8_t*>(l->bytes.data());
    size_t scores = SkipTableSize((postings + kBlockSize - 1) / kBlockSize, p[0]);
    while (p[scores] & 0x80) ++scores;
    ++scores;
    l->bytes[scores + 2 * zero_block] = 0;
    l->bytes[scores + 2 * zero_block + 1] = 0;
  }
  ASSERT_TRUE(l->cursor.Init(reinterpret_cast<const uint8_t*>(l->bytes.data()), l->bytes.size(), postings, nullptr, 0)
                  .ok());
}

pruned::BoundedTerm Term(PostingCursor* cursor) {
  pruned::BoundedTerm t;
  t.cursor = cursor;
  t.idf = 2.0;
  t.stored_impacts = true;
  t.score_avgdl = 30.0;
  return t;
}

TEST(PrunedTerms, ABlockScoreOfZeroIsCorruptionNotABound) {
  const Bm25 bm25(Bm25Params{}, CollectionStats{1000, 30000});
  ASSERT_TRUE(bm25.UsesBlockScores());
  {
    ScoredList sound;
    MakeList(-1, &sound);
    pruned::BoundedTerm t = Term(&sound.cursor);
    for (size_t b = 0; b < 3; ++b) {
      double bound = 0;
      ASSERT_TRUE(pruned::BlockBound(bm25, b, &t, &bound).ok());
      EXPECT_GT(bound, 0.0);
    }
    double list = 0;
    ASSERT_TRUE(pruned::ListBound(bm25, &t, &list).ok());
    EXPECT_GT(list, 0.0);
  }
  for (int zero = 0; zero < 3; ++zero) {
    SCOPED_TRACE("block " + std::to_string(zero));
    ScoredList bad;
    MakeList(zero, &bad);
    pruned::BoundedTerm t = Term(&bad.cursor);
    double bound = 0;
    EXPECT_TRUE(pruned::BlockBound(bm25, static_cast<size_t>(zero), &t, &bound).IsCorruption());
    ScoredList bad_list;
    MakeList(zero, &bad_list);
    pruned::BoundedTerm whole = Term(&bad_list.cursor);  // no max score from the global index: every block read
    double list = 0;
    EXPECT_TRUE(pruned::ListBound(bm25, &whole, &list).IsCorruption());
  }
}

// A single term ranked best first reads every block's score (eight at a
// time, index/score_scan.h) before it scores any: a zero anywhere, in the
// short list or in the vector part and the tail of a long one, fails the
// ranking.
TEST(PrunedTerms, ABlockScoreOfZeroFailsABestFirstRanking) {
  const Bm25 bm25(Bm25Params{}, CollectionStats{1000, 30000});
  for (const auto& [postings, zero] : std::vector<std::pair<DocId, int>>{
           {300, 0}, {300, 2}, {2600, 0}, {2600, 9}, {2600, 16}, {2600, 20}}) {
    SCOPED_TRACE(std::to_string(postings) + " postings, block " + std::to_string(zero));
    ScoredList list;
    MakeList(zero, &list, postings);
    pruned::BoundedTerm t = Term(&list.cursor);
    std::vector<ScoredDoc> room;
    pruned::PrunedTopK top(10, nullptr, &room);
    pruned::OneFileBin one;  // never read: the scores are checked before a block is scored
    pruned::TermInBin bin{BinId{0}, std::numeric_limits<double>::infinity(), 0, &t, &one, &top};
    const Status s = pruned::RankTermBestFirst({&bin, 1}, 10, bm25, nullptr,
                                               [](pruned::TermInBin*) { return Status::OK(); });
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.ToString().find("block score 0"), std::string::npos) << s.ToString();
  }
}

}  // namespace
}  // namespace dps
