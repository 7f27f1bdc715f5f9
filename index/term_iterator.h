// TermIterator: one term in one bin of a tablet, over all of the tablet's
// files. Files are ordered so docids only grow across them, so the iterator
// concatenates their posting lists, and it skips docids deleted by
// tombstones. Owns its cursors; borrows the tombstone list (owned by the
// Tablet, which must outlive it).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "index/doc_iterator.h"
#include "index/positions.h"
#include "index/posting_list.h"

namespace dps {

class TermIterator final : public DocIterator {
 public:
  // REQUIRES: parts non-empty, each positioned on its first docid, docids of
  // part k all below those of part k+1; `deleted` ascending.
  TermIterator(std::vector<std::unique_ptr<PostingCursor>> parts, std::span<const DocId> deleted);

  DocId doc() const override { return doc_; }
  DocId Next() override;
  DocId Seek(DocId target) override;
  uint64_t cost() const override { return cost_; }
  Status status() const override;
  uint32_t weight() { return parts_[part_]->weight(); }
  // One positions source per part (Tablet::OpenRefs with positions).
  void AttachPositions(std::vector<std::unique_ptr<PostingPositions>> positions) { positions_ = std::move(positions); }
  // The current posting's positions into *out (as many as its weight,
  // ascending). REQUIRES: positions attached, doc() != kEndDoc.
  Status Positions(std::vector<uint32_t>* out);

 private:
  // `d` is the current part's docid after a move to >= target: crosses into
  // later parts when it is exhausted and steps over deleted docids.
  DocId Settle(DocId d, DocId target);
  std::vector<std::unique_ptr<PostingCursor>> parts_;
  std::vector<std::unique_ptr<PostingPositions>> positions_;  // parallel to parts_, or empty
  size_t part_ = 0;
  std::span<const DocId> deleted_;
  size_t deleted_pos_ = 0;
  uint64_t cost_ = 0;
  DocId doc_ = kEndDoc;
  DocId last_of_previous_part_ = 0;  // a docid the next part must exceed
  bool order_error_ = false;
};

}  // namespace dps
