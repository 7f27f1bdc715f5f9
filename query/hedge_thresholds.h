// When to hedge a range's request (--hedge-after pNN): after the pNN of
// what a healthy answer for that range takes, learned per range from each
// replica's recent complete answers, and taken from the replica whose pNN
// is lowest (issue 20). One global percentile fails once more than
// (100 - NN)% of all answers are slow: the percentile itself is then slow
// and the hedge fires too late; a slow server's own percentile would
// likewise drag its range's threshold up. A range none of whose replicas
// has kMinSamples answers yet uses the pNN over every answer, and before
// that nothing is hedged.
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
  static constexpr size_t kGlobalWindow = 1000;

  // A complete answer for range `range` (its index in the cluster file)
  // from `server` took `us`.
  void Record(size_t range, const std::string& server, double us);
  // The hedge delay for `range` in microseconds at `percentile` (0-100
  // exclusive); < 0 when too little is known.
  double DelayUs(size_t range, double percentile) const;

 private:
  struct Window {
    std::vector<double> us;
    size_t next = 0;
    void Add(double v, size_t cap);
    double Percentile(double p) const;
  };
  std::map<std::pair<size_t, std::string>, Window> by_replica_;
  Window all_;
  // DelayUs per range, recomputed after kRefresh more answers (a
  // percentile over the windows costs a copy and a selection).
  static constexpr size_t kRefresh = 16;
  struct Cached {
    double percentile = -1;
    size_t at_answer = 0;
    double us = -1;
  };
  mutable std::map<size_t, Cached> cache_;
  size_t answers_ = 0;
};

}  // namespace dps
