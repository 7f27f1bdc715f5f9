// How an ingest divides its --memory budget, which bounds the whole
// process's resident memory (bench/RESULTS.md "Ingest memory bound"):
//
//   process     code, libraries, ICU data and each thread's analyzer and
//               stack: a fixed cost the budget cannot shrink
//   batches     2 per thread in the pipeline, each its raw text plus the
//               analyzed terms and positions (some 8 bytes a raw byte)
//   buffer      postings, positions, the interned terms, parked documents
//               and the ids seen (IngestRun::MemoryBytes): a run is
//               spilled when it reaches flush_at
//   flush       while a run is written, each thread sorts one bin through
//               a scratch array as large as the bin's log
//   merge       afterwards, per tablet being written: the tablet writer's
//               buffers and one block per spill run it reads; a tablet
//               with more runs than merge_fan_in has them merged in
//               groups first; with fewer tablets than threads, the
//               batches of lists each tablet's encoders have in flight
//
// The phases do not overlap (the pipeline ends before the merge), so the
// budget bounds each. Below MinMemoryBudget the fixed costs leave too
// little for the rest: the command line refuses it; the library still
// ingests (tests use tiny budgets to force spills), with each share at its
// minimum.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace dps {

struct MemoryPlanInput {
  uint64_t budget = 1ull << 30;
  unsigned threads = 1;
  uint32_t bins = 1;
  size_t tablets = 1;
};

struct MemoryPlan {
  size_t batch_bytes = 0;  // raw text per pipeline batch
  uint64_t flush_at = 0;   // buffer bytes at which a run is spilled
  size_t merge_fan_in = 0; // runs of one tablet read at once (>= 2)
  // The longest document the budget covers (id, title and text): a longer
  // one is indexed, but costs about 3.5x its size on top while it is read,
  // analyzed and placed (its line, its text, its terms and positions), and
  // the ingest warns (bench/RESULTS.md "Ingest memory bound": linuxsrc's
  // 24 MB headers).
  uint64_t document_bytes = 0;
};

// The budget whose plan covers documents of `bytes`.
inline constexpr uint64_t kBudgetPerDocumentByte = 16;

// Fixed costs, measured (bench/RESULTS.md "Ingest memory bound"): the
// process with an empty buffer, and each worker thread's own.
inline constexpr uint64_t kProcessBytes = 18ull << 20;
inline constexpr uint64_t kThreadBytes = 2ull << 20;
// What one analyzed raw byte costs in a batch in flight (its text, the
// terms as strings, their positions): 2 batches per thread.
inline constexpr uint64_t kBatchExpansion = 8;
// A tablet writer's own buffers during the merge (positions spill buffer,
// doc store block and its compression, term list block, page), and one
// spill run's read block.
inline constexpr uint64_t kTabletWriterBytes = 4ull << 20;
inline constexpr uint64_t kRunReaderBytes = 128ull << 10;

// With fewer tablets than threads, each tablet's lists are encoded by
// TabletListThreads tasks (tablet_build.h), with one batch more than that
// in flight, each of some 32 Ki postings: their docids, weights, positions
// and encodings, at most kListBatchBytes (a list longer than a batch is a
// batch alone, as it is whole in the one-thread build).
inline constexpr uint64_t kListBatchBytes = 1ull << 20;
inline size_t TabletListThreads(unsigned threads, size_t tablets) {
  tablets = tablets == 0 ? 1 : tablets;
  return tablets < threads ? (threads + tablets - 1) / tablets : 1;
}
inline uint64_t ListBatchesBytes(unsigned threads, size_t tablets) {
  const size_t per_tablet = TabletListThreads(threads, tablets);
  return per_tablet > 1 ? std::max<size_t>(tablets, 1) * (per_tablet + 1) * kListBatchBytes : 0;
}

MemoryPlan PlanMemory(const MemoryPlanInput& in);

// The smallest budget whose plan leaves the buffer at least
// kMinBufferShare of it, for `threads` worker threads (whole MiB): 47M
// with 2 threads. Below about a third the fixed costs and the merge's
// (a frequent term's positions, whole, in each tablet being written)
// outgrow the budget: synthetic 95k documents peaked at 1.38x --memory
// 32M, within it at 47M (bench/RESULTS.md "Ingest memory bound").
inline constexpr double kMinBufferShare = 0.31;
uint64_t MinMemoryBudget(unsigned threads);

}  // namespace dps
