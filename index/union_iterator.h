// The union of many sources in one bin, materialized when built: each
// source's docids set in a bitmap over the bin's docid span, then yielded
// in order. For an OR of many children (a prefix's expansions: up to
// thousands of terms), where OrIterator's linear minimum would scan every
// child per docid; building costs one pass over the sources' postings.
// Terms are read straight from their global refs through one reused cursor
// (no iterator and no allocation per term), singletons without a cursor;
// deleted docids are cleared once at the end. Lucene does the same for a
// multi-term query of more than 16 terms (MultiTermQueryConstantScoreWrapper
// collects them into a bitset).
//
// A UnionBuilder is used by one thread, once; the iterator it makes owns
// its bitmap and follows the DocIterator contract.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "common/status.h"
#include "index/doc_iterator.h"
#include "index/global_index.h"
#include "index/posting_list.h"
#include "index/tablet.h"

namespace dps {

// ORs of more children than this are materialized (BuildIterator).
inline constexpr size_t kMaxOrIteratorChildren = 16;

class UnionBuilder {
 public:
  // The bitmap spans the docids of the bin's stored documents in `tablet`.
  // REQUIRES: tablet.HoldsBin(bin); the tablet outlives the builder.
  UnionBuilder(const Tablet& tablet, BinId bin);

  // Adds a term's postings in the bin, from its global refs there
  // (GlobalTermInfo::RefsOf). A posting outside the bin's documents is
  // Corruption.
  Status AddRefs(std::span<const TermRef> refs);
  // Adds every remaining docid of `it` (drained), or its error.
  Status AddIterator(DocIterator* it);
  // The union, deleted docids removed. REQUIRES: called once, last.
  std::unique_ptr<DocIterator> Finish();

 private:
  Status Set(DocId d);
  const Tablet& tablet_;
  BinId bin_;
  DocId first_ = 0;    // the span's first docid
  uint64_t span_ = 0;  // docids in the span (0: the bin stores none)
  std::vector<uint64_t> words_;
  PostingCursor cursor_;  // reused for every term
};

}  // namespace dps
