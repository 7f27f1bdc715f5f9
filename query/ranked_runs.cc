#include "query/ranked_runs.h"

#include <algorithm>
#include <unordered_map>

#include "shards/top_k.h"

namespace dps {

RankedAnswer RankedRuns(std::vector<BinResult>* bins, size_t top_k, size_t offset) {
  std::vector<std::vector<ScoredDoc>> lists;
  std::unordered_map<uint32_t, size_t> of_bin;  // bin -> index in *bins
  size_t candidates = 0;
  for (size_t i = 0; i < bins->size(); ++i) {
    const BinResult& b = (*bins)[i];
    of_bin[b.bin.value] = i;
    candidates += b.docs.size();
    auto& list = lists.emplace_back();
    list.reserve(b.docs.size());
    for (size_t j = 0; j < b.docs.size(); ++j) list.push_back({b.scores[j], b.bin.value, b.docs[j]});
  }
  // The merge sizes its collector by K: a page far beyond the answer
  // (--offset 10^12) must not allocate for it.
  const std::vector<ScoredDoc> best = MergeTopK(lists, std::min(top_k + offset, candidates));
  RankedAnswer answer;
  answer.skipped = std::min<uint64_t>(offset, best.size());
  // What the merge kept of one bin is a prefix of its list, in its order
  // (the list is best first in the merge's own order): a cursor per bin
  // finds each kept doc's stored record.
  std::vector<size_t> cursor(bins->size(), 0);
  for (size_t at = 0; at < best.size();) {
    const size_t source = of_bin.at(best[at].bin);
    BinResult& from = (*bins)[source];
    BinResult run;
    const bool keep = at >= answer.skipped;
    for (; at < best.size() && best[at].bin == from.bin.value && (at >= answer.skipped) == keep; ++at) {
      const size_t j = cursor[source]++;
      if (!keep) continue;
      run.docs.push_back(from.docs[j]);
      run.scores.push_back(from.scores[j]);
      if (!from.stored.empty()) run.stored.push_back(std::move(from.stored[j]));
    }
    if (!keep) continue;
    run.bin = from.bin;
    run.tablet = from.tablet;
    run.fast_path = from.fast_path;
    run.count = run.docs.size();
    answer.runs.push_back(std::move(run));
  }
  return answer;
}

}  // namespace dps
