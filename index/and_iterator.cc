#include "index/and_iterator.h"

#include <algorithm>

namespace dps {

AndIterator::AndIterator(std::vector<std::unique_ptr<DocIterator>> positive,
                         std::vector<std::unique_ptr<DocIterator>> negative)
    : positive_(std::move(positive)), negative_(std::move(negative)) {
  std::stable_sort(positive_.begin(), positive_.end(),
                   [](const auto& a, const auto& b) { return a->cost() < b->cost(); });
  doc_ = Align(positive_[0]->doc());
}

DocId AndIterator::Align(DocId candidate) {
  DocIterator* lead = positive_[0].get();
  const size_t n = positive_.size();
  for (;;) {
    if (candidate == kEndDoc) return doc_ = kEndDoc;
    size_t i = 1;
    for (; i < n; ++i) {
      DocId d = positive_[i]->Seek(candidate);
      if (d != candidate) {
        candidate = lead->Seek(d);
        break;
      }
    }
    if (i < n) continue;
    bool vetoed = false;
    for (auto& neg : negative_) {
      if (neg->Seek(candidate) == candidate) {
        vetoed = true;
        break;
      }
    }
    if (!vetoed) return doc_ = candidate;
    candidate = lead->Next();
  }
}

DocId AndIterator::Next() {
  if (doc_ == kEndDoc) return kEndDoc;
  return Align(positive_[0]->Next());
}

DocId AndIterator::Seek(DocId target) {
  if (target <= doc_) return doc_;
  return Align(positive_[0]->Seek(target));
}

Status AndIterator::status() const {
  for (const auto& c : positive_) DPS_RETURN_IF_ERROR(c->status());
  for (const auto& c : negative_) DPS_RETURN_IF_ERROR(c->status());
  return Status::OK();
}

}  // namespace dps
