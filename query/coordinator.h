// The in-process searcher: plans a query against the index's global index
// and fans the plan out over the index's tablets with oneTBB, one task per
// candidate bin, each run by the BinExecutor; each bin's results stream to
// the caller's thread as soon as it finishes (unordered across bins, docid
// order within a bin). A limit cancels the remaining work.
//
// Thread-safety: one Coordinator runs one query at a time (it keeps a
// ranked query's buffers for the next one); the sink is called only from
// the calling thread.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "common/status.h"
#include "index/index_reader.h"
#include "index/query_plan.h"
#include "query/searcher.h"
#include "shards/delay.h"

namespace dps {

class ResultStream;

struct CoordinatorOptions {
  unsigned threads = 0;  // workers; 0: all cores
  // Plans estimated to touch fewer postings run on the calling thread
  // (shards/bin_executor.h says why).
  uint64_t parallel_threshold = kInlinePlanPostings;
  // --inject-delay: sleep before evaluating a bin of a chosen tablet (the
  // sleep counts as queue wait, as in a server). Not owned; may be null.
  DelayInjector* delays = nullptr;
};

class Coordinator final : public Searcher {
 public:
  Coordinator(const IndexReader* index, CoordinatorOptions options);  // index outlives this
  ~Coordinator() override;

  Status Run(QueryNode query, const SearchOptions& options, const ResultSink& sink,
             SearchStats* stats) override;
  bool returns_text() const override { return true; }
  const AnalyzerSpec& analyzer_spec() const override;
  const FieldSet& fields() const override;

  // Runs a plan made already for this index (tests and tools).
  Status RunPlan(const QueryPlan& plan, const SearchOptions& options, const ResultSink& sink,
                 SearchStats* stats);

 private:
  bool DeliverStored(BinResult* bin, Fetch fetch, const QueryPlan& plan,
                     ResultStream* stream, Status* status);
  // The number of results the offset skipped.
  uint64_t DeliverRanked(std::span<BinResult> bins, const SearchOptions& options, const QueryPlan& plan,
                         ResultStream* stream, Status* status);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dps
