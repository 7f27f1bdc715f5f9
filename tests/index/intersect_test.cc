// The intersection kernels (leapfrog and dense bitset) against
// std::set_intersection on random lists of every density, from fresh and
// from already advanced cursors, with and without limits.
#include "index/intersect.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>

namespace dps {
namespace {

struct IntersectList {
  std::vector<DocId> docs;
  std::string bytes;
};

// About `n` docids in [base, base + universe), each kept with probability
// n / universe.
IntersectList RandomList(std::mt19937_64& rng, size_t n, uint32_t base, uint32_t universe) {
  IntersectList l;
  std::bernoulli_distribution keep(std::min(1.0, double(n) / universe));
  for (uint32_t d = 0; d < universe; ++d) {
    if (keep(rng)) l.docs.push_back(base + d);
  }
  if (l.docs.size() < 2) l.docs = {base, base + universe};
  std::vector<uint32_t> weights(l.docs.size(), 1);
  EncodePostingList(l.docs, weights, /*lengths=*/weights, /*score_avgdl=*/1.0, &l.bytes);
  return l;
}

std::vector<DocId> Reference(const std::vector<IntersectList>& lists, DocId from) {
  std::vector<DocId> acc;
  for (DocId d : lists[0].docs) {
    if (d >= from) acc.push_back(d);
  }
  for (size_t i = 1; i < lists.size(); ++i) {
    std::vector<DocId> next;
    std::set_intersection(acc.begin(), acc.end(), lists[i].docs.begin(), lists[i].docs.end(),
                          std::back_inserter(next));
    acc.swap(next);
  }
  return acc;
}

struct Cursors {
  std::vector<std::unique_ptr<PostingCursor>> owned;
  std::vector<PostingCursor*> ptrs;
  Cursors(const std::vector<IntersectList>& lists, DocId from) {
    for (const auto& l : lists) {
      owned.push_back(std::make_unique<PostingCursor>());
      EXPECT_TRUE(owned.back()
                      ->Init(reinterpret_cast<const uint8_t*>(l.bytes.data()), l.bytes.size(),
                             static_cast<uint32_t>(l.docs.size()), nullptr, 0)
                      .ok());
      if (from > 0) owned.back()->Seek(from);
      ptrs.push_back(owned.back().get());
    }
  }
};

TEST(Intersection, KernelsAgreeWithSetIntersection) {
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  size_t dense_cases = 0, leapfrog_cases = 0;
  for (int round = 0; round < 300; ++round) {
    const size_t n = 2 + rng() % 3;
    const uint32_t universe = 2000 + static_cast<uint32_t>(rng() % 60000);
    std::vector<IntersectList> lists;
    for (size_t i = 0; i < n; ++i) {
      // Densities from 1/1 to 1/1000; bases shift some lists' ranges.
      const size_t len = 1 + universe / (1u << (rng() % 11));
      const uint32_t base = rng() % 4 == 0 ? static_cast<uint32_t>(rng() % universe) : 0;
      lists.push_back(RandomList(rng, len, base, universe));
    }
    std::sort(lists.begin(), lists.end(),
              [](const IntersectList& a, const IntersectList& b) { return a.docs.size() < b.docs.size(); });
    const DocId from = rng() % 3 == 0 ? static_cast<DocId>(rng() % universe) : 0;
    const std::vector<DocId> expected = Reference(lists, from);
    SCOPED_TRACE("round " + std::to_string(round));
    {
      Cursors c(lists, from);
      (PrefersDense(c.ptrs.data(), n) ? dense_cases : leapfrog_cases)++;
      EXPECT_EQ(CountIntersection(c.ptrs.data(), n), expected.size());
    }
    {
      Cursors c(lists, from);
      EXPECT_EQ(LeapfrogCount(c.ptrs.data(), n), expected.size());
    }
    for (size_t limit : {size_t{1}, expected.size() / 2 + 1, SIZE_MAX}) {
      Cursors c(lists, from);
      std::vector<DocId> got;
      CollectIntersection(c.ptrs.data(), n, limit, &got);
      std::vector<DocId> want(expected.begin(),
                              expected.begin() + std::min(limit, expected.size()));
      EXPECT_EQ(got, want) << "limit " << limit;
    }
  }
  // Both strategies must have been exercised for the comparison to mean anything.
  EXPECT_GT(dense_cases, 20u);
  EXPECT_GT(leapfrog_cases, 20u);
}

}  // namespace
}  // namespace dps

