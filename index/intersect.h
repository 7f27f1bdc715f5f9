// Intersection kernels over concrete PostingCursors: the fast path for the
// most common query, a conjunction of plain terms in a bin whose tablet has
// one file and no tombstones. No virtual calls; the planner falls back to
// the AndIterator tree otherwise. Same leapfrog as AndIterator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "index/posting_list.h"

namespace dps {

// Counts docids present in every cursor. REQUIRES: n >= 1, cursors[0] the
// rarest (it leads). Leaves the cursors exhausted or wherever they stopped.
uint64_t CountIntersection(PostingCursor* const* cursors, size_t n);

// Appends the docids present in every cursor to `out` (at most `limit`).
void CollectIntersection(PostingCursor* const* cursors, size_t n, size_t limit,
                         std::vector<DocId>* out);

}  // namespace dps
