// What the pruned rankings (block-max AND in shards/block_max_and.cc,
// MaxScore OR in shards/max_score.cc) share: they apply to a bin whose
// postings sit in one file with nothing deleted (plain cursors are then
// exact, as for the intersection fast path), and open each positive term
// there with its idf and a bound on its scores.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <limits>
#include <new>
#include <span>
#include <type_traits>

#include "index/bm25.h"
#include "index/posting_list.h"
#include "index/query_plan.h"
#include "index/tablet.h"
#include "shards/ranking.h"

namespace dps::pruned {

inline constexpr size_t kMaxTerms = 16;  // longer queries rank exhaustively
// The most blocks a single term's first round takes in a bin
// (RankTermBestFirst): enough to hold the K best of a list whose best
// documents are spread one a block, few enough that keeping them sorted
// while the scores go by stays a handful of compares.
inline constexpr size_t kMaxFirstRound = 32;
inline constexpr double kNoThreshold = -std::numeric_limits<double>::infinity();

// The bin's one file, when pruning applies to it.
struct OneFileBin {
  const TabletReader* file = nullptr;  // null: no file holds the bin (nothing matches)
  const BinInfo* info = nullptr;
  const DocLengthsReader* lengths = nullptr;  // of the query's length column
  uint32_t score_avgdl = 0;  // that column's block scores' reference avgdl (units)
};

// False when several files hold the bin, it has deletions, or the query's
// terms lie in several length columns (rank.column < 0): then rank
// exhaustively. The lengths are the query's column's.
bool FindOneFileBin(const Tablet& tablet, BinId bin, const RankContext& rank, OneFileBin* out);

// One positive term in the bin: its cursor, idf, and a bound on its scores:
// the located block's (stored impacts) or the whole list's.
struct BoundedTerm {
  PostingCursor* cursor = nullptr;
  size_t highlight = 0;         // its index in plan.highlight: scores add in that order
  double idf = 0;
  bool stored_impacts = false;  // else `bound` is the whole (short, inline) list's
  double score_avgdl = 0;       // the reference avgdl of its block scores
  uint32_t max_score = 0;       // the global index's bound of a list of several blocks (0: none)
  size_t block = SIZE_MAX;      // the located block; SIZE_MAX: none yet
  DocId block_last = 0;
  double bound = 0;
  // An inline list's: its ref, bin and file, to bound it when first asked.
  bool bound_known = false;
  PostingRef ref;
  const OneFileBin* one = nullptr;
  BinId bin{0};
};

// Room for a query's terms in one bin, each constructed as it is opened
// (OpenBoundedTerm): an array of kMaxTerms BoundedTerms (3 KiB) was
// zeroed on every bin, 370 instructions a bin (gcide's median ranked
// query: 1,080 of 68,000).
class TermSlots {
 public:
  BoundedTerm* data() { return std::launder(reinterpret_cast<BoundedTerm*>(bytes_)); }
  BoundedTerm& operator[](size_t i) { return data()[i]; }

