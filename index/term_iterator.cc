#include "index/term_iterator.h"

#include <algorithm>

namespace dps {

TermIterator::TermIterator(std::vector<std::unique_ptr<PostingCursor>> parts,
                           std::span<const DocId> deleted)
    : parts_(std::move(parts)), deleted_(deleted) {
  for (const auto& p : parts_) cost_ += p->df();
  doc_ = Settle(parts_[0]->doc(), 0);
}

DocId TermIterator::Settle(DocId d, DocId target) {
  for (;;) {
    while (d == kEndDoc) {
      if (part_ + 1 >= parts_.size() || !parts_[part_]->status().ok()) return doc_ = kEndDoc;
      d = parts_[++part_]->Seek(target);
      if (d <= last_of_previous_part_) {
        order_error_ = true;  // files out of order: an error, not a wrong answer
        return doc_ = kEndDoc;
      }
    }
    last_of_previous_part_ = d;
    if (deleted_pos_ < deleted_.size() && deleted_[deleted_pos_] <= d) {
      deleted_pos_ = static_cast<size_t>(
          std::lower_bound(deleted_.begin() + deleted_pos_, deleted_.end(), d) - deleted_.begin());
      if (deleted_pos_ < deleted_.size() && deleted_[deleted_pos_] == d) {
        d = parts_[part_]->Next();
        continue;
      }
    }
    return doc_ = d;
  }
}

DocId TermIterator::Next() {
  if (doc_ == kEndDoc) return kEndDoc;
  return Settle(parts_[part_]->Next(), doc_ + 1);
}

DocId TermIterator::Seek(DocId target) {
  if (target <= doc_) return doc_;
  return Settle(parts_[part_]->Seek(target), target);
}

Status TermIterator::status() const {
  if (order_error_) {
    return Status::Corruption("posting lists of one term do not ascend across the tablet's files");
  }
  for (const auto& p : parts_) {
    if (!p->status().ok()) return p->status();
  }
  return Status::OK();
}

uint64_t CountMatches(DocIterator* it) {
  uint64_t n = 0;
  for (DocId d = it->doc(); d != kEndDoc; d = it->Next()) ++n;
  return n;
}

Status TermIterator::Positions(std::vector<uint32_t>* out) {
  PostingCursor& c = *parts_[part_];
  uint32_t block = 0, tf = 0;
  uint64_t in_block = 0;
  if (!c.PositionsAt(&block, &in_block, &tf)) return c.status();
  out->resize(tf);
  return positions_[part_]->Get(block, in_block, tf, out->data());
}

}  // namespace dps
