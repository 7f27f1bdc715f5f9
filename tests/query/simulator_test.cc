// The simulator against closed forms (Dean and Barroso's fan-out arithmetic,
// M/D/1 queueing) and the policies' expected effects.
#include "query/simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace dps {
namespace {

// Every query: each tablet takes `service_us`; messages take overhead / 2.
std::vector<QuerySample> Constant(double service_us, double overhead_us = 0) {
  return {QuerySample{"q", overhead_us, {service_us}, {service_us}}};
}

SimConfig Config(size_t servers, size_t replicas, double p, double delay_ms, const std::string& policy,
                 size_t queries = 20000) {
  SimConfig c;
  c.samples = Constant(10, 100);
  c.layout = RingLayout(servers, 1, replicas);
  if (p > 0) c.delays.push_back(*ParseServerDelay("*:" + std::to_string(p) + ":" + std::to_string(delay_ms)));
  c.policy = *ParseSimPolicy(policy);
  c.queries = queries;
  return c;
}

double FractionAtLeast(const SimResult& r, double us) {
  size_t n = 0;
  for (double v : r.latencies_us) n += v >= us;
  return static_cast<double>(n) / static_cast<double>(r.latencies_us.size());
}

// The Tail at Scale's arithmetic: with each server slow on a request with
// probability p, a query over N servers is slow with 1 - (1 - p)^N.
TEST(Simulator, FanOutSlowdownMatchesTheClosedForm) {
  for (size_t n : {1, 10, 100}) {
    auto r = Simulate(Config(n, 1, 0.01, 100, "first", 8000));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const double want = 1 - std::pow(0.99, static_cast<double>(n));
    // Within 4.4 standard deviations of a binomial over 8,000 queries.
    EXPECT_NEAR(FractionAtLeast(*r, 100e3), want, 4.4 * std::sqrt(want * (1 - want) / 8000) + 1e-3) << n << " servers";
    EXPECT_EQ(r->queries, 8000u);
    EXPECT_EQ(r->requests, 8000u * n);
    EXPECT_NEAR(r->ExtraWork(), 0, 1e-12);
  }
}

TEST(Simulator, HedgingCutsTheTailForLittleExtraLoad) {
  auto plain = Simulate(Config(10, 2, 0.01, 100, "first"));
  auto hedged = Simulate(Config(10, 2, 0.01, 100, "first+hedge-1ms"));
  ASSERT_TRUE(plain.ok() && hedged.ok());
  EXPECT_GE(plain->latency.QuantileMicros(0.99), 100e3);
  // Slow only if both replicas of a range are: 1 - (1 - p^2)^10, about 0.1%.
  EXPECT_LT(hedged->latency.QuantileMicros(0.99), 2e3);
  EXPECT_NEAR(FractionAtLeast(*hedged, 100e3), 1 - std::pow(1 - 1e-4, 10), 0.002);
  EXPECT_NEAR(hedged->ExtraRequests(), 0.01, 0.003);  // a hedge per slow request
  EXPECT_EQ(hedged->hedged, hedged->requests - hedged->requests_needed);
}

TEST(Simulator, TiedRequestsOnIdleServersDuplicateTheWork) {
  auto tied = Simulate(Config(10, 2, 0.01, 100, "first+tied", 5000));
  ASSERT_TRUE(tied.ok());
  EXPECT_EQ(tied->tied, 5000u * 10);
  EXPECT_LT(tied->latency.QuantileMicros(0.99), 1e3);
  // Idle servers start both twins at once: each Started reaches the
  // coordinator after the other twin has begun, so most work is done twice
  // (Dean and Barroso's caveat), unless one twin is held back (a delayed
  // twin is cancelled before it starts): (1 - p)^2 of pairs run twice.
  EXPECT_NEAR(tied->ExtraWork(), 0.9801, 0.005);
  EXPECT_EQ(tied->tied_cancelled, tied->tied);  // one Started a pair cancels the other
  EXPECT_NEAR(static_cast<double>(tied->tied_both_started) / tied->tied, 0.9801, 0.005);
}

// Dean and Barroso's remedy: the second twin a little after the first
// (here 0.2 ms, two messages), and only if the first has not started.
TEST(Simulator, TiedRequestsWithADelaySendATwinOnlyWhenTheFirstIsHeld) {
  auto tied = Simulate(Config(10, 2, 0.01, 100, "first+tied-0.2ms", 5000));
  ASSERT_TRUE(tied.ok());
  // A twin for each held first request: p of the 50,000 ranges.
  EXPECT_NEAR(static_cast<double>(tied->tied) / 50000, 0.01, 0.003);
  EXPECT_LT(tied->ExtraWork(), 0.015);
  EXPECT_LT(tied->latency.QuantileMicros(0.99), 1e3);
  EXPECT_LT(FractionAtLeast(*tied, 100e3), 0.002);  // slow only when both twins are held
}

// The delay learned from the other replicas' Started times: once known,
// as few twins as with a fixed delay; before, both at once.
TEST(Simulator, TiedRequestsAfterALearnedDelayLikewise) {
  auto tied = Simulate(Config(10, 2, 0.01, 100, "first+tied-p90", 5000));
  ASSERT_TRUE(tied.ok());
  EXPECT_LT(static_cast<double>(tied->tied) / 50000, 0.15);
  EXPECT_LT(tied->ExtraWork(), 0.15);
  EXPECT_LT(tied->latency.QuantileMicros(0.99), 1e3);
}

TEST(Simulator, TiedRequestsOnABusyServerCancelTheQueuedTwin) {
  // Server 0 is busy (every request waits 5 ms before it runs); server 1 is
  // free: server 1's twin starts at once and server 0's is cancelled queued.
  SimConfig c = Config(2, 2, 0, 0, "first+tied", 2000);
  c.layout = LayoutOf({ClusterRange{0, 0, {"busy", "free"}}});
  c.delays.push_back(*ParseServerDelay("0:1:5"));
  auto r = Simulate(c);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->tied_cancelled, 2000u);
  EXPECT_EQ(r->tied_both_started, 0u);
  EXPECT_NEAR(r->ExtraWork(), 0, 1e-12);
  EXPECT_LT(r->latency.QuantileMicros(1.0), 1e3);
}

