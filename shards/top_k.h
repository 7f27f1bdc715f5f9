// The K best scored documents of a ranked query (issue 18), in the one
// documented order: score descending, then bin, then docid ascending. The
// same order in-process and over servers, so ties never depend on which
// bin finished first.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <vector>

#include "index/types.h"

namespace dps {

struct ScoredDoc {
  double score = 0;
  uint32_t bin = 0;
  DocId docid = 0;
};

// True when `a` ranks before `b`.
inline bool RanksBefore(const ScoredDoc& a, const ScoredDoc& b) {
  if (a.score != b.score) return a.score > b.score;
  if (a.bin != b.bin) return a.bin < b.bin;
  return a.docid < b.docid;
}

// Puts `v` in place of a heap's front and sinks it to its place, in one
// pass down (pop_heap then push_heap take two). The heap is laid out as
// std::make_heap lays it out, `less` its order (the front is greatest).
template <class T, class Less>
void ReplaceHeapFront(T* heap, size_t n, T v, Less less) {
  size_t at = 0;
  for (;;) {
    size_t child = 2 * at + 1;
    if (child >= n) break;
    if (child + 1 < n && less(heap[child], heap[child + 1])) ++child;  // the greater child
    if (!less(v, heap[child])) break;
    heap[at] = heap[child];
    at = child;
  }
  heap[at] = v;
}

// A bin's K best so far.
class TopK {
 public:
  explicit TopK(size_t k) : k_(k) { heap_.reserve(k); }
  // Keeps them in `room`'s memory (emptied first): a caller ranking bin
  // after bin hands the last Take's vector back, and no bin allocates.
  TopK(size_t k, std::vector<ScoredDoc> room) : k_(k), heap_(std::move(room)) {
    heap_.clear();
    heap_.reserve(k);
  }

  // Keeps `d` if it is among the K best seen; true when kept. Most offers
  // of a big bin lose to the worst kept on score alone: answered inline.
  bool Offer(const ScoredDoc& d) {
    if (heap_.size() == k_ && (k_ == 0 || d.score < heap_.front().score)) return false;
    return OfferSlow(d);
  }
  bool full() const { return heap_.size() == k_; }
  size_t k() const { return k_; }
  // The K-th best score once full (a document must beat it, or tie it and
  // win on (bin, docid), to enter); -infinity before.
  double threshold() const {
    return full() && k_ > 0 ? heap_.front().score : -std::numeric_limits<double>::infinity();
  }
  // The kept documents, best first; the collector is empty afterwards.
  std::vector<ScoredDoc> Take();

 private:
  bool OfferSlow(ScoredDoc d);
  size_t k_;
  std::vector<ScoredDoc> heap_;  // once full, a heap whose front is the worst kept; unordered before
};

// A score no document below can beat into one query's K best, shared by
// its bins: bins evaluated in parallel read it at block boundaries and skip
// what cannot beat it, so a bin that starts late prunes with the best
// bound known. Only rises. Raise() sets it to a bin's K-th best; with
// KeepBest(K), the documents that enter their bin's K best are also
// offered here, and it is the K-th best of all of them: the query's K-th
// best so far (K documents of any bins score at least that much), higher
// than any one bin's.
class SharedThreshold {
 public:
  double get() const { return value_.load(std::memory_order_relaxed); }
  void Raise(double score) {
    double seen = value_.load(std::memory_order_relaxed);
    while (score > seen && !value_.compare_exchange_weak(seen, score, std::memory_order_relaxed)) {
    }
  }
  // Before any Offer.
  void KeepBest(size_t k) { best_ = TopK(k, best_.Take()); }
  // Ready for another query, as if new (KeepBest again if wanted); the
  // K best's room is kept: a searcher reuses one threshold query after
  // query. Not while a bin of the last query can still use it.
  void Restart() {
    value_.store(-std::numeric_limits<double>::infinity(), std::memory_order_relaxed);
    best_ = TopK(0, best_.Take());
    one_thread_ = false;
  }
  // Until Restart, every Offer comes from one thread (a searcher ranking
  // its bins in turn on its own): no lock. The lock and unlock calls were
  // 700 instructions of gcide's median ranked query (about 20 offers).
  void OneThread() { one_thread_ = true; }
  // A document's score, offered at most once per document.
  void Offer(double score) {
    if (score <= get()) return;  // cannot move the K-th best
    if (one_thread_) {
      Keep(score);
      return;
    }
    std::lock_guard<std::mutex> lock(mu_);
    Keep(score);
  }

 private:
  void Keep(double score) {
    // Scores alone: equal ones tie on the same (bin, docid), so only a
    // higher one displaces the K-th best.
    if (best_.Offer({score, 0, 0}) && best_.full()) Raise(best_.threshold());
  }

  std::atomic<double> value_{-std::numeric_limits<double>::infinity()};
  std::mutex mu_;
  bool one_thread_ = false;
  TopK best_{0};  // KeepBest: the K best scores offered (K = 0 keeps none)
};

}  // namespace dps