namespace dps {
namespace {

// CollectWindow (ranked windows): consecutive windows of random spans over
// the same cursors give the intersection restricted to each window, with
// every list's weight of every match.
TEST(Intersection, WindowsCollectMatchesWithTheirWeights) {
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  size_t matches = 0;
  for (int round = 0; round < 200; ++round) {
    const size_t n = 1 + rng() % 4;
    const uint32_t universe = 500 + static_cast<uint32_t>(rng() % 30000);
    std::vector<std::vector<DocId>> docs(n);
    std::vector<std::vector<uint32_t>> weights(n);
    std::vector<std::string> bytes(n);
    std::vector<std::unique_ptr<PostingCursor>> cursors;
    std::vector<PostingCursor*> ptrs;
    for (size_t i = 0; i < n; ++i) {
      std::bernoulli_distribution keep(1.0 / (1 + rng() % 8));
      for (uint32_t d = 0; d < universe; ++d) {
        if (keep(rng)) {
          docs[i].push_back(d);
          weights[i].push_back(1 + static_cast<uint32_t>(rng() % (rng() % 2 ? 3 : 1000)));
        }
      }
      if (docs[i].size() < 2) {
        docs[i] = {0, universe};
        weights[i] = {1, 7};
      }
      EncodePostingList(docs[i], weights[i], /*lengths=*/weights[i], /*score_avgdl=*/1.0, &bytes[i]);
      cursors.push_back(std::make_unique<PostingCursor>());
      ASSERT_TRUE(cursors.back()
                      ->Init(reinterpret_cast<const uint8_t*>(bytes[i].data()), bytes[i].size(),
                             static_cast<uint32_t>(docs[i].size()), nullptr, 0)
                      .ok());
      ptrs.push_back(cursors.back().get());
    }
    std::vector<DocId> got_docs(kMaxWindowSpan);
    std::vector<std::vector<uint32_t>> got_weights(n, std::vector<uint32_t>(kMaxWindowSpan));
    std::vector<uint32_t*> weight_ptrs;
    for (auto& w : got_weights) weight_ptrs.push_back(w.data());
    for (DocId lo = static_cast<DocId>(rng() % 50); lo <= universe;) {
      const DocId hi = lo + static_cast<DocId>(rng() % (rng() % 2 ? 200 : kMaxWindowSpan));
      const size_t m = CollectWindow(ptrs.data(), n, lo, hi, got_docs.data(), weight_ptrs.data());
      ASSERT_NE(m, SIZE_MAX);
      // The reference: docids of list 0 in [lo, hi] that every list holds.
      size_t want = 0;
      for (size_t k = 0; k < docs[0].size(); ++k) {
        const DocId d = docs[0][k];
        if (d < lo || d > hi) continue;
        std::vector<uint32_t> w(n);
        bool all = true;
        for (size_t i = 0; i < n && all; ++i) {
          auto it = std::lower_bound(docs[i].begin(), docs[i].end(), d);
          all = it != docs[i].end() && *it == d;
          if (all) w[i] = weights[i][static_cast<size_t>(it - docs[i].begin())];
        }
        if (!all) continue;
        ASSERT_LT(want, m) << "window [" << lo << ", " << hi << "]";
        ASSERT_EQ(got_docs[want], d);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(got_weights[i][want], w[i]) << "list " << i << " docid " << d;
        ++want;
      }
      ASSERT_EQ(m, want) << "window [" << lo << ", " << hi << "]";
      matches += m;
      lo = hi + 1 + static_cast<DocId>(rng() % 3 == 0 ? rng() % 300 : 0);  // windows may leave gaps
    }
  }
  EXPECT_GT(matches, 10000u);
}

}  // namespace
}  // namespace dps