TEST(Simulator, DeadlineBoundsLatencyAndFlagsWhatItCut) {
  auto r = Simulate(Config(10, 1, 0.01, 100, "first+deadline-50"));
  ASSERT_TRUE(r.ok());
  EXPECT_LE(r->latency.MaxMicros(), 50e3 + 1);
  EXPECT_NEAR(static_cast<double>(r->partial) / r->queries, 1 - std::pow(0.99, 10), 0.015);
}

TEST(Simulator, AdaptiveSelectionLeavesASlowServer) {
  SimConfig c = Config(2, 2, 0, 0, "first", 2000);
  c.layout = LayoutOf({ClusterRange{0, 0, {"slow", "fast"}}});
  c.delays.push_back(*ParseServerDelay("0:1:5"));
  auto first = Simulate(c);
  c.policy = *ParseSimPolicy("adaptive");
  auto adaptive = Simulate(c);
  ASSERT_TRUE(first.ok() && adaptive.ok());
  EXPECT_EQ(first->requests_by_server[0], 2000u);
  EXPECT_GE(first->latency.QuantileMicros(0.5), 5e3);
  EXPECT_LT(adaptive->requests_by_server[0], 100u);  // probes only
  EXPECT_LT(adaptive->latency.QuantileMicros(0.5), 1e3);
}

// As the real server: a tablet a query's plan left out (sampled 0,0) is
// never held back, so only the queries that need the slow tablet wait.
TEST(Simulator, DelaysHoldOnlyTabletsTheQueryPlanned) {
  SimConfig c = Config(1, 1, 0, 0, "first", 1000);
  c.layout = LayoutOf({ClusterRange{0, 1, {"one"}}});
  c.samples = {QuerySample{"both", 100, {10, 10}, {20, 20}}, QuerySample{"second only", 100, {0, 10}, {0, 20}}};
  c.delays.push_back(*ParseServerDelay("0:1:5"));
  c.delays.back().rule.tablet = 0;  // only tablet 0 is slow
  auto r = Simulate(c);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NEAR(FractionAtLeast(*r, 5e3), 0.5, 1e-9);  // every "both", no "second only"
  EXPECT_LT(r->latency.QuantileMicros(0.25), 1e3);
  // One run of each planned tablet: no work beyond what the plans need
  // (a left-out tablet is not work needed, nor done).
  EXPECT_EQ(r->tasks_needed, 1500u);
  EXPECT_EQ(r->tasks_run, 1500u);
  EXPECT_NEAR(r->ExtraWork(), 0, 1e-12);
}

