#include "shards/top_k.h"

namespace dps {

namespace {
// RanksBefore as a type, not a function pointer, so that the heap
// algorithms and the sort inline it. As a heap's order it puts the worst
// kept document at the front.
struct RankOrder {
  bool operator()(const ScoredDoc& a, const ScoredDoc& b) const { return RanksBefore(a, b); }
};
}  // namespace

bool TopK::OfferSlow(ScoredDoc d) {
  if (k_ == 0) return false;
  if (heap_.size() < k_) {
    // Unordered until full: a bin with at most K matches never pays for a
    // heap, only for Take's sort; the heap is built once, when it fills.
    heap_.push_back(d);
    if (heap_.size() == k_) std::make_heap(heap_.begin(), heap_.end(), RankOrder{});
    return true;
  }
  if (!RanksBefore(d, heap_.front())) return false;
  ReplaceWorst(d);
  return true;
}

// The front (the worst kept) gives way to `d`, which sinks to its place:
// one pass down, against pop_heap + push_heap's two.
void TopK::ReplaceWorst(ScoredDoc d) {
  const size_t n = heap_.size();
  ScoredDoc* h = heap_.data();
  size_t at = 0;
  for (;;) {
    size_t child = 2 * at + 1;
    if (child >= n) break;
    if (child + 1 < n && RanksBefore(h[child], h[child + 1])) ++child;  // the worse child
    if (!RanksBefore(d, h[child])) break;  // d is worse than both: its place
    h[at] = h[child];
    at = child;
  }
  h[at] = d;
}

std::vector<ScoredDoc> TopK::Take() {
  std::vector<ScoredDoc> out = std::move(heap_);
  heap_.clear();
  std::sort(out.begin(), out.end(), RankOrder{});
  return out;
}

}  // namespace dps
