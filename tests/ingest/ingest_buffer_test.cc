#include "ingest/ingest_buffer.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include <oneapi/tbb/task_arena.h>

#include "ingest/tablet_build.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

using Lists = std::map<std::pair<uint32_t, std::string>, std::vector<std::pair<DocId, uint32_t>>>;

TEST(IngestBuffer, EmitsEachBinsListsInTermThenDocOrder) {
  std::mt19937_64 rng(4);
  IngestBuffer buffer(3);
  Lists want;
  std::vector<DocId> next(3, 0);
  for (int i = 0; i < 500; ++i) {
    const uint32_t bin = static_cast<uint32_t>(rng() % 3);
    const DocId doc = next[bin]++;
    std::map<std::string, uint32_t> terms;
    for (int k = static_cast<int>(rng() % 8); k > 0; --k) ++terms[testing::VocabTerm(rng() % 20)];
    std::vector<std::pair<std::string, uint32_t>> v(terms.begin(), terms.end());
    std::shuffle(v.begin(), v.end(), rng);
    buffer.Add(bin, doc, v);
    for (const auto& [t, tf] : terms) want[{bin, t}].emplace_back(doc, tf);
  }
  buffer.Seal();
  Lists got;
  for (uint32_t bin = 0; bin < 3; ++bin) {
    std::string last;
    buffer.ForEachList(bin, [&](std::string_view term, std::span<const DocId> docs,
                                std::span<const uint32_t> weights, std::span<const uint32_t>) {
      EXPECT_LT(last, term);
      last = term;
      for (size_t i = 0; i < docs.size(); ++i) got[{bin, std::string(term)}].emplace_back(docs[i], weights[i]);
      return true;
    });
  }
  EXPECT_EQ(got, want);
  EXPECT_GT(buffer.memory_bytes(), 0u);
  buffer.Clear();
  EXPECT_TRUE(buffer.empty());
}

// A log large enough to be sorted in several chunks by several threads,
// with more than 2^16 terms (both radix passes), emits exactly what a
// reference map holds: terms in byte order, docids ascending, each
// posting's positions with it.
TEST(IngestBuffer, LargeLogsSortInChunksToTermThenDocOrder) {
  struct Posting {
    DocId doc;
    uint32_t tf;
    std::vector<uint32_t> positions;
    bool operator==(const Posting&) const = default;
  };
  std::mt19937_64 rng(23);
  IngestBuffer buffer(1);
  std::map<std::string, std::vector<Posting>> want;
  size_t entries = 0;
  for (DocId doc = 0; entries < (size_t{1} << 20) + 12345; ++doc) {
    std::map<std::string, uint32_t> terms;
    for (int k = 1 + static_cast<int>(rng() % 14); k > 0; --k) {
      // Skewed: a few frequent terms and a long tail of 90,000.
      const uint64_t id = rng() % 4 == 0 ? rng() % 50 : rng() % 90000;
      std::string term = "w";
      term += std::to_string(id);
      ++terms[term];
    }
    std::vector<std::pair<std::string, uint32_t>> v(terms.begin(), terms.end());
    std::shuffle(v.begin(), v.end(), rng);
    std::vector<uint32_t> positions;
    uint32_t at = 0;
    for (const auto& [t, tf] : v) {
      Posting p{doc, tf, {}};
      for (uint32_t i = 0; i < tf; ++i) p.positions.push_back(at += 1 + static_cast<uint32_t>(rng() % 3));
      positions.insert(positions.end(), p.positions.begin(), p.positions.end());
      want[t].push_back(std::move(p));
    }
    buffer.Add(0, doc, v, positions);
    entries += v.size();
  }
  ASSERT_GT(want.size(), size_t{1} << 16);
  buffer.Seal();
  std::map<std::string, std::vector<Posting>> got;
  std::string last;
  buffer.ForEachList(0, [&](std::string_view term, std::span<const DocId> docs, std::span<const uint32_t> weights,
                            std::span<const uint32_t> positions) {
    EXPECT_LT(last, term);
    last = term;
    std::vector<Posting>& list = got[std::string(term)];
    size_t at = 0;
    for (size_t i = 0; i < docs.size(); ++i) {
      list.push_back({docs[i], weights[i], {positions.begin() + at, positions.begin() + at + weights[i]}});
      at += weights[i];
    }
    EXPECT_EQ(at, positions.size());
    return true;
  });
  EXPECT_TRUE(got == want);
}

