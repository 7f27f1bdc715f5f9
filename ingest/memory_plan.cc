#include "ingest/memory_plan.h"

#include <algorithm>

namespace dps {

namespace {

// The flush's sort scratch as a share of the buffer: each of the threads
// writing runs at once sorts one bin, whose log is about 1/bins of the
// buffer (x 1.25 for skew) of which entries are some 80%.
double FlushScratchShare(unsigned threads, uint32_t bins, size_t tablets) {
  const double at_once = static_cast<double>(std::min<size_t>(threads, std::max<size_t>(tablets, 1)));
  return std::min(1.0, 0.8 * 1.25 * at_once / std::max<uint32_t>(bins, 1));
}

}  // namespace

MemoryPlan PlanMemory(const MemoryPlanInput& in) {
  const unsigned threads = std::max(1u, in.threads);
  MemoryPlan plan;
  plan.batch_bytes = static_cast<size_t>(std::clamp<uint64_t>(in.budget / (256ull * threads), 16 << 10, 1 << 20));
  const uint64_t fixed = kProcessBytes + threads * kThreadBytes;
  const uint64_t batches = 2ull * threads * kBatchExpansion * plan.batch_bytes;
  const uint64_t free_bytes = in.budget > fixed ? in.budget - fixed : 0;
  const uint64_t for_buffer = free_bytes > batches ? free_bytes - batches : 0;
  // A floor for tests' tiny budgets: a run every few documents still works.
  plan.flush_at = std::max<uint64_t>(
      64 << 10, static_cast<uint64_t>(static_cast<double>(for_buffer) /
                                      (1 + FlushScratchShare(threads, in.bins, in.tablets))));
  const uint64_t writers = std::min<uint64_t>(threads, std::max<size_t>(in.tablets, 1));
  const uint64_t writing = writers * kTabletWriterBytes + ListBatchesBytes(threads, in.tablets);
  const uint64_t for_readers = free_bytes > writing ? free_bytes - writing : 0;
  // At most 256 at once: each run is an open file.
  plan.merge_fan_in = static_cast<size_t>(std::clamp<uint64_t>(for_readers / (writers * kRunReaderBytes), 2, 256));
  // Measured: linuxsrc without its 41 documents over 2 MB peaks at 1.10x
  // --memory 47M with 2 threads; its longest (24 MB) alone peaks at 103 MB.
  plan.document_bytes = in.budget / kBudgetPerDocumentByte;
  return plan;
}

uint64_t MinMemoryBudget(unsigned threads) {
  // The default layout (4 bins, 4 tablets); the buffer share grows with
  // the budget, so the first budget that reaches it is the floor.
  for (uint64_t mib = 1;; ++mib) {
    const uint64_t budget = mib << 20;
    const MemoryPlan plan = PlanMemory({budget, threads, 4, 4});
    if (static_cast<double>(plan.flush_at) >= kMinBufferShare * static_cast<double>(budget)) return budget;
  }
}

}  // namespace dps
