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
// Several bins ranked at once take their first rounds in one order, best
// block of any bin first (the bins of a query share the threshold, and a
// bin's second best block is often below another's best): bin by bin,
// gcide's single common and frequent terms scored 998 blocks, across the
// bins 583, and 410 reach the final threshold.
// Before any block is scored, the threshold starts at the K-th highest of
// the first rounds' block floors (Bm25::BlockScoreFloor: a score some
// document of the block reaches), near its final height, so even the first
// blocks' postings are mostly passed over on tf and dl, most of their
// lengths never read.
#include <algorithm>
#include <functional>
#include <limits>
#include <span>
#include <vector>

#include "index/score_scan.h"
#include "shards/pruned_terms.h"

namespace dps::pruned {

namespace {

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
  // read each, the run's cache misses) are never read. Only a filter
  // (Keeps implies MayKeep): skipped when tf 1 passes it, as it then
  // drops next to nothing (a medium term's blocks, a first block).
  uint32_t maybe[kBlockSize], dl[kBlockSize], kept[kBlockSize];
  size_t candidates = 0;
  if (cut.MayKeep(1)) {
    for (size_t i = 0; i < n; ++i) maybe[i] = static_cast<uint32_t>(i);
    candidates = n;
  } else {
    for (size_t i = 0; i < n; ++i) {
      maybe[candidates] = static_cast<uint32_t>(i);
      candidates += cut.MayKeep(tf[i]);
    }
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
  top->RaiseToKthBestOf(score, m);
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

// A block of the first round, in the order the round scores them.
struct Candidate {
  double bound;    // of every score in the block
  uint32_t score;  // its block score (bound grows with it)
  uint32_t bin;    // index into the bins ranked
  uint32_t block;
};

// Bound first, then the block score (one bin's bounds may tie where its
// scores do not), then the earlier bin and block.
bool ScoredBefore(const Candidate& a, const Candidate& b) {
  if (a.bound != b.bound) return a.bound > b.bound;
  if (a.score != b.score) return a.score > b.score;
  if (a.bin != b.bin) return a.bin < b.bin;
  return a.block < b.block;
}

// One bin's first round: its best blocks (by block score) and how many of
// them were scored; done once a block below its threshold ended it.
struct FirstRound {
  uint32_t best[kMaxFirstRound];
  size_t found = 0, scored = 0;
  bool done = false;
};

// The bin's best blocks by score (the earlier first among equals), found
// in one pass over the u16 scores without sorting them all, pushed as
// candidates of bin `index`.
Status FindBest(const TermInBin& b, uint32_t index, size_t k, const Bm25& bm25, FirstRound* round,
                std::vector<Candidate>* candidates) {
  const BoundedTerm& t = *b.term;
  const PostingCursor& c = *t.cursor;
  const size_t blocks = c.num_blocks();
  const size_t m = std::min(blocks, std::clamp<size_t>(k, 4, kMaxFirstRound));
  uint32_t best_score[kMaxFirstRound];
  const uint8_t* scores = c.block_scores();
  // Corrupt: would bound the block at 0.
  if (const size_t zero = FirstZeroScore(scores, blocks); zero < blocks) return t.cursor->BadBlockScore(zero);
  size_t found = 0;
  for (size_t i = 0; i < blocks; ++i) {
    if (found == m) {  // only a higher score enters (the earlier first among equals)
      i = NextScoreAtLeast(scores, i, blocks, best_score[m - 1] + 1);
      if (i == blocks) break;
    }
    const uint32_t s = c.block_score(i);
    size_t j = found < m ? found++ : m - 1;
    for (; j > 0 && best_score[j - 1] < s; --j) {
      round->best[j] = round->best[j - 1];
      best_score[j] = best_score[j - 1];
    }
    round->best[j] = static_cast<uint32_t>(i);
    best_score[j] = s;
  }
  round->found = found;
  for (size_t j = 0; j < found; ++j) {
    candidates->push_back({bm25.BlockScoreBound(t.idf, best_score[j], t.score_avgdl), best_score[j], index, round->best[j]});
  }
  return Status::OK();
}

// The bin's blocks left after its first round, in docid order, each
// scored unless its bound is below the threshold, the first round's never
// again.
Status RankRest(const TermInBin& b, const Bm25& bm25, FirstRound* round, const std::atomic<bool>* cancel) {
  const BoundedTerm& t = *b.term;
  const PostingCursor& c = *t.cursor;
  // A block whose bound is below the threshold cannot add a document.
  // The bound grows with the score (each step of BlockScoreBound is a
  // correctly rounded operation monotone in it), so comparing scores with
  // the least score reaching the threshold is comparing the bounds.
  auto least_reaching = [&](double threshold) {
    uint32_t lo = 0, hi = 65536;  // 0: every score (no threshold), 65536: none
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (bm25.BlockScoreBound(t.idf, mid, t.score_avgdl) >= threshold) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  };
  uint32_t* best = round->best;
  const size_t found = round->found;
  std::sort(best, best + found);
  double threshold = b.top->Refresh();
  uint32_t least = least_reaching(threshold);
  const size_t blocks = c.num_blocks();
  for (size_t i = 0, next_best = 0; i < blocks; ++i) {
    // [i, reach): below the threshold, passed over (the first round's
    // blocks among them are not counted: they were scored).
    const size_t reach = NextScoreAtLeast(c.block_scores(), i, blocks, least);
    size_t firsts = 0;
    for (; next_best < found && best[next_best] < reach; ++next_best) ++firsts;
    if (reach - i > firsts) b.top->Skipped(reach - i - firsts);
    if (reach == blocks) break;
    i = reach;
    if (next_best < found && best[next_best] == i) {
      ++next_best;
      continue;
    }
    if (Cancelled(cancel)) return Status::OK();
    DPS_RETURN_IF_ERROR(ScoreBlock(t, i, *b.one, b.bin, bm25, b.top));
    if (const double now = b.top->Refresh(); now != threshold) {
      threshold = now;
      least = least_reaching(threshold);
    }
  }
  return Status::OK();
}

}  // namespace

Status RankTermBestFirst(std::span<TermInBin> bins, size_t k, const Bm25& bm25, SharedThreshold* shared,
                         const std::function<Status(TermInBin*)>& open, const std::atomic<bool>* cancel) {
  // Reused by this thread's rankings: no allocation once warm.
  thread_local std::vector<FirstRound> rounds;
  thread_local std::vector<Candidate> candidates;  // a heap, the next to score in front
  // The K highest block floors seen (a heap, the least in front): across
  // the bins when they share a threshold, else each bin's own.
  thread_local std::vector<double> floors;
  const bool across = shared != nullptr || bins.size() == 1;
  rounds.assign(bins.size(), FirstRound());
  candidates.clear();
  floors.clear();
  auto after = [](const Candidate& a, const Candidate& b) { return ScoredBefore(b, a); };
  // The first round: every bin's best blocks, best first across the bins,
  // each scored while its bound reaches its bin's threshold. One below it
  // ends the bin's ranking: every block left there scores no higher. A
  // bin is opened when its bound (bins[i].bound, descending) is the
  // highest left, so a bin none of whose scores can reach the threshold
  // is never opened.
  for (size_t next = 0; next < bins.size() || !candidates.empty();) {
    if (next < bins.size() && (candidates.empty() || bins[next].bound >= candidates.front().bound)) {
      TermInBin& b = bins[next];
      FirstRound& round = rounds[next];
      round.done = true;
      const uint32_t index = static_cast<uint32_t>(next++);
      if (shared != nullptr && b.bound < shared->get()) continue;  // nothing here can enter: not opened
      DPS_RETURN_IF_ERROR(open(&b));
      if (b.term == nullptr) continue;  // no postings in the bin
      if (!b.term->stored_impacts) {
        // A list kept inline is one decoded run with no stored bound: scored whole.
        DPS_RETURN_IF_ERROR(ScoreRun(*b.term, *b.one, b.bin, bm25, b.top));
        continue;
      }
      round.done = false;
      const size_t before = candidates.size();
      DPS_RETURN_IF_ERROR(FindBest(b, index, k, bm25, &round, &candidates));
      if (!across) floors.clear();
      for (size_t i = before; i < candidates.size(); ++i) {
        // Each block holds a document of its own scoring at least its
        // floor: once K floors are known, the K-th highest is a threshold
        // before any block is scored (most postings of the first blocks
        // are then passed over on tf and dl, their lengths unread). Read
        // before the push: it may move another bin's candidate to i.
        floors.push_back(bm25.BlockScoreFloor(b.term->idf, candidates[i].score, b.term->score_avgdl));
        std::push_heap(candidates.begin(), candidates.begin() + i + 1, after);
        std::push_heap(floors.begin(), floors.end(), std::greater<>());
        if (floors.size() > k) {
          std::pop_heap(floors.begin(), floors.end(), std::greater<>());
          floors.pop_back();
        }
      }
      if (floors.size() == k) b.top->Raise(floors.front());
      continue;
    }
    std::pop_heap(candidates.begin(), candidates.end(), after);
    const Candidate c = candidates.back();
    candidates.pop_back();
    FirstRound& round = rounds[c.bin];
    if (round.done) continue;
    const TermInBin& b = bins[c.bin];
    if (c.bound < b.top->Refresh()) {
      b.top->Skipped(b.term->cursor->num_blocks() - round.scored);
      round.done = true;
      continue;
    }
    if (Cancelled(cancel)) return Status::OK();
    DPS_RETURN_IF_ERROR(ScoreBlock(*b.term, c.block, *b.one, b.bin, bm25, b.top));
    ++round.scored;
  }
  for (size_t i = 0; i < bins.size(); ++i) {
    FirstRound& round = rounds[i];
    if (round.done || round.found == bins[i].term->cursor->num_blocks()) continue;
    DPS_RETURN_IF_ERROR(RankRest(bins[i], bm25, &round, cancel));
  }
  return Status::OK();
}

}  // namespace dps::pruned
