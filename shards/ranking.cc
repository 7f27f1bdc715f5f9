#include "shards/ranking.h"

#include <memory>

namespace dps {

RankContext::RankContext(const QueryPlan& plan, const CollectionStats& stats, Bm25Params params)
    : bm25(params, stats) {
  idf.reserve(plan.highlight.size());
  for (const auto& term : plan.highlight) {
    const GlobalTermInfo* info = plan.terms.Find(term);
    idf.push_back(info == nullptr || info->df == 0 ? 0.0 : Bm25Idf(stats.documents, info->df));
  }
}

namespace {
// A document's length from the file of `tablet` that stores it (0 when no
// file does: it cannot match then).
uint32_t DocLength(const Tablet& tablet, BinId bin, DocId docid) {
  for (const auto& file : tablet.files()) {
    const int i = file->FindBin(bin);
    if (i < 0) continue;
    const BinInfo& b = file->bin(static_cast<size_t>(i));
    if (b.num_docs > 0 && docid >= b.min_docid && docid <= b.max_docid) {
      return file->lengths(static_cast<size_t>(i)).Get(docid);
    }
  }
  return 0;
}
}  // namespace

Status RankBin(const Tablet& tablet, const QueryPlan& plan, BinId bin, const RankContext& rank,
               const std::vector<DocId>& matches, size_t k, std::vector<ScoredDoc>* out) {
  out->clear();
  if (k == 0 || matches.empty()) return Status::OK();
  // One cursor per positive term, walked forward with the matches.
  std::vector<std::unique_ptr<TermIterator>> terms(plan.highlight.size());
  for (size_t t = 0; t < terms.size(); ++t) {
    const GlobalTermInfo* info = plan.terms.Find(plan.highlight[t]);
    if (info == nullptr) continue;
    DPS_ASSIGN_OR_RETURN(terms[t], tablet.OpenRefs(bin, info->RefsOf(bin)));
  }
  TopK top(k);
  for (DocId d : matches) {
    const uint32_t dl = DocLength(tablet, bin, d);
    double score = 0;
    for (size_t t = 0; t < terms.size(); ++t) {  // the same order for every document and bound
      if (terms[t] == nullptr || terms[t]->Seek(d) != d) continue;
      score += rank.bm25.TermScore(rank.idf[t], terms[t]->weight(), dl);
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
