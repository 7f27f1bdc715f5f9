// AndIterator: Accumulo's IntersectingIterator. Leapfrog (zig-zag) join of
// positive sources starting from the rarest, with negated sources that veto
// a candidate (Accumulo's "not" flag on a term). Owns its children.
#pragma once

#include <memory>
#include <vector>

#include "index/doc_iterator.h"

namespace dps {

class AndIterator final : public DocIterator {
 public:
  // REQUIRES: at least one positive child.
  AndIterator(std::vector<std::unique_ptr<DocIterator>> positive,
              std::vector<std::unique_ptr<DocIterator>> negative);

  DocId doc() const override { return doc_; }
  DocId Next() override;
  DocId Seek(DocId target) override;
  uint64_t cost() const override { return positive_[0]->cost(); }
  Status status() const override;

 private:
  // Smallest docid >= candidate on which all positives agree and no
  // negative matches.
  DocId Align(DocId candidate);
  std::vector<std::unique_ptr<DocIterator>> positive_;  // rarest first
  std::vector<std::unique_ptr<DocIterator>> negative_;
  DocId doc_ = kEndDoc;
};

}  // namespace dps
