// MaxScore for ranked disjunctions (Turtle & Flood, "Query evaluation:
// strategies and optimizations", IP&M 1995; as in PISA and Lucene 9):
// shards/ranking.h RankBinMaxScore.
#include <algorithm>

#include "shards/pruned_terms.h"

namespace dps {

using pruned::BoundedTerm;

namespace {
// Bounds and partial scores are added in another order than the exact
// score (the plan's highlight order): a candidate is dropped only when its
// bound, enlarged far beyond any rounding of at most 16 additions, is still
// below the threshold.
constexpr double kSlack = 1 + 1e-9;

bool IsDisjunctionOfTerms(const QueryNode& root) {
  if (root.kind != QueryNode::Kind::kOr) return false;
  return std::all_of(root.children.begin(), root.children.end(),
                     [](const QueryNode& c) { return c.kind == QueryNode::Kind::kTerm && !c.negated; });
}
}  // namespace

Status RankBinMaxScore(const Tablet& tablet, const QueryPlan& plan, BinId bin, const RankContext& rank, size_t k,
                       SharedThreshold* shared, std::vector<ScoredDoc>* out, bool* handled, RankStats* stats,
                       const std::atomic<bool>* cancel) {
  out->clear();
  *handled = false;
  const size_t n = plan.highlight.size();
  if (!IsDisjunctionOfTerms(plan.root) || n == 0 || n > pruned::kMaxTerms || n != rank.idf.size() || k == 0) {
    return Status::OK();
  }
  pruned::OneFileBin one;
  if (!pruned::FindOneFileBin(tablet, bin, rank, &one)) return Status::OK();
  *handled = true;
  if (one.file == nullptr || one.info->num_docs == 0) return Status::OK();
  if (shared != nullptr && pruned::BinBound(plan, bin, one, rank) < shared->get()) {
    // Other bins already hold K documents this one cannot beat: no list opened.
    if (stats != nullptr) ++stats->skipped_ranges;
    return Status::OK();
  }
  const Bm25& bm25 = rank.bm25;
  // The terms present in the bin, by ascending list bound; prefix[i]: the
  // bounds of the first i + 1 added.
  pruned::TermSlots terms;
  double list_bound[pruned::kMaxTerms];
  size_t m = 0;
  for (size_t h = 0; h < n; ++h) {
    bool present;
    DPS_RETURN_IF_ERROR(pruned::OpenBoundedTerm(tablet, plan, bin, one, rank, h, pruned::Cursor(m), &terms[m], &present));
    if (present) ++m;
  }
  size_t order[pruned::kMaxTerms];
  for (size_t i = 0; i < m; ++i) order[i] = i;
  double prefix[pruned::kMaxTerms];
  // The bounds are read once there is a threshold to compare them with
  // (every impact entry of each list: a bin that never fills its K, or is
  // never outscored, pays nothing for them).
  bool bounded = false;
  auto take_bounds = [&]() -> Status {
    for (size_t i = 0; i < m; ++i) DPS_RETURN_IF_ERROR(pruned::ListBound(bm25, &terms[i], &list_bound[i]));
    std::sort(order, order + m, [&](size_t a, size_t b) { return list_bound[a] < list_bound[b]; });
    for (size_t i = 0; i < m; ++i) prefix[i] = (i == 0 ? 0 : prefix[i - 1]) + list_bound[order[i]];
    bounded = true;
    return Status::OK();
  };

  pruned::PrunedTopK top(k, shared, out);  // in *out's room
  // Terms order[0 .. essential) cannot make a document enter on their own:
  // only the others' documents are candidates, and those terms are only
  // probed for a candidate that can still enter.
  size_t essential = 0;
  for (uint32_t step = 0;; ++step) {
    if (step % pruned::kCancelStride == 0 && pruned::Cancelled(cancel)) break;
    const double threshold = top.Refresh();
    if (!bounded && threshold != pruned::kNoThreshold) DPS_RETURN_IF_ERROR(take_bounds());
    while (bounded && essential < m && prefix[essential] * kSlack < threshold) ++essential;
    if (essential == m) break;
    DocId d = kEndDoc;
    for (size_t i = essential; i < m; ++i) d = std::min(d, terms[order[i]].cursor->doc());
    if (d == kEndDoc) break;
    DPS_RETURN_IF_ERROR(pruned::CheckDocInFile(one, bin, d));
    const double norm = bm25.Norm(one.lengths->Get(d));
    uint32_t tf[pruned::kMaxTerms] = {};  // by highlight index; 0: not in the document
    double partial = 0;
    for (size_t i = essential; i < m; ++i) {
      BoundedTerm& t = terms[order[i]];
      if (t.cursor->doc() != d) continue;
      tf[t.highlight] = t.cursor->weight();
      partial += Bm25::ScoreWithNorm(t.idf, tf[t.highlight], norm);
    }
    bool can_enter = true;
    for (size_t i = essential; i-- > 0;) {  // the likeliest to matter first
      if ((partial + prefix[i]) * kSlack < threshold) {
        can_enter = false;
        break;
      }
      BoundedTerm& t = terms[order[i]];
      if (t.cursor->Seek(d) != d) continue;
      tf[t.highlight] = t.cursor->weight_alone();  // probed: a posting or two a block
      partial += Bm25::ScoreWithNorm(t.idf, tf[t.highlight], norm);
    }
    if (can_enter) {
      double score = 0;  // exactly RankBin's: the highlight order
      for (size_t h = 0; h < n; ++h) {
        if (tf[h] != 0) score += Bm25::ScoreWithNorm(rank.idf[h], tf[h], norm);
      }
      top.Offer(score, bin, d);
    } else {
      top.Skipped();
    }
    for (size_t i = essential; i < m; ++i) {
      if (terms[order[i]].cursor->doc() == d) terms[order[i]].cursor->Next();
    }
  }
  for (size_t i = 0; i < m; ++i) DPS_RETURN_IF_ERROR(terms[i].cursor->status());
  top.Finish(out, stats);
  return Status::OK();
}

}  // namespace dps
