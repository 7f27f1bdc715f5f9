#include "shards/top_k.h"

namespace dps {

namespace {
// Heap order with the worst kept document at the front.
bool WorseFirst(const ScoredDoc& a, const ScoredDoc& b) { return RanksBefore(a, b); }
}  // namespace

bool TopK::OfferSlow(const ScoredDoc& d) {
  if (k_ == 0) return false;
  if (heap_.size() < k_) {
    heap_.push_back(d);
    std::push_heap(heap_.begin(), heap_.end(), WorseFirst);
    return true;
  }
  if (!RanksBefore(d, heap_.front())) return false;
  std::pop_heap(heap_.begin(), heap_.end(), WorseFirst);
  heap_.back() = d;
  std::push_heap(heap_.begin(), heap_.end(), WorseFirst);
  return true;
}

std::vector<ScoredDoc> TopK::Take() {
  std::vector<ScoredDoc> out = std::move(heap_);
  heap_.clear();
  std::sort(out.begin(), out.end(), RanksBefore);
  return out;
}

std::vector<ScoredDoc> MergeTopK(const std::vector<std::vector<ScoredDoc>>& lists, size_t k) {
  TopK top(k);
  for (const auto& list : lists) {
    for (const ScoredDoc& d : list) {
      if (!top.Offer(d)) break;  // best first: the rest of this list cannot enter either
    }
  }
  return top.Take();
}

}  // namespace dps
