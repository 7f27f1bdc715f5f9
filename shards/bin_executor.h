// The one place where the work of one bin of a query is done, for the
// in-process coordinator and the shard server alike: evaluate the bin
// (SearchBin), take its share of the query's limit, sleep an injected
// delay, fetch the stored ids and titles (and texts) of what it keeps, and
// time it. Per-bin behaviour (scores next) is added here once.
//
// Thread-safety: a BinExecutor is immutable; Execute may run on any number
// of threads at once. A LimitBudget is shared by the bins of one query.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"
#include "index/doc_store.h"
#include "index/index_reader.h"
#include "index/query_plan.h"

namespace dps {

// The matches a query with a limit may still deliver, taken by its bins as
// they finish (a bin keeps only what it could take).
class LimitBudget {
 public:
  explicit LimitBudget(uint64_t limit) : left_(limit) {}
  // Takes up to n; returns how many were granted.
  uint64_t Take(uint64_t n);
  bool exhausted() const { return left_.load(std::memory_order_relaxed) == 0; }

 private:
  std::atomic<uint64_t> left_;
};

// Plans estimated to touch fewer postings than this run their bins on the
// thread that has them (the caller in-process, the network thread in a
// server): waking workers costs more than such a query (gcide, 2 cores: a
// parallel p50 of 74 us against 19 us inline), while big ones gain from the
// fan-out.
inline constexpr uint64_t kInlinePlanPostings = 20'000;

// What of each matching document's stored record a search returns.
enum class Fetch : uint8_t {
  kNone,           // docids only
  kIds,            // external ids alone (a ranked id list): the id column only, no block decompressed
  kIdsAndTitles,   // what a result line shows; no text is decompressed
  kSnippet,        // also a snippet of the text around the query's terms, in
                   // StoredDoc::text with its matches marked (shards/snippet.h)
};

struct RankContext;
class SharedThreshold;
class TermRound;

struct BinTask {
  BinId bin;
  bool count_only = false;
  // Ranked (top_k > 0): the bin's top_k best by BM25 (shards/ranking.h),
  // best first, instead of its matches in docid order; `rank` is the
  // query's shared context. limit and budget do not apply.
  size_t top_k = 0;
  const RankContext* rank = nullptr;
  // The k-th best score any bin of the query has reached (shards/top_k.h):
  // one per ranked query (per request on a server), so a bin that starts
  // late prunes with the best bound known. Null: the bin prunes alone.
  SharedThreshold* threshold = nullptr;
  // Ranked, a single term (TermRound::Applies): the query's bins ranked
  // at once, shared like `threshold`. Null: the bin ranks alone.
  TermRound* round = nullptr;
  // Ranked: score every match (no block-max pruning). Tests compare both.
  bool exhaustive = false;
  size_t limit = 0;                 // the query's limit (0: none): no bin needs more
  LimitBudget* budget = nullptr;    // the query's remaining matches; null: no limit
  Fetch fetch = Fetch::kNone;       // ignored when count_only
  const std::atomic<bool>* cancel = nullptr;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  int64_t delay_us = 0;             // --inject-delay: slept before evaluating, counted as queue wait
  // Queue wait runs from `queued` to the evaluation's start. Untimed tasks
  // read no clock (batch counting: on a 4 us query, clock reads were 3%).
  bool timed = true;
  std::chrono::steady_clock::time_point queued;
};

struct BinResult {
  BinId bin;
  uint32_t tablet = 0;
  uint64_t count = 0;              // matches this bin delivers (after the limit)
  std::vector<DocId> docs;         // ascending (ranked: best first); empty when count_only
  std::vector<double> scores;      // ranked: parallel to docs
  std::vector<StoredDoc> stored;   // parallel to docs when fetched
  bool fast_path = false;          // the intersection kernel answered
  bool cancelled = false;          // cancelled or past the deadline: not an answer
  bool deadline_passed = false;    // the deadline had passed when the bin was to start
  bool truncated = false;          // cut by the limit: valid, but not every match
  double queue_wait_us = 0;
  double service_us = 0;
};

// Empties *r as a new BinResult would be, its vectors keeping their room:
// a searcher reuses its results query after query.
void ClearBinResult(BinResult* r);

class BinExecutor {
 public:
  explicit BinExecutor(const IndexReader* index) : index_(index) {}  // index outlives this

  // REQUIRES: task.bin is a bin of `plan`, and `plan` was made for this index.
  // Every field of *result is replaced (ClearBinResult: its vectors keep
  // their room). On error *result names the bin and tablet; its other
  // fields are not an answer.
  Status Execute(const QueryPlan& plan, const BinTask& task, BinResult* result) const;

  // The stored records of `docs` of one bin into *out (parallel to docs).
  // Execute fetches this way when its task asks; the in-process coordinator
  // calls it on the caller's thread as it delivers, a chunk at a time, so
  // a big answer's texts never sit in memory whole.
  // `words` and `prefixes`: what kSnippet marks (QueryPlan::snippet_words
  // and snippet_prefixes).
  Status FetchStored(BinId bin, std::span<const DocId> docs, Fetch fetch, const std::vector<std::string>& words,
                     const std::vector<std::string>& prefixes, std::vector<StoredDoc>* out,
                     DocBlockCache* cache) const;

 private:
  const IndexReader* index_;
};

}  // namespace dps
