#include "shards/ranking.h"

#include <algorithm>
#include <limits>
#include <memory>

namespace dps {

RankContext::RankContext(const QueryPlan& plan, const CollectionStats& stats, Bm25Params params)
    : bm25(params, stats) {
  idf.reserve(plan.highlight.size());
  for (const auto& term : plan.highlight) {
    const GlobalTermInfo* info = plan.terms.Find(term);
    idf.push_back(info == nullptr || info->df == 0 ? 0.0 : Bm25Idf(stats.documents, info->df));
  }
  for (const auto& words : plan.phrases) {
    double sum = 0;
    for (size_t w : words) sum += idf[w];
    phrase_idf.push_back(sum);
  }
}

namespace {
// Where a bin's document lengths are: the files storing documents of the
// bin, looked up once per bin instead of once per scored document.
class BinLengths {
 public:
  BinLengths(const Tablet& tablet, BinId bin) {
    for (const auto& file : tablet.files()) {
      const int i = file->FindBin(bin);
      if (i < 0 || file->bin(static_cast<size_t>(i)).num_docs == 0) continue;
      const BinInfo& b = file->bin(static_cast<size_t>(i));
      ranges_.push_back({b.min_docid, b.max_docid, &file->lengths(static_cast<size_t>(i))});
    }
  }
  // The length of `docid` from the file storing it (0 when none does: it
  // cannot match then).
  uint32_t Of(DocId docid) const {
    for (const Range& r : ranges_) {
      if (docid >= r.min && docid <= r.max) return r.lengths->Get(docid);
    }
    return 0;
  }

 private:
  struct Range {
    DocId min, max;
    const DocLengthsReader* lengths;
  };
  std::vector<Range> ranges_;
};
}  // namespace

Status RankBin(const Tablet& tablet, const QueryPlan& plan, BinId bin, const RankContext& rank,
               const std::vector<DocId>& matches, size_t k, std::vector<ScoredDoc>* out) {
  out->clear();
  if (k == 0 || matches.empty()) return Status::OK();
  // One cursor per positive term, walked forward with the matches.
  // A term only inside phrases scores through them (plan.scored_terms).
  std::vector<std::unique_ptr<TermIterator>> terms(plan.highlight.size());
  for (size_t t = 0; t < terms.size(); ++t) {
    const GlobalTermInfo* info = plan.terms.Find(plan.highlight[t]);
    if (info == nullptr || !plan.scored_terms[t]) continue;
    DPS_ASSIGN_OR_RETURN(terms[t], tablet.OpenRefs(bin, info->RefsOf(bin)));
  }
  std::vector<std::unique_ptr<PhraseIterator>> phrases(plan.phrases.size());
  for (size_t p = 0; p < phrases.size(); ++p) {
    std::vector<std::string> words;
    for (size_t w : plan.phrases[p]) words.push_back(plan.highlight[w]);
    DPS_ASSIGN_OR_RETURN(phrases[p], OpenPhrase(tablet, bin, words, plan.terms));
  }
  const BinLengths lengths(tablet, bin);
  TopK top(k);
  std::vector<uint32_t> tf(terms.size()), occurrences(phrases.size());
  for (DocId d : matches) {
    // Weights first (0: the document lacks the term, an OR's), then the
    // arithmetic, whose divisions overlap with no call between them.
    for (size_t t = 0; t < terms.size(); ++t) {
      tf[t] = terms[t] != nullptr && terms[t]->Seek(d) == d ? terms[t]->weight() : 0;
    }
    for (size_t p = 0; p < phrases.size(); ++p) {
      occurrences[p] = phrases[p] != nullptr && phrases[p]->Seek(d) == d ? phrases[p]->Occurrences() : 0;
    }
    const double norm = rank.bm25.Norm(lengths.Of(d));
    double score = 0;
    for (size_t t = 0; t < terms.size(); ++t) {  // the same order for every document and bound
      if (tf[t] != 0) score += Bm25::ScoreWithNorm(rank.idf[t], tf[t], norm);
    }
    for (size_t p = 0; p < phrases.size(); ++p) {  // then the phrases, in query order
      if (occurrences[p] != 0) score += Bm25::ScoreWithNorm(rank.phrase_idf[p], occurrences[p], norm);
    }
    top.Offer({score, bin.value, d});
  }
  for (const auto& t : terms) {
    if (t != nullptr) DPS_RETURN_IF_ERROR(t->status());
  }
  for (const auto& p : phrases) {
    if (p != nullptr) DPS_RETURN_IF_ERROR(p->status());
  }
  *out = top.Take();
  return Status::OK();
}

}  // namespace dps

