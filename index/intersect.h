// Intersection kernels over concrete PostingCursors: the fast path for the
// most common query, a conjunction of plain terms in a bin whose tablet has
// one file and no tombstones. No virtual calls; the planner falls back to
// the AndIterator tree otherwise. Two strategies: the leapfrog of
// AndIterator (a seek per lead docid), and for long lists of similar length
// a dense pass over whole blocks with a bitset; Count/Collect pick by cost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "index/posting_list.h"
#include "index/posting_spots.h"

namespace dps {

// Seeks in flight together: a lead much sparser than a list seeks it far
// ahead each time, and each such seek is a chain of cache misses (skip
// entries, the block's ends, its bytes). When the lead reaches a new run,
// the lists much longer than it are asked to warm every seek of the run
// at once (PostingCursor::PrefetchSeeks), so that their misses overlap.
// Lists of similar length seek near, in lines already read: left alone.
// Used by the leapfrogs here and by shards/block_max_and.cc's.
class LeadWarmer {
 public:
  static constexpr uint32_t kMinRatio = 16;  // a list's df over the lead's
  // c[0] leads; c stays valid while the warmer is used.
  LeadWarmer(PostingCursor* const* c, size_t n) : c_(c), n_(n) {
    for (size_t i = 1; i < n; ++i) on_ = on_ || Warms(i);
  }
  // Warms the lists for the lead's run when the lead has moved to a new one.
  void operator()() {
    if (!on_ || c_[0]->loads() == seen_) return;
    seen_ = c_[0]->loads();
    for (size_t i = 1; i < n_; ++i) {
      if (Warms(i)) c_[i]->PrefetchSeeks(c_[0]->run(), c_[0]->run_size());
    }
  }

 private:
  bool Warms(size_t i) const { return c_[i]->df() / kMinRatio >= c_[0]->df(); }
  PostingCursor* const* c_;
  size_t n_;
  bool on_ = false;
  uint32_t seen_ = UINT32_MAX;
};

// Counts docids present in every cursor. REQUIRES: n >= 1, cursors[0] the
// rarest (it leads). Leaves the cursors exhausted or wherever they stopped.
uint64_t CountIntersection(PostingCursor* const* cursors, size_t n);

// Appends the docids present in every cursor to `out` (at most `limit`),
// ascending.
void CollectIntersection(PostingCursor* const* cursors, size_t n, size_t limit,
                         std::vector<DocId>* out);

// Whether Count/Collect (without a limit) would take the dense kernel.
bool PrefersDense(PostingCursor* const* cursors, size_t n);

// Ranked windows (shards/block_max_and.cc): the docids in [lo, hi] that
// every cursor holds, ascending, into docs[0, return), with cursor i's
// weight of each into weights[i][0, return); the dense kernel's bitset
// pass, over whole runs with their weights. REQUIRES: 1 <= n <= 16, lo <=
// hi, hi - lo < kMaxWindowSpan, the cursors not past lo. Leaves each
// cursor on its first docid > hi or on a run reaching past hi. Returns
// SIZE_MAX when a cursor fails (its status() says why).
inline constexpr uint32_t kMaxWindowSpan = 4096;
size_t CollectWindow(PostingCursor* const* cursors, size_t n, DocId lo, DocId hi, DocId* docs,
                     uint32_t* const* weights);

// CollectIntersection without a limit, appended to *out, and for each
// cursor k with spots[k] set, where its posting at each match is
// (index/posting_spots.h), appended to *spots[k]: a phrase check needs
// them, and a cursor standing on a match has them at hand. The leapfrog
// stands on every match in every list; the dense kernel on the last
// list's, and it records the other lists' postings as it marks them when
// they are at most kMostWalkedPostings (it sets the spots[k] of longer
// ones to null). False when a cursor cannot say (its status() says why),
// or (the dense kernel) a list's postings disagree with its marks.
inline constexpr size_t kMaxSpotLists = 16;
inline constexpr uint32_t kMostWalkedPostings = 8192;
bool CollectIntersectionSpots(PostingCursor* const* cursors, size_t n, std::vector<DocId>* out,
                              PostingSpots** spots);

// The leapfrog alone (tests and benchmarks compare the strategies).
uint64_t LeapfrogCount(PostingCursor* const* cursors, size_t n);
void LeapfrogCollect(PostingCursor* const* cursors, size_t n, size_t limit,
                     std::vector<DocId>* out);

}  // namespace dps
