// Batch mode (`dpsearch query --queries FILE`): lines "id<TAB>query" (a
// third column, such as the expected count of ../shared/corpora/queries,
// is ignored), each parsed once, then run as a count through a Searcher,
// the search timed inside the process with a monotonic clock, after
// warm-up passes (the peers harness's protocol).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "ingest/analyzer.h"
#include "query/searcher.h"

namespace dps {

struct BatchQuery {
  std::string id;
  std::string text;
};

struct BatchResult {
  std::string id;
  uint64_t matches = 0;
  double micros = 0;
  std::string error;    // the query failed: reported, the batch goes on
  bool index_error = false;  // ... because the index could not answer (not the query's fault)
  bool partial = false;  // some tablets did not answer (clusters)
  // With top_k: the K best ids, best first, and the ranked query's time.
  std::vector<std::string> top_ids;
  double top_micros = 0;
  std::vector<std::string> missing;  // their ranges
};

struct WarmupOptions {
  unsigned min_passes = 0;
  double min_seconds = 0;
  // Also rank: after each count, the query's top_k best by BM25 (timed
  // apart), as the peers harness's top-10 column wants.
  size_t top_k = 0;
  Bm25Params bm25;  // the ranked queries' parameters
  uint64_t max_expansions = kDefaultMaxExpansions;  // every query's (SearchOptions')
};

// InvalidArgument naming the file and line for a line without a tab.
Result<std::vector<BatchQuery>> ReadQueryFile(const std::string& path);

// Counts every query once after the warm-up (*passes: the warm-up passes
// made). A failed query (a bad query, or an index error such as an
// unreadable page) is reported in its result and the batch goes on.
Status RunBatch(Searcher* searcher, Analyzer* analyzer, const std::vector<BatchQuery>& queries,
                const WarmupOptions& warmup, std::vector<BatchResult>* results, unsigned* passes);

}  // namespace dps