 private:
  alignas(BoundedTerm) unsigned char bytes_[kMaxTerms * sizeof(BoundedTerm)];
};
static_assert(std::is_trivially_destructible_v<BoundedTerm>, "TermSlots never destroys its terms");

// A bound of any score the bin can give, from the global index alone (no
// list opened): each present term's max score where its ref has one and
// the query uses the default k1 and b, else its idf (a term never scores
// above its idf). Added in the plan's highlight order, as scores are.
// REQUIRES: plan.terms.entries[h] is the entry of plan.highlight[h] (a
// conjunction or disjunction of plain terms).
double BinBound(const QueryPlan& plan, BinId bin, const OneFileBin& one, const RankContext& rank);

// This thread's cursors (about 1 KiB each: reused, not allocated per bin).
PostingCursor* Cursor(size_t i);

// Opens term `highlight` of the plan in the bin's file, constructing *t
// (which may be raw room: TermSlots). *present is false
// when the term has no postings in the bin. No bound is read until a
// block is located (LocateBlock) or ListBound is taken: then a list kept
// inline gets its exact bound (from its few postings), a stored list its
// block's or its own. `one` must outlive *t. `at` > 0: the cursor's first
// move is a Seek to `at` or beyond (TabletReader::OpenCursorAt); kEndDoc:
// a SeekBlock (RankTermBestFirst's lists).
Status OpenBoundedTerm(const Tablet& tablet, const QueryPlan& plan, BinId bin, const OneFileBin& one,
                       const RankContext& rank, size_t highlight, PostingCursor* cursor, BoundedTerm* t,
                       bool* present, DocId at = 0);

// Block b's bound: from its block score when the query uses the default k1
// and b, else from its corner (the score is monotone in tf and dl, so the
// corner's bounds each posting of the block, to the last bit).
Status BlockBound(const Bm25& bm25, size_t b, BoundedTerm* t, double* bound);

// Locates the block holding docid `d` or the first after it (skip table
// only) and sets its bound; false when the list ends before d. An inline
// list's one "block" is the list.
Status LocateBlock(const Bm25& bm25, DocId d, BoundedTerm* t, bool* found);

// The bound of the whole list: the best of its blocks' (every impact entry
// read once) or the inline list's.
Status ListBound(const Bm25& bm25, BoundedTerm* t, double* bound);

// A pruned bin's K best, and the threshold its bounds are compared with:
// the higher of the bin's own K-th best score and the query's shared one.
class PrunedTopK {
 public:
  PrunedTopK(size_t k, SharedThreshold* shared) : top_(k), shared_(shared) {}
  // The K best kept in *room's memory (Finish's `out` of the last bin:
  // no allocation per bin); *room is left empty.
  PrunedTopK(size_t k, SharedThreshold* shared, std::vector<ScoredDoc>* room)
      : top_(k, std::move(*room)), shared_(shared) {}
  // The threshold, refreshed from the shared one (other bins raise it).
  double Refresh() {
    if (shared_ != nullptr) threshold_ = std::max(threshold_, shared_->get());
    return threshold_;
  }
  // A score below the threshold is dropped before the bin's K best see it:
  // K documents of the query (of this bin, or of any through the shared
  // threshold) already score more, so it is in no answer, and the bin's
  // collector and the shared one (a lock) are spared it. A bin may then
  // return fewer than K; the query's K best are the same.
  void Offer(double score, BinId bin, DocId docid) {
    ++stats_.scored;
    if (score < threshold_) return;
    if (top_.Offer({score, bin.value, docid})) {
      if (shared_ != nullptr) {
        shared_->Offer(score);
        threshold_ = std::max(threshold_, shared_->get());
      }
      if (top_.full()) {
        threshold_ = std::max(threshold_, top_.threshold());
        if (shared_ != nullptr) shared_->Raise(top_.threshold());
      }
    }
  }
  // Before `m` scores computed together are offered: raises the threshold
  // to their K-th best when more than 2K of them reach it (K documents
  // score at least that much). Offered in docid order, most of a long
  // run's scores that reach a low threshold would enter the K best and be
  // pushed out again (about K ln(m / K) heap replacements: 16% of gcide's
  // single medium terms' instructions); after the raise only the run's K
  // best (and their ties) enter.
  void RaiseToKthBestOf(const double* score, size_t m);
  // Raises the threshold to `score` (and the shared one, if any): K
  // documents of the bin (or of the query, through the shared threshold)
  // are known to score at least that much.
  void Raise(double score) {
    threshold_ = std::max(threshold_, score);
    if (shared_ != nullptr) shared_->Raise(score);
  }
  void Skipped(uint64_t ranges = 1) { stats_.skipped_ranges += ranges; }
  // The K best, best first, into *out; the counts added to *stats if given.
  void Finish(std::vector<ScoredDoc>* out, RankStats* stats) {
    *out = top_.Take();
    if (stats != nullptr) {
      stats->scored += stats_.scored;
      stats->skipped_ranges += stats_.skipped_ranges;
    }
  }

 private:
  TopK top_;
  SharedThreshold* shared_;
  double threshold_ = kNoThreshold;
  RankStats stats_;
};

// One bin of a single term's ranking: a bound of its scores (BinBound),
// then, once opened, the term there, the bin's file and its K best (all
// outlive the ranking).
struct TermInBin {
  BinId bin{0};
  double bound = 0;
  size_t slot = 0;  // the caller's, for `open`
  const BoundedTerm* term = nullptr;  // null until opened, and after when the bin has no postings
  const OneFileBin* one = nullptr;
  PrunedTopK* top = nullptr;
};

// A single term's K best in each of `bins`, a bin opened (`open` sets its
// term, one and top, or leaves term null: no postings) only when its bound
// is the highest left and reaches the shared threshold: the first rounds'
// blocks (each bin's best by block score) scored best first across the
// bins, a bin's round ending at its first block below its threshold, then
// each bin's other blocks in docid order unless their bound is below the
// threshold; no block scored twice; a list kept inline scored whole
// (shards/best_first_term.cc). Each bin's K best are its own ranking's
// (RankBin's with the shared threshold). REQUIRES: bins distinct, by bound
// descending; each term freshly opened, its list kept inline or
// bm25.UsesBlockScores() (block scores bound the scores).
// `cancel` (may be null), once set, stops it before its next block: the
// ranking so far is then partial, and the caller reports the bin cancelled.
Status RankTermBestFirst(std::span<TermInBin> bins, size_t k, const Bm25& bm25, SharedThreshold* shared,
                         const std::function<Status(TermInBin*)>& open, const std::atomic<bool>* cancel = nullptr);

// Whether a request's cancel flag (null: none) is set. The rankings look
// at it once a block or every kCancelStride candidates, so a cancelled
// twin, hedge or deadline stops its bins within a few microseconds of
// work, as the unordered search stops within 4,096 documents.
inline constexpr uint32_t kCancelStride = 64;
inline bool Cancelled(const std::atomic<bool>* cancel) {
  return cancel != nullptr && cancel->load(std::memory_order_relaxed);
}

// A posting's docid must be a document of the file (lengths are read there).
Status CheckDocInFile(const OneFileBin& one, BinId bin, DocId d);

}  // namespace dps::pruned
