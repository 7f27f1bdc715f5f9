// Term-at-a-time exhaustive ranking: shards/ranking.h RankBinByTerm.
#include <algorithm>

#include "shards/bin_lengths.h"
#include "shards/ranking.h"

namespace dps {

namespace {

// The first index in [i, n) whose match is >= d (n if none), galloping:
// O(log distance), so a term with few postings skips the matches between
// them cheaply.
size_t Gallop(const std::vector<DocId>& matches, size_t i, DocId d) {
  size_t step = 1, lo = i, hi = i;
  while (hi < matches.size() && matches[hi] < d) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  hi = std::min(hi, matches.size());
  return static_cast<size_t>(std::lower_bound(matches.begin() + static_cast<std::ptrdiff_t>(lo),
                                              matches.begin() + static_cast<std::ptrdiff_t>(hi), d) -
                             matches.begin());
}

}  // namespace

Status RankBinByTerm(const Tablet& tablet, const QueryPlan& plan, BinId bin, const RankContext& rank,
                     const std::vector<DocId>& matches, size_t k, std::vector<ScoredDoc>* out) {
  out->clear();
  if (k == 0 || matches.empty()) return Status::OK();
  const size_t m = matches.size();
  // Each match's norm in each column a term lies in (most often only the
  // default field's), computed once.
  const size_t columns = rank.column_bm25.size();
  std::vector<std::vector<double>> norms(columns);
  for (uint32_t c : rank.term_column) {
    if (!norms[c].empty()) continue;
    const BinLengths lengths(tablet, bin, c);
    norms[c].resize(m);
    for (size_t i = 0; i < m; ++i) norms[c][i] = rank.column_bm25[c].Norm(lengths.Of(matches[i]));
  }
  std::vector<double> score(m, 0.0);
  // One cursor for every term: the matches are live documents already, so
  // a term's lists need no tombstone filter, only the matches they hold.
  PostingCursor cursor;
  const size_t terms = std::min(plan.highlight.size(), plan.terms.entries.size());
  for (size_t t = 0; t < terms; ++t) {
    const double idf = rank.idf[t];
    const std::vector<double>& norm = norms[rank.term_column[t]];
    size_t i = 0;  // the matches before i are behind every docid of the term read so far
    DocId last = 0;
    bool first = true;
    for (const TermRef& r : plan.terms.entries[t].second.RefsOf(bin)) {
      const TabletReader* file;
      PostingRef ref;
      DPS_RETURN_IF_ERROR(tablet.ResolveRef(r, &file, &ref));
      DPS_RETURN_IF_ERROR(file->OpenCursor(ref, &cursor));
      DocId d = cursor.doc();
      if (!first && d <= last) {  // the files hold ascending docid ranges
        return Status::Corruption("posting lists of one term do not ascend across the tablet's files");
      }
      first = false;
      last = cursor.last_doc();
      while (d != kEndDoc && i < m) {
        if (d < matches[i]) {
          d = cursor.Seek(matches[i]);
        } else if (d > matches[i]) {
          i = Gallop(matches, i + 1, d);
        } else {
          score[i] += Bm25::ScoreWithNorm(idf, cursor.weight(), norm[i]);
          ++i;
          d = cursor.Next();
        }
      }
      DPS_RETURN_IF_ERROR(cursor.status());
      if (i == m) break;
    }
  }
  TopK top(k);
  for (size_t i = 0; i < m; ++i) top.Offer({score[i], bin.value, matches[i]});
  *out = top.Take();
  return Status::OK();
}

}  // namespace dps
