// Batch mode (`dpsearch query --queries FILE`): lines "id<TAB>query" (a
// third column, such as the expected count of ../shared/corpora/queries,
// is ignored), each run as a count, timed inside the process with a
// monotonic clock, after warm-up passes (the peers harness's protocol).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "index/index_reader.h"
#include "ingest/analyzer.h"
#include "query/coordinator.h"

namespace dps {

struct BatchQuery {
  std::string id;
  std::string text;
};

struct BatchResult {
  std::string id;
  uint64_t matches = 0;
  double micros = 0;
  std::string error;  // a bad query: reported, the batch goes on
};

struct WarmupOptions {
  unsigned min_passes = 0;
  double min_seconds = 0;
};

// InvalidArgument naming the file and line for a line without a tab.
Result<std::vector<BatchQuery>> ReadQueryFile(const std::string& path);

// Counts the matches of one query text. InvalidArgument = a bad query (the
// batch goes on); any other error ends the batch.
using CountFn = std::function<Status(const std::string& text, uint64_t* matches)>;

// Runs every query once after the warm-up; *passes receives the warm-up
// passes made.
Status RunBatch(const CountFn& count, const std::vector<BatchQuery>& queries,
                const WarmupOptions& warmup, std::vector<BatchResult>* results, unsigned* passes);

// RunBatch over an opened index with the in-process coordinator.
Status RunBatch(const IndexReader& index, Coordinator* coordinator, Analyzer* analyzer,
                const std::vector<BatchQuery>& queries, const WarmupOptions& warmup,
                std::vector<BatchResult>* results, unsigned* passes);

}  // namespace dps
