// A single term's ranking, its blocks visited best first:
// pruned::RankTermBestFirst (shards/pruned_terms.h). In docid order a bin
// scores every block until its K-th best is high, and most blocks' bounds
// beat a threshold that is still low (gcide 'webster': 40 of bin 0's 220
// blocks scored where 10 would do). Scored in the order of their bounds,
// the best blocks raise the threshold to its final height at once, and the
// rest are passed over on their bound alone: blocks in score order, for
// the one case where block scores are read at random for free (one term,
// the default k1 and b). Within a scored block, the postings that cannot
// reach the threshold are passed over on tf and dl alone (LengthCut).
#include <algorithm>
#include <limits>

#include "shards/pruned_terms.h"

namespace dps::pruned {

namespace {

// The most blocks chosen for the first round: enough to hold the K best
// of a list whose best documents are spread one a block, few enough that
// keeping them sorted while the scores go by stays a handful of compares.
constexpr size_t kMaxBest = 32;

// Which postings can reach a threshold T, judged on tf and dl without a
// division. A score idf / (1 + Norm(dl) / tf) reaches T only when Norm(dl)
// <= tf (idf / T - 1), and Norm is affine in dl (n0 + n1 dl): so only when
// dl <= tf a - c, a = (idf / T - 1) / n1, c = n0 / n1. The computed scores
// are correctly rounded steps, off by a few ulps; one more unit of dl, or
// a relative 1e-9 of the line (tf idf / (T n1), the distance from the
// pole), lowers the true score far more (by a relative 1e-9 at least), so a
// posting beyond the widened line scores below T, exactly computed too.
// The rest are scored exactly and offered.
class LengthCut {
 public:
  // No cut until there is a threshold (or when Norm does not grow with dl).
  LengthCut(const Bm25& bm25, double idf, double threshold) {
    constexpr double kSpan = 1 << 20;
    const double n0 = bm25.Norm(0), n1 = (bm25.Norm(static_cast<uint32_t>(kSpan)) - n0) / kSpan;
    if (!(threshold > 0) || !(n1 > 0)) return;
    slope_ = (idf / threshold - 1) / n1 + 1e-9 * idf / (threshold * n1);
    offset_ = n0 / n1 - 1;
  }
  bool Keeps(uint32_t tf, uint32_t dl) const { return static_cast<double>(dl) <= Line(tf); }
  // False when no length (dl >= 0) keeps tf: the posting is passed over
  // before its length is read (a frequent term's tf = 1 postings, once the
  // threshold is above the score of tf 1 at dl 0). The same line as Keeps,
  // so Keeps(tf, dl) implies it for every dl.
  bool MayKeep(uint32_t tf) const { return Line(tf) >= 0; }

