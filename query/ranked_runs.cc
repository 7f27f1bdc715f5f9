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

RankedRuns::RankedRuns(std::vector<BinResult>* bins, size_t top_k, size_t offset) : bins_(bins) {
  size_t candidates = 0;
  heads_.reserve(bins->size());
  for (size_t i = 0; i < bins->size(); ++i) {
    const BinResult& b = (*bins)[i];
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
  const BinResult& b = (*bins_)[next.bin];
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
  std::vector<DocId> docs = std::move(run->docs);
  std::vector<double> scores = std::move(run->scores);
  std::vector<StoredDoc> stored = std::move(run->stored);
  docs.clear();
  scores.clear();
  stored.clear();
  const size_t source = heads_.front().bin;
  BinResult& from = (*bins_)[source];
  // While this bin holds the best result left: left_ <= the results the
  // heads hold, so a head is there.
  do {
    const size_t j = heads_.front().at;
    docs.push_back(from.docs[j]);
    scores.push_back(from.scores[j]);
    if (!from.stored.empty()) stored.push_back(std::move(from.stored[j]));
    Pop();
  } while (--left_ > 0 && heads_.front().bin == source);
  *run = BinResult();
  run->bin = from.bin;
  run->tablet = from.tablet;
  run->fast_path = from.fast_path;
  run->count = docs.size();
  run->docs = std::move(docs);
  run->scores = std::move(scores);
  run->stored = std::move(stored);
  return true;
}

}  // namespace dps