// Shared cores: two tied twins running at once on one core each take twice
// their measured time (measured: one request per range at once), on two
// cores or unshared their own; a lone request is never slowed.
TEST(Simulator, SharedCoresSlowWhatRunsBesideTheMeasuredLoad) {
  auto p50 = [](const std::string& policy, size_t cores) {
    SimConfig c = Config(2, 2, 0, 0, policy, 100);
    c.layout = LayoutOf({ClusterRange{0, 0, {"a", "b"}}});
    c.samples = Constant(100, 100);  // messages 50 µs each way
    c.cores = cores;
    auto r = Simulate(c);
    EXPECT_TRUE(r.ok());
    return r.ok() ? r->latency.QuantileMicros(0.5) : 0;
  };
  EXPECT_NEAR(p50("first", 0), 200, 3);
  EXPECT_NEAR(p50("first", 1), 200, 3);
  EXPECT_NEAR(p50("first+tied", 0), 200, 3);
  EXPECT_NEAR(p50("first+tied", 2), 200, 3);
  EXPECT_NEAR(p50("first+tied", 1), 300, 4);  // both twins at 1/2 speed: 50 + 200 + 50
}

// More ranges than cores: the samples were measured so, each tablet's time
// already holding the speed-up it got as its siblings finished, so the
// measured configuration replays as measured (overhead + the slowest
// tablet), not faster as the first tablets finish; a tied twin beside them
// still slows every server.
TEST(Simulator, SharedCoresReplayTheMeasuredLoadAsMeasured) {
  auto p50 = [](const std::string& policy, size_t cores, size_t replicas) {
    SimConfig c = Config(4, replicas, 0, 0, policy, 100);
    std::vector<ClusterRange> ranges;
    for (uint32_t t = 0; t < 4; ++t) {
      ClusterRange r{t, t, {"s" + std::to_string(t)}};
      if (replicas == 2) r.replicas.push_back("s" + std::to_string((t + 1) % 4));
      ranges.push_back(r);
    }
    c.layout = LayoutOf(ranges);
    c.samples = {QuerySample{"q", 100, {50, 50, 50, 50}, {100, 200, 300, 400}}};
    c.cores = cores;
    auto r = Simulate(c);
    EXPECT_TRUE(r.ok());
    return r.ok() ? r->latency.QuantileMicros(0.5) : 0;
  };
  EXPECT_NEAR(p50("first", 0, 1), 500, 5);
  EXPECT_NEAR(p50("first", 2, 1), 500, 5);
  EXPECT_NEAR(p50("first", 1, 1), 500, 5);
  EXPECT_GT(p50("first+tied", 2, 2), 550);  // eight requests at once on two cores
}

// Open loop into one server of one worker: M/D/1, whose mean wait is
// rho / (2 mu (1 - rho)) (Pollaczek-Khinchine): service 100 µs at 5,000 a
// second (rho 0.5) waits 50 µs on average.
TEST(Simulator, OpenLoopQueueingMatchesMD1) {
  SimConfig c;
  c.samples = Constant(100);
  c.layout = RingLayout(1, 1, 1);
  c.policy = *ParseSimPolicy("first");
  c.rate_qps = 5000;
  c.queries = 200000;
  auto r = Simulate(c);
  ASSERT_TRUE(r.ok());
  double sum = 0;
  for (double v : r->latencies_us) sum += v;
  EXPECT_NEAR(sum / r->latencies_us.size(), 150, 3);
  EXPECT_NEAR(r->simulated_seconds, 40, 0.5);
}

