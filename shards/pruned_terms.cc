#include "shards/pruned_terms.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace dps::pruned {

bool FindOneFileBin(const Tablet& tablet, BinId bin, const RankContext& rank, OneFileBin* out) {
  *out = OneFileBin();
  if (rank.column < 0 || !tablet.deleted(bin).empty()) return false;
  const size_t column = static_cast<size_t>(rank.column);
  for (const auto& f : tablet.files()) {
    const int i = f->FindBin(bin);
    if (i < 0) continue;
    if (out->file != nullptr) return false;  // several files hold the bin
    out->file = f.get();
    out->info = &f->bin(static_cast<size_t>(i));
    if (out->info->num_docs == 0) continue;  // lengths read only when it has documents
    out->lengths = &f->lengths(static_cast<size_t>(i), column);
    out->score_avgdl = column == 0 ? out->info->score_avgdl : f->field_columns(static_cast<size_t>(i))[column - 1].score_avgdl;
  }
  return true;
}

double BinBound(const QueryPlan& plan, BinId bin, const OneFileBin& one, const RankContext& rank) {
  const bool scores = rank.bm25.UsesBlockScores();
  double bound = 0;
  for (size_t h = 0; h < plan.terms.entries.size() && h < rank.idf.size(); ++h) {
    const auto span = plan.terms.entries[h].second.RefsOf(bin);
    if (span.empty()) continue;
    bound += scores && span[0].max_score > 0
                 ? rank.bm25.BlockScoreBound(rank.idf[h], span[0].max_score, ScoreAvgdl(one.score_avgdl))
                 : rank.idf[h];
  }
  return bound;
}

PostingCursor* Cursor(size_t i) {
  thread_local std::vector<std::unique_ptr<PostingCursor>> pool;
  while (pool.size() <= i) pool.push_back(std::make_unique<PostingCursor>());
  return pool[i].get();
}

Status CheckDocInFile(const OneFileBin& one, BinId bin, DocId d) {
  if (one.info->num_docs > 0 && d >= one.info->min_docid && d <= one.info->max_docid) return Status::OK();
  return Status::Corruption(one.file->path() + ": bin " + std::to_string(bin.value) + ": posting of docid " +
                            std::to_string(d) + " outside the file's documents");
}

Status OpenBoundedTerm(const Tablet& tablet, const QueryPlan& plan, BinId bin, const OneFileBin& one,
                       const RankContext& rank, size_t highlight, PostingCursor* cursor, BoundedTerm* t,
                       bool* present, DocId at) {
  std::construct_at(t);
  *present = false;
  const auto span = plan.terms.entries[highlight].second.RefsOf(bin);
  if (span.empty()) return Status::OK();
  const TabletReader* holder;
  PostingRef ref;
  DPS_RETURN_IF_ERROR(tablet.ResolveRef(span[0], &holder, &ref));
  if (span.size() != 1 || holder != one.file) {
    return Status::Corruption("global index names a file that does not hold bin " + std::to_string(bin.value));
  }
  *present = true;
  t->cursor = cursor;
  t->highlight = highlight;
  t->idf = rank.idf[highlight];
  DPS_RETURN_IF_ERROR(at == 0 ? one.file->OpenCursor(ref, cursor) : one.file->OpenCursorAt(ref, at, cursor));
  t->stored_impacts = cursor->has_impacts();
  t->score_avgdl = ScoreAvgdl(one.score_avgdl);
  t->max_score = ref.max_score;
  if (!t->stored_impacts) {
    // Kept in the dictionary (at most a block): one "block", bounded by
    // its own postings once a bound is asked for (InlineBound).
    t->block = 0;
    t->block_last = cursor->last_doc();
    t->ref = ref;
    t->one = &one;
    t->bin = bin;
  }
  return Status::OK();
}

