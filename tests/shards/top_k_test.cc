#include "shards/top_k.h"

#include <gtest/gtest.h>

#include <random>
#include <thread>

namespace dps {
namespace {

// Random documents with many tied scores; the oracle sorts them all.
std::vector<ScoredDoc> RandomDocs(std::mt19937_64& rng, size_t n) {
  std::vector<ScoredDoc> docs;
  for (size_t i = 0; i < n; ++i) {
    docs.push_back({static_cast<double>(rng() % 7) / 4.0, static_cast<uint32_t>(rng() % 5),
                    static_cast<DocId>(rng() % 1000)});
  }
  return docs;
}

std::vector<ScoredDoc> Oracle(std::vector<ScoredDoc> docs, size_t k) {
  std::sort(docs.begin(), docs.end(), RanksBefore);
  docs.resize(std::min(k, docs.size()));
  return docs;
}

bool Same(const std::vector<ScoredDoc>& a, const std::vector<ScoredDoc>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].score != b[i].score || a[i].bin != b[i].bin || a[i].docid != b[i].docid) return false;
  }
  return true;
}

TEST(TopK, OrderIsScoreThenBinThenDocid) {
  EXPECT_TRUE(RanksBefore({2.0, 9, 9}, {1.0, 0, 0}));
  EXPECT_TRUE(RanksBefore({1.0, 0, 9}, {1.0, 1, 0}));
  EXPECT_TRUE(RanksBefore({1.0, 1, 3}, {1.0, 1, 4}));
  EXPECT_FALSE(RanksBefore({1.0, 1, 4}, {1.0, 1, 4}));
}

TEST(TopK, KeepsTheKBestOfRandomTiedScores) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 500; ++round) {
    const size_t n = rng() % 60, k = rng() % 12;
    const auto docs = RandomDocs(rng, n);
    TopK top(k);
    for (const auto& d : docs) top.Offer(d);
    EXPECT_EQ(top.full(), n >= k);
    const double threshold = top.threshold();
    const auto got = top.Take();
    const auto want = Oracle(docs, k);
    ASSERT_TRUE(Same(got, want)) << "round " << round;
    if (k > 0 && n >= k) {
      EXPECT_EQ(threshold, want.back().score);
    }
  }
}

// A TopK keeping its K best in another's room (a bin ranked in the last
// bin's vector) is a new TopK: whatever the room held is gone.
TEST(TopK, InAnothersRoomKeepsTheKBestOfItsOwnOffers) {
  std::mt19937_64 rng(7);
  std::vector<ScoredDoc> room;
  for (int round = 0; round < 300; ++round) {
    const size_t n = rng() % 40, k = rng() % 12;
    const auto docs = RandomDocs(rng, n);
    room.resize(rng() % 20, ScoredDoc{1e300, 0, 0});  // stale entries better than any offer
    TopK top(k, std::move(room));
    for (const auto& d : docs) top.Offer(d);
    EXPECT_EQ(top.full(), n >= k);
    room = top.Take();
    ASSERT_TRUE(Same(room, Oracle(docs, k))) << "round " << round;
  }
}

// The pruned rankings read the threshold after every offer once the
// collector is full: it must be the K-th best so far at each step, through
// the fill (unordered until full), the heap's making and deep replacements.
TEST(TopK, ThresholdAfterEveryOfferIsTheKthBestSoFar) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 200; ++round) {
    const size_t n = rng() % 300, k = 1 + rng() % 40;
    auto docs = RandomDocs(rng, n);
    for (size_t i = 0; i < n; ++i) docs[i].docid = static_cast<DocId>(i);  // distinct: "enters" is unambiguous
    TopK top(k);
    std::vector<ScoredDoc> seen;
    for (const auto& d : docs) {
      seen.push_back(d);
      const auto want = Oracle(seen, k);
      const bool enters = std::any_of(want.begin(), want.end(), [&](const ScoredDoc& w) {
        return w.score == d.score && w.bin == d.bin && w.docid == d.docid;
      });
      ASSERT_EQ(top.Offer(d), enters) << "round " << round << " offer " << seen.size();
      ASSERT_EQ(top.full(), seen.size() >= k);
      if (top.full()) {
        ASSERT_EQ(top.threshold(), want.back().score) << "round " << round;
      }
    }
    ASSERT_TRUE(Same(top.Take(), Oracle(seen, k))) << "round " << round;
  }
}

