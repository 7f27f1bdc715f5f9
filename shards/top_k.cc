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
  ReplaceHeapFront(heap_.data(), heap_.size(), d, RankOrder{});  // the worst kept gives way
  return true;
}

std::vector<ScoredDoc> TopK::Take() {
  std::vector<ScoredDoc> out = std::move(heap_);
  heap_.clear();
  std::sort(out.begin(), out.end(), RankOrder{});
  return out;
}

}  // namespace dps
