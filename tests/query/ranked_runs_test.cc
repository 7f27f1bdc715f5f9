// The end of a ranked query: bins' best-first lists merged, the offset
// skipped, the rest cut into runs of one bin, against a sort of everything.
#include "query/ranked_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

namespace dps {
namespace {

std::string IdOf(uint32_t bin, DocId docid) { return std::to_string(bin) + "/" + std::to_string(docid); }

// Bins in random order, each with its own K best of random documents with
// many tied scores, best first; stored records on some bins only.
std::vector<BinResult> RandomBins(std::mt19937_64& rng, size_t k, std::vector<ScoredDoc>* all) {
  std::vector<uint32_t> ids(rng() % 13);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<uint32_t>(i * 3 + rng() % 3);
  std::shuffle(ids.begin(), ids.end(), rng);
  std::vector<BinResult> bins;
  for (uint32_t bin : ids) {
    std::vector<ScoredDoc> docs;
    const size_t n = rng() % 25;
    for (DocId d = 0; d < n; ++d) docs.push_back({static_cast<double>(rng() % 6) / 4.0, bin, d * 2 + 1});
    std::sort(docs.begin(), docs.end(), RanksBefore);
    docs.resize(std::min(k, docs.size()));
    BinResult& b = bins.emplace_back();
    b.bin = BinId{bin};
    b.tablet = bin / 4;
    b.fast_path = bin % 2 == 0;
    const bool with_stored = rng() % 2 == 0;
    for (const ScoredDoc& d : docs) {
      b.docs.push_back(d.docid);
      b.scores.push_back(d.score);
      if (with_stored) b.stored.push_back(StoredDoc{d.docid, IdOf(bin, d.docid), "", ""});
      all->push_back(d);
    }
    b.count = b.docs.size();
  }
  return bins;
}

TEST(RankedRuns, RunsAreTheKBestAfterTheOffsetInMaximalRunsOfOneBin) {
  std::mt19937_64 rng(18);
  for (int round = 0; round < 1000; ++round) {
    const size_t top_k = 1 + rng() % 12, offset = rng() % 3 == 0 ? rng() % 15 : 0;
    std::vector<ScoredDoc> all;
    std::vector<BinResult> bins = RandomBins(rng, top_k + offset, &all);
    std::vector<BinResult> given = bins;
    std::sort(all.begin(), all.end(), RanksBefore);
    const size_t skipped = std::min(offset, all.size());
    const std::vector<ScoredDoc> want(all.begin() + static_cast<ptrdiff_t>(skipped),
                                      all.begin() + static_cast<ptrdiff_t>(std::min(all.size(), offset + top_k)));

    RankedRuns runs(bins, top_k, offset);
    EXPECT_EQ(runs.skipped(), skipped) << "round " << round;
    BinResult run;  // one BinResult for every run, as the searchers do
    run.cancelled = run.truncated = run.deadline_passed = true;
    run.service_us = 5;
    std::vector<ScoredDoc> got;
    uint32_t last_bin = UINT32_MAX;
    while (runs.Next(&run)) {
      ASSERT_FALSE(run.docs.empty()) << "round " << round;
      EXPECT_NE(run.bin.value, last_bin) << "round " << round << ": runs of one bin are merged";
      last_bin = run.bin.value;
      const auto from = std::find_if(given.begin(), given.end(), [&](const BinResult& b) { return b.bin == run.bin; });
      ASSERT_NE(from, given.end());
      EXPECT_EQ(run.tablet, from->tablet);
      EXPECT_EQ(run.fast_path, from->fast_path);
      EXPECT_EQ(run.count, run.docs.size());
      EXPECT_FALSE(run.cancelled || run.truncated || run.deadline_passed || run.service_us != 0);
      ASSERT_EQ(run.scores.size(), run.docs.size());
      ASSERT_EQ(run.stored.size(), from->stored.empty() ? 0 : run.docs.size()) << "round " << round;
      for (size_t i = 0; i < run.docs.size(); ++i) {
        got.push_back({run.scores[i], run.bin.value, run.docs[i]});
        if (!run.stored.empty()) {
          EXPECT_EQ(run.stored[i].id, IdOf(run.bin.value, run.docs[i]));
        }
      }
    }
    ASSERT_EQ(got.size(), want.size()) << "round " << round;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_TRUE(got[i].score == want[i].score && got[i].bin == want[i].bin && got[i].docid == want[i].docid)
          << "round " << round << " result " << i;
    }
    EXPECT_FALSE(runs.Next(&run));
  }
}

TEST(RankedRuns, PageFarBeyondTheAnswerIsEmpty) {
  std::vector<BinResult> bins(1);
  bins[0].bin = BinId{3};
  bins[0].docs = {7, 2};
  bins[0].scores = {2.0, 1.0};
  RankedRuns runs(bins, 10, size_t{1} << 40);
  EXPECT_EQ(runs.skipped(), 2u);
  BinResult run;
  EXPECT_FALSE(runs.Next(&run));
}

}  // namespace
}  // namespace dps
