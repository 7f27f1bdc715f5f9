#include "shards/pruned_terms.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace dps::pruned {

bool FindOneFileBin(const Tablet& tablet, BinId bin, OneFileBin* out) {
  *out = OneFileBin();
  if (!tablet.deleted(bin).empty()) return false;
  for (const auto& f : tablet.files()) {
    const int i = f->FindBin(bin);
    if (i < 0) continue;
    if (out->file != nullptr) return false;  // several files hold the bin
    out->file = f.get();
    out->info = &f->bin(static_cast<size_t>(i));
    out->lengths = &f->lengths(static_cast<size_t>(i));
  }
  return true;
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
                       bool* present) {
  *t = BoundedTerm();
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
  DPS_RETURN_IF_ERROR(one.file->OpenCursor(ref, cursor));
  t->stored_impacts = cursor->has_impacts();
  if (!t->stored_impacts) {
    // Kept in the dictionary (at most a block): bounded by its own
    // postings, then started again.
    for (DocId d = cursor->doc(); d != kEndDoc; d = cursor->Next()) {
      DPS_RETURN_IF_ERROR(CheckDocInFile(one, bin, d));
      t->bound = std::max(t->bound, rank.bm25.TermScore(t->idf, cursor->weight(), one.lengths->Get(d)));
    }
    DPS_RETURN_IF_ERROR(cursor->status());
    DPS_RETURN_IF_ERROR(one.file->OpenCursor(ref, cursor));
    t->block = 0;
    t->block_last = cursor->last_doc();
  }
  return Status::OK();
}

double ImpactBound(const Bm25& bm25, double idf, const Impact* impacts, size_t count) {
  double best = 0;
  for (size_t i = 0; i < count; ++i) best = std::max(best, bm25.Bound(idf, impacts[i].tf, impacts[i].dl));
  return best;
}

Status LocateBlock(const Bm25& bm25, DocId d, BoundedTerm* t, bool* found) {
  *found = true;
  if (t->block != SIZE_MAX && d <= t->block_last) return Status::OK();
  if (!t->stored_impacts) {
    *found = false;
    return Status::OK();
  }
  const size_t b = t->cursor->BlockFor(d, t->block == SIZE_MAX ? 0 : t->block + 1);
  if (b >= t->cursor->num_blocks()) {
    *found = false;
    return Status::OK();
  }
  Impact impacts[kMaxImpacts];
  size_t count = 0;
  if (!t->cursor->ReadImpacts(b, impacts, &count)) return t->cursor->status();
  t->block = b;
  t->block_last = t->cursor->block_last(b);
  t->bound = ImpactBound(bm25, t->idf, impacts, count);
  return Status::OK();
}

Status ListBound(const Bm25& bm25, BoundedTerm* t, double* bound) {
  if (!t->stored_impacts) {
    *bound = t->bound;
    return Status::OK();
  }
  *bound = 0;
  for (size_t b = 0; b < t->cursor->num_blocks(); ++b) {
    Impact impacts[kMaxImpacts];
    size_t count = 0;
    if (!t->cursor->ReadImpacts(b, impacts, &count)) return t->cursor->status();
    *bound = std::max(*bound, ImpactBound(bm25, t->idf, impacts, count));
  }
  return Status::OK();
}

}  // namespace dps::pruned