namespace {
// An inline list's bound, from its postings read with a second cursor
// (the term's own may be anywhere in the list). Once a threshold exists to
// compare it with: a bin that never fills its K never pays for it.
Status InlineBound(const Bm25& bm25, BoundedTerm* t) {
  if (t->bound_known) return Status::OK();
  PostingCursor postings;
  DPS_RETURN_IF_ERROR(t->one->file->OpenCursor(t->ref, &postings));
  double bound = 0;
  for (DocId d = postings.doc(); d != kEndDoc; d = postings.Next()) {
    DPS_RETURN_IF_ERROR(CheckDocInFile(*t->one, t->bin, d));
    bound = std::max(bound, bm25.TermScore(t->idf, postings.weight(), t->one->lengths->Get(d)));
  }
  DPS_RETURN_IF_ERROR(postings.status());
  t->bound = bound;
  t->bound_known = true;
  return Status::OK();
}
}  // namespace

Status BlockBound(const Bm25& bm25, size_t b, BoundedTerm* t, double* bound) {
  if (bm25.UsesBlockScores()) {
    const uint32_t q = t->cursor->block_score(b);
    if (q == 0) return t->cursor->BadBlockScore(b);  // would bound the block at 0
    *bound = bm25.BlockScoreBound(t->idf, q, t->score_avgdl);
    return Status::OK();
  }
  Impact corner;
  if (!t->cursor->ReadCorner(b, &corner)) return t->cursor->status();
  *bound = bm25.Bound(t->idf, corner.tf, corner.dl);
  return Status::OK();
}

Status LocateBlock(const Bm25& bm25, DocId d, BoundedTerm* t, bool* found) {
  *found = true;
  if (!t->stored_impacts) {
    *found = d <= t->block_last;
    return *found ? InlineBound(bm25, t) : Status::OK();
  }
  if (t->block != SIZE_MAX && d <= t->block_last) return Status::OK();
  const size_t b = t->cursor->BlockFor(d, t->block == SIZE_MAX ? 0 : t->block + 1);
  if (b >= t->cursor->num_blocks()) {
    *found = false;
    return Status::OK();
  }
  DPS_RETURN_IF_ERROR(BlockBound(bm25, b, t, &t->bound));
  t->block = b;
  t->block_last = t->cursor->block_last(b);
  return Status::OK();
}

Status ListBound(const Bm25& bm25, BoundedTerm* t, double* bound) {
  if (!t->stored_impacts) {
    DPS_RETURN_IF_ERROR(InlineBound(bm25, t));
    *bound = t->bound;
    return Status::OK();
  }
  const size_t blocks = t->cursor->num_blocks();
  if (bm25.UsesBlockScores()) {
    uint32_t best = t->max_score;  // the global index's, for a list of several blocks
    if (best == 0) {
      for (size_t b = 0; b < blocks; ++b) {
        const uint32_t q = t->cursor->block_score(b);
        if (q == 0) return t->cursor->BadBlockScore(b);
        best = std::max(best, q);
      }
    }
    *bound = bm25.BlockScoreBound(t->idf, best, t->score_avgdl);
    return Status::OK();
  }
  *bound = 0;
  for (size_t b = 0; b < blocks; ++b) {
    double block = 0;
    DPS_RETURN_IF_ERROR(BlockBound(bm25, b, t, &block));
    *bound = std::max(*bound, block);
  }
  return Status::OK();
}

void PrunedTopK::RaiseToKthBestOf(const double* score, size_t m) {
  const size_t k = top_.k();
  if (k == 0 || m <= 2 * k) return;
  // Counted first, without a branch: once the threshold is high (most
  // runs of a long ranking) few reach it and nothing is copied.
  const double threshold = threshold_;  // a local: the loop vectorizes
  size_t reach = 0;
  for (size_t i = 0; i < m; ++i) reach += score[i] >= threshold;
  if (reach <= 2 * k) return;
  thread_local std::vector<double> reaching;
  reaching.clear();
  for (size_t i = 0; i < m; ++i) {
    if (score[i] >= threshold) reaching.push_back(score[i]);
  }
  std::nth_element(reaching.begin(), reaching.begin() + static_cast<std::ptrdiff_t>(k - 1), reaching.end(),
                   std::greater<>());
  Raise(reaching[k - 1]);
}

}  // namespace dps::pruned
