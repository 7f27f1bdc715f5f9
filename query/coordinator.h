// The in-process coordinator: fans a plan out over the shards of an opened
// index with oneTBB, one task per candidate bin, and streams each bin's
// results to the caller's thread as soon as that bin finishes (unordered
// across bins, docid order within a bin). A limit cancels the remaining
// work. Records per-bin queue wait and service time, and per query the time
// to first and last result and which tablet finished last.
//
// Thread-safety: one Coordinator may run one query at a time; Run calls
// `on_result` only from the calling thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "common/status.h"
#include "index/index_reader.h"
#include "query/planner.h"
#include "shards/delay.h"
#include "shards/shard.h"

namespace dps {

struct SearchOptions {
  bool count_only = false;
  size_t limit = 0;  // 0: all results
  // Plans estimated to touch fewer postings run on the calling thread: waking
  // workers costs more than such a query (gcide, 2 cores: a parallel p50 of
  // 74 us against 19 us inline), while big ones gain from the fan-out.
  uint64_t parallel_threshold = 20'000;
  // --inject-delay: sleep before evaluating a bin of a chosen tablet (the
  // sleep counts as queue wait, as in a server).
  DelayInjector* delays = nullptr;
};

struct BinTiming {
  uint32_t bin = 0;
  uint32_t tablet = 0;
  double queue_wait_us = 0;  // from fan-out to the task starting
  double service_us = 0;     // the bin's evaluation
  uint64_t results = 0;
  bool fast_path = false;
};

struct QueryStats {
  double total_us = 0;
  double ttfr_us = -1;  // first result delivered; -1 if none
  double ttlr_us = -1;  // last result delivered
  int64_t last_tablet = -1;  // the tablet whose bin finished last
  uint64_t results = 0;
  uint64_t bins_visited = 0;
  bool cancelled = false;
  std::vector<BinTiming> bins;  // in completion order
};

class Coordinator {
 public:
  // One in-process shard per tablet. `threads` = 0: all cores.
  Coordinator(const IndexReader* index, unsigned threads);
  ~Coordinator();

  // Returns false from `on_result` to stop early (like a limit). `stats` may
  // be null: then nothing is timed (no clock reads).
  using ResultSink = std::function<bool(const BinResponse& response)>;
  Status Run(const QueryPlan& plan, const SearchOptions& options, const ResultSink& on_result,
             QueryStats* stats);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dps
