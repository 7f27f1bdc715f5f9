// A single term's ranked query over all the bins one process runs for it
// at once (issue 18). Bin by bin, each bin's best-first ranking scores
// blocks until its own K-th best is high, though another bin's best block
// would have raised the shared threshold above them: gcide's single
// common and frequent terms scored 998 blocks where 410 reach the final
// threshold (583 in a round).
// A TermRound, shared by the bins of one query (in-process) or one
// request (a shard server) like their SharedThreshold, ranks them all the
// first time one of them asks (pruned::RankTermBestFirst across the bins:
// first rounds best block first over every bin), and hands each bin its K
// best as it asks. The answer is each bin's own ranking's, exactly.
//
// Thread-safety: Take may be called from any number of threads at once;
// the first call ranks, the others wait for it.
#pragma once

#include <atomic>
#include <mutex>
#include <span>
#include <vector>

#include "common/status.h"
#include "index/index_reader.h"
#include "index/query_plan.h"
#include "shards/ranking.h"
#include "shards/top_k.h"

namespace dps {

class TermRound {
 public:
  // Whether a query takes one: a single plain term at the default k1 and
  // b (its block scores are read at random), ranked pruned, K at most a
  // first round's blocks (a larger K is work to share among threads),
  // with lists of several blocks in two or more of `bins` (gcide's medium
  // terms, a block or so a bin, cost 2% more instructions in a round).
  static bool Applies(const QueryPlan& plan, const RankContext& rank, size_t k, std::span<const BinId> bins);

  // `bins`: every bin of the query this process runs with this round.
  // REQUIRES: Applies(plan, rank, k, bins) for the plan, context and K
  // every Take passes.
  explicit TermRound(std::vector<BinId> bins) : bins_(std::move(bins)) {}

  // The bin's K best, best first, into *out, ranking every bin first if
  // none has asked yet; *handled is false for a bin the round could not
  // rank (several files, deletions: the caller ranks it alone). An error
  // of the ranking is every bin's. Each bin asks once.
  // `cancel` (may be null) stops the round (pruned::RankTermBestFirst):
  // every bin's answer is then partial, for bins reported cancelled.
  Status Take(const IndexReader& index, const QueryPlan& plan, const RankContext& rank, size_t k,
              SharedThreshold* shared, BinId bin, std::vector<ScoredDoc>* out, bool* handled,
              const std::atomic<bool>* cancel = nullptr);

 private:
  Status Rank(const IndexReader& index, const QueryPlan& plan, const RankContext& rank, size_t k,
              SharedThreshold* shared, const std::atomic<bool>* cancel);

  const std::vector<BinId> bins_;
  std::mutex mu_;
  bool ranked_ = false;
  Status status_;
  std::vector<bool> handled_;               // by bins_ index
  std::vector<std::vector<ScoredDoc>> best_;  // by bins_ index
};

}  // namespace dps
