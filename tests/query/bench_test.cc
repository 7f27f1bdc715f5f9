// RunBench's loops with a scripted runner (no index): what is counted, what
// is kept, and where open-loop latency is measured from.
#include "query/bench.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <thread>

namespace dps {
namespace {

std::vector<BatchQuery> Queries(size_t n) {
  std::vector<BatchQuery> q;
  for (size_t i = 0; i < n; ++i) {
    // Appended, not `"q" + to_string(i)`: GCC 12 warns falsely on that (-Wrestrict, PR 105329).
    BatchQuery query;
    query.id = "q";
    query.id += std::to_string(i);
    query.text = "word";
    query.text += std::to_string(i);
    q.push_back(std::move(query));
  }
  return q;
}

RunnerFactory Instant() {
  return [] {
    return QueryRunner([](const std::string&) {
      BenchRecord r;
      r.total_us = 10;
      return r;
    });
  };
}

TEST(Bench, ClosedLoopRunsEveryQueryOfEveryPass) {
  BenchOptions o;
  o.load.repeat = 3;
  o.load.concurrency = 4;
  std::vector<BenchRecord> records;
  BenchSummary s;
  ASSERT_TRUE(RunBench(Instant(), Queries(5), o, &records, &s).ok());
  EXPECT_EQ(s.queries, 15u);
  std::map<std::string, int> seen;
  for (const auto& r : records) ++seen[r.id];
  ASSERT_EQ(seen.size(), 5u);
  for (const auto& [id, n] : seen) EXPECT_EQ(n, 3) << id;
  EXPECT_FALSE(s.load.open());
  EXPECT_DOUBLE_EQ(s.total.p50, 10);
}

TEST(Bench, KeepsASampleOfRecordsButCountsEveryQuery) {
  BenchOptions o;
  o.load.repeat = 50;
  o.keep_records = 7;
  std::vector<BenchRecord> records;
  BenchSummary s;
  ASSERT_TRUE(RunBench(Instant(), Queries(4), o, &records, &s).ok());
  EXPECT_EQ(s.queries, 200u);
  EXPECT_EQ(records.size(), 7u);
  EXPECT_EQ(s.total_histogram.count(), 200u);
}

TEST(Bench, PoissonScheduleHasTheRateAndIsReproducible) {
  PoissonSchedule a(2000, 42), b(2000, 42), c(2000, 43);
  double last = a.Next();
  EXPECT_EQ(last, 0);
  EXPECT_EQ(b.Next(), 0);
  c.Next();
  double sum = 0, sum_sq = 0;
  const int n = 200000;
  bool differs = false;
  for (int i = 0; i < n; ++i) {
    const double due = a.Next();
    ASSERT_EQ(due, b.Next());
    differs |= due != c.Next();
    const double gap = due - last;
    last = due;
    sum += gap;
    sum_sq += gap * gap;
  }
  EXPECT_TRUE(differs);
  const double mean = sum / n, sd = std::sqrt(sum_sq / n - mean * mean);
  EXPECT_NEAR(mean, 500.0, 5.0);  // µs between arrivals at 2,000 a second
  EXPECT_NEAR(sd / mean, 1.0, 0.02);  // exponential gaps: coefficient of variation 1
}

// A stall in the system: one query holds a lock every query needs for
// 300 ms. The open loop keeps offering queries on schedule, so every query
// due during the stall waits for it and says so; measured from when each
// query actually started (what a closed loop does) only the few already
// running see it.
TEST(Bench, OpenLoopCountsAStallInEveryQueryItDelays) {
  auto system = std::make_shared<std::mutex>();
  RunnerFactory stalling = [system] {
    return QueryRunner([system](const std::string& text) {
      const auto start = std::chrono::steady_clock::now();
      {
        std::lock_guard lock(*system);
        if (text == "stall") std::this_thread::sleep_for(std::chrono::milliseconds(300));
      }
      BenchRecord r;
      r.total_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
      return r;
    });
  };
  std::vector<BatchQuery> queries = Queries(600);
  queries[0].text = "stall";  // due first, at time 0
  BenchOptions o;
  o.warmup_passes = 0;
  o.load.rate_qps = 1000;
  o.load.max_in_flight = 4;
  std::vector<BenchRecord> records;
  BenchSummary open;
  ASSERT_TRUE(RunBench(stalling, queries, o, &records, &open).ok());
  ASSERT_EQ(records.size(), 600u);
  size_t slow = 0, slow_service = 0;
  for (const auto& r : records) {
    slow += r.total_us >= 100e3;
    slow_service += r.total_us - r.start_lag_us >= 100e3;
  }
  // About 200 queries are due in the stall's first 200 ms.
  EXPECT_GE(slow, 100u);
  EXPECT_LE(slow_service, 4u);  // the stalled query and those blocked beside it
  EXPECT_GE(open.total.p50, 10e3);
  EXPECT_TRUE(open.load.open());

  o.load = BenchLoad();
  o.load.concurrency = 4;
  BenchSummary closed;
  ASSERT_TRUE(RunBench(stalling, queries, o, &records, &closed).ok());
  size_t closed_slow = 0;
  for (const auto& r : records) closed_slow += r.total_us >= 100e3;
  EXPECT_LE(closed_slow, 4u);
  EXPECT_LT(closed.total.p50, 10e3);
}

TEST(Bench, DurationBoundsTheRunInsteadOfPasses) {
  BenchOptions o;
  o.warmup_passes = 0;
  o.load.rate_qps = 500;
  o.load.duration_seconds = 0.2;
  std::vector<BenchRecord> records;
  BenchSummary s;
  ASSERT_TRUE(RunBench(Instant(), Queries(3), o, &records, &s).ok());
  // Poisson arrivals for 0.2 s at 500 a second: 100 expected; the passes over
  // a file of 3 do not stop it.
  EXPECT_GT(s.queries, 50u);
  EXPECT_LT(s.queries, 160u);
}

// Offered 1,000 a second to a system that answers 100 a second:
// the run stops sending at twice its planned length and a second, and says
// so, rather than working off the backlog for as long as it lasts.
TEST(Bench, AnOpenLoopThatFallsBehindStopsAndSaysSo) {
  RunnerFactory slow = [] {
    return QueryRunner([](const std::string&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      BenchRecord r;
      r.total_us = 10000;
      return r;
    });
  };
  BenchOptions o;
  o.warmup_passes = 0;
  o.load.rate_qps = 1000;
  o.load.repeat = 2;  // 2 x 300 = 600 queries: 0.6 s planned, 6 s at 100 a second
  o.load.max_in_flight = 1;
  std::vector<BenchRecord> records;
  BenchSummary s;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(RunBench(slow, Queries(300), o, &records, &s).ok());
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(s.stopped_early);
  EXPECT_LT(took, 5);  // 2 x 0.6 + 1 s, and the query in flight
  EXPECT_EQ(s.queries + s.unsent, 600u);
  EXPECT_GT(s.unsent, 300u);
  EXPECT_NEAR(s.unsent_from_seconds, static_cast<double>(s.queries) / 1000, 0.15);
  EXPECT_NE(BenchText(s).find("stopped early"), std::string::npos);
  EXPECT_NE(BenchJson(s).find("\"stopped_early\":true"), std::string::npos);
  EXPECT_TRUE(Saturated(s, s));
}

TEST(Bench, SweepFindsTheKnee) {
  auto point = [](double offered, double achieved, double p99) {
    BenchSummary s;
    s.load.rate_qps = offered;
    s.achieved_qps = achieved;
    s.total.p99 = p99;
    return s;
  };
  // Keeps up to 400; at 800 the tail explodes; at 1600 it falls behind.
  std::vector<BenchSummary> sweep = {point(100, 100, 50), point(200, 199, 60), point(400, 396, 200),
                                     point(800, 790, 900), point(1600, 1000, 5000)};
  EXPECT_EQ(KneeOf(sweep), 2);
  EXPECT_TRUE(Saturated(sweep[3], sweep[0]));
  EXPECT_TRUE(Saturated(sweep[4], sweep[0]));
  EXPECT_EQ(KneeOf({point(100, 80, 50)}), -1);
  const std::string json = SweepJson(sweep);
  EXPECT_NE(json.find("\"knee_qps\":400"), std::string::npos) << json;
  EXPECT_NE(json.find("\"offered_qps\":1600"), std::string::npos);
  EXPECT_NE(SweepText(sweep).find("knee: 400.0 qps"), std::string::npos);
}

}  // namespace
}  // namespace dps
