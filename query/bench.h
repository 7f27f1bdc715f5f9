// `dpsearch bench`: straggler measurement (DESIGN.md "Straggler latency").
// Runs a query file against a local index or a cluster, closed loop (C
// clients, each asking its next query when the last is answered) or open
// loop (Poisson arrivals at a given rate, each query's latency taken from
// the moment it was due, so a stall shows in every query it delays: no
// coordinated omission), for N passes or S seconds. Records, per query and
// per tablet: queue wait, service time, results; per query: total latency,
// time to first result, the last tablet and the straggler ratio (slowest
// tablet / median tablet: DESIGN.md's shard ratio, taken per tablet).
// Summaries are percentiles over queries, kept in log-linear histograms
// (query/latency_histogram.h) so that memory does not grow with the run.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/status.h"
#include "query/batch.h"
#include "query/latency_histogram.h"
#include "query/searcher.h"

namespace dps {

struct TabletTiming {
  uint32_t tablet = 0;
  double done_us = 0;  // from fan-out to the tablet's last bin finishing (wait + service)
  double service_us = 0;  // sum of its bins' service times
  uint64_t results = 0;
};

struct BenchRecord {
  std::string id;
  // What the user waited: from the moment the query was due (open loop:
  // its scheduled arrival; closed loop: when its client asked) to its answer.
  double total_us = 0;
  double start_lag_us = 0;  // open loop: how late it started (every client busy, or the timer)
  double ttfr_us = -1;
  uint64_t results = 0;
  int64_t last_tablet = -1;
  double straggler_ratio = 0;  // slowest / median tablet; 0 with fewer than two tablets
  bool partial = false;
  uint64_t requests = 0, hedged = 0, failovers = 0;
  uint64_t tied = 0, tied_cancelled = 0, tied_both_started = 0, wasted_bins = 0;  // SearchStats'
  std::vector<std::string> asked;  // each request's server (SearchStats::asked)
  std::vector<uint64_t> generations;  // SearchStats::generations
  std::vector<BinTiming> bins;
  std::vector<TabletTiming> tablets;  // ascending
  std::string error;
  bool index_error = false;  // the index or a server failed, not the query text
};

// Fills tablets, last_tablet and straggler_ratio from bins.
void SummarizeTablets(BenchRecord* record);

// Runs one query text; called concurrently from `concurrency` threads, each
// with its own runner (runners are made by the factory once per thread).
using QueryRunner = std::function<BenchRecord(const std::string& text)>;
using RunnerFactory = std::function<Result<QueryRunner>()>;

// What each query of a bench does: the runners do it (SearchRunners), and
// the summary records it so that every report says what was measured.
struct BenchMode {
  bool fetch = false;  // ids and titles fetched, not counted
  // > 0: ranked, each query's K best by BM25 (ids and titles fetched): the
  // straggler case at its worst, since the answer waits for every bin.
  size_t top_k = 0;
  Bm25Params bm25;
  uint64_t max_expansions = kDefaultMaxExpansions;  // SearchOptions'
  // "count", "fetch", or "ranked top 10 (BM25 k1 1.2, b 0.75)".
  std::string Describe() const;
};

// How the queries are offered.
struct BenchLoad {
  // > 0: open loop, arrivals on a Poisson schedule at this mean rate (a
  // seeded generator: the same schedule every run). 0: closed loop.
  double rate_qps = 0;
  size_t concurrency = 1;      // closed loop: clients
  size_t max_in_flight = 32;   // open loop: queries running at once (later arrivals wait, and it counts)
  size_t repeat = 1;           // passes over the file...
  double duration_seconds = 0;  // ...or, when > 0, arrivals (or asks) for this long instead
  uint64_t seed = 1;
  bool open() const { return rate_qps > 0; }
  // "closed loop, 4 clients, 3 passes" / "open loop, 800 qps Poisson, 10 s"
  std::string Describe() const;
};

// Due times of a Poisson process (exponential gaps, mean 1/rate), in µs
// from the start; the same sequence for the same seed.
class PoissonSchedule {
 public:
  PoissonSchedule(double rate_qps, uint64_t seed) : rng_(seed), gap_(rate_qps / 1e6) {}
  double Next() {
    const double due = at_us_;
    at_us_ += gap_(rng_);
    return due;
  }

