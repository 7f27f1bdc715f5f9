// DocIterator: the term-source contract every query operator implements and
// composes (xapian's PostList, tantivy's DocSet, PISA's cursors).
//
// Contract: doc() is the current docid, kEndDoc once exhausted (a sentinel,
// so loops test one value). Next() advances by one. Seek(t) moves to the
// first docid >= t and never moves backwards (Seek(t) with t <= doc() is a
// no-op). cost() estimates how many docids remain, so AND can lead with
// its rarest source. On corruption an iterator becomes exhausted and
// status() reports why: callers must check status() when doc() hits kEndDoc
// before trusting that a bin had no more matches.
// Iterators are single-threaded and live no longer than the tablet they read.
#pragma once

#include <cstdint>
#include <memory>

#include "common/status.h"
#include "index/types.h"

namespace dps {

class DocIterator {
 public:
  virtual ~DocIterator() = default;
  virtual DocId doc() const = 0;
  virtual DocId Next() = 0;
  virtual DocId Seek(DocId target) = 0;
  virtual uint64_t cost() const = 0;
  virtual Status status() const = 0;
};

// Yields nothing: a term absent from a bin.
class EmptyIterator final : public DocIterator {
 public:
  DocId doc() const override { return kEndDoc; }
  DocId Next() override { return kEndDoc; }
  DocId Seek(DocId) override { return kEndDoc; }
  uint64_t cost() const override { return 0; }
  Status status() const override { return Status::OK(); }
};

// Counts the remaining docids of `it` (count-only queries).
uint64_t CountMatches(DocIterator* it);

}  // namespace dps
