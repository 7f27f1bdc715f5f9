// The last step of a ranked query (issue 18), in-process and over servers
// alike: every bin's best-first list merged in the one documented order
// (shards/top_k.h RanksBefore) into the query's K best, the offset
// skipped, and the rest cut into runs of consecutive results of one bin,
// each a BinResult a ResultStream delivers as it does any bin.
//
// The merge is lazy, a heap of the bins' next results: the K best come
// out already in order (no collector to fill and sort), and each run goes
// into the caller's BinResult, reusing its buffers (a top 10 spread over
// its bins is a handful of runs, and a BinResult apiece cost more than
// the merge).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "shards/bin_executor.h"
#include "shards/top_k.h"

namespace dps {

class RankedRuns {
 public:
  // `bins`: one BinResult per bin (no bin twice), docs best first with
  // their scores, and stored records parallel to docs or none; they must
  // outlive this. Next moves the stored records of the kept docs into the
  // runs.
  RankedRuns(std::span<BinResult> bins, size_t top_k, size_t offset);

  // Of the offset: min(offset, what the bins had).
  uint64_t skipped() const { return skipped_; }

  // The next run, best first, into *run: every field of it is replaced
  // (its vectors keep their capacity); false once every run is out.
  bool Next(BinResult* run);

 private:
  struct Head {
    ScoredDoc doc;  // its next result
    size_t bin;     // in *bins_
    size_t at;      // doc's index there
  };
  // Passes the best head's result (to a run or the skip).
  void Pop();

  std::span<BinResult> bins_;
  std::vector<Head> heads_;  // the bins with results left: a heap, the best result in front
  uint64_t skipped_ = 0;
  size_t left_ = 0;          // results the runs still hand out
};

}  // namespace dps
