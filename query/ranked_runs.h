// The last step of a ranked query (issue 18), in-process and over servers
// alike: every bin's best-first list merged into the query's K best
// (MergeTopK, shards/top_k.h, the one documented order), the offset
// skipped, and the rest cut into runs of consecutive results of one bin,
// each a BinResult a ResultStream delivers as it does any bin.
#pragma once

#include <cstdint>
#include <vector>

#include "shards/bin_executor.h"

namespace dps {

struct RankedAnswer {
  std::vector<BinResult> runs;  // best first; a run's docs, scores and stored (when its bin had them) are parallel
  uint64_t skipped = 0;         // of the offset: min(offset, what the bins had)
};

// `bins`: one BinResult per bin (no bin twice), docs best first with their
// scores, and stored records parallel to docs or none. Moves the stored
// records of the kept docs into the runs.
RankedAnswer RankedRuns(std::vector<BinResult>* bins, size_t top_k, size_t offset);

}  // namespace dps
