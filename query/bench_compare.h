// `dpsearch report`: one self-contained HTML page comparing the
// configurations of one experiment from the JSON that `bench --json`,
// `bench --rate A,B --json` and `simulate --json` print (one object a line;
// bench/straggler.sh's lines add "config" and "round"): latency CDFs of the
// bench runs overlaid per mode and load (rounds of one configuration
// merged through their histograms), latency against offered load for each
// sweep, and tail against fan-out for each simulation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "query/bench.h"
#include "query/latency_histogram.h"

namespace dps {

struct ComparedRun {
  std::string name;   // "config", else the file's name
  std::string group;  // "count, closed loop", "ranked, open loop", ...
  LatencyHistogram latency;  // the rounds' histograms merged
  size_t rounds = 0;
  uint64_t queries = 0, requests = 0, hedged = 0, partial = 0;
};

struct ComparedSweep {
  std::string name;
  std::vector<BenchSummary> points;  // load.rate_qps, achieved_qps, total percentiles
};

struct ComparedSimRow {
  std::string simulation, policy;
  double servers = 0, p50_us = 0, p99_us = 0, p999_us = 0, extra_work = 0;
};

struct Comparison {
  std::vector<ComparedRun> runs;
  std::vector<ComparedSweep> sweeps;
  std::vector<ComparedSimRow> simulated;
  std::vector<std::string> skipped;  // lines without a latency histogram: named on the page
};

// Adds every line of `text` (from `source`); errors name the source and line.
Status AddToComparison(const std::string& text, const std::string& source, Comparison* c);
std::string ComparisonHtml(const Comparison& c, const std::string& title);

}  // namespace dps