 private:
  double at_us_ = 0;
  std::mt19937_64 rng_;
  std::exponential_distribution<double> gap_;
};

struct BenchOptions {
  BenchMode mode;
  BenchLoad load;
  unsigned warmup_passes = 1;  // passes over the file before measuring (not recorded)
  // The records handed back: every query's while there are fewer, then a
  // uniform sample (reservoir) of this many. Summaries count every query.
  size_t keep_records = 10000;
};

struct Percentiles {
  double p50 = 0, p90 = 0, p95 = 0, p99 = 0, p999 = 0, max = 0;
};
Percentiles ComputePercentiles(std::vector<double> values);  // exact, nearest rank
Percentiles ComputePercentiles(const LatencyHistogram& histogram);  // within 0.8%, never below

struct BenchSummary {
  BenchMode mode;
  BenchLoad load;
  size_t queries = 0;
  uint64_t requests = 0, hedged = 0, failovers = 0, partial = 0, errors = 0;
  uint64_t index_errors = 0;  // of `errors`
  uint64_t tied = 0, tied_cancelled = 0, tied_both_started = 0;
  uint64_t wasted_bins = 0, bins = 0;  // bins run for nothing (SearchStats::wasted_bins); bins answered
  // Over servers: queries answered (in part) by each index generation.
  std::map<uint64_t, uint64_t> queries_by_generation;
  // Each failed query once, in the order first seen, with its first error.
  std::vector<std::pair<std::string, std::string>> failed;
  Percentiles total, ttfr, straggler;
  Percentiles service;    // from each query's actual start (open loop: total minus start lag)
  Percentiles start_lag;  // open loop: how late queries started
  LatencyHistogram total_histogram;
  double wall_seconds = 0;  // from the first arrival to the last answer
  double achieved_qps = 0;  // queries answered (or failed) per wall second
  // Open loop: the run passed twice its planned length and a second, so it
  // stopped sending; arrivals due from `unsent_from_seconds` on were not
  // sent (`unsent` of them in a run of passes). Saturated, never silent.
  bool stopped_early = false;
  double unsent_from_seconds = 0;
  uint64_t unsent = 0;
  std::map<uint32_t, Percentiles> tablet_done;  // by tablet
  std::map<uint32_t, LatencyHistogram> tablet_histograms;
  std::map<uint32_t, uint64_t> finished_last;      // how often each tablet finished last
  std::map<std::string, uint64_t> requests_by_server;  // over servers: where the requests went
};

Status RunBench(const RunnerFactory& factory, const std::vector<BatchQuery>& queries,
                const BenchOptions& options, std::vector<BenchRecord>* records,
                BenchSummary* summary);

// The object DESIGN.md defines for `--json`, on one line.
std::string BenchJson(const BenchSummary& summary);

// A rate sweep (`bench --rate 200,400,...`): one open-loop run per rate,
// ascending, and the knee: the highest rate sustained before the first that
// saturates (achieved below 95% of offered, or p99 above 10 times the
// lowest rate's p99). -1 when even the lowest saturates.
Status RunRateSweep(const RunnerFactory& factory, const std::vector<BatchQuery>& queries,
                    const BenchOptions& options, const std::vector<double>& rates,
                    std::vector<BenchSummary>* summaries, std::vector<BenchRecord>* last_records);
int KneeOf(const std::vector<BenchSummary>& sweep);
bool Saturated(const BenchSummary& point, const BenchSummary& lowest);
// One object: the knee's figures at the top (DESIGN.md's fields), every rate under "sweep".
std::string SweepJson(const std::vector<BenchSummary>& sweep);
std::string SweepText(const std::vector<BenchSummary>& sweep);
std::string SweepHtml(const std::vector<BenchSummary>& sweep, const std::string& title);
// A human-readable table.
std::string BenchText(const BenchSummary& summary);
// A self-contained HTML page (inline SVG, no network): latency CDF per
// tablet, which tablet finished last, and the fan-out timeline of the query
// closest to the median.
std::string BenchHtml(const BenchSummary& summary, const std::vector<BenchRecord>& records,
                      const std::string& title);

}  // namespace dps

#include <memory>

#include "query/searcher.h"

namespace dps {

// Makes one searcher per bench client thread.
using SearcherFactory = std::function<Result<std::unique_ptr<Searcher>>()>;

// Runners doing what `mode` says, each over its own searcher and analyzer.
RunnerFactory SearchRunners(SearcherFactory make_searcher, BenchMode mode);

}  // namespace dps
