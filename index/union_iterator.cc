#include "index/union_iterator.h"

#include <algorithm>
#include <bit>

namespace dps {

namespace {

// Yields the set bits of a bitmap whose bit i is docid first + i.
class BitmapIterator final : public DocIterator {
 public:
  BitmapIterator(std::vector<uint64_t> words, DocId first) : words_(std::move(words)), first_(first) {
    for (uint64_t w : words_) cost_ += static_cast<uint64_t>(std::popcount(w));
    doc_ = From(0);
  }
  DocId doc() const override { return doc_; }
  DocId Next() override { return doc_ == kEndDoc ? kEndDoc : doc_ = From(uint64_t{doc_ - first_} + 1); }
  DocId Seek(DocId target) override {
    if (target <= doc_) return doc_;
    return doc_ = From(target < first_ ? 0 : uint64_t{target - first_});
  }
  uint64_t cost() const override { return cost_; }
  Status status() const override { return Status::OK(); }

 private:
  // The first set bit at or after bit i, as a docid.
  DocId From(uint64_t i) const {
    size_t w = i / 64;
    if (w >= words_.size()) return kEndDoc;
    uint64_t bits = words_[w] & (~uint64_t{0} << (i % 64));
    while (bits == 0) {
      if (++w == words_.size()) return kEndDoc;
      bits = words_[w];
    }
    return first_ + static_cast<DocId>(w * 64 + static_cast<size_t>(std::countr_zero(bits)));
  }
  std::vector<uint64_t> words_;
  DocId first_;
  uint64_t cost_ = 0;
  DocId doc_ = kEndDoc;
};

}  // namespace

UnionBuilder::UnionBuilder(const Tablet& tablet, BinId bin) : tablet_(tablet), bin_(bin) {
  DocId last = 0;
  for (const auto& f : tablet.files()) {
    const int i = f->FindBin(bin);
    if (i < 0 || f->bin(static_cast<size_t>(i)).num_docs == 0) continue;
    const BinInfo& b = f->bin(static_cast<size_t>(i));
    first_ = span_ == 0 ? b.min_docid : std::min(first_, b.min_docid);
    last = span_ == 0 ? b.max_docid : std::max(last, b.max_docid);
    span_ = uint64_t{last} - first_ + 1;
  }
  words_.assign((span_ + 63) / 64, 0);
}

Status UnionBuilder::Set(DocId d) {
  const uint64_t i = uint64_t{d} - first_;
  if (d < first_ || i >= span_) {
    return Status::Corruption("bin " + std::to_string(bin_.value) + ": posting of docid " + std::to_string(d) +
                              " outside the bin's documents");
  }
  words_[i / 64] |= uint64_t{1} << (i % 64);
  return Status::OK();
}

Status UnionBuilder::AddRefs(std::span<const TermRef> refs) {
  for (const TermRef& r : refs) {
    if (r.bin != bin_.value) return Status::Corruption("global index ref of another bin");
    const TabletReader* file;
    PostingRef ref;
    DPS_RETURN_IF_ERROR(tablet_.ResolveRef(r, &file, &ref));
    if (ref.df == 1) {
      DPS_RETURN_IF_ERROR(Set(ref.inline_doc));
      continue;
    }
    DPS_RETURN_IF_ERROR(file->OpenCursor(ref, &cursor_));
    for (DocId d = cursor_.doc(); d != kEndDoc; d = cursor_.NextRun()) {
      const DocId* run = cursor_.run();
      for (size_t k = 0, n = cursor_.run_size(); k < n; ++k) DPS_RETURN_IF_ERROR(Set(run[k]));
    }
    DPS_RETURN_IF_ERROR(cursor_.status());
  }
  return Status::OK();
}

Status UnionBuilder::AddIterator(DocIterator* it) {
  for (DocId d = it->doc(); d != kEndDoc; d = it->Next()) DPS_RETURN_IF_ERROR(Set(d));
  return it->status();
}

std::unique_ptr<DocIterator> UnionBuilder::Finish() {
  for (DocId d : tablet_.deleted(bin_)) {
    const uint64_t i = uint64_t{d} - first_;
    if (d >= first_ && i < span_) words_[i / 64] &= ~(uint64_t{1} << (i % 64));
  }
  return std::make_unique<BitmapIterator>(std::move(words_), first_);
}

}  // namespace dps
