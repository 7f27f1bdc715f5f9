#include "index/or_iterator.h"

namespace dps {

OrIterator::OrIterator(std::vector<std::unique_ptr<DocIterator>> children)
    : children_(std::move(children)) {
  for (const auto& c : children_) cost_ += c->cost();
  Min();
}

DocId OrIterator::Min() {
  DocId m = kEndDoc;
  for (const auto& c : children_) m = std::min(m, c->doc());
  return doc_ = m;
}

DocId OrIterator::Next() {
  if (doc_ == kEndDoc) return kEndDoc;
  for (auto& c : children_) {
    if (c->doc() == doc_) c->Next();
  }
  return Min();
}

DocId OrIterator::Seek(DocId target) {
  if (target <= doc_) return doc_;
  for (auto& c : children_) c->Seek(target);
  return Min();
}

Status OrIterator::status() const {
  for (const auto& c : children_) DPS_RETURN_IF_ERROR(c->status());
  return Status::OK();
}

}  // namespace dps