namespace dps {
namespace {

// A cursor over the list of `docs` with `weights` (encoded into *bytes,
// which must outlive it).
std::unique_ptr<PostingCursor> OpenList(const std::vector<DocId>& docs, const std::vector<uint32_t>& weights,
                                        std::string* bytes) {
  EncodePostingList(docs, weights, weights, /*score_avgdl=*/1.0, bytes);
  auto cursor = std::make_unique<PostingCursor>();
  EXPECT_TRUE(cursor
                  ->Init(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size(),
                         static_cast<uint32_t>(docs.size()), nullptr, 0)
                  .ok());
  return cursor;
}

// Each of spots' rows is list (docs, weights)'s posting at want[m]: its doc
// block, the block's earlier weights summed, its weight.
void ExpectSpotsOf(const PostingSpots& spots, const std::vector<DocId>& docs, const std::vector<uint32_t>& weights,
                   const std::vector<DocId>& want, const std::string& what) {
  ASSERT_EQ(spots.size(), want.size()) << what;
  for (size_t m = 0; m < want.size(); ++m) {
    const size_t j = static_cast<size_t>(std::lower_bound(docs.begin(), docs.end(), want[m]) - docs.begin());
    uint64_t in_block = 0;
    for (size_t k = j - j % kBlockSize; k < j; ++k) in_block += weights[k];
    ASSERT_EQ(spots.blocks[m], j / kBlockSize) << what << " match " << m;
    ASSERT_EQ(spots.in_blocks[m], in_block) << what << " match " << m;
    ASSERT_EQ(spots.tfs[m], weights[j]) << what << " match " << m;
  }
}

// CollectIntersectionSpots: the matches, and for the cursors asked each
// match's posting spot (doc block, the block's earlier weights summed, the
// weight) as counted from the list itself, on lists of random weights over
// many blocks, some cursors already advanced; both kernels record every
// list asked (the dense kernel the last list's as it meets the matches,
// the others' from the postings it marked, when they are few enough).
TEST(Intersection, KernelsRecordEachMatchsPostingSpots) {
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  size_t dense_cases = 0, leapfrog_cases = 0, dense_spotted = 0, leapfrog_spotted = 0, dense_marked_spotted = 0;
  for (int round = 0; round < 300; ++round) {
    const size_t n = 1 + rng() % 4;
    const uint32_t universe = 200 + static_cast<uint32_t>(rng() % 20000);
    std::vector<std::vector<DocId>> docs(n);
    std::vector<std::vector<uint32_t>> weights(n);
    std::vector<std::string> bytes(n);
    std::vector<std::unique_ptr<PostingCursor>> cursors;
    std::vector<PostingCursor*> ptrs;
    const DocId from = rng() % 3 == 0 ? static_cast<DocId>(rng() % universe) : 0;
    for (size_t i = 0; i < n; ++i) {
      std::bernoulli_distribution keep(1.0 / (1 + rng() % 30));
      for (uint32_t d = 0; d < universe; ++d) {
        if (!keep(rng)) continue;
        docs[i].push_back(d);
        weights[i].push_back(1 + static_cast<uint32_t>(rng() % (rng() % 2 ? 4 : 500)));
      }
      if (docs[i].size() < 2) {
        docs[i] = {0, universe};
        weights[i] = {3, 7};
      }
      cursors.push_back(OpenList(docs[i], weights[i], &bytes[i]));
      if (from > 0) cursors.back()->Seek(from);
      ptrs.push_back(cursors.back().get());
    }
    std::sort(ptrs.begin(), ptrs.end(), [](PostingCursor* a, PostingCursor* b) { return a->df() < b->df(); });
    std::vector<size_t> order(n);  // order[k]: the list cursor k reads
    for (size_t k = 0; k < n; ++k) {
      order[k] = static_cast<size_t>(
          std::find_if(cursors.begin(), cursors.end(), [&](const auto& c) { return c.get() == ptrs[k]; }) -
          cursors.begin());
    }
    std::vector<PostingSpots> spots(n);
    std::vector<PostingSpots*> asked(n, nullptr);
    for (size_t k = 0; k < n; ++k) {
      if (rng() % 3 != 0) asked[k] = &spots[k];
    }
    const std::vector<PostingSpots*> was_asked = asked;
    const bool dense = PrefersDense(ptrs.data(), n);
    (dense ? dense_cases : leapfrog_cases)++;
    std::vector<DocId> got;
    ASSERT_TRUE(CollectIntersectionSpots(ptrs.data(), n, &got, asked.data()));
    for (size_t k = 0; k < n; ++k) {
      const bool dropped = dense && k + 1 < n && ptrs[k]->df() > kMostWalkedPostings;
      ASSERT_EQ(asked[k], dropped ? nullptr : was_asked[k]) << "round " << round << " cursor " << k;
    }
    std::vector<DocId> want;
    for (DocId d : docs[0]) {
      bool all = d >= from;
      for (size_t i = 1; i < n && all; ++i) all = std::binary_search(docs[i].begin(), docs[i].end(), d);
      if (all) want.push_back(d);
    }
    ASSERT_EQ(got, want) << "round " << round;
    for (size_t c = 0; c < n; ++c) {
      if (asked[c] == nullptr) continue;
      const size_t i = order[c];
      ExpectSpotsOf(spots[c], docs[i], weights[i], want, "round " + std::to_string(round) + " list " + std::to_string(i));
      if (HasFatalFailure()) return;
      (dense ? dense_spotted : leapfrog_spotted) += want.size();
      if (dense && c + 1 < n) dense_marked_spotted += want.size();
    }
  }
  // Both kernels, and spots from each, or the comparison means little.
  EXPECT_GT(dense_cases, 10u);
  EXPECT_GT(leapfrog_cases, 10u);
  EXPECT_GT(dense_spotted, 200u);
  EXPECT_GT(leapfrog_spotted, 200u);
  EXPECT_GT(dense_marked_spotted, 100u);
}

// The dense kernel records a marked list's spots only up to
// kMostWalkedPostings postings: a longer one's spots[k] comes back null
// (the phrase check finds them), the last list's are recorded whatever its
// length. Two lists of every 2nd and every 3rd docid, the shorter marked.
TEST(Intersection, DenseKernelLeavesALongMarkedListsSpotsToTheCaller) {
  for (const uint32_t universe : {kMostWalkedPostings * 3, kMostWalkedPostings * 6}) {
    std::vector<std::vector<DocId>> docs(2);
    std::vector<std::vector<uint32_t>> weights(2);
    std::vector<std::string> bytes(2);
    std::vector<std::unique_ptr<PostingCursor>> cursors;
    for (size_t i = 0; i < 2; ++i) {
      for (DocId d = 0; d < universe; d += static_cast<DocId>(2 + i)) {
        docs[i].push_back(d);
        weights[i].push_back(1 + d % 5);
      }
      cursors.push_back(OpenList(docs[i], weights[i], &bytes[i]));
    }
    PostingCursor* ptrs[2] = {cursors[1].get(), cursors[0].get()};  // every 3rd (shorter) marked first
    ASSERT_TRUE(PrefersDense(ptrs, 2));
    std::vector<PostingSpots> spots(2);
    PostingSpots* asked[2] = {&spots[0], &spots[1]};
    std::vector<DocId> got;
    ASSERT_TRUE(CollectIntersectionSpots(ptrs, 2, &got, asked));
    const bool long_marked = docs[1].size() > kMostWalkedPostings;
    EXPECT_EQ(asked[0], long_marked ? nullptr : &spots[0]) << universe;
    EXPECT_EQ(asked[1], &spots[1]) << universe;
    ASSERT_EQ(got.size(), (universe + 5) / 6) << universe;  // multiples of 6
    for (size_t c = 0; c < 2; ++c) {
      if (asked[c] == nullptr) continue;
      const size_t i = c == 0 ? 1 : 0;  // the list cursor c reads
      ExpectSpotsOf(spots[c], docs[i], weights[i], got, std::to_string(universe) + " list " + std::to_string(i));
      if (HasFatalFailure()) return;
    }
  }
}

}  // namespace
}  // namespace dps
