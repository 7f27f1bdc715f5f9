// A phrase word's postings at a batch of candidates, found a decoded run
// of its list at a time (PostingCursor::run): the cursor seeks once per run
// holding a candidate, and the run's candidates are found by a merge with
// its postings, each one's offset into the block's values summed from the
// weights the merge passes. Shared by PhraseMatcher's gather and merge.
#pragma once

#include <cstddef>
#include <cstdint>

#include "index/posting_list.h"

namespace dps {

// For each decoded run holding candidates: on_run(block, in_block, first)
// (the run's doc block, the values of the block's postings before the run,
// the run's first candidate), on_posting(i, off, weight) for each of the
// run's candidates (off: the values of the run's postings before it), then
// on_run_end(first, end) (its candidates are [first, end)). Any callback
// returning false stops the walk. Returns false when it stopped, or with
// *missing set when a candidate is not in the list or the cursor failed.
// REQUIRES: cand[0..m) ascending, each above the cursor's last seek.
template <typename OnRun, typename OnPosting, typename OnRunEnd>
bool ForEachCandidateRun(PostingCursor& c, const DocId* cand, size_t m, bool* missing, OnRun on_run,
                         OnPosting on_posting, OnRunEnd on_run_end) {
  *missing = false;
  for (size_t i = 0; i < m;) {
    uint32_t block = 0, tf = 0;
    uint64_t in_block = 0;
    if (c.Seek(cand[i]) != cand[i] || !c.PositionsAt(&block, &in_block, &tf)) {
      *missing = true;
      return false;
    }
    const size_t first = i;
    if (!on_run(block, in_block, first)) return false;
    // Locals: stores by the callbacks could alias the run and the
    // candidates, which would be loaded again every step.
    const DocId* docs = c.run();
    const uint32_t* weights = c.run_weights();
    const size_t len = c.run_size();
    uint64_t off = 0;
    for (size_t k = 0; i < m; ++i) {
      const DocId d = cand[i];
      while (k < len && docs[k] < d) off += weights[k++];
      if (k == len) break;
      if (docs[k] != d) {
        *missing = true;
        return false;
      }
      if (!on_posting(i, off, weights[k])) return false;
    }
    if (!on_run_end(first, i)) return false;
  }
  return true;
}

}  // namespace dps
