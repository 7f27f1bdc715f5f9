// `dpsearch bench`: straggler measurement (DESIGN.md "Straggler latency").
// Runs a query file (optionally repeated, optionally with C concurrent
// clients) against a local index or a cluster and records, per query and
// per tablet: queue wait, service time, results; per query: total
// latency, time to first result, the last tablet and the straggler ratio
// (slowest tablet / median tablet: DESIGN.md's shard ratio, taken per
// tablet). Summaries are percentiles over queries.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "query/batch.h"
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
  double total_us = 0;
  double ttfr_us = -1;
  uint64_t results = 0;
  int64_t last_tablet = -1;
  double straggler_ratio = 0;  // slowest / median tablet; 0 with fewer than two tablets
  bool partial = false;
  uint64_t requests = 0, hedged = 0, failovers = 0;
  std::vector<std::string> asked;  // each request's server (SearchStats::asked)
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

struct BenchOptions {
  BenchMode mode;
  size_t repeat = 1;
  size_t concurrency = 1;
  unsigned warmup_passes = 1;  // passes over the file before measuring (not recorded)
};

struct Percentiles {
  double p50 = 0, p95 = 0, p99 = 0, max = 0;
};
Percentiles ComputePercentiles(std::vector<double> values);

struct BenchSummary {
  BenchMode mode;
  size_t queries = 0;
  uint64_t requests = 0, hedged = 0, failovers = 0, partial = 0, errors = 0;
  uint64_t index_errors = 0;  // of `errors`
  // Each failed query once, in the order first seen, with its first error.
  std::vector<std::pair<std::string, std::string>> failed;
  Percentiles total, ttfr, straggler;
  double wall_seconds = 0;
  std::map<uint32_t, Percentiles> tablet_done;  // by tablet
  std::map<uint32_t, uint64_t> finished_last;      // how often each tablet finished last
  std::map<std::string, uint64_t> requests_by_server;  // over servers: where the requests went
};

Status RunBench(const RunnerFactory& factory, const std::vector<BatchQuery>& queries,
                const BenchOptions& options, std::vector<BenchRecord>* records,
                BenchSummary* summary);

// The object DESIGN.md defines for `--json`, on one line.
std::string BenchJson(const BenchSummary& summary);
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
