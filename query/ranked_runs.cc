#include "query/ranked_runs.h"

#include <algorithm>
#include <utility>

namespace dps {

RankedRuns::RankedRuns(std::vector<BinResult>* bins, size_t top_k, size_t offset) : bins_(bins) {
  size_t candidates = 0;
  sources_.reserve(bins->size());
  for (size_t i = 0; i < bins->size(); ++i) {
    const BinResult& b = (*bins)[i];
    candidates += b.docs.size();
    sources_.push_back({b.bin.value, i, 0});
  }
  std::sort(sources_.begin(), sources_.end(), [](const Source& a, const Source& b) { return a.bin < b.bin; });
  // The merge sizes its collector by K: a page far beyond the answer
  // (--offset 10^12) must not allocate for it.
  TopK top(std::min(top_k + offset, candidates));
  for (const BinResult& b : *bins) {
    for (size_t j = 0; j < b.docs.size(); ++j) {
      // Best first: once one is refused, the rest of the list cannot enter either.
      if (!top.Offer({b.scores[j], b.bin.value, b.docs[j]})) break;
    }
  }
  best_ = top.Take();
  skipped_ = std::min<uint64_t>(offset, best_.size());
}

RankedRuns::Source& RankedRuns::SourceOf(uint32_t bin) {
  return *std::lower_bound(sources_.begin(), sources_.end(), bin,
                           [](const Source& s, uint32_t b) { return s.bin < b; });
}

bool RankedRuns::Next(BinResult* run) {
  // What the merge kept of one bin is a prefix of its list, in its order
  // (the list is best first in the merge's own order): a cursor per bin
  // finds each kept doc's stored record, past the skipped ones.
  for (; at_ < skipped_; ++at_) ++SourceOf(best_[at_].bin).taken;
  if (at_ == best_.size()) return false;
  std::vector<DocId> docs = std::move(run->docs);
  std::vector<double> scores = std::move(run->scores);
  std::vector<StoredDoc> stored = std::move(run->stored);
  docs.clear();
  scores.clear();
  stored.clear();
  Source& source = SourceOf(best_[at_].bin);
  BinResult& from = (*bins_)[source.index];
  for (; at_ < best_.size() && best_[at_].bin == source.bin; ++at_) {
    const size_t j = source.taken++;
    docs.push_back(from.docs[j]);
    scores.push_back(from.scores[j]);
    if (!from.stored.empty()) stored.push_back(std::move(from.stored[j]));
  }
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
