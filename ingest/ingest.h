// Ingest: indexes inputs into an index directory in one commit.
//
// A oneTBB pipeline: read batches (serial) -> sanitize + analyze + count
// terms (parallel, one ICU analyzer per thread) -> place in bins, assign
// docids, detect replacements, buffer postings and park stored documents in
// a spill file (serial) -> when the buffer reaches its share of the memory
// budget, sort each bin and write a run per tablet (parallel over tablets).
// At the end the runs are merged with the stored documents into one new
// tablet file per touched tablet (parallel over tablets), the global index
// is rebuilt and the MANIFEST swapped: a crash at any moment leaves the old
// index or the new one. Runs and spills are *.tmp files inside the index
// directory, removed when done or by the next writer after a crash.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "index/index_writer.h"

namespace dps {

struct IngestOptions {
  // Used only when the index is created.
  IndexOptions index;
  // Which of `index`'s shape fields the user set explicitly: on an existing
  // index a differing one is refused (shape is fixed at creation), never
  // silently ignored. analyzer_set: any of the analyzer flags was given,
  // and index.analyzer is the whole spec they describe; without them an
  // existing index's analyzer is used.
  bool bins_set = false, tablets_set = false, store_text_set = false, analyzer_set = false;
  bool positions_set = false;
  // --field was given: index.fields (title, then the declared fields) must
  // be the existing index's; without it an existing index's fields are used.
  bool fields_set = false;
  // Whole-process memory bound for buffers; runs spill when it is reached.
  uint64_t memory_budget = 1ull << 30;
  // Worker threads; 0 = all cores.
  unsigned threads = 0;
  // "jsonl", "dir", "lines" or empty to detect from each input's name.
  std::string format;
  std::string id_field = "id";
  std::string text_field = "text";
  std::string title_field = "title";
  // Skip and count malformed records instead of failing the ingest.
  bool skip_bad = false;
};

struct IngestStats {
  uint64_t documents = 0;
  uint64_t replaced = 0;  // documents whose id an earlier one had (this ingest or the index)
  uint64_t skipped = 0;  // bad records (skip_bad) and binary files (dir)
  std::vector<std::string> skipped_examples;  // first few messages
  uint64_t bytes_read = 0;
  // U+FFFD substitutions by the readers (ReaderStats::utf8_replacements):
  // ill-formed UTF-8 subsequences, and unpaired surrogate escapes in JSON.
  uint64_t invalid_utf8 = 0;
  uint64_t tokens = 0;
  uint64_t postings = 0;
  uint64_t runs = 0;  // spilled runs (0 when everything fit in memory)
  uint64_t bytes_written = 0;
  uint64_t index_bytes = 0;  // whole index after the commit
  uint64_t compacted_tablets = 0;  // by the ratio rule after the commit
  // The I/O error (a full disk) that stopped that compaction; the commit
  // stands and the next ingest or `dpsearch compact` compacts. Empty: none.
  std::string compaction_error;
  // Documents longer than the memory budget covers (MemoryPlan::
  // document_bytes, that bound): indexed, but the peak may pass the budget.
  uint64_t oversized_documents = 0;
  uint64_t covered_document_bytes = 0;
  uint64_t largest_document_bytes = 0;
  std::string largest_document;  // where it came from ("corpus.jsonl:17")
  double seconds = 0;
};

// Called from the serial stage about every 100 ms of work.
struct IngestProgress {
  uint64_t documents = 0;
  uint64_t bytes_read = 0;
  std::optional<uint64_t> total_bytes;  // when every input's size is known
  double seconds = 0;
};
using ProgressFn = std::function<void(const IngestProgress&)>;

Status Ingest(const std::string& index_dir, const std::vector<std::string>& inputs,
              const IngestOptions& options, IngestStats* stats,
              const ProgressFn& progress = nullptr);

}  // namespace dps
