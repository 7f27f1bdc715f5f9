// index/score_scan.h against the obvious scalar loops, on random score
// arrays of every length up to a few vectors and every kind of bar.
#include "index/score_scan.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace dps {
namespace {

std::vector<uint8_t> Bytes(const std::vector<uint32_t>& scores) {
  std::vector<uint8_t> out;
  for (uint32_t s : scores) {
    out.push_back(static_cast<uint8_t>(s));
    out.push_back(static_cast<uint8_t>(s >> 8));
  }
  return out;  // exact size: ASan sees an over-read
}

TEST(ScoreScan, MatchesScalarLoops) {
  std::mt19937_64 rng(25);
  for (size_t n = 0; n <= 40; ++n) {
    for (int rep = 0; rep < 30; ++rep) {
      std::vector<uint32_t> scores(n);
      for (uint32_t& s : scores) {
        // Small values (ties, and zeros now and then) or the whole range,
        // where a signed compare would go wrong.
        s = rep % 3 == 0 ? static_cast<uint32_t>(rng() % 5) : static_cast<uint32_t>(rng() % 65536);
      }
      const std::vector<uint8_t> bytes = Bytes(scores);
      size_t zero = n;
      for (size_t i = 0; i < n; ++i) {
        if (scores[i] == 0) {
          zero = i;
          break;
        }
      }
      ASSERT_EQ(FirstZeroScore(bytes.data(), n), zero) << "n " << n;
      std::vector<uint32_t> bars = {0, 1, 2, 3, 4, 5, 32767, 32768, 32769, 65535, 65536};
      for (uint32_t s : scores) bars.insert(bars.end(), {s, s + 1});
      for (uint32_t least : bars) {
        for (size_t from = 0; from <= n + 1; ++from) {
          size_t want = n;
          for (size_t i = from; i < n; ++i) {
            if (scores[i] >= least) {
              want = i;
              break;
            }
          }
          ASSERT_EQ(NextScoreAtLeast(bytes.data(), from, n, least), want)
              << "n " << n << " from " << from << " least " << least;
        }
      }
    }
  }
}

}  // namespace
}  // namespace dps