// Hedging against the query's other ranges (query/sibling_hedge.h). A
// tenth of the queries cost 3 times more on every tablet: past a p80
// threshold on every range, so the threshold alone hedges each of their
// requests, to replicas just as slow. Against the ranges that answered,
// none is late; a request held on a slow server still is, at the threshold.
TEST(Simulator, SiblingHedgesSkipQueriesCostlyOnEveryRange) {
  std::vector<QuerySample> samples;
  for (int i = 0; i < 10; ++i) {
    const double us = i == 0 ? 30 : 10;
    samples.push_back(QuerySample{"q" + std::to_string(i), 20, {us, us}, {us, us}});
  }
  SimConfig c;
  c.samples = samples;
  c.layout = RingLayout(4, 1, 2);  // 4 one-tablet ranges, on servers r and r+1
  c.queries = 5000;
  c.policy = *ParseSimPolicy("first+hedge-p80+siblings-0");
  auto alone = Simulate(c);
  c.policy = *ParseSimPolicy("first+hedge-p80");
  auto siblings = Simulate(c);
  ASSERT_TRUE(alone.ok() && siblings.ok());
  EXPECT_EQ(siblings->hedged, 0u);
  // Every range of the costly tenth (less the first few queries: nothing is
  // hedged before kMinSamples answers), and more: a hedge's twin already
  // running finishes its task, and the next query's cheap request on that
  // server waits behind it past the threshold.
  EXPECT_GE(alone->ExtraRequests(), 0.098);
  EXPECT_LE(siblings->latency.QuantileMicros(0.99), alone->latency.QuantileMicros(0.99));

  // Server 0 holds every request 50 ms: range 0's first replica, which
  // `first` keeps asking. Its requests are hedged once the threshold
  // passes, and not later: a server already seen slower than another
  // replica of the range is suspect, and its requests are hedged on the
  // threshold alone, however costly the query, as without the rule.
  c.delays.push_back(*ParseServerDelay("0:1:50"));
  auto held = Simulate(c);
  c.policy = *ParseSimPolicy("first+hedge-p80+siblings-0");
  auto held_alone = Simulate(c);
  ASSERT_TRUE(held.ok() && held_alone.ok());
  EXPECT_NEAR(static_cast<double>(held->hedged), 5000 - 20, 20);
  EXPECT_LT(held->latency.QuantileMicros(0.99), 1e3);
  EXPECT_LE(held->latency.QuantileMicros(0.99), held_alone->latency.QuantileMicros(0.99) * 1.01);
  EXPECT_EQ(ParseSimPolicy("first+hedge-p95+siblings-3")->hedge_siblings, 3);
  EXPECT_EQ(ParseSimPolicy("first+hedge-p95+siblings-0")->hedge_siblings, 0);
  EXPECT_EQ(ParseSimPolicy("first+hedge-p95")->hedge_siblings, kDefaultHedgeSiblings);
  EXPECT_FALSE(ParseSimPolicy("first+hedge-p95+siblings-x").ok());
  EXPECT_FALSE(ParseSimPolicy("first+hedge-p95+siblings-").ok());
}

// The rule itself, on its edges.
TEST(Simulator, SiblingHedgeWaits) {
  EXPECT_EQ(HedgeWaitUs(100, 0, true, -1), 100);      // off
  EXPECT_EQ(HedgeWaitUs(100, 2, false, -1), 100);     // no sibling: the threshold
  EXPECT_EQ(HedgeWaitUs(100, 2, true, -1), kHedgeLoneFactor * 100);  // siblings all running
  EXPECT_EQ(HedgeWaitUs(100, 2, true, 30), 100);      // a cheap sibling: the threshold
  EXPECT_EQ(HedgeWaitUs(100, 2, false, 300), 600);    // a costly one: twice it
}

// The siblings' median (the upper one of an even count), against sorting.
TEST(Simulator, AnswerMedianMatchesSorting) {
  AnswerMedian m;
  EXPECT_EQ(m.us(), -1);
  std::mt19937_64 rng(5);
  std::vector<double> all;
  for (int i = 0; i < 500; ++i) {
    all.push_back(static_cast<double>(rng() % 1000));
    m.Add(all.back());
    std::vector<double> sorted = all;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(m.us(), sorted[sorted.size() / 2]) << i;
  }
  m.Clear();
  EXPECT_EQ(m.us(), -1);
}