// The budget sees the entries and positions written, not the reservation
// (its pages cost nothing until written), so a large reservation neither
// triggers a flush nor hides what was added.
TEST(IngestBuffer, CountsWrittenEntriesNotTheReservation) {
  IngestBuffer buffer(2);
  buffer.SetReservation(1 << 20, 3 << 20);
  const size_t empty = buffer.memory_bytes();
  EXPECT_LT(empty, size_t{4} << 20);  // far below the 2 x 28 MiB reserved
  std::vector<std::pair<std::string, uint32_t>> terms;
  std::vector<uint32_t> positions;
  for (uint32_t t = 0; t < 5; ++t) {
    terms.emplace_back(testing::VocabTerm(t), 2);
    positions.push_back(2 * t);
    positions.push_back(2 * t + 1);
  }
  for (DocId d = 0; d < 100; ++d) buffer.Add(d % 2, d / 2, terms, positions);
  const size_t added = buffer.memory_bytes() - empty;
  EXPECT_GE(added, 500u * 16 + 1000u * 4);           // each entry and position counted
  // Plus at most one arena block and the term table's growth.
  EXPECT_LE(added, 500u * 16 + 1000u * 4 + (1 << 20) + 1024);
}

// A bin cut into term ranges: every range starts at a term's first
// posting (a list longer than a range is never split), the ranges ascend
// and cover the log, and their lists are exactly the whole log's.
TEST(IngestBuffer, SplitBinCutsAtTermStarts) {
  IngestBuffer buffer(1);
  std::vector<std::pair<std::string, uint32_t>> doc;
  for (DocId d = 0; d < 400; ++d) {
    doc.clear();
    doc.emplace_back("common", 1);  // every document: 400 of the 1,000 postings
    if (d % 2 == 0) doc.emplace_back(testing::VocabTerm(d % 37), 1);
    if (d % 4 == 0) doc.emplace_back("z" + std::to_string(d), 2);
    buffer.Add(0, d, doc);
  }
  buffer.Seal();
  buffer.SortBin(0);
  for (size_t parts : {size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{64}, size_t{5000}}) {
    const std::vector<size_t> cuts = buffer.SplitBin(0, parts);
    ASSERT_GE(cuts.size(), 2u);
    EXPECT_LE(cuts.size() - 1, parts);
    EXPECT_EQ(cuts.front(), 0u);
    EXPECT_EQ(cuts.back(), 700u);
    std::vector<std::string> terms;
    for (size_t p = 0; p + 1 < cuts.size(); ++p) {
      EXPECT_LT(cuts[p], cuts[p + 1]) << parts;
      buffer.ForEachListIn(0, cuts[p], cuts[p + 1], [&](std::string_view term, std::span<const DocId> docs,
                                                         std::span<const uint32_t>, std::span<const uint32_t>) {
        if (term == "common") {
          EXPECT_EQ(docs.size(), 400u);  // whole in one range
        }
        terms.emplace_back(term);
        return true;
      });
    }
    EXPECT_TRUE(std::is_sorted(terms.begin(), terms.end()));
    EXPECT_EQ(std::adjacent_find(terms.begin(), terms.end()), terms.end()) << "a term in two ranges";
    EXPECT_EQ(terms.size(), 1u + 37 + 100) << parts;
  }
  buffer.ReleaseBin(0);
  EXPECT_TRUE(buffer.BinEmpty(0));
}

