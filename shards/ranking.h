// Ranked evaluation of one bin (issue 18): the bin's matches scored with
// BM25 (index/bm25.h) over index-wide statistics, the K best kept in the
// documented order (shards/top_k.h). This first version scores every
// match (exhaustive); block-max pruning will replace the scoring loop and
// must give the same answer (the tests compare both with brute force).
#pragma once

#include <vector>

#include "common/status.h"
#include "index/bm25.h"
#include "index/query_plan.h"
#include "index/tablet.h"
#include "shards/top_k.h"

namespace dps {

// What every bin of one ranked query shares: the formula and each positive
// term's idf, in the order scores add them (the plan's `highlight`).
struct RankContext {
  explicit RankContext(const QueryPlan& plan, const CollectionStats& stats, Bm25Params params);
  Bm25 bm25;
  std::vector<double> idf;  // by plan.highlight index; 0 for a term absent from the index
};

// Scores `matches` (docids of `bin`, ascending) and keeps the K best into
// *out, best first.
Status RankBin(const Tablet& tablet, const QueryPlan& plan, BinId bin, const RankContext& rank,
               const std::vector<DocId>& matches, size_t k, std::vector<ScoredDoc>* out);

}  // namespace dps