TEST(Simulator, ParsesPoliciesAndDelaysStrictly) {
  auto p = ParseSimPolicy("adaptive+hedge-p95+tied+deadline-50");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->replicas, ReplicaPolicy::kAdaptive);
  EXPECT_EQ(p->hedge_percentile, 95);
  EXPECT_TRUE(p->tied);
  EXPECT_EQ(p->deadline_ms, 50u);
  EXPECT_EQ(ParseSimPolicy("first+hedge-2.5ms")->hedge_ms, 2.5);
  EXPECT_EQ(ParseSimPolicy("first+tied-0.5ms")->tied_delay_ms, 0.5);
  EXPECT_TRUE(ParseSimPolicy("first+tied-0.5ms")->tied);
  EXPECT_EQ(ParseSimPolicy("adaptive+tied-p90")->tied_delay_percentile, 90);
  for (const char* bad : {"", "fastest", "first+hedge-p100", "first+hedge-p95+hedge-3ms", "first+deadline-1.5",
                          "first+tie", "first+", "first+hedge-ms", "first+tied-ms", "first+tied-xms", "first+tied-p100"}) {
    EXPECT_FALSE(ParseSimPolicy(bad).ok()) << bad;
  }
  auto d = ParseServerDelay("3:0.05:100");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->server, 3);
  EXPECT_EQ(d->rule.probability, 0.05);
  EXPECT_EQ(ParseServerDelay("*:1:lognormal(5,1)")->rule.sigma, 1);
  for (const char* bad : {"x:0.1:5", "3", "-1:0.1:5", "3:2:5", "3:0.1:"}) {
    EXPECT_FALSE(ParseServerDelay(bad).ok()) << bad;
  }
  SimConfig c = Config(4, 1, 0, 0, "first", 10);
  c.delays.push_back(*ParseServerDelay("4:1:5"));
  EXPECT_FALSE(Simulate(c).ok());  // servers 0-3
}

// One server of one tablet, policy first; every query's tablet serves for
// `service_us` and is done `done_us` after it could start (the rest is the
// server's hand-offs).
SimConfig HandedOff(double service_us, double done_us, double overhead_us, size_t queries) {
  SimConfig c;
  c.samples = {QuerySample{"q", overhead_us, {service_us}, {done_us}}};
  c.layout = RingLayout(1, 1, 1);
  c.policy = *ParseSimPolicy("first");
  c.queries = queries;
  return c;
}

// Warmth (SimWarmth): a held tablet starts on a machine idle since its
// request arrived (10 ms), so its hand-offs (done - service: 80 µs) run
// 1 + c times slower, c = scale * ln(1 + idle / idle_ms) less what the
// 20 µs of service warmed back (1 / c' = 1 / c + 20 µs / warm_ms). The
// service itself is not stretched, and every query is alike: the hold
// leaves the machine as cold each time.
TEST(Simulator, WarmthStretchesHandOffsAfterAnIdleSpell) {
  SimConfig c = HandedOff(20, 100, 0, 50);
  c.delays.push_back(*ParseServerDelay("*:1:10"));
  auto warm = Simulate(c);
  c.warmth = *ParseSimWarmth("1,1,2");
  auto cold = Simulate(c);
  ASSERT_TRUE(warm.ok() && cold.ok());
  const double after_service = 1 / (1 / std::log(11.0) + 20.0 / 2000);
  for (double us : warm->latencies_us) EXPECT_NEAR(us, 10e3 + 100, 1e-6);
  for (double us : cold->latencies_us) EXPECT_NEAR(us, 10e3 + 20 + 80 * (1 + after_service), 1e-6);
}