TEST(TopK, SharedThresholdOnlyRises) {
  SharedThreshold t;
  EXPECT_LT(t.get(), -1e300);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&t, i] {
      for (int v = 0; v < 10000; ++v) t.Raise(static_cast<double>((v * 7 + i) % 5000));
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(t.get(), 4999.0);
  t.Raise(3.0);
  EXPECT_EQ(t.get(), 4999.0);
}

}  // namespace
}  // namespace dps

namespace dps {
namespace {

// KeepBest: offered from several threads (bins ranked in parallel), the
// threshold ends at the K-th best of every score offered, and never passes
// the K-th best of those offered so far.
TEST(TopK, SharedThresholdKeepsTheQuerysKBest) {
  for (size_t k : {1, 3, 10, 100}) {
    SharedThreshold t;
    t.KeepBest(k);
    std::vector<std::vector<double>> scores(4);
    std::mt19937_64 rng(k);
    for (auto& bin : scores) {
      for (int i = 0; i < 2000; ++i) bin.push_back(static_cast<double>(rng() % 5000) / 7);
    }
    std::vector<std::thread> threads;
    for (auto& bin : scores) {
      threads.emplace_back([&t, &bin] {
        for (double s : bin) t.Offer(s);
      });
    }
    for (auto& th : threads) th.join();
    std::vector<double> all;
    for (const auto& bin : scores) all.insert(all.end(), bin.begin(), bin.end());
    std::sort(all.begin(), all.end(), std::greater<>());
    EXPECT_EQ(t.get(), all[k - 1]) << "k " << k;
  }
  SharedThreshold none;  // without KeepBest, offers do nothing
  none.Offer(5.0);
  EXPECT_LT(none.get(), -1e300);
  SharedThreshold partial;
  partial.KeepBest(3);
  partial.Offer(5.0);
  partial.Offer(7.0);
  EXPECT_LT(partial.get(), -1e300);  // fewer than K offered: no threshold yet
  partial.Offer(1.0);
  EXPECT_EQ(partial.get(), 1.0);
  partial.Offer(6.0);
  EXPECT_EQ(partial.get(), 5.0);
}

// Restart: the threshold of the next query starts as a new one's.
TEST(TopK, SharedThresholdRestartsAsNew) {
  SharedThreshold t;
  t.KeepBest(2);
  for (double s : {9.0, 8.0, 7.0}) t.Offer(s);
  EXPECT_EQ(t.get(), 8.0);
  t.Restart();
  EXPECT_LT(t.get(), -1e300);
  t.Offer(5.0);  // without KeepBest again, offers do nothing
  EXPECT_LT(t.get(), -1e300);
  t.KeepBest(2);
  t.Offer(1.0);
  EXPECT_LT(t.get(), -1e300);  // the last query's scores are not counted
  t.Offer(2.0);
  EXPECT_EQ(t.get(), 1.0);
  t.Raise(3.0);
  t.Restart();
  EXPECT_LT(t.get(), -1e300);
}

// OneThread: offers from one thread, unlocked, move the threshold exactly
// as locked ones do; Restart ends it.
TEST(TopK, SharedThresholdOfOneThreadEqualsTheLockedOne) {
  std::mt19937_64 rng(11);
  SharedThreshold one;
  for (int round = 0; round < 50; ++round) {
    const size_t k = 1 + rng() % 12;
    SharedThreshold locked;
    locked.KeepBest(k);
    one.Restart();
    one.KeepBest(k);
    one.OneThread();
    for (int i = 0; i < 200; ++i) {
      const double s = static_cast<double>(rng() % 300) / 8;
      locked.Offer(s);
      one.Offer(s);
      ASSERT_EQ(one.get(), locked.get()) << "round " << round << " offer " << i;
    }
  }
}

}  // namespace
}  // namespace dps
