// Block-max AND (Ding & Suel, "Faster top-k document retrieval using
// block-max indexes", SIGIR 2011): shards/ranking.h RankBinBlockMax.
#include <algorithm>
#include <limits>
#include <memory>

#include "index/intersect.h"
#include "shards/pruned_terms.h"

namespace dps {

using pruned::BoundedTerm;

namespace {

// A window's matches, their tfs by term (highlight order), norms and scores.
struct Window {
  DocId docs[kMaxWindowSpan];
  uint32_t tf[pruned::kMaxTerms][kMaxWindowSpan];
  double norm[kMaxWindowSpan];
  double score[kMaxWindowSpan];
};

// One term's scores added to a window's: compiled for AVX2 too (four
// divisions at once where the CPU has it; IEEE division and addition round
// alike at any width, and nothing here may fuse, so the sums are the same
// to the bit).
[[gnu::target_clones("avx2", "default")]] void AddTermScores(double idf, const uint32_t* tf, const double* norm,
                                                            double* score, size_t m) {
  for (size_t i = 0; i < m; ++i) score[i] += Bm25::ScoreWithNorm(idf, tf[i], norm[i]);
}

Window& ThisThreadsWindow() {
  thread_local auto window = std::make_unique<Window>();
  return *window;
}

// Scores every document of [lo, hi] that all terms hold and offers it:
// the matches found with the dense kernel's bitset pass (index/intersect.h
// CollectWindow), then scored a term at a time over all of them, the terms
// added in highlight order as everywhere else (so bit for bit the same
// scores), with no call or branch between one document's divisions and the
// next's.
Status ScoreWindow(BoundedTerm* terms, size_t n, size_t lead, const pruned::OneFileBin& one, BinId bin,
                   const Bm25& bm25, DocId lo, DocId hi, pruned::PrunedTopK* top) {
  Window& w = ThisThreadsWindow();
  PostingCursor* cursors[pruned::kMaxTerms];
  uint32_t* tfs[pruned::kMaxTerms];
  cursors[0] = terms[lead].cursor;
  tfs[0] = w.tf[lead];
  for (size_t h = 0, i = 1; h < n; ++h) {
    if (h == lead) continue;
    cursors[i] = terms[h].cursor;
    tfs[i++] = w.tf[h];
  }
  for (DocId start = lo;;) {
    const DocId end = hi - start < kMaxWindowSpan ? hi : start + (kMaxWindowSpan - 1);
    const size_t m = CollectWindow(cursors, n, start, end, w.docs, tfs);
    if (m == SIZE_MAX) {
      for (size_t i = 0; i < n; ++i) DPS_RETURN_IF_ERROR(cursors[i]->status());
      return Status::Corruption("posting list failed without a status");
    }
    if (m > 0) {
      DPS_RETURN_IF_ERROR(pruned::CheckDocInFile(one, bin, w.docs[0]));
      DPS_RETURN_IF_ERROR(pruned::CheckDocInFile(one, bin, w.docs[m - 1]));  // ascending: all between are
    }
    for (size_t i = 0; i < m; ++i) {
      w.norm[i] = bm25.Norm(one.lengths->Get(w.docs[i]));
      w.score[i] = 0;
    }
    for (size_t h = 0; h < n; ++h) {
      const double idf = terms[h].idf;
      const uint32_t* tf = w.tf[h];
      AddTermScores(idf, tf, w.norm, w.score, m);
    }
    for (size_t i = 0; i < m; ++i) top->Offer(w.score[i], bin, w.docs[i]);
    if (end == hi) return Status::OK();
    start = end + 1;
  }
}

}  // namespace

Status RankBinBlockMax(const Tablet& tablet, const QueryPlan& plan, BinId bin, const RankContext& rank, size_t k,
                       SharedThreshold* shared, std::vector<ScoredDoc>* out, bool* handled, RankStats* stats,
                       const std::atomic<bool>* cancel) {
  out->clear();
  *handled = false;
  const size_t n = plan.and_entries.size();
  if (!plan.pure_and || n == 0 || n > pruned::kMaxTerms || n != rank.idf.size() || k == 0) return Status::OK();
  // Scores add the terms in the plan's highlight order (RankBin's), which
  // is the order of their entries (terms.entries[i] is highlight[i]);
  // bounds add in that order too, so a bound is never below a score it
  // bounds. and_entries holds them rarest first.
  size_t entries[pruned::kMaxTerms];
  std::copy(plan.and_entries.begin(), plan.and_entries.end(), entries);
  std::sort(entries, entries + n);
  for (size_t h = 0; h < n; ++h) {
    if (entries[h] != h) return Status::OK();  // not every positive term once: rank exhaustively
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
  pruned::TermSlots terms;
  // A single term at the default k1 and b is ranked best first, its
  // blocks reached by SeekBlock alone: none is decoded before one is picked.
  const DocId at = n == 1 && rank.bm25.UsesBlockScores() ? kEndDoc : 0;
  for (size_t h = 0; h < n; ++h) {
    bool present;
    DPS_RETURN_IF_ERROR(
        pruned::OpenBoundedTerm(tablet, plan, bin, one, rank, h, pruned::Cursor(h), &terms[h], &present, at));
    if (!present) return Status::OK();  // a term absent from this bin: no match
  }
  const Bm25& bm25 = rank.bm25;
  pruned::PrunedTopK top(k, shared, out);  // in *out's room
  // A single term at the default k1 and b (its block scores are read at
  // random, so its best blocks go first), or kept inline (one short run).
  if (n == 1 && (!terms[0].stored_impacts || bm25.UsesBlockScores())) {
    // Opened already (its bound checked above).
    pruned::TermInBin only{bin, std::numeric_limits<double>::infinity(), 0, &terms[0], &one, &top};
    DPS_RETURN_IF_ERROR(pruned::RankTermBestFirst({&only, 1}, k, bm25, nullptr,
                                                  [](pruned::TermInBin*) { return Status::OK(); }, cancel));
    top.Finish(out, stats);
    return Status::OK();
  }
  // The rarest term leads the leapfrog.
  size_t lead = 0;
  for (size_t h = 1; h < n; ++h) {
    if (terms[h].cursor->df() < terms[lead].cursor->df()) lead = h;
  }
  // Long lists of similar length (the dense kernel's case), and single
  // terms of several blocks (other k1, b), are scored a window at a time (ScoreWindow);
  // a selective conjunction seeks candidate by candidate.
  PostingCursor* by_rarity[pruned::kMaxTerms];
  by_rarity[0] = terms[lead].cursor;
  for (size_t h = 0, i = 1; h < n; ++h) {
    if (h != lead) by_rarity[i++] = terms[h].cursor;
  }
  const bool windows = n == 1 ? terms[lead].cursor->num_blocks() > 1 : PrefersDense(by_rarity, n);
  // [.., range_end]: the docids every term's located block covers, whose
  // scores `bound` bounds; located again once the candidate passes it.
  DocId range_end = 0;
  double bound = 0;
  bool located = false;
  // Locates every term's block for `at` (skip tables only) and adds their
  // bounds; *exhausted when a list ends before `at` (no match from there).
  auto locate = [&](DocId at, bool* exhausted) -> Status {
    *exhausted = false;
    range_end = kEndDoc;
    bound = 0;
    for (size_t h = 0; h < n; ++h) {
      BoundedTerm& t = terms[h];
      bool found;
      DPS_RETURN_IF_ERROR(pruned::LocateBlock(bm25, at, &t, &found));
      if (!found) {
        *exhausted = true;
        return Status::OK();
      }
      range_end = std::min(range_end, t.block_last);
      bound += t.bound;
    }
    // Skip tables are checked as blocks decode; a last docid past the
    // largest one would make range_end + 1 wrap to 0 and the walk stall.
    if (range_end > kMaxDocId) {
      return Status::Corruption(one.file->path() + ": bin " + std::to_string(bin.value) +
                                ": a skip table names a docid past the largest");
    }
    located = true;
    return Status::OK();
  };
  LeadWarmer warm(by_rarity, windows ? 1 : n);
  DocId d = terms[lead].cursor->doc();
  for (uint32_t step = 0; d != kEndDoc; ++step) {
    // A window is thousands of docids: looked at before each one.
    if ((windows || step % pruned::kCancelStride == 0) && pruned::Cancelled(cancel)) break;
    warm();
    const double threshold = top.Refresh();
    // Until there is a threshold nothing can be skipped: blocks are
    // located only then (a rare lead may jump far into a frequent list, and
    // its impact entries are read forward: a selective query that never
    // fills its K pays nothing for them).
    if (windows || threshold != pruned::kNoThreshold) {
      if (!located || d > range_end) {
        bool exhausted;
        DPS_RETURN_IF_ERROR(locate(d, &exhausted));
        if (exhausted) break;
      }
      if (bound < threshold) {
        // Nothing in [d, range_end] can enter: every term stays in its block.
        top.Skipped();
        d = terms[lead].cursor->Seek(range_end + 1);  // range_end < kEndDoc: docids stop at 2^32 - 2
        continue;
      }
    }
    if (windows) {
      // Once there is a threshold, the ranges after this one that cannot
      // be skipped either join its window: fewer, longer passes. The first
      // that can be skipped stays located for the next turn. (Before, a
      // range at a time, so that the threshold rises early.)
      DocId end = range_end;
      bool exhausted = false;
      while (threshold != pruned::kNoThreshold && end - d < kMaxWindowSpan / 4 && !exhausted) {
        DPS_RETURN_IF_ERROR(locate(end + 1, &exhausted));
        if (exhausted || bound < threshold) break;
        end = range_end;
      }
      DPS_RETURN_IF_ERROR(ScoreWindow(terms.data(), n, lead, one, bin, bm25, d, end, &top));
      if (exhausted) break;  // a list ends within the window: nothing after it matches
      d = terms[lead].cursor->Seek(end + 1);
      continue;
    }
    // The leapfrog: all terms on d, or a new candidate.
    DocId next = d;
    for (size_t h = 0; h < n && next == d; ++h) {
      if (h != lead) next = terms[h].cursor->Seek(d);
    }
    if (next != d) {
      d = next == kEndDoc ? kEndDoc : terms[lead].cursor->Seek(next);
      continue;
    }
    DPS_RETURN_IF_ERROR(pruned::CheckDocInFile(one, bin, d));
    // Weights first, then the arithmetic: the terms' divisions are
    // independent and overlap once no call sits between them.
    uint32_t tf[pruned::kMaxTerms];
    for (size_t h = 0; h < n; ++h) tf[h] = terms[h].cursor->weight_alone();
    const double norm = bm25.Norm(one.lengths->Get(d));
    double score = 0;
    for (size_t h = 0; h < n; ++h) score += Bm25::ScoreWithNorm(terms[h].idf, tf[h], norm);
    top.Offer(score, bin, d);
    d = terms[lead].cursor->Next();
  }
  for (size_t h = 0; h < n; ++h) DPS_RETURN_IF_ERROR(terms[h].cursor->status());
  top.Finish(out, stats);
  return Status::OK();
}

}  // namespace dps