// Back to back the machine never idles (a message or a tablet is always
// under way), so warmth changes nothing: the samples are of a warm machine.
// After a held query the next ones are slower and recover one by one.
TEST(Simulator, WarmthRecoversWhileBusy) {
  SimConfig c = HandedOff(20, 100, 20, 200);
  auto warm = Simulate(c);
  c.warmth = *ParseSimWarmth("1,1,2");
  auto same = Simulate(c);
  ASSERT_TRUE(warm.ok() && same.ok());
  ASSERT_EQ(warm->latencies_us.size(), same->latencies_us.size());
  for (size_t i = 0; i < same->latencies_us.size(); ++i) {
    EXPECT_NEAR(warm->latencies_us[i], 120, 1e-6);
    EXPECT_NEAR(same->latencies_us[i], 120, 1e-6);
  }

  c.delays.push_back(*ParseServerDelay("*:0.02:50"));
  c.queries = 20000;
  auto held = Simulate(c);
  ASSERT_TRUE(held.ok());
  size_t checked = 0;
  const auto& l = held->latencies_us;
  for (size_t i = 1; i + 4 < l.size(); ++i) {
    if (l[i - 1] < 50e3 || l[i] >= 50e3 || l[i + 1] >= 50e3 || l[i + 2] >= 50e3 || l[i + 3] >= 50e3) continue;
    // Four queries in a row after a held one: each slower than warm, each
    // faster than the one before.
    EXPECT_GT(l[i + 3], 120 + 1e-6);
    EXPECT_GT(l[i], l[i + 1]);
    EXPECT_GT(l[i + 1], l[i + 2]);
    EXPECT_GT(l[i + 2], l[i + 3]);
    ++checked;
  }
  EXPECT_GT(checked, 100u);
}

TEST(Simulator, ParsesWarmthStrictly) {
  auto w = ParseSimWarmth("0.5,1,2.5");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->scale, 0.5);
  EXPECT_EQ(w->idle_us, 1000);
  EXPECT_EQ(w->warm_us, 2500);
  for (const char* bad : {"", "1,1", "0,1,2", "1,0,2", "-1,1,2", "1,1,2,3", "a,1,2", "1,,2", "1,1,inf"}) {
    EXPECT_FALSE(ParseSimWarmth(bad).ok()) << bad;
  }
}

TEST(Simulator, SamplesRoundTripAndErrorsNameTheLine) {
  BenchRecord a;
  a.id = "q\t1";
  a.total_us = 50;
  a.tablets = {TabletTiming{0, 30, 20, 1}, TabletTiming{2, 40, 35, 1}};
  BenchRecord failed;
  failed.error = "bad";
  const std::string text = FormatSamples({a, failed});
  EXPECT_EQ(text, "# dpsearch bench samples 2\nq 1\t10.0\t20.0,30.0\t0.0,0.0\t35.0,40.0\n");
  auto s = ParseSamples(text, "s.tsv");
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->size(), 1u);
  EXPECT_EQ((*s)[0].overhead_us, 10);
  EXPECT_EQ((*s)[0].tablet_service_us, (std::vector<double>{20, 0, 35}));
  EXPECT_EQ((*s)[0].tablet_done_us, (std::vector<double>{30, 0, 40}));
  EXPECT_EQ(ParseSamples("nope\n", "s.tsv").status().message(),
            "s.tsv:1: not a samples file (the first line must be '# dpsearch bench samples 2')");
  EXPECT_EQ(ParseSamples(text + "q2\t1\t2,2\n", "s.tsv").status().message(),
            "s.tsv:3: 1 tablets, the lines before have 3");
  EXPECT_EQ(ParseSamples(text + "q2\t1\t2,2\tnan,1\t3,3\n", "s.tsv").status().message(),
            "s.tsv:3: field 4 'nan,1' is not SERVICE_US,DONE_US (numbers >= 0)");
  EXPECT_EQ(ParseSamples(text + "q2\t-1\t2,2\t1,1\t3,3\n", "s.tsv").status().message(),
            "s.tsv:3: field 2 '-1' is not a finite number >= 0");
  EXPECT_FALSE(ParseSamples(text + "q2\t1\t2\t1,1\t3,3\n", "s.tsv").ok());
  EXPECT_FALSE(ParseSamples("# dpsearch bench samples 2\n", "s.tsv").ok());
  // An open loop's start lag is not the query's overhead.
  a.start_lag_us = 4;
  EXPECT_EQ(FormatSamples({a}), "# dpsearch bench samples 2\nq 1\t6.0\t20.0,30.0\t0.0,0.0\t35.0,40.0\n");
}

}  // namespace
}  // namespace dps
