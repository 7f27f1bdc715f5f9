// When to hedge a request (--hedge-after pNN): after the pNN of what a
// healthy answer for its range takes (issue 20), learned from the other
// replicas of the range: the lowest pNN among them of their recent
// complete answers for it. Never the asked server's own answers, so a
// degraded server cannot drag up the threshold of the requests it is slow
// on; and not one global percentile, which fails once more than
// (100 - NN)% of all answers are slow (the percentile itself is then slow
// and the hedge fires too late). Until another replica of the range has
// kMinSamples answers for it, the pNN of every answer from the other
// servers (any range) stands in; before that nothing is hedged.
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
  std::map<std::pair<size_t, std::string>, Window> by_replica_;  // (range, server)
  std::map<std::string, Window> by_server_;                      // any range
  // DelayUs per range, recomputed after kRefresh more answers (a
  // percentile over the windows costs a copy and a selection).
  static constexpr size_t kRefresh = 16;
  struct Cached {
    double percentile = -1;
    size_t at_answer = 0;
    double us = -1;
  };
  mutable std::map<std::pair<size_t, std::string>, Cached> cache_;  // (range, asked)
  size_t answers_ = 0;
};

}  // namespace dps
