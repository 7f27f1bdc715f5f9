#include "query/ranked_runs.h"

#include <algorithm>
#include <utility>

namespace dps {

namespace {
// A heap's order for heads: the front is the head whose result ranks best.
struct BestInFront {
  template <class Head>
  bool operator()(const Head& a, const Head& b) const { return RanksBefore(b.doc, a.doc); }
};

ScoredDoc DocAt(const BinResult& b, size_t j) { return {b.scores[j], b.bin.value, b.docs[j]}; }
}  // namespace

RankedRuns::RankedRuns(std::span<BinResult> bins, size_t top_k, size_t offset) : bins_(bins) {
  size_t candidates = 0;
  heads_.reserve(bins.size());
  for (size_t i = 0; i < bins.size(); ++i) {
    const BinResult& b = bins[i];
    if (b.docs.empty()) continue;
    candidates += b.docs.size();
    heads_.push_back({DocAt(b, 0), i, 0});
  }
  std::make_heap(heads_.begin(), heads_.end(), BestInFront{});
  skipped_ = std::min<uint64_t>(offset, candidates);
  left_ = std::min(top_k, candidates - static_cast<size_t>(skipped_));
  for (uint64_t i = 0; i < skipped_; ++i) Pop();
}

void RankedRuns::Pop() {
  Head next = heads_.front();
  const BinResult& b = bins_[next.bin];
  if (++next.at < b.docs.size()) {
    next.doc = DocAt(b, next.at);
  } else {  // the bin is done: the last head takes its place
    next = heads_.back();
    heads_.pop_back();
    if (heads_.empty()) return;
  }
  ReplaceHeapFront(heads_.data(), heads_.size(), next, BestInFront{});
}

bool RankedRuns::Next(BinResult* run) {
  if (left_ == 0) return false;
  ClearBinResult(run);  // its vectors keep their room
  const size_t source = heads_.front().bin;
  const BinResult& from = bins_[source];
  // At most left_ results: room once, not grown 1, 2, 4, 8, 16 (ten
  // allocations for a top 10 of one bin).
  run->docs.reserve(left_);
  run->scores.reserve(left_);
  if (!from.stored.empty()) run->stored.reserve(left_);
  // While this bin holds the best result left: left_ <= the results the
  // heads hold, so a head is there.
  do {
    const size_t j = heads_.front().at;
    run->docs.push_back(from.docs[j]);
    run->scores.push_back(from.scores[j]);
    if (!from.stored.empty()) run->stored.push_back(std::move(bins_[source].stored[j]));
    Pop();
  } while (--left_ > 0 && heads_.front().bin == source);
  run->bin = from.bin;
  run->tablet = from.tablet;
  run->fast_path = from.fast_path;
  run->count = run->docs.size();
  return true;
}

}  // namespace dps
