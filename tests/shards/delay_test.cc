// --inject-delay parsing and sampling.
#include "shards/delay.h"

#include <gtest/gtest.h>

#include <cmath>

namespace dps {
namespace {

TEST(Delay, ParsesFixedAndLognormalSpecs) {
  auto r = ParseDelayRule("3:0.05:100");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->tablet, 3);
  EXPECT_DOUBLE_EQ(r->probability, 0.05);
  EXPECT_DOUBLE_EQ(r->ms, 100);
  EXPECT_EQ(r->sigma, 0);
  r = ParseDelayRule("*:1:lognormal(20,0.5)");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->tablet, -1);
  EXPECT_DOUBLE_EQ(r->sigma, 0.5);
  for (const char* bad : {"", "3", "3:0.5", "x:0.5:1", "3:1.5:1", "3:-1:1", "3:0.5:-2", "3:0.5:abc",
                          "1.5:0.5:1", "*:1:lognormal(20)", "*:1:lognormal(-1,1)", "*:0.1:1e9"}) {
    auto b = ParseDelayRule(bad);
    EXPECT_FALSE(b.ok()) << bad;
    if (!b.ok()) {
      EXPECT_NE(b.status().message().find(bad), std::string::npos) << b.status().message();
    }
  }
}

TEST(Delay, FiresWithTheGivenProbabilityOnTheChosenTablet) {
  DelayInjector d({DelayRule{2, 0.05, 100, 0}}, 42);
  int fired = 0;
  const int n = 40000;
  for (int i = 0; i < n; ++i) {
    const int64_t us = d.SampleMicros(2);
    EXPECT_TRUE(us == 0 || us == 100000);
    fired += us > 0;
    EXPECT_EQ(d.SampleMicros(1), 0);  // other tablets never
  }
  // 5% of 40,000 = 2,000, standard deviation ~44.
  EXPECT_NEAR(fired, 2000, 250);
  DelayInjector ln({DelayRule{-1, 1.0, 20, 0.5}}, 7);
  std::vector<double> v;
  for (int i = 0; i < 20001; ++i) v.push_back(static_cast<double>(ln.SampleMicros(5)));
  std::nth_element(v.begin(), v.begin() + 10000, v.end());
  EXPECT_NEAR(v[10000], 20000, 1500);  // the median is the given one
}

}  // namespace
}  // namespace dps
