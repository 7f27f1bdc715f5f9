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
  std::vector<std::unique_ptr<TermIterator>> terms(plan.highlight.size());
  for (size_t t = 0; t < terms.size(); ++t) {
    const GlobalTermInfo* info = plan.terms.Find(plan.highlight[t]);
    if (info == nullptr) continue;
    DPS_ASSIGN_OR_RETURN(terms[t], tablet.OpenRefs(bin, info->RefsOf(bin)));
  }
  const BinLengths lengths(tablet, bin);
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

namespace dps {

namespace {
constexpr size_t kMaxBlockMaxTerms = 16;  // longer conjunctions rank exhaustively
constexpr double kNoThreshold = -std::numeric_limits<double>::infinity();

// One term of a block-max conjunction: its cursor, idf, and the block of
// its list the current candidate falls in, with that block's bound.
struct BoundedTerm {
  PostingCursor* cursor = nullptr;
  double idf = 0;
  bool stored_impacts = false;  // else `bound` is the whole (short) list's
  size_t block = 0;
  DocId block_last = 0;
  double bound = 0;
};

// The best score any of `impacts` can give (the score is monotone in tf
// and dl, so this bounds each posting the impacts cover, to the last bit).
double ImpactBound(const Bm25& bm25, double idf, const Impact* impacts, size_t count) {
  double best = 0;
  for (size_t i = 0; i < count; ++i) best = std::max(best, bm25.Bound(idf, impacts[i].tf, impacts[i].dl));
  return best;
}
}  // namespace

Status RankBinBlockMax(const Tablet& tablet, const QueryPlan& plan, BinId bin, const RankContext& rank, size_t k,
                       SharedThreshold* shared, std::vector<ScoredDoc>* out, bool* handled, RankStats* stats) {
  out->clear();
  *handled = false;
  const size_t n = plan.and_entries.size();
  if (!plan.pure_and || n == 0 || n > kMaxBlockMaxTerms || n != rank.idf.size() || k == 0 ||
      !tablet.deleted(bin).empty()) {
    return Status::OK();
  }
  // Scores add the terms in the plan's highlight order (RankBin's), which
  // is the order of their entries (terms.entries[i] is highlight[i]);
  // bounds add in that order too, so a bound is never below a score it
  // bounds. and_entries holds them rarest first.
  size_t entries[kMaxBlockMaxTerms];
  std::copy(plan.and_entries.begin(), plan.and_entries.end(), entries);
  std::sort(entries, entries + n);
  for (size_t h = 0; h < n; ++h) {
    if (entries[h] != h) return Status::OK();  // not every positive term once: rank exhaustively
  }
  const TabletReader* file = nullptr;
  int file_bin = -1;
  for (const auto& f : tablet.files()) {
    const int i = f->FindBin(bin);
    if (i < 0) continue;
    if (file != nullptr) return Status::OK();  // several files hold the bin
    file = f.get();
    file_bin = i;
  }
  *handled = true;
  if (file == nullptr || file->bin(static_cast<size_t>(file_bin)).num_docs == 0) return Status::OK();
  thread_local std::vector<std::unique_ptr<PostingCursor>> pool;
  while (pool.size() < n) pool.push_back(std::make_unique<PostingCursor>());
  BoundedTerm terms[kMaxBlockMaxTerms];
  const Bm25& bm25 = rank.bm25;
  const DocLengthsReader& lengths = file->lengths(static_cast<size_t>(file_bin));
  for (size_t h = 0; h < n; ++h) {
    const size_t entry = entries[h];
    const auto span = plan.terms.entries[entry].second.RefsOf(bin);
    if (span.empty()) return Status::OK();  // a term absent from this bin: no match
    const TabletReader* holder;
    PostingRef ref;
    DPS_RETURN_IF_ERROR(tablet.ResolveRef(span[0], &holder, &ref));
    if (span.size() != 1 || holder != file) {
      return Status::Corruption("global index names a file that does not hold bin " + std::to_string(bin.value));
    }
    BoundedTerm& t = terms[h];
    t.cursor = pool[h].get();
    t.idf = rank.idf[entry];
    DPS_RETURN_IF_ERROR(file->OpenCursor(ref, t.cursor));
    t.stored_impacts = t.cursor->has_impacts();
    if (!t.stored_impacts) {
      // A list kept in the dictionary (at most a block): bound it by its
      // own postings, then start it again.
      for (DocId d = t.cursor->doc(); d != kEndDoc; d = t.cursor->Next()) {
        if (d < file->bin(static_cast<size_t>(file_bin)).min_docid || d > file->bin(static_cast<size_t>(file_bin)).max_docid) {
          return Status::Corruption(file->path() + ": bin " + std::to_string(bin.value) + ": posting of docid " +
                                    std::to_string(d) + " outside the file's documents");
        }
        t.bound = std::max(t.bound, bm25.TermScore(t.idf, t.cursor->weight(), lengths.Get(d)));
      }
      DPS_RETURN_IF_ERROR(t.cursor->status());
      DPS_RETURN_IF_ERROR(file->OpenCursor(ref, t.cursor));
      t.block_last = t.cursor->last_doc();
    } else {
      t.block = SIZE_MAX;  // no block located yet
    }
  }
  // The rarest term leads the leapfrog.
  size_t lead = 0;
  for (size_t h = 1; h < n; ++h) {
    if (terms[h].cursor->df() < terms[lead].cursor->df()) lead = h;
  }
  const BinInfo& info = file->bin(static_cast<size_t>(file_bin));
  TopK top(k);
  double threshold = kNoThreshold;
  RankStats local;
  // [.., range_end]: the docids every term's located block covers, whose
  // scores `bound` bounds; located again once the candidate passes it.
  DocId range_end = 0;
  double bound = 0;
  bool located = false;
  DocId d = terms[lead].cursor->doc();
  while (d != kEndDoc) {
    if (!located || d > range_end) {
      // Locate every term's block for d (skip tables only) and add bounds.
      bool exhausted = false;
      range_end = kEndDoc;
      bound = 0;
      for (size_t h = 0; h < n; ++h) {
        BoundedTerm& t = terms[h];
        if (t.stored_impacts && (t.block == SIZE_MAX || d > t.block_last)) {
          const size_t b = t.cursor->BlockFor(d, t.block == SIZE_MAX ? 0 : t.block + 1);
          if (b >= t.cursor->num_blocks()) {
            exhausted = true;
            break;
          }
          Impact impacts[kMaxImpacts];
          size_t count = 0;
          if (!t.cursor->ReadImpacts(b, impacts, &count)) return t.cursor->status();
          t.block = b;
          t.block_last = t.cursor->block_last(b);
          t.bound = ImpactBound(bm25, t.idf, impacts, count);
        } else if (!t.stored_impacts && d > t.block_last) {
          exhausted = true;
          break;
        }
        range_end = std::min(range_end, t.block_last);
        bound += t.bound;
      }
      if (exhausted) break;
      located = true;
    }
    if (shared != nullptr) threshold = std::max(threshold, shared->get());
    if (bound < threshold) {
      // Nothing in [d, range_end] can enter: every term stays in its block.
      ++local.skipped_ranges;
      d = terms[lead].cursor->Seek(range_end + 1);  // range_end < kEndDoc: docids stop at 2^32 - 2
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
    if (d < info.min_docid || d > info.max_docid) {
      return Status::Corruption(file->path() + ": bin " + std::to_string(bin.value) + ": posting of docid " +
                                std::to_string(d) + " outside the file's documents");
    }
    // Weights first, then the arithmetic: the terms' divisions are
    // independent and overlap once no call sits between them.
    uint32_t tf[kMaxBlockMaxTerms];
    for (size_t h = 0; h < n; ++h) tf[h] = terms[h].cursor->weight();
    const double norm = bm25.Norm(lengths.Get(d));
    double score = 0;
    for (size_t h = 0; h < n; ++h) score += Bm25::ScoreWithNorm(terms[h].idf, tf[h], norm);
    ++local.scored;
    if (top.Offer({score, bin.value, d}) && top.full()) {
      threshold = std::max(threshold, top.threshold());
      if (shared != nullptr) shared->Raise(top.threshold());
    }
    d = terms[lead].cursor->Next();
  }
  for (size_t h = 0; h < n; ++h) DPS_RETURN_IF_ERROR(terms[h].cursor->status());
  *out = top.Take();
  if (stats != nullptr) {
    stats->scored += local.scored;
    stats->skipped_ranges += local.skipped_ranges;
  }
  return Status::OK();
}

}  // namespace dps