 private:
  double Line(uint32_t tf) const { return tf * slope_ - offset_; }
  double slope_ = std::numeric_limits<double>::infinity(), offset_ = 0;
};

// Scores the postings of the cursor's run (a block, or a list kept
// inline) that can reach the threshold (LengthCut) and offers them:
// lengths and the cut first, then the divisions with no call or branch
// between one document's and the next's, then the offers. Bit for bit
// RankBin's scores (a single term's sum is its one part). Inlined in
// both callers: out of line, GCC's code for it was 6% slower on gcide.
[[gnu::always_inline]] inline Status ScoreRun(const BoundedTerm& t, const OneFileBin& one, BinId bin, const Bm25& bm25, PrunedTopK* top) {
  PostingCursor* c = t.cursor;
  const DocId* docs = c->run();
  const size_t n = c->run_size();
  const uint32_t* tf = c->run_weights();
  if (tf == nullptr) return c->status();
  DPS_RETURN_IF_ERROR(CheckDocInFile(one, bin, docs[0]));
  DPS_RETURN_IF_ERROR(CheckDocInFile(one, bin, docs[n - 1]));  // ascending: all between are
  const LengthCut cut(bm25, t.idf, top->Refresh());
  // tf alone first: most of a frequent term's postings (tf 1) cannot
  // reach a high threshold at any length, and their lengths (a random
  // read each, the run's cache misses) are never read.
  uint32_t maybe[kBlockSize], dl[kBlockSize], kept[kBlockSize];
  size_t candidates = 0;
  for (size_t i = 0; i < n; ++i) {
    maybe[candidates] = static_cast<uint32_t>(i);
    candidates += cut.MayKeep(tf[i]);
  }
  for (size_t j = 0; j < candidates; ++j) dl[j] = one.lengths->Get(docs[maybe[j]]);
  size_t m = 0;
  for (size_t j = 0; j < candidates; ++j) {
    kept[m] = maybe[j];
    dl[m] = dl[j];  // m <= j
    m += cut.Keeps(tf[maybe[j]], dl[j]);
  }
  double score[kBlockSize];
  for (size_t j = 0; j < m; ++j) score[j] = Bm25::ScoreWithNorm(t.idf, tf[kept[j]], bm25.Norm(dl[j]));
  for (size_t j = 0; j < m; ++j) top->Offer(score[j], bin, docs[kept[j]]);
  return Status::OK();
}

Status ScoreBlock(const BoundedTerm& t, size_t b, const OneFileBin& one, BinId bin, const Bm25& bm25,
                  PrunedTopK* top) {
  if (t.cursor->SeekBlock(b) == kEndDoc) {
    return t.cursor->status().ok() ? Status::Corruption("posting list block " + std::to_string(b) + " is empty")
                                   : t.cursor->status();
  }
  return ScoreRun(t, one, bin, bm25, top);
}

}  // namespace

Status RankTermBestFirst(const BoundedTerm& t, size_t k, const OneFileBin& one, BinId bin, const Bm25& bm25,
                         PrunedTopK* top) {
  // A list kept inline is one decoded run with no stored bound: scored whole.
  if (!t.stored_impacts) return ScoreRun(t, one, bin, bm25, top);
  const PostingCursor& c = *t.cursor;
  const size_t blocks = c.num_blocks();
  // A block whose bound is below the threshold cannot add a document.
  // The bound grows with the score (each step of BlockScoreBound is a
  // correctly rounded operation monotone in it), so comparing scores with
  // the least score reaching the threshold is comparing the bounds.
  auto bound = [&](uint32_t score) { return bm25.BlockScoreBound(t.idf, score, t.score_avgdl); };
  auto least_reaching = [&](double threshold) {
    uint32_t lo = 0, hi = 65536;  // 0: every score (no threshold), 65536: none
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (bound(mid) >= threshold) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  };

  // The first round: the best blocks by score (the earlier first among
  // equals), found in one pass over the u16 scores without sorting them
  // all, then scored best first while each one's bound reaches the
  // threshold. One below it ends the ranking: every block left scores no
  // higher.
  const size_t m = std::min(blocks, std::clamp<size_t>(k, 4, kMaxBest));
  uint32_t best[kMaxBest], best_score[kMaxBest];
  size_t found = 0;
  for (size_t b = 0; b < blocks; ++b) {
    const uint32_t s = c.block_score(b);
    if (s == 0) return t.cursor->BadBlockScore(b);  // corrupt: would bound the block at 0
    if (found == m && s <= best_score[m - 1]) continue;
    size_t i = found < m ? found++ : m - 1;
    for (; i > 0 && best_score[i - 1] < s; --i) {
      best[i] = best[i - 1];
      best_score[i] = best_score[i - 1];
    }
    best[i] = static_cast<uint32_t>(b);
    best_score[i] = s;
  }
  for (size_t i = 0; i < found; ++i) {
    if (bound(best_score[i]) < top->Refresh()) {
      top->Skipped(blocks - i);
      return Status::OK();
    }
    DPS_RETURN_IF_ERROR(ScoreBlock(t, best[i], one, bin, bm25, top));
  }
  if (found == blocks) return Status::OK();

  // The rest in docid order, each block scored unless its bound is below
  // the threshold, the first round's never again.
  std::sort(best, best + found);
  double threshold = top->Refresh();
  uint32_t least = least_reaching(threshold);
  for (size_t b = 0, next_best = 0; b < blocks; ++b) {
    if (next_best < found && best[next_best] == b) {
      ++next_best;
      continue;
    }
    if (c.block_score(b) < least) {
      top->Skipped();
      continue;
    }
    DPS_RETURN_IF_ERROR(ScoreBlock(t, b, one, bin, bm25, top));
    if (const double now = top->Refresh(); now != threshold) {
      threshold = now;
      least = least_reaching(threshold);
    }
  }
  return Status::OK();
}

}  // namespace dps::pruned