// A flush's run written by parallel encoders, each a range of a bin's
// terms, reads back as exactly the lists the buffer held: terms ascending
// across the ranges' seams, docids, weights and positions intact, bins
// small and large in one file.
TEST(WriteBufferRun, ParallelRangesReadBackAsTheBuffersLists) {
  testing::TempDir dir;
  std::mt19937_64 rng(24);
  IngestBuffer buffer(3);
  std::map<std::pair<uint32_t, std::string>, std::vector<std::vector<uint32_t>>> want;  // doc, tf, positions...
  std::vector<DocId> next(3, 0);
  for (int i = 0; i < 6000; ++i) {
    const uint32_t bin = i % 10 == 0 ? 2 : 0;  // bin 0 large, bin 2 small, bin 1 empty
    const DocId doc = next[bin]++;
    std::map<std::string, uint32_t> terms;
    for (int k = 1 + static_cast<int>(rng() % 9); k > 0; --k) ++terms[testing::VocabTerm(rng() % 3 == 0 ? rng() % 5 : rng() % 3000)];
    std::vector<std::pair<std::string, uint32_t>> v(terms.begin(), terms.end());
    std::vector<uint32_t> positions;
    uint32_t at = 0;
    for (const auto& [t, tf] : v) {
      std::vector<uint32_t> posting{doc, tf};
      for (uint32_t k = 0; k < tf; ++k) posting.push_back(at += 1 + static_cast<uint32_t>(rng() % 4));
      positions.insert(positions.end(), posting.begin() + 2, posting.end());
      want[{bin, t}].push_back(std::move(posting));
    }
    buffer.Add(bin, doc, v, positions);
  }
  buffer.Seal();
  const std::string path = dir.path() + "/run";
  bool written = false;
  tbb::task_arena four(4);  // four ranges even on a machine with fewer cores
  Status s = four.execute([&] { return WriteBufferRun(path, 0, 2, &buffer, &written, /*min_part_postings=*/500); });
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(written);
  EXPECT_TRUE(buffer.BinEmpty(0));
  EXPECT_TRUE(buffer.BinEmpty(2));
  RunSet runs;
  ASSERT_TRUE(runs.Add(path).ok());
  std::map<std::pair<uint32_t, std::string>, std::vector<std::vector<uint32_t>>> got;
  for (uint32_t bin = 0; bin < 3; ++bin) {
    std::string last;
    ASSERT_TRUE(runs.ForEachList(bin, [&](std::string_view term, std::span<const DocId> docs,
                                          std::span<const uint32_t> weights, std::span<const uint32_t> positions) {
                      EXPECT_LT(last, term);
                      last = term;
                      size_t at = 0;
                      for (size_t i = 0; i < docs.size(); ++i) {
                        std::vector<uint32_t> posting{docs[i], weights[i]};
                        posting.insert(posting.end(), positions.begin() + at, positions.begin() + at + weights[i]);
                        at += weights[i];
                        got[{bin, std::string(term)}].push_back(std::move(posting));
                      }
                      return true;
                    })
                    .ok());
  }
  EXPECT_TRUE(got == want);
  EXPECT_GT(want.size(), 2000u);
}

TEST(RunSet, MergesRunsIntoOneListPerTerm) {
  testing::TempDir dir;
  // Two runs of bin 0 with disjoint, ascending docids.
  RunSet runs;
  for (int r = 0; r < 2; ++r) {
    const std::string path = dir.path() + "/run" + std::to_string(r);
    auto w = RunWriter::Create(path);
    ASSERT_TRUE(w.ok());
    std::vector<DocId> docs = {DocId(10 * r), DocId(10 * r + 1)};
    std::vector<uint32_t> weights = {1, 2};
    ASSERT_TRUE((*w)->Add(0, r == 0 ? "a" : "b", docs, weights).ok());
    ASSERT_TRUE((*w)->Add(0, "c", docs, weights).ok());
    ASSERT_TRUE((*w)->Finish().ok());
    ASSERT_TRUE(runs.Add(path).ok());
  }
  std::map<std::string, std::vector<DocId>> got;
  ASSERT_TRUE(runs.ForEachList(0, [&](std::string_view term, std::span<const DocId> docs,
                                      std::span<const uint32_t>, std::span<const uint32_t>) {
                    got[std::string(term)].assign(docs.begin(), docs.end());
                    return true;
                  })
                  .ok());
  std::map<std::string, std::vector<DocId>> want = {
      {"a", {0, 1}}, {"b", {10, 11}}, {"c", {0, 1, 10, 11}}};
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace dps
