// How long a range's request waits before it is hedged, given how its
// query's other ranges fared (issue 20). The learned threshold alone
// (hedge_thresholds.h) is a percentile over every query: the costliest
// queries pass it on every range, healthy or not, so a p95 hedge
// duplicates the costliest 5% of the work and finds nothing faster (the
// other replica is as slow for them). In a document-partitioned index a
// query costs about the same on every range, so the ranges that already
// answered tell what this one should take: the request is late only past
// `ratio` times the slowest of them. Progress relative to one's peers is
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

// The wait in µs from the request's send. `threshold_us` > 0: the learned
// or fixed hedge delay; `ratio` <= 0: that alone. `siblings_running`: other
// ranges of the query still owe their answer; `slowest_sibling_us` < 0:
// none has answered, else the longest a sibling's answering request took
// (its own send to its answer).
inline double HedgeWaitUs(double threshold_us, double ratio, bool siblings_running, double slowest_sibling_us) {
  if (ratio <= 0) return threshold_us;
  if (slowest_sibling_us >= 0) return std::max(threshold_us, ratio * slowest_sibling_us);
  return siblings_running ? kHedgeLoneFactor * threshold_us : threshold_us;
}

}  // namespace dps
