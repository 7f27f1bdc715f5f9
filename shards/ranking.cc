#include "shards/ranking.h"

#include <algorithm>
#include <limits>
#include <memory>

#include "shards/bin_lengths.h"

namespace dps {

RankContext::RankContext(const QueryPlan& plan, const CollectionStats& stats, Bm25Params params)
    : bm25(params, stats) {
  idf.reserve(plan.highlight.size());
  for (size_t h = 0; h < plan.highlight.size(); ++h) {
    // entries[h] is highlight[h]'s (an empty plan may have no entries).
    const uint64_t df = h < plan.terms.entries.size() ? plan.terms.entries[h].second.df : 0;
    idf.push_back(df == 0 ? 0.0 : Bm25Idf(stats.documents, df));
  }
}


Status RankBin(const Tablet& tablet, const QueryPlan& plan, BinId bin, const RankContext& rank,
               const std::vector<DocId>& matches, size_t k, std::vector<ScoredDoc>* out) {
  out->clear();
  if (k == 0 || matches.empty()) return Status::OK();
  if (plan.highlight.size() > kMaxDocAtATimeTerms) return RankBinByTerm(tablet, plan, bin, rank, matches, k, out);
  const BinLengths lengths(tablet, bin);
  // One cursor per positive term, walked forward with the matches.
  std::vector<std::unique_ptr<TermIterator>> terms(plan.highlight.size());
  for (size_t t = 0; t < terms.size() && t < plan.terms.entries.size(); ++t) {
    DPS_ASSIGN_OR_RETURN(terms[t], tablet.OpenRefs(bin, plan.terms.entries[t].second.RefsOf(bin)));
  }
  TopK top(k);
  std::vector<uint32_t> tf(terms.size());
  for (DocId d : matches) {
    // Weights first (0: the document lacks the term, an OR's), then the
    // arithmetic, whose divisions overlap with no call between them.
    for (size_t t = 0; t < terms.size(); ++t) {
      tf[t] = terms[t] != nullptr && terms[t]->Seek(d) == d ? terms[t]->weight() : 0;
    }
    const double norm = rank.bm25.Norm(lengths.Of(d));
    double score = 0;
    for (size_t t = 0; t < terms.size(); ++t) {  // the same order for every document and bound
      if (tf[t] != 0) score += Bm25::ScoreWithNorm(rank.idf[t], tf[t], norm);
    }
    top.Offer({score, bin.value, d});
  }
  for (const auto& t : terms) {
    if (t != nullptr) DPS_RETURN_IF_ERROR(t->status());
  }
  *out = top.Take();
  return Status::OK();
}

}  // namespace dps

