// OrIterator: the union of its children in docid order. Keeps every child
// positioned at or after doc(); the minimum is found by a linear scan, which
// beats a heap for the handful of children boolean queries have. Owns its
// children.
#pragma once

#include <memory>
#include <vector>

#include "index/doc_iterator.h"

namespace dps {

class OrIterator final : public DocIterator {
 public:
  explicit OrIterator(std::vector<std::unique_ptr<DocIterator>> children);

  DocId doc() const override { return doc_; }
  DocId Next() override;
  DocId Seek(DocId target) override;
  uint64_t cost() const override { return cost_; }
  Status status() const override;

 private:
  DocId Min();
  std::vector<std::unique_ptr<DocIterator>> children_;
  uint64_t cost_ = 0;
  DocId doc_ = kEndDoc;
};

}  // namespace dps
