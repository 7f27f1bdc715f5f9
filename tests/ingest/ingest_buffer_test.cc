#include "ingest/ingest_buffer.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

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
