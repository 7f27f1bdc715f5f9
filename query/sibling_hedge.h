// How long a range's request waits before it is hedged, given how its
// query's other ranges fared (issue 20). The learned threshold alone
// (hedge_thresholds.h) is a percentile over every query: the costliest
// queries pass it on every range, healthy or not, so a p95 hedge
// duplicates the costliest 5% of the work and finds nothing faster (the
// other replica is as slow for them). In a document-partitioned index a
// query costs about the same on every range, so the ranges that already
// answered tell what this one should take: the request is late only past
// `ratio` times their median. Progress relative to one's peers is
// how MapReduce picks tasks to run speculatively (Zaharia et al., "Improving
// MapReduce Performance in Heterogeneous Environments" (LATE), OSDI 2008).
//
// A request to a server already seen slower than another replica of its
// range (ReplicaSelector::AmongBest false) is suspect and is hedged on the
// threshold alone (`ratio` 0): a held request of a costly query would
// otherwise wait twice its siblings' time, which costs most where a slow
// server keeps being asked (the `first` policy).
//
// On gcide's 300 queries at 4 servers (two ranges), the healthy range took
// more than twice its sibling's time and more than the p95 threshold for
// 0.1% of counting and 0.9% of ranked requests, against 5% for the
// threshold alone (bench/RESULTS.md, session 20).
#pragma once

#include <algorithm>
#include <functional>
#include <queue>
#include <vector>

namespace dps {

// `--hedge-siblings` unless given: see the measurements above.
inline constexpr double kDefaultHedgeSiblings = 2;

// With no sibling answered yet while some still run, the whole query is
// slow so far: the hedge waits this many thresholds, or until a sibling
// answers, whichever tells first. The costliest gcide queries take 2.4 to
// 3.5 times the p95 of a range's answers (4 and 8 servers, counting and
// ranked), so a p95 threshold times 4 leaves them alone; several ranges
// held back at once are still hedged.
inline constexpr double kHedgeLoneFactor = 4;

// The median of the times the query's ranges took to answer (the upper
// one of an even count), kept in two heaps: a thousand ranges cost
// log(n) an answer. The median, not the slowest: at a wide fan-out the
// slowest of the ranges that answered is itself a tail sample (at 64
// servers the simulated p99 of hedge p95 rose from 1.2 to 2.1 ms with the
// slowest, bench/RESULTS.md session 20), while a query costly everywhere
// still has a costly median.
class AnswerMedian {
 public:
  void Add(double us) {
    if (low_.empty() || us <= low_.top()) {
      low_.push(us);
    } else {
      high_.push(us);
    }
    if (low_.size() > high_.size() + 1) {
      high_.push(low_.top());
      low_.pop();
    } else if (high_.size() > low_.size()) {
      low_.push(high_.top());
      high_.pop();
    }
  }
  // < 0 when nothing was added.
  double us() const {
    if (low_.empty()) return -1;
    return low_.size() > high_.size() || high_.empty() ? low_.top() : high_.top();
  }
  void Clear() { *this = AnswerMedian(); }

 private:
  std::priority_queue<double> low_;                                              // the lower half, max on top
  std::priority_queue<double, std::vector<double>, std::greater<double>> high_;  // the upper half, min on top
};

// The wait in µs from the request's send. `threshold_us` > 0: the learned
// or fixed hedge delay; `ratio` <= 0: that alone. `siblings_running`: other
// ranges of the query still owe their answer; `sibling_median_us` < 0:
// none has answered, else the median time the siblings' answering
// requests took (their own send to their answer: AnswerMedian).
inline double HedgeWaitUs(double threshold_us, double ratio, bool siblings_running, double sibling_median_us) {
  if (ratio <= 0) return threshold_us;
  if (sibling_median_us >= 0) return std::max(threshold_us, ratio * sibling_median_us);
  return siblings_running ? kHedgeLoneFactor * threshold_us : threshold_us;
}

}  // namespace dps
