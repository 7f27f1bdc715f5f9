// The last step of a ranked query (issue 18), in-process and over servers
// alike: every bin's best-first list merged into the query's K best (a
// TopK, shards/top_k.h, the one documented order), the offset skipped, and
// the rest cut into runs of consecutive results of one bin, each a
// BinResult a ResultStream delivers as it does any bin.
//
// The runs come out one at a time into the caller's BinResult, whose
// buffers they reuse: a top 10 spread over its bins is a handful of runs,
// and a BinResult (three vectors) apiece cost more than the merge.
#pragma once

#include <cstdint>
#include <vector>

#include "shards/bin_executor.h"
#include "shards/top_k.h"

namespace dps {

class RankedRuns {
 public:
  // `bins`: one BinResult per bin (no bin twice), docs best first with
  // their scores, and stored records parallel to docs or none; it must
  // outlive this. Merges at once; Next moves the stored records of the
  // kept docs into the runs.
  RankedRuns(std::vector<BinResult>* bins, size_t top_k, size_t offset);

  // Of the offset: min(offset, what the bins had).
  uint64_t skipped() const { return skipped_; }

  // The next run, best first, into *run: every field of it is replaced
  // (its vectors keep their capacity); false once every run is out.
  bool Next(BinResult* run);

 private:
  struct Source {
    uint32_t bin;
    size_t index;    // in *bins_
    size_t taken;    // of its docs, passed to a run or skipped so far
  };
  Source& SourceOf(uint32_t bin);

  std::vector<BinResult>* bins_;
  std::vector<ScoredDoc> best_;  // the query's K best (offset included), best first
  std::vector<Source> sources_;  // by ascending bin
  size_t at_ = 0;                // in best_: the next result to hand out
  uint64_t skipped_ = 0;
};

}  // namespace dps
