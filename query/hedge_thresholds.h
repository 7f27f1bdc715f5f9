// When to hedge a request (--hedge-after pNN): after the pNN of what a
// healthy answer for its range takes (issue 20), learned from the other
// replicas of the range: the lowest pNN among them of their recent
// complete answers for it. Never the asked server's own answers, so a
// degraded server cannot drag up the threshold of the requests it is slow
// on; and not one global percentile, which fails once more than
// (100 - NN)% of all answers are slow (the percentile itself is then slow
// and the hedge fires too late). Until another replica of the range has
// kMinSamples answers for it, the pNN of every answer from the other
// servers (any range) stands in; before that nothing is hedged. That pool
// is kept as counts in log-linear buckets (query/latency_histogram.h), so
// its percentile is within 0.8% above the exact one and costs the same
// however many servers answered: a thousand-server cluster (or
// `dpsearch simulate`) must not copy a million answers per request.
//
// One per cluster client (its query thread): not thread-safe.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dps {

class HedgeThresholds {
 public:
  static constexpr size_t kWindow = 256;      // recent answers kept per (range, replica)
  static constexpr size_t kMinSamples = 20;   // before a replica's percentile counts
  static constexpr size_t kServerWindow = 1000;  // a server's answers for any range

  // A complete answer for range `range` (its index in the cluster file)
  // from `server` took `us`.
  void Record(size_t range, const std::string& server, double us);
  // The hedge delay of a request for `range` asked of `asked`, in
  // microseconds, at `percentile` (0-100 exclusive); < 0 when too little
  // is known.
  double DelayUs(size_t range, const std::string& asked, double percentile) const;

 private:
  struct Window {
    std::vector<double> us;
    size_t next = 0;
    void Add(double v, size_t cap);
    double Percentile(double p) const;
    static double Percentile(std::vector<double> v, double p);
  };
  // The pool's percentile without `asked`'s answers; < 0 below kMinSamples.
  double PooledUs(const std::string& asked, double percentile) const;

  std::map<std::pair<size_t, std::string>, Window> by_replica_;  // (range, server)
  std::map<std::string, Window> by_server_;                      // any range
  std::vector<uint64_t> pool_;  // every by_server_ window's answers, by LatencyHistogram bucket
  size_t pool_size_ = 0;
  std::map<size_t, size_t> range_answers_;  // by range
  std::map<size_t, size_t> eligible_;       // by range: replicas with kMinSamples answers
  // DelayUs per (range, asked), recomputed after kRefresh more answers for
  // the range, or, when it came from the pool, once an eighth of the pool
  // is new or a replica of the range became eligible.
  static constexpr size_t kRefresh = 16;
  struct Cached {
    double percentile = -1;
    size_t at_range_answer = 0, at_answer = 0, eligible = 0;
    bool from_pool = false;
    double us = -1;
  };
  mutable std::map<std::pair<size_t, std::string>, Cached> cache_;  // (range, asked)
  size_t answers_ = 0;
};

}  // namespace dps
